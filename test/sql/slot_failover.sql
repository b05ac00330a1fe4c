-- cdc_kafka.slot_failover: failover slots exist from PostgreSQL 17 on.  Before
-- that, "on" is refused when it is loaded, with the setting's name and why
-- (ALTER SYSTEM runs the same check as a reload); from 17 on it is taken
-- (slot_failover_1.out).  Nothing stays set: RESET empties the file again.
LOAD 'cdc_kafka';
SHOW cdc_kafka.slot_failover;
ALTER SYSTEM SET cdc_kafka.slot_failover = on;
ALTER SYSTEM RESET cdc_kafka.slot_failover;
ALTER SYSTEM SET cdc_kafka.slot_failover = off;
ALTER SYSTEM RESET cdc_kafka.slot_failover;
