-- conf_euc_jp: changes with multi-byte keys and values, a key change, a delete, a message.
SET client_encoding = 'UTF8';

INSERT INTO "日本"."東京" VALUES
    ('東京タワー', 'ｶﾀｶﾅ', '赤', '{"鍵": "値"}', '<名>値</名>', '"鍵"=>"値", "空"=>NULL',
     ARRAY['一', '丂']),
    ('富士山', DEFAULT, DEFAULT, '[]', NULL, '', NULL);
UPDATE "日本"."東京" SET "値" = '更新' WHERE "名前" = '富士山';
UPDATE "日本"."東京" SET "名前" = 'スカイツリー' WHERE "名前" = '東京タワー';
DELETE FROM "日本"."東京" WHERE "名前" = '富士山';
SELECT pg_logical_emit_message(true, '接頭辞', '内容');
