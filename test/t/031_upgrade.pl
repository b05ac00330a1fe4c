# 031_upgrade.pl - from extension version 1.0 to the current one under
# load: the library replaced and the server restarted, then ALTER EXTENSION
# cdc_kafka UPDATE, while pgbench writes and the worker streams.
#
# Release 1.0 is built from git (commit $RELEASE_1_0, where
# sql/cdc_kafka--1.0.sql was frozen) into a private copy of the PostgreSQL
# installation under test, and a server runs from that copy: CREATE
# EXTENSION gives 1.0 and the 1.0 worker streams.  Then, as a package
# upgrade does, the current build's library and extension files replace
# 1.0's on disk while the server runs, the server is restarted (pgbench's
# sessions end with it, a new pgbench starts), the current library streams
# with the extension's SQL objects still 1.0, and ALTER EXTENSION cdc_kafka
# UPDATE runs while changes are being streamed.  Checked: every committed
# change reached Kafka once at least, per key in commit order; records
# repeated are whole transactions re-sent after the restart from the slot's
# last saved position (at least once, README: What is guaranteed), none
# twice more, none because of the UPDATE; ALTER EXTENSION UPDATE before the
# restart fails harmlessly; the views work on both versions; status has the
# column 1.1 adds (on 17+ also true for a failover slot).
#
# The repository (with the history holding $RELEASE_1_0) is the one this
# file is in, or $CDC_SOURCE_DIR when the tests run in a copy of the tree
# without .git (test/pg/matrix.sh sets it; so must test/run-all.sh).
#
# test/t/031_upgrade.pl

use strict;
use warnings;
use FindBin;
use lib $FindBin::RealBin;

use File::Basename qw(dirname);
use File::Copy qw(copy);
use File::Path qw(make_path rmtree);
use IPC::Run;
use JSON::PP;
use PostgreSQL::Test::Cluster;
use PostgreSQL::Test::Utils;
use Test::More;
use Time::HiRes qw(time);
use CdcKafka;

# The commit whose sql/cdc_kafka--1.0.sql and library are release 1.0.
my $RELEASE_1_0 = '38dc311904751651a05ab1b9bd940eddd9be2956';

my @tables = qw(accounts orders events);
my $rows = 2000;
my $tmp = $PostgreSQL::Test::Utils::tmp_check;
my $json = JSON::PP->new->utf8->allow_nonref;

# Run a command; its output goes to $log.  Dies with the log's tail.
sub run_logged
{
	my ($what, $log, @cmd) = @_;
	my $ok = IPC::Run::run(@cmd, '>>', $log, '2>&1');
	return if $ok;
	my $out = PostgreSQL::Test::Utils::slurp_file($log);
	BAIL_OUT("$what failed:\n" . substr($out, -3000));
}

sub git_cmd
{
	my ($dir, @args) = @_;
	# the tree may belong to another user than the one running the tests
	return [ 'git', '-c', 'safe.directory=*', '-C', $dir, @args ];
}

# The repository holding release 1.0, or undef.
sub find_repository
{
	for my $dir (grep { defined && $_ ne '' } $ENV{CDC_SOURCE_DIR}, "$FindBin::RealBin/../..")
	{
		my ($top, $err) = ('', '');
		next unless IPC::Run::run(git_cmd($dir, 'rev-parse', '--show-toplevel'),
			'>', \$top, '2>', \$err);
		chomp $top;
		return $top
		  if IPC::Run::run(git_cmd($top, 'cat-file', '-e', "$RELEASE_1_0^{commit}"),
			'>', \$err, '2>', \$err);
	}
	return undef;
}

sub pg_config
{
	my ($bindir, $what) = @_;
	my $out = '';
	IPC::Run::run([ "$bindir/pg_config", "--$what" ], '>', \$out) or die "pg_config --$what";
	chomp $out;
	return $out;
}

# A private copy of the PostgreSQL installation under test ($CDC_PG_INSTALL,
# else the one whose pg_config is first in PATH, as make prove_installcheck
# sets it), laid out as the original so that its pg_config and server find
# their files relative to themselves: for Debian's, lib/postgresql/15,
# share/postgresql/15 and include/postgresql/15/server under $dest.
# Returns its install_path (the directory of bin/).
sub copy_installation
{
	my ($dest) = @_;
	my $bindir = $ENV{CDC_PG_INSTALL} ? "$ENV{CDC_PG_INSTALL}/bin" : do {
		my $out = '';
		IPC::Run::run([ 'pg_config', '--bindir' ], '>', \$out) or die 'pg_config --bindir';
		chomp $out;
		$out;
	};
	my @dirs = (dirname($bindir), map { pg_config($bindir, $_) } qw(pkglibdir sharedir includedir-server));
	my $root = $dirs[0];
	$root = dirname($root) while grep { index("$_/", "$root/") != 0 } @dirs;
	my @copied;
	for my $d (sort { length($a) <=> length($b) } @dirs)
	{
		next if grep { index("$d/", "$_/") == 0 } @copied;
		my $rel = substr($d, length($root));
		make_path(dirname("$dest$rel"));
		run_logged("copying $d", "$tmp/copy.log", [ 'cp', '-a', $d, "$dest$rel" ]);
		push @copied, $d;
	}
	return ($dest . substr(dirname($bindir), length($root)), $bindir);
}

# Replace a file as a package manager does: a new file renamed over the
# old one, never rewriting the file a running server has mapped.
sub replace_file
{
	my ($from, $to) = @_;
	copy($from, "$to.new") or die "copy $from: $!";
	chmod((stat $from)[2] & 07777, "$to.new");
	rename("$to.new", $to) or die "rename $to: $!";
}

# Every record of the topics, as { id => topic/key/op/lsn, tx, ts }.
sub read_records
{
	my ($kafka, @topics) = @_;
	my @recs;
	for my $topic (@topics)
	{
		$kafka->consume_each(
			$topic,
			sub {
				my ($r) = @_;
				my ($op, $lsn, $tx) = ('tombstone', '', '');
				if (defined $r->{value})
				{
					my $v = $json->decode(payload_part($r->{value}));
					($op, $lsn, $tx) = ($v->{op}, $v->{source}{lsn}, $v->{source}{txId});
				}
				push @recs, { id => join('|', $topic, $r->{key} // '', $op, $lsn), tx => $tx,
					ts => $r->{ts} };
			});
	}
	return \@recs;
}

# ---- release 1.0 in a copy of the installation --------------------------------

my $t_begin = time;
my $repo = find_repository();
unless ($repo)
{
	# a failure, not a skip: the upgrade would go untested unnoticed
	fail("a git repository with commit $RELEASE_1_0 (release 1.0): none in "
		  . ($ENV{CDC_SOURCE_DIR} // '(CDC_SOURCE_DIR unset)') . " or $FindBin::RealBin/../..; "
		  . 'set CDC_SOURCE_DIR to a clone of cdc_kafka with its history');
	done_testing();
	exit;
}

my ($install, $orig_bindir) = copy_installation("$tmp/pg_1.0");
my $bindir = "$install/bin";
my %copy = map { $_ => pg_config($bindir, $_) } qw(pkglibdir sharedir);
like($copy{sharedir}, qr{^\Q$tmp/pg_1.0/\E}, 'the copy of the installation finds its own files');
unlink("$copy{pkglibdir}/cdc_kafka.so", glob("$copy{sharedir}/extension/cdc_kafka*"));

# release 1.0 compiles while Kafka starts
my $src10 = "$tmp/cdc_kafka-1.0";
rmtree($src10);
make_path($src10);
my $build_log = "$tmp/build-1.0.log";
my @make = ('make', '-C', $src10, '-s', "PG_CONFIG=$bindir/pg_config");
my $build;
{
	# nothing of the make running the tests (its MAKEFLAGS: PG_CONFIG, ...)
	local %ENV = %ENV;
	delete @ENV{qw(MAKEFLAGS MAKELEVEL MFLAGS MAKEOVERRIDES)};
	run_logged('git archive of release 1.0', $build_log,
		git_cmd($repo, 'archive', '--format=tar', $RELEASE_1_0), '|', [ 'tar', '-x', '-C', $src10 ]);
	$build = IPC::Run::start([ @make, '-j2' ], '>>', $build_log, '2>&1');
}
my $kafka = CdcKafka::Cluster->start(nodes => 1, partitions => 1);
{
	local %ENV = %ENV;
	delete @ENV{qw(MAKEFLAGS MAKELEVEL MFLAGS MAKEOVERRIDES)};
	$build->finish or BAIL_OUT("building release 1.0 failed:\n"
		  . substr(PostgreSQL::Test::Utils::slurp_file($build_log), -3000));
	run_logged('installing release 1.0', $build_log, [ @make, 'install' ]);
}
ok(-f "$copy{sharedir}/extension/cdc_kafka--1.0.sql" && !-e "$copy{sharedir}/extension/cdc_kafka--1.0--1.1.sql",
	'release 1.0 built from git and installed into the copy');
note(sprintf('release 1.0 built into a copy of the installation in %.0f s', time - $t_begin));

my $node;
{
	local $ENV{CDC_PG_INSTALL} = $install;
	$node = new_node('upgrade', bootstrap => $kafka->bootstrap, log_statement => 'none');
}
my $version = sub {
	return $node->safe_psql('postgres', "SELECT extversion FROM pg_extension WHERE extname = 'cdc_kafka'");
};
is($version->(), '1.0', 'CREATE EXTENSION installs 1.0 and its worker streams');

# ---- streaming under load on 1.0 ------------------------------------------------

create_versioned_tables($node, \@tables);
fill_versioned_tables($node, \@tables, $rows, batch => 500);
my %load = (tables => \@tables, rows => $rows, clients => 2, jobs => 1, rate => 150);
my $p1 = start_pgbench($node, %load, time => 120);
ok(poll_until(sub { my $s = status($node); $s && $s->{records_sent} > 3 * $rows + 500 }, 60,
		'records of pgbench under 1.0'),
	'release 1.0 streams pgbench\'s changes');

# the current build's files over 1.0's, while the server runs
my %orig = (pkglibdir => pg_config($orig_bindir, 'pkglibdir'), sharedir => pg_config($orig_bindir, 'sharedir'));
replace_file("$orig{pkglibdir}/cdc_kafka.so", "$copy{pkglibdir}/cdc_kafka.so");
my @ext_files = glob("$orig{sharedir}/extension/cdc_kafka*");
replace_file($_, "$copy{sharedir}/extension/" . substr($_, rindex($_, '/') + 1)) for @ext_files;
my $default = $node->safe_psql('postgres',
	"SELECT default_version FROM pg_available_extensions WHERE name = 'cdc_kafka'");
isnt($default, '1.0', "the new files are in place (default version $default), the extension is still 1.0");
ok($node->safe_psql('postgres', "SELECT count(*) FROM pg_extension_update_paths('cdc_kafka') "
	  . "WHERE source = '1.0' AND target = '$default' AND path IS NOT NULL"),
	"an update path leads from 1.0 to $default");
my ($ret, $out, $err) = $node->psql('postgres', 'ALTER EXTENSION cdc_kafka UPDATE');
like($err, qr/could not find function "cdc_kafka_\w+" in file/,
	'ALTER EXTENSION UPDATE before the restart fails: the loaded library is still 1.0\'s');
is($version->(), '1.0', 'and it changed nothing');

# ---- restart with the new library, the SQL objects still 1.0 ------------------------

# between the two sessions: the old server is down, the new not started
$node->stop('fast');
my $t_down = time;
$node->start;
my ($rc1) = finish_pgbench($p1);
note("pgbench before the restart ended with exit code $rc1 (its sessions were ended by the restart)");
my $p2 = start_pgbench($node, %load, time => 10);
ok(wait_streaming($node), 'after the restart the new library streams');
is($version->(), '1.0', 'the extension\'s SQL objects are still 1.0');
my $lsn_restarted = $node->safe_psql('postgres', 'SELECT pg_current_wal_insert_lsn()');
ok(poll_until(
		sub {
			my $s = status($node);
			$s && defined $s->{confirmed_lsn}
			  && lsn_to_num($s->{confirmed_lsn}) >= lsn_to_num($lsn_restarted);
		},
		60, "confirmed past $lsn_restarted"),
	'the new library streams with 1.0\'s SQL objects (changes made after the restart acknowledged)');
ok($node->safe_psql('postgres', 'SELECT count(*) > 0 FROM cdc_kafka.table_stats')
	  && $node->safe_psql('postgres', 'SELECT count(*) >= 0 FROM cdc_kafka.snapshot_progress'),
	'1.0\'s views work with the new library');
($ret, $out, $err) = $node->psql('postgres', 'SELECT slot_failover FROM cdc_kafka.status');
like($err, qr/column "slot_failover" does not exist/, 'status has no slot_failover column before the update');

# ---- ALTER EXTENSION UPDATE while streaming -------------------------------------------

my $sent_before = status($node)->{records_sent};
my $t_alter = time;
$node->safe_psql('postgres', 'ALTER EXTENSION cdc_kafka UPDATE');
my $t_altered = time;
is($version->(), $default, "ALTER EXTENSION cdc_kafka UPDATE: version $default");
my $st = status($node);
is($st->{state}, 'streaming', 'the worker streams on through the update');
ok(exists $st->{slot_failover} && defined $st->{slot_failover} && !$st->{slot_failover},
	'status has slot_failover: false (the slot is not a failover slot)');
is( $node->safe_psql(
		'postgres',
		"SET ROLE pg_monitor; SELECT count(*) FROM cdc_kafka.status WHERE slot_failover IS NOT NULL"),
	'1',
	'pg_monitor reads the new column');
ok(poll_until(sub { my $s = status($node); $s && $s->{records_sent} > $sent_before + 500 }, 60,
		'records after the update'),
	'records keep flowing after the update');

my ($rc2, undef, $err2) = finish_pgbench($p2);
is($rc2, 0, 'pgbench ran through the update') or diag($err2);
ok(wait_caught_up($node, timeout => 120), 'everything committed is acknowledged by Kafka');

# ---- nothing lost, duplicates only where at-least-once allows them -------------------------

my ($expected, $changes) = expected_versions($node, \@tables);
my $sum = verify_versioned(kafka => $kafka, prefix => 'postgres', tables => \@tables,
	expected => $expected);
is($sum->{missing}, 0, "every committed change arrived ($sum->{expected} expected)");
is($sum->{unexpected}, 0, 'no change that was not committed');
is($sum->{out_of_order}, 0, 'each key\'s changes in commit order');
is($sum->{bad_before}, 0, 'update before images are the previous versions');

# Records repeated: the transactions not yet confirmed in the slot when the
# fast shutdown ended the worker (records in flight, or acknowledged since
# the slot was last saved), sent again by the next session from the slot's
# position.  So each record at most twice, the later copy produced after
# the restart and before the update ended, and every transaction with a
# record sent by both sessions sent whole by the second (the slot is
# confirmed at transaction ends: the first may have sent part of it).
my $recs = read_records($kafka, (map { "postgres.public.$_" } @tables), 'postgres.public.graveyard');
my $down_ms = $t_down * 1000;
my (%copies, %tx_resent, %tx_partial);
push @{ $copies{ $_->{id} } }, $_ for @$recs;
my ($repeated, $over_twice, $late, $first_resent) = (0, 0, 0, undef);
for my $id (keys %copies)
{
	my @c = sort { $a->{ts} <=> $b->{ts} } @{ $copies{$id} };
	my $tx = $c[0]{tx};    # '' for a tombstone (no source block)
	$tx_partial{$tx}++ if $tx ne '' && $c[-1]{ts} < $down_ms;    # not sent again
	next if @c == 1;
	$repeated++;
	$over_twice++ if @c > 2;
	$tx_resent{$tx} = 1 if $tx ne '';
	$late++ if $c[0]{ts} >= $down_ms || $c[-1]{ts} < $down_ms || $c[-1]{ts} > $t_altered * 1000;
	$first_resent = $c[0]{ts} if !defined $first_resent || $c[0]{ts} < $first_resent;
}
my $partial = grep { $tx_partial{$_} } keys %tx_resent;
note(sprintf('%d records, %d sent twice (%d transactions), %d duplicate changes counted by verify_versioned',
		scalar(@$recs), $repeated, scalar(keys %tx_resent), $sum->{duplicates}));
is($over_twice, 0, 'no record sent more than twice');
is($late, 0, 'every repeated record: once before the restart, once after it and before the update ended');
is($partial, 0, 'a transaction sent again is sent whole (from the slot\'s position)');
# The slot's position on disk is at most cdc_kafka.slot_save_interval
# (10 s) old, and before PostgreSQL 17 a shutdown does not write a newer
# one: what was first sent within that window of the shutdown (and the
# acknowledgements it waited for) may be sent again, nothing older.
my $window = defined $first_resent ? ($down_ms - $first_resent) / 1000 : 0;
note(sprintf('the records sent again were first sent in the last %.1f s before the shutdown', $window));
cmp_ok($window, '<', 15, 'nothing sent again from before the slot\'s last saved position (10 s + 5 s for acknowledgements)');

# ---- PostgreSQL 17+: the new column follows cdc_kafka.slot_failover -----------------------------

SKIP:
{
	skip 'failover slots need PostgreSQL 17', 1
	  if $node->safe_psql('postgres', 'SHOW server_version_num') < 170000;
	$node->safe_psql('postgres', 'ALTER SYSTEM SET cdc_kafka.slot_failover = on; SELECT pg_reload_conf()');
	ok(poll_until(sub { my $s = status($node); $s && $s->{slot_failover} }, 60, 'slot_failover true'),
		'with cdc_kafka.slot_failover on, status shows the slot as a failover slot');
}

note(sprintf('031_upgrade took %.0f s', time - $t_begin));

# the server runs from the copy: stopped before the copy goes
$node->stop;
rmtree([ "$tmp/pg_1.0", $src10 ]) if PostgreSQL::Test::Utils::all_tests_passing();
done_testing();
