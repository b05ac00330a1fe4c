# 025_transforms.pl - cdc_kafka.transforms = 'unwrap' (Debezium's
# ExtractNewRecordState) against a real Kafka.
#
#  * The worker streams flattened records: an initial snapshot's rows
#    (op "r", source.snapshot first/last), inserts, updates, deletes
#    (rewritten: the "before" row with __deleted = "true", no tombstone)
#    and an incremental snapshot's rows (source.snapshot incremental, the
#    LSN of its low watermark), every one with the row's columns,
#    __deleted, the added fields __op, __lsn, __source_snapshot, and the
#    added header __op.
#  * The value schema is the table's <topic>.Value struct, not optional,
#    with the added fields after the columns.
#
# test/t/025_transforms.pl

use strict;
use warnings;
use FindBin;
use lib $FindBin::RealBin;

use PostgreSQL::Test::Cluster;
use PostgreSQL::Test::Utils;
use Test::More;
use CdcKafka;

my $topic = 'postgres.public.t';
my $kafka = CdcKafka::Cluster->start(nodes => 1, partitions => 1);
my $node = new_node(
	'transforms',
	bootstrap => $kafka->bootstrap,
	create_extension => 0,
	conf => q{
cdc_kafka.transforms = 'unwrap'
cdc_kafka.unwrap_add_fields = 'op,lsn,source.snapshot'
cdc_kafka.unwrap_add_headers = 'op'
cdc_kafka.unwrap_delete_tombstone_handling_mode = 'rewrite'
});

$node->safe_psql(
	'postgres', q{
CREATE TABLE t (id int PRIMARY KEY, v text, n int);
INSERT INTO t VALUES (1, 'one', 10), (2, 'two', NULL);
CREATE EXTENSION cdc_kafka;
});
ok(wait_streaming($node, timeout => 60), 'the worker streams after its initial snapshot');
$node->safe_psql(
	'postgres', q{
INSERT INTO t VALUES (3, 'three', 30);
UPDATE t SET v = 'one!', n = 11 WHERE id = 1;
DELETE FROM t WHERE id = 2;
});
my $id = $node->safe_psql('postgres', "SELECT cdc_kafka.snapshot('t')");
ok( poll_until(
		sub {
			$node->safe_psql('postgres', "SELECT state FROM cdc_kafka.snapshots WHERE id = $id") eq 'done';
		},
		60,
		'incremental snapshot done'),
	'the incremental snapshot of t is done');
ok(wait_caught_up($node), 'caught up');

my $recs = $kafka->consume($topic, headers => 1);
is(scalar @$recs, 7, '7 records: 2 initial reads, create, update, rewritten delete, 2 incremental reads')
  or diag(join("\n", map { $_->{value} // 'null' } @$recs));

# ---- every record, field by field ---------------------------------------------------

my @want = (
	[ 'r', { id => 1, v => 'one',   n => 10 },    'false', 'first' ],
	[ 'r', { id => 2, v => 'two',   n => undef }, 'false', 'last' ],
	[ 'c', { id => 3, v => 'three', n => 30 },    'false', undef ],
	[ 'u', { id => 1, v => 'one!',  n => 11 },    'false', undef ],
	# default replica identity: the delete's "before" holds the key only
	[ 'd', { id => 2, v => undef,   n => undef }, 'true',  undef ],
	[ 'r', { id => 1, v => 'one!',  n => 11 },    'false', 'incremental' ],
	[ 'r', { id => 3, v => 'three', n => 30 },    'false', 'incremental' ],
);
my $snapshot_lsn;
my $last_lsn = 0;
for my $i (0 .. $#want)
{
	my ($op, $row, $deleted, $marker) = @{ $want[$i] };
	my $r = $recs->[$i] or last;
	my $label = "record $i ($op:$row->{id})";
	my $doc = CdcKafka::json_parser()->decode($r->{value});
	my $v = $doc->{payload};
	my $key = CdcKafka::json_parser()->decode(payload_part($r->{key}));

	is_deeply($key, { id => $row->{id} }, "$label: key");
	is_deeply([ sort keys %$v ], [ sort(qw(id v n __deleted __op __lsn __source_snapshot)) ],
		"$label: the row's columns and the added fields, no envelope");
	is_deeply({ map { $_ => $v->{$_} } qw(id v n) }, $row, "$label: the row");
	is($v->{__deleted}, $deleted, "$label: __deleted");
	is($v->{__op}, $op, "$label: __op");
	is($v->{__source_snapshot}, $marker, "$label: __source_snapshot");
	if (defined $marker && $marker eq 'incremental')
	{
		# the position of the chunk's low watermark, written after the changes
		like($v->{__lsn} // '', qr/^[1-9]\d*$/, "$label: __lsn");
		cmp_ok($v->{__lsn} // 0, '>', $last_lsn, "$label: __lsn after the changes");
	}
	elsif ($op eq 'r')
	{
		like($v->{__lsn} // '', qr/^[1-9]\d*$/, "$label: __lsn");
		$snapshot_lsn //= $v->{__lsn};
		is($v->{__lsn}, $snapshot_lsn, "$label: __lsn is the snapshot's");
	}
	else
	{
		like($v->{__lsn} // '', qr/^[1-9]\d*$/, "$label: __lsn");
		cmp_ok($v->{__lsn} // 0, '>', $last_lsn, "$label: __lsn after the previous");
		$last_lsn = $v->{__lsn} // 0;
	}
	cmp_ok($snapshot_lsn // 0, '<', $last_lsn, "$label: changes after the snapshot")
	  if $op ne 'r';

	my $schema = $doc->{schema};
	is($schema->{name}, "$topic.Value", "$label: schema name");
	ok(!$schema->{optional}, "$label: the schema is not optional");
	is(join(',', map { $_->{field} } @{ $schema->{fields} }),
		'id,v,n,__deleted,__op,__lsn,__source_snapshot', "$label: schema fields");

	my %h = @{ $r->{headers} };
	ok(exists $h{__op}, "$label: header __op");
	is(eval { CdcKafka::json_parser()->decode(payload_part($h{__op})) }, $op, "$label: header __op value");
}

done_testing();
