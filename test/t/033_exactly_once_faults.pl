# 033_exactly_once_faults.pl - exactly-once delivery through randomized faults.
#
# A 3-broker cluster (data topics, the offsets topic and Kafka's transaction
# log with replication factor 3, min.insync.replicas 2), the worker in
# cdc_kafka.delivery = exactly_once, and the versioned workload of 003 (every
# change identifiable from the tables' final state) run by pgbench in a loop
# that outlives server restarts, until at least 100,000 changes are written.
# Meanwhile at least 30 faults, in a random order at random moments:
#
#   kill_worker     kill -9 of the worker (PostgreSQL reinitializes)
#   immediate_stop  pg_ctl stop -m immediate, then start
#   broker_kill     one broker of three killed (SIGKILL), restarted 1-5 s later
#   broker_pause    one broker of three stopped (SIGSTOP) for longer than the
#                   producer's request.timeout.ms, then SIGCONT
#
# A broker fault only starts once every partition has all its replicas in
# sync again, so at most one broker of three is ever missing.  When the load
# has ended and the worker caught up, every topic is read with a
# read_committed consumer: every committed change must be there exactly once
# (by table, key and version: c1, u2 ... uN, dN and the tombstone), each
# key's changes in commit order, on the partition murmur2 gives.  A
# read_uncommitted consumer also reads them; it may see more (records of
# aborted Kafka transactions), never fewer.  One diag line gives the counts.
#
# The faults come from a seeded generator (xorshift32, independent of Perl's
# rand); the seed is printed.  Environment:
#
#   CDC_EOS_SEED      replay a run with this seed
#   CDC_EOS_FAULTS    number of faults (default 30)
#   CDC_EOS_CHANGES   changes the load writes at least (default 100000)
#   CDC_EOS_RATE      pgbench transactions per second (default 150; ~3.3 changes each)
#   CDC_EOS_DELIVERY  the worker's mode (default exactly_once; at_least_once
#                     shows the checks failing: duplicates after the faults)
#
# About 7-9 minutes on 2 cores.
#
# test/t/033_exactly_once_faults.pl

use strict;
use warnings;
use FindBin;
use lib $FindBin::RealBin;

use PostgreSQL::Test::Cluster;
use PostgreSQL::Test::Utils;
use Test::More;
use Time::HiRes qw(time usleep);
use CdcKafka;

my $FAULTS = $ENV{CDC_EOS_FAULTS} // 30;
my $TARGET = $ENV{CDC_EOS_CHANGES} // 100_000;
my $RATE = $ENV{CDC_EOS_RATE} // 150;
my $DELIVERY = $ENV{CDC_EOS_DELIVERY} // 'exactly_once';
my $SEED = $ENV{CDC_EOS_SEED} // ((int(time * 1000) ^ ($$ << 8)) & 0x7fffffff || 1);
my $REQUEST_TIMEOUT_MS = 4000;    # the producer's request.timeout.ms
my $ROWS = 2000;                  # initial rows per table
my @TABLES = qw(eos_a eos_b eos_c);

diag("033 seed $SEED, $FAULTS faults, delivery $DELIVERY "
	  . "(replay: CDC_EOS_SEED=$SEED CDC_EOS_FAULTS=$FAULTS)");

# xorshift32: the same sequence for a seed on every Perl
my $rng = $SEED & 0xffffffff;
$rng ||= 1;
sub rnd    # a number in [0, 1)
{
	$rng ^= ($rng << 13) & 0xffffffff;
	$rng ^= $rng >> 17;
	$rng ^= ($rng << 5) & 0xffffffff;
	return $rng / 4294967296;
}
sub rnd_int { my ($lo, $hi) = @_; return $lo + int(rnd() * ($hi - $lo + 1)); }

# ---- the cluster, the server, the load ------------------------------------------

my $kafka = CdcKafka::Cluster->start(nodes => 3, partitions => 3);
my $node = new_node(
	'eosfaults',
	bootstrap => $kafka->bootstrap,
	log_statement => 'none',
	conf => qq{
restart_after_crash = on
cdc_kafka.delivery = '$DELIVERY'
cdc_kafka.kafka_properties = 'request.timeout.ms=$REQUEST_TIMEOUT_MS'
});
my $st = status($node);
is($st->{delivery}, $DELIVERY, "status.delivery is $DELIVERY");

create_versioned_tables($node, \@TABLES);
fill_versioned_tables($node, \@TABLES, $ROWS, batch => 500);
my $load = start_pgbench_loop(
	$node,
	tables => \@TABLES,
	rows => $ROWS,
	clients => 4,
	jobs => 2,
	rate => $RATE,
	chunk => 15);

# changes written so far (the tables' versions and deletes add up to it),
# or undef while the server is down
sub changes_written
{
	my ($ret, $out) = eval {
		$node->psql('postgres',
			'SELECT ' . join(' + ', map { "(SELECT coalesce(sum(ver), 0) FROM $_)" } @TABLES)
			  . ' + (SELECT coalesce(sum(ver) + count(*), 0) FROM graveyard)');
	};
	return defined $ret && $ret == 0 && $out =~ /^\d+$/ ? $out : undef;
}

# ---- the faults ----------------------------------------------------------------

my @kinds = qw(kill_worker immediate_stop broker_kill broker_pause);
my @plan = map { $kinds[ $_ % @kinds ] } 0 .. $FAULTS - 1;
for (my $i = $#plan; $i > 0; $i--)    # Fisher-Yates with the seeded generator
{
	my $j = int(rnd() * ($i + 1));
	@plan[ $i, $j ] = @plan[ $j, $i ];
}

my (%done, @fault_log, $not_streaming);
$not_streaming = 0;
my $t_start = time;

# At most one broker away at a time: wait until every replica is in sync.
sub wait_cluster_whole
{
	my $last;
	return CdcKafka::poll_until(
		sub { $last = $kafka->under_replicated; return $last && !@$last; },
		90, 'every partition with all replicas in sync')
	  || do { diag('under-replicated: ' . join(', ', @{ $last // ['no metadata'] })); 0 };
}

for my $i (1 .. $FAULTS)
{
	my $kind = $plan[ $i - 1 ];
	# let the worker stream a while, so the fault lands mid-stream
	$not_streaming++ unless wait_streaming($node, timeout => 60);
	usleep(int((0.5 + 3 * rnd()) * 1_000_000));
	my $sent = (status($node) // {})->{records_sent} // '?';
	my $t0 = time;
	my $what;

	if ($kind eq 'kill_worker')
	{
		my $pid;
		CdcKafka::poll_until(sub { $pid = eval { worker_pid($node) } }, 60, 'a worker process');
		my $pos = log_size($node);
		kill 'KILL', $pid if $pid;
		$node->wait_for_log(qr/all server processes terminated; reinitializing/, $pos);
		wait_server($node);
		$what = "worker $pid killed";
	}
	elsif ($kind eq 'immediate_stop')
	{
		$node->stop('immediate');
		$node->start;
		$what = 'server stopped (immediate) and started';
	}
	elsif ($kind eq 'broker_kill')
	{
		wait_cluster_whole();
		my $n = rnd_int(1, 3);
		my $down = 1 + 4 * rnd();
		$kafka->stop_node($n, kill => 1);
		usleep(int($down * 1_000_000));
		$kafka->start_node($n) or BAIL_OUT("broker $n did not start again");
		$what = sprintf('broker %d killed, restarted after %.1f s', $n, $down);
	}
	else
	{
		wait_cluster_whole();
		my $n = rnd_int(1, 3);
		my $pause = $REQUEST_TIMEOUT_MS / 1000 + 1 + 3 * rnd();
		$kafka->pause_node($n) or BAIL_OUT("could not stop broker $n");
		usleep(int($pause * 1_000_000));
		$kafka->resume_node($n);
		$what = sprintf('broker %d paused for %.1f s', $n, $pause);
	}
	$done{$kind}++;
	my $line = sprintf('fault %2d at %5.1f s: %-14s %s (at %s records sent; %.1f s)',
		$i, $t0 - $t_start, $kind, $what, $sent, time - $t0);
	push @fault_log, $line;
	note($line);
}
my $faults_s = time - $t_start;

# the load goes on until it has written its share
my $written;
CdcKafka::poll_until(sub { ($written = changes_written()) && $written - 3 * $ROWS >= $TARGET },
	600, "$TARGET changes written");
my ($load_s, $load_tx) = stop_pgbench_loop($load);
wait_cluster_whole();

is(scalar(@fault_log), $FAULTS, "$FAULTS faults injected ("
	  . join(', ', map { "$_ x" . ($done{$_} // 0) } @kinds) . sprintf(') in %.0f s', $faults_s));
note("the worker was not streaming 60 s after the previous fault $not_streaming time(s)");

ok(wait_streaming($node, timeout => 120), 'the worker streams after the last fault');
# one change after the load, so that this worker commits a Kafka transaction
$node->safe_psql('postgres', "UPDATE $TABLES[0] SET ver = ver + 1 WHERE id = 1");
ok(wait_caught_up($node, timeout => 300), 'the worker caught up');
my ($exp, $changes) = expected_versions($node, \@TABLES);
cmp_ok($changes - 3 * $ROWS, '>=', $TARGET,
	sprintf('the concurrent load wrote at least %d changes (%d, in %.0f s)', $TARGET,
		$changes - 3 * $ROWS, $load_s));

# a Kafka transaction is readable (read_committed) once its markers are written
$kafka->wait_committed_settled([ map { "postgres.public.$_" } @TABLES ]);

my $sum = verify_versioned(
	kafka => $kafka,
	prefix => 'postgres',
	tables => \@TABLES,
	expected => $exp,
	partitions => 3,
	isolation => 'read_committed');
my $uncommitted = 0;
$uncommitted += $kafka->count_records("postgres.public.$_", isolation => 'read_uncommitted') for @TABLES;

diag(sprintf(
		'033 %s, seed %d: %d changes written, %d records read (read_committed, %d tombstones), '
		  . '%d duplicates, %d missing; read_uncommitted %d records; %d faults in %.0f s',
		$DELIVERY, $SEED, $changes, $sum->{records}, $sum->{tombstones}, $sum->{duplicates},
		$sum->{missing}, $uncommitted, scalar(@fault_log), $faults_s));

is($sum->{duplicates}, 0, 'read_committed: no change twice');
is($sum->{missing}, 0, "read_committed: every committed change ($changes)");
is($sum->{unexpected}, 0, 'read_committed: nothing that was not committed');
is($sum->{out_of_order}, 0, "read_committed: each key's changes in commit order");
is($sum->{misplaced}, 0, 'every key on its murmur2 partition');
cmp_ok($uncommitted, '>=', $sum->{records}, 'read_uncommitted reads at least as many records');

$st = status($node);
is($st->{delivery}, $DELIVERY, "status.delivery is still $DELIVERY");
cmp_ok($st->{kafka_transactions} // 0, '>', 0,
	'status.kafka_transactions counts committed Kafka transactions (' . ($st->{kafka_transactions} // 'null') . ')')
  if $DELIVERY eq 'exactly_once';

unless (PostgreSQL::Test::Utils::all_tests_passing())
{
	diag($_) for @fault_log;
}

$node->stop;
$kafka->stop;
done_testing();
