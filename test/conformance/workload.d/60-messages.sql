-- Logical decoding messages for the message.prefix.include.list / exclude.list profiles
-- (messages, messages_excluded): prefixes that one list's expressions match whole or in
-- part only, in other case, and a transaction whose only event is a message
-- left out.
SELECT pg_logical_emit_message(false, 'msg-12', 'digits');
SELECT pg_logical_emit_message(false, 'msg-12x', 'digits and more');
SELECT pg_logical_emit_message(false, 'Workload-upper', 'other case');
SELECT pg_logical_emit_message(false, 'aXYZ', 'A.*Z');
SELECT pg_logical_emit_message(false, 'xworkload', 'not at the start');
BEGIN;
SELECT pg_logical_emit_message(true, 'other', 'alone in its transaction');
COMMIT;
-- one transactional message a transaction (two in one are a difference of their own, not
-- of the prefix lists)
BEGIN;
SELECT pg_logical_emit_message(true, 'other', 'with a row');
INSERT INTO conf_msg_rows VALUES (1);
COMMIT;
BEGIN;
INSERT INTO conf_msg_rows VALUES (2);
SELECT pg_logical_emit_message(true, 'msg-7', 'with a row');
COMMIT;
