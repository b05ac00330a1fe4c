# 036_exactly_once_snapshots.pl - snapshots are exactly-once too.
#
# With cdc_kafka.delivery = exactly_once a snapshot's progress commits in the
# same Kafka transaction as its rows (README: Exactly once), so a worker
# killed in the middle of one resumes after the rows Kafka has, not after
# the rows its progress file or cdc_kafka.snapshots recorded:
#
#   (a) an initial snapshot of a 400,000-row table, the worker killed
#       (kill -9, the server reinitializes) once it has sent 100,000 rows:
#       the rest continues as a resumed incremental snapshot; a
#       read_committed consumer reads every row exactly once (op "r").
#   (b) an incremental snapshot (cdc_kafka.snapshot()) of a 400,000-row
#       table in chunks of 1,024 rows, the worker killed likewise half-way:
#       every row exactly once.
#
# A read_uncommitted consumer also reads the records of the Kafka
# transactions the kills aborted: its count is printed.
# CDC_EOS_DELIVERY=at_least_once runs the same checks in that mode, to see
# them fail (rows sent again after the kills).
#
# test/t/036_exactly_once_snapshots.pl

use strict;
use warnings;
use FindBin;
use lib $FindBin::RealBin;

use PostgreSQL::Test::Cluster;
use PostgreSQL::Test::Utils;
use Test::More;
use CdcKafka;

my $DELIVERY = $ENV{CDC_EOS_DELIVERY} // 'exactly_once';
my $ROWS = 400_000;

my $kafka = CdcKafka::Cluster->start(nodes => 1, partitions => 3);

sub snapshot_node
{
	my ($name, $conf) = @_;
	return new_node(
		$name,
		bootstrap => $kafka->bootstrap,
		create_extension => 0,
		log_statement => 'none',
		conf => "cdc_kafka.delivery = '$DELIVERY'\ncdc_kafka.schemas = off\n"
		  . "cdc_kafka.topic_prefix = '$name'\ncdc_kafka.restart_delay = 1\n"
		  . "restart_after_crash = on\ncdc_kafka.snapshot_fetch_size = 2000\n"
		  . ($conf // ''));
}

sub fill
{
	my ($node, $table) = @_;
	$node->safe_psql('postgres', "CREATE TABLE $table (id int PRIMARY KEY, pad text)");
	$node->safe_psql('postgres',
		"INSERT INTO $table SELECT g, repeat(md5(g::text), 4) FROM generate_series(1, $ROWS) g");
	$node->safe_psql('postgres', "VACUUM ANALYZE $table");
}

# Kill the worker once its snapshot has sent more than $rows rows.
sub kill_worker_after
{
	my ($node, $what, $sent) = @_;
	ok(poll_until(sub { my $s = status($node); $s && ($s->{snapshot_rows} // 0) > $sent }, 300,
			"$what under way"), "$what: more than $sent rows sent");
	my $pid = worker_pid($node);
	ok(kill('KILL', $pid), "$what: worker $pid killed (kill -9)");
	ok(wait_streaming($node, timeout => 300), "$what: streaming again after the server reinitialized");
}

sub wait_snapshots_done
{
	my ($node) = @_;
	return poll_until(
		sub {
			$node->safe_psql('postgres',
				"SELECT count(*) FROM cdc_kafka.snapshots WHERE state IN ('pending', 'running')") == 0;
		},
		300, 'snapshots done');
}

# Every id of the topic's op "r" records, read with read_committed: each
# must be there once.
sub check_once
{
	my ($what, $topic) = @_;
	$kafka->wait_committed_settled([$topic], 120);
	my ($records, $dups, $bad, $seen) = (0, 0, 0, '');
	$kafka->consume_each(
		$topic,
		sub {
			my ($r) = @_;
			$records++;
			my ($id) = ($r->{key} // '') =~ /^\{"id":(\d+)\}$/;
			my ($op) = ($r->{value} // '') =~ /"op":"(\w)"/;
			if (!defined $id || ($op // '') ne 'r') { $bad++; return; }
			if (vec($seen, $id, 1)) { $dups++; }
			else { vec($seen, $id, 1) = 1; }
		},
		isolation => 'read_committed');
	my $distinct = unpack('%32b*', $seen);
	my $uncommitted = $kafka->count_records($topic, isolation => 'read_uncommitted');
	diag("036 $what ($DELIVERY): $ROWS rows, $records records read_committed, $distinct distinct, "
		  . "$dups duplicates, " . ($ROWS - $distinct) . " missing; read_uncommitted $uncommitted");
	is($bad, 0, "$what: only op r records of the table");
	is($distinct, $ROWS, "$what: every row delivered");
	is($dups, 0, "$what: none twice for a read_committed consumer");
	cmp_ok($uncommitted, '>=', $records, "$what: read_uncommitted reads at least as many");
}

# ---- (a) an initial snapshot, the worker killed half-way ------------------------------

{
	my $node = snapshot_node('eosa');
	fill($node, 'big');
	my $offset = log_size($node);
	$node->safe_psql('postgres', 'CREATE EXTENSION cdc_kafka');
	kill_worker_after($node, 'a: initial snapshot', 100_000);
	ok(log_count($node, qr/initial snapshot of slot .* was interrupted; \d+ tables continue/, $offset) >= 1,
		'a: the table continues as an incremental snapshot');
	ok(wait_snapshots_done($node), 'a: the resumed snapshot finishes');
	ok(wait_caught_up($node), 'a: caught up');
	check_once('a', 'eosa.public.big');
	if ($DELIVERY eq 'exactly_once')
	{
		ok(log_count($node, qr/initial snapshot of slot .*: progress committed to Kafka adopted/, $offset) >= 1,
			'a: the progress committed with the rows replaced the progress file');
	}
	$node->stop('fast');
}

# ---- (b) an incremental snapshot, the worker killed half-way -----------------------------

{
	my $node = snapshot_node('eosb',
		"cdc_kafka.snapshot_mode = no_data\ncdc_kafka.incremental_snapshot_chunk_size = 1024\n");
	fill($node, 'big');
	$node->safe_psql('postgres', 'CREATE EXTENSION cdc_kafka');
	ok(wait_streaming($node), 'b: streaming, no initial snapshot');
	$node->safe_psql('postgres', "SELECT cdc_kafka.snapshot('big')");
	kill_worker_after($node, 'b: incremental snapshot', $ROWS / 2);
	ok(wait_snapshots_done($node), 'b: the snapshot finishes after the restart');
	ok(wait_caught_up($node), 'b: caught up');
	is($node->safe_psql('postgres', "SELECT state, rows_sent FROM cdc_kafka.snapshots"),
		"done|$ROWS", 'b: the snapshot is done, every row counted once');
	check_once('b', 'eosb.public.big');
	$node->stop('fast');
}

$kafka->stop;
done_testing();
