-- Names that schema.name.adjustment.mode / field.name.adjustment.mode change (profiles
-- names_avro, names_unicode): the table's name makes its topic and schema names, its
-- columns the field names of keys and values.
CREATE TABLE "name-adjust" (
	"1id" int PRIMARY KEY,
	"my-col" text,
	"two words" int,
	"dot.ted" int,
	"café" text,
	"αβ" int,
	"x😀" int,
	_under int
);
