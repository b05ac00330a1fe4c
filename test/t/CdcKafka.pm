# CdcKafka.pm - helpers for the TAP suites of cdc_kafka (test/t/*.pl).
#
# The suites check the streaming worker end to end: a real PostgreSQL 15
# server (PostgreSQL::Test::Cluster) with cdc_kafka preloaded, a real Kafka
# cluster (test/kafka/kafka.sh), and what reaches the topics read back with
# kcat.  This module holds what every suite needs:
#
#   Kafka clusters   CdcKafka::Cluster->start(nodes => 1|3, partitions => N)
#                    on a random free port base, stopped at exit; stop, kill,
#                    pause (SIGSTOP) and restart single nodes; create topics;
#                    read topics (read_committed or read_uncommitted).
#   PostgreSQL       new_node(): a server configured as a user would
#                    configure it (shared_preload_libraries,
#                    output_plugin_libraries, wal_level, cdc_kafka.*), with
#                    CREATE EXTENSION and a wait for state 'streaming'.
#                    status(), wait_state(), wait_caught_up(), worker_pid(),
#                    proc_memory() and an RSS sampler.
#   Records          decode_record(): key and value payloads of a record,
#                    with or without JsonConverter schemas.
#   Partitioning     murmur2() as Kafka's Java producer computes it, checked
#                    against values printed by kafka-clients' Utils.murmur2.
#   Workload         a "versioned rows" workload whose every change can be
#                    identified: each row carries a version that every
#                    change increments, deletes leave the last version in a
#                    graveyard table, so the expected stream of each key
#                    (c1, u2 ... uN [, dN, tombstone]) follows from the
#                    tables' final state.  verify_versioned() checks that
#                    every expected change arrived, in commit order per key,
#                    on the partition murmur2 gives, and counts duplicates.
#                    start_pgbench_loop() keeps the workload going through
#                    server crashes and restarts.
#
# Synchronisation is always by polling a condition with a timeout (the
# status view, the slot, topic end offsets, the server log), never by a
# fixed sleep.
#
# test/t/CdcKafka.pm

package CdcKafka;

use strict;
use warnings;

use Carp;
use Cwd qw(abs_path);
use Encode qw(encode_utf8);
use File::Basename qw(dirname basename);
use File::Path qw(rmtree);
use IPC::Run;
use JSON::PP;
use POSIX ();
use Time::HiRes qw(usleep time);

use PostgreSQL::Test::Cluster;
use PostgreSQL::Test::Utils;
use Test::More;

use Exporter 'import';
our @EXPORT = qw(
  new_node status wait_state wait_streaming wait_server wait_caught_up worker_pid
  poll_until lsn_to_num proc_memory start_rss_sampler stop_rss_sampler
  decode_record payload_part murmur2 murmur2_partition check_partitioning
  create_versioned_tables fill_versioned_tables murmur2_selftest
  run_pgbench start_pgbench finish_pgbench start_pgbench_loop stop_pgbench_loop
  expected_versions verify_versioned log_count log_size
  slurp_log_from kafka_script install_paths);

# JSON of raw bytes (UTF-8).  Cpanel::JSON::XS when it is installed (the
# big suites decode hundreds of thousands of records), JSON::PP otherwise.
sub json_parser
{
	my $xs = eval { require Cpanel::JSON::XS; Cpanel::JSON::XS->new->utf8->allow_nonref };
	return $xs // JSON::PP->new->utf8->allow_nonref;
}
my $JSON = json_parser();

# servers made by new_node, stopped before the Kafka clusters at exit
our @nodes;

# Where test/kafka/kafka.sh is: next to this file's directory.
sub kafka_script
{
	return abs_path(dirname(__FILE__) . '/../kafka/kafka.sh');
}

# ---------------------------------------------------------------------------
# small utilities
# ---------------------------------------------------------------------------

# "16/B374D848" -> number (fits in a Perl integer on 64-bit builds)
sub lsn_to_num
{
	my ($lsn) = @_;
	return undef unless defined $lsn && $lsn =~ m{^([0-9A-Fa-f]+)/([0-9A-Fa-f]+)$};
	return hex($1) * 4294967296 + hex($2);
}

# poll_until(sub { ... }, timeout_s, what): call the sub every 0.2 s until
# it returns true; returns its last value, or 0 (with a diag) on timeout.
sub poll_until
{
	my ($check, $timeout, $what) = @_;
	$timeout //= $PostgreSQL::Test::Utils::timeout_default;
	my $deadline = time + $timeout;
	while (1)
	{
		my $r = $check->();
		return $r if $r;
		if (time >= $deadline)
		{
			diag("timed out after $timeout s waiting for: " . ($what // 'condition'));
			return 0;
		}
		usleep(200_000);
	}
}

# Run a command, return (exit code, stdout, stderr).
sub run_cmd
{
	my ($cmd, %opt) = @_;
	my ($out, $err) = ('', '');
	my @extra;
	push @extra, IPC::Run::timeout($opt{timeout}) if $opt{timeout};
	my $ok = eval {
		IPC::Run::run($cmd, '<', \undef, '>', \$out, '2>', \$err, @extra);
		1;
	};
	return (-1, $out, $err . ($@ // '')) unless $ok;
	return ($? >> 8, $out, $err);
}

# ---------------------------------------------------------------------------
# server log
# ---------------------------------------------------------------------------

sub log_size
{
	my ($node) = @_;
	return -s $node->logfile // 0;
}

sub slurp_log_from
{
	my ($node, $offset) = @_;
	return PostgreSQL::Test::Utils::slurp_file($node->logfile, $offset // 0);
}

# Number of log lines (from $offset) matching $re.
sub log_count
{
	my ($node, $re, $offset) = @_;
	my $n = 0;
	for my $line (split /\n/, slurp_log_from($node, $offset))
	{
		$n++ if $line =~ $re;
	}
	return $n;
}

# ---------------------------------------------------------------------------
# PostgreSQL nodes with cdc_kafka
# ---------------------------------------------------------------------------

# Cluster->new's arguments that select the installation under test.
sub install_paths
{
	return $ENV{CDC_PG_INSTALL} ? (install_path => $ENV{CDC_PG_INSTALL}) : ();
}

# new_node(name, bootstrap => 'h:p,...', %options)
#
#   databases          cdc_kafka.databases (default 'postgres')
#   conf               extra postgresql.conf lines
#   plugin_allowed     put cdc_kafka in output_plugin_libraries (default 1)
#   log_statement      (default 'ddl'; the big workloads would flood the log)
#   create_extension   CREATE EXTENSION cdc_kafka in 'postgres' (default 1)
#   start              start the server (default 1)
#   wait               wait for state 'streaming' (default = create_extension)
#
# The server is the one PG_CONFIG installed into, or, when CDC_PG_INSTALL
# names another installation (test/run-all.sh's matrix), that one: Cluster.pm
# runs other versions through install_path.
sub new_node
{
	my ($name, %opt) = @_;
	my $node = PostgreSQL::Test::Cluster->new($name, install_paths());
	my $databases = $opt{databases} // 'postgres';
	my $plugins =
	  ($opt{plugin_allowed} // 1)
	  ? 'pgoutput, test_decoding, cdc_kafka'
	  : 'pgoutput, test_decoding';
	my $bootstrap = $opt{bootstrap} // '';
	my $log_statement = $opt{log_statement} // 'ddl';

	$node->init(allows_streaming => 'logical');
	push @nodes, $node;
	$node->append_conf(
		'postgresql.conf', qq{
# cdc_kafka, as README tells a user to set it up
shared_preload_libraries = 'cdc_kafka'
output_plugin_libraries = '$plugins'
wal_level = logical
cdc_kafka.bootstrap_servers = '$bootstrap'
cdc_kafka.databases = '$databases'

# room for the workloads (Cluster.pm's defaults are tiny)
shared_buffers = 128MB
max_connections = 40
max_wal_size = 1GB
max_worker_processes = 16
max_replication_slots = 10
log_statement = '$log_statement'
log_min_messages = warning
});
	$node->append_conf('postgresql.conf', $opt{conf}) if $opt{conf};
	return $node unless $opt{start} // 1;
	$node->start;
	if ($opt{create_extension} // 1)
	{
		$node->safe_psql('postgres', 'CREATE EXTENSION cdc_kafka');
		if ($opt{wait} // 1)
		{
			wait_streaming($node)
			  or BAIL_OUT("worker of node $name did not reach state streaming");
		}
	}
	return $node;
}

# The status row of the worker of $db (default 'postgres') as a hash, read
# in $db (the view lives in the extension's schema), or undef.
sub status
{
	my ($node, $db) = @_;
	$db //= 'postgres';
	# psql dies (a broken pipe) when a restarting server hangs up first
	my ($ret, $out, $err) = eval {
		$node->psql($db, "SELECT row_to_json(s) FROM cdc_kafka.status s WHERE database = current_database()");
	};
	return undef if !defined $ret || $ret != 0 || $out eq '';
	return $JSON->decode($out);
}

# Wait until the worker is in one of the states (a name or a regexp).
sub wait_state
{
	my ($node, $state, %opt) = @_;
	my $db = $opt{db} // 'postgres';
	my $re = ref $state ? $state : qr/^\Q$state\E$/;
	my $last;
	my $ok = poll_until(
		sub {
			$last = status($node, $db);
			return $last && $last->{state} =~ $re;
		},
		$opt{timeout} // 120,
		"worker of $db in state $state");
	diag('last status: ' . ($last ? encode_json($last) : 'none')) unless $ok;
	return $ok ? $last : undef;
}

# Wait until the server answers queries again (after a crash or a restart);
# unlike poll_query_until, a connection the server drops is no error.
sub wait_server
{
	my ($node, %opt) = @_;
	return poll_until(sub { eval { $node->safe_psql($opt{db} // 'postgres', 'SELECT 1') } },
		$opt{timeout} // 120, 'the server answering');
}

sub wait_streaming
{
	my ($node, %opt) = @_;
	return wait_state($node, 'streaming', %opt);
}

# The pid of the worker of $db, from pg_stat_activity.
sub worker_pid
{
	my ($node, $db) = @_;
	$db //= 'postgres';
	my $pid = $node->safe_psql('postgres',
		"SELECT pid FROM pg_stat_activity WHERE backend_type = 'cdc_kafka worker' AND datname = '$db'");
	return $pid eq '' ? undef : $pid;
}

# Wait until everything written so far was acknowledged by Kafka: the slot
# is confirmed (only behind acknowledgements) up to the WAL insert position
# taken now, and nothing is in flight.  Returns the status, or undef.
sub wait_caught_up
{
	my ($node, %opt) = @_;
	my $db = $opt{db} // 'postgres';
	my $target = $node->safe_psql($db, 'SELECT pg_current_wal_insert_lsn()');
	my $want = lsn_to_num($target);
	my $last;
	my $ok = poll_until(
		sub {
			$last = status($node, $db);
			return 0 unless $last && defined $last->{confirmed_lsn};
			return lsn_to_num($last->{confirmed_lsn}) >= $want
			  && $last->{inflight_records} == 0;
		},
		$opt{timeout} // 300,
		"worker of $db confirmed up to $target");
	diag('last status: ' . ($last ? encode_json($last) : 'none')) unless $ok;
	return $ok ? $last : undef;
}

# Memory figures of a process from /proc/<pid>/status, in kB.
sub proc_memory
{
	my ($pid) = @_;
	my %m;
	open(my $fh, '<', "/proc/$pid/status") or return undef;
	while (<$fh>)
	{
		$m{$1} = $2 if /^(VmRSS|VmHWM|RssAnon|RssFile|RssShmem|VmSize):\s+(\d+) kB/;
	}
	close $fh;
	return \%m;
}

# A child process that samples a pid's memory every $interval seconds into
# a file until stopped (or the process is gone).
sub start_rss_sampler
{
	my ($pid, %opt) = @_;
	my $interval = $opt{interval} // 0.2;
	my $file = "$PostgreSQL::Test::Utils::tmp_check/rss_${pid}_" . int(time * 1000) . '.txt';
	my $child = fork();
	croak "fork: $!" unless defined $child;
	if ($child == 0)
	{
		open(my $out, '>', $file) or POSIX::_exit(1);
		$out->autoflush(1);
		while (1)
		{
			my $m = proc_memory($pid);
			last unless $m && defined $m->{VmRSS};
			printf $out "%.3f %d %d %d %d\n", time, $m->{VmRSS}, $m->{RssAnon} // 0,
			  $m->{VmHWM}, $m->{RssShmem} // 0;
			usleep(int($interval * 1_000_000));
		}
		close $out;
		POSIX::_exit(0);    # never run the parent's END blocks
	}
	return { child => $child, file => $file, pid => $pid };
}

# Stop the sampler; returns { samples, max_rss, max_anon, max_hwm,
# first_anon, last_anon, series => [[t, rss, anon, hwm], ...] }.
sub stop_rss_sampler
{
	my ($s) = @_;
	kill 'TERM', $s->{child};
	waitpid($s->{child}, 0);
	my %r = (samples => 0, max_rss => 0, max_anon => 0, max_hwm => 0, series => []);
	open(my $fh, '<', $s->{file}) or return \%r;
	while (<$fh>)
	{
		my ($t, $rss, $anon, $hwm) = split;
		next unless defined $hwm;
		$r{samples}++;
		$r{first_anon} //= $anon;
		$r{first_rss} //= $rss;
		$r{last_anon} = $anon;
		$r{max_rss} = $rss if $rss > $r{max_rss};
		$r{max_anon} = $anon if $anon > $r{max_anon};
		$r{max_hwm} = $hwm if $hwm > $r{max_hwm};
		push @{ $r{series} }, [ $t, $rss, $anon, $hwm ];
	}
	close $fh;
	unlink $s->{file};
	return \%r;
}

# ---------------------------------------------------------------------------
# records
# ---------------------------------------------------------------------------

# The payload part of a JsonConverter document, as text: with schemas on
# it is {"schema":...,"payload":P} and P is returned; with schemas off the
# document is the payload.  The schema is written first and holds no
# "payload" member unless a column is named so (none in these suites).
sub payload_part
{
	my ($raw) = @_;
	return undef unless defined $raw;
	if (substr($raw, 0, 10) eq '{"schema":')
	{
		my $i = index($raw, '},"payload":');
		croak "no payload in document: " . substr($raw, 0, 200) if $i < 0;
		return substr($raw, $i + 12, length($raw) - $i - 13);
	}
	return $raw;
}

# Decode key and value of a record (as returned by Cluster::consume).
# Adds: key_payload, value_payload (undef for a tombstone), op, before, after.
sub decode_record
{
	my ($r) = @_;
	$r->{key_payload} = defined $r->{key} ? $JSON->decode(payload_part($r->{key})) : undef;
	if (defined $r->{value})
	{
		my $v = $JSON->decode(payload_part($r->{value}));
		$r->{value_payload} = $v;
		if (ref $v eq 'HASH')
		{
			$r->{op} = $v->{op};
			$r->{before} = $v->{before};
			$r->{after} = $v->{after};
		}
	}
	else
	{
		$r->{value_payload} = undef;
		$r->{op} = 'tombstone';
	}
	return $r;
}

# ---------------------------------------------------------------------------
# Kafka's murmur2 partitioner (org.apache.kafka.common.utils.Utils.murmur2,
# toPositive, % numPartitions), over the raw key bytes, in 32-bit unsigned
# arithmetic.
# ---------------------------------------------------------------------------

# (a * b) mod 2^32 without leaving exact integer arithmetic
sub _mul32
{
	my ($a, $b) = @_;
	return (($a * ($b & 0xffff)) + ((($a * ($b >> 16)) & 0xffff) << 16)) & 0xffffffff;
}

# murmur2 of a byte string, as Java's signed int.
sub murmur2
{
	my ($data) = @_;
	my $m = 0x5bd1e995;
	my $len = length($data);
	my $h = (0x9747b28c ^ $len) & 0xffffffff;
	my $words = $len >> 2;

	for my $k (unpack("V$words", $data))
	{
		$k = _mul32($k, $m);
		$k ^= $k >> 24;
		$k = _mul32($k, $m);
		$h = _mul32($h, $m) ^ $k;
	}
	my $tail = $len & ~3;
	my $rest = $len & 3;
	$h ^= ord(substr($data, $tail + 2, 1)) << 16 if $rest >= 3;
	$h ^= ord(substr($data, $tail + 1, 1)) << 8 if $rest >= 2;
	if ($rest >= 1)
	{
		$h ^= ord(substr($data, $tail, 1));
		$h = _mul32($h, $m);
	}
	$h ^= $h >> 13;
	$h = _mul32($h, $m);
	$h ^= $h >> 15;
	return $h >= 0x80000000 ? $h - 4294967296 : $h;
}

# The partition Kafka's Java producer (and so Debezium) picks for a key.
sub murmur2_partition
{
	my ($key, $partitions) = @_;
	return (murmur2($key) & 0x7fffffff) % $partitions;
}

# Values printed by Utils.murmur2() of kafka-clients (see also
# test/kafka/rdkafka_smoke.c); murmur2_selftest() checks them.
my @MURMUR2_VECTORS = (
	[ '', 275646681 ],
	[ 'a', -1563381124 ],
	[ 'ab', 316155434 ],
	[ 'abc', 479470107 ],
	[ 'abcd', -1323649548 ],
	[ 'key-0', 29210041 ],
	[ 'key-42', -187086521 ],
	[ 'appdb.public.customers', 1933311926 ],
	[ 'The quick brown fox jumps over the lazy dog', 495243318 ],
	[ '21', -973932308 ],
	[ 'foobar', -790332482 ],
	[ 'a-little-bit-long-string', -985981536 ],
	[ 'a-little-bit-longer-string', -1486304829 ],
	[ 'lkjh234lh9fiuh90y23oiuhsafujhadof229phr9h19h89h8', -58897971 ],
);

sub murmur2_selftest
{
	my @bad = grep { murmur2($_->[0]) != $_->[1] } @MURMUR2_VECTORS;
	is(scalar(@bad), 0, 'murmur2 in Perl gives the values of Java\'s Utils.murmur2')
	  or diag(join("\n", map { "\"$_->[0]\": got " . murmur2($_->[0]) . ", Java $_->[1]" } @bad));
	return !@bad;
}

# Check that every keyed record sits on its murmur2 partition; returns
# (checked, misplaced, example).
sub check_partitioning
{
	my ($records, $partitions) = @_;
	my ($checked, $misplaced, $example) = (0, 0, undef);
	for my $r (@$records)
	{
		next unless defined $r->{key};
		$checked++;
		my $want = murmur2_partition($r->{key}, $partitions);
		if ($want != $r->{partition})
		{
			$misplaced++;
			$example //= "key $r->{key} on partition $r->{partition}, murmur2 says $want";
		}
	}
	return ($checked, $misplaced, $example);
}

# ---------------------------------------------------------------------------
# the versioned-rows workload
# ---------------------------------------------------------------------------

# Tables (id bigint primary key, ver int, pad text) with REPLICA IDENTITY
# FULL (a delete then carries the last version), and the graveyard where a
# delete leaves (table, id, last version) in the same transaction.
sub create_versioned_tables
{
	my ($node, $tables, %opt) = @_;
	my $sql = '';
	for my $t (@$tables)
	{
		$sql .= "CREATE TABLE $t (id bigint PRIMARY KEY, ver int NOT NULL, pad text);\n"
		  . "ALTER TABLE $t REPLICA IDENTITY FULL;\n";
	}
	my $g = $opt{graveyard} // 'graveyard';
	$sql .= "CREATE TABLE IF NOT EXISTS $g (tbl text, id bigint, ver int NOT NULL, PRIMARY KEY (tbl, id));\n";
	$sql .= "CREATE SEQUENCE IF NOT EXISTS new_ids START 100000001;\n";
	$node->safe_psql($opt{db} // 'postgres', $sql);
}

# A pgbench script over three versioned tables: each transaction touches
# each table at most once, in the same order (no deadlocks), updating or
# deleting a random row and sometimes inserting a new one.
sub pgbench_script
{
	my ($t1, $t2, $t3, $rows, $g) = @_;
	return <<"EOS";
\\set a random(1, $rows)
\\set b random(1, $rows)
\\set c random(1, $rows)
\\set r random(1, 100)
BEGIN;
UPDATE $t1 SET ver = ver + 1, pad = md5(:r::text) WHERE id = :a;
\\if :r <= 30
INSERT INTO $t1 (id, ver, pad) VALUES (nextval('new_ids'), 1, 'new');
\\endif
\\if :r > 92
WITH d AS (DELETE FROM $t2 WHERE id = :b RETURNING id, ver) INSERT INTO $g SELECT '$t2', id, ver FROM d;
\\else
UPDATE $t2 SET ver = ver + 1 WHERE id = :b;
\\endif
\\if :r <= 8
WITH d AS (DELETE FROM $t3 WHERE id = :c RETURNING id, ver) INSERT INTO $g SELECT '$t3', id, ver FROM d;
\\else
UPDATE $t3 SET ver = ver + 1, pad = repeat('x', :r) WHERE id = :c;
\\endif
COMMIT;
EOS
}

# Fill the tables with ids 1..rows at version 1, in transactions of $batch rows.
sub fill_versioned_tables
{
	my ($node, $tables, $rows, %opt) = @_;
	my $batch = $opt{batch} // 1000;
	my $sql = '';
	for (my $lo = 1; $lo <= $rows; $lo += $batch)
	{
		my $hi = $lo + $batch - 1;
		$hi = $rows if $hi > $rows;
		$sql .= "BEGIN;\n";
		$sql .= "INSERT INTO $_ SELECT g, 1, 'row ' || g FROM generate_series($lo, $hi) g;\n"
		  for @$tables;
		$sql .= "COMMIT;\n";
	}
	$node->safe_psql($opt{db} // 'postgres', $sql);
}

# Start pgbench in the background with the versioned script.
#   tables => [t1, t2, t3], rows => N, clients, jobs, transactions | time, rate
sub start_pgbench
{
	my ($node, %opt) = @_;
	my ($t1, $t2, $t3) = @{ $opt{tables} };
	my $script = "$PostgreSQL::Test::Utils::tmp_check/pgbench_${t1}_" . int(time * 1000) . '.sql';
	PostgreSQL::Test::Utils::append_to_file($script,
		pgbench_script($t1, $t2, $t3, $opt{rows}, $opt{graveyard} // 'graveyard'));
	my @cmd = (
		'pgbench', '-n', '-h', $node->host, '-p', $node->port,
		'-c', $opt{clients} // 4, '-j', $opt{jobs} // 2, '-f', $script);
	push @cmd, '-t', $opt{transactions} if $opt{transactions};
	push @cmd, '-T', $opt{time} if $opt{time};
	push @cmd, '-R', $opt{rate} if $opt{rate};
	push @cmd, $opt{db} // 'postgres';
	my ($out, $err) = ('', '');
	my $h = IPC::Run::start(\@cmd, '<', \undef, '>', \$out, '2>', \$err);
	return { h => $h, out => \$out, err => \$err, cmd => \@cmd, started => time };
}

# Wait for a background pgbench; returns (exit code, stdout, stderr, seconds).
sub finish_pgbench
{
	my ($p) = @_;
	eval { $p->{h}->finish; };
	my $rc = $p->{h}->result(0) // -1;
	return ($rc, ${ $p->{out} }, ${ $p->{err} }, time - $p->{started});
}

# A workload that outlives server crashes: a child process runs the
# versioned pgbench script (start_pgbench's options: tables, rows, clients,
# jobs, rate, db) in runs of $opt{chunk} seconds (default 10), starting the
# next run as soon as one ends, whether it ended by time or because the
# server went away (then every 0.5 s until the server answers again), until
# stop_pgbench_loop().  pgbench's output goes to a file.
sub start_pgbench_loop
{
	my ($node, %opt) = @_;
	my ($t1, $t2, $t3) = @{ $opt{tables} };
	my $stamp = int(time * 1000);
	my $script = "$PostgreSQL::Test::Utils::tmp_check/pgbench_loop_${t1}_$stamp.sql";
	my $log = "$PostgreSQL::Test::Utils::tmp_check/pgbench_loop_${t1}_$stamp.log";
	PostgreSQL::Test::Utils::append_to_file($script,
		pgbench_script($t1, $t2, $t3, $opt{rows}, $opt{graveyard} // 'graveyard'));
	my @cmd = (
		'pgbench', '-n', '-h', $node->host, '-p', $node->port,
		'-c', $opt{clients} // 4, '-j', $opt{jobs} // 2, '-f', $script,
		'-T', $opt{chunk} // 10);
	push @cmd, '-R', $opt{rate} if $opt{rate};
	push @cmd, $opt{db} // 'postgres';
	my $child = fork();
	croak "fork: $!" unless defined $child;
	if ($child == 0)
	{
		my $stop = 0;
		my $bench;
		$SIG{TERM} = sub { $stop = 1; kill 'INT', $bench if $bench; };
		open(STDOUT, '>>', $log) or POSIX::_exit(1);
		open(STDERR, '>&', \*STDOUT) or POSIX::_exit(1);
		my $runs = 0;
		until ($stop)
		{
			$bench = fork();
			POSIX::_exit(1) unless defined $bench;
			if ($bench == 0)
			{
				exec(@cmd) or POSIX::_exit(127);
			}
			$runs++;
			waitpid($bench, 0);
			$bench = undef;
			usleep(500_000) unless $stop;
		}
		print "pgbench loop: $runs runs\n";
		POSIX::_exit(0);    # never run the parent's END blocks
	}
	return { child => $child, log => $log, started => time };
}

# Stop the loop (the running pgbench is interrupted); returns (seconds, the
# number of transactions pgbench reported as processed, its output).
sub stop_pgbench_loop
{
	my ($l) = @_;
	kill 'TERM', $l->{child};
	waitpid($l->{child}, 0);
	my $out = -e $l->{log} ? PostgreSQL::Test::Utils::slurp_file($l->{log}) : '';
	my $tx = 0;
	$tx += $1 while $out =~ /number of transactions actually processed: (\d+)/g;
	return (time - $l->{started}, $tx, $out);
}

sub run_pgbench
{
	my ($node, %opt) = @_;
	return finish_pgbench(start_pgbench($node, %opt));
}

# What each key's stream must be, from the tables' final state: live rows
# (id, ver) and graveyard rows (deleted at ver).  Returns
# { table => { id => [final_ver, deleted] } } and the number of changes
# (= records without tombstones) that made that state.
sub expected_versions
{
	my ($node, $tables, %opt) = @_;
	my $db = $opt{db} // 'postgres';
	my $g = $opt{graveyard} // 'graveyard';
	my %exp;
	my $changes = 0;
	for my $t (@$tables)
	{
		my $rows = $node->safe_psql($db,
			"SELECT id, ver, 0 FROM $t UNION ALL SELECT id, ver, 1 FROM $g WHERE tbl = '$t'");
		for my $line (split /\n/, $rows)
		{
			my ($id, $ver, $deleted) = split /\|/, $line;
			$exp{$t}{$id} = [ $ver, $deleted ];
			$changes += $ver + $deleted;
		}
	}
	return (\%exp, $changes);
}

# Check the topics of versioned tables against expected_versions().
#
#   kafka => cluster, prefix => topic prefix, tables => [...],
#   expected => from expected_versions, partitions => N (murmur2 check if > 1),
#   quiet => 1 (no diag of the first problems found; for self-checks)
#   isolation => the consumer's isolation.level (see consume_each)
#
# Per key, the records in offset order are turned into events c<v>, u<v>,
# d<v>, t<v> (tombstone after d<v>); each must be expected (c1, u2..uN,
# and dN, tN for a deleted key), every expected one must be there, and the
# first occurrences must come in that order.  A repeated event is a
# duplicate (allowed after a restart: delivery is at least once).
# Returns a summary hash; logs it with note().
sub verify_versioned
{
	my (%a) = @_;
	my %sum = (
		records => 0, tombstones => 0, events => 0, expected => 0, missing => 0,
		unexpected => 0, duplicates => 0, out_of_order => 0, bad_before => 0,
		misplaced => 0, partition_checked => 0, examples => []);
	my $ex = sub { push @{ $sum{examples} }, $_[0] if @{ $sum{examples} } < 10 };
	my @latency;

	for my $t (@{ $a{tables} })
	{
		my $topic = "$a{prefix}.public.$t";
		my %seen;      # id -> { event => count }
		my %order;     # id -> [events in first-occurrence order]
		my %last_del;  # id -> ver of the last delete seen (for tombstones)
		my %part;      # id -> partition
		$a{kafka}->consume_each(
			$topic,
			sub {
				my ($r) = @_;
				$sum{records}++;
				my $kp = payload_part($r->{key});
				my ($id) = $kp =~ /"id":(-?\d+)/;
				unless (defined $id)
				{
					$sum{unexpected}++;
					$ex->("$topic: record without an id key at offset $r->{offset}");
					return;
				}
				if (($a{partitions} // 1) > 1)
				{
					$sum{partition_checked}++;
					my $want = murmur2_partition($r->{key}, $a{partitions});
					if ($want != $r->{partition})
					{
						$sum{misplaced}++;
						$ex->("$topic: key $r->{key} on partition $r->{partition}, murmur2 gives $want");
					}
				}
				my $ev;
				if (!defined $r->{value})
				{
					$sum{tombstones}++;
					$ev = 't' . ($last_del{$id} // '?');
				}
				else
				{
					my $v = $JSON->decode(payload_part($r->{value}));
					my $op = $v->{op} // '?';
					# commit (source.ts_ms) to the record's CreateTime (produce)
					push @latency, $r->{ts} - $v->{source}{ts_ms}
					  if defined $r->{ts} && defined $v->{source}{ts_ms};
					if ($op eq 'd')
					{
						$ev = 'd' . ($v->{before}{ver} // '?');
						$last_del{$id} = $v->{before}{ver} // '?';
					}
					else
					{
						$ev = $op . ($v->{after}{ver} // '?');
						if ($op eq 'u'
							&& (!defined $v->{before}{ver} || $v->{before}{ver} != $v->{after}{ver} - 1))
						{
							$sum{bad_before}++;
							$ex->("$topic id $id: update to $v->{after}{ver} has before.ver "
								  . ($v->{before}{ver} // 'null'));
						}
					}
				}
				$sum{duplicates}++ if $seen{$id}{$ev}++;
				push @{ $order{$id} }, $ev if $seen{$id}{$ev} == 1;
			},
			$a{isolation} ? (isolation => $a{isolation}) : ());

		my $exp = $a{expected}{$t} // {};
		for my $id (keys %$exp)
		{
			my ($n, $deleted) = @{ $exp->{$id} };
			my @want = ('c1', map { "u$_" } 2 .. $n);
			push @want, "d$n", "t$n" if $deleted;
			$sum{expected} += @want;
			my @have = @{ $order{$id} // [] };
			my %want = map { $_ => 1 } @want;
			for my $w (@want)
			{
				next if $seen{$id}{$w};
				$sum{missing}++;
				$ex->("$topic id $id: missing $w (want @want[0..($#want > 5 ? 5 : $#want)]..., have @have)");
			}
			my @known = grep { $want{$_} } @have;
			my @in_want_order = grep { $seen{$id}{$_} } @want;
			if ("@known" ne "@in_want_order")
			{
				$sum{out_of_order}++;
				$ex->("$topic id $id: order @known, commit order @in_want_order");
			}
			for my $h (@have)
			{
				next if $want{$h};
				$sum{unexpected}++;
				$ex->("$topic id $id: unexpected $h (want @want)");
			}
		}
		for my $id (keys %order)
		{
			next if exists $exp->{$id};
			$sum{unexpected} += @{ $order{$id} };
			$ex->("$topic id $id: records for a key that never existed: @{ $order{$id} }");
		}
		$sum{events} += scalar(map { @$_ } values %order);
	}
	@latency = sort { $a <=> $b } @latency;
	if (@latency)
	{
		$sum{latency_p50} = $latency[ int($#latency * 0.5) ];
		$sum{latency_p99} = $latency[ int($#latency * 0.99) ];
		$sum{latency_max} = $latency[-1];
	}
	note(sprintf(
			"verify %s: %d records (%d tombstones), %d distinct changes of %d expected, "
			  . "%d duplicates, %d missing, %d unexpected, %d keys out of order, "
			  . "%d bad before images, %d of %d keyed records off their murmur2 partition",
			join(',', @{ $a{tables} }), @sum{qw(records tombstones events expected duplicates missing
			  unexpected out_of_order bad_before misplaced partition_checked)}));
	diag($_) for $a{quiet} ? () : @{ $sum{examples} };
	return \%sum;
}

# ---------------------------------------------------------------------------
# Kafka clusters
# ---------------------------------------------------------------------------

package CdcKafka::Cluster;

use strict;
use warnings;
use Carp;
use File::Basename qw(basename);
use File::Path qw(rmtree);
use JSON::PP;
use Time::HiRes qw(usleep time);
use Test::More;

my @clusters;

# CdcKafka::Cluster->start(nodes => 1|3, partitions => N, set => [k=v, ...], name => ...)
# Picks a random base port (kafka.sh refuses ports in use, and a broker
# can lose a race for one: then another is tried) under tmp_check, and returns the cluster.
sub start
{
	my ($class, %opt) = @_;
	my $nodes = $opt{nodes} // 1;
	my $name = $opt{name} // ('kafka_' . basename($0, '.pl') . '_' . (scalar(@clusters) + 1));
	my $dir = "$PostgreSQL::Test::Utils::tmp_check/$name";
	my $self = bless { dir => $dir, nodes => $nodes, partitions => $opt{partitions} // 1 }, $class;

	for my $attempt (1 .. 10)
	{
		# 20000-44900: below the ports PostgreSQL::Test::Cluster hands out
		my $base = 20000 + 100 * int(rand(250));
		rmtree($dir);
		my @cmd = (CdcKafka::kafka_script(), 'start', '--dir', $dir, '--nodes', $nodes,
			'--base-port', $base, '--partitions', $self->{partitions});
		push @cmd, map { ('--set', $_) } @{ $opt{set} // [] };
		my $t0 = time;
		my ($rc, $out, $err) = CdcKafka::run_cmd(\@cmd, timeout => 180);
		if ($rc == 0)
		{
			chomp $out;
			$self->{bootstrap} = $out;
			$self->{base_port} = $base;
			push @clusters, $self;
			note(sprintf("Kafka: %d node(s) at %s in %.1f s (%s)", $nodes, $out, time - $t0, $dir));
			return $self;
		}
		# a port free when kafka.sh checked it can be taken before the
		# broker binds it (another suite's broker or server): try another
		if ($err =~ /is in use/ || bind_failed($dir))
		{
			note("Kafka base port $base taken, trying another");
			next;
		}
		BAIL_OUT("kafka.sh start failed:\n$err");
	}
	BAIL_OUT('no free port base for Kafka after 10 attempts');
}

# Did a node of the cluster in $dir fail to bind its port?
sub bind_failed
{
	my ($dir) = @_;
	for my $log (glob("$dir/node*/server.log"))
	{
		open(my $fh, '<', $log) or next;
		while (my $line = <$fh>)
		{
			return 1 if $line =~ /Address already in use/;
		}
	}
	return 0;
}

sub bootstrap { $_[0]{bootstrap} }
sub dir { $_[0]{dir} }

sub _kafka
{
	my ($self, @args) = @_;
	my ($rc, $out, $err) =
	  CdcKafka::run_cmd([ CdcKafka::kafka_script(), @args ], timeout => 180);
	return ($rc, $out, $err);
}

# stop_node(N, kill => 1): SIGTERM (or SIGKILL) one broker.
sub stop_node
{
	my ($self, $n, %opt) = @_;
	my ($rc, $out, $err) =
	  $self->_kafka('stop', '--dir', $self->{dir}, '--node', $n, $opt{kill} ? ('--kill') : ());
	diag("kafka.sh stop node $n failed: $err") if $rc != 0;
	return $rc == 0;
}

# start_node(N): restart a stopped broker; waits until it is registered.
sub start_node
{
	my ($self, $n) = @_;
	my ($rc, $out, $err) = $self->_kafka('startnode', '--dir', $self->{dir}, '--node', $n);
	diag("kafka.sh startnode $n failed: $err") if $rc != 0;
	return $rc == 0;
}

# kafka-topics with these arguments; returns (rc, stdout, stderr).
sub topics
{
	my ($self, @args) = @_;
	return $self->_kafka('topics', '--dir', $self->{dir}, '--', @args);
}

# create_topic(name, partitions => N, config => { k => v })
sub create_topic
{
	my ($self, $topic, %opt) = @_;
	my @args = ('--create', '--topic', $topic, '--partitions', $opt{partitions} // $self->{partitions});
	push @args, '--replication-factor', $opt{replication} if $opt{replication};
	push @args, map { ('--config', "$_=$opt{config}{$_}") } sort keys %{ $opt{config} // {} };
	my ($rc, $out, $err) = $self->topics(@args);
	BAIL_OUT("could not create topic $topic: $out $err") if $rc != 0;
}

# Topic metadata from kcat -L: { topic => number of partitions }.
sub topic_list
{
	my ($self) = @_;
	my ($rc, $out, $err) =
	  CdcKafka::run_cmd([ 'kcat', '-L', '-J', '-b', $self->{bootstrap}, '-m', '10' ], timeout => 30);
	return {} if $rc != 0 || $out eq '';
	my $md = eval { decode_json($out) } or return {};
	return { map { $_->{topic} => scalar(@{ $_->{partitions} }) } @{ $md->{topics} } };
}

# Partitions (of every topic, internal ones included) whose in-sync
# replicas are fewer than their replicas, from kcat -L: a list of
# "topic/partition isr/replicas", empty when the cluster is whole.  undef
# when the metadata could not be read.
sub under_replicated
{
	my ($self) = @_;
	my ($rc, $out, $err) =
	  CdcKafka::run_cmd([ 'kcat', '-L', '-J', '-b', $self->{bootstrap}, '-m', '10' ], timeout => 30);
	return undef if $rc != 0 || $out eq '';
	my $md = eval { decode_json($out) } or return undef;
	my @under;
	for my $t (@{ $md->{topics} })
	{
		for my $p (@{ $t->{partitions} })
		{
			my ($isr, $rep) = (scalar(@{ $p->{isrs} // [] }), scalar(@{ $p->{replicas} // [] }));
			push @under, "$t->{topic}/$p->{partition} $isr/$rep" if $isr < $rep;
		}
	}
	return \@under;
}

# End offsets of every partition of a topic: { partition => offset };
# their sum is the number of records (nothing is compacted or deleted).
sub end_offsets
{
	my ($self, $topic) = @_;
	my $parts = $self->topic_list->{$topic} or return {};
	my @cmd = ('kcat', '-Q', '-b', $self->{bootstrap}, map { ('-t', "$topic:$_:-1") } 0 .. $parts - 1);
	my ($rc, $out, $err) = CdcKafka::run_cmd(\@cmd, timeout => 30);
	my %off;
	$off{$1} = $2 while $out =~ /\[(\d+)\] offset (-?\d+)/g;
	return \%off;
}

sub record_count
{
	my ($self, $topic) = @_;
	my $sum = 0;
	$sum += $_ for values %{ $self->end_offsets($topic) };
	return $sum;
}

# Wait until the topic holds at least $n records.
sub wait_for_records
{
	my ($self, $topic, $n, $timeout) = @_;
	my $have = 0;
	my $ok = CdcKafka::poll_until(sub { ($have = $self->record_count($topic)) >= $n },
		$timeout // 120, "$n records on $topic");
	diag("topic $topic has $have records, want $n") unless $ok;
	return $ok;
}

# Read a whole topic; call $cb->(record) for each record in partition,
# offset order.  A record is { topic, partition, offset, key, value } with
# key and value as raw bytes (undef when null); with headers => 1 also
# headers => [name, value, ...] (read through kcat's JSON envelope).
# isolation => 'read_committed' | 'read_uncommitted' sets the consumer's
# isolation.level (records of aborted or open transactions are skipped by
# read_committed).  Control records (transaction markers) take offsets but
# are never handed out: with transactional producers a topic holds fewer
# records than its end offsets add up to (record_count counts offsets).
sub consume_each
{
	my ($self, $topic, $cb, %opt) = @_;
	return 0 unless $self->topic_list->{$topic};
	my $file = "$self->{dir}/consume_" . int(time * 1000) . "_$$.out";
	my @cmd = ('kcat', '-C', '-q', '-b', $self->{bootstrap}, '-t', $topic, '-o', 'beginning', '-e');
	# librdkafka reads read_committed unless told otherwise; say it anyway
	push @cmd, '-X', "isolation.level=$opt{isolation}" if $opt{isolation};
	if ($opt{headers})
	{
		push @cmd, '-J';
	}
	else
	{
		# length-framed, so keys and values come back byte for byte
		push @cmd, '-f', '%t %p %o %T %K %S\n%k%s\n';
	}
	my ($out, $err) = ('', '');
	my $ok = eval {
		IPC::Run::run(\@cmd, '<', \undef, '>', $file, '2>', \$err, IPC::Run::timeout(600));
		1;
	};
	croak "kcat failed on $topic: " . ($@ // '') . $err unless $ok && $? == 0;

	my @recs;
	open(my $fh, '<:raw', $file) or croak "$file: $!";
	my $n = 0;
	if ($opt{headers})
	{
		my $json = CdcKafka::json_parser();
		while (my $line = <$fh>)
		{
			my $e = $json->decode($line);
			my $r = {
				topic => $e->{topic}, partition => $e->{partition}, offset => $e->{offset}, ts => $e->{ts},
				key => defined $e->{key} ? Encode::encode_utf8($e->{key}) : undef,
				value => defined $e->{payload} ? Encode::encode_utf8($e->{payload}) : undef,
				headers => $e->{headers} // [] };
			push @recs, $r;
		}
	}
	else
	{
		while (my $head = <$fh>)
		{
			chomp $head;
			my ($t, $p, $o, $ts, $kl, $vl) = split / /, $head;
			croak "bad kcat frame header '$head' in $file" unless defined $vl;
			my ($k, $v);
			if ($kl >= 0) { read($fh, $k, $kl) == $kl or croak "short key in $file"; }
			if ($vl >= 0) { read($fh, $v, $vl) == $vl or croak "short value in $file"; }
			my $nl;
			read($fh, $nl, 1);
			push @recs, { topic => $t, partition => $p, offset => $o, ts => $ts,
				key => ($kl >= 0 ? ($k // '') : undef), value => ($vl >= 0 ? ($v // '') : undef) };
			# hand records out in partition order as they come; kcat
			# interleaves partitions but keeps each one in offset order
			if (@recs >= 10000 && !$opt{sorted})
			{
				$cb->($_), $n++ for @recs;
				@recs = ();
			}
		}
	}
	close $fh;
	unlink $file;
	@recs = sort { $a->{partition} <=> $b->{partition} || $a->{offset} <=> $b->{offset} } @recs
	  if $opt{sorted};
	$cb->($_), $n++ for @recs;
	return $n;
}

# Number of records a consumer with that isolation level (isolation =>
# 'read_committed' | 'read_uncommitted') reads from a topic; 0 for a topic
# that does not exist.
sub count_records
{
	my ($self, $topic, %opt) = @_;
	return 0 unless $self->topic_list->{$topic};
	my @cmd = ('kcat', '-C', '-q', '-b', $self->{bootstrap}, '-t', $topic, '-o', 'beginning', '-e',
		'-f', '.');
	push @cmd, '-X', "isolation.level=$opt{isolation}" if $opt{isolation};
	my ($rc, $out, $err) = CdcKafka::run_cmd(\@cmd, timeout => 600);
	croak "kcat failed on $topic: $err" if $rc != 0;
	return length($out);
}

# Wait until what read_committed consumers read of these topics stops
# changing (a Kafka transaction's records become readable once its commit
# markers are written, a moment after the commit); returns the count.
sub wait_committed_settled
{
	my ($self, $topics, $timeout) = @_;
	my ($prev, $n) = (-1, 0);
	CdcKafka::poll_until(
		sub {
			$n = 0;
			$n += $self->count_records($_, isolation => 'read_committed') for @$topics;
			my $same = $n == $prev;
			$prev = $n;
			return $same;
		},
		$timeout // 60,
		'read_committed counts settled');
	return $n;
}

# The broker process of node N (kafka.sh's pid file), or undef.
sub node_pid
{
	my ($self, $n) = @_;
	open(my $fh, '<', "$self->{dir}/node$n/pid") or return undef;
	my $pid = <$fh>;
	close $fh;
	chomp $pid if defined $pid;
	return $pid;
}

# pause_node(N) / resume_node(N): SIGSTOP / SIGCONT one broker (a hung
# broker: its connections stay open and nothing is answered).
sub pause_node
{
	my ($self, $n) = @_;
	my $pid = $self->node_pid($n) or return 0;
	return kill('STOP', $pid);
}

sub resume_node
{
	my ($self, $n) = @_;
	my $pid = $self->node_pid($n) or return 0;
	return kill('CONT', $pid);
}

# Read a whole topic into a list (sorted by partition, offset).
sub consume
{
	my ($self, $topic, %opt) = @_;
	my @all;
	$self->consume_each($topic, sub { push @all, $_[0] }, %opt, sorted => 1);
	return \@all;
}

# Stop the whole cluster; remove its data (logs stay unless all passed).
sub stop
{
	my ($self) = @_;
	return if $self->{stopped};
	local $?;
	CdcKafka::run_cmd([ CdcKafka::kafka_script(), 'stop', '--dir', $self->{dir} ], timeout => 120);
	$self->{stopped} = 1;
	rmtree($_) for glob("$self->{dir}/node*/data");
	rmtree($self->{dir}) if PostgreSQL::Test::Utils::all_tests_passing();
}

# Servers first (so that workers do not log a vanishing broker), then Kafka.
END
{
	local $?;
	for my $node (@CdcKafka::nodes)
	{
		eval { $node->stop('immediate', fail_ok => 1); };
	}
	$_->stop for @clusters;
}

1;
