# 004_faults.pl - nothing committed is lost when processes or brokers fail.
#
# cdc_kafka confirms its slot only behind Kafka's acknowledgements, so
# whatever fails, every committed change must reach Kafka at least once
# (duplicates are allowed, and counted, after a restart).  Each scenario
# runs the versioned workload of 003 (every change identifiable from the
# tables' final state) and injects one real fault mid-stream:
#
#   (a) kill -9 of the worker (PostgreSQL restarts all backends);
#   (b) pg_ctl stop -m immediate of the server, then start;
#   (c) the broker stopped for 30 s while writes go on: the worker must
#       keep retrying, keep its memory flat (in flight is capped by
#       cdc_kafka.max_inflight_bytes; its RSS is sampled from /proc) and
#       show the outage in cdc_kafka.status (retries, last_error);
#   (d) a 3-node cluster with replication factor 3, one broker killed -9.
#
# After each fault more changes are written, to show streaming resumed.
#
# test/t/004_faults.pl

use strict;
use warnings;
use FindBin;
use lib $FindBin::RealBin;

use PostgreSQL::Test::Cluster;
use PostgreSQL::Test::Utils;
use Test::More;
use Time::HiRes qw(time usleep);
use CdcKafka;

my $rows = 3000;              # initial rows per table
my $inflight_mb = 8;          # cdc_kafka.max_inflight_bytes of this server
my %figures;

my $kafka = CdcKafka::Cluster->start(nodes => 1, partitions => 3);
my $node = new_node(
	'faults',
	bootstrap => $kafka->bootstrap,
	log_statement => 'none',
	conf => qq{
restart_after_crash = on
cdc_kafka.max_inflight_bytes = '${inflight_mb}MB'
cdc_kafka.slot_save_interval = '2s'
});

# Wait until the worker has sent $n more records than $base (so a fault
# lands mid-stream); returns the status.
sub wait_sent
{
	my ($base, $n) = @_;
	my $st;
	poll_until(sub { $st = status($node); $st && $st->{records_sent} >= $base + $n }, 120,
		"records_sent >= " . ($base + $n));
	return $st;
}

# Set up the tables of a scenario and start its workload in the background.
sub begin_scenario
{
	my ($name, %opt) = @_;
	my @t = map { "${name}_$_" } qw(a b c);
	create_versioned_tables($node, \@t);
	my $base = status($node)->{records_sent};
	fill_versioned_tables($node, \@t, $rows, batch => 500);
	my $pg = start_pgbench(
		$node,
		tables => \@t,
		rows => $rows,
		clients => 4,
		jobs => 2,
		%opt);
	return (\@t, $base, $pg);
}

# After the fault: finish the workload, write some more, wait, verify.
sub end_scenario
{
	my ($name, $tables, $pg, $partitions) = @_;
	my ($rc, $out, $err) = finish_pgbench($pg);
	note("$name: pgbench exit $rc" . ($rc ? " (expected when the server restarts): " . substr($err, -300) : ''));
	ok(wait_streaming($node, timeout => 120), "$name: the worker streams again");
	# a and b fault once 12,000 records were sent, sooner with a faster
	# worker: these ~3 changes a transaction bring them past 20,000
	($rc, $out, $err) = run_pgbench($node, tables => $tables, rows => $rows, clients => 4, jobs => 2,
		transactions => 900);
	is($rc, 0, "$name: changes after the fault are written") or diag($err);
	ok(wait_caught_up($node, timeout => 300), "$name: the worker caught up");
	my ($exp, $changes) = expected_versions($node, $tables);
	my $sum = verify_versioned(
		kafka => $kafka,
		prefix => 'postgres',
		tables => $tables,
		expected => $exp,
		partitions => $partitions);
	is($sum->{missing}, 0, "$name: every committed change arrived ($changes changes)");
	is($sum->{unexpected}, 0, "$name: nothing that was not committed");
	is($sum->{out_of_order}, 0, "$name: each key's changes in commit order (first deliveries)");
	is($sum->{misplaced}, 0, "$name: every key on its murmur2 partition");
	cmp_ok($changes, '>=', 20_000, "$name: at least 20,000 changes");
	$figures{$name} = "$changes changes, $sum->{records} records, $sum->{duplicates} duplicates";
	return $sum;
}

# ---- (a) kill -9 of the worker -----------------------------------------------

{
	my ($t, $base, $pg) = begin_scenario('fa', transactions => 2000, rate => 800);
	my $st = wait_sent($base, 12_000);
	my $pid = $st->{pid};
	note("a: killing worker $pid at $st->{records_sent} records sent, $st->{inflight_records} in flight");
	my $pos = log_size($node);
	kill 'KILL', $pid;
	ok(eval { $node->wait_for_log(qr/all server processes terminated; reinitializing/, $pos); 1 },
		'a: the server reinitializes after the worker was killed');
	ok($node->poll_query_until('postgres', 'SELECT true'), 'a: the server accepts connections again');
	ok(poll_until(sub { my $p = worker_pid($node); $p && $p != $pid }, 60, 'a new worker'),
		'a: a new worker process is started');
	end_scenario('a_kill9_worker', $t, $pg, 3);
}

# ---- (b) immediate shutdown of the server --------------------------------------

{
	my ($t, $base, $pg) = begin_scenario('fb', transactions => 2000, rate => 800);
	my $st = wait_sent($base, 12_000);
	note("b: immediate stop at $st->{records_sent} records sent, $st->{inflight_records} in flight");
	$node->stop('immediate');
	$node->start;
	end_scenario('b_immediate_stop', $t, $pg, 3);
}

# ---- (c) the broker down for 30 s -------------------------------------------------

{
	my ($t, $base, $pg) = begin_scenario('fc', time => 50, rate => 200);
	my $st = wait_sent($base, 10_000);
	my $pid = $st->{pid};
	my $retries_before = $st->{retries};
	my $sampler = start_rss_sampler($pid, interval => 0.25);
	my $mem0 = proc_memory($pid);
	note("c: stopping the broker at $st->{records_sent} records sent");
	ok($kafka->stop_node(1), 'c: broker stopped');
	my $down = time;

	# during the outage: watch the status (the outage itself lasts 30 s)
	my (%seen, $max_inflight, $max_inflight_records, $last);
	$max_inflight = $max_inflight_records = 0;
	poll_until(
		sub {
			$last = status($node);
			if ($last)
			{
				$seen{state}{ $last->{state} }++;
				$max_inflight = $last->{inflight_bytes} if $last->{inflight_bytes} > $max_inflight;
				$max_inflight_records = $last->{inflight_records}
				  if $last->{inflight_records} > $max_inflight_records;
				$seen{retries} = $last->{retries};
				$seen{last_error} = $last->{last_error} if defined $last->{last_error};
				$seen{read_lsn}{ $last->{read_lsn} // '' } = time - $down;
			}
			return time - $down >= 30;
		},
		60,
		'30 s of outage');
	my $mem1 = proc_memory($pid);
	ok($kafka->start_node(1), 'c: broker started again');
	my $up = time;
	ok(poll_until(sub { my $s = status($node); $s && $s->{records_sent} > $last->{records_sent} },
			120, 'acknowledgements after the outage'),
		'c: acknowledgements resume after the broker is back');
	my $rss = stop_rss_sampler($sampler);

	cmp_ok($seen{retries} - $retries_before, '>', 0,
		"c: status.retries counts the failed attempts ($retries_before -> $seen{retries})");
	ok(defined $seen{last_error} && $seen{last_error} =~ /\S/,
		'c: status.last_error says what is wrong during the outage')
	  or diag('last_error stayed ' . ($seen{last_error} // 'null') . ' while the broker was down');
	ok(!exists $seen{state}{error}, 'c: the worker did not stop on the outage ('
		  . join(', ', map { "$_ x$seen{state}{$_}" } sort keys %{ $seen{state} }) . ')');
	cmp_ok($max_inflight, '<=', $inflight_mb * 1024 * 1024 + 65536,
		"c: in flight stays under cdc_kafka.max_inflight_bytes (max $max_inflight bytes, $max_inflight_records records)");
	cmp_ok($max_inflight, '>=', $inflight_mb * 1024 * 1024 / 2, 'c: and the limit was reached (decoding paused)');

	# memory: from the start of the outage to its end, and flat in its second half
	my @series = @{ $rss->{series} };
	my @outage = grep { $_->[0] >= $down && $_->[0] <= $up } @series;
	my @late = grep { $_->[0] >= $down + 15 } @outage;
	my $growth = $rss->{max_anon} - ($mem0->{RssAnon} // 0);
	my ($late_min, $late_max) = (1e12, 0);
	for (@late) { $late_min = $_->[2] if $_->[2] < $late_min; $late_max = $_->[2] if $_->[2] > $late_max; }
	my $mb = sub { sprintf('%.1f MB', $_[0] / 1024) };
	my $mem_report = sprintf(
		'RssAnon %s before, max %s (VmRSS max %s, VmHWM %s) over %d samples; last 15 s of the outage %s..%s',
		$mb->($mem0->{RssAnon}), $mb->($rss->{max_anon}), $mb->($rss->{max_rss}), $mb->($rss->{max_hwm}),
		$rss->{samples}, $mb->(@late ? $late_min : 0), $mb->($late_max));
	note("c: $mem_report");
	cmp_ok(scalar(@late), '>', 10, 'c: memory sampled through the outage');
	cmp_ok($growth, '<', 64 * 1024,
		'c: worker anonymous memory grows less than 64 MB during the outage (' . $mb->($growth) . ')')
	  if @late;
	cmp_ok($late_max - $late_min, '<', 16 * 1024, 'c: and is flat in the second half of the outage') if @late;
	$figures{c_memory} = $mem_report;
	end_scenario('c_broker_down_30s', $t, $pg, 3);
}

# ---- (d) three brokers, replication factor 3, one killed ---------------------------

{
	$kafka->stop;
	$kafka = CdcKafka::Cluster->start(nodes => 3, partitions => 3);
	my $pos = log_size($node);
	$node->safe_psql('postgres', "ALTER SYSTEM SET cdc_kafka.bootstrap_servers = '" . $kafka->bootstrap . "'");
	$node->reload;
	ok(poll_until(sub { my $s = status($node); $s && ($s->{broker} // '') eq $kafka->bootstrap && $s->{state} eq 'streaming' },
			60, 'streaming to the 3-node cluster'),
		'd: the worker streams to the 3-node cluster after a reload');
	my ($t, $base, $pg) = begin_scenario('fd', transactions => 2500, rate => 600);
	my $st = wait_sent($base, 12_000);
	my ($rc, $desc) = $kafka->topics('--describe', '--topic', 'postgres.public.fd_a');
	like($desc, qr/ReplicationFactor: 3/, 'd: topics have replication factor 3');
	note("d: killing broker 2 at $st->{records_sent} records sent");
	ok($kafka->stop_node(2, kill => 1), 'd: broker 2 killed (-9)');
	my $sum = end_scenario('d_3_nodes_one_killed', $t, $pg, 3);
	ok($kafka->start_node(2), 'd: broker 2 rejoins');
	$node->safe_psql('postgres', 'UPDATE fd_a SET ver = ver + 1 WHERE id = 1');
	ok(wait_caught_up($node), 'd: streaming goes on with all three brokers');
}

diag("004 $_: $figures{$_}") for sort keys %figures;

$node->stop;
$kafka->stop;
done_testing();
