# 037_avro_registry.pl - format 'avro' against a real schema registry.
#
# Apicurio Registry (test/registry/registry.sh, its Confluent-compatible
# API) takes the schemas; the output plugin is read through the SQL
# interface in the record format, where keys and values are the Confluent
# wire format in base64.  Checked: every key and value is a zero byte, the
# id the registry gives for its subject (<topic>-key, <topic>-value) and
# Avro binary; the registered schemas are Debezium's (Envelope, Value, Key,
# Source); a table change registers a new version; a change the subject's
# compatibility rule refuses is an ERROR with the registry's message and
# consumes nothing; so is a registry that is down, and once it is back
# every change comes out.  Then the streaming worker with
# cdc_kafka.format = 'avro' on a real broker: the topic's records in the
# wire format with the registry's ids; the registry stopped mid-stream
# stops streaming visibly (last_error in cdc_kafka.status) and loses
# nothing; restarted, every change reaches Kafka once.  A schema the
# registry refuses blocks the worker on that record (state blocked, the
# registry's message in last_error, the key as JSON); skip_record() leaves it
# out, and once the rule allows it cdc_kafka.restart() sends the rest; so
# does a column name Avro does not take, until field_name_adjustment_mode
# is avro.  (The bytes
# themselves are compared with Debezium's Avro converter by
# test/registry/check-avro.sh.)
#
# test/t/037_avro_registry.pl

use strict;
use warnings;
use FindBin;
use lib $FindBin::RealBin;

use Cwd qw(abs_path);
use File::Basename qw(dirname);
use HTTP::Tiny;
use MIME::Base64 qw(decode_base64);
use PostgreSQL::Test::Cluster;
use PostgreSQL::Test::Utils;
use Test::More;
use JSON::PP;
use CdcKafka;

my $json = JSON::PP->new->allow_nonref->canonical;
my $http = HTTP::Tiny->new(timeout => 10);
my $registry_sh = abs_path(dirname(__FILE__) . '/../registry/registry.sh');
my $registry_dir = PostgreSQL::Test::Utils::tempdir() . '/registry';
my $port = PostgreSQL::Test::Cluster::get_free_port();

sub registry_start
{
	my ($rc, $out, $err) = CdcKafka::run_cmd([ $registry_sh, 'start', '--dir', $registry_dir, '--port', $port ],
		timeout => 180);
	BAIL_OUT("the schema registry did not start: $err") if $rc != 0;
	chomp $out;
	return $out;
}

sub registry_stop
{
	CdcKafka::run_cmd([ $registry_sh, 'stop', '--dir', $registry_dir ], timeout => 60);
}

my $url = registry_start();
END { registry_stop() if defined $registry_dir; }

sub registry_get
{
	my ($path) = @_;
	my $res = $http->get("$url$path");
	return $res->{success} ? $json->decode($res->{content}) : undef;
}

sub registry_put
{
	my ($path, $body) = @_;
	return $http->request('PUT', "$url$path",
		{ headers => { 'Content-Type' => 'application/json' }, content => $json->encode($body) });
}

my $node = new_node('avro', bootstrap => '', create_extension => 0);
$node->safe_psql('postgres', q{
CREATE TABLE t (id int PRIMARY KEY, name text, amount numeric(10,2), at timestamptz, tags text[]);
SELECT 'init' FROM pg_create_logical_replication_slot('avro_slot', 'cdc_kafka');
INSERT INTO t VALUES (1, 'one', 12.34, '2026-01-01 00:00:00+00', '{x,y}'),
                     (2, NULL, -0.5, '2026-01-02 00:00:00+00', NULL);
UPDATE t SET name = 'two' WHERE id = 2;
DELETE FROM t WHERE id = 1;
});

my $avro_options = "'format', 'avro', 'schema_registry_url', '$url', "
  . "'output_format', 'record', 'schema_name_adjustment_mode', 'avro'";

# Consume the slot's changes in the Avro record format: (rows, stderr).
sub decode_avro
{
	my ($fn) = @_;
	$fn //= 'pg_logical_slot_get_changes';
	my ($rc, $out, $err) = $node->psql('postgres',
		"SELECT data FROM $fn('avro_slot', NULL, NULL, $avro_options)");
	return ([ map { $json->decode($_) } grep { length } split /\n/, $out ], $err);
}

# A key or value: magic byte, id and the Avro binary's length.
sub wire
{
	my ($base64) = @_;
	return undef unless defined $base64;
	my $bytes = decode_base64($base64);
	my ($magic, $id) = unpack('C N', $bytes);
	return { magic => $magic, id => $id, avro_len => length($bytes) - 5, bytes => $bytes };
}

# ---- records and the registry ------------------------------------------------

my ($rows, $err) = decode_avro();
is(scalar @$rows, 5, 'five records: two inserts, an update, a delete and its tombstone')
  or diag($err);
my $topic = 'postgres.public.t';
my $value_id = registry_get("/subjects/$topic-value/versions/latest")->{id};
my $key_id = registry_get("/subjects/$topic-key/versions/latest")->{id};
ok(defined $value_id && defined $key_id, "the registry has subjects $topic-key and $topic-value");
is_deeply(registry_get('/subjects'), [ "$topic-key", "$topic-value" ], 'and no other subject')
  or diag(explain(registry_get('/subjects')));

my @values = map { wire($_->{value}) } @$rows;
my @keys = map { wire($_->{key}) } @$rows;
is_deeply([ map { $_->{magic} } @keys, grep { defined } @values ], [ (0) x 9 ],
	'every key and value starts with the magic byte 0');
is_deeply([ map { $_->{id} } @keys ], [ ($key_id) x 5 ], 'every key carries the key subject\'s id');
is_deeply([ map { $_->{id} } @values[ 0 .. 3 ] ], [ ($value_id) x 4 ],
	'every value carries the value subject\'s id');
ok(!defined $values[4], 'the tombstone\'s value stays null');
is($keys[0]{avro_len}, 1, 'the key {"id":1} is one byte of Avro (zig-zag 2)');
is(substr($keys[0]{bytes}, 5), "\x02", 'and that byte is 0x02');
like($values[0]{bytes}, qr/\x06one/, 'the insert\'s value holds "one" as an Avro string (length 3, zig-zag 6)');

my $value_schema = $json->decode(registry_get("/schemas/ids/$value_id")->{schema});
is($value_schema->{name} . ' ' . $value_schema->{namespace}, "Envelope $topic",
	'the value schema is the record Envelope in the topic\'s namespace');
is(join(',', map { $_->{name} } @{ $value_schema->{fields} }),
	'before,after,source,transaction,op,ts_ms,ts_us,ts_ns', 'with Debezium\'s envelope fields in order');
my ($before) = grep { $_->{name} eq 'before' } @{ $value_schema->{fields} };
my $row = $before->{type}[1];
is(join(',', map { $_->{name} } @{ $row->{fields} }), 'id,name,amount,at,tags',
	'before is the record Value with the table\'s columns');
my ($amount) = grep { $_->{name} eq 'amount' } @{ $row->{fields} };
is($json->encode($amount->{type}[1]),
	$json->encode({ type => 'bytes', scale => 2, precision => 10, 'connect.version' => 1,
		'connect.parameters' => { scale => '2', 'connect.decimal.precision' => '10' },
		'connect.name' => 'org.apache.kafka.connect.data.Decimal', logicalType => 'decimal' }),
	'numeric(10,2) is Avro\'s decimal, with Connect\'s properties');
my $key_schema = $json->decode(registry_get("/schemas/ids/$key_id")->{schema});
is($json->encode($key_schema),
	$json->encode({ type => 'record', name => 'Key', namespace => $topic,
		fields => [ { name => 'id', type => 'int' } ], 'connect.name' => "$topic.Key" }),
	'the key schema is the record Key');

# ---- a table change: a new version of the value subject ------------------------

$node->safe_psql('postgres', q{
ALTER TABLE t ADD COLUMN note text;
INSERT INTO t VALUES (3, 'three', 1, now(), NULL, 'new');
});
($rows, $err) = decode_avro();
is(scalar @$rows, 1, 'the insert after ALTER TABLE ... ADD COLUMN') or diag($err);
my $versions = registry_get("/subjects/$topic-value/versions");
is_deeply($versions, [ 1, 2 ], 'registered a second version of the value subject');
my $v2 = registry_get("/subjects/$topic-value/versions/2")->{id};
is(wire($rows->[0]{value})->{id}, $v2, 'and the record carries its id');
is_deeply(registry_get("/subjects/$topic-key/versions"), [1], 'the key subject is unchanged');

# ---- a change the compatibility rule refuses: an ERROR, nothing consumed --------

my $res = registry_put("/config/$topic-value", { compatibility => 'BACKWARD' });
ok($res->{success}, 'the value subject\'s compatibility set to BACKWARD') or diag($res->{content});
$node->safe_psql('postgres', q{
ALTER TABLE t ALTER COLUMN name TYPE int USING length(name);
INSERT INTO t VALUES (4, 4, 4, now(), NULL, NULL);
});
($rows, $err) = decode_avro();
is(scalar @$rows, 0, 'a text column turned int (a reader of int cannot read strings): nothing comes out');
like($err, qr/ERROR:  schema registry at "\Q$url\E" refused the schema of subject "\Q$topic\E-value": Incompatible/,
	'the ERROR names the registry and the subject, and gives the registry\'s message');
is($node->safe_psql('postgres', "SELECT count(*) FROM pg_logical_slot_peek_changes('avro_slot', NULL, NULL)"),
	'1', 'the refused change is still in the slot');

# ---- the registry down, then back -----------------------------------------------

registry_stop();
($rows, $err) = decode_avro();
like($err, qr/ERROR:  could not reach the schema registry at "\Q$url\E"/,
	'with the registry down: an ERROR saying it cannot be reached');
is($node->safe_psql('postgres', "SELECT count(*) FROM pg_logical_slot_peek_changes('avro_slot', NULL, NULL)"),
	'1', 'and the change is still in the slot');
$url = registry_start();
($rows, $err) = decode_avro();
is(scalar @$rows, 1, 'the registry back (empty, in-memory, without the rule): the change comes out')
  or diag($err);
is(wire($rows->[0]{value})->{id}, registry_get("/subjects/$topic-value/versions/latest")->{id},
	'with the id the registry gives now');

# ---- the streaming worker ---------------------------------------------------------

$node->stop;
my $kafka = CdcKafka::Cluster->start(nodes => 1, partitions => 1);
my $worker_node = new_node('avro_worker', bootstrap => $kafka->bootstrap, conf => qq{
cdc_kafka.format = 'avro'
cdc_kafka.schema_registry_url = '$url'
cdc_kafka.schema_name_adjustment_mode = 'avro'
});
$worker_node->safe_psql('postgres', q{
CREATE TABLE w (id int PRIMARY KEY, name text);
INSERT INTO w SELECT g, 'row ' || g FROM generate_series(1, 100) g;
});
my $wtopic = 'postgres.public.w';
ok($kafka->wait_for_records($wtopic, 100), 'the worker streams 100 inserts in Avro');
my $w_value_id = registry_get("/subjects/$wtopic-value/versions/latest")->{id};
my $w_key_id = registry_get("/subjects/$wtopic-key/versions/latest")->{id};
my @w;
$kafka->consume_each($wtopic, sub { push @w, $_[0] });
is_deeply([ map { unpack('C N', $_->{value}) } @w[ 0 .. 1 ] ], [ 0, $w_value_id, 0, $w_value_id ],
	'each value: magic byte 0 and the id of the value subject');
is_deeply([ map { unpack('C N', $_->{key}) } @w[ 0 .. 1 ] ], [ 0, $w_key_id, 0, $w_key_id ],
	'each key: magic byte 0 and the id of the key subject');
is(scalar(grep { index($_->{value}, "\x0crow 42") >= 0 } @w), 1, 'the value of row 42 holds its name');

registry_stop();
$worker_node->safe_psql('postgres', q{
ALTER TABLE w ADD COLUMN extra int;
INSERT INTO w SELECT g, 'row ' || g, g FROM generate_series(101, 150) g;
});
my $st = CdcKafka::poll_until(sub {
		my $s = CdcKafka::status($worker_node);
		return $s && ($s->{last_error} // '') =~ /schema registry/ ? $s : undef;
	}, 60, 'last_error naming the schema registry');
ok($st, 'with the registry down, cdc_kafka.status says why in last_error')
  and like($st->{last_error}, qr/could not reach the schema registry at "\Q$url\E"/,
	'last_error: the registry could not be reached');
is($kafka->record_count($wtopic), 100, 'and nothing past the new schema reached Kafka');
$url = registry_start();
ok($kafka->wait_for_records($wtopic, 150), 'the registry back: the 50 changes follow');
ok(CdcKafka::wait_caught_up($worker_node), 'the worker catches up');
my %seen;
$kafka->consume_each($wtopic, sub { $seen{ $_[0]{key} }++ });
is(scalar(keys %seen), 150, '150 distinct keys');
is(scalar(grep { $_ != 1 } values %seen), 0, 'each once');

# ---- the worker and a schema the registry refuses: a blocked record ------------------

$res = registry_put("/config/$wtopic-value", { compatibility => 'BACKWARD' });
ok($res->{success}, "$wtopic-value's compatibility set to BACKWARD") or diag($res->{content});
my $lsn_before = $worker_node->safe_psql('postgres', 'SELECT pg_current_wal_lsn()');
my $w_versions = registry_get("/subjects/$wtopic-value/versions");
$worker_node->safe_psql('postgres', q{
ALTER TABLE w ALTER COLUMN name TYPE int USING length(name);
INSERT INTO w VALUES (151, 151, 151), (152, 152, 152);
});
$st = CdcKafka::wait_state($worker_node, 'blocked', timeout => 90);
ok($st, 'a value schema the registry refuses: the worker goes to state blocked');
$st //= {};
is($st->{blocked_table}, 'public.w', 'status names the table');
is($st->{blocked_key}, '{"id":151}', 'and the key of the first refused record, as JSON');
cmp_ok(CdcKafka::lsn_to_num($st->{blocked_lsn} // '0/0'), '>', CdcKafka::lsn_to_num($lsn_before),
	'and its LSN (' . ($st->{blocked_lsn} // 'NULL') . ')');
like($st->{last_error} // '',
	qr/^schema registry at "\Q$url\E" refused the schema of subject "\Q$wtopic\E-value": Incompatible.*HTTP status 409/,
	'last_error is the registry\'s refusal') or diag($st->{last_error});
like($st->{detail} // '', qr/skip_record\('\Q$st->{blocked_lsn}\E'\).*cdc_kafka\.restart\(\) tries again/,
	'detail gives the ways out: skip_record() or a restart once the rule allows it')
  or diag($st->{detail});
is($kafka->record_count($wtopic), 150, 'nothing of the refused records reached Kafka');
is_deeply(registry_get("/subjects/$wtopic-value/versions"), $w_versions, 'nor the registry');

my $out = $worker_node->safe_psql('postgres', "SELECT cdc_kafka.skip_record('$st->{blocked_lsn}')");
like($out, qr/skipped the record of table public\.w/, 'skip_record() leaves the first one out');
my $st2 = CdcKafka::poll_until(sub {
		my $s = CdcKafka::status($worker_node);
		return $s && $s->{state} eq 'blocked' && ($s->{blocked_key} // '') eq '{"id":152}' ? $s : undef;
	}, 90, 'blocked on the next record');
ok($st2, 'and the worker blocks on the next one, {"id":152}, refused as well');

$res = registry_put("/config/$wtopic-value", { compatibility => 'NONE' });
ok($res->{success}, "$wtopic-value's compatibility set to NONE");
$worker_node->safe_psql('postgres', 'SELECT cdc_kafka.restart()');
ok($kafka->wait_for_records($wtopic, 151), 'cdc_kafka.restart(): the record refused before goes out');
ok(CdcKafka::wait_caught_up($worker_node), 'the worker catches up');
is(CdcKafka::status($worker_node)->{state}, 'streaming', 'streaming again');
my $v3 = registry_get("/subjects/$wtopic-value/versions/latest")->{id};
my @last;
$kafka->consume_each($wtopic, sub { push @last, $_[0] });
is($kafka->record_count($wtopic), 151, '151 records: the skipped one is not among them');
is(substr($last[-1]{key}, 5), "\xb0\x02", 'the last record\'s key is {"id":152} (zig-zag 304)');
is((unpack('C N', $last[-1]{value}))[1], $v3, 'its value carries the id of the newly registered version');

# ---- a column name Avro does not take: blocked until the settings adjust it ----------

$worker_node->safe_psql('postgres', q{
CREATE TABLE spaced (id int PRIMARY KEY, "two words" text);
INSERT INTO spaced VALUES (1, 'x');
});
$st = CdcKafka::wait_state($worker_node, 'blocked', timeout => 90);
ok($st, 'a column named "two words" without field_name_adjustment_mode avro: the worker blocks on the record');
like($st->{last_error} // '', qr/has no Avro form: .*two words.*field_name_adjustment_mode/,
	'last_error says the schema has no Avro form, and which setting adjusts it')
  or diag($st->{last_error});
is($st->{blocked_key}, '{"id":1}', 'the blocked record\'s key');
$worker_node->safe_psql('postgres', "ALTER SYSTEM SET cdc_kafka.field_name_adjustment_mode = 'avro'");
$worker_node->safe_psql('postgres', 'SELECT pg_reload_conf()');
ok($kafka->wait_for_records('postgres.public.spaced', 1), 'with field_name_adjustment_mode avro the record goes out');
my $spaced = registry_get('/subjects/postgres.public.spaced-value/versions/latest');
like($spaced->{schema} // '', qr/"two_words"/, 'its value schema has the field two_words');

done_testing();
