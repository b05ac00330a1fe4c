# 025_message_keys.pl - record keys and masks set by cdc_kafka.* settings,
# through the worker, against a real Kafka.
#
#   A  cdc_kafka.message_key_columns names a column whose values repeat: an
#      incremental snapshot in chunks of 7 rows still sends every row of the
#      table exactly once (chunks follow the primary key, not the record key),
#      and the records' keys are the named column.
#   B  cdc_kafka.column_mask_with_chars masks the named column, in snapshot
#      and streamed records alike; a bad value is refused, naming the setting.
#
# test/t/025_message_keys.pl

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
my $topic = 'mk.public.k';

my $node = new_node(
	'mk',
	bootstrap => $kafka->bootstrap,
	create_extension => 0,
	conf => "cdc_kafka.schemas = off\ncdc_kafka.topic_prefix = 'mk'\n"
	  . "cdc_kafka.snapshot_mode = no_data\n"
	  . "cdc_kafka.incremental_snapshot_chunk_size = 7\n"
	  . "cdc_kafka.message_key_columns = 'public.k:grp'\n"
	  . "cdc_kafka.column_mask_with_chars = '4: public.k.note, public.k.nothing'\n");
$node->safe_psql('postgres',
	"CREATE TABLE k (id int PRIMARY KEY, grp int NOT NULL, note text);
	 INSERT INTO k SELECT g, g % 4, 'row ' || g FROM generate_series(1, 60) g;");
$node->safe_psql('postgres', 'CREATE EXTENSION cdc_kafka');
ok(wait_streaming($node), 'streaming');

# ---- A: every row, whatever the record key ---------------------------------------------

my $id = $node->safe_psql('postgres', "SELECT cdc_kafka.snapshot('k')");
ok(poll_until(sub {
	$node->safe_psql('postgres', "SELECT state FROM cdc_kafka.snapshots WHERE id = $id") eq 'done' },
	120, 'snapshot done'), 'A: the snapshot finishes');
$node->safe_psql('postgres', "INSERT INTO k VALUES (61, 1, 'streamed')");
ok(wait_caught_up($node), 'A: caught up');

my (%reads, @bad_keys, @notes, $streamed);
$kafka->consume_each(
	$topic,
	sub {
		my $key = $json->decode($_[0]{key});
		my $v = $json->decode($_[0]{value});
		push @bad_keys, $_[0]{key} if join(',', sort keys %$key) ne 'grp' || $key->{grp} != $v->{after}{grp};
		push @notes, $v->{after}{note};
		$reads{ $v->{after}{id} }++ if $v->{op} eq 'r';
		$streamed = $v->{after} if $v->{op} eq 'c';
	});
is(scalar(keys %reads), 60, 'A: every row of the table was read');
is(scalar(grep { $_ != 1 } values %reads), 0, 'A: each row once');
is(scalar(@bad_keys), 0, 'A: record keys are the message key column')
  or diag(join(' ', @bad_keys[ 0 .. 4 ]));

# ---- B: masks ------------------------------------------------------------------------

is(scalar(grep { ($_ // '') ne '****' } @notes), 0, 'B: every note is masked, read or streamed');
is($streamed->{id}, 61, 'B: the streamed row arrived');
my ($ret, $out, $err) = $node->psql('postgres',
	"ALTER SYSTEM SET cdc_kafka.column_mask_with_chars = 'x: public.k.note'");
isnt($ret, 0, 'B: a bad value is refused');
like($err, qr/invalid value for parameter "cdc_kafka.column_mask_with_chars"/, 'B: naming the setting');
($ret, $out, $err) = $node->psql('postgres',
	"ALTER SYSTEM SET cdc_kafka.column_mask_with_chars = '3: public.k.(note'");
like($err, qr/cdc_kafka.column_mask_with_chars.*\n.*regular expression/, 'B: a bad regex is refused');

done_testing();
