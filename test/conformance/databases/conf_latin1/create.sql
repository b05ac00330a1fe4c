-- A LATIN1 database (profile latin1): records must be UTF-8 all the same.
CREATE DATABASE conf_latin1 TEMPLATE template0 ENCODING 'LATIN1' LC_COLLATE 'C' LC_CTYPE 'C';
