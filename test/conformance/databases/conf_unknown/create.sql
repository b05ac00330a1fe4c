-- A database of its own for the include.unknown.datatypes profiles (unknown_types*): its
-- tables have columns of types Debezium 3.6.1 has no mapping for, which Debezium leaves out
-- by default and cdc_kafka writes as text (a deliberate difference), so no other profile
-- may capture them.
CREATE DATABASE conf_unknown TEMPLATE template0 ENCODING 'UTF8' LC_COLLATE 'C' LC_CTYPE 'C';
