# 034_exactly_once.pl - exactly-once delivery: a huge transaction, fencing,
# switching modes, an offsets topic that cannot be used.
#
#   (a) a 1,000,000-row insert in cdc_kafka.delivery = exactly_once: every
#       row once for a read_committed consumer, the worker's memory bounded
#       (sampled from /proc as in 005), and the transaction split into
#       Kafka transactions of cdc_kafka.transaction_max_records (default
#       100,000): status.kafka_transactions grows by at least 10.  Then a
#       1,000,000-row update during which the worker is killed (kill -9)
#       once part of it is committed in Kafka (status.kafka_committed_index
#       >= 0): the next worker goes on after the last committed part, every
#       row's update once (at_least_once sends the whole transaction again).
#   (b) fencing: a copy of the server (its data directory, copied while it
#       was stopped for a moment, so the copy has the slot; pg_basebackup
#       leaves slots out: what such a copy does is reported) started on
#       another port with the same settings has the same transactional id:
#       its producer fences the original's.  The original worker must go to
#       state fenced, last_error saying so, log it once and stay so (no
#       retry loop) for 15 s while rows keep coming; what the copy does is
#       reported.
#   (c) a stream switched at_least_once -> exactly_once -> at_least_once ->
#       exactly_once by ALTER SYSTEM and pg_reload_conf() under pgbench: no
#       change missing or twice for a read_committed consumer (README: each
#       session ends committing what is open, the next starts from the
#       slot), each key in commit order, status.delivery follows each switch.
#   (d) cdc_kafka.offsets_topic naming a topic the worker cannot keep its
#       position in (not compacted; or with a max.message.bytes too small
#       for a position record): a clear error in status.last_error naming
#       the topic, no records delivered meanwhile, the changes delivered
#       once the setting is reset.
#
# CDC_EOS_DELIVERY=at_least_once runs the same checks with the worker in that
# mode, to see them fail.
#
# test/t/034_exactly_once.pl

use strict;
use warnings;
use FindBin;
use lib $FindBin::RealBin;

use PostgreSQL::Test::Cluster;
use PostgreSQL::Test::Utils;
use Test::More;
use Time::HiRes qw(time usleep);
use CdcKafka;

my $DELIVERY = $ENV{CDC_EOS_DELIVERY} // 'exactly_once';
my $ROWS = 1_000_000;
my $UPDATE_ROWS = $ROWS;
my $MAX_RECORDS = 100_000;    # cdc_kafka.transaction_max_records' default
my $RSS_BOUND_MB = 300;       # as 005: what at most 64 MB in flight costs
my $mb = sub { sprintf('%.1f MB', $_[0] / 1024) };
my %figures;

my $kafka = CdcKafka::Cluster->start(nodes => 1, partitions => 3);
my $conf = qq{
restart_after_crash = on
cdc_kafka.delivery = '$DELIVERY'
cdc_kafka.max_inflight_bytes = '64MB'
logical_decoding_work_mem = '64MB'
cdc_kafka.schemas = off
cdc_kafka.extended_headers_enabled = off
max_wal_size = 4GB
checkpoint_timeout = 30min
};
my $node = new_node('eos', bootstrap => $kafka->bootstrap, log_statement => 'none', conf => $conf);

# Read a topic with read_committed: (records, distinct ids by op, repeats).
sub read_ids
{
	my ($topic) = @_;
	$kafka->wait_committed_settled([$topic], 120);
	my ($records, $dups, $bad) = (0, 0, 0);
	my %bits = (c => '', u => '');
	$kafka->consume_each(
		$topic,
		sub {
			my ($r) = @_;
			$records++;
			my ($id) = ($r->{key} // '') =~ /^\{"id":(\d+)\}$/;
			my ($op) = ($r->{value} // '') =~ /"op":"([cu])"/;
			if (!defined $id || !defined $op)
			{
				$bad++;
				return;
			}
			if (vec($bits{$op}, $id, 1)) { $dups++; }
			else { vec($bits{$op}, $id, 1) = 1; }
		},
		isolation => 'read_committed');
	return {
		records => $records,
		dups => $dups,
		bad => $bad,
		created => unpack('%32b*', $bits{c}),
		updated => unpack('%32b*', $bits{u}) };
}

# ---- (a) one transaction of 1,000,000 rows ----------------------------------------

is((status($node) // {})->{delivery}, $DELIVERY, "a: status.delivery is $DELIVERY");
$node->safe_psql('postgres', 'CREATE TABLE big (id int PRIMARY KEY, ver int NOT NULL, pad text)');
$node->safe_psql('postgres', "INSERT INTO big VALUES (0, 0, 'warm up')");
ok(wait_caught_up($node), 'a: warm-up row acknowledged');
my $st0 = status($node);
my $pid = worker_pid($node);
{
	my $before = proc_memory($pid);
	my $sampler = start_rss_sampler($pid, interval => 0.2);
	my $t0 = time;
	$node->safe_psql('postgres',
		"INSERT INTO big SELECT g, 1, 'row ' || g || ' ' || repeat('x', 40) FROM generate_series(1, $ROWS) g");
	my $committed = time;
	my $st = wait_caught_up($node, timeout => 900);
	ok($st, "a: the $ROWS-row transaction was acknowledged completely");
	my $done = time;
	my $rss = stop_rss_sampler($sampler);
	my $after = proc_memory($pid);
	is(worker_pid($node), $pid, 'a: by the same worker process');
	my $hwm = $after->{VmHWM} // $rss->{max_hwm};
	$figures{a_insert} = sprintf(
		'streamed in %.1f s after commit (written in %.1f s); worker VmRSS before %s, peak VmRSS %s, '
		  . 'peak RssAnon %s, VmHWM %s; %d samples',
		$done - $committed, $committed - $t0, $mb->($before->{VmRSS}), $mb->($rss->{max_rss}),
		$mb->($rss->{max_anon}), $mb->($hwm), $rss->{samples});
	cmp_ok($rss->{samples}, '>', 10, 'a: memory sampled while the transaction streamed');
	cmp_ok($hwm, '<', $RSS_BOUND_MB * 1024, "a: worker VmHWM under $RSS_BOUND_MB MB (" . $mb->($hwm) . ')');
	cmp_ok($rss->{max_anon}, '<', $RSS_BOUND_MB * 1024,
		"a: worker peak RssAnon under $RSS_BOUND_MB MB (" . $mb->($rss->{max_anon}) . ')');

	my $txns = ($st->{kafka_transactions} // 0) - ($st0->{kafka_transactions} // 0);
	cmp_ok($txns, '>=', $ROWS / $MAX_RECORDS,
		"a: split into Kafka transactions of at most $MAX_RECORDS records (kafka_transactions +$txns)");
	$figures{a_insert} .= "; kafka_transactions +$txns";

	my $r = read_ids('postgres.public.big');
	is($r->{created}, $ROWS + 1, "a: read_committed: all $ROWS rows (and the warm-up row)");
	is($r->{dups}, 0, 'a: read_committed: none twice');
	is($r->{records}, $ROWS + 1, "a: read_committed: $r->{records} records");
	is($r->{bad}, 0, 'a: every record a create with a key');
}

# The worker killed in the middle of a large transaction, once part of it is
# committed in Kafka.
{
	my $st1 = status($node);
	my $base_sent = $st1->{records_sent};
	my $base_txns = $st1->{kafka_transactions} // 0;
	# decoding hands the transaction over at its commit: all of it streams after
	$node->safe_psql('postgres', "UPDATE big SET ver = 2 WHERE id BETWEEN 1 AND $UPDATE_ROWS");
	my $t_commit = time;
	# kill the worker while a part of the transaction is committed in Kafka
	# (kafka_committed_index >= 0: the last Kafka transaction ended inside
	# this PostgreSQL transaction) and the rest is not; in at_least_once,
	# with 20-80 % of it sent
	my ($st, $sent, $part);
	my $deadline = time + 600;
	while (time < $deadline)
	{
		$st = status($node) or next;
		$sent = $st->{records_sent} - $base_sent;
		last if $sent >= $UPDATE_ROWS;
		if ($DELIVERY eq 'exactly_once'
			? ($st->{kafka_committed_index} // -1) >= 0
			: $sent >= 0.2 * $UPDATE_ROWS && $sent <= 0.8 * $UPDATE_ROWS)
		{
			$part = 1;
			last;
		}
		usleep(30_000);
	}
	ok($part, "a: the worker caught with part of the update in Kafka ($sent records sent, "
		  . 'kafka_transactions +' . (($st->{kafka_transactions} // 0) - $base_txns) . ', committed lsn '
		  . ($st->{kafka_committed_lsn} // 'null') . ' index ' . ($st->{kafka_committed_index} // 'null') . ')');
	my $pos = log_size($node);
	my $t_kill = time;
	kill 'KILL', $st->{pid};
	$node->wait_for_log(qr/all server processes terminated; reinitializing/, $pos);
	wait_server($node);
	ok(wait_streaming($node, timeout => 120), 'a: a new worker streams');
	ok(wait_caught_up($node, timeout => 900), 'a: and caught up');
	my $r = read_ids('postgres.public.big');
	is($r->{updated}, $UPDATE_ROWS, "a: read_committed: all $UPDATE_ROWS updates");
	is($r->{dups}, 0, 'a: read_committed: none twice after the kill (the next worker went on after the committed part)');
	is($r->{records}, $ROWS + 1 + $UPDATE_ROWS, "a: read_committed: $r->{records} records");
	$figures{a_update_kill} = sprintf('killed %.1f s after the commit at %s records sent (%s), then %d records, %d duplicates',
		$t_kill - $t_commit, $sent, $DELIVERY eq 'exactly_once' ? "committed index $st->{kafka_committed_index}" : 'at_least_once',
		$r->{records}, $r->{dups});
}

# ---- (b) fencing: a copy of the server with the same identity -------------------------

{
	$node->safe_psql('postgres', 'CREATE TABLE fence (id int PRIMARY KEY)');
	$node->safe_psql('postgres', 'INSERT INTO fence SELECT generate_series(1, 100)');
	ok(wait_caught_up($node), 'b: streaming before the copy');
	my $tid = (status($node) // {})->{transactional_id} // '';
	like($tid, qr/^cdc_kafka-\d+-\d+-cdc_kafka_postgres$/, "b: transactional_id $tid");

	# pg_basebackup leaves the slots out: a copy made so has no slot of its
	# own and must not stream (nor fence the original) unless told to
	$node->backup('basebackup');
	my $bb = PostgreSQL::Test::Cluster->new('basebackup', install_paths());
	$bb->init_from_backup($node, 'basebackup');
	push @CdcKafka::nodes, $bb;
	$bb->start;
	my $bst;
	poll_until(sub { $bst = status($bb); $bst && $bst->{state} !~ /^(starting|waiting|snapshot)$/ }, 60,
		'the pg_basebackup copy settled');
	$bst //= {};
	$figures{b_basebackup_copy} = sprintf('state %s, last_error %s, records_sent %s',
		$bst->{state} // 'none', $bst->{last_error} // 'null', $bst->{records_sent} // 'null');
	ok(($bst->{state} // '') eq 'streaming' || ($bst->{last_error} // '') =~ /\S/,
		"b: a pg_basebackup copy streams or says why not ($figures{b_basebackup_copy})");
	$bb->stop('fast');
	$node->safe_psql('postgres', 'INSERT INTO fence SELECT generate_series(101, 110)');
	ok(wait_caught_up($node), 'b: the original still delivers');
	$node->safe_psql('postgres', 'DELETE FROM fence WHERE id > 100');

	# a copy of the data directory (slot included); the original runs on
	$node->stop('fast');
	$node->backup_fs_cold('copy');
	$node->start;
	ok(wait_streaming($node, timeout => 120), 'b: the original streams again');
	$node->safe_psql('postgres', 'INSERT INTO fence SELECT generate_series(101, 200)');
	ok(wait_caught_up($node), 'b: and delivers');
	# 100 creates, 10 creates and 10 deletes with their tombstones, 100 creates
	is($kafka->wait_committed_settled(['postgres.public.fence']), 230, 'b: every row of the original in Kafka');

	my $copy = PostgreSQL::Test::Cluster->new('copy', install_paths());
	$copy->init_from_backup($node, 'copy');
	push @CdcKafka::nodes, $copy;
	$copy->start;
	my $cst;
	poll_until(sub { $cst = status($copy); $cst && $cst->{state} =~ /^(streaming|error|fenced|slot_lost)$/ },
		90, 'the copy streaming or failing');
	$cst = status($copy) // {};
	ok($tid ne '' && (($cst->{transactional_id} // '') eq $tid || ($cst->{last_error} // '') =~ /\Q$tid\E/),
		'b: the copy streams under the same transactional id (its status names it)');

	# the original finds out when it next writes to Kafka
	my $pos = log_size($node);
	my $i = 200;
	my $ost;
	my $fenced = poll_until(
		sub {
			$node->safe_psql('postgres', 'INSERT INTO fence VALUES (' . ++$i . ')');
			$ost = status($node);
			return $ost && $ost->{state} eq 'fenced';
		},
		60,
		'the original fenced');
	ok($fenced, 'b: the original worker is in state fenced')
	  or diag('original: ' . encode_json_safe($ost));
	like($ost->{last_error} // '', qr/fenced/i, 'b: its last_error says fenced: ' . ($ost->{last_error} // 'null'));

	# and stays so without retrying, while rows keep coming
	my $lines0 = log_count($node, qr/fenced/i, $pos);
	my $size0 = log_size($node);
	my %states;
	my $t0 = time;
	poll_until(
		sub {
			$node->safe_psql('postgres', 'INSERT INTO fence VALUES (' . ++$i . ')');
			my $s = status($node);
			$states{ $s ? $s->{state} : 'none' }++;
			return time - $t0 >= 15;
		},
		30,
		'15 s');
	my $lines1 = log_count($node, qr/fenced/i, $pos);
	is(join(',', sort keys %states), 'fenced', 'b: the original stays fenced for 15 s ('
		  . join(', ', map { "$_ x$states{$_}" } sort keys %states) . ')');
	cmp_ok($lines0, '>=', 1, "b: the fence is logged ($lines0 line(s))");
	is($lines1, $lines0, 'b: and not again while it stays fenced (no retry loop)');
	my $grown = log_size($node) - $size0;
	cmp_ok($grown, '<', 4096, "b: the original's log grew by $grown bytes in those 15 s");

	$cst = status($copy) // {};
	$figures{b_copy} = sprintf('the copy: state %s, last_error %s, records_sent %s',
		$cst->{state} // 'none', $cst->{last_error} // 'null', $cst->{records_sent} // 'null');
	ok(($cst->{state} // '') eq 'streaming' || ($cst->{last_error} // '') =~ /\S/,
		"b: the copy streams or says why not ($figures{b_copy})");
	$copy->stop('fast');
	$node->stop('fast');
}

# ---- (c) switching modes while rows are written ---------------------------------------

my @sw = qw(sw_a sw_b sw_c);
my $sw = new_node('switch', bootstrap => $kafka->bootstrap, log_statement => 'none',
	conf => "cdc_kafka.delivery = 'at_least_once'\n");
{
	create_versioned_tables($sw, \@sw);
	fill_versioned_tables($sw, \@sw, 1000, batch => 500);
	my $pg = start_pgbench($sw, tables => \@sw, rows => 1000, clients => 2, jobs => 1, rate => 100,
		time => 45);
	my @steps;
	for my $mode (qw(at_least_once exactly_once at_least_once exactly_once))
	{
		if ($mode ne ((status($sw) // {})->{delivery} // ''))
		{
			$sw->safe_psql('postgres', "ALTER SYSTEM SET cdc_kafka.delivery = '$mode'");
			$sw->safe_psql('postgres', 'SELECT pg_reload_conf()');
		}
		my $s;
		my $ok = poll_until(
			sub { $s = status($sw); return $s && ($s->{delivery} // '') eq $mode && $s->{state} eq 'streaming' },
			90, "streaming $mode");
		ok($ok, "c: status.delivery follows the switch to $mode") or diag('status: ' . encode_json_safe($s));
		# stay in this mode for 1,000 records
		my $base = $s->{records_sent} // 0;
		poll_until(sub { $s = status($sw); return $s && $s->{records_sent} >= $base + 1000 }, 60,
			"1000 records in $mode");
		push @steps, "$mode: records_sent $s->{records_sent}, kafka_transactions " . ($s->{kafka_transactions} // 'null');
	}
	my ($rc, $out, $err) = finish_pgbench($pg);
	is($rc, 0, 'c: pgbench ran through the switches') or diag($err);
	ok(wait_caught_up($sw, timeout => 300), 'c: caught up');
	my ($exp, $changes) = expected_versions($sw, \@sw);
	$kafka->wait_committed_settled([ map { "postgres.public.$_" } @sw ]);
	my $sum = verify_versioned(
		kafka => $kafka,
		prefix => 'postgres',
		tables => \@sw,
		expected => $exp,
		partitions => 3,
		isolation => 'read_committed');
	is($sum->{missing}, 0, "c: read_committed: every committed change ($changes) through the switches");
	is($sum->{duplicates}, 0, 'c: nothing twice (README: the next session starts from the slot, where the last ended)');
	is($sum->{unexpected}, 0, 'c: nothing that was not committed');
	is($sum->{out_of_order}, 0, "c: each key's changes in commit order");
	$figures{c_switch} = "$changes changes, $sum->{records} records, $sum->{duplicates} duplicates; "
	  . join('; ', @steps);
}

# ---- (d) an offsets topic the worker cannot use ------------------------------------------

# Topics named by cdc_kafka.offsets_topic that the worker must not use:
# one that deletes old records (cleanup.policy delete: a position would
# vanish after retention.ms), refused at start; and one whose
# max.message.bytes (120) takes a transaction marker (78 bytes) but no
# position record (a 50-byte key and its LSN alone need more), refused by
# the broker at the first transaction.  Either way a clear error and
# nothing delivered; with the setting reset the changes arrive once.
$sw->safe_psql('postgres', "ALTER SYSTEM SET cdc_kafka.delivery = '$DELIVERY'");
$sw->safe_psql('postgres', 'SELECT pg_reload_conf()');
poll_until(sub { my $s = status($sw); $s && ($s->{delivery} // '') eq $DELIVERY && $s->{state} eq 'streaming' },
	60, "streaming $DELIVERY");
for my $case ([ 'eos_plain_offsets', { 'cleanup.policy' => 'delete' } ],
	[ 'eos_tiny_offsets', { 'cleanup.policy' => 'compact', 'max.message.bytes' => 120 } ])
{
	my ($topic, $config) = @$case;
	$kafka->create_topic($topic, partitions => 1, config => $config);
	$sw->safe_psql('postgres', "ALTER SYSTEM SET cdc_kafka.offsets_topic = '$topic'");
	$sw->safe_psql('postgres', 'SELECT pg_reload_conf()');
	my $before = $kafka->count_records('postgres.public.sw_a', isolation => 'read_committed');
	$sw->safe_psql('postgres', 'UPDATE sw_a SET ver = ver + 1 WHERE id <= 10');
	my $s;
	my $ok = poll_until(
		sub { $s = status($sw); return $s && ($s->{last_error} // '') =~ /\Q$topic\E/ && $s->{state} ne 'streaming' },
		60,
		"an error about $topic");
	ok($ok, "d: $topic: the worker does not stream (state " . ($s->{state} // 'none') . ')');
	like($s->{last_error} // '', qr/\Q$topic\E/, "d: $topic: status.last_error names it: " . ($s->{last_error} // 'null'));
	is($kafka->count_records('postgres.public.sw_a', isolation => 'read_committed'),
		$before, "d: $topic: nothing delivered without its position");
	$figures{"d_$topic"} = 'state ' . ($s->{state} // 'none') . ', last_error ' . ($s->{last_error} // 'null');

	# the setting corrected: the changes arrive
	$sw->safe_psql('postgres', 'ALTER SYSTEM RESET cdc_kafka.offsets_topic');
	$sw->safe_psql('postgres', 'SELECT pg_reload_conf()');
	ok(wait_streaming($sw, timeout => 90), "d: $topic: streaming again with the default offsets topic");
	ok(wait_caught_up($sw, timeout => 90), "d: $topic: and caught up");
	$kafka->wait_committed_settled(['postgres.public.sw_a']);
	is($kafka->count_records('postgres.public.sw_a', isolation => 'read_committed'),
		$before + 10, "d: $topic: then the 10 changes arrive once");
}

diag("034 $DELIVERY $_: $figures{$_}") for sort keys %figures;

sub encode_json_safe
{
	my ($h) = @_;
	return $h ? JSON::PP->new->canonical->encode($h) : 'none';
}

$sw->stop;
$kafka->stop;
done_testing();
