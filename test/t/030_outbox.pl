# 030_outbox.pl - cdc_kafka.transforms = 'outbox' (Debezium's outbox
# EventRouter) against a real Kafka.
#
#  * An application's outbox table: rows there before the extension are
#    read by the initial snapshot, rows inserted later are streamed; each
#    becomes one event on outbox.event.<aggregatetype>, keyed by
#    aggregateid, whose value is the payload (with its schema) and whose
#    headers end with "id" and the placed eventType.
#  * The partition comes from the "part" column and the Kafka timestamp
#    from "occurred" (the envelope's ts_ms when it is null).
#  * Updates are skipped with a warning in the log, deletes dropped.
#  * A reload to an expanded JSON payload and an envelope placement
#    changes the records that follow, not those already sent.
#  * A table without the outbox columns stops the stream with an error
#    naming the table and the column; the events before it are delivered.
#
# test/t/030_outbox.pl

use strict;
use warnings;
use FindBin;
use lib $FindBin::RealBin;

use PostgreSQL::Test::Cluster;
use PostgreSQL::Test::Utils;
use Test::More;
use CdcKafka;

my $kafka = CdcKafka::Cluster->start(nodes => 1, partitions => 3);
my $node = new_node(
	'outbox',
	bootstrap => $kafka->bootstrap,
	create_extension => 0,
	conf => q{
cdc_kafka.transforms = 'outbox'
cdc_kafka.outbox_table_fields_additional_placement = 'type:header:eventType,part:partition'
cdc_kafka.outbox_table_field_event_timestamp = 'occurred'
});

$node->safe_psql(
	'postgres', q{
CREATE TABLE outbox (
	id uuid PRIMARY KEY,
	aggregatetype text NOT NULL,
	aggregateid text NOT NULL,
	type text NOT NULL,
	payload jsonb,
	occurred timestamp,
	part int
);
CREATE PUBLICATION cdc_kafka FOR TABLE outbox;
INSERT INTO outbox VALUES
	('00000000-0000-0000-0000-000000000001', 'Order', 'o-1', 'OrderCreated',
	 '{"id": 1, "total": 12.5}', '2024-03-01 10:00:00.25', 2);
CREATE EXTENSION cdc_kafka;
});
ok(wait_streaming($node, timeout => 60), 'the worker streams after its initial snapshot');

my $log_start = log_size($node);
$node->safe_psql(
	'postgres', q{
INSERT INTO outbox VALUES
	('00000000-0000-0000-0000-000000000002', 'Customer', 'c-7', 'CustomerMoved',
	 '{"id": 7, "city": "Paris"}', NULL, NULL),
	('00000000-0000-0000-0000-000000000003', 'Order', 'o-1', 'OrderPaid',
	 '{"id": 1, "paid": true}', '2024-03-02 00:00:00', 1);
UPDATE outbox SET type = 'OrderChanged' WHERE aggregateid = 'o-1';
DELETE FROM outbox WHERE aggregateid = 'c-7';
});
ok(wait_caught_up($node), 'caught up');
ok(log_count($node, qr/unexpected update of outbox table "public.outbox" skipped/, $log_start) >= 1,
	'the updates are skipped with a warning in the log');

# events in the order they were written: by their id header (partitions differ)
sub by_id
{
	my ($recs) = @_;
	my $id = sub { my %h = @{ $_[0]{headers} }; $h{id} };
	return [ sort { $id->($a) cmp $id->($b) } @$recs ];
}

my $orders = by_id($kafka->consume('outbox.event.Order', headers => 1));
my $customers = $kafka->consume('outbox.event.Customer', headers => 1);
is(scalar @$orders, 2, 'two Order events: the snapshot read and the insert')
  or diag(explain($orders));
is(scalar @$customers, 1, 'one Customer event; the delete and updates made none');
ok(!$kafka->topic_list->{'postgres.public.outbox'}, 'no change events of the outbox table itself');

# ---- the events, field by field ----------------------------------------------------

sub check_event
{
	my ($r, $label, %want) = @_;
	my $key = CdcKafka::json_parser()->decode($r->{key});
	my $value = CdcKafka::json_parser()->decode($r->{value});
	my %h = @{ $r->{headers} };

	is($key->{payload}, $want{key}, "$label: key is aggregateid");
	is($key->{schema}{type}, 'string', "$label: key schema");
	is($value->{schema}{name}, 'io.debezium.data.Json', "$label: value schema is the payload's");
	is_deeply(CdcKafka::json_parser()->decode($value->{payload}), $want{payload},
		"$label: value is the payload");
	is(eval { CdcKafka::json_parser()->decode($h{id})->{payload} }, $want{id}, "$label: header id");
	is(eval { CdcKafka::json_parser()->decode($h{eventType})->{payload} }, $want{type},
		"$label: header eventType");
	my @names = map { $r->{headers}[ 2 * $_ ] } 0 .. $#{ $r->{headers} } / 2;
	is(join(',', @names),
		'__debezium.context.connectorLogicalName,__debezium.context.taskId,'
		  . '__debezium.context.connectorName,__debezium.context.runId,id,eventType',
		"$label: the connector's headers, then id and the placed column");
	is($r->{partition}, $want{partition}, "$label: partition") if defined $want{partition};
	if (defined $want{ts})
	{
		is($r->{ts}, $want{ts}, "$label: Kafka timestamp from the occurred column");
	}
	else
	{
		cmp_ok(abs($r->{ts} - time * 1000), '<', 600_000, "$label: Kafka timestamp is ts_ms (now)");
	}
}

check_event($orders->[0], 'snapshot read', key => 'o-1', id => '00000000-0000-0000-0000-000000000001',
	type => 'OrderCreated', payload => { id => 1, total => 12.5 }, partition => 2,
	ts => 1709287200250);
check_event($orders->[1], 'insert', key => 'o-1', id => '00000000-0000-0000-0000-000000000003',
	type => 'OrderPaid', payload => { id => 1, paid => CdcKafka::json_parser()->decode('true') }, partition => 1,
	ts => 1709337600000);
check_event($customers->[0], 'insert without partition and timestamp', key => 'c-7',
	id => '00000000-0000-0000-0000-000000000002', type => 'CustomerMoved',
	payload => { id => 7, city => 'Paris' });

# ---- a reload: expanded payloads in an envelope ----------------------------------------

$node->append_conf(
	'postgresql.conf', q{
cdc_kafka.outbox_table_expand_json_payload = on
cdc_kafka.outbox_table_fields_additional_placement = 'type:envelope:eventType'
});
$node->reload;
# the worker notices the new configuration and starts a new decoding session with it
ok( poll_until(
		sub {
			log_count($node, qr/configuration changed|settings changed|restarting/i, $log_start) > 0;
		},
		30,
		'reload noticed'),
	'the worker takes the reloaded settings');
ok(wait_streaming($node, timeout => 60), 'the worker streams after the reload');
$node->safe_psql('postgres', q{
INSERT INTO outbox VALUES
	('00000000-0000-0000-0000-000000000004', 'Order', 'o-2', 'OrderCreated',
	 '{"id": 2, "lines": [{"sku": "a", "qty": 2}]}', NULL, NULL);
});
ok(wait_caught_up($node), 'caught up after the reload');
ok(poll_until(sub { $kafka->record_count('outbox.event.Order') >= 3 }, 60, 'third Order event'),
	'the event after the reload arrived');
$orders = by_id($kafka->consume('outbox.event.Order', headers => 1));
my $last = CdcKafka::json_parser()->decode($orders->[-1]{value});
is($last->{schema}{name}, 'postgres.public.outbox.Order.Value', 'envelope struct named with the routed value');
is_deeply([ map { $_->{field} } @{ $last->{schema}{fields} } ], [ 'payload', 'eventType' ],
	'envelope fields: payload, then the placed column');
is($last->{schema}{fields}[0]{name}, 'payload', 'the payload schema is inferred from its JSON');
is_deeply($last->{payload},
	{ payload => { id => 2, lines => [ { sku => 'a', qty => 2 } ] }, eventType => 'OrderCreated' },
	'the payload is expanded into a struct');
my $first = CdcKafka::json_parser()->decode($orders->[0]{value});
is($first->{schema}{name}, 'io.debezium.data.Json', 'records sent before the reload are unchanged');

# ---- a table that is no outbox ----------------------------------------------------------

$log_start = log_size($node);
$node->safe_psql('postgres', q{
CREATE TABLE not_outbox (id int PRIMARY KEY, v text);
ALTER PUBLICATION cdc_kafka ADD TABLE not_outbox;
INSERT INTO not_outbox VALUES (1, 'x');
});
ok( poll_until(
		sub {
			log_count($node, qr/table "public.not_outbox" has no column "payload" for the outbox transform/, $log_start) > 0;
		},
		60,
		'error naming the table'),
	'a table without the outbox columns stops the stream with an error naming table and column');
like($node->safe_psql('postgres', 'SELECT last_error FROM cdc_kafka.status'),
	qr/not_outbox/, 'status shows the error');

$node->stop;
$kafka->stop;
done_testing();
