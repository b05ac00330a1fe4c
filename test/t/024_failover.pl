# 024_failover.pl - the worker's slot survives a failover (PostgreSQL 17+).
#
# A primary streams into a real broker with cdc_kafka.slot_failover, a
# physical standby keeps a synchronized copy of the slot
# (sync_replication_slots), the primary lists the standby's slot in
# synchronized_standby_slots.  Under a pgbench workload the primary is
# stopped with "immediate" and the standby promoted: its worker continues
# from the synchronized position, the same slot (not a new one, no new
# snapshot).  Every change committed on the new primary's tables must be in
# Kafka, nothing that is not (the worker sends a failover slot's changes only
# once the standby has them: while the standby is stopped it sends nothing);
# duplicates are allowed and counted.  Before
# promotion the standby's status says it waits for promotion, and no worker
# runs there.  Turning slot_failover on for the existing slot alters it.
#
# PostgreSQL::Test::Cluster of Debian's 15 runs the 17/18 servers through
# install_path (see test/pg/README.md).  Run on 18.6 and 17.11 as root with:
#
#   export CDC_PG_CACHE=/var/cache/cdc-failover/pg V=18.6.0 T=/var/tmp/cdc-failover-pg18
#   BIN=$(bash test/pg/fetch.sh $V) R=$CDC_PG_CACHE/$V
#   rm -rf $T && mkdir -p $T && git ls-files -z | xargs -0 cp --parents -t $T && cd $T
#   make -s PG_CONFIG=$BIN/pg_config WERROR=1 && make -s PG_CONFIG=$BIN/pg_config WERROR=1 install
#   chown -R postgres $T && runuser -u postgres -- env CDC_PG_INSTALL=$R \
#     PG_REGRESS=$R/lib/pgxs/src/test/regress/pg_regress TESTDIR=$T PATH=$R/bin:$PATH \
#     prove -v -I /usr/lib/postgresql/15/lib/pgxs/src/test/perl -I test/t test/t/024_failover.pl
#
# (V=17.11.0 T=/var/tmp/cdc-failover-pg17 for 17; about 50 s each here.)
#
# On PostgreSQL 15 and 16 it skips (no failover slots there).
#
# test/t/024_failover.pl

use strict;
use warnings;
use FindBin;
use lib $FindBin::RealBin;

use PostgreSQL::Test::Cluster;
use PostgreSQL::Test::Utils;
use Test::More;
use CdcKafka;

my $probe = PostgreSQL::Test::Cluster->new('probe', install_paths());
plan skip_all => 'failover slots need PostgreSQL 17 or later; the server under test is '
  . $probe->pg_version
  if $probe->pg_version < 17;

my $rows = 2000;
my $slot = 'cdc_kafka_postgres';
my @tables = qw(fo_a fo_b fo_c);

my $kafka = CdcKafka::Cluster->start(nodes => 1, partitions => 1);
my $primary = new_node(
	'primary',
	bootstrap => $kafka->bootstrap,
	log_statement => 'none',
	conf => "cdc_kafka.slot_save_interval = '1s'\n");

sub slot_row
{
	my ($node, $cols) = @_;
	return $node->safe_psql('postgres',
		"SELECT $cols FROM pg_replication_slots WHERE slot_name = '$slot'");
}

is(slot_row($primary, 'failover'), 'f', 'slot_failover off: the slot is not a failover slot');

# ---- the standby ----------------------------------------------------------------

$primary->safe_psql('postgres', "SELECT pg_create_physical_replication_slot('sb1_slot', true)");
$primary->backup('b1');
my $standby = PostgreSQL::Test::Cluster->new('standby', install_paths());
$standby->init_from_backup($primary, 'b1', has_streaming => 1);
push @CdcKafka::nodes, $standby;
my $conninfo = 'host=' . $primary->host . ' port=' . $primary->port . ' dbname=postgres';
$standby->append_conf(
	'postgresql.conf', qq{
# the README's Failover section, standby side
primary_conninfo = '$conninfo application_name=standby'
primary_slot_name = 'sb1_slot'
sync_replication_slots = on
hot_standby_feedback = on
# it has no standby of its own: after promotion nothing may hold its worker back
synchronized_standby_slots = ''
});
$standby->start;
$primary->wait_for_catchup('standby');

my $st = wait_state($standby, 'waiting', timeout => 60);
ok($st, 'the standby shows its worker waiting');
like($st ? $st->{detail} : '', qr/in recovery.*after promotion/,
	'its status says it streams after promotion');
is(worker_pid($standby), undef, 'no worker runs on the standby');
ok(log_count($standby, qr/cdc_kafka waits for the end of recovery/) == 1,
	'the standby logs the wait once');

# ---- failover on: the existing slot is altered ---------------------------------------

my $pos = log_size($primary);
$primary->append_conf('postgresql.conf',
	"cdc_kafka.slot_failover = on\nsynchronized_standby_slots = 'sb1_slot'\n");
$standby->append_conf('postgresql.conf', "cdc_kafka.slot_failover = on\n");
$primary->reload;
$standby->reload;
ok(poll_until(sub { slot_row($primary, 'failover') eq 't' }, 60, 'slot marked failover'),
	'slot_failover on: the existing slot becomes a failover slot');
ok(eval { $primary->wait_for_log(qr/cdc_kafka set replication slot "$slot" to failover/, $pos); 1 },
	'the worker logs the change');
$st = wait_state($primary, 'streaming', timeout => 60);
like($st ? $st->{detail} : '', qr/streaming failover slot/, 'the status names a failover slot');

# ---- load, the synchronized slot, the crash ----------------------------------------

create_versioned_tables($primary, \@tables);
fill_versioned_tables($primary, \@tables, $rows, batch => 500);
my $pg = start_pgbench(
	$primary,
	tables => \@tables,
	rows => $rows,
	clients => 4,
	jobs => 2,
	time => 90,
	rate => 300);

ok( poll_until(
		sub {
			$standby->safe_psql('postgres',
				"SELECT count(*) FROM pg_replication_slots WHERE slot_name = '$slot' AND synced AND NOT temporary"
			) eq '1';
		},
		120,
		'the standby has a synchronized copy of the slot'),
	'the standby keeps a synchronized copy of the slot');
my $synced0 = lsn_to_num(slot_row($standby, 'confirmed_flush_lsn'));
ok(poll_until(sub { lsn_to_num(slot_row($standby, 'confirmed_flush_lsn')) > $synced0 + 65536 }, 120,
		'the synchronized copy advances'),
	'the synchronized copy advances under load');

# The standby down: a failover slot's changes wait for it (synchronized_standby_slots).
$pos = log_size($primary);
$standby->stop('fast');
ok( eval {
		$primary->wait_for_log(qr/cdc_kafka waits for the standbys of synchronized_standby_slots/, $pos);
		1;
	},
	'with the standby down the worker waits for it, and says so');
my $held = status($primary)->{records_sent};
sleep 3;
is(status($primary)->{records_sent}, $held, 'and sends nothing the standby lacks meanwhile');
$standby->start;
ok(poll_until(sub { status($primary)->{records_sent} > $held }, 60, 'sending again'),
	'the standby back, the worker sends again');

my $sent = status($primary)->{records_sent};
poll_until(sub { status($primary)->{records_sent} >= $sent + 5000 }, 120, '5000 more records sent');
$st = status($primary);
note("crash at $st->{records_sent} records sent, $st->{inflight_records} in flight, confirmed "
	  . "$st->{confirmed_lsn}; standby's copy at " . slot_row($standby, 'confirmed_flush_lsn'));
$primary->stop('immediate');
my ($rc) = finish_pgbench($pg);
note("pgbench on the old primary: exit $rc (expected: the server went away)");

# ---- promotion -----------------------------------------------------------------------

my $synced_at = slot_row($standby, 'confirmed_flush_lsn');
$pos = log_size($standby);
$standby->promote;
$st = wait_streaming($standby, timeout => 120);
ok($st, 'after promotion the worker streams on the new primary');
like($st ? $st->{detail} : '', qr/streaming failover slot "$slot"/, 'from the same slot name');
my $log = slurp_log_from($standby, $pos);
unlike($log, qr/created replication slot|initial snapshot|dropped from outside/,
	'the synchronized slot is used as is: no new slot, no snapshot, not taken for lost');
note("new primary resumes from the synchronized position $synced_at");

($rc, my $out, my $err) = run_pgbench($standby, tables => \@tables, rows => $rows, clients => 4,
	jobs => 2, transactions => 500);
is($rc, 0, 'changes on the new primary are written') or diag($err);
ok(wait_caught_up($standby, timeout => 300), 'the worker on the new primary caught up');

my ($exp, $changes) = expected_versions($standby, \@tables);
my $sum = verify_versioned(
	kafka => $kafka,
	prefix => 'postgres',
	tables => \@tables,
	expected => $exp);
is($sum->{missing}, 0, "every change committed on the new primary is in Kafka ($changes changes)");
is($sum->{unexpected}, 0, 'nothing in Kafka that the new primary did not commit');
is($sum->{out_of_order}, 0, "each key's changes in commit order (first deliveries)");
diag("failover: $changes changes, $sum->{records} records, $sum->{duplicates} duplicates");

done_testing();
