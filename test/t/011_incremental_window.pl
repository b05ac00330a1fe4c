# 011_incremental_window.pl - an incremental snapshot's chunk is read while
# a transaction that changed one of its rows is between its commit record
# and its end (DBLog's commit-versus-visibility gap).
#
#   A  the commit record is written and flushed, the commit log not yet
#      marked: the backend is held there by gdb (a breakpoint on
#      TransactionIdCommitTree) while the snapshot of the table is asked for
#      and for 5 s after: the chunk is not read meanwhile; released, the
#      last record of the key must carry the new row, not the chunk's old
#      one.  (Skipped without gdb, or where ptrace is not permitted.)
#   B  committed, waiting for synchronous replication (no standby): still
#      in the ProcArray, so new snapshots do not see it yet.  The snapshot
#      waits, status column snapshot_wait names the transaction and what it
#      waits for, the log warns after 10 s, streaming goes on;
#      pg_cancel_backend releases the commit
#      and the snapshot goes on with the new row.
#   C  an idle-in-transaction session and a prepared transaction holding
#      xids do not hold the snapshot back; their commits afterwards win.
#
# In every case the last record of every key is the row in the table.
#
# test/t/011_incremental_window.pl

use strict;
use warnings;
use FindBin;
use lib $FindBin::RealBin;

use IPC::Run;
use PostgreSQL::Test::Cluster;
use PostgreSQL::Test::Utils;
use Test::More;
use Time::HiRes qw(time usleep);
use CdcKafka;

my $json = CdcKafka::json_parser();
my $kafka = CdcKafka::Cluster->start(nodes => 1, partitions => 1);
my $topic = 'win.public.t';

# ---- helpers ------------------------------------------------------------------

# A psql session fed statement by statement (its COMMIT may hang).
sub open_session
{
	my ($node) = @_;
	my $s = { in => '', out => '', err => '' };
	$s->{h} = IPC::Run::start(
		[ $node->installed_command('psql'), '-XAtq', '-v', 'ON_ERROR_STOP=1',
		  '-d', $node->connstr('postgres'), '-f', '-' ],
		'<', \$s->{in}, '>', \$s->{out}, '2>', \$s->{err});
	return $s;
}

sub send_sql
{
	my ($s, $sql) = @_;
	$s->{in} .= "$sql\n";
	$s->{h}->pump_nb;
}

# Run statements in the session; returns what they printed.
sub query_session
{
	my ($s, $sql) = @_;
	my $mark = 'done' . int(rand(1e9));
	$sql .= ';' unless $sql =~ /;\s*$/;
	send_sql($s, "$sql\n\\echo $mark");
	my $ok = poll_until(sub { $s->{h}->pump_nb; $s->{out} =~ /\Q$mark\E\n/ }, 60, "psql: $sql");
	diag("psql stderr: $s->{err}") unless $ok;
	return undef unless $ok;
	my ($res) = $s->{out} =~ /^(.*?)\Q$mark\E\n/s;
	$s->{out} = '';
	chomp $res;
	return $res;
}

sub close_session
{
	my ($s) = @_;
	$s->{in} .= "\\q\n";
	$s->{h}->finish;
}

# The last record of each key of the topic: "ver|pad", or undef if deleted.
sub last_records
{
	my %last;
	$kafka->consume_each(
		$topic,
		sub {
			my $id = $json->decode($_[0]{key})->{id};
			if (!defined $_[0]{value}) { return; }
			my $v = $json->decode($_[0]{value});
			$last{$id} = $v->{op} eq 'd' ? undef : "$v->{after}{ver}|$v->{after}{pad}";
		});
	return \%last;
}

sub check_final_state
{
	my ($node, $label) = @_;
	my $last = last_records();
	my %rows = map { split /\|/, $_, 2 }
	  split /\n/, $node->safe_psql('postgres', "SELECT id, ver || '|' || pad FROM t");
	my @wrong = grep { ($last->{$_} // '(none)') ne $rows{$_} } sort { $a <=> $b } keys %rows;
	is(scalar(@wrong), 0, "$label: the last record of every key is its row")
	  or diag(join(', ', map { "$_: kafka " . ($last->{$_} // '(none)') . ", table $rows{$_}" } @wrong));
	return $last;
}

sub snapshot_and_wait
{
	my ($node, $label) = @_;
	my $id = $node->safe_psql('postgres', "SELECT cdc_kafka.snapshot('t')");
	ok(poll_until(sub {
		$node->safe_psql('postgres', "SELECT state FROM cdc_kafka.snapshots WHERE id = $id") eq 'done' },
		120, 'snapshot done'), "$label: the snapshot finishes");
	ok(wait_caught_up($node), "$label: caught up");
	return $id;
}

# ---- the server ---------------------------------------------------------------------

my $node = new_node(
	'win',
	bootstrap => $kafka->bootstrap,
	create_extension => 0,
	conf => "cdc_kafka.schemas = off\ncdc_kafka.topic_prefix = 'win'\n"
	  . "cdc_kafka.snapshot_mode = no_data\n"
	  # only the sessions that ask for it wait for (a never coming) standby
	  . "synchronous_commit = local\nmax_prepared_transactions = 4\n");
create_versioned_tables($node, ['t']);
$node->safe_psql('postgres', "INSERT INTO t SELECT g, 1, 'old' FROM generate_series(1, 100) g");
$node->safe_psql('postgres', 'CREATE EXTENSION cdc_kafka');
ok(wait_streaming($node), 'streaming');

# ---- A: held between the commit record and the commit log -------------------------------

SKIP:
{
	skip 'gdb is not installed', 5 if system('gdb --version >/dev/null 2>&1') != 0;

	my $s = open_session($node);
	my $pid = query_session($s, 'SELECT pg_backend_pid()');
	query_session($s, "BEGIN; UPDATE t SET ver = 2, pad = 'new A' WHERE id = 5;");
	my ($gin, $gout, $gerr) = ('', '', '');
	my $gdb = IPC::Run::start([ 'gdb', '-q', '-nx', '-p', $pid ], '<', \$gin, '>', \$gout, '2>', \$gerr);
	$gin .= "set pagination off\nset confirm off\nhandle SIGUSR1 SIGUSR2 SIGINT SIGTERM nostop noprint pass\n"
	  . "break TransactionIdCommitTree\ncontinue\n";
	poll_until(sub { $gdb->pump_nb; $gout =~ /Continuing/ || $gerr =~ /not permitted/ }, 60, 'gdb attached');
	if ($gerr =~ /ptrace: Operation not permitted/)
	{
		$gdb->kill_kill;
		query_session($s, 'ROLLBACK');
		close_session($s);
		skip 'gdb may not attach to a backend here (ptrace not permitted)', 5;
	}
	ok($gout =~ /Continuing/, 'A: gdb attached') or diag("gdb: $gout $gerr");
	send_sql($s, 'COMMIT;');
	ok(poll_until(sub { $gdb->pump_nb; $gout =~ /Breakpoint 1,/ }, 60, 'commit at the breakpoint'),
		'A: the commit is held after its commit record') or diag("gdb: $gout $gerr");

	# the low watermark follows the commit record; the reader must not read yet
	my $id = $node->safe_psql('postgres', "SELECT cdc_kafka.snapshot('t')");
	my $t0 = time;
	while (time - $t0 < 5)
	{
		$gdb->pump_nb;
		usleep(200_000);
	}
	isnt($node->safe_psql('postgres', "SELECT state FROM cdc_kafka.snapshots WHERE id = $id"), 'done',
		'A: the snapshot waits while the commit is held');
	$gin .= "detach\nquit\n";
	$gdb->finish;
	is(query_session($s, "SELECT 'committed'"), 'committed', 'A: released, the commit ends');
	close_session($s);
	ok(poll_until(sub {
		$node->safe_psql('postgres', "SELECT state FROM cdc_kafka.snapshots WHERE id = $id") eq 'done' },
		120, 'snapshot done'), 'A: the snapshot finishes');
}
ok(wait_caught_up($node), 'A: caught up');
my $last = check_final_state($node, 'A');
is($last->{5}, '2|new A', 'A: the last record of the key held at commit is the new row');

# ---- B: committed, waiting for synchronous replication --------------------------------

$node->safe_psql('postgres', "ALTER SYSTEM SET synchronous_standby_names = 'nobody'; SELECT pg_reload_conf()");
{
	my $s = open_session($node);
	my $pid = query_session($s, 'SELECT pg_backend_pid()');
	my $xid = query_session($s,
		"BEGIN; UPDATE t SET ver = 3, pad = 'new B' WHERE id = 6; SELECT pg_current_xact_id();");
	send_sql($s, 'SET LOCAL synchronous_commit = on; COMMIT;');
	ok(poll_until(sub {
		$node->safe_psql('postgres', "SELECT wait_event FROM pg_stat_activity WHERE pid = $pid") eq 'SyncRep' },
		60, 'commit waits for the standby'), 'B: the commit waits for synchronous replication');

	my $log = log_size($node);
	my $id = $node->safe_psql('postgres', "SELECT cdc_kafka.snapshot('t')");
	my $st;
	ok(poll_until(sub { $st = status($node); ($st->{snapshot_wait} // '') =~ /\b$xid\b/ }, 60,
			'status shows the wait'), 'B: status shows the transaction the snapshot waits for')
	  or diag('status: ' . ($st ? ($st->{snapshot_wait} // 'null') : 'none'));
	like($st->{snapshot_wait} // '', qr/pid $pid.*SyncRep/, 'B: with its backend and its wait event');

	# streaming goes on meanwhile
	$node->safe_psql('postgres', "UPDATE t SET ver = 4, pad = 'streamed' WHERE id = 90");
	ok(poll_until(sub { (last_records()->{90} // '') eq '4|streamed' }, 60, 'change streamed'),
		'B: changes stream while the snapshot waits');
	is($node->safe_psql('postgres', "SELECT state FROM cdc_kafka.snapshots WHERE id = $id"), 'running',
		'B: the snapshot is still waiting');
	ok(poll_until(sub { log_count($node, qr/WARNING: .*incremental snapshot \d+ of public\.t waits for transaction $xid\b/, $log) > 0 },
			60, 'warning in the log'), 'B: after a while the log says so too');
	is(status($node)->{state}, 'streaming', 'B: the worker is streaming meanwhile');

	$node->safe_psql('postgres', "SELECT pg_cancel_backend($pid)");
	query_session($s, 'SELECT 1');
	like($s->{err}, qr/committed locally/, 'B: the cancelled commit stays committed');
	close_session($s);
	ok(poll_until(sub {
		$node->safe_psql('postgres', "SELECT state FROM cdc_kafka.snapshots WHERE id = $id") eq 'done' },
		120, 'snapshot done'), 'B: the snapshot finishes');
	ok(wait_caught_up($node), 'B: caught up');
	is(status($node)->{snapshot_wait}, undef, 'B: and status shows no wait');
	$last = check_final_state($node, 'B');
	is($last->{6}, '3|new B', 'B: the last record of the key is the new row');
}
$node->safe_psql('postgres', "ALTER SYSTEM RESET synchronous_standby_names; SELECT pg_reload_conf()");

# ---- C: idle and prepared transactions hold nothing back ---------------------------------

{
	my $idle = open_session($node);
	query_session($idle, "BEGIN; UPDATE t SET ver = 5, pad = 'idle' WHERE id = 7;");
	$node->safe_psql('postgres',
		"BEGIN; UPDATE t SET ver = 6, pad = 'prepared' WHERE id = 8; PREPARE TRANSACTION 'p'");
	my $t0 = time;
	snapshot_and_wait($node, 'C');
	cmp_ok(time - $t0, '<', 60, 'C: without waiting for them');
	query_session($idle, 'COMMIT');
	close_session($idle);
	$node->safe_psql('postgres', "COMMIT PREPARED 'p'");
	ok(wait_caught_up($node), 'C: caught up');
	$last = check_final_state($node, 'C');
	is($last->{7} . ',' . $last->{8}, '5|idle,6|prepared', 'C: their commits come last');
}

$node->stop('fast');
done_testing();
