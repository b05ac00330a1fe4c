# shellcheck shell=bash
#
# bench/workload.sh -- the benchmarks' table and rows: sourced by
# bench/decode.sh and bench/lib.sh (stream.sh, snapshot.sh), so that every
# benchmark measures the same data.  Needs ROWS and TXN_ROWS.

# The benchmarks' table.
bench_rows_ddl()
{
	cat <<'EOF'
CREATE TABLE bench_rows (
	id        bigint PRIMARY KEY,
	qty       int NOT NULL,
	label     text NOT NULL,
	amount    numeric(12,2),
	placed_at timestamptz NOT NULL,
	paid      boolean NOT NULL
);
EOF
}

# INSERT statements of TXN_ROWS rows each, every one its own transaction, each
# followed by the time (epoch seconds) right after its commit.
workload_sql()
{
	local first last
	echo "SELECT setseed(0.42);"
	echo "SELECT extract(epoch FROM clock_timestamp());"
	for ((first = 1; first <= ROWS; first += TXN_ROWS)); do
		last=$((first + TXN_ROWS - 1))
		((last <= ROWS)) || last=$ROWS
		cat <<EOF
INSERT INTO bench_rows
SELECT i,
       floor(random() * 2000000000 - 1000000000)::int,
       'order ' || i || ' for '
         || (ARRAY['Alice','Bob','Carla','José','Zoë','Ørjan','Hiroshi','Fatima'])[1 + i % 8]
         || ' ' || substr(md5(i::text), 1, 4 + i % 16),
       round((random() * 2000000 - 500000)::numeric, 2),
       timestamptz '2020-01-01 00:00:00+00' + random() * interval '5 years',
       random() < 0.5
  FROM generate_series($first, $last) AS i;
SELECT extract(epoch FROM clock_timestamp());
EOF
	done
}
