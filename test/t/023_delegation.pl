# 023_delegation.pl - who may manage streaming and who may watch it.
#
#  * A member of cdc_kafka_admin (the extension's role, created by CREATE
#    EXTENSION) manages streaming end to end: add_tables() then its rows in
#    Kafka, stop() and start(), reset_offsets(), drop_slot() and
#    create_slot(), snapshot() of a table it can SELECT, cancel_snapshot().
#  * A role without it is refused before anything happens, even when
#    granted USAGE on the schema and EXECUTE on the functions: the worker
#    keeps its slot and its session, nothing in the extension changed.
#  * pg_monitor reads every view; an ordinary role reads none, and
#    pg_monitor can do nothing else.
#  * cdc_kafka_admin is NOLOGIN, no superuser, replication, createrole,
#    and owns nothing.
#
# test/t/023_delegation.pl

use strict;
use warnings;
use FindBin;
use lib $FindBin::RealBin;

use PostgreSQL::Test::Cluster;
use PostgreSQL::Test::Utils;
use Test::More;
use CdcKafka;

my $kafka = CdcKafka::Cluster->start(nodes => 1, partitions => 1);
my $node = new_node(
	'delegation',
	bootstrap => $kafka->bootstrap,
	create_extension => 0,
	conf => q{
cdc_kafka.publication_autocreate_mode = filtered
cdc_kafka.table_include_list = 'public.a'
});

$node->safe_psql(
	'postgres', q{
CREATE TABLE a (id int PRIMARY KEY, v text);
CREATE TABLE b (id int PRIMARY KEY, v text);
CREATE TABLE secret (id int PRIMARY KEY, v text);
INSERT INTO a VALUES (1, 'a 1'), (2, 'a 2');
CREATE EXTENSION cdc_kafka;
CREATE ROLE mgr LOGIN IN ROLE cdc_kafka_admin;
GRANT SELECT ON a, b TO mgr;
CREATE ROLE mon LOGIN IN ROLE pg_monitor;
CREATE ROLE nobody LOGIN;
-- the delegation the README used to describe: USAGE and EXECUTE, no role
CREATE ROLE rogue LOGIN;
GRANT SELECT ON a, b, secret TO rogue;
GRANT USAGE ON SCHEMA cdc_kafka TO rogue;
GRANT EXECUTE ON ALL FUNCTIONS IN SCHEMA cdc_kafka TO rogue;
});
ok(wait_streaming($node, timeout => 60), 'the worker streams');
$kafka->wait_for_records('postgres.public.a', 2, 60);

# $sql as $role (SET ROLE: the functions check the current user)
sub as_role
{
	my ($role, $sql) = @_;
	my ($ret, $out, $err) = $node->psql('postgres', "SET ROLE $role;\n$sql", timeout => 60);
	return ($ret, $out, $err);
}

# ---- the role itself ----------------------------------------------------------

is( $node->safe_psql(
		'postgres', q{
SELECT rolcanlogin, rolsuper, rolreplication, rolcreaterole, rolcreatedb, rolbypassrls
FROM pg_roles WHERE rolname = 'cdc_kafka_admin'}),
	'f|f|f|f|f|f',
	'cdc_kafka_admin exists: NOLOGIN, no superuser, replication, createrole, createdb, bypassrls');
is( $node->safe_psql(
		'postgres', q{
SELECT (SELECT count(*) FROM pg_class WHERE relowner = 'cdc_kafka_admin'::regrole)
	+ (SELECT count(*) FROM pg_proc WHERE proowner = 'cdc_kafka_admin'::regrole)
	+ (SELECT count(*) FROM pg_namespace WHERE nspowner = 'cdc_kafka_admin'::regrole)
	+ (SELECT count(*) FROM pg_publication WHERE pubowner = 'cdc_kafka_admin'::regrole)
	+ (SELECT count(*) FROM pg_database WHERE datdba = 'cdc_kafka_admin'::regrole)
	+ (SELECT count(*) FROM pg_auth_members WHERE member = 'cdc_kafka_admin'::regrole)}),
	'0', 'cdc_kafka_admin owns nothing and is a member of no role');

# ---- watching: pg_monitor reads every view, an ordinary role none ------------------

my @views = qw(status table_stats snapshot_progress);
for my $view (@views)
{
	my ($ret, $out, $err) = as_role('mon', "SELECT count(*) FROM cdc_kafka.$view");
	is($ret, 0, "pg_monitor reads cdc_kafka.$view") or diag($err);
	($ret, $out, $err) = as_role('nobody', "SELECT count(*) FROM cdc_kafka.$view");
	like($err, qr/permission denied for schema cdc_kafka/, "an ordinary role does not read cdc_kafka.$view");
}
is((as_role('mon', 'SELECT state FROM cdc_kafka.status'))[1], 'streaming',
	'pg_monitor sees the worker streaming');
for my $what ('SELECT count(*) FROM cdc_kafka.snapshots', 'SELECT count(*) FROM cdc_kafka.worker_state',
	'SELECT cdc_kafka.stop()', 'SELECT cdc_kafka.tables()')
{
	my ($ret, $out, $err) = as_role('mon', $what);
	like($err, qr/permission denied/, "pg_monitor cannot: $what");
}

# ---- refused: a role without cdc_kafka_admin, even with EXECUTE -------------------

my $slot_pid = sub {
	$node->safe_psql('postgres',
		"SELECT active_pid FROM pg_replication_slots WHERE slot_name = 'cdc_kafka_postgres'");
};
my $pid_before = $slot_pid->();
ok($pid_before ne '', "the worker holds its slot (pid $pid_before)");
my $log_offset = -s $node->logfile;
my $here = $node->safe_psql('postgres', 'SELECT pg_current_wal_insert_lsn()');
my %calls = (
	start => 'SELECT cdc_kafka.start()',
	stop => 'SELECT cdc_kafka.stop()',
	restart => 'SELECT cdc_kafka.restart()',
	add_tables => "SELECT cdc_kafka.add_tables('b')",
	remove_tables => "SELECT cdc_kafka.remove_tables('a')",
	create_slot => 'SELECT cdc_kafka.create_slot()',
	drop_slot => 'SELECT cdc_kafka.drop_slot()',
	reset_offsets => "SELECT cdc_kafka.reset_offsets('$here')",
	skip_record => "SELECT cdc_kafka.skip_record('$here')",
	snapshot => "SELECT cdc_kafka.snapshot('a')",
	cancel_snapshot => 'SELECT cdc_kafka.cancel_snapshot(1)');
for my $f (sort keys %calls)
{
	my ($ret, $out, $err) = as_role('rogue', $calls{$f});
	like($err, qr/ERROR:  permission denied for function cdc_kafka\.$f\(\)\n.*privileges of role "cdc_kafka_admin"/,
		"without cdc_kafka_admin, $f() is refused with a clear error");
}
my ($ret, $out, $err) = as_role('rogue', "SELECT cdc_kafka.snapshot('a', 'id > 0')");
like($err, qr/permission denied for function cdc_kafka\.snapshot\(\)/, 'snapshot(table, filter) too');
is($slot_pid->(), $pid_before, 'after the refused calls the worker still holds its slot, in the same process');
is( $node->safe_psql(
		'postgres', q{
SELECT (SELECT enabled FROM cdc_kafka.worker_state)::text || ' ' ||
	(SELECT string_agg(t::text, ',' ORDER BY t::text) FROM cdc_kafka.tables() t) || ' ' ||
	(SELECT count(*) FROM cdc_kafka.snapshots)}),
	'true a 0', 'still enabled, still capturing a alone, no snapshot queued');
is(CdcKafka::status($node)->{state}, 'streaming', 'still streaming');
# what the worker (not this script's sessions) logged meanwhile
my $log = join("\n", grep { !/023_delegation\.pl/ } split /\n/, CdcKafka::slurp_log_from($node, $log_offset));
unlike($log, qr/slot|session|releas|restart|stop/i, 'the worker was asked for nothing') or diag($log);

# ---- a member of cdc_kafka_admin, end to end ---------------------------------------

($ret, $out, $err) = as_role('mgr', "SELECT cdc_kafka.add_tables('b')");
is($ret, 0, 'cdc_kafka_admin adds a table') or diag($err);
$node->safe_psql('postgres', "INSERT INTO b VALUES (1, 'b 1'), (2, 'b 2')");
ok($kafka->wait_for_records('postgres.public.b', 2, 60), 'its rows reach Kafka');
($ret, $out, $err) = as_role('mgr', "SELECT cdc_kafka.add_tables('secret')");
like($err, qr/permission denied for table public\.secret/, 'a table it cannot read it cannot capture');

($ret, $out, $err) = as_role('mgr', 'SELECT cdc_kafka.stop()');
is($ret, 0, 'cdc_kafka_admin stops streaming') or diag($err);
ok(wait_state($node, 'stopped', timeout => 60), 'the worker stops');
($ret, $out, $err) = as_role('mgr', 'SELECT cdc_kafka.drop_slot()');
is($out, 'cdc_kafka_postgres', 'cdc_kafka_admin drops the slot') or diag($err);
($ret, $out, $err) = as_role('mgr', 'SELECT cdc_kafka.create_slot()');
is($out, 'cdc_kafka_postgres', 'and creates it') or diag($err);
($ret, $out, $err) = as_role('mgr', 'SELECT cdc_kafka.start()');
is($ret, 0, 'cdc_kafka_admin starts streaming') or diag($err);
ok(wait_streaming($node, timeout => 60), 'the worker streams again');

$node->safe_psql('postgres', "INSERT INTO b VALUES (3, 'skipped')");
$here = $node->safe_psql('postgres', 'SELECT pg_current_wal_insert_lsn()');
($ret, $out, $err) = as_role('mgr', "SELECT cdc_kafka.reset_offsets('$here')");
is($ret, 0, 'cdc_kafka_admin moves the slot (reset_offsets)') or diag($err);
ok(wait_streaming($node, timeout => 60), 'the worker streams after reset_offsets()');
($ret, $out, $err) = as_role('mgr', 'SELECT cdc_kafka.restart()');
is($ret, 0, 'cdc_kafka_admin restarts the session') or diag($err);
($ret, $out, $err) = as_role('mgr', "SELECT cdc_kafka.skip_record('$here')");
like($err, qr/no refused record at LSN/, 'skip_record() reaches its own checks');

($ret, $out, $err) = as_role('mgr', "SELECT cdc_kafka.snapshot('a')");
is($ret, 0, 'cdc_kafka_admin asks for a snapshot of a table it can read') or diag($err);
ok( poll_until(
		sub {
			$node->safe_psql('postgres', "SELECT state FROM cdc_kafka.snapshots WHERE id = $out") eq 'done';
		},
		60,
		'snapshot done'),
	'the snapshot is done');
is($node->safe_psql('postgres', "SELECT requested_by FROM cdc_kafka.snapshot_progress WHERE id = $out"),
	'mgr', 'requested by mgr');
my @reads = grep { decode_record($_); $_->{op} eq 'r' } @{ $kafka->consume('postgres.public.a') };
ok(scalar(@reads) >= 4, 'the snapshot rows are in Kafka (2 initial, 2 requested)');
($ret, $out, $err) = as_role('mgr', "SELECT cdc_kafka.snapshot('secret')");
like($err, qr/permission denied for table secret/, 'not of a table it cannot read');
($ret, $out, $err) = as_role('mgr', "SELECT cdc_kafka.cancel_snapshot(cdc_kafka.snapshot('a', 'id > 1'))");
is($ret, 0, 'cdc_kafka_admin cancels a snapshot') or diag($err);
($ret, $out, $err) = as_role('mgr', "SELECT cdc_kafka.remove_tables('b')");
is($ret, 0, 'cdc_kafka_admin removes a table') or diag($err);
is( $node->safe_psql('postgres',
		"SELECT rolsuper FROM pg_publication p JOIN pg_roles r ON r.oid = p.pubowner WHERE pubname = 'cdc_kafka'"),
	't', 'the publication keeps its superuser owner');
is( $node->safe_psql('postgres',
		"SELECT count(*) FROM pg_publication WHERE pubowner = 'cdc_kafka_admin'::regrole"),
	'0', 'cdc_kafka_admin owns no publication afterwards');

# ---- DROP EXTENSION leaves the role; CREATE EXTENSION takes it as it is ---------------

$node->safe_psql('postgres', 'DROP EXTENSION cdc_kafka');
is($node->safe_psql('postgres', "SELECT count(*) FROM pg_roles WHERE rolname = 'cdc_kafka_admin'"),
	'1', 'DROP EXTENSION keeps the cluster-wide role');
$node->safe_psql('postgres', 'CREATE EXTENSION cdc_kafka');
is($node->safe_psql('postgres', "SELECT pg_has_role('mgr', 'cdc_kafka_admin', 'MEMBER')"),
	't', 'CREATE EXTENSION again keeps it and its members');

$node->stop;
$kafka->stop;
done_testing();
