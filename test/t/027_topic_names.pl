# 027_topic_names.pl - the worker's topics follow cdc_kafka.topic_delimiter,
# cdc_kafka.topic_transaction and cdc_kafka.topic_heartbeat_prefix; its
# messages follow cdc_kafka.message_prefix_exclude_list, its field names
# cdc_kafka.field_name_adjustment_mode.
#
# The conformance profile "topics" compares the plugin's records with
# Debezium's; this is the worker's side of it, and the heartbeats, which
# the conformance harness does not see: Debezium's heartbeat topic is
# <topic.heartbeat.prefix><topic.delimiter><topic.prefix>, its transaction
# topic <topic.prefix><topic.delimiter><topic.transaction> and a table's
# <topic.prefix><d><schema><d><table>.
#
# test/t/027_topic_names.pl

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
my $node = new_node('topics', bootstrap => $kafka->bootstrap, conf => qq{
cdc_kafka.topic_delimiter = '_'
cdc_kafka.topic_transaction = 'txn-meta'
cdc_kafka.topic_heartbeat_prefix = 'hb'
cdc_kafka.provide_transaction_metadata = on
cdc_kafka.heartbeat_interval = '300ms'
cdc_kafka.message_prefix_exclude_list = 'secret.*'
cdc_kafka.field_name_adjustment_mode = 'avro_unicode'
});

$node->safe_psql('postgres', 'CREATE TABLE items (id int PRIMARY KEY, "v-1" text)');
$node->safe_psql('postgres', "INSERT INTO items VALUES (1, 'a'), (2, 'b')");
$node->safe_psql('postgres', "SELECT pg_logical_emit_message(false, 'Secret-1', 'x')");
$node->safe_psql('postgres', "SELECT pg_logical_emit_message(false, 'public-1', 'y')");
ok(wait_caught_up($node), 'the worker streamed the inserts and messages');

ok($kafka->wait_for_records('postgres_public_items', 2, 60),
	'table records on <prefix>_<schema>_<table>');
ok($kafka->wait_for_records('postgres_txn-meta', 2, 60),
	'BEGIN and END on <prefix>_<topic_transaction>');
ok($kafka->wait_for_records('hb_postgres', 2, 60),
	'heartbeats on <topic_heartbeat_prefix>_<prefix>');
my @msgs = map { decode_record($_)->{value_payload}{message}{prefix} }
  @{ $kafka->consume('postgres.message') };
is_deeply(\@msgs, ['public-1'],
	'messages on <prefix>.message, less those cdc_kafka.message_prefix_exclude_list matches');
my ($rec) = @{ $kafka->consume('postgres_public_items') };
decode_record($rec);
is(decode_json($rec->{value})->{schema}{name}, 'postgres_public_items.Envelope',
	'the envelope schema is named after the topic');
is_deeply($rec->{after}, { id => 1, 'v_u002d1' => 'a' },
	'field names follow cdc_kafka.field_name_adjustment_mode');
# read the heartbeats once none are written (kcat chases a topic still written)
$node->stop;
my ($hb) = @{ $kafka->consume('hb_postgres') };
decode_record($hb);
is_deeply($hb->{key_payload}, { serverName => 'postgres' }, 'a heartbeat\'s key names the server');

done_testing();
