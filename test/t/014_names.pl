# 014_names.pl - names and lengths at their limits, and pg_upgrade.
#
#  * A database name of 63 bytes (NAMEDATALEN - 1): its slot name
#    (cdc_kafka_%d) would be 73 bytes; it is shortened to 63, ending in '_'
#    and a hash of the whole name, so two long names that differ only at
#    their end get two slots, the same ones after a restart.
#  * Two databases whose slot names would be the same (x_y and "x-y") are
#    refused by cdc_kafka.databases' check: neither gets the slot.
#  * The progress file of an interrupted initial snapshot holds a key of
#    any length: a key of 6000 bytes (12000 hex digits on its line) comes
#    back whole as the last_key of the resumed snapshot.
#  * reset_offsets() to an LSN behind the slot is refused before the worker
#    is asked to let go of the slot.
#  * In binary upgrade mode (postgres -b, as pg_upgrade starts servers) no
#    launcher and no worker start.
#
# Kafka is not needed: the broker given is unreachable, and nothing here
# depends on records reaching it.
#
# test/t/014_names.pl

use strict;
use warnings;
use FindBin;
use lib $FindBin::RealBin;

use PostgreSQL::Test::Cluster;
use PostgreSQL::Test::Utils;
use Test::More;
use CdcKafka;

my $node = new_node(
	'names',
	bootstrap => '127.0.0.1:9',
	databases => '',
	wait => 0,
	conf => "cdc_kafka.snapshot_mode = no_data\n");

sub set_databases
{
	my ($list) = @_;
	$node->safe_psql('postgres', "ALTER SYSTEM SET cdc_kafka.databases = '$list'");
	$node->reload;
}

# ---- a key line longer than 8 kB in the progress file ------------------------------
$node->safe_psql('postgres', q{
CREATE TABLE long_keys (k text PRIMARY KEY, v int);
SELECT pg_create_logical_replication_slot('cdc_kafka_postgres', 'cdc_kafka');
});
my $relid = $node->safe_psql('postgres', "SELECT 'long_keys'::regclass::oid");
my $key = join('', map { chr(97 + $_ % 26) } 0 .. 5999);
my $progress = $node->data_dir . '/pg_logical/cdc_kafka_snapshot_cdc_kafka_postgres';
open(my $fh, '>', $progress) or die "could not write $progress: $!";
print $fh "$relid pending 7 x" . unpack('H*', $key) . "\n";
close $fh;

set_databases('postgres');
ok( poll_until(
		sub {
			$node->safe_psql('postgres',
				"SELECT count(*) FROM cdc_kafka.snapshots WHERE kind = 'resumed'") > 0;
		},
		60,
		'the resumed snapshot'),
	'the interrupted initial snapshot is resumed');
is( $node->safe_psql('postgres',
		"SELECT string_agg(format('%s %s %s %s', table_name, rows_sent, cardinality(last_key), "
		  . "length(last_key[1])), ';') FROM cdc_kafka.snapshots WHERE kind = 'resumed'"),
	'public.long_keys 7 1 6000',
	'one resumed snapshot, with the whole key of 6000 bytes');
is($node->safe_psql('postgres',
		"SELECT last_key[1] = '$key' FROM cdc_kafka.snapshots WHERE kind = 'resumed'"),
	't', 'the key is the one written');
ok(!-e $progress, 'the progress file is gone once read');

# ---- reset_offsets() behind the slot: refused before the worker is disturbed ----------
my ($ret, $out, $err) = $node->psql('postgres', "SELECT cdc_kafka.reset_offsets('0/1')");
isnt($ret, 0, 'reset_offsets() to an LSN behind the slot fails');
like($err, qr/argument "lsn" of cdc_kafka.reset_offsets\(\) is behind replication slot "cdc_kafka_postgres"/,
	'it says the slot only moves forward, before asking the worker to let go of the slot');

# ---- database names of 63 bytes ---------------------------------------------------------
my $long1 = ('d' x 60) . 'one';
my $long2 = ('d' x 60) . 'two';
is(length($long1), 63, 'a database name of NAMEDATALEN - 1 bytes');
for my $db ($long1, $long2, 'x_y', 'x-y')
{
	$node->safe_psql('postgres', qq{CREATE DATABASE "$db"});
	$node->safe_psql($db, 'CREATE EXTENSION cdc_kafka');
}
set_databases(qq{postgres, $long1, $long2});

my %slot;
for my $db ($long1, $long2)
{
	ok( poll_until(
			sub {
				$node->safe_psql('postgres',
					"SELECT count(*) FROM pg_replication_slots WHERE database = '$db'") == 1;
			},
			60,
			"the slot of $db"),
		"database of 63 bytes (...$db) has its slot");
	$slot{$db} = $node->safe_psql('postgres',
		"SELECT slot_name FROM pg_replication_slots WHERE database = '$db'");
	like($slot{$db}, qr/^cdc_kafka_d{44}_[0-9a-f]{8}$/,
		"its slot name is 63 bytes: 54 of cdc_kafka_%d, '_', a hash ($slot{$db})");
	my $st = status($node, $db);
	is($st && $st->{slot_name}, $slot{$db}, 'cdc_kafka.status shows that slot name');
}
isnt($slot{$long1}, $slot{$long2}, 'names that differ only at the end get different slots');

$node->restart;
for my $db ($long1, $long2)
{
	ok( poll_until(
			sub { my $st = status($node, $db); $st && ($st->{slot_name} // '') eq $slot{$db} },
			60, "the slot of $db after a restart"),
		'after a restart the worker uses the same slot');
}
is($node->safe_psql('postgres', "SELECT count(*) FROM pg_replication_slots"),
	3, 'no other slot was created');

# ---- two databases, one slot name -----------------------------------------------------------
# (refused by the setting's check: the old list stays; a pattern without %d is 020's case)
($ret, $out, $err) =
  $node->psql('postgres', q{ALTER SYSTEM SET cdc_kafka.databases = 'postgres, x_y, "x-y"'});
isnt($ret, 0, 'a list with x_y and "x-y" is refused');
like($err, qr/"x_y" and "x-y" would share replication slot "cdc_kafka_x_y"/,
	'the error names both databases and their one slot name');
$node->restart;
is($node->safe_psql('postgres',
		"SELECT count(*) FROM pg_replication_slots WHERE slot_name = 'cdc_kafka_x_y'"),
	0, 'neither of them created the slot');

# ---- binary upgrade mode ---------------------------------------------------------------------
sub cdc_processes
{
	return $node->safe_psql('postgres',
		"SELECT count(*) FROM pg_stat_activity WHERE backend_type LIKE 'cdc_kafka%'");
}
ok(poll_until(sub { cdc_processes() > 0 }, 30, 'the launcher'), 'normally the launcher runs');
$node->stop;
command_ok(
	[ 'pg_ctl', '-D', $node->data_dir, '-l', $node->logfile, '-o', '-b', '-w', 'start' ],
	'the server starts in binary upgrade mode');
sleep 3;
is(cdc_processes(), 0, 'in binary upgrade mode no launcher or worker starts');
command_ok([ 'pg_ctl', '-D', $node->data_dir, '-w', '-m', 'fast', 'stop' ],
	'the server in binary upgrade mode stops');
$node->start;
ok(poll_until(sub { cdc_processes() > 0 }, 30, 'the launcher'),
	'after a normal start the launcher runs again');

$node->stop;
done_testing();
