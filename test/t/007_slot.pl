# 007_slot.pl - the replication slot: WAL retention, moving it, losing it.
#
#  * Idle captured tables must not pin WAL: with WAL written only elsewhere
#    (another database), the worker still confirms the slot forward, its
#    restart_lsn follows, and max_slot_wal_keep_size never invalidates it.
#  * cdc_kafka.reset_offsets(lsn) moves the slot forward: the changes
#    before that LSN are never sent, the ones after it are.
#  * A slot invalidated by max_slot_wal_keep_size (worker stopped, WAL
#    written past the limit, checkpoint) must put the worker in state
#    slot_lost with a clear error in the status and the log, and no new
#    slot may be created silently (changes would be lost unnoticed);
#    cdc_kafka.drop_slot() and cdc_kafka.start() then recover.
#
# test/t/007_slot.pl

use strict;
use warnings;
use FindBin;
use lib $FindBin::RealBin;

use PostgreSQL::Test::Cluster;
use PostgreSQL::Test::Utils;
use Test::More;
use Time::HiRes qw(time);
use CdcKafka;

my $kafka = CdcKafka::Cluster->start(nodes => 1, partitions => 1);
my $node = new_node(
	'slot',
	bootstrap => $kafka->bootstrap,
	log_statement => 'ddl',
	conf => q{
max_slot_wal_keep_size = '48MB'
wal_keep_size = 0
min_wal_size = '32MB'
});

$node->safe_psql('postgres', 'CREATE DATABASE noise');
$node->safe_psql('noise', 'CREATE TABLE filler (x text)');
$node->safe_psql('postgres', 'CREATE TABLE t (id int PRIMARY KEY, v text)');
$node->safe_psql('postgres', "INSERT INTO t VALUES (1, 'one')");
ok(wait_caught_up($node), 'first change acknowledged');

# about $mb MB of WAL in database noise, ending with a segment switch
sub noise
{
	my ($mb) = @_;
	$node->safe_psql('noise',
		"INSERT INTO filler SELECT repeat(md5(g::text), 30) FROM generate_series(1, $mb * 1000) g; "
		  . 'TRUNCATE filler; SELECT pg_switch_wal();');
}

sub slot_info
{
	my $row = $node->safe_psql('postgres',
		"SELECT coalesce(restart_lsn::text, ''), coalesce(confirmed_flush_lsn::text, ''), coalesce(wal_status, '') "
		  . "FROM pg_replication_slots WHERE slot_name = 'cdc_kafka_postgres'");
	my ($restart, $confirmed, $wal_status) = split /\|/, $row;
	return { restart => $restart, confirmed => $confirmed, wal_status => $wal_status };
}

# ---- idle captured tables do not pin WAL ----------------------------------

my $before = slot_info();
my $start_lsn = $node->safe_psql('postgres', 'SELECT pg_current_wal_insert_lsn()');
noise(40) for 1 .. 3;
my $after_noise = $node->safe_psql('postgres', 'SELECT pg_current_wal_insert_lsn()');
note("noise: WAL from $start_lsn to $after_noise, slot restart_lsn $before->{restart}");
ok(wait_caught_up($node), 'with WAL written only in another database, confirmed_lsn follows the WAL');
ok( poll_until(
		sub {
			$node->safe_psql('postgres', 'CHECKPOINT');
			lsn_to_num(slot_info()->{restart}) >= lsn_to_num($after_noise) - 16 * 1024 * 1024;
		},
		60,
		'restart_lsn to follow'),
	'the slot\'s restart_lsn follows too (WAL can be recycled)');
my $info = slot_info();
note("after noise: restart_lsn $info->{restart}, confirmed_flush_lsn $info->{confirmed}, wal_status $info->{wal_status}");
isnt($info->{wal_status}, 'lost', 'max_slot_wal_keep_size did not invalidate the slot');
is(status($node)->{state}, 'streaming', 'still streaming');
is($kafka->record_count('postgres.public.t'), 1, 'and nothing was sent for the noise');

# ---- reset_offsets() ----------------------------------------------------

$node->safe_psql('postgres', 'SELECT cdc_kafka.stop()');
ok(wait_state($node, 'stopped', timeout => 30), 'stopped');
$node->safe_psql('postgres', "INSERT INTO t SELECT g, 'skipped' FROM generate_series(100, 109) g");
my $reset_to = $node->safe_psql('postgres', 'SELECT pg_current_wal_insert_lsn()');
$node->safe_psql('postgres', "INSERT INTO t SELECT g, 'kept' FROM generate_series(200, 209) g");
my $t0 = time;
my ($ret, $out, $err) = $node->psql('postgres', "SELECT cdc_kafka.reset_offsets('$reset_to')",
	timeout => 60);
my $took = time - $t0;
is($ret, 0, "reset_offsets('$reset_to') on the stopped worker succeeds") or diag($err);
cmp_ok($took, '<', 10, sprintf('and returns promptly (%.1f s)', $took));
cmp_ok(lsn_to_num(slot_info()->{confirmed}), '>=', lsn_to_num($reset_to), 'the slot was moved');
$node->safe_psql('postgres', 'SELECT cdc_kafka.start()');
ok(wait_streaming($node, timeout => 30), 'streaming after start()');
ok(wait_caught_up($node), 'caught up');
my %ids;
for my $r (@{ $kafka->consume('postgres.public.t') })
{
	my ($id) = $r->{key} =~ /"id":(\d+)/;
	$ids{$id}++ if defined $id;
}
is(scalar(grep { $_ >= 100 && $_ < 110 } keys %ids), 0, 'the changes before the reset LSN were not sent');
is(scalar(grep { $_ >= 200 && $_ < 210 } keys %ids), 10, 'the changes after it were');

# on a streaming worker: it lets go of the slot, which moves, and goes on
my $here = $node->safe_psql('postgres', 'SELECT pg_current_wal_insert_lsn()');
$t0 = time;
($ret, $out, $err) = $node->psql('postgres', "SELECT cdc_kafka.reset_offsets('$here')", timeout => 60);
is($ret, 0, 'reset_offsets() on a streaming worker succeeds') or diag($err);
cmp_ok(time - $t0, '<', 10, 'promptly');
ok(wait_streaming($node, timeout => 30), 'and the worker streams again');
$node->safe_psql('postgres', "INSERT INTO t VALUES (250, 'after the second reset')");
ok(wait_caught_up($node), 'caught up');
ok(grep({ ($_->{key} // '') =~ /"id":250\b/ } @{ $kafka->consume('postgres.public.t') }),
	'the change after it arrives');

# ---- the slot invalidated ------------------------------------------------------

$node->safe_psql('postgres', 'SELECT cdc_kafka.stop()');
ok(wait_state($node, 'stopped', timeout => 30), 'stopped again');
$node->safe_psql('postgres', "INSERT INTO t VALUES (300, 'lost with the slot')");
noise(40) for 1 .. 3;
$node->safe_psql('postgres', 'CHECKPOINT');
ok( poll_until(sub { $node->safe_psql('postgres', 'CHECKPOINT'); slot_info()->{wal_status} eq 'lost' },
		60, 'the slot to be invalidated'),
	'the stopped worker\'s slot is invalidated by max_slot_wal_keep_size');

my $pos = log_size($node);
$node->safe_psql('postgres', 'SELECT cdc_kafka.start()');
my $st = wait_state($node, 'slot_lost', timeout => 60);
ok($st, 'after start() the worker is in state slot_lost');
like($st->{detail} // '', qr/replication slot "cdc_kafka_postgres" was invalidated/, 'the detail says the slot was invalidated');
like($st->{detail} // '', qr/drop_slot\(\)/, 'and how to recover');
like($st->{last_error} // '', qr/invalidated/, 'last_error says it too');
ok(eval { $node->wait_for_log(qr/WARNING:.*replication slot "cdc_kafka_postgres" was invalidated/, $pos); 1 },
	'the log warns about it');

# look again a few times: no new slot, no log flood
for my $i (1 .. 3)
{
	my $q = q{SELECT state_change FROM pg_stat_activity WHERE backend_type = 'cdc_kafka worker'};
	my $b = $node->safe_psql('postgres', $q);
	$node->safe_psql('postgres', 'SELECT pg_reload_conf()');
	$node->poll_query_until('postgres', "SELECT ($q) > '$b'");
}
is($node->safe_psql('postgres', "SELECT string_agg(slot_name || ':' || coalesce(wal_status, ''), ',') FROM pg_replication_slots"),
	'cdc_kafka_postgres:lost', 'no new slot was created silently: only the lost one exists');
is(status($node)->{state}, 'slot_lost', 'still slot_lost');
is(log_count($node, qr/WARNING:.*was invalidated/, $pos), 1, 'the warning is logged once');

# recover: drop the slot, start
my $dropped = $node->safe_psql('postgres', 'SELECT cdc_kafka.drop_slot()');
is($dropped, 'cdc_kafka_postgres', 'drop_slot() drops the lost slot');
like(slurp_log_from($node, $pos), qr/replication slot "cdc_kafka_postgres" dropped by/, 'the drop is logged');
$node->safe_psql('postgres', 'SELECT cdc_kafka.start()');
ok(wait_streaming($node, timeout => 60), 'after drop_slot() and start() the worker streams');
is($node->safe_psql('postgres', "SELECT wal_status FROM pg_replication_slots WHERE slot_name = 'cdc_kafka_postgres'"),
	'reserved', 'on a new, valid slot');
$node->safe_psql('postgres', "INSERT INTO t VALUES (400, 'after recovery')");
ok(wait_caught_up($node), 'new changes are acknowledged');
%ids = ();
for my $r (@{ $kafka->consume('postgres.public.t') })
{
	my ($id) = $r->{key} =~ /"id":(\d+)/;
	$ids{$id}++ if defined $id && defined $r->{value};
}
ok($ids{400}, 'the change after recovery arrived');

$node->stop;
$kafka->stop;
done_testing();
