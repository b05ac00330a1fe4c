/*-------------------------------------------------------------------------
 *
 * temporal.c
 *		PostgreSQL date/time values to the numbers and texts Debezium emits
 *		for them (io.debezium.time.* and Kafka Connect's logical types).
 *
 * Debezium receives these columns as PostgreSQL's text output, parses them
 * with java.time (proleptic Gregorian, astronomical years) or pgjdbc's
 * PGInterval, and converts the result.  We start from the on-disk values
 * instead and reproduce the result of that round trip, quirks included:
 * the date and timestamp infinities become the values Debezium's sentinels
 * turn into, and an interval's MicroDuration is computed with the same
 * double arithmetic, on the same fields that PGInterval reads from
 * interval_out's default ("postgres" IntervalStyle) text.
 *
 * Pure code: no PostgreSQL backend calls, so the unit tests link it alone.
 *
 * src/common/temporal.c
 *
 *-------------------------------------------------------------------------
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/decimal.h"
#include "common/jsonout.h"
#include "common/temporal.h"

#define USECS_PER_SEC		INT64_C(1000000)
#define USECS_PER_MINUTE	INT64_C(60000000)
#define USECS_PER_HOUR		INT64_C(3600000000)
#define USECS_PER_DAY		INT64_C(86400000000)
#define SECS_PER_DAY		INT64_C(86400)
#define TEMPORAL_PG_EPOCH_SECS	INT64_C(946684800)

/*
 * Epoch days of the LocalDates Debezium substitutes for the date
 * infinities (PostgresValueConverter.POSITIVE/NEGATIVE_INFINITY_LOCAL_DATE,
 * -5877611-06-21 and -5877611-06-22: +infinity really does come out as the
 * smaller number).
 */
#define DEBEZIUM_DATE_POS_INFINITY	(-2147472692)
#define DEBEZIUM_DATE_NEG_INFINITY	(-2147472691)

/*
 * pgjdbc's PGStatement.DATE_POSITIVE/NEGATIVE_INFINITY (milliseconds), which
 * Debezium reads as microseconds since the epoch for timestamp infinities.
 */
#define DEBEZIUM_TS_POS_INFINITY	INT64_C(9223372036825200000)
#define DEBEZIUM_TS_NEG_INFINITY	INT64_C(-9223372036832400000)

/* A broken-down UTC date and time of day. */
typedef struct CivilTime
{
	int64_t		year;			/* astronomical: 0 is 1 BC */
	int			month;
	int			day;
	int			hour;
	int			minute;
	int			second;
	int			usec;
} CivilTime;

/* Floor division and the matching non-negative remainder. */
static int64_t
temporal_floor_div(int64_t a, int64_t b)
{
	int64_t		q = a / b;

	return (a % b != 0 && (a < 0) != (b < 0)) ? q - 1 : q;
}

static int64_t
temporal_floor_mod(int64_t a, int64_t b)
{
	return a - temporal_floor_div(a, b) * b;
}

/*
 * Proleptic Gregorian date of a day count from 1970-01-01, counting in
 * 400-year eras of 146097 days with the year starting on March 1st so that
 * the leap day falls at its end.
 */
static void
temporal_civil_from_days(int64_t days, CivilTime *ct)
{
	int64_t		z = days + 719468;	/* days since 0000-03-01 */
	int64_t		era = temporal_floor_div(z, 146097);
	int64_t		doe = z - era * 146097;
	int64_t		yoe = (doe - doe / 1460 + doe / 36524 - doe / 146096) / 365;
	int64_t		doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
	int64_t		mp = (5 * doy + 2) / 153;

	ct->day = (int) (doy - (153 * mp + 2) / 5 + 1);
	ct->month = (int) (mp < 10 ? mp + 3 : mp - 9);
	ct->year = yoe + era * 400 + (ct->month <= 2 ? 1 : 0);
}

/* Split microseconds past midnight (0 <= tod < one day) into fields. */
static void
temporal_split_time_of_day(int64_t tod, CivilTime *ct)
{
	ct->hour = (int) (tod / USECS_PER_HOUR);
	ct->minute = (int) (tod / USECS_PER_MINUTE % 60);
	ct->second = (int) (tod / USECS_PER_SEC % 60);
	ct->usec = (int) (tod % USECS_PER_SEC);
}

/* Write v (0 <= v < 10^width) as exactly width decimal digits. */
static char *
temporal_put_digits(char *p, int64_t v, int width)
{
	for (int i = width - 1; i >= 0; i--)
	{
		p[i] = (char) ('0' + v % 10);
		v /= 10;
	}
	return p + width;
}

/* "HH:mm:ss" of the time fields, no printf on this per-row path. */
static char *
temporal_append_hms(char *p, const CivilTime *ct)
{
	p = temporal_put_digits(p, ct->hour, 2);
	*p++ = ':';
	p = temporal_put_digits(p, ct->minute, 2);
	*p++ = ':';
	return temporal_put_digits(p, ct->second, 2);
}

/*
 * The fraction java.time's ISO formatters print: nothing when zero, else
 * '.' and the digits with trailing zeros removed.
 */
static char *
temporal_append_iso_fraction(char *p, int usec)
{
	int			ndigits = 6;

	if (usec == 0)
		return p;
	while (usec % 10 == 0)
	{
		usec /= 10;
		ndigits--;
	}
	*p++ = '.';
	return temporal_put_digits(p, usec, ndigits);
}

/*
 * The fraction with exactly width digits (1..9), truncated, as Debezium's
 * fixed-width ZonedTimestamp formatter prints it.
 */
static char *
temporal_append_fixed_fraction(char *p, int usec, int width)
{
	int64_t		nanos = (int64_t) usec * 1000;
	int			i;

	for (i = width; i < 9; i++)
		nanos /= 10;
	*p++ = '.';
	return temporal_put_digits(p, nanos, width);
}

/* Year as ISO_LOCAL_DATE prints it: 4 digits at least, '+' past 9999. */
static char *
temporal_append_date(char *p, const CivilTime *ct)
{
	if (ct->year > 9999)
		p += sprintf(p, "+%lld", (long long) ct->year);
	else if (ct->year < 0)
		p += sprintf(p, "-%04lld", (long long) -ct->year);
	else
		p = temporal_put_digits(p, ct->year, 4);
	*p++ = '-';
	p = temporal_put_digits(p, ct->month, 2);
	*p++ = '-';
	return temporal_put_digits(p, ct->day, 2);
}

int32_t
temporal_date_days(int32_t pg_date)
{
	if (pg_date == TEMPORAL_DATE_POS_INFINITY)
		return DEBEZIUM_DATE_POS_INFINITY;
	if (pg_date == TEMPORAL_DATE_NEG_INFINITY)
		return DEBEZIUM_DATE_NEG_INFINITY;
	/* PostgreSQL's dates end well before this could overflow */
	return (int32_t) ((int64_t) pg_date + TEMPORAL_PG_EPOCH_DAYS);
}

/* java.time's LocalDate.MAX and MIN (+999999999-12-31, -999999999-01-01) as epoch days. */
#define JAVA_MAX_EPOCH_DAY	INT64_C(365241780471)
#define JAVA_MIN_EPOCH_DAY	INT64_C(-365243219162)

int32_t
temporal_default_date_infinity(int sign)
{
	/* Java's (int) keeps the low 32 bits, two's complement */
	uint32_t	low = (uint32_t) (uint64_t) (sign > 0 ? JAVA_MAX_EPOCH_DAY : JAVA_MIN_EPOCH_DAY);

	return low <= (uint32_t) INT32_MAX ? (int32_t) low : -(int32_t) (UINT32_MAX - low) - 1;
}

int64_t
temporal_default_timestamp_infinity_micros(int sign)
{
	/* Long.MAX_VALUE + 999999 overflows to Long.MIN_VALUE + 999998 */
	return sign > 0 ? INT64_MIN + 999998 : INT64_MIN;
}

int32_t
temporal_time_millis(int64_t pg_time)
{
	return (int32_t) (pg_time / 1000);
}

int64_t
temporal_time_micros(int64_t pg_time)
{
	return pg_time;
}

int64_t
temporal_timestamp_millis(int64_t pg_ts)
{
	if (pg_ts == TEMPORAL_TS_POS_INFINITY)
		return DEBEZIUM_TS_POS_INFINITY / 1000;
	if (pg_ts == TEMPORAL_TS_NEG_INFINITY)
		return DEBEZIUM_TS_NEG_INFINITY / 1000;
	/* Instant.toEpochMilli floors */
	return temporal_floor_div(pg_ts, 1000) + TEMPORAL_PG_EPOCH_USECS / 1000;
}

/*
 * Conversions.toEpochMicros computes seconds * 10^6 with TimeUnit, which
 * saturates at Long.MAX_VALUE, and then adds the microseconds with
 * wrap-around.  Only the last 30 years PostgreSQL accepts (after
 * 294247-01-10) get there; we wrap the same way rather than overflow.
 */
int64_t
temporal_timestamp_micros(int64_t pg_ts)
{
	int64_t		secs;
	int64_t		usec;
	int64_t		whole;

	if (pg_ts == TEMPORAL_TS_POS_INFINITY)
		return DEBEZIUM_TS_POS_INFINITY;
	if (pg_ts == TEMPORAL_TS_NEG_INFINITY)
		return DEBEZIUM_TS_NEG_INFINITY;

	secs = temporal_floor_div(pg_ts, USECS_PER_SEC) + TEMPORAL_PG_EPOCH_SECS;
	usec = temporal_floor_mod(pg_ts, USECS_PER_SEC);
	whole = secs > INT64_MAX / USECS_PER_SEC ? INT64_MAX : secs * USECS_PER_SEC;
	/* in unsigned arithmetic: Java's addition wraps */
	return (int64_t) ((uint64_t) whole + (uint64_t) usec);
}

size_t
temporal_zoned_timestamp(int64_t pg_tstz, int precision, char *out)
{
	CivilTime	ct;
	int64_t		days;
	char	   *p = out;

	if (pg_tstz == TEMPORAL_TS_POS_INFINITY)
		return (size_t) sprintf(out, "infinity");
	if (pg_tstz == TEMPORAL_TS_NEG_INFINITY)
		return (size_t) sprintf(out, "-infinity");

	/* days from 1970 without overflowing near PostgreSQL's upper limit */
	days = temporal_floor_div(pg_tstz, USECS_PER_DAY) + TEMPORAL_PG_EPOCH_DAYS;
	temporal_civil_from_days(days, &ct);
	temporal_split_time_of_day(temporal_floor_mod(pg_tstz, USECS_PER_DAY), &ct);

	p = temporal_append_date(p, &ct);
	*p++ = 'T';
	p = temporal_append_hms(p, &ct);
	if (precision == -1)
		precision = 6;
	if (precision >= 1 && precision <= 9)
		p = temporal_append_fixed_fraction(p, ct.usec, precision);
	else
		p = temporal_append_iso_fraction(p, ct.usec);
	*p++ = 'Z';
	*p = '\0';
	return (size_t) (p - out);
}

/*
 * Debezium parses the text with java.time's SMART resolver, which reads
 * 24:00:00 as midnight of the next day and drops the day; shifting to UTC
 * modulo one day gives the same result, so 24:00:00+00 is "00:00:00Z".
 */
size_t
temporal_zoned_time(int64_t pg_time, int32_t zone_west_secs, char *out)
{
	CivilTime	ct;
	int64_t		utc;
	char	   *p = out;

	utc = temporal_floor_mod(pg_time + (int64_t) zone_west_secs * USECS_PER_SEC,
							 USECS_PER_DAY);
	temporal_split_time_of_day(utc, &ct);
	p = temporal_append_hms(p, &ct);
	p = temporal_append_iso_fraction(p, ct.usec);
	*p++ = 'Z';
	*p = '\0';
	return (size_t) (p - out);
}

/*
 * The fields PGInterval ends up with after parsing interval_out's text:
 * interval2itm splits months and microseconds by truncating division, so
 * every field carries the sign of the part it comes from, and PGInterval's
 * getSeconds() is wholeSeconds + microSeconds / 1e6 in double arithmetic.
 * Hours are an int in PGInterval (an interval above 2^31 hours makes
 * Debezium fail); we keep 64 bits.
 */
typedef struct IntervalFields
{
	int32_t		years;
	int32_t		months;
	int32_t		days;
	int64_t		hours;
	int32_t		minutes;
	double		seconds;
} IntervalFields;

static void
temporal_interval_fields(int32_t months, int32_t days, int64_t usecs,
						 IntervalFields *f)
{
	int32_t		whole = (int32_t) (usecs / USECS_PER_SEC % 60);
	int32_t		micros = (int32_t) (usecs % USECS_PER_SEC);

	f->years = months / 12;
	f->months = months % 12;
	f->days = days;
	f->hours = usecs / USECS_PER_HOUR;
	f->minutes = (int32_t) (usecs / USECS_PER_MINUTE % 60);
	f->seconds = (double) whole + (double) micros / 1000000.0;
}

/* Java's (long) cast of a double: saturating, NaN to 0. */
static int64_t
temporal_java_double_to_long(double v)
{
	if (v != v)
		return 0;
	if (v >= 9223372036854775808.0)
		return INT64_MAX;
	if (v <= -9223372036854775808.0)
		return INT64_MIN;
	return (int64_t) v;
}

/*
 * MicroDuration.durationMicros with DAYS_PER_MONTH_AVG = 365.25 / 12.
 * Every product before the last two steps is exact in a double (the
 * operands stay below 2^53), so fused multiply-adds cannot change the
 * result; the rounding happens where Debezium's does, when the seconds
 * are added and when the sum is scaled to microseconds.
 */
int64_t
temporal_interval_micros(int32_t months, int32_t days, int64_t usecs)
{
	IntervalFields f;
	double		ndays;
	double		nsecs;

	temporal_interval_fields(months, days, usecs, &f);
	ndays = (double) (f.years * 12 + f.months) * (365.25 / 12.0) + f.days;
	nsecs = (((ndays * 24 + (double) f.hours) * 60) + f.minutes) * 60
		+ f.seconds;
	return temporal_java_double_to_long(nsecs * 1e6 + 0);
}

/*
 * Interval.toIsoString's seconds: BigDecimal.valueOf(double), i.e. the
 * digits of Double.toString, cut to 9 fraction digits toward zero, trailing
 * zeros stripped, written plain.
 */
static void
temporal_seconds_text(double seconds, char *out)
{
	char		java[JSONOUT_NUMBER_MAX];
	char		digits[JSONOUT_NUMBER_MAX];
	char		plain[JSONOUT_NUMBER_MAX + 400];
	char	   *p = java;
	char	   *q = plain;
	char	   *dot;
	int			ndigits = 0;
	int			point = -1;
	int			i;
	size_t		len;

	jsonout_double(seconds, java);
	if (*p == '-')
		*q++ = *p++;
	for (; *p != '\0' && *p != 'E'; p++)
	{
		if (*p == '.')
			point = ndigits;
		else
			digits[ndigits++] = *p;
	}
	if (*p == 'E')
		point += atoi(p + 1);

	/* the same digits without an exponent */
	if (point <= 0)
	{
		*q++ = '0';
		*q++ = '.';
		for (i = point; i < 0; i++)
			*q++ = '0';
		memcpy(q, digits, ndigits);
		q += ndigits;
	}
	else
	{
		for (i = 0; i < point; i++)
			*q++ = i < ndigits ? digits[i] : '0';
		if (ndigits > point)
		{
			*q++ = '.';
			memcpy(q, digits + point, ndigits - point);
			q += ndigits - point;
		}
	}
	*q = '\0';

	dot = strchr(plain, '.');
	if (dot != NULL && strlen(dot + 1) > 9)
		dot[10] = '\0';
	decimal_plain_string(plain, DECIMAL_STRIP_SCALE, out, &len);
}

size_t
temporal_interval_iso(int32_t months, int32_t days, int64_t usecs, char *out)
{
	IntervalFields f;
	char		seconds[JSONOUT_NUMBER_MAX + 400];

	temporal_interval_fields(months, days, usecs, &f);
	temporal_seconds_text(f.seconds, seconds);
	return (size_t) sprintf(out, "P%dY%dM%dDT%lldH%dM%sS",
							f.years, f.months, f.days, (long long) f.hours,
							f.minutes, seconds);
}
