# 006_refused_record.pl - a record Kafka refuses for good blocks the stream
# at that record, visibly, until the operator skips it.
#
# The topic of table docs only takes records of up to 20,000 bytes
# (max.message.bytes); some rows are 64 kB.  The worker must not drop such
# a record silently nor confirm past it: it must go to state 'blocked'
# naming the table, the key and the LSN of exactly that record (in
# cdc_kafka.status and in the log), keep the slot's confirmed position
# before it, and after cdc_kafka.skip_record('<lsn>') leave out that
# record only (and log it) and deliver everything else, including the
# transactions committed meanwhile.
#
# Two cases: the big row alone in its transaction (it travels alone to the
# broker), and the big row between small rows of the same transaction
# (they travel in the same produce batch, which the broker refuses whole:
# the worker must still name and skip the big row, not a neighbour).
#
# test/t/006_refused_record.pl

use strict;
use warnings;
use FindBin;
use lib $FindBin::RealBin;

use PostgreSQL::Test::Cluster;
use PostgreSQL::Test::Utils;
use Test::More;
use CdcKafka;

my $kafka = CdcKafka::Cluster->start(nodes => 1, partitions => 1);
$kafka->create_topic('postgres.public.docs', partitions => 1, config => { 'max.message.bytes' => 20000 });
my $node = new_node('refused', bootstrap => $kafka->bootstrap, log_statement => 'all');

$node->safe_psql('postgres', 'CREATE TABLE docs (id int PRIMARY KEY, body text)');
$node->safe_psql('postgres', "INSERT INTO docs SELECT g, 'small ' || g FROM generate_series(1, 3) g");
ok(wait_caught_up($node), 'small records go through');
is($kafka->record_count('postgres.public.docs'), 3, '3 records on the topic');

# 64 kB of hex digits: Kafka refuses it on this topic
my $BIG = q{(SELECT string_agg(md5(g::text), '') FROM generate_series(1, 2000) g)};

# ids delivered (not counting tombstones), with their number of deliveries
sub delivered
{
	my %count;
	for my $r (@{ $kafka->consume('postgres.public.docs') })
	{
		decode_record($r);
		$count{ $r->{key_payload}{id} }++ if defined $r->{value};
	}
	return \%count;
}

# The worker blocked on the big row $big_id, whose insert was written between
# $lsn_a and $lsn_b; rows @later were committed after it.  Check what the
# status and the log say, that nothing is confirmed past it, skip it, and
# check that everything else arrives.
sub check_blocked_and_skip
{
	my ($case, $big_id, $lsn_a, $lsn_b, $logpos, $expect_ids) = @_;

	my $st = wait_state($node, 'blocked', timeout => 60);
	ok($st, "$case: the worker goes to state blocked");
	$st //= {};
	is($st->{blocked_table}, 'public.docs', "$case: status names the table");
	like($st->{blocked_key} // '', qr/"payload":\{"id":$big_id\}/,
		"$case: status names the key of the refused record (id $big_id)");
	my $blsn = lsn_to_num($st->{blocked_lsn});
	ok(defined $blsn && $blsn >= lsn_to_num($lsn_a) && $blsn < lsn_to_num($lsn_b),
		"$case: status blocked_lsn " . ($st->{blocked_lsn} // 'NULL')
		  . " is the big row's insert (between $lsn_a and $lsn_b)");
	like($st->{detail} // '', qr/refused/i, "$case: detail says Kafka refused a record");
	like($st->{last_error} // '', qr/too large/i, "$case: last_error gives Kafka's reason (message size too large)")
	  or diag('last_error: ' . ($st->{last_error} // 'NULL'));
	like($st->{detail} // '', qr/skip_record\('[0-9A-F]+\/[0-9A-F]+'\)/, "$case: detail says how to skip it")
	  or diag('detail: ' . ($st->{detail} // 'NULL'));

	my ($logline) = slurp_log_from($node, $logpos) =~ /^(.*WARNING:.*Kafka refused a record.*)$/m;
	ok(defined $logline, "$case: the log has a WARNING about the refused record");
	like($logline // '', qr/table public\.docs/, "$case: naming the table");
	like($logline // '', qr/key .*"id":$big_id\}/, "$case: the key");
	like($logline // '', qr/at LSN (?!0\/0 )[0-9A-F]+\/[0-9A-F]+/, "$case: and the LSN");
	diag("$case log: $logline") if defined $logline && $logline !~ /"id":$big_id\}/;

	# nothing past the refused record is confirmed, even after later commits
	my $slot_confirmed = $node->safe_psql('postgres',
		"SELECT confirmed_flush_lsn FROM pg_replication_slots WHERE slot_name = 'cdc_kafka_postgres'");
	my $st2 = status($node);
	is($st2->{state}, 'blocked', "$case: still blocked after more commits");
	cmp_ok(lsn_to_num($st2->{confirmed_lsn}), '<', lsn_to_num($lsn_b),
		"$case: status confirmed_lsn $st2->{confirmed_lsn} stays before the refused record");
	cmp_ok(lsn_to_num($slot_confirmed), '<', lsn_to_num($lsn_b),
		"$case: the slot's confirmed_flush_lsn $slot_confirmed stays before it");

  SKIP:
	{
		skip "$case: the status shows no blocked_lsn to pass to skip_record()", 8 unless defined $blsn;

		$logpos = log_size($node);
		my $res = $node->safe_psql('postgres', "SELECT cdc_kafka.skip_record('$st->{blocked_lsn}')");
		like($res, qr/skipped the record of table public\.docs at LSN \Q$st->{blocked_lsn}\E/,
			"$case: skip_record answers");
		ok( eval {
				$node->wait_for_log(
					qr/skipping the record on topic "postgres\.public\.docs" at LSN \Q$st->{blocked_lsn}\E/, $logpos);
				1;
			},
			"$case: the skip is logged with topic and LSN");
		like(slurp_log_from($node, $logpos), qr/asked to skip the refused record of table public\.docs/,
			"$case: and who asked for it");
		my $done = wait_caught_up($node, timeout => 30);
		ok($done, "$case: after the skip everything committed is acknowledged");
		$st = status($node);
		is($st->{state}, 'streaming', "$case: state streaming");
		ok(!defined $st->{blocked_lsn} && !defined $st->{blocked_table},
			"$case: the status no longer shows a blocked record once streaming resumed")
		  or diag('blocked_table ' . ($st->{blocked_table} // 'NULL') . ', blocked_key '
			  . ($st->{blocked_key} // 'NULL') . ', blocked_lsn ' . ($st->{blocked_lsn} // 'NULL'));

		my $count = delivered();
		is_deeply([ sort { $a <=> $b } keys %$count ], $expect_ids,
			"$case: every record but the refused one was delivered")
		  or diag('delivered ids: ' . join(' ', sort { $a <=> $b } keys %$count));
		note("$case: deliveries per id: " . join(', ', map { "$_ x$count->{$_}" } sort { $a <=> $b } keys %$count));
		ok(!exists $count->{$big_id}, "$case: the refused record is not on the topic");
	}
}

# ---- case 1: the big row alone in its transaction ---------------------------------

my $logpos = log_size($node);
my ($lsn_a, $lsn_b) = split /\n/, $node->safe_psql(
	'postgres', qq{
SELECT pg_current_wal_insert_lsn();
INSERT INTO docs SELECT 5, $BIG;
SELECT pg_current_wal_insert_lsn();
});
ok(wait_state($node, 'blocked', timeout => 60), 'alone: blocked');
$node->safe_psql('postgres', "INSERT INTO docs VALUES (6, 'small 6'); INSERT INTO docs VALUES (7, 'small 7')");

my ($ret, $o, $err) = $node->psql('postgres', "SELECT cdc_kafka.skip_record('0/1')");
isnt($ret, 0, 'skip_record of an LSN that is not blocked fails');
like($err, qr/no refused record at LSN 0\/1/, 'saying so');

check_blocked_and_skip('alone', 5, $lsn_a, $lsn_b, $logpos, [ 1, 2, 3, 6, 7 ]);

# ---- case 2: the big row between small rows of its transaction ------------------------

ok(wait_streaming($node, timeout => 30), 'streaming before case 2');
$logpos = log_size($node);
($lsn_a, $lsn_b) = split /\n/, $node->safe_psql(
	'postgres', qq{
BEGIN;
INSERT INTO docs VALUES (10, 'small 10');
SELECT pg_current_wal_insert_lsn();
INSERT INTO docs SELECT 11, $BIG;
SELECT pg_current_wal_insert_lsn();
INSERT INTO docs VALUES (12, 'small 12');
COMMIT;
INSERT INTO docs VALUES (13, 'small 13');
});
check_blocked_and_skip('in a batch', 11, $lsn_a, $lsn_b, $logpos, [ 1, 2, 3, 6, 7, 10, 12, 13 ]);

$node->stop;
$kafka->stop;
done_testing();
