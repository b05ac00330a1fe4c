# 012_postmaster_death.pl - a worker waiting for Kafka still ends with its
# server.
#
# Records never time out (message.timeout.ms=0: a broker outage stalls the
# stream rather than dropping records), so during an outage the worker can
# wait for Kafka for ever.  It must still notice:
#
#   (a) SIGTERM: a fast shutdown with the broker down completes within
#       seconds;
#   (b) the death of its postmaster (kill -9): the worker exits within
#       seconds instead of outliving it, which would keep the old shared
#       memory attached and stop the server from starting again.
#
# In both cases nothing is lost: once the server and the broker are back,
# every committed change reaches Kafka.
#
# test/t/012_postmaster_death.pl

use strict;
use warnings;
use FindBin;
use lib $FindBin::RealBin;

use PostgreSQL::Test::Cluster;
use PostgreSQL::Test::Utils;
use Test::More;
use Time::HiRes qw(time usleep);
use CdcKafka;

my $rows = 2000;
my @tables = qw(pd_a pd_b pd_c);

my $kafka = CdcKafka::Cluster->start(nodes => 1, partitions => 3);
my $node = new_node(
	'pmdeath',
	bootstrap => $kafka->bootstrap,
	log_statement => 'none',
	conf => q{
cdc_kafka.max_inflight_bytes = '4MB'
cdc_kafka.slot_save_interval = '1s'
});

create_versioned_tables($node, \@tables);
fill_versioned_tables($node, \@tables, $rows, batch => 500);
ok(wait_caught_up($node, timeout => 120), 'the initial rows are streamed');

# Is the process alive (and not a zombie)?
sub alive
{
	my ($pid) = @_;
	open(my $fh, '<', "/proc/$pid/stat") or return 0;
	my $stat = <$fh>;
	close $fh;
	return $stat !~ /^\d+ \(.*\) Z /;
}

# Take the broker down while pgbench writes, and wait until the worker has
# records in flight that Kafka cannot acknowledge.  Returns (pgbench, status).
sub outage_under_load
{
	my ($what) = @_;
	my $base = status($node)->{records_sent};
	my $pg = start_pgbench($node, tables => \@tables, rows => $rows, clients => 2, jobs => 1,
		time => 25, rate => 300);
	poll_until(sub { my $s = status($node); $s && $s->{records_sent} >= $base + 1000 }, 60,
		"$what: records sent under load");
	ok($kafka->stop_node(1), "$what: broker stopped");
	my $st;
	ok( poll_until(sub { $st = status($node); $st && $st->{inflight_records} > 0 }, 60,
			"$what: records in flight"),
		"$what: records wait in flight for the broker");
	sleep 3;    # the worker is now deep in its wait for Kafka
	$st = status($node);
	note("$what: $st->{inflight_records} records in flight, state $st->{state}");
	return ($pg, $st);
}

# After an outage: broker and server back, then nothing committed is missing.
sub recovered
{
	my ($what) = @_;
	ok(wait_streaming($node, timeout => 120), "$what: the worker streams again");
	$node->safe_psql('postgres', "UPDATE pd_a SET ver = ver + 1 WHERE id = 1");
	ok(wait_caught_up($node, timeout => 300), "$what: the worker caught up");
	my ($exp, $changes) = expected_versions($node, \@tables);
	my $sum = verify_versioned(
		kafka => $kafka,
		prefix => 'postgres',
		tables => \@tables,
		expected => $exp,
		partitions => 3);
	is($sum->{missing}, 0, "$what: every committed change arrived ($changes changes)");
	is($sum->{unexpected}, 0, "$what: nothing that was not committed");
}

# ---- (a) SIGTERM: fast shutdown during the outage -------------------------------

{
	my ($pg, $st) = outage_under_load('a');
	my $pid = $st->{pid};
	my $t0 = time;
	my ($rc, $out, $err) =
	  CdcKafka::run_cmd([ 'pg_ctl', '-D', $node->data_dir, '-m', 'fast', '-t', '60', 'stop' ], timeout => 90);
	my $took = time - $t0;
	is($rc, 0, 'a: fast shutdown with the broker down completes') or diag($err);
	cmp_ok($took, '<', 15, sprintf('a: ... within seconds (%.1f s)', $took));
	ok(poll_until(sub { !alive($pid) }, 30, 'worker gone'), 'a: the worker is gone');
	$node->_update_pid(0);
	finish_pgbench($pg);
	ok($kafka->start_node(1), 'a: broker started again');
	$node->start;
	recovered('a');
}

# ---- (b) kill -9 of the postmaster during the outage --------------------------

{
	my ($pg, $st) = outage_under_load('b');
	my $pid = $st->{pid};
	my $postmaster = $node->{_pid};
	ok(alive($pid), "b: worker $pid runs before the postmaster $postmaster is killed");
	kill 'KILL', $postmaster;
	my $t0 = time;
	my $gone = poll_until(sub { !alive($pid) }, 10, 'worker gone after its postmaster');
	my $took = time - $t0;
	ok($gone, sprintf('b: the worker exits within seconds of its postmaster (%.1f s)', $took));
	if (!$gone)
	{
		# the old behaviour: clean up so that the server can start again
		diag("b: worker $pid outlived its postmaster; killing it");
		kill 'KILL', $pid;
	}
	finish_pgbench($pg);
	$node->{_pid} = undef;
	ok($kafka->start_node(1), 'b: broker started again');
	# the server's other children notice the death too; then it starts
	ok( poll_until(
			sub {
				my ($rc) = CdcKafka::run_cmd([ 'pg_ctl', '-D', $node->data_dir, '-l', $node->logfile,
						'-w', '-t', '20', 'start' ], timeout => 30);
				return $rc == 0;
			},
			60,
			'server start after the kill'),
		'b: the server starts again');
	$node->_update_pid(1);
	recovered('b');
}

$node->stop;
$kafka->stop;
done_testing();
