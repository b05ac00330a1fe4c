-- A table for the transactions of workload.d/60-messages.sql.
CREATE TABLE conf_msg_rows (id int PRIMARY KEY);
