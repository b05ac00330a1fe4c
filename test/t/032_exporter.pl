# 032_exporter.pl - postgres_exporter with monitoring/postgres_exporter/queries.yaml
# scrapes a streaming worker, and the Grafana dashboard uses only its metrics.
#
# The exporter (installed by monitoring/postgres_exporter/install.sh, which
# test/run-all.sh runs as root) connects as a role that is only a member of
# pg_monitor, as README's Monitoring section says.  /metrics is scraped
# while the worker streams (every metric with its labels, the state gauge,
# a finished incremental snapshot, the per-table counters), after stop()
# with changes waiting (the lag in bytes covers the WAL written, records sent
# stand still), and once start() caught up: the counters moved by exactly the
# records of the changes made, the table's counters too, nothing in flight,
# and the lag came back down.  The dashboard must be valid JSON and name no
# metric that the queries file does not define.
#
# test/t/032_exporter.pl

use strict;
use warnings;
use FindBin;
use lib $FindBin::RealBin;

use PostgreSQL::Test::Cluster;
use PostgreSQL::Test::Utils;
use Test::More;
use HTTP::Tiny;
use IPC::Run;
use JSON::PP;
use CdcKafka;

my $root = "$FindBin::RealBin/../..";
my $queries = "$root/monitoring/postgres_exporter/queries.yaml";
my $dashboard = "$root/monitoring/grafana/cdc_kafka.json";
my $cache = $ENV{CDC_GO_CACHE} // '/var/cache/cdc_kafka/go';
my $exporter = "$cache/bin/postgres_exporter";

# Installed beforehand by run-all.sh; run alone, try to install it now
# (works as root, or with a cache this user can write).
if (!-x $exporter)
{
	my ($rc, $out, $err) =
	  CdcKafka::run_cmd([ 'bash', "$root/monitoring/postgres_exporter/install.sh" ], timeout => 900);
	diag("install.sh: $out$err") if $rc != 0;
}
plan skip_all => "postgres_exporter is not installed in $cache/bin and "
  . "monitoring/postgres_exporter/install.sh could not install it (no Go, or the cache is not writable; run it as root)"
  unless -x $exporter;

# ---- the files: the metrics the queries file defines, the dashboard's ----------

# Metric names of the queries file: <top-level key>_<column> of every
# column that is not a LABEL.  (The format is simple enough to read by
# indentation: no YAML module needed.)
sub defined_metrics
{
	my %m;
	my ($ns, $col);
	open(my $fh, '<', $queries) or die "$queries: $!";
	while (<$fh>)
	{
		if (/^([a-z_]+):\s*$/) { $ns = $1; }
		elsif (/^    - ([a-z_]+):\s*$/) { $col = $1; }
		elsif (/^        usage: "([A-Z]+)"/ && $1 ne 'LABEL') { $m{"${ns}_$col"} = $1; }
	}
	close $fh;
	return \%m;
}
my $defined = defined_metrics();
my @counters = sort grep { $defined->{$_} eq 'COUNTER' } keys %$defined;
is_deeply(\@counters,
	[qw(cdc_kafka_bytes_sent_total cdc_kafka_records_sent_total cdc_kafka_retries_total
		cdc_kafka_table_bytes_total cdc_kafka_table_records_total)],
	'the queries file defines the counters, each named *_total, everything else a gauge');
ok(!(grep { /_total$/ && $defined->{$_} ne 'COUNTER' } keys %$defined), 'no gauge is named *_total');

my ($rc, $out, $err) = CdcKafka::run_cmd([ 'python3', '-m', 'json.tool', $dashboard ]);
is($rc, 0, 'the Grafana dashboard is valid JSON (python3 -m json.tool)') or diag($err);
my $dash = JSON::PP->new->decode(slurp_file($dashboard));
my (%used, @exprs);
for my $panel (@{ $dash->{panels} })
{
	push @exprs, map { $_->{expr} } grep { defined $_->{expr} } @{ $panel->{targets} // [] };
}
for my $expr (@exprs) { $used{$1} = 1 while $expr =~ /\b(cdc_kafka_[a-z_]+)/g; }
my @missing = grep { !$defined->{$_} } sort keys %used;
is_deeply(\@missing, [], 'every metric the dashboard uses is defined by the queries file')
  or diag('missing: ' . join(', ', @missing));
ok(scalar(keys %used) >= 10, 'the dashboard uses ' . scalar(keys %used) . ' cdc_kafka metrics');
is((grep { $_->{name} eq 'datasource' && $_->{type} eq 'datasource' && $_->{query} eq 'prometheus' }
		@{ $dash->{templating}{list} }), 1, 'the dashboard\'s datasource is a Prometheus variable');

# ---- a node streaming, the exporter connected as a pg_monitor role -------------

my $kafka = CdcKafka::Cluster->start(nodes => 1, partitions => 1);
my $node = new_node('exporter', bootstrap => $kafka->bootstrap);
$node->safe_psql('postgres', q{
	CREATE TABLE public.orders (id int PRIMARY KEY, note text);
	INSERT INTO public.orders SELECT g, 'row ' || g FROM generate_series(1, 200) g;
	CREATE ROLE cdc_exporter LOGIN IN ROLE pg_monitor;
});
my $snap = $node->safe_psql('postgres', q{SELECT cdc_kafka.snapshot('public.orders')});
ok($node->poll_query_until('postgres',
		"SELECT state = 'done' FROM cdc_kafka.snapshots WHERE id = $snap"),
	'an incremental snapshot of orders is done');
ok(wait_caught_up($node), 'caught up before the first scrape');

# The worker publishes its per-table counts at most once a second, after the
# totals: wait until table_stats has every record of status (all of orders).
sub wait_table_stats
{
	return $node->poll_query_until('postgres', q{
		SELECT s.records_sent = t.records AND s.bytes_sent = t.bytes
		  FROM cdc_kafka.status s, cdc_kafka.table_stats t
		 WHERE t.table_name = 'public.orders'::regclass});
}
ok(wait_table_stats(), 'table_stats of orders has every record and byte sent');

my $port = PostgreSQL::Test::Cluster::get_free_port();
my $exporter_log = "$PostgreSQL::Test::Utils::log_path/postgres_exporter.log";
$ENV{DATA_SOURCE_NAME} = 'host=' . $node->host . ' port=' . $node->port
  . ' user=cdc_exporter dbname=postgres sslmode=disable';
my $h = IPC::Run::start(
	[ $exporter, "--extend.query-path=$queries", "--web.listen-address=127.0.0.1:$port",
		'--log.level=info' ],
	'<', \undef, '>', $exporter_log, '2>&1');
END { $h->kill_kill if $h && $h->pumpable; }

my $http = HTTP::Tiny->new(timeout => 30);

# Scrape /metrics: { name => [ [ {label => value}, value ], ... ] }.
sub scrape
{
	my $r = $http->get("http://127.0.0.1:$port/metrics");
	return undef unless $r->{success};
	# kept for a failure's post-mortem, next to the exporter's log
	PostgreSQL::Test::Utils::append_to_file("$PostgreSQL::Test::Utils::log_path/metrics.txt",
		"# ---- scrape at " . localtime() . "\n" . $r->{content});
	my %m;
	for my $line (split /\n/, $r->{content})
	{
		next if $line =~ /^#/ || $line !~ /^(\w+)(?:\{(.*)\})? (\S+)$/;
		my ($name, $labels, $value) = ($1, $2 // '', $3);
		my %l;
		$l{$1} = $2 while $labels =~ /(\w+)="((?:[^"\\]|\\.)*)"/g;
		push @{ $m{$name} }, [ \%l, $value ];
	}
	return \%m;
}

# The value of metric $name whose labels include %want (exactly one series).
sub value
{
	my ($m, $name, %want) = @_;
	my @hits = grep {
		my $l = $_->[0];
		!grep { ($l->{$_} // "\0") ne $want{$_} } keys %want
	} @{ $m->{$name} // [] };
	return @hits == 1 ? $hits[0][1] + 0 : undef;
}

my $s1;
ok(poll_until(sub { $s1 = scrape(); $s1 && $s1->{cdc_kafka_records_sent_total} }, 60,
		'the exporter serves cdc_kafka metrics'),
	'the exporter serves /metrics with the cdc_kafka metrics')
  or diag(slurp_file($exporter_log));

is(value($s1, 'pg_exporter_user_queries_load_error', filename => $queries), 0,
	'the queries file loads without error');
is(value($s1, 'pg_exporter_last_scrape_error'), 0, 'the scrape had no error (the role is enough)')
  or diag(slurp_file($exporter_log));

my %worker = (database => 'postgres', slot_name => 'cdc_kafka_postgres');
for my $name (grep { !/^cdc_kafka_(state|snapshot|table)_/ } sort keys %$defined)
{
	ok(defined value($s1, $name, %worker), "${name}{database=\"postgres\",slot_name=\"cdc_kafka_postgres\"}");
}
my @states = qw(starting waiting stopped snapshot streaming snapshotting blocked slot_lost error);
is_deeply([ map { value($s1, 'cdc_kafka_state_active', database => 'postgres', state => $_) } @states ],
	[ map { $_ eq 'streaming' ? 1 : 0 } @states ],
	'cdc_kafka_state_active: one series per state, 1 for streaming');
my %snap = (database => 'postgres', id => $snap, table_name => 'public.orders', kind => 'incremental',
	state => 'done');
is(value($s1, 'cdc_kafka_snapshot_rows_done', %snap), 200, 'cdc_kafka_snapshot_rows_done of the done snapshot: 200');
is(value($s1, 'cdc_kafka_snapshot_percent', %snap), 100, 'cdc_kafka_snapshot_percent: 100');
ok(defined value($s1, 'cdc_kafka_snapshot_rows_estimated', %snap), 'cdc_kafka_snapshot_rows_estimated');
my %orders = (database => 'postgres', schema => 'public', table => 'orders');
for my $name (qw(cdc_kafka_table_records_total cdc_kafka_table_bytes_total
	cdc_kafka_table_last_record_timestamp_seconds))
{
	ok(defined value($s1, $name, %orders), "$name\{schema=\"public\",table=\"orders\"}");
}
is(value($s1, 'cdc_kafka_worker_running', %worker), 1, 'cdc_kafka_worker_running: 1');
is(value($s1, 'cdc_kafka_retries_total', %worker), 0, 'cdc_kafka_retries_total: 0');
my $sql_sent = $node->safe_psql('postgres', 'SELECT records_sent FROM cdc_kafka.status');
is(value($s1, 'cdc_kafka_records_sent_total', %worker), $sql_sent,
	'cdc_kafka_records_sent_total is records_sent of cdc_kafka.status');

# ---- stopped, changes waiting: the lag covers them ----------------------------

$node->safe_psql('postgres', 'SELECT cdc_kafka.stop()');
ok(wait_state($node, 'stopped'), 'stopped');
my $lsn0 = $node->safe_psql('postgres', 'SELECT pg_current_wal_lsn()');
# 300 inserts of 2 kB, 100 updates, 50 deletes (a delete and its tombstone)
my ($inserts, $updates, $deletes) = (300, 100, 50);
$node->safe_psql('postgres', q{
	INSERT INTO public.orders SELECT g, repeat('x', 2000) FROM generate_series(1001, 1300) g;
	UPDATE public.orders SET note = 'changed' WHERE id BETWEEN 1 AND 100;
	DELETE FROM public.orders WHERE id BETWEEN 101 AND 150;
});
my $changes = $inserts + $updates + 2 * $deletes;
my $written = $node->safe_psql('postgres', "SELECT pg_wal_lsn_diff(pg_current_wal_lsn(), '$lsn0')");

my $s2 = scrape();
is(value($s2, 'cdc_kafka_state_active', database => 'postgres', state => 'stopped'), 1,
	'stopped: cdc_kafka_state_active{state="stopped"} is 1');
is(value($s2, 'cdc_kafka_state_active', database => 'postgres', state => 'streaming'), 0,
	'and {state="streaming"} 0');
is(value($s2, 'cdc_kafka_records_sent_total', %worker), value($s1, 'cdc_kafka_records_sent_total', %worker),
	'stopped: records sent stand still');
cmp_ok(value($s2, 'cdc_kafka_lag_bytes', %worker), '>=', $written,
	"stopped: cdc_kafka_lag_bytes covers the $written bytes of WAL written since");
cmp_ok(value($s2, 'cdc_kafka_slot_active', %worker), '==', 0, 'stopped: the slot is not active');

# ---- started again: scraped while it catches up, then the counters moved --------

$node->safe_psql('postgres', 'SELECT cdc_kafka.start()');
ok(scrape(), 'scraped while the worker catches up');
ok(wait_caught_up($node), 'caught up');
ok(wait_table_stats(), 'table_stats of orders has every record and byte sent');
my $s3 = scrape();
my $delta = sub { value($s3, $_[0], @_[ 1 .. $#_ ]) - value($s1, $_[0], @_[ 1 .. $#_ ]) };
is($delta->('cdc_kafka_records_sent_total', %worker), $changes,
	"cdc_kafka_records_sent_total moved by the $changes records of the changes ($inserts inserts, $updates updates, $deletes deletes with tombstones)");
is($delta->('cdc_kafka_table_records_total', %orders), $changes,
	'cdc_kafka_table_records_total of orders moved by as many');
my $bytes = $delta->('cdc_kafka_bytes_sent_total', %worker);
cmp_ok($bytes, '>', $inserts * 2000, "cdc_kafka_bytes_sent_total moved by $bytes bytes, more than the inserts' notes");
is($delta->('cdc_kafka_table_bytes_total', %orders), $bytes, 'cdc_kafka_table_bytes_total of orders by as many');
is(value($s3, 'cdc_kafka_inflight_records', %worker), 0, 'nothing in flight');
is(value($s3, 'cdc_kafka_lag_seconds', %worker), 0, 'cdc_kafka_lag_seconds: 0 once caught up');
my ($lag_b, $lag_c) = map { value($_, 'cdc_kafka_lag_bytes', %worker) } ($s2, $s3);
cmp_ok($lag_c, '<', 65536, "the lag came back down: $lag_b bytes stopped, $lag_c caught up");
is(value($s3, 'cdc_kafka_state_active', database => 'postgres', state => 'streaming'), 1, 'streaming again');
is(value($s3, 'cdc_kafka_slot_active', %worker), 1, 'the slot is active');
cmp_ok(value($s3, 'cdc_kafka_last_ack_timestamp_seconds', %worker), '>',
	value($s1, 'cdc_kafka_last_ack_timestamp_seconds', %worker), 'cdc_kafka_last_ack_timestamp_seconds moved on');
is(value($s3, 'cdc_kafka_retries_total', %worker), 0, 'no retries');

$h->kill_kill;
done_testing();
