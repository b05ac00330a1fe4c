# 002_settings.pl - settings, the allow-list, the SQL controls and secrets.
#
# What an operator does to a running cdc_kafka, and what must hold:
#  * a bad value is rejected with the setting's name, by ALTER SYSTEM and
#    by a reload of postgresql.conf (the worker then keeps streaming with
#    the settings it had); librdkafka properties are checked by librdkafka,
#    the ones cdc_kafka's guarantees rest on cannot be overridden, and
#    secrets are refused with a pointer to cdc_kafka.kafka_secrets_file;
#  * without cdc_kafka in output_plugin_libraries the worker waits, saying
#    which line to add, and streams once it is added and reloaded;
#  * cdc_kafka.stop()/start()/restart() act and show in cdc_kafka.status;
#    stop() survives a server restart;
#  * a secret from the secrets file never shows in the status view or the
#    server log (nor does one wrongly put in postgresql.conf);
#  * a worker pointed at a broker that does not answer, whose in-flight
#    limit is full, still takes the corrected setting on reload.
#
# test/t/002_settings.pl

use strict;
use warnings;
use FindBin;
use lib $FindBin::RealBin;

use PostgreSQL::Test::Cluster;
use PostgreSQL::Test::Utils;
use Test::More;
use JSON::PP;
use CdcKafka;

my $kafka = CdcKafka::Cluster->start(nodes => 1, partitions => 1);
my $bs = $kafka->bootstrap;

# ---- cdc_kafka missing from output_plugin_libraries -------------------------

my $node = new_node('settings', bootstrap => $bs, plugin_allowed => 0, wait => 0,
	log_statement => 'all');
my $st = wait_state($node, 'waiting', timeout => 30);
like($st->{detail} // '', qr/output_plugin_libraries/,
	'without the plugin in output_plugin_libraries the worker waits, naming the setting');
like($st->{detail} // '',
	qr/output_plugin_libraries = 'pgoutput, test_decoding, cdc_kafka'/,
	'and giving the line to add');
ok( $node->poll_query_until('postgres',
		"SELECT count(*) FROM pg_stat_activity WHERE backend_type = 'cdc_kafka worker' AND query LIKE '%output_plugin_libraries%'", '1'),
	'pg_stat_activity shows the same reason');
for my $i (1 .. 2)
{
	my $q = q{SELECT state_change FROM pg_stat_activity WHERE backend_type = 'cdc_kafka worker'};
	my $before = $node->safe_psql('postgres', $q);
	$node->safe_psql('postgres', 'SELECT pg_reload_conf()');
	$node->poll_query_until('postgres', "SELECT ($q) > '$before'");
}
is(log_count($node, qr/WARNING:  waiting for cdc_kafka to be listed in output_plugin_libraries/),
	1, 'the server log warns once, with the reason');
is($node->safe_psql('postgres', 'SELECT count(*) FROM pg_replication_slots'), '0',
	'no slot was created meanwhile');

$node->adjust_conf('postgresql.conf', 'output_plugin_libraries', "'pgoutput, test_decoding, cdc_kafka'");
$node->reload;
ok(wait_streaming($node, timeout => 30), 'after adding cdc_kafka and reloading, the worker streams');

$node->safe_psql('postgres', 'CREATE TABLE prices (id int PRIMARY KEY, amount numeric(10,2), note text)');
$node->safe_psql('postgres', "INSERT INTO prices VALUES (1, 12.34, 'first')");
ok(wait_caught_up($node), 'first change acknowledged');
is($kafka->record_count('postgres.public.prices'), 1, 'and on its topic');

# ---- bad values are rejected with the setting's name ------------------------

sub alter_fails
{
	my ($setting, $value, $re, $what) = @_;
	my ($ret, $out, $err) = $node->psql('postgres', "ALTER SYSTEM SET $setting = '$value'");
	isnt($ret, 0, "ALTER SYSTEM SET $setting = '$value' fails");
	like($err, $re, $what);
	return $err;
}

alter_fails('cdc_kafka.decimal_handling_mode', 'exact',
	qr/invalid value for parameter "cdc_kafka\.decimal_handling_mode": "exact".*\n.*Available values: precise, double, string/,
	'decimal_handling_mode: named, with the allowed values');
alter_fails('cdc_kafka.kafka_properties', 'no.such.property=1',
	qr/"cdc_kafka\.kafka_properties".*\n.*no\.such\.property/,
	'kafka_properties: librdkafka refuses the unknown property, named in the error');
alter_fails('cdc_kafka.kafka_properties', 'linger.ms=5; enable.idempotence=false',
	qr/"cdc_kafka\.kafka_properties".*\n.*enable\.idempotence.*set by cdc_kafka/,
	'kafka_properties: enable.idempotence cannot be overridden');
alter_fails('cdc_kafka.kafka_properties', 'acks=1',
	qr/"cdc_kafka\.kafka_properties".*\n.*acks.*set by cdc_kafka/, 'nor acks');
alter_fails('cdc_kafka.kafka_properties', 'message.timeout.ms=1000',
	qr/"cdc_kafka\.kafka_properties".*\n.*message\.timeout\.ms.*set by cdc_kafka/, 'nor message.timeout.ms');
alter_fails('cdc_kafka.kafka_properties', 'compression.type=zip',
	qr/"cdc_kafka\.kafka_properties".*\n.*compression\.type/, 'a bad value of a real property is refused too');
my $err = alter_fails('cdc_kafka.kafka_properties', 'sasl.password=x',
	qr/"cdc_kafka\.kafka_properties"/, 'a secret in kafka_properties is refused');
like($err, qr/sasl\.password.*cdc_kafka\.kafka_secrets_file/,
	'with a pointer to cdc_kafka.kafka_secrets_file');
alter_fails('cdc_kafka.topic_prefix', 'bad prefix!', qr/"cdc_kafka\.topic_prefix"/, 'topic_prefix: named');
alter_fails('cdc_kafka.slot_name', 'Bad-Slot', qr/"cdc_kafka\.slot_name"/, 'slot_name: named');
alter_fails('cdc_kafka.skipped_operations', 'x', qr/"cdc_kafka\.skipped_operations"/, 'skipped_operations: named');
alter_fails('cdc_kafka.max_inflight_bytes', '1kB', qr/"cdc_kafka\.max_inflight_bytes"/, 'max_inflight_bytes: named');
alter_fails('cdc_kafka.delivery', 'exactly-once',
	qr/invalid value for parameter "cdc_kafka\.delivery": "exactly-once".*\n.*Available values: at_least_once, exactly_once/,
	'delivery: named, with the allowed values');
alter_fails('cdc_kafka.offsets_topic', 'bad topic!', qr/"cdc_kafka\.offsets_topic".*\n.*Kafka topic name/,
	'offsets_topic: a name Kafka would refuse is refused, named');
alter_fails('cdc_kafka.transaction_max_bytes', '1kB', qr/"cdc_kafka\.transaction_max_bytes"/,
	'transaction_max_bytes: named');
alter_fails('cdc_kafka.transaction_max_records', '0', qr/"cdc_kafka\.transaction_max_records"/,
	'transaction_max_records: named');
alter_fails('cdc_kafka.kafka_properties', 'transactional.id=mine',
	qr/"cdc_kafka\.kafka_properties".*\n.*transactional\.id.*set by cdc_kafka/,
	'kafka_properties: transactional.id is cdc_kafka\'s (exactly_once derives it)');
alter_fails('cdc_kafka.no_such_setting', 'on', qr/cdc_kafka\.no_such_setting/,
	'an unknown cdc_kafka.* setting is refused');
ok($node->safe_psql('postgres', "ALTER SYSTEM SET cdc_kafka.kafka_properties = 'linger.ms=5; compression.type=lz4'") eq '',
	'good librdkafka properties are accepted');
$node->safe_psql('postgres', 'ALTER SYSTEM RESET cdc_kafka.kafka_properties');

# ---- a bad value in postgresql.conf, reloaded ---------------------------

my $pid = worker_pid($node);
my $pos = log_size($node);
my $sessions = log_count($node, qr/starting logical decoding for slot "cdc_kafka_postgres"/);
$node->append_conf('postgresql.conf', "cdc_kafka.decimal_handling_mode = 'exact'\n");
$node->append_conf('postgresql.conf', "cdc_kafka.kafka_properties = 'no.such.property=1'\n");
$node->reload;
ok(eval { $node->wait_for_log(qr/contains errors; unaffected changes were applied/, $pos); 1 },
	'the reload reports errors in postgresql.conf');
my $log = slurp_log_from($node, $pos);
like($log, qr/invalid value for parameter "cdc_kafka\.decimal_handling_mode": "exact"/,
	'the log names cdc_kafka.decimal_handling_mode');
like($log, qr/cdc_kafka\.kafka_properties.*(\n.*)?no\.such\.property/,
	'the log names cdc_kafka.kafka_properties and the property');

$node->safe_psql('postgres', "INSERT INTO prices VALUES (2, 56.78, 'after bad reload')");
ok(wait_caught_up($node), 'the worker keeps streaming');
is(worker_pid($node), $pid, 'in the same process');
is(status($node)->{state}, 'streaming', 'state streaming');
is(log_count($node, qr/starting logical decoding for slot "cdc_kafka_postgres"/), $sessions,
	'without restarting its session: nothing valid changed');
my $recs = $kafka->consume('postgres.public.prices');
my $r = decode_record($recs->[-1]);
is($r->{after}{id}, 2, 'the new change arrived');
# precise mode: Decimal bytes (base64 of the unscaled value 5678 = 0x162E)
is($r->{after}{amount}, 'Fi4=', 'with the old decimal_handling_mode (precise)');
$node->adjust_conf('postgresql.conf', 'cdc_kafka.decimal_handling_mode', undef);
$node->adjust_conf('postgresql.conf', 'cdc_kafka.kafka_properties', undef);
$node->reload;

# and a good value reloaded is taken
$pos = log_size($node);
$node->safe_psql('postgres', "ALTER SYSTEM SET cdc_kafka.decimal_handling_mode = 'string'");
$node->reload;
ok(eval { $node->wait_for_log(qr/settings changed, restarting streaming/, $pos); 1 },
	'a valid change restarts the session');
ok(wait_streaming($node), 'streaming again');
$node->safe_psql('postgres', "INSERT INTO prices VALUES (3, 9.99, 'string mode')");
ok(wait_caught_up($node), 'acknowledged');
$r = decode_record($kafka->consume('postgres.public.prices')->[-1]);
is($r->{after}{amount}, '9.99', 'decimal_handling_mode = string is applied');
$node->safe_psql('postgres', 'ALTER SYSTEM RESET cdc_kafka.decimal_handling_mode');
$node->reload;

# ---- stop(), start(), restart() -----------------------------------------

is($node->safe_psql('postgres', 'SELECT cdc_kafka.stop()'),
	'streaming stops when this transaction commits', 'stop() answers');
$st = wait_state($node, 'stopped', timeout => 30);
ok($st, 'status says stopped');
like($st->{detail} // '', qr/stopped by cdc_kafka\.stop\(\)/, 'detail: stopped by cdc_kafka.stop()');
my $confirmed = $st->{confirmed_lsn};
$node->safe_psql('postgres', "INSERT INTO prices VALUES (4, 4.44, 'while stopped')");
is($node->safe_psql('postgres', q{SELECT active FROM pg_replication_slots WHERE slot_name = 'cdc_kafka_postgres'}),
	'f', 'the stopped worker does not hold the slot');

# stop() is kept across a server restart
$node->restart;
ok(wait_state($node, 'stopped', timeout => 60), 'still stopped after a server restart');
is($kafka->record_count('postgres.public.prices'), 3, 'nothing was sent while stopped');

is($node->safe_psql('postgres', 'SELECT cdc_kafka.start()'),
	'streaming starts when this transaction commits', 'start() answers');
ok(wait_streaming($node, timeout => 30), 'status says streaming after start()');
ok(wait_caught_up($node), 'the change made while stopped is sent from the slot');
$r = decode_record($kafka->consume('postgres.public.prices')->[-1]);
is($r->{after}{note}, 'while stopped', 'it is the change made while stopped');

$sessions = log_count($node, qr/starting logical decoding for slot "cdc_kafka_postgres"/);
$pid = worker_pid($node);
like($node->safe_psql('postgres', 'SELECT cdc_kafka.restart()'), qr/restarts/, 'restart() answers');
ok( poll_until(
		sub { log_count($node, qr/starting logical decoding for slot "cdc_kafka_postgres"/) > $sessions },
		30, 'a new decoding session'),
	'restart() starts a new streaming session');
ok(wait_streaming($node), 'streaming after restart()');
is(worker_pid($node), $pid, 'in the same worker process');
$node->safe_psql('postgres', "INSERT INTO prices VALUES (5, 5.55, 'after restart')");
ok(wait_caught_up($node), 'acknowledged after restart()');
is($kafka->record_count('postgres.public.prices'), 5, 'no record was repeated by restart()');

# ---- secrets -------------------------------------------------------------

my $secret = 'S3cr3t-' . int(rand(1e9)) . '-Pw';
my $secrets_file = $node->data_dir . '/../kafka.secrets';
PostgreSQL::Test::Utils::append_to_file($secrets_file, "sasl.username=alice\nsasl.password=$secret\n");
chmod 0600, $secrets_file;

# a missing file: the worker stops on an error that names the setting
$node->safe_psql('postgres', "ALTER SYSTEM SET cdc_kafka.kafka_secrets_file = '$secrets_file.missing'");
$node->reload;
$st = wait_state($node, 'error', timeout => 30);
like($st->{last_error} // '', qr/cdc_kafka\.kafka_secrets_file/,
	'a missing secrets file: state error, last_error names cdc_kafka.kafka_secrets_file');

$node->safe_psql('postgres', "ALTER SYSTEM SET cdc_kafka.kafka_secrets_file = '$secrets_file'");
$node->reload;
ok(wait_streaming($node, timeout => 60), 'with the secrets file the worker streams');
$node->safe_psql('postgres', "INSERT INTO prices VALUES (6, 6.66, 'with secrets')");
ok(wait_caught_up($node), 'and its changes are acknowledged');

# the same secret wrongly written into postgresql.conf
$pos = log_size($node);
$node->append_conf('postgresql.conf', "cdc_kafka.kafka_properties = 'sasl.mechanism=PLAIN; sasl.password=$secret'\n");
$node->reload;
ok(eval { $node->wait_for_log(qr/contains errors/, $pos); 1 }, 'a secret in postgresql.conf is refused on reload');
like(slurp_log_from($node, $pos), qr/cdc_kafka\.kafka_properties/, 'the log names cdc_kafka.kafka_properties');
$node->adjust_conf('postgresql.conf', 'cdc_kafka.kafka_properties', undef);
$node->reload;

my $status_text = $node->safe_psql('postgres', 'SELECT row_to_json(s)::text FROM cdc_kafka.status s');
unlike($status_text, qr/\Q$secret\E/, 'the secret is not in cdc_kafka.status');
unlike($node->safe_psql('postgres', "SELECT string_agg(setting, ' ') FROM pg_settings WHERE name LIKE 'cdc_kafka.%'"),
	qr/\Q$secret\E/, 'nor in pg_settings');
my @leaks = grep { /\Q$secret\E/ } split /\n/, slurp_log_from($node, 0);
is(scalar(@leaks), 0, 'the secret never appears in the server log')
  or diag("log lines with the secret:\n" . join("\n", @leaks[0 .. ($#leaks > 4 ? 4 : $#leaks)]));

$node->safe_psql('postgres', 'ALTER SYSTEM RESET cdc_kafka.kafka_secrets_file');
$node->reload;
ok(wait_streaming($node), 'streaming without the secrets file');

# ---- a broker that does not answer, in-flight limit full, setting fixed -----

my $dead = '127.0.0.1:' . PostgreSQL::Test::Cluster::get_free_port();
$pos = log_size($node);
$node->safe_psql('postgres', "ALTER SYSTEM SET cdc_kafka.bootstrap_servers = '$dead'");
$node->safe_psql('postgres', "ALTER SYSTEM SET cdc_kafka.max_inflight_bytes = '64kB'");
$node->reload;
ok(poll_until(sub { (status($node)->{broker} // '') eq $dead }, 30, 'broker switched'),
	"the worker switches to the (dead) broker $dead");
ok(wait_streaming($node), 'state streaming (the worker cannot know yet)');
$node->safe_psql('postgres',
	"INSERT INTO prices SELECT g, g, repeat('z', 200) FROM generate_series(100, 399) g");
ok(poll_until(sub { my $s = status($node); $s && $s->{inflight_bytes} >= 60 * 1024 }, 60, 'in-flight limit reached'),
	'records pile up to the in-flight limit');
$st = status($node);
note("with a dead broker: inflight $st->{inflight_records} records / $st->{inflight_bytes} bytes, "
	  . "retries $st->{retries}, last_error " . ($st->{last_error} // 'null'));

$node->safe_psql('postgres', "ALTER SYSTEM SET cdc_kafka.bootstrap_servers = '$bs'");
$node->reload;
my $fixed = poll_until(sub { my $s = status($node); $s && ($s->{broker} // '') eq $bs }, 30,
	'the worker to take the corrected bootstrap_servers');
ok($fixed, 'the corrected cdc_kafka.bootstrap_servers is taken on reload while the in-flight limit is full')
  or diag('the worker is stuck waiting for room in flight and does not look at reloads; terminating it');
unless ($fixed)
{
	$node->safe_psql('postgres', "SELECT pg_terminate_backend(pid) FROM cdc_kafka.status");
}
ok(wait_caught_up($node, timeout => 120), 'everything reaches the right broker');
my %ids;
$kafka->consume_each('postgres.public.prices',
	sub { my ($id) = $_[0]{key} =~ /"id":(\d+)/; $ids{$id}++ if defined $id && defined $_[0]{value} });
is(scalar(grep { $_ >= 100 && $_ < 400 } keys %ids), 300, 'all 300 rows written meanwhile arrived');

# the launcher's messages say they are the launcher's
{
	my $pos = -s $node->logfile;
	$node->safe_psql('postgres', "ALTER SYSTEM SET cdc_kafka.databases = 'postgres, cdc_nosuch_db'");
	$node->reload;
	ok(eval { $node->wait_for_log(
		qr/WARNING:  database "cdc_nosuch_db" listed in cdc_kafka.databases does not exist\n[^\n]*CONTEXT:  cdc_kafka launcher\n/,
		$pos); 1 }, 'a launcher warning names the launcher in its context');
	$node->safe_psql('postgres', 'ALTER SYSTEM RESET cdc_kafka.databases');
	$node->reload;
}

$node->stop;
$kafka->stop;
done_testing();
