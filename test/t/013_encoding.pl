# 013_encoding.pl - the streaming worker writes UTF-8 records from a LATIN1
# database.
#
#  * A LATIN1 database whose name is not ASCII ("café", as a UTF-8 client
#    names it), listed in cdc_kafka.databases: its worker streams, with the
#    default topic prefix sanitised as Debezium sanitises topic names
#    ("caf_"; before, the worker refused its own prefix).
#  * Rows from before the slot (the initial snapshot) and changes after it:
#    topic "caf_.sch_.caf_", keys, values and the key-change headers are
#    UTF-8 ("é" as C3 A9, never LATIN1's E9), the source block names the
#    database, schema and table in UTF-8.
#
# The file is UTF-8 and its strings are bytes (no "use utf8"): what is
# compared is the bytes Kafka holds.
#
# test/t/013_encoding.pl

use strict;
use warnings;
use FindBin;
use lib $FindBin::RealBin;

use PostgreSQL::Test::Cluster;
use PostgreSQL::Test::Utils;
use Test::More;
use CdcKafka;

# what psql sends is UTF-8 (the server converts it to LATIN1)
$ENV{PGCLIENTENCODING} = 'UTF8';

my $kafka = CdcKafka::Cluster->start(nodes => 1, partitions => 1);
my $node = new_node(
	'encoding',
	bootstrap => $kafka->bootstrap,
	databases => 'café',
	create_extension => 0);

$node->safe_psql('postgres',
	q{CREATE DATABASE "café" TEMPLATE template0 ENCODING 'LATIN1' LC_COLLATE 'C' LC_CTYPE 'C'});
$node->safe_psql(
	'café', q{
CREATE SCHEMA "sché";
CREATE TABLE "sché"."café" ("clé" text PRIMARY KEY, "crème" text, arr text[]);
INSERT INTO "sché"."café" VALUES ('avant é', 'snapshot ü', ARRAY['à']);
CREATE EXTENSION cdc_kafka;
});
ok(wait_streaming($node, db => 'café', timeout => 60), 'the worker of "café" streams');

$node->safe_psql(
	'café', q{
INSERT INTO "sché"."café" VALUES ('après é', 'crème brûlée', ARRAY['ß', '±']);
UPDATE "sché"."café" SET "clé" = 'clé²' WHERE "clé" = 'après é';
});
ok(wait_caught_up($node, db => 'café'), 'caught up');

my $topic = 'caf_.sch_.caf_';
ok($kafka->wait_for_records($topic, 5, 60), "5 records on $topic (r, c, d, tombstone, c)");

my $records = $kafka->consume($topic);
my @bad = grep {
	my ($k, $v) = ($_->{key} // '', $_->{value} // '');
	!utf8::decode($k) || !utf8::decode($v)
} @$records;
is(scalar @bad, 0, 'every key and value is valid UTF-8');
my $all = join("\n", map { ($_->{key} // '') . ($_->{value} // '') } @$records);
unlike($all, qr/\xe9/, 'no LATIN1 byte in the records');

my @ops = map { decode_record($_)->{op} } @$records;
is(join(',', @ops), 'r,c,d,tombstone,c', 'ops');
like($records->[0]{value}, qr/"after":\{"clé":"avant é","crème":"snapshot ü","arr":\["à"\]\}/,
	'the snapshot row, in UTF-8');
like($records->[1]{value}, qr/"crème":"crème brûlée","arr":\["ß","±"\]/, 'the insert, in UTF-8');
like($records->[1]{value}, qr/"name":"caf_".*"db":"café".*"schema":"sché","table":"café"/,
	'source: prefix, database, schema and table');
like($records->[1]{value}, qr/"field":"clé".*"name":"caf_\.sch_\.caf_\.Value"/,
	'schema: field names and schema names');
is($records->[4]{key}, '{"schema":{"type":"struct","fields":[{"type":"string","optional":false,'
	  . '"field":"clé"}],"optional":false,"name":"caf_.sch_.caf_.Key"},"payload":{"clé":"clé²"}}',
	'the new key');

# the key-change headers (kcat's JSON envelope: headers as name, value, ...)
my $with_headers = $kafka->consume($topic, headers => 1);
my %newkey = @{ $with_headers->[2]{headers} };
like(Encode::encode_utf8($newkey{'__debezium.newkey'} // ''), qr/"payload":\{"clé":"clé²"\}/,
	'__debezium.newkey holds the new key in UTF-8');
is(status($node, 'café')->{topic_prefix}, 'caf_', 'status shows the sanitised prefix');

done_testing();
