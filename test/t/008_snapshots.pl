# 008_snapshots.pl - initial and incremental snapshots against a real Kafka.
#
#   A  1,000,000 existing rows in three tables, pgbench writing during the
#      initial snapshot: every existing row arrives exactly once as "r" (or
#      was deleted before the snapshot and never appears), new rows arrive
#      as "c", and the last record of every key is the row in the table.
#   B  the worker is killed in the middle of the initial snapshot, and
#   C  the server is stopped (immediate) in the middle of it: the snapshot
#      completes after the restart and no row is missing.
#   D  an incremental snapshot of a 1,000,000-row table under concurrent
#      updates, deletes and inserts: the last record of every key is the
#      row in the table, deleted rows end deleted; a filtered snapshot
#      sends exactly the rows of its filter; a cancelled one sends nothing.
#   E  snapshot modes initial_only, always, no_data (in D), initial and
#      when_needed with an invalidated slot; snapshot_chunked.
#
# test/t/008_snapshots.pl

use strict;
use warnings;
use FindBin;
use lib $FindBin::RealBin;

use PostgreSQL::Test::Cluster;
use PostgreSQL::Test::Utils;
use Test::More;
use Time::HiRes qw(time);
use Cpanel::JSON::XS;
use CdcKafka;

# A million records: decoded with the XS parser (JSON::PP takes minutes).
my $json = Cpanel::JSON::XS->new->allow_nonref;

my $kafka = CdcKafka::Cluster->start(nodes => 1, partitions => 1);

# ---- helpers ------------------------------------------------------------------

# A server whose tables exist before the extension (and so the slot) does.
sub snapshot_node
{
	my ($name, $conf) = @_;
	return new_node(
		$name,
		bootstrap => $kafka->bootstrap,
		create_extension => 0,
		log_statement => 'none',
		conf => "cdc_kafka.schemas = off\ncdc_kafka.topic_prefix = '$name'\n"
		  . "cdc_kafka.restart_delay = 1\n" . ($conf // ''));
}

sub fill
{
	my ($node, $table, $rows) = @_;
	$node->safe_psql('postgres',
		"INSERT INTO $table SELECT g, 1, 'row ' || g FROM generate_series(1, $rows) g");
}

# What a topic says about each key: its records in order.
sub topic_keys
{
	my ($topic) = @_;
	my %keys;
	$kafka->consume_each(
		$topic,
		sub {
			my $id = $json->decode($_[0]{key})->{id};
			my $k = $keys{$id} //= { ops => '', r => 0 };
			if (!defined $_[0]{value})
			{
				$k->{ops} .= 't';
				return;
			}
			my $v = $json->decode($_[0]{value});
			$k->{ops} .= $v->{op};
			$k->{r}++ if $v->{op} eq 'r';
			$k->{last} = $v->{op} eq 'd' ? undef : "$v->{after}{ver}|$v->{after}{pad}";
		});
	return \%keys;
}

sub table_rows
{
	my ($node, $table) = @_;
	my %rows;
	my $out = $node->safe_psql('postgres', "SELECT id, ver || '|' || pad FROM $table");
	for (split /\n/, $out)
	{
		my ($id, $v) = split /\|/, $_, 2;
		$rows{$id} = $v;
	}
	return \%rows;
}

# The last record of every key is the table's row; deleted keys end deleted.
sub check_final_state
{
	my ($node, $prefix, $table, $keys, $label) = @_;
	my $rows = table_rows($node, $table);
	my ($missing, $wrong, $undead) = (0, 0, 0);
	for my $id (keys %$rows)
	{
		if (!$keys->{$id}) { $missing++; next; }
		$wrong++ if ($keys->{$id}{last} // '(deleted)') ne $rows->{$id};
	}
	for my $id (keys %$keys)
	{
		$undead++ if !exists $rows->{$id} && defined $keys->{$id}{last};
	}
	is($missing, 0, "$label: every row of $table has records");
	is($wrong, 0, "$label: the last record of every key of $table is its row");
	is($undead, 0, "$label: every key deleted from $table ends deleted");
	return $rows;
}

sub r_count
{
	my ($keys) = @_;
	my $n = 0;
	$n += $_->{r} for values %$keys;
	return $n;
}

sub wait_snapshots_done
{
	my ($node, $timeout) = @_;
	return poll_until(
		sub {
			$node->safe_psql('postgres',
				"SELECT count(*) FROM cdc_kafka.snapshots WHERE state IN ('pending', 'running')") == 0;
		},
		$timeout // 300,
		'incremental snapshots done');
}

# ---- A: 1,000,000 rows, concurrent writes ---------------------------------------------

{
	my $node = snapshot_node('snapa');
	my %size = (big => 600_000, mid => 300_000, small => 100_000);
	create_versioned_tables($node, [ sort keys %size ]);
	fill($node, $_, $size{$_}) for keys %size;
	$node->safe_psql('postgres', 'VACUUM ANALYZE');

	my $t0 = time;
	$node->safe_psql('postgres', 'CREATE EXTENSION cdc_kafka');
	my $bench = start_pgbench($node, tables => [qw(big mid small)], rows => 100_000,
		clients => 2, jobs => 1, time => 20);
	ok(wait_state($node, 'snapshot', timeout => 60), 'A: the worker takes the initial snapshot');
	my $st = wait_streaming($node, timeout => 600);
	my $secs = time - $t0;
	my ($rc, $out, $err) = finish_pgbench($bench);
	is($rc, 0, 'A: pgbench wrote during the snapshot') or diag($err);
	ok(wait_caught_up($node, timeout => 600), 'A: caught up');
	note(sprintf('A: initial snapshot of %d rows in %.1f s', 1_000_000, $secs));

	for my $table (sort keys %size)
	{
		my $keys = topic_keys("snapa.public.$table");
		check_final_state($node, 'snapa', $table, $keys, 'A');
		my ($twice, $late_r, $absent, $first_not_r) = (0, 0, 0, 0);
		my %graves = map { $_ => 1 } split /\n/,
		  $node->safe_psql('postgres', "SELECT id FROM graveyard WHERE tbl = '$table'");
		for my $id (keys %$keys)
		{
			my $k = $keys->{$id};
			$twice++ if $k->{r} > 1;
			$late_r++ if $k->{ops} =~ /[cud].*r/;
			$first_not_r++ if $id <= $size{$table} && $k->{ops} !~ /^r/;
		}
		for my $id (1 .. $size{$table})
		{
			$absent++ if !$keys->{$id} && !$graves{$id};
		}
		is($twice, 0, "A: no row of $table arrives twice as r");
		is($late_r, 0, "A: in $table no r follows a change of its key");
		is($first_not_r, 0, "A: every existing row of $table that appears starts with its r");
		is($absent, 0, "A: every existing row of $table appears unless it was deleted");
	}
	my $source = sub { $json->decode($_[0]{value})->{source} };
	my @big = @{ $kafka->consume('snapa.public.big') };
	is($source->($big[0])->{snapshot}, 'first', 'A: the first record is marked first');
	like($source->($big[0])->{sequence}, qr/^\[null,"\d+"\]$/, 'A: its sequence is [null,"lsn"]');
	is($source->($big[1])->{snapshot}, 'true', 'A: the next ones are marked true');
	my @r = grep { defined $_->{value} && $json->decode($_->{value})->{op} eq 'r' }
	  @{ $kafka->consume('snapa.public.small') };
	is($source->($r[-1])->{snapshot}, 'last', 'A: the last record of the last table is marked last');
	is($source->($r[0])->{snapshot}, 'first_in_data_collection', 'A: a table starts with first_in_data_collection');
	@r = grep { defined $_->{value} && $json->decode($_->{value})->{op} eq 'r' }
	  @{ $kafka->consume('snapa.public.mid') };
	is($source->($r[-1])->{snapshot}, 'last_in_data_collection', 'A: and ends with last_in_data_collection');
	$node->stop('fast');
}

# ---- B and C: interrupted initial snapshots --------------------------------------------

for my $how ('kill', 'immediate')
{
	my $name = $how eq 'kill' ? 'snapb' : 'snapc';
	my $node = snapshot_node($name, "cdc_kafka.snapshot_fetch_size = 2000\n");
	create_versioned_tables($node, [qw(one two three)]);
	fill($node, 'one', 20_000);
	fill($node, 'two', 500_000);
	fill($node, 'three', 20_000);
	$node->safe_psql('postgres', 'VACUUM ANALYZE');
	my $offset = log_size($node);
	$node->safe_psql('postgres', 'CREATE EXTENSION cdc_kafka');
	ok(poll_until(sub { my $s = status($node); $s && ($s->{snapshot_rows} // 0) > 100_000 }, 300,
			'snapshot under way'), "$how: the snapshot of table two is under way");
	if ($how eq 'kill')
	{
		$node->safe_psql('postgres',
			"SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE backend_type = 'cdc_kafka worker'");
	}
	else
	{
		$node->stop('immediate');
		$node->start;
	}
	ok(wait_streaming($node, timeout => 300), "$how: streaming after the restart");
	ok(log_count($node, qr/initial snapshot of slot .* was interrupted; \d+ tables continue/, $offset) >= 1,
		"$how: the unfinished tables continue as incremental snapshots");
	ok(wait_snapshots_done($node), "$how: the resumed snapshots finish");
	ok(wait_caught_up($node), "$how: caught up");
	is($node->safe_psql('postgres',
			"SELECT count(*) FROM cdc_kafka.snapshots WHERE kind = 'resumed' AND state <> 'done'"),
		0, "$how: every resumed table is done");
	for my $table (qw(one two three))
	{
		my $keys = topic_keys("$name.public.$table");
		check_final_state($node, $name, $table, $keys, $how);
	}
	$node->stop('fast');
}

# ---- D: incremental snapshots while streaming -------------------------------------------

{
	my $node = snapshot_node('snapd', "cdc_kafka.snapshot_mode = no_data\n");
	create_versioned_tables($node, [qw(big mid small)]);
	fill($node, 'big', 1_000_000);
	fill($node, 'mid', 20_000);
	fill($node, 'small', 1000);
	$node->safe_psql('postgres', 'VACUUM ANALYZE; CREATE EXTENSION cdc_kafka');
	ok(wait_streaming($node), 'D: streaming (snapshot_mode no_data)');
	$node->safe_psql('postgres', 'UPDATE small SET ver = ver + 1 WHERE id = 1');
	ok(wait_caught_up($node), 'D: caught up');
	is($kafka->record_count('snapd.public.big'), 0, 'D: no_data sends no existing row');
	is(r_count(topic_keys('snapd.public.small')), 0, 'D: no_data: only the change of small');

	# a cancelled request sends nothing
	$node->safe_psql('postgres',
		"BEGIN;\nSELECT cdc_kafka.snapshot('small') AS id \\gset\nSELECT cdc_kafka.cancel_snapshot(:id);\nCOMMIT;");
	# churn on big, mid, small while big is read
	my $bench = start_pgbench($node, tables => [qw(big mid small)], rows => 1_000_000,
		clients => 4, jobs => 2, time => 25);
	my $t0 = time;
	my $id = $node->safe_psql('postgres', "SELECT cdc_kafka.snapshot('big')");
	ok(poll_until(sub { my $s = status($node); $s && ($s->{snapshot_table} // '') eq 'public.big' }, 60,
			'snapshot of big visible'), 'D: status shows the table being read');
	ok(wait_snapshots_done($node, 600), 'D: the incremental snapshot of big finishes');
	my $secs = time - $t0;
	my ($rc, $out, $err) = finish_pgbench($bench);
	is($rc, 0, 'D: pgbench wrote throughout') or diag($err);
	my ($tps) = $out =~ /tps = ([\d.]+)/;
	ok(wait_caught_up($node, timeout => 600), 'D: caught up');
	note(sprintf('D: incremental snapshot of 1,000,000 rows in %.1f s under %s tps', $secs, $tps // '?'));
	my $done = $node->safe_psql('postgres', "SELECT state, rows_sent > 0 FROM cdc_kafka.snapshots WHERE id = $id");
	is($done, 'done|t', 'D: the request is done');

	my $keys = topic_keys('snapd.public.big');
	check_final_state($node, 'snapd', 'big', $keys, 'D');
	cmp_ok(r_count($keys), '>', 900_000, 'D: most rows were sent as r (the others changed meanwhile)');

	# a filtered snapshot: the rows of the filter, as they are
	my $before = r_count(topic_keys('snapd.public.mid'));
	$node->safe_psql('postgres', "SELECT cdc_kafka.snapshot('mid', 'id % 100 = 0 AND ver >= 1')");
	ok(wait_snapshots_done($node), 'D: the filtered snapshot finishes');
	ok(wait_caught_up($node), 'D: caught up');
	my $mid = topic_keys('snapd.public.mid');
	my $want = $node->safe_psql('postgres', 'SELECT count(*) FROM mid WHERE id % 100 = 0');
	is(r_count($mid) - $before, $want, "D: the filtered snapshot sent the $want rows of its filter");
	my @outside = grep { $_ % 100 != 0 && $mid->{$_}{r} } keys %$mid;
	is(scalar(@outside), 0, 'D: and no row outside it');
	is(r_count(topic_keys('snapd.public.small')), 0, 'D: the cancelled request sent nothing');
	is($node->safe_psql('postgres', "SELECT state FROM cdc_kafka.snapshots WHERE table_name = 'public.small'"),
		'cancelled', 'D: the cancelled request stays cancelled');

	# a job whose table goes away fails, visibly, and streaming goes on
	$node->safe_psql('postgres', 'CREATE TABLE gone (id int PRIMARY KEY, ver int, pad text)');
	fill($node, 'gone', 200_000);
	$node->safe_psql('postgres', "ALTER SYSTEM SET cdc_kafka.incremental_snapshot_chunk_size = 10; SELECT pg_reload_conf()");
	ok(wait_streaming($node), 'D: streaming with small chunks');
	my $gone = $node->safe_psql('postgres', "SELECT cdc_kafka.snapshot('gone')");
	ok(poll_until(sub { (status($node)->{snapshot_table} // '') eq 'public.gone' }, 60, 'gone being read'),
		'D: the snapshot of gone is under way');
	$node->safe_psql('postgres', 'DROP TABLE gone');
	ok(poll_until(sub {
		$node->safe_psql('postgres', "SELECT state FROM cdc_kafka.snapshots WHERE id = $gone") eq 'failed' }, 60,
		'job failed'), 'D: a snapshot of a dropped table fails');
	like($node->safe_psql('postgres', "SELECT error FROM cdc_kafka.snapshots WHERE id = $gone"),
		qr/no longer captured|dropped|does not exist/, 'D: and says why');
	$node->safe_psql('postgres', 'UPDATE small SET ver = ver + 1 WHERE id = 2');
	ok(wait_caught_up($node), 'D: streaming goes on');
	$node->stop('fast');
}

# ---- E: snapshot modes ----------------------------------------------------------------------

{
	# initial_only: the rows, then no slot and no streaming
	my $node = snapshot_node('snape1', "cdc_kafka.snapshot_mode = initial_only\n");
	create_versioned_tables($node, ['t']);
	fill($node, 't', 100);
	$node->safe_psql('postgres', 'CREATE EXTENSION cdc_kafka');
	ok(wait_state($node, 'stopped', timeout => 120), 'initial_only: the worker stops after the snapshot');
	like(status($node)->{detail}, qr/initial_only/, 'initial_only: and says why');
	is($node->safe_psql('postgres', 'SELECT count(*) FROM pg_replication_slots'), 0,
		'initial_only: no slot is kept');
	is(r_count(topic_keys('snape1.public.t')), 100, 'initial_only: every row was sent');
	$node->stop('fast');

	# always: a snapshot at every start
	$node = snapshot_node('snape2', "cdc_kafka.snapshot_mode = always\n");
	create_versioned_tables($node, ['t']);
	fill($node, 't', 100);
	$node->safe_psql('postgres', 'CREATE EXTENSION cdc_kafka');
	ok(wait_streaming($node), 'always: streaming');
	$node->restart;
	ok(wait_streaming($node), 'always: streaming after a restart');
	ok(wait_snapshots_done($node), 'always: the startup snapshot finishes');
	ok(wait_caught_up($node), 'always: caught up');
	is(r_count(topic_keys('snape2.public.t')), 200, 'always: the rows were sent at each start');
	is($node->safe_psql('postgres', "SELECT string_agg(table_name, ',' ORDER BY table_name) "
		  . "FROM cdc_kafka.snapshots WHERE kind = 'startup' AND state = 'done'"),
		'public.graveyard,public.t', 'always: as startup snapshots of every captured table');
	$node->stop('fast');

	# snapshot_chunked: the initial snapshot as incremental snapshots
	$node = snapshot_node('snape4', "cdc_kafka.snapshot_chunked = on\n");
	create_versioned_tables($node, ['t']);
	fill($node, 't', 5000);
	$node->safe_psql('postgres', 'CREATE EXTENSION cdc_kafka');
	ok(wait_streaming($node), 'chunked: streaming at once');
	$node->safe_psql('postgres', "UPDATE t SET ver = 2, pad = 'changed' WHERE id % 7 = 0");
	ok(wait_snapshots_done($node), 'chunked: the initial snapshot finishes');
	ok(wait_caught_up($node), 'chunked: caught up');
	my $keys = topic_keys('snape4.public.t');
	check_final_state($node, 'snape4', 't', $keys, 'chunked');
	is($node->safe_psql('postgres', "SELECT string_agg(table_name || ':' || state, ',' ORDER BY table_name) "
		  . "FROM cdc_kafka.snapshots WHERE kind = 'initial'"),
		'public.graveyard:done,public.t:done', 'chunked: as requests of kind initial');
	my @marks = map { $json->decode($_->{value})->{source}{snapshot} }
	  grep { defined $_->{value} && $json->decode($_->{value})->{op} eq 'r' } @{ $kafka->consume('snape4.public.t') };
	is(scalar(grep { $_ ne 'incremental' } @marks), 0, 'chunked: its records are marked incremental');
	$node->stop('fast');

	# initial, then when_needed, with an invalidated slot
	$node = snapshot_node('snape3', "max_slot_wal_keep_size = '32MB'\n");
	create_versioned_tables($node, ['t']);
	fill($node, 't', 100);
	$node->safe_psql('postgres', 'CREATE EXTENSION cdc_kafka');
	ok(wait_streaming($node), 'when_needed: streaming');
	$node->safe_psql('postgres', 'SELECT cdc_kafka.stop()');
	ok(wait_state($node, 'stopped'), 'when_needed: stopped');
	$node->safe_psql('postgres',
		"SELECT pg_logical_emit_message(false, 'filler', repeat('x', 1000000)) FROM generate_series(1, 100); "
		  . "INSERT INTO t VALUES (101, 1, 'row 101');");
	$node->safe_psql('postgres', 'SELECT pg_switch_wal(); CHECKPOINT;') for 1 .. 3;
	is($node->safe_psql('postgres', 'SELECT wal_status FROM pg_replication_slots'), 'lost', 'the slot is lost');
	$node->safe_psql('postgres', 'SELECT cdc_kafka.start()');
	ok(wait_state($node, 'slot_lost'), 'snapshot_mode initial: a lost slot stops the worker');
	$node->append_conf('postgresql.conf', "cdc_kafka.snapshot_mode = when_needed\n");
	my $offset = log_size($node);
	$node->reload;
	ok(wait_streaming($node), 'when_needed: streaming again');
	ok(log_count($node, qr/dropped replication slot .*when_needed/, $offset) == 1, 'when_needed: the lost slot was dropped');
	ok(wait_caught_up($node), 'when_needed: caught up');
	$keys = topic_keys('snape3.public.t');
	is(r_count($keys), 201, 'when_needed: a new initial snapshot sent the rows again');
	ok($keys->{101}{r} == 1, 'when_needed: including the row written while the slot was lost');
	$node->stop('fast');
}

done_testing();
