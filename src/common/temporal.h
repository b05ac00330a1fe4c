/*-------------------------------------------------------------------------
 *
 * temporal.h
 *		PostgreSQL date/time values to Debezium's temporal representations
 *		(io.debezium.time.* and org.apache.kafka.connect.data.*).
 *
 * Inputs are PostgreSQL's on-disk values (days or microseconds counted from
 * 2000-01-01, interval fields), so the encoder never goes through the type
 * output functions for these types.  Pure code: no backend calls, so the
 * unit tests link it alone.  The proleptic Gregorian calendar and
 * astronomical year numbering (year 0 = 1 BC) are used throughout, as
 * java.time does.
 *
 * src/common/temporal.h
 *
 *-------------------------------------------------------------------------
 */
#ifndef CDC_KAFKA_TEMPORAL_H
#define CDC_KAFKA_TEMPORAL_H

#include <stddef.h>
#include <stdint.h>

/* Days and microseconds between 1970-01-01 and PostgreSQL's 2000-01-01. */
#define TEMPORAL_PG_EPOCH_DAYS	10957
#define TEMPORAL_PG_EPOCH_USECS INT64_C(946684800000000)

/* PostgreSQL's sentinels (DATEVAL_NOBEGIN/NOEND, DT_NOBEGIN/NOEND). */
#define TEMPORAL_DATE_NEG_INFINITY	INT32_MIN
#define TEMPORAL_DATE_POS_INFINITY	INT32_MAX
#define TEMPORAL_TS_NEG_INFINITY	INT64_MIN
#define TEMPORAL_TS_POS_INFINITY	INT64_MAX

/* Room for any formatted value below, NUL included. */
#define TEMPORAL_TEXT_MAX		64

/*
 * date -> days since 1970-01-01 (io.debezium.time.Date and Kafka's Date).
 * The infinities map to what Debezium emits for them: its sentinel dates
 * -5877611-06-21 for +infinity (-2147472692) and -5877611-06-22 for
 * -infinity (-2147472691).
 */
extern int32_t temporal_date_days(int32_t pg_date);

/*
 * The numbers Debezium gives a column DEFAULT of 'infinity' or '-infinity'
 * (not a value: defaults go through pgjdbc's TimestampUtils, which reads
 * them as java.time's LocalDateTime.MAX and MIN).  A date default becomes
 * LocalDate.MAX/MIN's epoch day cut to 32 bits by Java's (int) cast:
 * 169560311 and -170999002.  A timestamp default in microseconds saturates
 * in TimeUnit.toMicros and then adds the nanoseconds' microseconds:
 * -9223372036853775810 (Long.MAX_VALUE + 999999, wrapped) and Long.MIN_VALUE.
 */
extern int32_t temporal_default_date_infinity(int sign);
extern int64_t temporal_default_timestamp_infinity_micros(int sign);

/*
 * time (microseconds past midnight, 0 .. 86400000000) -> milliseconds past
 * midnight (io.debezium.time.Time, Kafka's Time) or microseconds
 * (io.debezium.time.MicroTime).
 */
extern int32_t temporal_time_millis(int64_t pg_time);
extern int64_t temporal_time_micros(int64_t pg_time);

/*
 * timestamp without time zone -> milliseconds (floored) or microseconds
 * since the epoch, the wall-clock value read as UTC (io.debezium.time.
 * Timestamp / MicroTimestamp, Kafka's Timestamp).  Infinities map to what
 * Debezium emits, pgjdbc's millisecond sentinels read as microseconds:
 * +infinity 9223372036825200000 us / 9223372036825200 ms, -infinity
 * -9223372036832400000 us / -9223372036832400 ms.  Microseconds past
 * Long.MAX_VALUE (after 294247-01-10) wrap around as in Debezium.
 */
extern int64_t temporal_timestamp_millis(int64_t pg_ts);
extern int64_t temporal_timestamp_micros(int64_t pg_ts);

/*
 * timestamp with time zone -> io.debezium.time.ZonedTimestamp text: UTC,
 * ISO-8601 with 'Z'; with precision 1..9 exactly that many fraction digits
 * (truncated), with precision 0 (or any other value) the fraction only when
 * non-zero and then without trailing zeros, as Java's ISO_OFFSET_DATE_TIME;
 * years above 9999 get a '+', years before 1 are astronomical with at least
 * 4 digits ("-4713-12-31T...", "-0044-..."); the infinities are written as
 * "infinity" and "-infinity".  precision -1 (no typmod) means 6.
 * Returns the length written (NUL written too).
 */
extern size_t temporal_zoned_timestamp(int64_t pg_tstz, int precision, char *out);

/*
 * time with time zone (microseconds past local midnight and PostgreSQL's zone
 * offset in seconds WEST of UTC) -> io.debezium.time.ZonedTime text: shifted
 * to UTC modulo one day, "HH:mm:ss" plus the fraction with trailing zeros
 * removed, then 'Z' (Java's ISO_OFFSET_TIME).  24:00:00+00 gives "00:00:00Z"
 * as in Debezium (java.time reads 24:00 as the next midnight).  Returns the
 * length written (NUL written too).
 */
extern size_t temporal_zoned_time(int64_t pg_time, int32_t zone_west_secs, char *out);

/*
 * interval -> io.debezium.time.MicroDuration (microseconds, months counted
 * as 30.4375 days, computed exactly as Debezium computes it, in doubles, so
 * not always the exact sum; saturating at the int64 limits) and
 * io.debezium.time.Interval text ("P1Y2M3DT4H5M6.78S"; the seconds come from
 * a double and can read "1.500948999").  Both start from the fields pgjdbc's
 * PGInterval reads from interval_out's text in the default IntervalStyle
 * "postgres".
 */
extern int64_t temporal_interval_micros(int32_t months, int32_t days, int64_t usecs);
extern size_t temporal_interval_iso(int32_t months, int32_t days, int64_t usecs, char *out);

#endif							/* CDC_KAFKA_TEMPORAL_H */
