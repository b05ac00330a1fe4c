# 003_end_to_end.pl - a concurrent workload of more than 100,000 changes
# streams completely, in order, on the partitions Kafka's producer picks.
#
# Four pgbench clients run multi-statement transactions (updates, deletes,
# inserts over three tables) while the worker streams to topics of three
# partitions.  Every row carries a version that each change increments and
# a delete leaves the last version in a graveyard table, so the final
# tables say exactly which changes were committed: every one of them must
# be on its topic, each key's changes in commit order, a tombstone after
# each delete, every key on the partition Java's murmur2 gives (what
# Debezium's consumers rely on), no duplicates (no fault happened), only
# the expected topics, and cdc_kafka.table_stats must agree with the
# topics.  Counts and the commit-to-produce latency are reported.
#
# test/t/003_end_to_end.pl

use strict;
use warnings;
use FindBin;
use lib $FindBin::RealBin;

use PostgreSQL::Test::Cluster;
use PostgreSQL::Test::Utils;
use Test::More;
use Time::HiRes qw(time);
use CdcKafka;

my @tables = qw(accounts orders events);
my $rows = 6000;            # initial rows per table
my $transactions = 7500;    # pgbench transactions per client
my $clients = 4;

murmur2_selftest();

my $kafka = CdcKafka::Cluster->start(nodes => 1, partitions => 3);
my $node = new_node('e2e', bootstrap => $kafka->bootstrap, log_statement => 'none');

create_versioned_tables($node, \@tables);
my $t0 = time;
fill_versioned_tables($node, \@tables, $rows, batch => 500);
my ($rc, $out, $err, $secs) = run_pgbench(
	$node,
	tables => \@tables,
	rows => $rows,
	clients => $clients,
	jobs => 2,
	transactions => $transactions);
is($rc, 0, "pgbench ran $clients x $transactions transactions") or diag($err);
my ($tps) = $out =~ /tps = ([\d.]+)/;
my $written = time;
note(sprintf('workload written in %.1f s (pgbench %.1f s, %s tps)', $written - $t0, $secs, $tps // '?'));

my $st = wait_caught_up($node, timeout => 600);
ok($st, 'the worker caught up: everything committed is acknowledged by Kafka');
my $drain = time - $written;

my ($expected, $changes) = expected_versions($node, \@tables);
my $graves = $node->safe_psql('postgres', 'SELECT count(*) FROM graveyard');
cmp_ok($changes + $graves, '>=', 100_000, "the workload made at least 100,000 changes ($changes + $graves in graveyard)");

# ---- topics ----------------------------------------------------------------

my $topics = $kafka->topic_list;
my @mine = sort grep { /^postgres\./ } keys %$topics;
is_deeply(\@mine, [ sort map { "postgres.public.$_" } @tables, 'graveyard' ],
	'exactly the topics <prefix>.<schema>.<table> of the written tables');
is($topics->{"postgres.public.$_"}, 3, "$_ has 3 partitions") for @tables;

# ---- every change, in order, on its partition, once -------------------------

my $t1 = time;
my $sum = verify_versioned(
	kafka => $kafka,
	prefix => 'postgres',
	tables => \@tables,
	expected => $expected,
	partitions => 3);
my $verify_secs = time - $t1;
is($sum->{missing}, 0, "every committed change arrived ($sum->{expected} expected)");
is($sum->{unexpected}, 0, 'no change that was not committed');
is($sum->{out_of_order}, 0, 'each key\'s changes in commit order');
is($sum->{bad_before}, 0, 'update before images are the previous versions');
is($sum->{misplaced}, 0, "all $sum->{partition_checked} keyed records on their murmur2 partition");
cmp_ok($sum->{partition_checked}, '>', 0, 'the partition check ran');
is($sum->{duplicates}, 0, 'no duplicates without faults');

# the graveyard: one insert per deleted row
my $grecs = $kafka->consume('postgres.public.graveyard');
is(scalar(@$grecs), $graves, "graveyard topic has one record per deleted row ($graves)");
my ($checked, $misplaced, $example) = check_partitioning($grecs, 3);
is($misplaced, 0, "graveyard's composite keys on their murmur2 partition ($checked checked)")
  or diag($example);

# ---- the checks can fail ---------------------------------------------------------
# The same records against doctored expectations: one key claimed one
# version further (a change that never arrived) and one key left out (its
# records are then unexpected); and the partitions checked against 4.

my %doctored = (events => { %{ $expected->{events} } });
my ($bumped, $dropped) = (sort { $a <=> $b } keys %{ $doctored{events} })[ 0, 1 ];
$doctored{events}{$bumped} = [ $doctored{events}{$bumped}[0] + 1, 0 ];
delete $doctored{events}{$dropped};
my $self = verify_versioned(
	kafka => $kafka,
	prefix => 'postgres',
	tables => ['events'],
	expected => \%doctored,
	partitions => 3,
	quiet => 1);
cmp_ok($self->{missing}, '>=', 1, 'self-check: a change that did not arrive is reported missing');
cmp_ok($self->{unexpected}, '>=', 1, 'self-check: records of a key not in the tables are reported unexpected');
($checked, $misplaced) = check_partitioning($grecs, 4);
cmp_ok($misplaced, '>', 0, 'self-check: the partition check notices a wrong partition count');

# ---- cdc_kafka.table_stats agrees with the topics ----------------------------

ok( $node->poll_query_until(
		'postgres',
		"SELECT bool_and(records > 0) AND count(*) = 4 FROM cdc_kafka.table_stats "
		  . "WHERE table_name::text IN ('accounts', 'orders', 'events', 'graveyard')"),
	'table_stats lists the four tables');
for my $t (@tables, 'graveyard')
{
	my $stat = $node->safe_psql('postgres',
		"SELECT records FROM cdc_kafka.table_stats WHERE table_name = '$t'::regclass");
	is($stat, $kafka->record_count("postgres.public.$t"), "table_stats.records of $t = records on its topic");
}
$st = status($node);
my $total = 0;
$total += $kafka->record_count("postgres.public.$_") for @tables, 'graveyard';
is($st->{records_sent}, $total, "status records_sent = records on the topics ($total)");
is($st->{retries}, 0, 'no retries');

diag(sprintf(
		'003: %d changes (%d records, %d tombstones, %d graveyard rows) by %d clients at %s tps; '
		  . 'caught up %.1f s after the workload; duplicates %d; commit-to-produce latency '
		  . 'p50 %d ms, p99 %d ms, max %d ms; verified in %.1f s',
		$changes + $graves, $total, $sum->{tombstones}, $graves, $clients, $tps // '?', $drain,
		$sum->{duplicates}, $sum->{latency_p50} // -1, $sum->{latency_p99} // -1,
		$sum->{latency_max} // -1, $verify_secs));

$node->stop;
$kafka->stop;
done_testing();
