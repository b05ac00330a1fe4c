# 020_security_settings.pl - secrets, settings refused at reload, run-time
# failures without a loop, databases that would share a slot.
#
# What must hold:
#  * every librdkafka property that carries a password or key material
#    (librdkafka 2.0.2's CONFIGURATION.md) is refused in
#    cdc_kafka.kafka_properties, by ALTER SYSTEM and by a reload, with the
#    setting's name and a pointer to cdc_kafka.kafka_secrets_file, and its
#    value reaches neither postgresql.auto.conf, pg_settings nor the log;
#  * the secrets file: a line that is not name=value is named by its number,
#    never quoted; a file group or others may read is refused (state error,
#    last_error); a PEM private key may span lines;
#  * bad values reloaded from postgresql.conf (an empty publication name, a
#    slot name with a stray %, librdkafka properties that contradict
#    idempotence, unparsable bootstrap servers, more than 32 databases, two
#    databases on one slot) are refused with the setting's name: the old
#    value stays and the worker keeps streaming in the same session;
#  * what only fails at run time (a database whose name makes no topic
#    prefix, a slot pattern that puts two databases on one slot, filtered
#    mode on a FOR ALL TABLES publication, a worker that keeps failing)
#    shows in cdc_kafka.status and costs a log line now and then, not one
#    a second.
#
# test/t/020_security_settings.pl

use strict;
use warnings;
use FindBin;
use lib $FindBin::RealBin;

use PostgreSQL::Test::Cluster;
use PostgreSQL::Test::Utils;
use Test::More;
use Time::HiRes qw(sleep);
use CdcKafka;

my $kafka = CdcKafka::Cluster->start(nodes => 1, partitions => 1);
my $bs = $kafka->bootstrap;

# log_statement none: ALTER SYSTEM statements are not logged by themselves
my $node = new_node('security', bootstrap => $bs, log_statement => 'none',
	conf => "cdc_kafka.restart_delay = '1s'\n");
$node->safe_psql('postgres', 'CREATE TABLE t (id int PRIMARY KEY, v text)');
my $next_id = 0;

# A change, acknowledged by Kafka: the worker streams.
sub streams
{
	$next_id++;
	$node->safe_psql('postgres', "INSERT INTO t VALUES ($next_id, 'x')");
	return defined wait_caught_up($node, timeout => 60);
}

# The status row of any listed database, read in postgres.
sub status_of
{
	my ($db) = @_;
	my $out = $node->safe_psql('postgres',
		"SELECT row_to_json(s) FROM cdc_kafka.status s WHERE database = '$db'");
	return $out eq '' ? undef : JSON::PP->new->decode($out);
}

sub wait_status_of
{
	my ($db, $check, $what) = @_;
	my $last;
	my $ok = poll_until(sub { $last = status_of($db); $last && $check->($last) }, 60, $what);
	diag('last status: ' . JSON::PP->new->canonical->encode($last // {})) unless $ok;
	return $ok ? $last : undef;
}

sub setting { $node->safe_psql('postgres', "SELECT current_setting('$_[0]')") }

# Wait (30 s at most) for a log line from $pos.
sub wait_log
{
	my ($re, $pos) = @_;
	return poll_until(sub { slurp_log_from($node, $pos) =~ $re }, 30, "log $re");
}

die 'the worker does not stream' unless streams();

# ---- secret properties refused in kafka_properties -----------------------

my $keypem = "-----BEGIN PRIVATE KEY-----K3yM4t3r1al" . int(rand(1e9)) . "-----END PRIVATE KEY-----";
my %secret = (
	'sasl.password'                  => 'Pw-' . int(rand(1e9)),
	'ssl.key.password'               => 'KeyPw-' . int(rand(1e9)),
	'ssl.key.pem'                    => $keypem,
	'ssl_key'                        => 'BinKey-' . int(rand(1e9)),
	'ssl.keystore.password'          => 'StorePw-' . int(rand(1e9)),
	'sasl.oauthbearer.client.secret' => 'Oidc-' . int(rand(1e9)),
	'sasl.oauthbearer.config'        => 'principal=Tok' . int(rand(1e9)));
my @all_secrets = values %secret;

my @not_refused;
for my $name (sort keys %secret)
{
	my ($ret, $out, $err) = $node->psql('postgres',
		"ALTER SYSTEM SET cdc_kafka.kafka_properties = 'linger.ms=5; $name=$secret{$name}'");
	push @not_refused, $name
	  unless $err =~ /"cdc_kafka\.kafka_properties".*\n.*"\Q$name\E" is a secret: put it in cdc_kafka\.kafka_secrets_file/;
}
is(join(', ', @not_refused), '',
	'ALTER SYSTEM: every password and private key property is refused, with the setting\'s name and the secrets file');
my $autoconf = slurp_file($node->data_dir . '/postgresql.auto.conf');
is(scalar(grep { index($autoconf, $_) >= 0 } @all_secrets), 0, 'no secret reached postgresql.auto.conf');
$node->safe_psql('postgres', 'ALTER SYSTEM RESET cdc_kafka.kafka_properties');

# (guard) a SASL configuration is checked without its password, which is in
# the secrets file: safe_psql dies if ALTER SYSTEM refuses it
$node->safe_psql('postgres',
	"ALTER SYSTEM SET cdc_kafka.kafka_properties = 'security.protocol=sasl_plaintext; sasl.mechanism=PLAIN; sasl.username=alice'");
$node->safe_psql('postgres', 'ALTER SYSTEM RESET cdc_kafka.kafka_properties');

my $pos = log_size($node);
$node->append_conf('postgresql.conf', "cdc_kafka.kafka_properties = 'ssl.key.pem=$keypem'\n");
$node->reload;
ok(wait_log(qr/cdc_kafka\.kafka_properties.*(\n.*)?ssl\.key\.pem.*secrets_file/, $pos),
	'a reload refuses ssl.key.pem in kafka_properties, naming the setting and the property');
is(setting('cdc_kafka.kafka_properties'), '', 'pg_settings keeps the old value');
$node->adjust_conf('postgresql.conf', 'cdc_kafka.kafka_properties', undef);
$node->reload;

# ---- the secrets file ------------------------------------------------------

my $file = $node->basedir . '/kafka.secrets';
sub write_secrets
{
	my ($text, $mode) = @_;
	unlink $file;
	PostgreSQL::Test::Utils::append_to_file($file, $text);
	chmod $mode, $file;
}
sub use_secrets
{
	$node->safe_psql('postgres', "ALTER SYSTEM SET cdc_kafka.kafka_secrets_file = '$file'");
	$node->safe_psql('postgres', "SELECT pg_reload_conf()");
}

# a malformed line: named by its number, never quoted
write_secrets("# cdc_kafka\nsasl.username=alice\nsasl.password: $secret{'sasl.password'}\n", 0600);
use_secrets();
my $st = wait_status_of('postgres', sub { ($_[0]{last_error} // '') =~ /secrets_file/ },
	'an error about the secrets file');
like($st->{last_error} // '', qr/Line 3 is not of the form name=value/,
	'a malformed line of the secrets file is named by its number');
ok(wait_log(qr/invalid contents of cdc_kafka\.kafka_secrets_file/, 0)
	  && slurp_log_from($node, 0) !~ /\Q$secret{'sasl.password'}\E/,
	'and quoted neither in status nor in the log');

# a keeps-failing worker: doubling pauses, not one restart a second
$pos = log_size($node);
sleep(16);
my $errors = log_count($node, qr/ERROR:  invalid contents of cdc_kafka\.kafka_secrets_file/, $pos);
cmp_ok($errors, '<=', 5, "a worker that keeps failing restarts after longer and longer pauses ($errors errors in 16 s)");
like(status($node)->{detail} // '', qr/restarts in ([4-9]|\d\d) s/, 'status says the pause grew');

# group-readable: refused, whatever it holds
write_secrets("sasl.username=alice\nsasl.password=$secret{'sasl.password'}\n", 0640);
$node->reload;		# a reload starts a stopped worker at once
$st = wait_status_of('postgres', sub { ($_[0]{last_error} // '') =~ /group or others/ },
	'the group-readable file refused');
ok($st, 'a secrets file group may read is refused (status last_error)');
is($st->{state}, 'error', 'state error');
ok(wait_log(qr/ERROR:  cdc_kafka\.kafka_secrets_file ".*" is accessible by group or others/, 0),
	'and the log says why');

# a good file, with a PEM private key over several lines: streams
write_secrets("sasl.username=alice\nsasl.password=$secret{'sasl.password'}\n"
	  . "ssl.key.pem=-----BEGIN PRIVATE KEY-----\nK3yM4t3r1alL1ne2\n-----END PRIVATE KEY-----\n"
	  . "ssl.key.password=$secret{'ssl.key.password'}\n", 0600);
my $before = log_count($node, qr/starting logical decoding for slot "cdc_kafka_postgres"/);
$node->reload;
ok(poll_until(sub { log_count($node, qr/starting logical decoding for slot "cdc_kafka_postgres"/) > $before
		  && (status($node)->{state} // '') eq 'streaming' }, 90, 'a new session streaming')
	  && streams(),
	'a mode 600 secrets file with a PEM key over three lines: a new session streams, acknowledged');
$node->safe_psql('postgres', 'ALTER SYSTEM RESET cdc_kafka.kafka_secrets_file');
$node->reload;

my @leaks = grep { my $l = $_; grep { index($l, $_) >= 0 } @all_secrets, 'K3yM4t3r1alL1ne2' }
  split /\n/, slurp_log_from($node, 0);
is(scalar(@leaks), 0, 'no secret in the server log') or diag(join "\n", @leaks[0 .. ($#leaks > 4 ? 4 : $#leaks)]);
wait_streaming($node) or die 'no streaming without the secrets file';

# ---- bad values at reload: refused, named, the worker streams on -------------

my $pid = worker_pid($node);
my $sessions = log_count($node, qr/starting logical decoding for slot "cdc_kafka_postgres"/);
my @many = map { "db$_" } 1 .. 33;
my %bad = (
	'cdc_kafka.publication_name'  => '',
	'cdc_kafka.slot_name'         => 'cdc_%x',
	'cdc_kafka.kafka_properties'  => 'max.in.flight=100',
	'cdc_kafka.bootstrap_servers' => 'localhost:notaport',
	'cdc_kafka.databases'         => join(',', @many));
my %old = map { $_ => setting($_) } keys %bad;
$pos = log_size($node);
$node->append_conf('postgresql.conf', join('', map { "$_ = '$bad{$_}'\n" } sort keys %bad));
$node->reload;
wait_log(qr/contains errors; unaffected changes were applied/, $pos);
my $log = slurp_log_from($node, $pos);
for my $name (sort keys %bad)
{
	like($log, qr/invalid value for parameter "\Q$name\E"/, "a bad $name is refused at reload, named in the log");
	is(setting($name), $old{$name}, "$name keeps its old value");
}
like($log, qr/max\.in\.flight.*must be set <= 5/, 'librdkafka says why it rejects the properties');
like($log, qr/at most 32 databases; 33 are listed/, 'and why 33 databases are too many');

# two databases whose names give one slot name
$node->adjust_conf('postgresql.conf', 'cdc_kafka.databases', "'postgres, a-b, a_b'");
$node->reload;
ok(wait_log(qr/invalid value for parameter "cdc_kafka\.databases".*(\n.*)?"a-b" and "a_b" would share replication slot "cdc_kafka_a_b"/, $pos),
	'databases "a-b" and "a_b" (one slot name) are refused at reload');
is(setting('cdc_kafka.databases'), $old{'cdc_kafka.databases'}, 'cdc_kafka.databases keeps its old value');

ok(streams() && worker_pid($node) eq $pid
	  && log_count($node, qr/starting logical decoding for slot "cdc_kafka_postgres"/) == $sessions,
	'the worker keeps streaming, in the same process and session');
# (adjust_conf drops every line of the setting, new_node's too)
$node->adjust_conf('postgresql.conf', $_, "'$old{$_}'") for keys %bad;
$node->reload;

# ---- run-time failures: in status, not in a loop -----------------------------

# a database whose name makes a topic prefix too long for Kafka (a database
# name's other characters are sanitised: only the length can be wrong)
$node->safe_psql('postgres', 'CREATE DATABASE "bad name"');
$node->safe_psql('bad name', 'CREATE EXTENSION cdc_kafka');
$pos = log_size($node);
$node->safe_psql('postgres', q{ALTER SYSTEM SET cdc_kafka.databases = 'postgres, "bad name"'});
$node->safe_psql('postgres',
	"ALTER SYSTEM SET cdc_kafka.topic_prefix = '" . ('p' x 193) . "_%d'");
$node->reload;
$st = wait_status_of('bad name', sub { ($_[0]{last_error} // '') =~ /topic prefix/ },
	'the topic prefix refusal');
ok($st, 'a database name that makes no topic prefix: last_error says so');
is($st->{state}, 'error', 'state error');
sleep(10);
cmp_ok(log_count($node, qr/(WARNING|ERROR):  .*"bad name"/, $pos), '<=', 1, 'logged once, not in a loop');
$node->safe_psql('postgres', 'ALTER SYSTEM RESET cdc_kafka.topic_prefix');

# a slot pattern without %d: two databases on one slot
$node->safe_psql('postgres', 'CREATE DATABASE other');
$node->safe_psql('other', 'CREATE EXTENSION cdc_kafka');
$pos = log_size($node);
$node->safe_psql('postgres', q{ALTER SYSTEM SET cdc_kafka.databases = 'postgres, other'});
$node->safe_psql('postgres', q{ALTER SYSTEM SET cdc_kafka.slot_name = 'cdc_shared'});
$node->reload;
for my $db ('postgres', 'other')
{
	$st = wait_status_of($db, sub { ($_[0]{last_error} // '') =~ /share replication slot "cdc_shared"/ },
		"the shared slot refusal of $db");
	ok($st, "slot_name without %d for two databases: the status of $db names the shared slot");
}
sleep(5);
is($node->safe_psql('postgres', q{SELECT count(*) FROM pg_stat_activity WHERE backend_type = 'cdc_kafka worker'}),
	'0', 'and no worker runs on it');
cmp_ok(log_count($node, qr/(WARNING|ERROR):  /, $pos), '<=', 2, 'one log line per database');
$node->safe_psql('postgres', 'ALTER SYSTEM RESET cdc_kafka.slot_name');
$node->safe_psql('postgres', 'ALTER SYSTEM RESET cdc_kafka.databases');
$node->reload;
wait_streaming($node, timeout => 60) or die 'no streaming with the slot name put right';

# filtered mode on a FOR ALL TABLES publication
$pos = log_size($node);
$node->safe_psql('postgres', q{ALTER SYSTEM SET cdc_kafka.publication_autocreate_mode = 'filtered'});
$node->safe_psql('postgres', q{ALTER SYSTEM SET cdc_kafka.table_include_list = 'public.t'});
$node->reload;
$st = wait_status_of('postgres', sub { ($_[0]{last_error} // '') =~ /FOR ALL TABLES/ },
	'the FOR ALL TABLES refusal');
$pid = worker_pid($node);
sleep(10);
my $lines = log_count($node, qr/(WARNING|ERROR):  .*FOR ALL TABLES/, $pos);
ok($st && $st->{state} eq 'error' && $lines <= 1 && (worker_pid($node) // '') eq ($pid // 'none'),
	"filtered mode on a FOR ALL TABLES publication: state error, last_error says so, logged once ($lines), no restarts");
$node->safe_psql('postgres', 'ALTER SYSTEM RESET cdc_kafka.publication_autocreate_mode');
$node->safe_psql('postgres', 'ALTER SYSTEM RESET cdc_kafka.table_include_list');
$node->reload;
wait_streaming($node, timeout => 60) or die 'no streaming in all_tables mode again';

$node->stop;
$kafka->stop;
done_testing();
