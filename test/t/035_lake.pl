# 035_lake.pl - from the topics to the lake, end to end (issue 14).
#
# PostgreSQL with the worker, a real broker (3 partitions), the Spark job of
# lake/ (local Spark, Delta Lake): a randomized workload on two tables (one
# with a composite key and many types, one with TOASTed text) of inserts,
# updates, deletes, key changes, re-inserts of deleted keys, updates that
# leave TOASTed values unchanged, and a TRUNCATE; a trigger records every
# row version on the source.  Then:
#   1. the job streams into UPSERT tables, is killed (SIGKILL) mid-stream
#      while the workload goes on, and restarted: the tables equal the
#      source's, row by row, typed;
#   2. the job writes SCD2 tables: every version equals the recorded
#      history, with its validity interval (commit times);
#   3. the topics replayed from the beginning into fresh UPSERT tables give
#      the same rows, and a replay into the SCD2 tables changes nothing.
# Runs 2 and 3 read 200 records a batch, which splits key changes' deletes
# and creates across batches (the job holds such keys back).
#
# Runs in test/run-all.sh's suite "lake" (CDC_LAKE_SUITE=1, LAKE_PYTHON and
# LAKE_JARS from lake/install.sh); skipped elsewhere (the tap suite).
use strict;
use warnings;

use FindBin;
use lib $FindBin::RealBin;
use CdcKafka;
use Cwd qw(abs_path);
use File::Path qw(rmtree);
use IPC::Run;
use JSON::PP;
use PostgreSQL::Test::Utils;
use Test::More;
use Time::HiRes qw(usleep time);

plan skip_all => 'the lake suite runs this (bash test/run-all.sh lake)'
  unless $ENV{CDC_LAKE_SUITE} && $ENV{LAKE_PYTHON};

my $LAKE_SRC = abs_path("$FindBin::RealBin/../../lake");
my $py = $ENV{LAKE_PYTHON};
my $seed = $ENV{LAKE_SEED} // int(rand(1_000_000));
srand($seed);
note("workload seed $seed (LAKE_SEED=$seed repeats it)");

my $kafka = CdcKafka::Cluster->start(nodes => 1, partitions => 3);
my $node = new_node(
	'lake',
	bootstrap => $kafka->bootstrap,
	conf => "cdc_kafka.skipped_operations = 'none'\ntrack_commit_timestamp = on\n");

my $work = "$PostgreSQL::Test::Utils::tmp_check/lake";
rmtree($work);
mkdir $work or die "mkdir $work: $!";

# ---------------------------------------------------------------- schema

$node->safe_psql('postgres', q{
CREATE TABLE lake_a (
	region text, id int, qty int2, big int8, price numeric(12,2), ratio numeric,
	f8 float8, ok bool, note varchar(40), body text, bin bytea, d date,
	ts timestamp(6), ts3 timestamp(3), tstz timestamptz, t time, js jsonb, u uuid,
	ints int[], tags text[],
	PRIMARY KEY (region, id));
ALTER TABLE lake_a ALTER body SET STORAGE EXTERNAL;
CREATE TABLE lake_b (id bigint PRIMARY KEY, name text NOT NULL, amount numeric(10,2), doc text);
ALTER TABLE lake_b ALTER doc SET STORAGE EXTERNAL;

-- the source's values in a canonical text form, for the lake to be compared with
CREATE FUNCTION lake_a_canon(r lake_a) RETURNS jsonb LANGUAGE sql IMMUTABLE AS $$
	SELECT jsonb_build_object('region', r.region, 'id', r.id, 'qty', r.qty, 'big', r.big,
		'price', r.price::text, 'ratio', r.ratio::text, 'f8', r.f8::text, 'ok', r.ok,
		'note', r.note, 'body', r.body, 'bin', encode(r.bin, 'hex'), 'd', r.d::text,
		'ts', r.ts::text, 'ts3', r.ts3::text, 'tstz', (r.tstz AT TIME ZONE 'UTC')::text,
		't', r.t::text, 'js', r.js::text, 'u', r.u::text, 'ints', to_jsonb(r.ints),
		'tags', to_jsonb(r.tags)) $$;
CREATE FUNCTION lake_b_canon(r lake_b) RETURNS jsonb LANGUAGE sql IMMUTABLE AS $$
	SELECT jsonb_build_object('id', r.id, 'name', r.name, 'amount', r.amount::text, 'doc', r.doc) $$;

-- every row version, as SCD2 should record it
CREATE TABLE lake_hist (seq bigserial PRIMARY KEY, tbl text, op text, xid bigint, old jsonb, new jsonb);
CREATE FUNCTION lake_hist_row() RETURNS trigger LANGUAGE plpgsql AS $$
DECLARE o jsonb; n jsonb;
BEGIN
	IF TG_OP <> 'INSERT' THEN EXECUTE format('SELECT %I_canon($1)', TG_TABLE_NAME) INTO o USING OLD; END IF;
	IF TG_OP <> 'DELETE' THEN EXECUTE format('SELECT %I_canon($1)', TG_TABLE_NAME) INTO n USING NEW; END IF;
	INSERT INTO lake_hist (tbl, op, xid, old, new) VALUES (TG_TABLE_NAME, TG_OP, txid_current(), o, n);
	RETURN NULL;
END $$;
CREATE FUNCTION lake_hist_truncate() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
	INSERT INTO lake_hist (tbl, op, xid) VALUES (TG_TABLE_NAME, 'TRUNCATE', txid_current());
	RETURN NULL;
END $$;
CREATE TRIGGER hist AFTER INSERT OR UPDATE OR DELETE ON lake_a FOR EACH ROW EXECUTE FUNCTION lake_hist_row();
CREATE TRIGGER hist AFTER INSERT OR UPDATE OR DELETE ON lake_b FOR EACH ROW EXECUTE FUNCTION lake_hist_row();
CREATE TRIGGER hist_t BEFORE TRUNCATE ON lake_a FOR EACH STATEMENT EXECUTE FUNCTION lake_hist_truncate();
CREATE TRIGGER hist_t BEFORE TRUNCATE ON lake_b FOR EACH STATEMENT EXECUTE FUNCTION lake_hist_truncate();
});

# ---------------------------------------------------------------- workload

# What the generator knows of each table: live keys (and whether the row's
# long text is TOASTed), deleted keys.
my %live = (lake_a => {}, lake_b => {});
my %dead = (lake_a => {}, lake_b => {});
my $next_id = 1;

sub pick { my @k = sort keys %{ $_[0] }; return @k ? $k[ int(rand(@k)) ] : undef; }
sub rnd_text { my $n = shift; my $s = ''; $s .= chr(97 + int(rand(26))) while length($s) < $n; return $s; }

# a long text that does not compress (TOASTed out of line)
sub long_text { return join('', map { sprintf('%08x', int(rand(2**32))) } 1 .. 400); }

sub a_values
{
	my ($long) = @_;
	my $price = sprintf('%.2f', (rand(2e6) - 1e6));
	my $ratio = sprintf('%.*f', int(rand(12)), rand(1e6) - 5e5);
	my @f8 = ('1.5', '-0.125', '3.141592653589793', '1e+300', '-2.5e-300', '0', sprintf('%.17g', rand()));
	my $d = sprintf('%04d-%02d-%02d', 1900 + int(rand(200)), 1 + int(rand(12)), 1 + int(rand(28)));
	my $ts = sprintf('%s %02d:%02d:%02d.%06d', $d, int(rand(24)), int(rand(60)), int(rand(60)), int(rand(1e6)));
	my $body = $long ? long_text() : rnd_text(int(rand(30)));
	return (
		qty => int(rand(65535)) - 32768,
		big => int(rand(2**52)) - 2**51,
		price => $price,
		ratio => $ratio,
		f8 => "'$f8[int(rand(@f8))]'",
		ok => (rand() < 0.5 ? 'true' : 'false'),
		note => (rand() < 0.2 ? 'NULL' : "'" . rnd_text(int(rand(40))) . "'"),
		body => "'$body'",
		bin => "'\\x" . join('', map { sprintf('%02x', int(rand(256))) } 1 .. int(rand(20))) . "'",
		d => "'$d'",
		ts => "'$ts'",
		ts3 => "'$ts'",
		tstz => "'$ts+0" . int(rand(9)) . "'",
		t => sprintf("'%02d:%02d:%02d.%d'", int(rand(24)), int(rand(60)), int(rand(60)), int(rand(1000))),
		js => "'{\"n\": " . int(rand(100)) . ", \"s\": \"" . rnd_text(3) . "\"}'",
		u => 'gen_random_uuid()',
		ints => 'ARRAY[' . join(',', map { int(rand(1000)) - 500 } 0 .. int(rand(4))) . ']::int[]',
		tags => "ARRAY['" . rnd_text(2) . "', NULL, 'x y']",
	);
}

sub b_values
{
	my ($long) = @_;
	return (
		name => "'" . rnd_text(8) . "'",
		amount => (rand() < 0.1 ? 'NULL' : sprintf('%.2f', rand(1e5))),
		doc => "'" . ($long ? long_text() : rnd_text(10)) . "'");
}

sub key_where
{
	my ($t, $k) = @_;
	if ($t eq 'lake_a') { my ($r, $i) = split /:/, $k; return "region = '$r' AND id = $i"; }
	return "id = $k";
}

sub insert_sql
{
	my ($t, $k) = @_;
	my $long = rand() < 0.4;
	$live{$t}{$k} = $long;
	delete $dead{$t}{$k};
	my %v = $t eq 'lake_a' ? a_values($long) : b_values($long);
	my @cols = sort keys %v;
	my @kv = $t eq 'lake_a' ? (split /:/, $k) : ($k);
	my $keys = $t eq 'lake_a' ? "region, id" : "id";
	my $kvals = $t eq 'lake_a' ? "'$kv[0]', $kv[1]" : $kv[0];
	return "INSERT INTO $t ($keys, " . join(', ', @cols) . ") VALUES ($kvals, "
	  . join(', ', map { $v{$_} } @cols) . ");";
}

sub new_key
{
	my ($t) = @_;
	my $id = $next_id++;
	return $t eq 'lake_a' ? ((qw(eu us ap))[ int(rand(3)) ] . ":$id") : $id;
}

# One random statement on a random table.
sub statement
{
	my $t = rand() < 0.6 ? 'lake_a' : 'lake_b';
	my $k = pick($live{$t});
	my $r = rand();
	return insert_sql($t, new_key($t)) if !defined $k || $r < 0.25;
	if ($r < 0.55)
	{
		# an update that leaves the long text alone: TOASTed, it is the placeholder
		my %v = $t eq 'lake_a' ? a_values(0) : b_values(0);
		my @set = $t eq 'lake_a' ? qw(qty price ratio note d tstz ints js) : qw(name amount);
		my @pick = grep { rand() < 0.6 } @set;
		@pick = ($set[0]) unless @pick;
		return "UPDATE $t SET " . join(', ', map { "$_ = $v{$_}" } @pick) . " WHERE " . key_where($t, $k) . ";";
	}
	if ($r < 0.65)
	{
		my $long = rand() < 0.5;
		$live{$t}{$k} = $long;
		my $col = $t eq 'lake_a' ? 'body' : 'doc';
		return "UPDATE $t SET $col = '" . ($long ? long_text() : rnd_text(5)) . "' WHERE " . key_where($t, $k) . ";";
	}
	if ($r < 0.78)
	{
		delete $live{$t}{$k};
		$dead{$t}{$k} = 1;
		return "DELETE FROM $t WHERE " . key_where($t, $k) . ";";
	}
	if ($r < 0.88)
	{
		my $old = pick($dead{$t});
		return defined $old ? insert_sql($t, $old) : insert_sql($t, new_key($t));
	}
	# a key change: the create carries the placeholder for a TOASTed long text
	my $nk = new_key($t);
	$live{$t}{$nk} = $live{$t}{$k};
	delete $live{$t}{$k};
	$dead{$t}{$k} = 1;
	my $set = $t eq 'lake_a'
	  ? do { my ($r2, $i2) = split /:/, $nk; "region = '$r2', id = $i2" }
	  : "id = $nk";
	return "UPDATE $t SET $set WHERE " . key_where($t, $k) . ";";
}

# $n transactions of 1 to 4 statements, as one psql script
sub workload
{
	my ($n, %opt) = @_;
	my $sql = '';
	for my $i (1 .. $n)
	{
		if ($opt{truncate_at} && $i == $opt{truncate_at})
		{
			$sql .= "TRUNCATE lake_b;\n";
			%{ $live{lake_b} } = ();
			next;
		}
		$sql .= "BEGIN;\n" . join("\n", map { statement() } 1 .. 1 + int(rand(4))) . "\nCOMMIT;\n";
		$sql .= "SELECT pg_sleep(0.4);\n" if $opt{slow};
	}
	return $sql;
}

sub run_sql_file
{
	my ($name, $sql) = @_;
	my $f = "$work/$name.sql";
	open(my $fh, '>', $f) or die "$f: $!";
	print $fh $sql;
	close $fh;
	return [ $node->installed_command('psql'), '-X', '-q', '-v', 'ON_ERROR_STOP=1',
		'-d', $node->connstr('postgres'), '-f', $f ];
}

my $cmd = run_sql_file('part1', workload(150, truncate_at => 100));
my ($out, $err) = ('', '');
ok(IPC::Run::run($cmd, '>', \$out, '2>', \$err), 'workload part 1') or diag($err);
ok(wait_caught_up($node), 'part 1 in Kafka');

# ---------------------------------------------------------------- the job

my @topics = map { "postgres.public.$_" } qw(lake_a lake_b);

sub job_cmd
{
	my ($lake, $mode, @extra) = @_;
	return [ 'setsid', $py, '-m', 'cdc_kafka_lake', 'run', '--bootstrap-servers', $kafka->bootstrap,
		'--topics', join(',', @topics), '--lake', $lake, '--default-mode', $mode,
		'--master', 'local[2]', @extra ];
}

$ENV{PYTHONPATH} = "$LAKE_SRC/src";
$ENV{LAKE_LOG_LEVEL} = 'INFO';

sub run_job
{
	my ($name, @args) = @_;
	my $log = "$work/$name.log";
	my $t0 = time;
	my $ok = IPC::Run::run(job_cmd(@args), '<', \undef, '>&', $log, IPC::Run::timeout(900));
	note(sprintf('%s: %.0f s (log %s)', $name, time - $t0, $log));
	diag(`tail -n 30 $log`) unless $ok;
	return $ok;
}

# 1. UPSERT: streaming, killed mid-stream while part 2 runs, restarted.
my $up = "$work/upsert";
my $job_log = "$work/upsert-1.log";
my $job = IPC::Run::start(job_cmd($up, 'upsert', '--trigger-seconds', '1'), '<', \undef, '>&', $job_log);
my $commits = "$up/_checkpoints/cdc_kafka_lake/commits";
ok(poll_until(sub { my @c = glob("$commits/[0-9]*"); @c >= 1 }, 600, 'a batch committed'),
	'the streaming job commits batches') or diag(`tail -n 30 $job_log`);
my $part2 = IPC::Run::start(run_sql_file('part2', workload(150, slow => 1)), '>', \$out, '2>', \$err);
ok(poll_until(sub { my @c = glob("$commits/[0-9]*"); @c >= 3 }, 600, 'three batches committed'),
	'more batches while the workload runs');
my $pid = $job->{KIDS}[0]{PID};
my $running = $part2->pumpable;
kill 'KILL', -$pid;
eval { $job->finish };
my @done = glob("$commits/[0-9]*");
note('job killed after ' . scalar(@done) . ' batches, ' . ($running ? 'while' : 'after') . ' the workload ran');
ok($part2->finish, 'workload part 2') or diag($err);
ok(wait_caught_up($node), 'part 2 in Kafka');
ok(run_job('upsert-2', $up, 'upsert', '--available-now'), 'the restarted job catches up');
note('the restarted job met Spark\'s Kafka metrics bug and started again')
  if PostgreSQL::Test::Utils::slurp_file("$work/upsert-2.log") =~ /a Spark bug\): starting again/;

# the source, as the checker reads it
sub dump_json
{
	my ($file, $sql) = @_;
	my $json = $node->safe_psql('postgres', $sql);
	open(my $fh, '>', $file) or die "$file: $!";
	print $fh $json;
	close $fh;
}
dump_json("$work/expected.json", q{
	SELECT jsonb_build_object(
		'public.lake_a', jsonb_build_object('key', '["region","id"]'::jsonb,
			'rows', (SELECT coalesce(jsonb_agg(lake_a_canon(a)), '[]') FROM lake_a a)),
		'public.lake_b', jsonb_build_object('key', '["id"]'::jsonb,
			'rows', (SELECT coalesce(jsonb_agg(lake_b_canon(b)), '[]') FROM lake_b b)))});
dump_json("$work/history.json", q{
	WITH h AS (
		SELECT tbl, seq, jsonb_build_object('op', op, 'old', old, 'new', new,
			'ts_ms', floor(extract(epoch FROM pg_xact_commit_timestamp((xid % 4294967296)::text::xid)) * 1000)) e
		FROM lake_hist)
	SELECT jsonb_build_object(
		'public.lake_a', jsonb_build_object('key', '["region","id"]'::jsonb,
			'events', (SELECT jsonb_agg(e ORDER BY seq) FROM h WHERE tbl = 'lake_a')),
		'public.lake_b', jsonb_build_object('key', '["id"]'::jsonb,
			'events', (SELECT jsonb_agg(e ORDER BY seq) FROM h WHERE tbl = 'lake_b')))});
note('source: ' . $node->safe_psql('postgres',
	q{SELECT string_agg(format('%s %s', op, n), ', ') FROM (SELECT op, count(*) n FROM lake_hist GROUP BY op) s}));

# 2. SCD2, 3. the replays.  These two read in small batches: a key change's
# delete and create, on the partitions of two keys, land in different
# batches, and the job holds the keys back until both halves are read.
my @small = ('--max-offsets-per-trigger', '200');
my $scd2 = "$work/scd2";
ok(run_job('scd2', $scd2, 'scd2', '--available-now', @small), 'SCD2 job');
my $up2 = "$work/upsert-replay";
ok(run_job('upsert-replay', $up2, 'upsert', '--available-now', @small), 'replay into fresh UPSERT tables');
my $held = 0;
for my $name (qw(scd2 upsert-replay))
{
	my $log = PostgreSQL::Test::Utils::slurp_file("$work/$name.log");
	my @b = $log =~ /(\d+) keys held back for the other half of a key change/g;
	$held += $_ for @b;
	note("$name: " . scalar(@b) . " batches held keys back");
}
ok($held > 0, "batches of 200 records split key changes ($held keys held back)");
my $scd2_before = "$work/scd2-before-replay";
system('cp', '-a', $scd2, $scd2_before) == 0 or die 'cp';
ok(run_job('scd2-replay', $scd2, 'scd2', '--available-now', '--name', 'replay'),
	'replay into the same SCD2 tables');

my $check_log = "$work/check.log";
my $checked = IPC::Run::run(
	[ $py, "$LAKE_SRC/tests/e2e/check.py", '--time-columns', 't',
		'--upsert', $up, '--expected', "$work/expected.json",
		'--scd2', $scd2, '--history', "$work/history.json",
		'--same', $up, $up2 ],
	'<', \undef, '>', $check_log, '2>', "$work/check.err", IPC::Run::timeout(900));
my $report = PostgreSQL::Test::Utils::slurp_file($check_log);
note($report);
ok($checked && $report =~ /check: 0 differences/, 'UPSERT = source, SCD2 = history, replay = first run')
  or diag($report . `tail -n 20 $work/check.err`);

my $same_log = "$work/check-scd2.log";
$checked = IPC::Run::run([ $py, "$LAKE_SRC/tests/e2e/check.py", '--same', $scd2, $scd2_before ],
	'<', \undef, '>', $same_log, '2>', "$work/check-scd2.err", IPC::Run::timeout(900));
$report = PostgreSQL::Test::Utils::slurp_file($same_log);
note($report);
ok($checked && $report =~ /check: 0 differences/, 'a replay into the SCD2 tables changes nothing')
  or diag($report);

done_testing();
