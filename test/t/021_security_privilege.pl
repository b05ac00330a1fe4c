# 021_security_privilege.pl - an ordinary role cannot get its code run as a
# superuser through cdc_kafka (issue 8, items 1, 2, 3, 13).
#
# Role mallory owns the database "shop" (so she sets its search_path), a
# schema "mal" first in it with look-alikes of what cdc_kafka calls (an "="
# for bigint and for name/text, format(), pg_create_logical_replication_slot)
# and tables whose partial unique index predicate calls her IMMUTABLE
# function (folded by the planner of whoever reads the table).  Each of her
# functions records who ran it (role, superuser or not, process) and tries to
# make mallory a superuser (and more).  In turn:
#
#   A  the worker's start (publication, slot lookup) and initial snapshot
#   B  an incremental snapshot a superuser asks for, with and without a
#      row filter calling mallory's function
#   C  cancel_snapshot() called by mallory with her "=" first in search_path
#   D  cdc_kafka.tables() called by a superuser in mallory's database
#   E  a request of a role that became a superuser after it asked; the
#      queue cannot be written by an ordinary role
#   F  the worker creating the slot itself (snapshot_mode no_data)
#
# After each: mallory has no new attribute or membership, every call of her
# functions ran as a non-superuser, and the snapshots still arrive in Kafka.
#
# test/t/021_security_privilege.pl

use strict;
use warnings;
use FindBin;
use lib $FindBin::RealBin;

use PostgreSQL::Test::Cluster;
use PostgreSQL::Test::Utils;
use Test::More;
use JSON::PP;
use CdcKafka;

my $json = JSON::PP->new->allow_nonref;
my $kafka = CdcKafka::Cluster->start(nodes => 1, partitions => 1);
my $node = new_node(
	'sec',
	bootstrap => $kafka->bootstrap,
	databases => 'shop',
	create_extension => 0,
	conf => "cdc_kafka.schemas = off\ncdc_kafka.topic_prefix = 'sec'\ncdc_kafka.restart_delay = 1\n"
	  . "cdc_kafka.incremental_snapshot_chunk_size = 2\n");

# ---- mallory and her traps ---------------------------------------------------------

$node->safe_psql('postgres', q{
CREATE ROLE mallory LOGIN;
CREATE ROLE bob LOGIN;
CREATE DATABASE shop OWNER mallory;
});

sub as_mallory
{
	my ($sql) = @_;
	return $node->safe_psql('shop', $sql, extra_params => [ '-U', 'mallory' ]);
}

as_mallory(q{
CREATE SCHEMA mal;
CREATE TABLE mal.log (tag text, usr name, super boolean, pid int, at timestamptz DEFAULT clock_timestamp());
GRANT USAGE ON SCHEMA mal TO PUBLIC;
GRANT INSERT, SELECT ON mal.log TO PUBLIC;

-- who runs me; and try to become a superuser, to create roles, to replicate
CREATE FUNCTION mal.capture(tag text) RETURNS boolean LANGUAGE plpgsql VOLATILE AS $$
BEGIN
	INSERT INTO mal.log (tag, usr, super, pid)
		SELECT tag, current_user, r.rolsuper, pg_catalog.pg_backend_pid()
		FROM pg_catalog.pg_roles r WHERE r.rolname OPERATOR(pg_catalog.=) current_user;
	BEGIN
		EXECUTE 'ALTER ROLE mallory SUPERUSER CREATEROLE REPLICATION BYPASSRLS';
	EXCEPTION WHEN OTHERS THEN NULL;
	END;
	BEGIN
		EXECUTE 'GRANT pg_execute_server_program, pg_write_server_files TO mallory';
	EXCEPTION WHEN OTHERS THEN NULL;
	END;
	RETURN true;
END $$;

-- folded by the planner: immutable, called with a constant
CREATE FUNCTION mal.spy(tag text) RETURNS boolean LANGUAGE plpgsql IMMUTABLE AS $$
BEGIN
	PERFORM mal.capture(tag);
	RETURN true;
END $$;

-- for row filters
CREATE FUNCTION mal.pass(v text, tag text) RETURNS boolean LANGUAGE sql VOLATILE
	AS $$ SELECT mal.capture(tag) $$;

-- look-alikes of what cdc_kafka calls, exact in their argument types
CREATE FUNCTION mal.eq8(a bigint, b bigint) RETURNS boolean LANGUAGE plpgsql VOLATILE AS $$
BEGIN
	PERFORM mal.capture('eq-bigint');
	RETURN a OPERATOR(pg_catalog.=) b;
END $$;
CREATE OPERATOR mal.= (LEFTARG = bigint, RIGHTARG = bigint, FUNCTION = mal.eq8);
CREATE FUNCTION mal.eqnt(a name, b text) RETURNS boolean LANGUAGE plpgsql VOLATILE AS $$
BEGIN
	PERFORM mal.capture('eq-name-text');
	RETURN a OPERATOR(pg_catalog.=) b;
END $$;
CREATE OPERATOR mal.= (LEFTARG = name, RIGHTARG = text, FUNCTION = mal.eqnt);
CREATE FUNCTION mal.format(f text, a name, b name) RETURNS text LANGUAGE plpgsql VOLATILE AS $$
BEGIN
	PERFORM mal.capture('format');
	RETURN pg_catalog.format(f, a, b);
END $$;
CREATE FUNCTION mal.pg_create_logical_replication_slot(slot text, plugin text,
		OUT slot_name name, OUT lsn pg_lsn) LANGUAGE plpgsql VOLATILE AS $$
BEGIN
	PERFORM mal.capture('create-slot');
	SELECT * INTO slot_name, lsn FROM pg_catalog.pg_create_logical_replication_slot(slot::name, plugin::name);
END $$;

-- A: read by the initial snapshot
CREATE TABLE mal.trap1 (id int PRIMARY KEY, v text);
CREATE UNIQUE INDEX trap1_v ON mal.trap1 (v) WHERE mal.spy('initial');
INSERT INTO mal.trap1 VALUES (1, 'a'), (2, 'b'), (3, 'c');

ALTER DATABASE shop SET search_path = mal, pg_catalog, public;
});

my $mallory_roles = $node->safe_psql('postgres',
	q{SELECT string_agg(b.rolname, ',' ORDER BY b.rolname) FROM pg_roles b
	  WHERE pg_has_role('mallory', b.oid, 'MEMBER') AND b.rolname <> 'mallory'});

# mallory gained nothing, and her functions ran (if at all) as herself
sub check_no_escalation
{
	my ($what, $tags) = @_;
	is( $node->safe_psql('postgres',
			q{SELECT rolsuper OR rolcreaterole OR rolreplication OR rolbypassrls FROM pg_roles
			  WHERE rolname = 'mallory'}),
		'f', "$what: mallory is not superuser, createrole, replication or bypassrls");
	is( $node->safe_psql('postgres',
			q{SELECT string_agg(b.rolname, ',' ORDER BY b.rolname) FROM pg_roles b
			  WHERE pg_has_role('mallory', b.oid, 'MEMBER') AND b.rolname <> 'mallory'}),
		$mallory_roles, "$what: mallory's role memberships are unchanged");
	my $where = "tag OPERATOR(pg_catalog.=) ANY ('{" . join(',', @$tags) . "}'::pg_catalog.text[])";
	is( as_mallory(
			"SELECT coalesce(pg_catalog.string_agg(DISTINCT tag || ' as ' || usr, ', '), 'none') "
			  . "FROM mal.log WHERE $where AND super"),
		'none', "$what: no function of mallory's ran as a superuser");
}

# put mallory back as she was (after a failure, for the next part) and clear the log
sub reset_mallory
{
	$node->safe_psql('postgres',
		'ALTER ROLE mallory NOSUPERUSER NOCREATEROLE NOREPLICATION NOBYPASSRLS; '
		  . 'REVOKE pg_execute_server_program, pg_write_server_files FROM mallory');
	as_mallory('TRUNCATE mal.log');
}

# the rows of a topic, as "op:id"
sub events
{
	my ($topic) = @_;
	my @ev;
	$kafka->consume_each(
		$topic,
		sub {
			return unless defined $_[0]{value};
			my $v = $json->decode($_[0]{value});
			my $row = $v->{after} // $v->{before};
			push @ev, "$v->{op}:$row->{id}";
		});
	return join(' ', @ev);
}

# the worker's pid runs mallory's function: "usr super" of its calls there
sub worker_calls
{
	my ($tag) = @_;
	my $pid = worker_pid($node, 'shop') // 0;
	return as_mallory(
		"SELECT pg_catalog.string_agg(DISTINCT usr || ' ' || super, ',') FROM mal.log "
		  . "WHERE tag OPERATOR(pg_catalog.=) '$tag'::text AND pid OPERATOR(pg_catalog.=) $pid");
}

sub wait_job
{
	my ($id) = @_;
	my $state;
	poll_until(
		sub {
			$state = $node->safe_psql('shop',
				"SELECT state FROM cdc_kafka.snapshots WHERE id OPERATOR(pg_catalog.=) ${id}::bigint");
			return $state =~ /^(done|failed|cancelled)$/;
		},
		60, "snapshot $id finished");
	return $state;
}

# ---- A: the worker's start and initial snapshot ----------------------------------------

$node->safe_psql('shop', 'CREATE EXTENSION cdc_kafka');
ok(wait_streaming($node, db => 'shop'), 'A: the worker streams');
ok($kafka->wait_for_records('sec.mal.trap1', 3, 60), 'A: the initial snapshot of mal.trap1 arrives');
is(events('sec.mal.trap1'), 'r:1 r:2 r:3', 'A: its three rows as op r');
is(worker_calls('initial'), 'mallory false',
	'A: the index predicate was folded in the worker as mallory, not as a superuser');
check_no_escalation('A', [ 'initial', 'eq-name-text', 'eq-bigint', 'format' ]);
reset_mallory();

# ---- B: a superuser's incremental snapshot ---------------------------------------------

as_mallory(q{
CREATE TABLE mal.trap2 (id int PRIMARY KEY, v text);
CREATE UNIQUE INDEX trap2_v ON mal.trap2 (v) WHERE mal.spy('su-request');
INSERT INTO mal.trap2 VALUES (1, 'a'), (2, 'b'), (3, 'c');
});
ok($kafka->wait_for_records('sec.mal.trap2', 3, 60), 'B: the inserts arrive');
as_mallory('TRUNCATE mal.log');
my $id = $node->safe_psql('shop', "SELECT cdc_kafka.snapshot('mal.trap2')");
is(wait_job($id), 'done', 'B: the superuser\'s snapshot of mallory\'s table is done');
is(worker_calls('su-request'), 'mallory false',
	'B: the index predicate was folded as the table\'s owner, not as the superuser');
$id = $node->safe_psql('shop', q{SELECT cdc_kafka.snapshot('mal.trap2', $$mal.pass(v, 'su-filter') AND id <= 2$$)});
is(wait_job($id), 'done', 'B: the superuser\'s filtered snapshot is done');
is(worker_calls('su-filter'), 'mallory false',
	'B: the filter calling mallory\'s function ran as the table\'s owner');
is(events('sec.mal.trap2'), 'c:1 c:2 c:3 r:1 r:2 r:3 r:1 r:2', 'B: both snapshots arrive');
check_no_escalation('B', [ 'su-request', 'su-filter', 'eq-name-text', 'eq-bigint', 'format' ]);
reset_mallory();

# mallory's own request, with her filter: it runs as her and arrives
# (mallory and bob are delegated administrators from here on: README, Delegation)
$node->safe_psql('shop', q{GRANT cdc_kafka_admin TO mallory, bob});
$mallory_roles = $node->safe_psql('postgres',
	q{SELECT string_agg(b.rolname, ',' ORDER BY b.rolname) FROM pg_roles b
	  WHERE pg_has_role('mallory', b.oid, 'MEMBER') AND b.rolname <> 'mallory'});
$id = as_mallory(q{SELECT cdc_kafka.snapshot('mal.trap2', $$mal.pass(v, 'own-filter') AND id = 3$$)});
is(wait_job($id), 'done', 'B: mallory\'s own filtered snapshot is done');
is(worker_calls('own-filter'), 'mallory false', 'B: her filter ran as mallory');
is(events('sec.mal.trap2'), 'c:1 c:2 c:3 r:1 r:2 r:3 r:1 r:2 r:3', 'B: her snapshot arrives');

# a key of an extension's type (citext, in public): the chunks follow its own
# ordering operator, named with its schema (text's would repeat (1,a) after (1,B))
$node->safe_psql('shop', q{
CREATE EXTENSION citext SCHEMA public;
CREATE TABLE public.codes (id int, code public.citext, PRIMARY KEY (id, code));
INSERT INTO public.codes VALUES (1, 'a'), (1, 'B'), (1, 'c'), (2, 'A'), (2, 'b');
});
ok($kafka->wait_for_records('sec.public.codes', 5, 60), 'B: the inserts into codes arrive');
$id = $node->safe_psql('shop', "SELECT cdc_kafka.snapshot('public.codes')");
is(wait_job($id), 'done', 'B: the snapshot of codes is done');
my @codes;
$kafka->consume_each('sec.public.codes',
	sub { my $v = $json->decode($_[0]{value}); push @codes, "$v->{after}{id}$v->{after}{code}" if $v->{op} eq 'r'; });
is(join(' ', @codes), '1a 1B 1c 2A 2b', 'B: each row of codes once, in citext order, over three chunks');

# ---- C: cancel_snapshot() with mallory's "=" for bigint first in search_path --------------

as_mallory('SET search_path = mal, pg_catalog; SELECT cdc_kafka.cancel_snapshot(1)');
check_no_escalation('C', ['eq-bigint']);
reset_mallory();

# ---- D: a superuser's SQL functions in mallory's database --------------------------------

$node->safe_psql('shop', 'SELECT cdc_kafka.tables()');
check_no_escalation('D', [ 'eq-name-text', 'format' ]);
reset_mallory();

# ---- E: the queue and a role that became a superuser since it asked -----------------------

as_mallory('GRANT SELECT ON mal.trap2 TO bob');
my ($ret, $out, $err) = $node->psql('shop',
	q{INSERT INTO cdc_kafka.snapshots (table_oid, table_name, kind, filter, requested_by)
	  VALUES ('mal.trap2'::regclass, 'x', 'incremental', 'true', 'postgres')},
	extra_params => [ '-U', 'mallory' ]);
like($err, qr/permission denied/, 'E: mallory cannot write cdc_kafka.snapshots');

$node->safe_psql('shop', 'SELECT cdc_kafka.stop()');
ok(wait_state($node, 'stopped', db => 'shop'), 'E: streaming stopped');
$id = $node->safe_psql('shop', q{SELECT cdc_kafka.snapshot('mal.trap2', $$mal.pass(v, 'bob-filter')$$)},
	extra_params => [ '-U', 'bob' ]);
$node->safe_psql('postgres', 'ALTER ROLE bob SUPERUSER');
$node->safe_psql('shop', 'SELECT cdc_kafka.start()');
ok(wait_streaming($node, db => 'shop'), 'E: streaming again');
is(wait_job($id), 'failed', 'E: the request of bob, a superuser since he asked, fails');
like($node->safe_psql('shop', "SELECT error FROM cdc_kafka.snapshots WHERE id OPERATOR(pg_catalog.=) ${id}::bigint"),
	qr/became a superuser/, 'E: saying why');
check_no_escalation('E', ['bob-filter']);
reset_mallory();
$node->safe_psql('postgres', 'ALTER ROLE bob NOSUPERUSER');

# ---- F: the worker creates the slot (snapshot_mode no_data) --------------------------------

$node->safe_psql('shop', 'SELECT cdc_kafka.stop()');
ok(wait_state($node, 'stopped', db => 'shop'), 'F: streaming stopped');
$node->safe_psql('shop', 'SELECT cdc_kafka.drop_slot()');
$node->safe_psql('postgres', "ALTER SYSTEM SET cdc_kafka.snapshot_mode = 'no_data'");
$node->restart;
ok(wait_state($node, 'stopped', db => 'shop'), 'F: restarted, still stopped');
$node->safe_psql('shop', 'SELECT cdc_kafka.start()');
ok(wait_streaming($node, db => 'shop'), 'F: streaming from a new slot');
is($node->safe_psql('postgres', "SELECT count(*) FROM pg_replication_slots WHERE database = 'shop'"),
	'1', 'F: the worker created its slot');
check_no_escalation('F', [ 'create-slot', 'eq-name-text', 'format' ]);
as_mallory(q{INSERT INTO mal.trap2 VALUES (4, 'd')});
ok(poll_until(sub { events('sec.mal.trap2') =~ /c:4$/ }, 60, 'c:4'), 'F: streaming goes on');

$node->stop;
done_testing();
