# 009_tables.pl - which tables and databases are streamed, and where to.
#
#  * cdc_kafka.databases lists two databases: one worker each, both in
#    cdc_kafka.status; a listed database that does not exist yet is waited
#    for (and warned about once), then streamed once created.
#  * cdc_kafka.publication_autocreate_mode = filtered with
#    cdc_kafka.table_include_list: only those tables are streamed;
#    cdc_kafka.tables(), add_tables() and remove_tables() change the set
#    while streaming, exactly from the point of the call on, as pgoutput
#    applies publication changes.
#  * Rows that existed before the slot was created arrive as op "r"
#    (snapshot_mode initial, Debezium's default).
#  * cdc_kafka.topic_prefix replaces the database name in topic names.
#  * A database taken out of cdc_kafka.databases loses its worker.
#
# test/t/009_tables.pl

use strict;
use warnings;
use FindBin;
use lib $FindBin::RealBin;

use PostgreSQL::Test::Cluster;
use PostgreSQL::Test::Utils;
use Test::More;
use CdcKafka;

my $kafka = CdcKafka::Cluster->start(nodes => 1, partitions => 1);
my $node = new_node(
	'tables',
	bootstrap => $kafka->bootstrap,
	databases => 'postgres, app2',
	create_extension => 0,
	log_statement => 'all',
	conf => q{
cdc_kafka.publication_autocreate_mode = filtered
cdc_kafka.table_include_list = 'public.a'
});

# events on a topic: "op:id" (tombstones as "t:id")
sub events
{
	my ($topic) = @_;
	return [ map { decode_record($_); ($_->{op} eq 'tombstone' ? 't' : $_->{op}) . ':' . $_->{key_payload}{id} }
		  @{ $kafka->consume($topic) } ];
}

# ---- a listed database that does not exist yet --------------------------------

ok( eval {
		$node->wait_for_log(qr/WARNING:  database "app2" listed in cdc_kafka\.databases does not exist/);
		1;
	},
	'the launcher warns that app2 does not exist');

# ---- the first database, filtered, with rows from before -------------------------

$node->safe_psql(
	'postgres', q{
CREATE TABLE a (id int PRIMARY KEY, v text);
CREATE TABLE b (id int PRIMARY KEY, v text);
INSERT INTO a VALUES (1, 'old 1'), (2, 'old 2'), (3, 'old 3');
INSERT INTO b VALUES (1, 'old b');
CREATE EXTENSION cdc_kafka;
});
ok(wait_streaming($node, timeout => 60), 'postgres streams');
is($node->safe_psql('postgres', 'SELECT string_agg(t::text, \',\' ORDER BY t::text) FROM cdc_kafka.tables() t'),
	'a', 'tables() lists the include list: a');
is($node->safe_psql('postgres', "SELECT puballtables FROM pg_publication WHERE pubname = 'cdc_kafka'"),
	'f', 'the publication is not FOR ALL TABLES');

# ---- the second database, created now -------------------------------------------

$node->safe_psql('postgres', 'CREATE DATABASE app2');
$node->safe_psql(
	'app2', q{
CREATE TABLE a (id int PRIMARY KEY, v text);
INSERT INTO a VALUES (10, 'app2 old');
CREATE EXTENSION cdc_kafka;
});
ok(wait_streaming($node, db => 'app2', timeout => 60), 'app2 streams once created');
is($node->safe_psql('postgres', "SELECT string_agg(database || ':' || state, ',' ORDER BY database) FROM cdc_kafka.status"),
	'app2:streaming,postgres:streaming', 'cdc_kafka.status shows one streaming worker per database');
is($node->safe_psql('postgres', "SELECT count(*) FROM pg_stat_activity WHERE backend_type = 'cdc_kafka worker'"),
	'2', 'two worker processes');
is(log_count($node, qr/WARNING:  database "app2" listed in cdc_kafka\.databases does not exist/), 1,
	'the missing database was warned about once');

$node->safe_psql('postgres', "INSERT INTO a VALUES (4, 'new 4'); INSERT INTO b VALUES (2, 'not captured')");
$node->safe_psql('app2', "INSERT INTO a VALUES (11, 'app2 new')");
ok(wait_caught_up($node), 'postgres caught up');
ok(wait_caught_up($node, db => 'app2'), 'app2 caught up');

is_deeply(events('postgres.public.a'), [ 'r:1', 'r:2', 'r:3', 'c:4' ],
	'postgres.public.a: the rows from before as op r, then the new change');
is_deeply(events('app2.public.a'), [ 'r:10', 'c:11' ], 'app2.public.a: app2\'s rows, on its own topic');
ok(!exists $kafka->topic_list->{'postgres.public.b'}, 'b is not streamed (not in the include list)');
ok(!grep({ /cdc_kafka\./ } keys %{ $kafka->topic_list }), 'the extension\'s own tables are not streamed');

# ---- add_tables / remove_tables ------------------------------------------------

is($node->safe_psql('postgres', "SELECT string_agg(t::text, ',' ORDER BY t::text) FROM cdc_kafka.add_tables('b') t"),
	'a,b', 'add_tables(b) returns a,b');
$node->safe_psql('postgres', "INSERT INTO b VALUES (3, 'captured'); UPDATE b SET v = 'captured too' WHERE id = 1");
ok(wait_caught_up($node), 'caught up after add_tables');
is_deeply(events('postgres.public.b'), [ 'c:3', 'u:1' ],
	'b\'s changes after add_tables() arrive, the ones before do not');

is($node->safe_psql('postgres', "SELECT string_agg(t::text, ',' ORDER BY t::text) FROM cdc_kafka.remove_tables('a') t"),
	'b', 'remove_tables(a) returns b');
$node->safe_psql('postgres', "INSERT INTO a VALUES (5, 'not captured'); INSERT INTO b VALUES (4, 'captured')");
ok(wait_caught_up($node), 'caught up after remove_tables');
is_deeply(events('postgres.public.a'), [ 'r:1', 'r:2', 'r:3', 'c:4' ], 'a\'s change after remove_tables() is not sent');
is_deeply(events('postgres.public.b'), [ 'c:3', 'u:1', 'c:4' ], 'b goes on');

my ($ret, $out, $err) = $node->psql('app2', "SELECT cdc_kafka.add_tables('pg_class')");
isnt($ret, 0, 'add_tables() of a catalog table fails') or diag($out);

# the set of tables outlives the streaming session
my $sessions = log_count($node, qr/starting logical decoding for slot "cdc_kafka_postgres"/);
$node->safe_psql('postgres', 'SELECT cdc_kafka.restart()');
ok(poll_until(sub { log_count($node, qr/starting logical decoding for slot "cdc_kafka_postgres"/) > $sessions },
		30, 'a new session'),
	'restart() starts a new session');
ok(wait_streaming($node), 'streaming');
is($node->safe_psql('postgres', 'SELECT string_agg(t::text, \',\' ORDER BY t::text) FROM cdc_kafka.tables() t'),
	'b', 'after a new session tables() is still b (add_tables/remove_tables are kept)');
$node->safe_psql('postgres', "INSERT INTO a VALUES (6, 'removed table'); INSERT INTO b VALUES (6, 'added table')");
ok(wait_caught_up($node), 'caught up after the new session');
is_deeply(events('postgres.public.b'), [ 'c:3', 'u:1', 'c:4', 'c:6' ], 'b\'s change after the new session arrives');
is_deeply(events('postgres.public.a'), [ 'r:1', 'r:2', 'r:3', 'c:4' ], 'a\'s does not');

# ---- topic_prefix (seen on app2, whose tables did not change) -------------------------

$node->safe_psql('postgres', "ALTER SYSTEM SET cdc_kafka.topic_prefix = 'shop'");
$node->reload;
ok(poll_until(sub { my $s = status($node, 'app2'); $s && ($s->{topic_prefix} // '') eq 'shop' && $s->{state} eq 'streaming' },
		60, 'topic prefix shop'),
	'the worker takes cdc_kafka.topic_prefix on reload');
$node->safe_psql('app2', "INSERT INTO a VALUES (12, 'prefixed')");
ok(wait_caught_up($node, db => 'app2'), 'caught up');
is_deeply(events('shop.public.a'), ['c:12'], 'records go to <topic_prefix>.<schema>.<table>')
  or diag('topics: ' . join(' ', sort keys %{ $kafka->topic_list }));
my $rec = $kafka->consume('shop.public.a')->[0];
my $r = $rec ? decode_record($rec) : {};
is($r->{value_payload}{source}{name}, 'shop', 'source.name is the topic prefix');
is($r->{value_payload}{source}{db}, 'app2', 'source.db is still the database');
is_deeply(events('app2.public.a'), [ 'r:10', 'c:11' ], 'nothing more under the old prefix');

# ---- a database taken out of cdc_kafka.databases -----------------------------------

$node->safe_psql('postgres', "ALTER SYSTEM SET cdc_kafka.databases = 'postgres'");
$node->reload;
ok( $node->poll_query_until('postgres',
		"SELECT count(*) FROM pg_stat_activity WHERE backend_type = 'cdc_kafka worker'", '1'),
	'taking app2 out of cdc_kafka.databases stops its worker');
is($node->safe_psql('postgres', 'SELECT string_agg(database, \',\') FROM cdc_kafka.status'), 'postgres',
	'and cdc_kafka.status lists only postgres');
$node->safe_psql('postgres', "INSERT INTO b VALUES (7, 'still streaming')");
ok(wait_caught_up($node), 'the other database streams on');

$node->stop;
$kafka->stop;
done_testing();
