# 028_route.pl - cdc_kafka.transforms = 'route' (Debezium's
# ByLogicalTableRouter) in the worker, against a real Kafka.
#
#  * Two tables rerouted to one topic: an initial snapshot's rows, inserts,
#    a delete with its tombstone and an incremental snapshot's rows, all on
#    the new topic, with the same key values told apart by the key field
#    __dbz__physicalTableIdentifier (the old topic).
#  * Keys are named <new topic>.Key, envelopes <new topic>.Envelope with
#    before/after <new topic>.Value; tombstones keep a null value.
#  * A regex that matches the heartbeat topic reroutes heartbeats too, as
#    Debezium reroutes any record: key renamed, the key field added, the
#    value left alone.
#
# test/t/028_route.pl

use strict;
use warnings;
use FindBin;
use lib $FindBin::RealBin;

use PostgreSQL::Test::Cluster;
use PostgreSQL::Test::Utils;
use Test::More;
use CdcKafka;

my $topic = 'postgres.all';
my $kafka = CdcKafka::Cluster->start(nodes => 1, partitions => 1);
my $node = new_node(
	'route',
	bootstrap => $kafka->bootstrap,
	create_extension => 0,
	conf => q{
cdc_kafka.transforms = 'route'
cdc_kafka.route_topic_regex = '(postgres)[.]public[.]t[12]'
cdc_kafka.route_topic_replacement = '$1.all'
});

$node->safe_psql(
	'postgres', q{
CREATE TABLE t1 (id int PRIMARY KEY, v text);
CREATE TABLE t2 (id int PRIMARY KEY, w int);
INSERT INTO t1 VALUES (1, 'one');
INSERT INTO t2 VALUES (1, 10);
CREATE EXTENSION cdc_kafka;
});
ok(wait_streaming($node, timeout => 60), 'the worker streams after its initial snapshot');
$node->safe_psql(
	'postgres', q{
INSERT INTO t1 VALUES (2, 'two');
INSERT INTO t2 VALUES (2, 20);
DELETE FROM t2 WHERE id = 1;
});
my $id = $node->safe_psql('postgres', "SELECT cdc_kafka.snapshot('t1')");
ok( poll_until(
		sub {
			$node->safe_psql('postgres', "SELECT state FROM cdc_kafka.snapshots WHERE id = $id") eq 'done';
		},
		60,
		'incremental snapshot done'),
	'the incremental snapshot of t1 is done');
ok(wait_caught_up($node), 'caught up');

my $recs = $kafka->consume($topic, headers => 1);
my @got = map {
	my $k = CdcKafka::json_parser()->decode($_->{key});
	my $v = defined $_->{value} ? CdcKafka::json_parser()->decode($_->{value}) : undef;
	{ key => $k, value => $v }
} @$recs;
# the initial snapshot reads the tables in either order
my @initial = sort { $a->[1] cmp $b->[1] }
  map { [ $_->{value}{payload}{op}, $_->{key}{payload}{__dbz__physicalTableIdentifier} ] }
  @got[ 0 .. 1 ];
is_deeply(\@initial, [ [ 'r', 'postgres.public.t1' ], [ 'r', 'postgres.public.t2' ] ],
	'the initial snapshot of both tables on the new topic');
my @rest = map {
	[
		defined $_->{value} ? $_->{value}{payload}{op} : 'tombstone',
		$_->{key}{payload}{id}, $_->{key}{payload}{__dbz__physicalTableIdentifier}
	]
} @got[ 2 .. $#got ];
is_deeply(
	\@rest,
	[
		[ 'c',         2, 'postgres.public.t1' ],
		[ 'c',         2, 'postgres.public.t2' ],
		[ 'd',         1, 'postgres.public.t2' ],
		[ 'tombstone', 1, 'postgres.public.t2' ],
		[ 'r',         1, 'postgres.public.t1' ],
		[ 'r',         2, 'postgres.public.t1' ],
	],
	'changes and incremental reads: ops, key values and the key field'
) or diag(join("\n", map { $_->{value} // 'null' } @$recs));

for my $i (0 .. $#got)
{
	my ($k, $v) = @{ $got[$i] }{qw(key value)};
	my $label = "record $i";
	is($k->{schema}{name}, "$topic.Key", "$label: key schema name");
	is(join(',', map { "$_->{field}:$_->{type}:" . ($_->{optional} ? 1 : 0) } @{ $k->{schema}{fields} }),
		'id:int32:0,__dbz__physicalTableIdentifier:string:0', "$label: key fields");
	next unless defined $v;
	is($v->{schema}{name}, "$topic.Envelope", "$label: envelope name");
	is_deeply([ map { $_->{name} } @{ $v->{schema}{fields} }[ 0 .. 1 ] ],
		[ "$topic.Value", "$topic.Value" ], "$label: before/after names");
}

# ---- heartbeats are rerouted when the regex matches their topic ------------------

$node->append_conf(
	'postgresql.conf', q{
cdc_kafka.heartbeat_interval = '1s'
cdc_kafka.route_topic_regex = '__debezium-heartbeat[.](.*)'
cdc_kafka.route_topic_replacement = 'hb.$1'
});
$node->reload;
ok(poll_until(sub { $kafka->record_count('hb.postgres') > 0 }, 60, 'a heartbeat on hb.postgres'),
	'heartbeats go to the rerouted topic');
ok(!$kafka->topic_list->{'__debezium-heartbeat.postgres'}, 'none to the old heartbeat topic');
my $hb = $kafka->consume('hb.postgres')->[0];
my $hk = CdcKafka::json_parser()->decode($hb->{key});
is($hk->{schema}{name}, 'hb.postgres.Key', 'heartbeat key renamed');
is_deeply($hk->{payload},
	{ serverName => 'postgres', __dbz__physicalTableIdentifier => '__debezium-heartbeat.postgres' },
	'heartbeat key with the key field');
like($hb->{value}, qr/"name":"io.debezium.connector.common.Heartbeat"/, 'heartbeat value left alone');

done_testing();
