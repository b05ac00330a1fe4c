# 010_partitions.pl - a partitioned table published via its root, end to end.
#
# The publication is FOR ALL TABLES WITH (publish_via_partition_root = true),
# and the root has a partition whose columns are ordered differently and
# one with a dropped column:
#
#  * the initial snapshot reads the root, and streaming sends every
#    partition's changes as the root's: one topic (none for the
#    partitions), the root's key and column order, a row moving between
#    partitions as a delete and a create of the root;
#  * an incremental snapshot of the root while its partitions change ends,
#    for every key, with the row in the table (the stream's changes are
#    matched to the root's chunks);
#  * table_stats counts the records under the root.
#
# test/t/010_partitions.pl

use strict;
use warnings;
use FindBin;
use lib $FindBin::RealBin;

use IPC::Run;
use PostgreSQL::Test::Cluster;
use PostgreSQL::Test::Utils;
use Test::More;
use CdcKafka;

my $kafka = CdcKafka::Cluster->start(nodes => 1, partitions => 1);
my $node = new_node(
	'parts',
	bootstrap => $kafka->bootstrap,
	create_extension => 0,
	conf => q{
cdc_kafka.schemas = off
cdc_kafka.publication_autocreate_mode = disabled
cdc_kafka.incremental_snapshot_chunk_size = 64
});
my $topic = 'postgres.public.orders';

$node->safe_psql(
	'postgres', q{
CREATE TABLE orders (id int, region text, amount int, PRIMARY KEY (region, id))
	PARTITION BY LIST (region);
CREATE TABLE orders_eu PARTITION OF orders FOR VALUES IN ('eu');
CREATE TABLE orders_us (amount int, junk int, region text NOT NULL, id int NOT NULL);
ALTER TABLE orders_us DROP COLUMN junk;
ALTER TABLE orders ATTACH PARTITION orders_us FOR VALUES IN ('us');
CREATE TABLE orders_ap (junk text, id int NOT NULL, region text NOT NULL, amount int);
ALTER TABLE orders_ap DROP COLUMN junk;
ALTER TABLE orders ATTACH PARTITION orders_ap FOR VALUES IN ('ap');
INSERT INTO orders
	SELECT g, (ARRAY['eu', 'us', 'ap'])[g % 3 + 1], g FROM generate_series(1, 900) g;
CREATE PUBLICATION cdc_kafka FOR ALL TABLES WITH (publish_via_partition_root = true);
CREATE EXTENSION cdc_kafka;
});

# "op:region:id" of each record of the root's topic, and the decoded records
sub events
{
	my @recs = map { decode_record($_) } @{ $kafka->consume($topic) };
	return ([ map { "$_->{op}:$_->{key_payload}{region}:$_->{key_payload}{id}" } @recs ], \@recs);
}

# ---- initial snapshot and streaming -------------------------------------------------

ok(wait_streaming($node, timeout => 120), 'streaming after the initial snapshot');
$node->safe_psql(
	'postgres', q{
INSERT INTO orders VALUES (1000, 'us', 5);
UPDATE orders SET region = 'us' WHERE id = 2;
UPDATE orders SET amount = amount + 1 WHERE id = 4;
});
ok(wait_caught_up($node), 'caught up');
my ($events, $recs) = events();
is(scalar(grep { /^r:/ } @$events), 900, 'the initial snapshot sent the 900 rows on the root\'s topic');
is_deeply([ grep { !/^r:/ } @$events ],
	[ 'c:us:1000', 'd:ap:2', 'tombstone:ap:2', 'c:us:2', 'u:us:4' ],
	'the partitions\' changes follow on the root\'s topic, a moved row as delete and create')
  or diag(explain [ grep { !/^r:/ } @$events ]);
like($recs->[-1]{value}, qr/"after":\{"id":4,"region":"us","amount":5\}/,
	'in the root\'s column order');
is($recs->[-1]{value_payload}{source}{table}, 'orders', 'source.table is the root');
is_deeply([ grep { /orders_/ } sort keys %{ $kafka->topic_list } ], [], 'no topic for a partition');
ok( poll_until(
		sub {
			$node->safe_psql('postgres',
				"SELECT string_agg(table_name::text, ',') FROM cdc_kafka.table_stats") eq 'orders';
		},
		30, 'table_stats of orders'),
	'table_stats counts the records under the root');

# ---- an incremental snapshot of the root while its partitions change ----------------

my ($out, $err) = ('', '');
my $churn = IPC::Run::start(
	[
		'psql', '-X', '-q', '-v', 'ON_ERROR_STOP=1', '-d', $node->connstr('postgres'), '-c',
		q{DO $$ BEGIN FOR i IN 1..1500 LOOP
			UPDATE orders SET amount = amount + 1 WHERE id = i % 900 + 1;
			IF i % 7 = 0 THEN DELETE FROM orders WHERE id = i % 900 + 1; END IF;
			IF i % 11 = 0 THEN INSERT INTO orders VALUES (1000 + i, 'eu', i); END IF;
			IF i % 13 = 0 THEN UPDATE orders SET region = 'us' WHERE id = i % 900 + 1 AND region <> 'us'; END IF;
			COMMIT;
		END LOOP; END $$}
	],
	'<', \undef, '>', \$out, '2>', \$err);
my $id = $node->safe_psql('postgres', "SELECT cdc_kafka.snapshot('orders')");
ok( poll_until(
		sub {
			$node->safe_psql('postgres', "SELECT state FROM cdc_kafka.snapshots WHERE id = $id") eq 'done';
		},
		300, 'incremental snapshot of orders done'),
	'the incremental snapshot of the root finishes');
$churn->finish;
is($churn->result(0), 0, 'the partitions changed throughout') or diag($err);
ok(wait_caught_up($node), 'caught up');

($events, $recs) = events();
my (%last, $rows);
for my $r (@$recs)
{
	my $k = "$r->{key_payload}{region}:$r->{key_payload}{id}";
	$last{$k} = $r->{op} eq 'tombstone' || $r->{op} eq 'd' ? undef : "$r->{after}{amount}";
}
$rows = { map { split /\|/, $_, 2 } split /\n/,
	  $node->safe_psql('postgres', "SELECT region || ':' || id, amount FROM orders") };
my ($missing, $wrong, $undead) = (0, 0, 0);
for my $k (keys %$rows)
{
	if (!exists $last{$k}) { $missing++; next; }
	$wrong++ if ($last{$k} // '(deleted)') ne $rows->{$k};
}
$undead += (!exists $rows->{$_} && defined $last{$_}) ? 1 : 0 for keys %last;
is($missing, 0, 'every row of the root has records');
is($wrong, 0, 'the last record of every key is the row in the table');
is($undead, 0, 'every key deleted ends deleted');
cmp_ok(scalar(grep { ($_->{value_payload}{source}{snapshot} // '') eq 'incremental' } @$recs),
	'>', 0, 'the incremental snapshot sent rows on the root\'s topic');
is_deeply([ grep { /orders_/ } sort keys %{ $kafka->topic_list } ], [], 'still no topic for a partition');

$node->stop;
$kafka->stop;
done_testing();
