# 038_registry_auth.pl - format 'avro' with a schema registry that asks for
# credentials over TLS.
#
# The registry (Apicurio, test/registry/registry.sh) sits behind nginx
# (test/registry/proxy.sh) with HTTP Basic authentication and a self-signed
# certificate, as registries are commonly exposed.  Checked, with the
# streaming worker on a real broker: without cdc_kafka.schema_registry_ca_file
# the certificate is refused, visibly; then the registry refuses a request
# without credentials, then wrong ones, each in last_error and nothing sent;
# with schema.registry.basic.auth.user.info in cdc_kafka.kafka_secrets_file
# the records go out with the registry's ids.  The password is never in the
# log, a setting or the status; cdc_kafka.kafka_properties refuses it as a
# secret; a SQL caller (who chooses the URL) is never sent it.
#
# test/t/038_registry_auth.pl

use strict;
use warnings;
use FindBin;
use lib $FindBin::RealBin;

use Cwd qw(abs_path);
use File::Basename qw(dirname);
use HTTP::Tiny;
use PostgreSQL::Test::Cluster;
use PostgreSQL::Test::Utils;
use Test::More;
use JSON::PP;
use CdcKafka;

my $json = JSON::PP->new->allow_nonref->canonical;
my $http = HTTP::Tiny->new(timeout => 10);
my $scripts = abs_path(dirname(__FILE__) . '/../registry');
my $tmp = PostgreSQL::Test::Utils::tempdir();
my $password = 'Reg1stry-pw-7f3a9c';

my ($rc, $direct, $err) = CdcKafka::run_cmd(
	[ "$scripts/registry.sh", 'start', '--dir', "$tmp/registry", '--port',
		PostgreSQL::Test::Cluster::get_free_port() ],
	timeout => 180);
BAIL_OUT("the schema registry did not start: $err") if $rc != 0;
chomp $direct;
END { CdcKafka::run_cmd([ "$scripts/registry.sh", 'stop', '--dir', "$tmp/registry" ], timeout => 60); }

my $url;
($rc, $url, $err) = CdcKafka::run_cmd(
	[ "$scripts/proxy.sh", 'start', '--dir', "$tmp/proxy", '--port',
		PostgreSQL::Test::Cluster::get_free_port(), '--upstream', $direct,
		'--user', 'cdc', '--password', $password, '--tls' ],
	timeout => 60);
BAIL_OUT("nginx in front of the registry did not start: $err") if $rc != 0;
chomp $url;
END { CdcKafka::run_cmd([ "$scripts/proxy.sh", 'stop', '--dir', "$tmp/proxy" ], timeout => 30); }
like($url, qr{^https://127\.0\.0\.1:\d+/apis/ccompat/v6$}, "the registry behind TLS and Basic authentication: $url");

sub registry_get
{
	my ($path) = @_;
	my $res = $http->get("$direct$path");
	return $res->{success} ? $json->decode($res->{content}) : undef;
}

my $kafka = CdcKafka::Cluster->start(nodes => 1, partitions => 1);
my $node = CdcKafka::new_node('auth', bootstrap => $kafka->bootstrap, wait => 0, conf => qq{
cdc_kafka.format = 'avro'
cdc_kafka.schema_registry_url = '$url'
cdc_kafka.schema_name_adjustment_mode = 'avro'
cdc_kafka.restart_delay = 1
log_min_messages = info
});
$node->safe_psql('postgres', q{
CREATE TABLE a (id int PRIMARY KEY, v text);
INSERT INTO a SELECT g, 'v' || g FROM generate_series(1, 10) g;
});
my $topic = 'postgres.public.a';

# The status once last_error matches $re.
sub error_like
{
	my ($re, $what) = @_;
	my $last;
	my $st = CdcKafka::poll_until(sub {
			$last = CdcKafka::status($node);
			return $last && ($last->{last_error} // '') =~ $re ? $last : undef;
		}, 90, $what);
	diag('last_error: ' . ($last->{last_error} // 'NULL')) unless $st;
	return $st;
}

sub set_and_reload
{
	my ($sql) = @_;
	$node->safe_psql('postgres', $sql);
	$node->safe_psql('postgres', 'SELECT pg_reload_conf()');
}

# ---- TLS: the registry's certificate --------------------------------------------------

ok(error_like(qr/could not reach the schema registry at "\Q$url\E".*certificate/,
		'the self-signed certificate refused'),
	'without cdc_kafka.schema_registry_ca_file the self-signed certificate is refused, in last_error');
is($kafka->record_count($topic), 0, 'nothing sent');

set_and_reload("ALTER SYSTEM SET cdc_kafka.schema_registry_ca_file = '$tmp/proxy/cert.pem'");

# ---- credentials -----------------------------------------------------------------------

ok(error_like(qr/refused a request without credentials .*HTTP status 401/, 'a 401 without credentials'),
	'with its CA: the registry refuses a request without credentials (HTTP 401), in last_error');
is($kafka->record_count($topic), 0, 'nothing sent');

# (log_statement = ddl logs the statement itself: README says so; not the password here)
my ($ret, $out);
($ret, $out, $err) = $node->psql('postgres',
	"ALTER SYSTEM SET cdc_kafka.kafka_properties = 'schema.registry.basic.auth.user.info=cdc:Not-It-4411'");
like($err, qr/schema\.registry\.basic\.auth\.user\.info.*is a secret.*kafka_secrets_file/,
	'cdc_kafka.kafka_properties refuses the credentials as a secret, pointing to the secrets file');
unlike($err, qr/Not-It-4411/, 'without quoting them');

my $secrets = "$tmp/registry.secrets";
PostgreSQL::Test::Utils::append_to_file($secrets, "schema.registry.basic.auth.user.info=cdc:wrong-$password\n");
chmod 0600, $secrets;
set_and_reload("ALTER SYSTEM SET cdc_kafka.kafka_secrets_file = '$secrets'");
ok(error_like(qr/refused the credentials given .*HTTP status 401/, 'a 401 with wrong credentials'),
	'a wrong password: the registry refuses the credentials given, in last_error');
is($kafka->record_count($topic), 0, 'nothing sent');

unlink $secrets;
PostgreSQL::Test::Utils::append_to_file($secrets,
	"# the schema registry's user and password\nschema.registry.basic.auth.user.info = cdc:$password\n");
chmod 0600, $secrets;
$node->safe_psql('postgres', 'SELECT cdc_kafka.restart()');
ok($kafka->wait_for_records($topic, 10), 'the right password: the 10 rows reach Kafka');
ok(CdcKafka::wait_caught_up($node), 'the worker catches up');
my $value_id = registry_get("/subjects/$topic-value/versions/latest")->{id};
ok(defined $value_id, "the registry behind the proxy has subject $topic-value");
my @records;
$kafka->consume_each($topic, sub { push @records, $_[0] });
is(scalar(grep { (unpack('C N', $_->{value}))[1] == $value_id } @records), 10,
	'every value carries its id');

# ---- the password stays secret -----------------------------------------------------------

my $log = slurp_file($node->logfile);
unlike($log, qr/\Q$password\E/, 'the password is nowhere in the server log');
is($node->safe_psql('postgres',
		"SELECT count(*) FROM pg_settings WHERE setting LIKE '%$password%'"), '0', 'nor in a setting');
unlike($node->safe_psql('postgres', 'SELECT row_to_json(s) FROM cdc_kafka.status s'),
	qr/\Q$password\E/, 'nor in the status');

# a SQL caller chooses the URL: it is never sent the worker's credentials
$node->safe_psql('postgres',
	"SELECT 'init' FROM pg_create_logical_replication_slot('sql_slot', 'cdc_kafka')");
$node->safe_psql('postgres', "INSERT INTO a VALUES (11, 'v11')");
($ret, $out, $err) = $node->psql('postgres',
	"SELECT data FROM pg_logical_slot_peek_changes('sql_slot', NULL, NULL, 'format', 'avro', "
	  . "'output_format', 'record', 'schema_registry_url', '$url', 'schema_name_adjustment_mode', 'avro')");
like($err, qr/could not reach the schema registry|refused a request without credentials/,
	'a SQL caller gets no credentials (nor the CA) of the worker')
  or diag($err);
$node->safe_psql('postgres', "SELECT pg_drop_replication_slot('sql_slot')");

# ---- a line the worker does not know: named, the value not shown --------------------------

unlink $secrets;
PostgreSQL::Test::Utils::append_to_file($secrets, "schema.registry.user.info=cdc:$password\n");
chmod 0600, $secrets;
$node->safe_psql('postgres', 'SELECT cdc_kafka.restart()');
my $st = error_like(qr/Unknown schema registry property/, 'an unknown schema.registry line');
ok($st, 'an unknown schema.registry.* line is an error in last_error');
like($st->{last_error} // '', qr/invalid contents of cdc_kafka\.kafka_secrets_file/, 'about the secrets file');
unlike(slurp_file($node->logfile), qr/\Q$password\E/, 'the password is still nowhere in the log');

done_testing();
