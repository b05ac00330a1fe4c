-- output_format binary: the frames the streaming worker hands to Kafka.
SET client_min_messages = warning;
CREATE TABLE bf (id int PRIMARY KEY, v text);

-- decode one frame (see src/plugin/recout.c for the layout)
CREATE FUNCTION frame_u32(f bytea, p int) RETURNS bigint LANGUAGE sql AS
	$$ SELECT (get_byte(f, p)::bigint << 24) | (get_byte(f, p + 1) << 16)
			| (get_byte(f, p + 2) << 8) | get_byte(f, p + 3) $$;
CREATE FUNCTION parse_frame(f bytea, OUT kind text, OUT has_lsn bool, OUT has_relid bool,
	OUT part int, OUT ts bigint, OUT topic text, OUT key text, OUT value text, OUT headers text)
LANGUAGE plpgsql AS $$
DECLARE
	p int;
	n bigint;
BEGIN
	kind := chr(get_byte(f, 0));
	has_lsn := frame_u32(f, 1) > 0 OR frame_u32(f, 5) > 0;
	IF kind = 'C' THEN
		RETURN;
	END IF;
	has_relid := frame_u32(f, 9) > 0;
	part := (frame_u32(f, 13) # 2147483648) - 2147483648;	-- signed
	ts := ((frame_u32(f, 17) << 32) | frame_u32(f, 21)) ;
	p := 25;
	n := get_byte(f, p) * 256 + get_byte(f, p + 1);
	topic := convert_from(substr(f, p + 3, n::int), 'UTF8');
	p := p + 2 + n;
	n := frame_u32(f, p);
	p := p + 4;
	IF n <> 4294967295 THEN
		key := convert_from(substr(f, p + 1, n::int), 'UTF8');
		p := p + n;
	END IF;
	n := frame_u32(f, p);
	p := p + 4;
	IF n <> 4294967295 THEN
		value := left(convert_from(substr(f, p + 1, n::int), 'UTF8'), 40);
		p := p + n;
	END IF;
	headers := '';
	FOR i IN 1 .. get_byte(f, p) LOOP
		p := p + 1;
		n := get_byte(f, p);
		headers := headers || convert_from(substr(f, p + 2, n::int), 'UTF8') || '=';
		p := p + 1 + n;
		n := frame_u32(f, p);
		headers := headers || convert_from(substr(f, p + 5, n::int), 'UTF8') || ' ';
		p := p + 3 + n;
	END LOOP;
	IF p + 1 <> length(f) THEN
		RAISE EXCEPTION 'frame has % bytes, parsed %', length(f), p + 1;
	END IF;
END $$;

SELECT 'init' FROM pg_create_logical_replication_slot('bf_slot', 'cdc_kafka');
INSERT INTO bf VALUES (1, 'x');
UPDATE bf SET id = 2;
SELECT 'msg' FROM pg_logical_emit_message(false, 'p', 'standalone');
INSERT INTO bf VALUES (3, 'y');

SELECT f.* FROM pg_logical_slot_peek_binary_changes('bf_slot', NULL, NULL,
	'output_format', 'binary', 'schemas', 'false', 'deterministic', 'true') c,
	parse_frame(c.data) f;

-- textual functions refuse the binary format
SELECT count(*) FROM pg_logical_slot_peek_changes('bf_slot', NULL, NULL, 'output_format', 'binary');

SELECT 'drop' FROM pg_drop_replication_slot('bf_slot');
DROP TABLE bf;
DROP FUNCTION parse_frame(bytea), frame_u32(bytea, int);
