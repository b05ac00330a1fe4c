# 022_loss_and_loops.pl - losses that must be seen, loops that must not spin.
#
#  A. cdc_kafka.reset_offsets() refuses a position ahead of the WAL or
#     behind the slot, and reports the position it set.
#  B. The slot dropped from outside (pg_drop_replication_slot) under
#     pgbench: the worker must not take a new slot silently (the changes
#     in between would be lost unnoticed); it goes to state slot_lost with
#     a WARNING naming the slot and the way out, remembers it across a
#     server restart, and cdc_kafka.drop_slot() accepts the loss: a new
#     slot and a new snapshot.
#  C. A snapshot's row filter that never ends (pg_sleep): the chunk's read
#     is bounded by cdc_kafka.snapshot_chunk_timeout (the request fails
#     with the reason, streaming goes on), cancel_snapshot() interrupts
#     the read within seconds, and while the chunk is read status says so
#     (state snapshotting) and lag_seconds grows.
#  D. A snapshot row Kafka refuses (larger than the topic takes): state
#     blocked naming table and key, no hot loop (log lines and WAL bounded
#     over 10 s), skip_record() leaves that row out and the snapshots
#     queued after it run; cancel_snapshot() gets past it too.
#
# test/t/022_loss_and_loops.pl

use strict;
use warnings;
use FindBin;
use lib $FindBin::RealBin;

use PostgreSQL::Test::Cluster;
use PostgreSQL::Test::Utils;
use Test::More;
use Time::HiRes qw(time usleep);
use CdcKafka;

my $SLOT = 'cdc_kafka_postgres';

my $kafka = CdcKafka::Cluster->start(nodes => 1, partitions => 1);
$kafka->create_topic('postgres.public.docs', partitions => 1, config => { 'max.message.bytes' => 20000 });
my $node = new_node(
	'loops',
	bootstrap => $kafka->bootstrap,
	conf => q{
log_min_messages = info
cdc_kafka.snapshot_chunk_timeout = '8s'
cdc_kafka.restart_delay = 1
autovacuum = off
});

sub q1 { $node->safe_psql('postgres', $_[0]) }

sub wal_bytes_since
{
	my ($lsn) = @_;
	return q1("SELECT pg_wal_lsn_diff(pg_current_wal_insert_lsn(), '$lsn')");
}

sub snap_state
{
	my ($id) = @_;
	return q1("SELECT state || ':' || coalesce(error, '') FROM cdc_kafka.snapshots WHERE id = $id");
}

# ids of the op "r" records on a topic
sub read_ids
{
	my ($topic) = @_;
	my %ids;
	for my $r (@{ $kafka->consume($topic) })
	{
		decode_record($r);
		$ids{ $r->{key_payload}{id} }++ if ($r->{op} // '') eq 'r';
	}
	return \%ids;
}

q1('CREATE TABLE t (id int PRIMARY KEY, v text)');
q1("INSERT INTO t VALUES (1, 'one')");
wait_caught_up($node) or BAIL_OUT('first change not acknowledged');

# ---- A: reset_offsets() ------------------------------------------------------------

sub part_a
{
	my ($ret, $out, $err) = $node->psql('postgres', "SELECT cdc_kafka.reset_offsets('FF/FFFFFFFF')", timeout => 60);
	isnt($ret, 0, 'A: reset_offsets beyond the end of WAL is refused');
	like($err, qr/is ahead of the WAL/, 'A: with a clear error') or diag($err);
	($ret, $out, $err) = $node->psql('postgres', "SELECT cdc_kafka.reset_offsets('0/10')", timeout => 60);
	like($err, qr/is behind replication slot/, 'A: reset_offsets behind the slot is refused with a clear error')
	  or diag($err);
	wait_streaming($node, timeout => 30);
}

# ---- B: the slot dropped from outside, under pgbench -------------------------------------

sub part_b
{
	my @vt = qw(va vb vc);
	create_versioned_tables($node, \@vt);
	fill_versioned_tables($node, \@vt, 1000);
	wait_caught_up($node);
	my $pos = log_size($node);
	my $bench = start_pgbench($node, tables => \@vt, rows => 1000, time => 12, rate => 300, clients => 2, jobs => 1);
	sleep 3;

	# the worker holds the slot: end it, and drop the slot while it is restarted
	my $dropped = poll_until(
		sub {
			$node->psql('postgres',
				"SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE backend_type = 'cdc_kafka worker'");
			my ($r) = $node->psql('postgres', "SELECT pg_drop_replication_slot('$SLOT')");
			return $r == 0;
		},
		30,
		'the slot to be dropped');
	BAIL_OUT('could not drop the slot') unless $dropped;
	my $after_drop = q1('SELECT pg_current_wal_insert_lsn()');
	my $st = wait_state($node, 'slot_lost', timeout => 60);
	ok($st, 'B: the worker goes to state slot_lost');
	like($st->{detail} // '', qr/replication slot "$SLOT" was dropped/, 'B: the detail names the slot');
	like($st->{detail} // '', qr/drop_slot\(\)/, 'B: and the way to accept the loss');
	ok(eval { $node->wait_for_log(qr/WARNING:.*replication slot "$SLOT" was dropped/, $pos); 1 },
		'B: the log warns about it');
	my ($rc, $bout, $berr) = finish_pgbench($bench);
	diag("pgbench: $berr") if $rc != 0;
	sleep 3;
	is(q1("SELECT count(*) FROM pg_replication_slots WHERE slot_name = '$SLOT'"), 0,
		'B: no new slot was created silently');
	is(status($node)->{state}, 'slot_lost', 'B: still slot_lost');
	is(log_count($node, qr/created replication slot/, $pos), 0, 'B: the log shows no new slot either');

	$node->restart;
	ok(wait_state($node, 'slot_lost', timeout => 60), 'B: after a server restart, still slot_lost');
	is(q1("SELECT count(*) FROM pg_replication_slots WHERE slot_name = '$SLOT'"), 0,
		'B: and still no slot');

	# accept the loss: a new slot, a new snapshot
	my $before_snap = $kafka->record_count('postgres.public.va');
	my ($r, $o, $e) = $node->psql('postgres', 'SELECT cdc_kafka.drop_slot()');
	is($o, $SLOT, 'B: drop_slot() accepts the loss of the slot') or diag($e);
	my $ok = wait_streaming($node, timeout => 60)
	  && q1("SELECT count(*) FROM pg_replication_slots WHERE slot_name = '$SLOT'") == 1
	  && wait_caught_up($node);
	my $after = $kafka->record_count('postgres.public.va');
	ok($ok && $after >= $before_snap + 1000,
		"B: then the worker streams, on a new slot that came with a new snapshot ($before_snap -> $after records)");
}

# ---- C: a snapshot filter that sleeps ---------------------------------------------------

sub part_c
{
	my $st;
	q1('CREATE TABLE sleepy (id int PRIMARY KEY, v text)');
	q1("INSERT INTO sleepy SELECT g, 'z' FROM generate_series(1, 5) g");
	wait_caught_up($node);

	my $id = q1("SELECT cdc_kafka.snapshot('sleepy', 'pg_sleep(3600) IS NOT NULL')");
	my $t0 = time;
	$st = wait_state($node, 'snapshotting', timeout => 20);
	ok($st, 'C: while the chunk is read, the state is snapshotting');
	like($st->{detail} // '', qr/public\.sleepy/, 'C: the detail names the table read');
	q1("INSERT INTO t VALUES (10, 'during the read')");
	sleep 2;
	$st = status($node);
	cmp_ok($st->{lag_seconds} // 0, '>', 1, "C: lag_seconds grows while the chunk is read ($st->{lag_seconds})");
	ok( poll_until(sub { snap_state($id) =~ /^failed:/ }, 30, 'the sleeping snapshot to fail'),
		'C: the chunk read times out and fails its request');
	my $took = time - $t0;
	cmp_ok($took, '<', 20, sprintf('C: within the bound (%.1f s, timeout 8 s)', $took));
	like(snap_state($id), qr/snapshot_chunk_timeout/, 'C: the error names the setting')
	  or diag(snap_state($id));
	ok(wait_caught_up($node, timeout => 30), 'C: streaming went on');
	ok(grep({ ($_->{key} // '') =~ /"id":10\b/ } @{ $kafka->consume('postgres.public.t') }),
		'C: the change made during the read arrived');

	$id = q1("SELECT cdc_kafka.snapshot('sleepy', 'pg_sleep(3600) IS NOT NULL')");
	ok(wait_state($node, 'snapshotting', timeout => 20), 'C: reading again');
	sleep 1;
	$t0 = time;
	my $cpos = log_size($node);
	q1("SELECT cdc_kafka.cancel_snapshot($id)");
	q1("INSERT INTO t VALUES (11, 'after the cancel')");
	ok(wait_caught_up($node, timeout => 5), 'C: after cancel_snapshot() streaming resumes within seconds');
	$took = time - $t0;
	cmp_ok($took, '<', 5, sprintf('C: cancel_snapshot() interrupted the read (%.1f s)', $took));
	like(slurp_log_from($node, $cpos), qr/incremental snapshot $id of public\.sleepy cancelled/,
		'C: the worker logs the snapshot cancelled');
}

# ---- D: a snapshot row Kafka refuses ---------------------------------------------------

sub part_d
{
	my ($st, $ret, $out, $err);
	# the rows exist before the snapshot, not streamed: written while the worker
	# is stopped, and the slot moved past them
	q1('CREATE TABLE docs (id int PRIMARY KEY, body text)');
	q1('CREATE TABLE later (id int PRIMARY KEY, v text)');
	wait_caught_up($node);
	q1('SELECT cdc_kafka.stop()');
	wait_state($node, 'stopped', timeout => 30);
	q1("INSERT INTO docs SELECT g, 'small ' || g FROM generate_series(1, 5) g");
	q1(q{UPDATE docs SET body = (SELECT string_agg(md5(g::text), '') FROM generate_series(1, 2000) g) WHERE id = 3});
	q1("INSERT INTO later SELECT g, 'l' FROM generate_series(1, 4) g");
	my $past = q1('SELECT pg_current_wal_flush_lsn()');
	q1("SELECT cdc_kafka.reset_offsets('$past')");
	q1('SELECT cdc_kafka.start()');
	wait_streaming($node, timeout => 30);

	my $pos = log_size($node);
	my $docs_id = q1("SELECT cdc_kafka.snapshot('docs')");
	my $later_id = q1("SELECT cdc_kafka.snapshot('later')");
	$st = wait_state($node, 'blocked', timeout => 60);
	ok($st, 'D: a refused snapshot row blocks the worker visibly');
	$st //= {};
	is($st->{blocked_table}, 'public.docs', 'D: status names the table');
	like($st->{blocked_key} // '', qr/"id":3\}/, 'D: and the key of the big row');
	ok(defined $st->{blocked_lsn}, 'D: and an LSN');
	like($st->{detail} // '', qr/skip_record\('[0-9A-F]+\/[0-9A-F]+'\)/, 'D: the detail says how to skip it');
	like($st->{detail} // '', qr/cancel_snapshot\($docs_id\)/, 'D: or to cancel the snapshot');

	# the worker's messages, one context line each: a retry logs 5 (decoding
	# starts, finds its consistent point, streams, the chunk, the refusal)
	my $worker_re = qr/CONTEXT:  cdc_kafka worker for database "postgres"/;
	my $lines0 = log_count($node, $worker_re, $pos);
	my $wal0 = q1('SELECT pg_current_wal_insert_lsn()');
	sleep 10;
	my $lines = log_count($node, $worker_re, $pos) - $lines0;
	my $wal = wal_bytes_since($wal0);
	cmp_ok($lines, '<=', 6, "D: no hot loop: $lines worker messages in 10 s");
	cmp_ok($wal, '<', 4096, "D: and no WAL written over and over ($wal bytes in 10 s)");
	is(status($node)->{state}, 'blocked', 'D: still blocked');

	$st = status($node);
	($ret, $out, $err) = $node->psql('postgres', "SELECT cdc_kafka.skip_record('$st->{blocked_lsn}')", timeout => 60);
	is($ret, 0, 'D: skip_record() on the refused snapshot row') or diag($err);
	ok(poll_until(sub { snap_state($docs_id) =~ /^done/ && snap_state($later_id) =~ /^done/ }, 60, 'snapshots done'),
		'D: the snapshot of docs finishes, and the one queued after it');
	my $ids = read_ids('postgres.public.docs');
	is(join(',', sort keys %$ids), '1,2,4,5', 'D: all rows of docs but the refused one were sent');
	$ids = read_ids('postgres.public.later');
	is(join(',', sort keys %$ids), '1,2,3,4', 'D: and the later table\'s rows');
	like(slurp_log_from($node, $pos), qr/leaves out the row with key .*"id":3/, 'D: the skip is logged');

	# again, and cancel this time
	$docs_id = q1("SELECT cdc_kafka.snapshot('docs')");
	ok(wait_state($node, 'blocked', timeout => 60), 'D: blocked again on the same row');
	q1("SELECT cdc_kafka.cancel_snapshot($docs_id)");
	$later_id = q1("SELECT cdc_kafka.snapshot('later')");
	ok(poll_until(sub { snap_state($later_id) =~ /^done/ }, 60, 'later done'),
		'D: after cancel_snapshot() the worker goes on to the next snapshot');
	q1("INSERT INTO t VALUES (20, 'after all')");
	wait_caught_up($node, timeout => 30);
}

# CDC_022_PARTS=CD runs only those parts (to show each fails without the fix)
my $parts = $ENV{CDC_022_PARTS} // 'ABCD';
part_a() if $parts =~ /A/;
part_b() if $parts =~ /B/;
part_c() if $parts =~ /C/;
part_d() if $parts =~ /D/;

$node->stop;
$kafka->stop;
done_testing();
