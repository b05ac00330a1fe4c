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

# One INSERT of rows $2..$3 of the benchmark's shape into table $1.
rows_insert()
{
	cat <<EOF
INSERT INTO $1
SELECT i,
       floor(random() * 2000000000 - 1000000000)::int,
       'order ' || i || ' for '
         || (ARRAY['Alice','Bob','Carla','José','Zoë','Ørjan','Hiroshi','Fatima'])[1 + i % 8]
         || ' ' || substr(md5(i::text), 1, 4 + i % 16),
       round((random() * 2000000 - 500000)::numeric, 2),
       timestamptz '2020-01-01 00:00:00+00' + random() * interval '5 years',
       random() < 0.5
  FROM generate_series($2, $3) AS i;
EOF
}

# INSERT statements of TXN_ROWS rows each, every one its own transaction, each
# followed by the time (epoch seconds) right after its commit.  With
# WORKLOAD_TABLES=N (> 0) the rows go to many_0001 .. many_N instead of
# bench_rows, each transaction's rows spread evenly over them.
workload_sql()
{
	local first last t per lo hi
	echo "SELECT setseed(0.42);"
	echo "SELECT extract(epoch FROM clock_timestamp());"
	for ((first = 1; first <= ROWS; first += TXN_ROWS)); do
		last=$((first + TXN_ROWS - 1))
		((last <= ROWS)) || last=$ROWS
		if ((${WORKLOAD_TABLES:-0} > 0)); then
			echo "BEGIN;"
			per=$(((last - first + WORKLOAD_TABLES) / WORKLOAD_TABLES))
			for ((t = 1; t <= WORKLOAD_TABLES; t++)); do
				lo=$((first + (t - 1) * per)) hi=$((first + t * per - 1))
				((hi <= last)) || hi=$last
				((lo > hi)) || rows_insert "$(printf 'many_%04d' "$t")" "$lo" "$hi"
			done
			echo "COMMIT;"
		else
			rows_insert bench_rows "$first" "$last"
		fi
		echo "SELECT extract(epoch FROM clock_timestamp());"
	done
}
