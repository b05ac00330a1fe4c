-- Changes of the table of setup.d/70-names.sql.
INSERT INTO "name-adjust" VALUES (1, 'a', 2, 3, 'é', 4, 5, 6);
UPDATE "name-adjust" SET "my-col" = 'b' WHERE "1id" = 1;
DELETE FROM "name-adjust" WHERE "1id" = 1;
