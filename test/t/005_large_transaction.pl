# 005_large_transaction.pl - one transaction of 1,000,000 rows streams
# completely with the worker's memory bounded.
#
# Logical decoding hands a transaction over whole at commit (the reorder
# buffer spills it to disk beyond logical_decoding_work_mem), so a huge
# transaction is where a streaming worker that buffers would blow up.  The
# worker must instead pause decoding at cdc_kafka.max_inflight_bytes of
# unacknowledged records.  Its memory is sampled from /proc/<pid>/status
# every 0.2 s (VmRSS, RssAnon) and VmHWM read at the end; the peak must
# stay under a bound (see $RSS_BOUND_MB) and every row must arrive once.
#
# Records are written without JsonConverter schemas and without the
# extended headers to keep the broker's disk use (and the test's time)
# reasonable: the in-flight cap is in bytes, so the record size does not
# change what is measured.
#
# test/t/005_large_transaction.pl

use strict;
use warnings;
use FindBin;
use lib $FindBin::RealBin;

use PostgreSQL::Test::Cluster;
use PostgreSQL::Test::Utils;
use Test::More;
use Time::HiRes qw(time);
use CdcKafka;

my $ROWS = 1_000_000;

# The bound.  What the worker may hold at once: up to 64 MB of records in
# flight (cdc_kafka.max_inflight_bytes), copied into librdkafka together
# with its per-message bookkeeping (a few hundred bytes for each of the
# ~200,000 records that fit in 64 MB: ~60 MB) and one ticket each (~14 MB);
# the reorder buffer's share (logical_decoding_work_mem = 64 MB while the
# transaction is decoded, and it reloads spilled changes in small batches
# when it replays); caches and the backend itself (~20 MB).  About 220 MB
# at worst; a worker that buffered the transaction would need several GB.
my $RSS_BOUND_MB = 300;

my $kafka = CdcKafka::Cluster->start(nodes => 1, partitions => 3);
my $node = new_node(
	'large',
	bootstrap => $kafka->bootstrap,
	log_statement => 'none',
	conf => q{
cdc_kafka.max_inflight_bytes = '64MB'
logical_decoding_work_mem = '64MB'
cdc_kafka.schemas = off
cdc_kafka.extended_headers_enabled = off
max_wal_size = 4GB
checkpoint_timeout = 30min
});

$node->safe_psql('postgres', 'CREATE TABLE big (id int PRIMARY KEY, ver int NOT NULL, pad text)');
$node->safe_psql('postgres', "INSERT INTO big VALUES (0, 0, 'warm up')");
ok(wait_caught_up($node), 'warm-up row acknowledged');

my $pid = worker_pid($node);
my $mb = sub { sprintf('%.1f MB', $_[0] / 1024) };

# Run one big transaction, sampling the worker's memory until Kafka has
# acknowledged all of it; returns the figures.
sub big_transaction
{
	my ($name, $sql) = @_;
	my $before = proc_memory($pid);
	my $sampler = start_rss_sampler($pid, interval => 0.2);
	my $t0 = time;
	$node->safe_psql('postgres', $sql);
	my $committed = time;
	my $st = wait_caught_up($node, timeout => 900);
	ok($st, "$name: the $ROWS-row transaction was acknowledged completely");
	my $done = time;
	my $rss = stop_rss_sampler($sampler);
	my $after = proc_memory($pid);
	is(worker_pid($node), $pid, "$name: by the same worker process (no restart on the way)");
	my %f = (
		write_s => $committed - $t0,
		stream_s => $done - $committed,
		before_rss => $before->{VmRSS},
		before_anon => $before->{RssAnon},
		max_rss => $rss->{max_rss},
		max_anon => $rss->{max_anon},
		hwm => $after->{VmHWM} // $rss->{max_hwm},
		after_anon => $after->{RssAnon},
		samples => $rss->{samples});
	my $spilled = $node->safe_psql('postgres',
		"SELECT pg_size_pretty(sum(spill_bytes)) || ' in ' || sum(spill_count) || ' spills so far' FROM pg_stat_replication_slots");
	$f{report} = sprintf(
		'%s: written in %.1f s, streamed in %.1f s after commit (%.0f records/s); worker VmRSS before %s '
		  . '(RssAnon %s), peak VmRSS %s, peak RssAnon %s, VmHWM %s, RssAnon after %s; %d samples; '
		  . 'reorder buffer spilled %s',
		$name, $f{write_s}, $f{stream_s}, $ROWS / ($f{stream_s} || 1), $mb->($f{before_rss}),
		$mb->($f{before_anon}), $mb->($f{max_rss}), $mb->($f{max_anon}), $mb->($f{hwm}),
		$mb->($f{after_anon}), $f{samples}, $spilled // '?');
	diag("005 $f{report}");
	cmp_ok($f{samples}, '>', 10, "$name: memory was sampled while the transaction streamed");
	cmp_ok($f{hwm}, '<', $RSS_BOUND_MB * 1024,
		"$name: worker VmHWM stays under $RSS_BOUND_MB MB (" . $mb->($f{hwm}) . ')');
	cmp_ok($f{max_anon}, '<', $RSS_BOUND_MB * 1024,
		"$name: worker peak RssAnon stays under $RSS_BOUND_MB MB (" . $mb->($f{max_anon}) . ')');
	return \%f;
}

my $ins = big_transaction('insert',
	"INSERT INTO big SELECT g, 1, 'row ' || g || ' ' || repeat('x', 40) FROM generate_series(1, $ROWS) g");
my $upd = big_transaction('update', 'UPDATE big SET ver = 2 WHERE id > 0');

# A second transaction as big as the first must not need more memory: what
# the first one left allocated (malloc keeps freed memory) is reused, and
# nothing grows per record.
cmp_ok($upd->{max_anon}, '<', $ins->{max_anon} + 32 * 1024,
	'the second 1M-row transaction peaks no higher than the first (+32 MB): nothing accumulates ('
	  . $mb->($ins->{max_anon}) . ' then ' . $mb->($upd->{max_anon}) . ')');

# every row, once, as a create then an update
my ($records, $dups, $bad) = (0, 0, 0);
my ($created, $updated) = ('', '');
$kafka->consume_each(
	'postgres.public.big',
	sub {
		my ($r) = @_;
		$records++;
		my ($id) = $r->{key} =~ /^\{"id":(\d+)\}$/;
		my ($op) = ($r->{value} // '') =~ /"op":"([cu])"/;
		if (!defined $id || !defined $op)
		{
			$bad++;
			return;
		}
		my $bits = $op eq 'c' ? \$created : \$updated;
		if (vec($$bits, $id, 1))
		{
			$dups++;
		}
		else
		{
			vec($$bits, $id, 1) = 1;
		}
	});
is(unpack('%32b*', $created), $ROWS + 1, "all $ROWS inserted rows (and the warm-up row) arrived");
is(unpack('%32b*', $updated), $ROWS, "all $ROWS updated rows arrived");
is($dups, 0, 'none twice');
is($bad, 0, 'every record a create or an update with a key');
is($records, 2 * $ROWS + 1, "the topic holds $records records");
diag("005: $records records, $dups duplicates");

$node->stop;
$kafka->stop;
done_testing();
