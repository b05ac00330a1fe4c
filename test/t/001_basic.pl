# 001_basic.pl - the minimal setup of README works end to end.
#
# A user preloads cdc_kafka, allows the plugin, sets the broker and the
# database, and only then runs CREATE EXTENSION.  Until then the worker
# must wait visibly (pg_stat_activity says what for) without repeating
# itself in the log; once the extension exists it must start streaming by
# itself.  Then inserts, updates and deletes must reach
# <db>.<schema>.<table> with Debezium's keys, ops and tombstones, a primary
# key change must carry the __debezium.newkey/oldkey headers, a reload with
# cdc_kafka.schemas = off must restart the session with bare payloads, and
# the output plugin must also work when a walsender decodes with it
# (pg_recvlogical -P cdc_kafka; that path once crashed the server).
#
# test/t/001_basic.pl

use strict;
use warnings;
use FindBin;
use lib $FindBin::RealBin;

use PostgreSQL::Test::Cluster;
use PostgreSQL::Test::Utils;
use Test::More;
use JSON::PP;
use CdcKafka;

my $json = JSON::PP->new->allow_nonref;

my $kafka = CdcKafka::Cluster->start(nodes => 1, partitions => 1);
my $node = new_node('basic', bootstrap => $kafka->bootstrap, create_extension => 0,
	log_statement => 'all');

# ---- before CREATE EXTENSION: the worker waits, visibly and quietly ----------

my $activity = q{SELECT state || '|' || query FROM pg_stat_activity WHERE backend_type = 'cdc_kafka worker'};
ok( $node->poll_query_until('postgres', "SELECT count(*) FROM pg_stat_activity WHERE backend_type = 'cdc_kafka launcher'", '1'),
	'the launcher runs (pg_stat_activity backend_type "cdc_kafka launcher")');
ok( $node->poll_query_until('postgres', "SELECT ($activity) LIKE 'idle|waiting for CREATE EXTENSION cdc_kafka%'"),
	'before CREATE EXTENSION the worker is idle, its query says it waits for CREATE EXTENSION cdc_kafka');

# Wake the worker a few times (a reload sets its latch; it looks again each
# time and republishes its activity, which moves state_change): it must not
# log the same reason again.
my $state_change = q{SELECT state_change FROM pg_stat_activity WHERE backend_type = 'cdc_kafka worker'};
for my $i (1 .. 3)
{
	my $before = $node->safe_psql('postgres', $state_change);
	$node->safe_psql('postgres', 'SELECT pg_reload_conf()');
	ok( $node->poll_query_until('postgres', "SELECT ($state_change) > '$before'"),
		"woken by reload $i, the worker looked again");
}
is(log_count($node, qr/LOG:  waiting for CREATE EXTENSION cdc_kafka/), 1,
	'the log says once that the worker waits for CREATE EXTENSION, however often it looks');
like(slurp_log_from($node),
	qr/LOG:  waiting for CREATE EXTENSION cdc_kafka\n[^\n]*CONTEXT:  cdc_kafka worker for database "postgres"\n/,
	'the context of its messages names the worker and its database');

# ---- CREATE EXTENSION: streaming starts by itself ----------------------------

$node->safe_psql('postgres', 'CREATE EXTENSION cdc_kafka');
my $st = wait_streaming($node, timeout => 60);
ok($st, 'after CREATE EXTENSION the worker streams without being told');
like($st->{detail} // '', qr/streaming slot "cdc_kafka_postgres"/, 'status detail names the slot');
is($st->{slot_name}, 'cdc_kafka_postgres', 'status slot_name');
is($st->{publication}, 'cdc_kafka', 'status publication');
is($st->{topic_prefix}, 'postgres', 'topic prefix defaults to the database name');
is($st->{broker}, $kafka->bootstrap, 'status broker');
like($node->safe_psql('postgres', $activity), qr/^active\|streaming slot/,
	'pg_stat_activity shows the streaming worker as active');
is($node->safe_psql('postgres',
		"SELECT plugin || ' ' || slot_type FROM pg_replication_slots WHERE slot_name = 'cdc_kafka_postgres'"),
	'cdc_kafka logical', 'the worker created its logical slot with plugin cdc_kafka');
is($node->safe_psql('postgres', "SELECT puballtables FROM pg_publication WHERE pubname = 'cdc_kafka'"),
	't', 'and a FOR ALL TABLES publication');

# ---- inserts, updates, deletes, a key change ------------------------------

$node->safe_psql(
	'postgres', q{
CREATE TABLE items (id int PRIMARY KEY, name text NOT NULL, qty int);
BEGIN;
INSERT INTO items VALUES (1, 'one', 10), (2, 'two', 20), (3, 'three', 30);
COMMIT;
UPDATE items SET qty = 21 WHERE id = 2;
UPDATE items SET id = 33 WHERE id = 3;
DELETE FROM items WHERE id = 1;
});
ok(wait_caught_up($node), 'the worker confirmed everything (Kafka acknowledged it)');

ok(exists $kafka->topic_list->{'postgres.public.items'}, 'topic postgres.public.items exists');
my $recs = $kafka->consume('postgres.public.items', headers => 1);
decode_record($_) for @$recs;
my @got = map {
	my $id = $_->{key_payload}{id} // 'null';
	my $h = { @{ $_->{headers} } };
	my $hdr = join('', map { exists $h->{$_} ? " $_" : '' } qw(__debezium.newkey __debezium.oldkey));
	"$_->{op}:$id$hdr"
} @$recs;
is_deeply(
	\@got,
	[
		'c:1', 'c:2', 'c:3', 'u:2',
		'd:3 __debezium.newkey', 'tombstone:3 __debezium.newkey', 'c:33 __debezium.oldkey',
		'd:1', 'tombstone:1'
	],
	'records in commit order: creates, an update, a key change as delete + tombstone + create, a delete + tombstone'
) or diag(join("\n", @got));

my %by = map { ("$_->{op}:" . ($_->{key_payload}{id} // '')) => $_ } @$recs;
my $c1 = $by{'c:1'};
ok($c1 && $c1->{value} =~ /^\{"schema":/ && $c1->{key} =~ /^\{"schema":/,
	'schemas are on by default: key and value are {"schema":...,"payload":...}');
is_deeply($c1->{after}, { id => 1, name => 'one', qty => 10 }, 'create carries the row in after');
is($c1->{value_payload}{source}{table}, 'items', 'source.table');
is($c1->{value_payload}{source}{db}, 'postgres', 'source.db');
is($c1->{value_payload}{source}{connector}, 'postgresql', 'source.connector');
is($by{'u:2'}{after}{qty}, 21, 'update carries the new row');
is($by{'d:1'}{before}{id}, 1, 'delete carries the key in before');
ok(!defined $by{'d:1'}{after}, 'delete has no after');
ok(!defined $by{'tombstone:1'}{value}, 'tombstone value is null');
is($by{'tombstone:1'}{key}, $by{'d:1'}{key}, 'tombstone has the delete\'s key');

my $newkey_hdr = { @{ $by{'d:3'}{headers} } }->{'__debezium.newkey'};
my $oldkey_hdr = { @{ $by{'c:33'}{headers} } }->{'__debezium.oldkey'};
is($json->decode(payload_part($newkey_hdr // '{}'))->{id}, 33,
	'__debezium.newkey of the old key\'s delete is the new key');
is($json->decode(payload_part($oldkey_hdr // '{}'))->{id}, 3,
	'__debezium.oldkey of the new key\'s create is the old key');

ok($node->poll_query_until('postgres',
		"SELECT records = 9 FROM cdc_kafka.table_stats WHERE table_name = 'items'::regclass"),
	'cdc_kafka.table_stats counts the 9 acknowledged records of items');
$st = status($node);
cmp_ok($st->{records_sent}, '>=', 9, "status records_sent ($st->{records_sent})");
is($st->{inflight_records}, 0, 'nothing in flight');
cmp_ok($st->{lag_bytes}, '>=', 0, 'lag_bytes is shown');

# ---- cdc_kafka.schemas = off by ALTER SYSTEM + reload ----------------------

my $pid = worker_pid($node);
my $logpos = log_size($node);
$node->safe_psql('postgres', 'ALTER SYSTEM SET cdc_kafka.schemas = off');
$node->safe_psql('postgres', 'SELECT pg_reload_conf()');
ok(eval { $node->wait_for_log(qr/settings changed, restarting streaming/, $logpos); 1 },
	'the worker notices the reload and restarts its streaming session');
ok(wait_streaming($node), 'and streams again');
is(worker_pid($node), $pid, 'in the same process (a new session, not a crash)');

$node->safe_psql('postgres', "INSERT INTO items VALUES (50, 'fifty', 5)");
ok(wait_caught_up($node), 'the insert after the reload is acknowledged');
$recs = $kafka->consume('postgres.public.items');
my $last = decode_record($recs->[-1]);
is($last->{key}, '{"id":50}', 'with schemas off the key is the bare payload');
ok($last->{value} =~ /^\{"before":/ && $last->{value} !~ /^\{"schema":/,
	'with schemas off the value is the bare envelope');
is($last->{op}, 'c', 'op c');
is($last->{after}{name}, 'fifty', 'after.name');
is(scalar(@$recs), 10, 'no record was sent twice across the session restart');

# ---- the plugin in a walsender: pg_recvlogical -P cdc_kafka ----------------

my ($rc, $out, $err) = CdcKafka::run_cmd(
	[
		'pg_recvlogical', '-d', $node->connstr('postgres'), '--slot', 'recv',
		'--create-slot', '-P', 'cdc_kafka'
	],
	timeout => 60);
is($rc, 0, 'pg_recvlogical --create-slot -P cdc_kafka') or diag($err);

$node->safe_psql(
	'postgres', q{
INSERT INTO items VALUES (60, 'sixty', 6);
UPDATE items SET qty = 61 WHERE id = 60;
DELETE FROM items WHERE id = 60;
});
my $endpos = $node->safe_psql('postgres', 'SELECT pg_current_wal_insert_lsn()');
my $stdout = eval {
	$node->pg_recvlogical_upto('postgres', 'recv', $endpos, 60, output_format => 'record');
};
ok(defined $stdout, 'pg_recvlogical streams with -o output_format=record') or diag($@);
my @lines = grep { /^\{/ } split /\n/, $stdout // '';
my @ops = map {
	my $r = $json->decode($_);
	my $v = defined $r->{value} ? (ref $r->{value} ? $r->{value} : $json->decode($r->{value})) : undef;
	my $p = ref $v eq 'HASH' && exists $v->{payload} ? $v->{payload} : $v;
	"$r->{topic}:" . (defined $p ? $p->{op} : 'tombstone')
} @lines;
is_deeply(
	\@ops,
	[
		'postgres.public.items:c', 'postgres.public.items:u',
		'postgres.public.items:d', 'postgres.public.items:tombstone'
	],
	'walsender decoding gives the records with topics, ops and the tombstone') or diag($stdout);

# the default output format (the record's value), from where the slot is now
$node->safe_psql('postgres', "INSERT INTO items VALUES (70, 'seventy', 7)");
$endpos = $node->safe_psql('postgres', 'SELECT pg_current_wal_insert_lsn()');
$stdout = eval { $node->pg_recvlogical_upto('postgres', 'recv', $endpos, 60) };
ok(defined $stdout && $stdout =~ /"after":\{"id":70,"name":"seventy","qty":7\}/,
	'pg_recvlogical with the default output format gives the value') or diag($@ // $stdout);

is($node->safe_psql('postgres', 'SELECT 1'), '1', 'the server is still up');
is(log_count($node, qr/terminated by signal|server process .* was terminated|PANIC/), 0,
	'no backend crashed');
$node->safe_psql('postgres', "SELECT pg_drop_replication_slot('recv')");

# the worker kept streaming meanwhile
ok(wait_caught_up($node), 'the worker streamed the changes pg_recvlogical also read');
is($kafka->record_count('postgres.public.items'), 15, 'all 15 records of items are on the topic');

# heartbeats, when asked for: Debezium's key and value on __debezium-heartbeat.<prefix>
$node->safe_psql('postgres', "ALTER SYSTEM SET cdc_kafka.heartbeat_interval = '300ms'");
$node->reload;
ok($kafka->wait_for_records('__debezium-heartbeat.postgres', 3, 60), 'heartbeats arrive at the interval');
$node->safe_psql('postgres', "ALTER SYSTEM SET cdc_kafka.heartbeat_interval = 0");
$node->reload;
# read the topic once it stopped growing (kcat chases a topic still written)
my $hb_count = -1;
ok(poll_until(sub { my $n = $kafka->record_count('__debezium-heartbeat.postgres');
		my $same = $n == $hb_count; $hb_count = $n; $same && sleep(1) }, 60, 'heartbeats stop'),
	'heartbeats stop when the interval is set to 0');
my ($hb) = @{ $kafka->consume('__debezium-heartbeat.postgres') };
decode_record($hb);
is_deeply($hb->{key_payload}, { serverName => 'postgres' }, 'a heartbeat\'s key names the server (topic prefix)');
like($hb->{value_payload}{ts_ms} // '', qr/^\d{13}$/, 'its value carries ts_ms');
is($node->safe_psql('postgres', 'SELECT count(*) FROM cdc_kafka.table_stats WHERE table_name::text LIKE \'%heartbeat%\''),
	'0', 'heartbeats are not counted as table records');

$node->stop;
$kafka->stop;
done_testing();
