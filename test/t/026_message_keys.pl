# 026_message_keys.pl - record keys and masks set by cdc_kafka.* settings,
# through the worker, against a real Kafka.
#
#   A  cdc_kafka.message_key_columns keys table k2 by (grp, id): an
#      incremental snapshot in chunks of 7 rows sends every row once, keyed by
#      those columns; table k, keyed by grp alone (values repeat: the record
#      key cannot say which row a change touched), is refused with the reason.
#   B  cdc_kafka.column_mask_with_chars masks the named column, in snapshot
#      and streamed records alike; a bad value is refused, naming the setting.
#
# test/t/026_message_keys.pl

use strict;
use warnings;
use FindBin;
use lib $FindBin::RealBin;

use PostgreSQL::Test::Cluster;
use PostgreSQL::Test::Utils;
use Test::More;
use CdcKafka;

my $json = CdcKafka::json_parser();
my $kafka = CdcKafka::Cluster->start(nodes => 1, partitions => 1);
my $topic = 'mk.public.k2';

my $node = new_node(
	'mk',
	bootstrap => $kafka->bootstrap,
	create_extension => 0,
	conf => "cdc_kafka.schemas = off\ncdc_kafka.topic_prefix = 'mk'\n"
	  . "cdc_kafka.snapshot_mode = no_data\n"
	  . "cdc_kafka.incremental_snapshot_chunk_size = 7\n"
	  . "cdc_kafka.message_key_columns = 'public.k:grp;public.k2:grp,id'\n"
	  . "cdc_kafka.column_mask_with_chars = '4: public.k2.note, public.k.nothing'\n");
$node->safe_psql('postgres',
	"CREATE TABLE k (id int PRIMARY KEY, grp int NOT NULL, note text);
	 CREATE TABLE k2 (id int PRIMARY KEY, grp int NOT NULL, note text);
	 INSERT INTO k SELECT g, g % 4, 'row ' || g FROM generate_series(1, 60) g;
	 INSERT INTO k2 SELECT * FROM k;");
$node->safe_psql('postgres', 'CREATE EXTENSION cdc_kafka');
ok(wait_streaming($node), 'streaming');

# ---- A: every row, keyed by the record key; a record key that is no key refused ----------

my ($ret, $out, $err) = $node->psql('postgres', "SELECT cdc_kafka.snapshot('k')");
isnt($ret, 0, 'A: a snapshot of k (record key grp alone) is refused');
like($err, qr/the record key of table "k" does not identify its rows/, 'A: saying why');

my $id = $node->safe_psql('postgres', "SELECT cdc_kafka.snapshot('k2')");
ok(poll_until(sub {
	$node->safe_psql('postgres', "SELECT state FROM cdc_kafka.snapshots WHERE id = $id") eq 'done' },
	120, 'snapshot done'), 'A: the snapshot finishes');
$node->safe_psql('postgres', "INSERT INTO k2 VALUES (61, 1, 'streamed')");
ok(wait_caught_up($node), 'A: caught up');

my (%reads, @bad_keys, @notes, $streamed);
$kafka->consume_each(
	$topic,
	sub {
		my $key = $json->decode($_[0]{key});
		my $v = $json->decode($_[0]{value});
		push @bad_keys, $_[0]{key}
		  if join(',', sort keys %$key) ne 'grp,id'
		  || $key->{grp} != $v->{after}{grp}
		  || $key->{id} != $v->{after}{id};
		push @notes, $v->{after}{note};
		$reads{ $v->{after}{id} }++ if $v->{op} eq 'r';
		$streamed = $v->{after} if $v->{op} eq 'c';
	});
is(scalar(keys %reads), 60, 'A: every row of the table was read');
is(scalar(grep { $_ != 1 } values %reads), 0, 'A: each row once');
is(scalar(@bad_keys), 0, 'A: record keys are the message key columns')
  or diag(join(' ', @bad_keys[ 0 .. 4 ]));

# ---- B: masks ------------------------------------------------------------------------

is(scalar(grep { ($_ // '') ne '****' } @notes), 0, 'B: every note is masked, read or streamed');
is($streamed->{id}, 61, 'B: the streamed row arrived');
($ret, $out, $err) = $node->psql('postgres',
	"ALTER SYSTEM SET cdc_kafka.column_mask_with_chars = 'x: public.k.note'");
isnt($ret, 0, 'B: a bad value is refused');
like($err, qr/invalid value for parameter "cdc_kafka.column_mask_with_chars"/, 'B: naming the setting');
($ret, $out, $err) = $node->psql('postgres',
	"ALTER SYSTEM SET cdc_kafka.column_mask_with_chars = '3: public.k.(note'");
like($err, qr/cdc_kafka.column_mask_with_chars.*\n.*regular expression/, 'B: a bad regex is refused');

done_testing();
