-- 90-outbox.sql: events in the outbox table of setup.d/90-outbox.sql: several aggregate types,
-- JSON payloads of every shape the expansion infers (nested objects, arrays of objects with
-- different fields, nulls, numbers of each width, escapes), a null and a blank payload, an
-- update (skipped by the transform, with a warning) and a delete (dropped).

\set ON_ERROR_STOP 1

SET client_encoding = 'UTF8';

INSERT INTO outbox.events VALUES
    ('00000000-0000-0000-0000-000000000001', 'Order', 'o-1', 'OrderCreated',
     '{"id":1,"customer":{"name":"Zoë \"Z\" Ö","tags":["vip","new"]},"lines":[{"sku":"a","qty":2},{"sku":"b","qty":1,"note":null,"gift":true}],"total":12.5,"big":9000000000,"ratio":1e-7,"paid":false}',
     '{"id":1}', '2024-03-01 10:00:00.123456', '2024-03-01 10:00:00.123', 1, 0, DEFAULT, 12.50),
    ('00000000-0000-0000-0000-000000000002', 'Customer', 'c-7', 'CustomerMoved',
     '{"id":7,"city":"Paris","zip":null,"a-b":1,"1st":"x"}', '  ', NULL, NULL, 1, NULL, 'other', NULL),
    ('00000000-0000-0000-0000-000000000003', 'Order', 'o-2', 'OrderVoided', NULL, NULL,
     '2024-03-02 00:00:00', '2024-03-02 00:00:00', 2, 1, NULL, 0.5);
BEGIN;
INSERT INTO outbox.events VALUES
    ('00000000-0000-0000-0000-000000000004', 'Shipment', 's-1', 'Shipped',
     '{"id":4,"parcels":[[1,2],[3]],"empty":[],"nested":{"deeper":{"x":-0.0}}}', 'not json',
     NULL, NULL, 3, NULL, DEFAULT, 1.00),
    ('00000000-0000-0000-0000-000000000005', 'Order', 'o-1', 'OrderPaid',
     '{"id":1,"paid":true,"total":12.5}', '', '2024-03-03 12:34:56.789', NULL, 1, 0, NULL, NULL);
UPDATE outbox.events SET type = 'OrderChanged' WHERE id = '00000000-0000-0000-0000-000000000001';
DELETE FROM outbox.events WHERE id = '00000000-0000-0000-0000-000000000003';
COMMIT;
