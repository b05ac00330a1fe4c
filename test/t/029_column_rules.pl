# 029_column_rules.pl - the record-shaping settings of issue 12 applied by
# the worker end to end, against a real Kafka: cdc_kafka.message_key_columns,
# column_mask_with_chars, column_truncate_to_chars, column_mask_hash (v1 and
# v2), column_propagate_source_type and datatype_propagate_source_type.
#
#   A  the initial snapshot's rows, inserts, updates, deletes (with their
#      tombstones) and an incremental snapshot's rows of a table with text,
#      varchar, bytea, numeric and a domain column: every record keyed by the
#      message key columns, its values masked, cut and hashed (the digests
#      computed here with Digest::SHA / Digest::MD5 from README's rule), its
#      value schema carrying masked, truncateLength and the
#      __debezium.source.column.* parameters, one schema for reads and
#      changes alike; a partitioned table published via its root masked by
#      the root's name, on the root's topic only.
#   B  a bad value of each setting (and of the name adjustment modes and the
#      topic delimiter) in postgresql.conf is refused at reload naming the
#      setting; the worker streams on, in the same session, with the old
#      rules.
#   C  a reload that changes a mask and a salt restarts the session; later
#      changes and snapshot reads follow the new rules.
#
# test/t/029_column_rules.pl

use strict;
use warnings;
use FindBin;
use lib $FindBin::RealBin;

use Digest::MD5 qw(md5_hex);
use Digest::SHA qw(sha256_hex);
use MIME::Base64 qw(encode_base64);
use PostgreSQL::Test::Cluster;
use PostgreSQL::Test::Utils;
use Test::More;
use CdcKafka;

my $json = CdcKafka::json_parser();
my $topic = 'postgres.public.people';
my $meas_topic = 'postgres.public.meas';
my %rules = (mask => 5, salt => 'CzQMA0cB5K');

my $kafka = CdcKafka::Cluster->start(nodes => 1, partitions => 1);
# the settings under test, as first set
my %settings = (
	'cdc_kafka.message_key_columns' => 'public.people:id,name',
	'cdc_kafka.column_mask_with_chars' => "$rules{mask}: public.people.name, public.meas.secret",
	'cdc_kafka.column_truncate_to_chars' =>
	  '4: public.people.bio, public.people.code; 3: public.people.blob',
	'cdc_kafka.column_mask_hash' =>
	  "SHA-256:$rules{salt}: public.people.email; v2:MD5:s2: public.people.note",
	'cdc_kafka.column_propagate_source_type' => 'public.people.amount',
	'cdc_kafka.datatype_propagate_source_type' => 'public.people.posint',
);
my $node = new_node(
	'colrules',
	bootstrap => $kafka->bootstrap,
	create_extension => 0,
	conf => "cdc_kafka.publication_autocreate_mode = disabled\n"
	  . "cdc_kafka.decimal_handling_mode = string\n"
	  . join('', map { "$_ = '$settings{$_}'\n" } sort keys %settings));

# The rows as written; blob in hex.
my %rows = (
	1 => { name => 'Ann', email => 'ann@example.com', note => 'likes tea', bio => 'hello world',
		code => 'ABCDEFG', blob => '0102030405', amount => '12.50', score => 7 },
	2 => { name => 'Bob', email => undef, note => undef, bio => undef, code => 'AB',
		blob => undef, amount => undef, score => 1 },
	3 => { name => 'Cy', email => 'cy@example.org', note => 'n3', bio => 'abc',
		code => 'XYZW1', blob => 'ff', amount => '-0.01', score => 3 },
	4 => { name => 'Dee', email => 'dee@example.net', note => 'after bad values', bio => 'dddd',
		code => 'D', blob => '00', amount => '0.00', score => 4 },
	5 => { name => 'Eve', email => 'eve@example.com', note => 'after the reload', bio => 'eeeee',
		code => 'EEEEE', blob => '0e0e0e0e', amount => '5.55', score => 5 },
);
my @cols = qw(name email note bio code blob amount score);

sub sql_value
{
	my ($col, $v) = @_;
	return 'NULL' unless defined $v;
	return "'\\x$v'" if $col eq 'blob';
	return "'$v'";
}

sub insert_sql
{
	my ($id) = @_;
	return "INSERT INTO people VALUES ($id, "
	  . join(', ', map { sql_value($_, $rows{$id}{$_}) } @cols) . ');';
}

# every column but the key's from %rows
sub update_sql
{
	my ($id) = @_;
	return 'UPDATE people SET '
	  . join(', ', map { "$_ = " . sql_value($_, $rows{$id}{$_}) } grep { $_ ne 'name' } @cols)
	  . " WHERE id = $id;";
}

# ---- what the rules make of a row ------------------------------------------------------

# column.mask.hash (v1): the salt, then the value as Java's ObjectOutputStream
# writes a short String; cut to the column's length
sub hash_v1
{
	my ($salt, $v, $len) = @_;
	return undef unless defined $v;
	return substr(sha256_hex($salt . "\xAC\xED\x00\x05\x74" . pack('n', length $v) . $v), 0, $len);
}

# column.mask.hash.v2: the salt, then the value's bytes
sub hash_v2
{
	my ($salt, $v) = @_;
	return defined $v ? md5_hex($salt . $v) : undef;
}

sub cut
{
	my ($v, $n) = @_;
	return defined $v ? substr($v, 0, $n) : undef;
}

# The record value of row $id (as in $row, default %rows) under %$r (mask
# length, salt).
sub expected_row
{
	my ($id, $r, $row) = @_;
	$row //= $rows{$id};
	return {
		id => $id,
		name => '*' x $r->{mask},
		email => hash_v1($r->{salt}, $row->{email}, 40),
		note => hash_v2('s2', $row->{note}),
		bio => cut($row->{bio}, 4),
		code => cut($row->{code}, 4),
		blob => defined $row->{blob} ? encode_base64(cut(pack('H*', $row->{blob}), 3), '') : undef,
		amount => $row->{amount},
		score => $row->{score},
	};
}

# The parameters the value schema's fields must carry (none: no entry).
my %want_params = (
	name => { masked => 'true' },
	email => { masked => 'true' },
	note => { masked => 'true' },
	bio => { truncateLength => '4' },
	code => { truncateLength => '4' },
	blob => { truncateLength => '3' },
	amount => {
		'__debezium.source.column.type' => 'NUMERIC',
		'__debezium.source.column.length' => '8',
		'__debezium.source.column.scale' => '2',
		'__debezium.source.column.name' => 'amount' },
	score => {
		'__debezium.source.column.type' => 'POSINT',
		'__debezium.source.column.length' => '10',
		'__debezium.source.column.scale' => '0',
		'__debezium.source.column.name' => 'score' },
);

# ---- reading the topic -----------------------------------------------------------------

# Every record of $t: { op, key and key_schema, row (after, or before of a
# delete) and row_schema (its struct schema, named "row") }.
sub records
{
	my ($t) = @_;
	my @out;
	for my $raw (@{ $kafka->consume($t) })
	{
		my $k = $json->decode($raw->{key});
		my $rec = { key => $k->{payload}, key_schema => $k->{schema}, op => 'tombstone' };
		if (defined $raw->{value})
		{
			my $v = $json->decode($raw->{value});
			my $side = $v->{payload}{op} eq 'd' ? 'before' : 'after';
			$rec->{op} = $v->{payload}{op};
			$rec->{row} = $v->{payload}{$side};
			my ($field) = grep { $_->{field} eq $side } @{ $v->{schema}{fields} };
			$rec->{row_schema} = { %$field, field => 'row' };
		}
		push @out, $rec;
	}
	return \@out;
}

# Check one record against row $id (as in $row) under %$r.
sub check_record
{
	my ($rec, $id, $row, $r, $label) = @_;
	is_deeply($rec->{key}, { id => $id, name => $row->{name} },
		"$label: key of the message key columns, unmasked");
	is_deeply([ map { $_->{field} } @{ $rec->{key_schema}{fields} } ], [qw(id name)],
		"$label: key schema fields");
	return if $rec->{op} eq 'tombstone';
	is_deeply($rec->{row}, expected_row($id, $r, $row), "$label: masked, cut and hashed values")
	  or diag(explain $rec->{row});
	my %params = map { $_->{field} => $_->{parameters} } @{ $rec->{row_schema}{fields} };
	is_deeply({ map { $_ => $params{$_} } grep { defined $params{$_} } keys %params },
		\%want_params, "$label: schema parameters")
	  or diag(explain \%params);
}

# Check the records of $recs from the $from'th against @$want ([op, id,
# row], ...) under %$r; every row has the same schema.
sub check_records
{
	my ($recs, $from, $want, $r, $label) = @_;
	$recs = [ @$recs[ $from .. $#$recs ] ];
	is(join(' ', map { "$_->{op}:$_->{key}{id}" } @$recs),
		join(' ', map { "$_->[0]:$_->[1]" } @$want), "$label: the records")
	  or return;
	my $ref_schema;
	for my $i (0 .. $#$want)
	{
		my ($op, $id, $row) = @{ $want->[$i] };
		my $rec = $recs->[$i];
		check_record($rec, $id, $row, $r, "$label: record $i ($op:$id)");
		next unless $rec->{row_schema};
		$ref_schema //= $rec->{row_schema};
		is_deeply($rec->{row_schema}, $ref_schema, "$label: record $i: the row schema of the others");
	}
}

sub snapshot_done
{
	my ($table) = @_;
	my $id = $node->safe_psql('postgres', "SELECT cdc_kafka.snapshot('$table')");
	return poll_until(
		sub {
			$node->safe_psql('postgres', "SELECT state FROM cdc_kafka.snapshots WHERE id = $id") eq 'done';
		},
		120, "incremental snapshot $id of $table");
}

# ---- A: snapshots and streaming ---------------------------------------------------------

$node->safe_psql('postgres', qq{
CREATE DOMAIN posint AS int CHECK (VALUE > 0);
CREATE TABLE people (id int PRIMARY KEY, name text NOT NULL, email varchar(40), note text,
	bio text, code varchar(10), blob bytea, amount numeric(8,2), score posint);
ALTER TABLE people REPLICA IDENTITY FULL;
CREATE TABLE meas (id int, region text, secret text, PRIMARY KEY (region, id))
	PARTITION BY LIST (region);
CREATE TABLE meas_eu PARTITION OF meas FOR VALUES IN ('eu');
CREATE TABLE meas_us PARTITION OF meas FOR VALUES IN ('us');
@{[ insert_sql(1) ]}
@{[ insert_sql(2) ]}
INSERT INTO meas VALUES (1, 'eu', 'first');
CREATE PUBLICATION cdc_kafka FOR ALL TABLES WITH (publish_via_partition_root = true);
CREATE EXTENSION cdc_kafka;
});
ok(wait_streaming($node, timeout => 120), 'A: streaming after the initial snapshot');

my %before = map { $_ => { %{ $rows{$_} } } } keys %rows;
$node->safe_psql('postgres', insert_sql(3));
$rows{1} = { %{ $rows{1} }, email => 'ann@new.example', note => 'tea, no sugar',
	bio => 'bye', code => 'QRSTUVWXYZ', blob => 'a1b2c3d4', amount => '99.99', score => 8 };
$node->safe_psql('postgres', update_sql(1));
$node->safe_psql('postgres', 'DELETE FROM people WHERE id = 2');
$node->safe_psql('postgres', "INSERT INTO meas VALUES (2, 'us', 'second')");
ok(snapshot_done('people'), 'A: the incremental snapshot of people is done');
ok(wait_caught_up($node), 'A: caught up');

# op, id, the row as the record shows it
my @want = (
	[ r => 1, $before{1} ], [ r => 2, $before{2} ], [ c => 3, $rows{3} ], [ u => 1, $rows{1} ],
	[ d => 2, $before{2} ], [ tombstone => 2, $before{2} ], [ r => 1, $rows{1} ], [ r => 3, $rows{3} ]);
my $recs = records($topic);
check_records($recs, 0, \@want, \%rules, 'A');

my @meas = map { decode_record($_) } @{ $kafka->consume($meas_topic) };
is(join(' ', map { "$_->{op}:$_->{after}{id}:" . ($_->{after}{secret} // 'null') } @meas),
	'r:1:***** c:2:*****', 'A: the partitioned table is masked by its root\'s name');
ok(!(grep { /meas_/ } keys %{ $kafka->topic_list }), 'A: no topic for the partitions');

# ---- B: bad values refused, the old rules kept -------------------------------------------

my %bad = (
	'cdc_kafka.message_key_columns' => 'public.people',
	'cdc_kafka.column_mask_with_chars' => 'x: public.people.name',
	'cdc_kafka.column_truncate_to_chars' => '4: public.people.(bio',
	'cdc_kafka.column_mask_hash' => 'SHA-999:salt: public.people.email',
	'cdc_kafka.column_propagate_source_type' => 'public.people.(amount',
	'cdc_kafka.datatype_propagate_source_type' => 'public.people.[posint',
	'cdc_kafka.schema_name_adjustment_mode' => 'avro2',
	'cdc_kafka.field_name_adjustment_mode' => 'nope',
	'cdc_kafka.topic_delimiter' => '/',
);
my $pid = worker_pid($node);
my $sessions = log_count($node, qr/starting logical decoding for slot/);
my $pos = log_size($node);
$node->append_conf('postgresql.conf', join('', map { "$_ = '$bad{$_}'\n" } sort keys %bad));
$node->reload;
ok(eval { $node->wait_for_log(qr/contains errors; unaffected changes were applied/, $pos); 1 },
	'B: the reload reports errors');
my $log = slurp_log_from($node, $pos);
like($log, qr/invalid value for parameter "\Q$_\E": "\Q$bad{$_}\E"/, "B: $_ refused, named in the log")
  for sort keys %bad;

$node->safe_psql('postgres', insert_sql(4));
ok(wait_caught_up($node), 'B: caught up');
$recs = records($topic);
check_records($recs, scalar(@want), [ [ c => 4, $rows{4} ] ], \%rules, 'B: with the old rules');
is(worker_pid($node), $pid, 'B: the same worker');
is(log_count($node, qr/starting logical decoding for slot/), $sessions, 'B: in the same session');
$node->adjust_conf('postgresql.conf', $_, exists $settings{$_} ? "'$settings{$_}'" : undef)
  for keys %bad;
$node->reload;

# ---- C: a reload with new rules ----------------------------------------------------------

my $seen = scalar @$recs;
%rules = (mask => 2, salt => 'N3wSalt');
$pos = log_size($node);
$node->safe_psql('postgres',
	"ALTER SYSTEM SET cdc_kafka.column_mask_with_chars = '$rules{mask}: public.people.name, public.meas.secret'");
$node->safe_psql('postgres',
	"ALTER SYSTEM SET cdc_kafka.column_mask_hash = 'SHA-256:$rules{salt}: public.people.email; v2:MD5:s2: public.people.note'");
$node->reload;
ok(eval { $node->wait_for_log(qr/settings changed, restarting streaming/, $pos); 1 },
	'C: the changed rules restart the session');
ok(wait_streaming($node), 'C: streaming again');
$rows{3} = { %{ $rows{3} }, email => 'cy@new.example', bio => 'cyyyyy' };
$node->safe_psql('postgres', insert_sql(5) . update_sql(3));
$node->safe_psql('postgres', "INSERT INTO meas VALUES (3, 'eu', 'third')");
ok(snapshot_done('people'), 'C: an incremental snapshot of people is done');
ok(wait_caught_up($node), 'C: caught up');
check_records(records($topic), $seen,
	[ [ c => 5, $rows{5} ], [ u => 3, $rows{3} ], map { [ r => $_, $rows{$_} ] } 1, 3, 4, 5 ],
	\%rules, 'C: new rules');
is(decode_record($kafka->consume($meas_topic)->[-1])->{after}{secret}, '**',
	'C: the partitioned table\'s new mask');

done_testing();
