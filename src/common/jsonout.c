/*-------------------------------------------------------------------------
 *
 * jsonout.c
 *		JSON text primitives that reproduce, byte for byte, what Jackson
 *		writes for Kafka's JsonConverter: string escaping, Java's
 *		Double.toString / Float.toString number layout, and integers.
 *
 * Doubles and floats follow the JDK 19+ specification of Double.toString
 * (the one Debezium 3.x runs on): the decimal chosen is the shortest one
 * that reads back to the same binary value, among those the closest to it
 * (ties to an even last digit), and never fewer than two significant digits
 * are considered, which is why Double.MIN_VALUE prints as 4.9E-324.  We find
 * it by rounding a 40-digit expansion of the value from the C library
 * (snprintf "%.*e" is exact in glibc) to each length tried and checking
 * each candidate with the correctly rounding strtod/strtof.  Candidates are
 * written without a decimal point ("12345e-7"), and the digits of snprintf
 * are read skipping whatever the point is, so LC_NUMERIC cannot affect the
 * result.
 *
 * Pure code: no PostgreSQL backend calls, so the unit tests link it alone.
 *
 * src/common/jsonout.c
 *
 *-------------------------------------------------------------------------
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/jsonout.h"

/* Most significant digits Java ever needs to identify a double / a float. */
#define DOUBLE_MAX_DIGITS	17
#define FLOAT_MAX_DIGITS	9

/* Digits of the expansion the candidates are rounded from. */
#define EXPANSION_DIGITS	40

/* A decimal candidate: digits[0..ndigits-1] read as d.ddd times 10^exp10. */
typedef struct DecimalDigits
{
	char		digits[DOUBLE_MAX_DIGITS + 2];
	int			ndigits;
	int			exp10;
} DecimalDigits;

static const char hex_upper[] = "0123456789ABCDEF";

/*
 * Escape class of each byte: 0 copy as is, 'u' for \u00XX, 's' for the
 * lead byte of a 4-byte UTF-8 sequence, otherwise the letter that follows
 * the backslash.  Other bytes >= 0x80 are UTF-8 that Jackson writes
 * unescaped.
 */
static unsigned char
jsonout_escape_class(unsigned char c)
{
	switch (c)
	{
		case '"':
			return '"';
		case '\\':
			return '\\';
		case '\b':
			return 'b';
		case '\t':
			return 't';
		case '\n':
			return 'n';
		case '\f':
			return 'f';
		case '\r':
			return 'r';
		default:
			if (c < 0x20)
				return 'u';
			return c >= 0xF0 ? 's' : 0;
	}
}

static char *
jsonout_append_u(char *p, unsigned code)
{
	p[0] = '\\';
	p[1] = 'u';
	p[2] = hex_upper[(code >> 12) & 0x0F];
	p[3] = hex_upper[(code >> 8) & 0x0F];
	p[4] = hex_upper[(code >> 4) & 0x0F];
	p[5] = hex_upper[code & 0x0F];
	return p + 6;
}

/*
 * Jackson's UTF-8 generator sees Java chars, and writes each half of a
 * surrogate pair as its own \uXXXX escape.  Returns the bytes consumed, 0
 * if in + i does not start a well-formed 4-byte sequence (then it is
 * copied like any other byte).
 */
static size_t
jsonout_escape_supplementary(const unsigned char *in, size_t left, char **p)
{
	unsigned	cp;

	if (left < 4 || (in[1] & 0xC0) != 0x80 || (in[2] & 0xC0) != 0x80 ||
		(in[3] & 0xC0) != 0x80)
		return 0;
	cp = (in[0] & 0x07u) << 18 | (in[1] & 0x3Fu) << 12 |
		(in[2] & 0x3Fu) << 6 | (in[3] & 0x3Fu);
	if (cp < 0x10000 || cp > 0x10FFFF)
		return 0;
	cp -= 0x10000;
	*p = jsonout_append_u(*p, 0xD800 + (cp >> 10));
	*p = jsonout_append_u(*p, 0xDC00 + (cp & 0x3FF));
	return 4;
}

/* Shared body of the two escaping functions. */
static size_t
jsonout_escape_common(const char *in, size_t len, char *out,
					  int split_supplementary)
{
	const unsigned char *s = (const unsigned char *) in;
	char	   *p = out;
	size_t		i = 0;

	while (i < len)
	{
		unsigned char c = s[i];
		unsigned char cls = jsonout_escape_class(c);
		size_t		used;

		if (cls == 's' && split_supplementary &&
			(used = jsonout_escape_supplementary(s + i, len - i, &p)) > 0)
		{
			i += used;
			continue;
		}
		if (cls == 0 || cls == 's')
			*p++ = (char) c;
		else if (cls == 'u')
			p = jsonout_append_u(p, c);
		else
		{
			p[0] = '\\';
			p[1] = (char) cls;
			p += 2;
		}
		i++;
	}
	return (size_t) (p - out);
}

size_t
jsonout_escape(const char *in, size_t len, char *out)
{
	return jsonout_escape_common(in, len, out, 1);
}

size_t
jsonout_escape_nested(const char *in, size_t len, char *out)
{
	return jsonout_escape_common(in, len, out, 0);
}

int
jsonout_needs_escape(const char *in, size_t len)
{
	size_t		i;

	for (i = 0; i < len; i++)
	{
		if (jsonout_escape_class((unsigned char) in[i]) != 0)
			return 1;
	}
	return 0;
}

/*
 * The value the decimal d reads back as, through the C library's correctly
 * rounded conversion: the same round-to-nearest-even rule that defines
 * Java's set of candidates.  For a float the float's value is returned.
 */
static double
jsonout_read_back(const DecimalDigits *d, int is_float)
{
	char		buf[DOUBLE_MAX_DIGITS + 16];
	char	   *p = buf;
	int			e = d->exp10 - (d->ndigits - 1);
	int			mag = e < 0 ? -e : e;

	memcpy(p, d->digits, d->ndigits);
	p += d->ndigits;
	*p++ = 'e';
	if (e < 0)
		*p++ = '-';
	if (mag >= 100)
		*p++ = (char) ('0' + mag / 100);
	if (mag >= 10)
		*p++ = (char) ('0' + mag / 10 % 10);
	*p++ = (char) ('0' + mag % 10);
	*p = '\0';
	if (is_float)
		return (double) strtof(buf, NULL);
	return strtod(buf, NULL);
}

/* Read snprintf's "%e" output into d: its first digits and its exponent. */
static void
jsonout_scan_e(const char *buf, DecimalDigits *d, int maxdigits)
{
	const char *p;

	d->ndigits = 0;
	for (p = buf; *p != 'e'; p++)
	{
		if (*p >= '0' && *p <= '9' && d->ndigits < maxdigits)
			d->digits[d->ndigits++] = *p;
	}
	d->digits[d->ndigits] = '\0';
	d->exp10 = atoi(p + 1);
}

/* Move d one unit of its last digit up (dir > 0) or down, keeping n digits. */
static void
jsonout_step(DecimalDigits *d, int dir)
{
	int			n = d->ndigits;
	int			i;
	char		wrap_from = dir > 0 ? '9' : '0';
	char		wrap_to = dir > 0 ? '0' : '9';

	for (i = n - 1; i >= 0 && d->digits[i] == wrap_from; i--)
		d->digits[i] = wrap_to;
	if (i >= 0)
		d->digits[i] += dir > 0 ? 1 : -1;
	else if (dir > 0)
	{
		/* 99..9 + 1 = 100..0, one decade up */
		d->digits[0] = '1';
		d->exp10++;
	}
	if (dir < 0 && d->digits[0] == '0')
	{
		/* 100..0 - 1 unit: the grid below a power of ten is finer */
		memset(d->digits, '9', n);
		d->exp10--;
	}
}

/*
 * The n-digit decimal closest to v (v > 0), ties to even.  It is rounded
 * from the long expansion of v that the caller got once from snprintf;
 * that double rounding can only go wrong when the expansion's tail is
 * exactly 5000..., and then snprintf is asked for n digits directly.
 */
static void
jsonout_closest(double v, const char *expansion, int n, DecimalDigits *d)
{
	const char *tail;
	int			seen;
	int			round_up;

	jsonout_scan_e(expansion, d, n);
	/* find the (n+1)-th digit, stepping over the point whatever it is */
	for (tail = expansion, seen = 0; seen < n; tail++)
		seen += (*tail >= '0' && *tail <= '9');
	while (*tail < '0' || *tail > '9')
		tail++;
	if (*tail != '5')
		round_up = *tail > '5';
	else if (tail[1 + strspn(tail + 1, "0")] != 'e')
		round_up = 1;
	else
	{
		char		buf[64];

		snprintf(buf, sizeof(buf), "%.*e", n - 1, v);
		jsonout_scan_e(buf, d, n);
		return;
	}
	if (round_up)
		jsonout_step(d, 1);
}

/*
 * Find an n-digit decimal that reads back as v, preferring the closest.
 * Only the two n-digit neighbours of v can qualify: the set of decimals
 * that round to v is an interval around v.  The closest one may miss it
 * where the interval is lopsided (v a power of two), and then the other
 * neighbour is the answer.  Returns false when neither reads back.
 */
static int
jsonout_candidate(double v, const char *expansion, int n, int is_float,
				  DecimalDigits *d)
{
	double		back;

	jsonout_closest(v, expansion, n, d);
	back = jsonout_read_back(d, is_float);
	if (back == v)
		return 1;
	jsonout_step(d, back > v ? -1 : 1);
	return jsonout_read_back(d, is_float) == v;
}

/*
 * The digits Java prints for v > 0.  Reading back is monotonic in the
 * number of digits (an n-digit answer is also an (n+1)-digit one), so a
 * binary search finds the shortest length.  Starting at two digits is
 * Java's rule: when one digit would do, the closest of the one- and
 * two-digit decimals is taken, and a one-digit decimal is a two-digit one
 * ending in zero.
 */
static void
jsonout_shortest(double v, int is_float, DecimalDigits *d)
{
	int			lo = 2;
	int			hi = is_float ? FLOAT_MAX_DIGITS : DOUBLE_MAX_DIGITS;
	char		expansion[EXPANSION_DIGITS + 16];

	/* one long expansion, rounded to each length tried */
	snprintf(expansion, sizeof(expansion), "%.*e", EXPANSION_DIGITS - 1, v);
	while (lo < hi)
	{
		int			mid = (lo + hi) / 2;

		if (jsonout_candidate(v, expansion, mid, is_float, d))
			hi = mid;
		else
			lo = mid + 1;
	}
	jsonout_candidate(v, expansion, lo, is_float, d);

	while (d->ndigits > 1 && d->digits[d->ndigits - 1] == '0')
		d->ndigits--;
	d->digits[d->ndigits] = '\0';
}

/*
 * Lay the digits out as Java does: plain notation with at least one
 * fraction digit when 1e-3 <= |v| < 1e7, otherwise d.dddE[-]n.
 */
static size_t
jsonout_layout(const DecimalDigits *d, int negative, char *out)
{
	char	   *p = out;
	int			e = d->exp10;
	int			i;

	if (negative)
		*p++ = '-';
	if (e >= -3 && e < 7)
	{
		if (e < 0)
		{
			*p++ = '0';
			*p++ = '.';
			for (i = -1; i > e; i--)
				*p++ = '0';
			memcpy(p, d->digits, d->ndigits);
			p += d->ndigits;
		}
		else
		{
			for (i = 0; i <= e; i++)
				*p++ = i < d->ndigits ? d->digits[i] : '0';
			*p++ = '.';
			if (d->ndigits > e + 1)
			{
				memcpy(p, d->digits + e + 1, d->ndigits - e - 1);
				p += d->ndigits - e - 1;
			}
			else
				*p++ = '0';
		}
		*p = '\0';
		return (size_t) (p - out);
	}

	*p++ = d->digits[0];
	*p++ = '.';
	if (d->ndigits > 1)
	{
		memcpy(p, d->digits + 1, d->ndigits - 1);
		p += d->ndigits - 1;
	}
	else
		*p++ = '0';
	p += sprintf(p, "E%d", e);
	return (size_t) (p - out);
}

/* Shared body of jsonout_double and jsonout_float. */
static size_t
jsonout_real(double v, int is_float, char *out)
{
	DecimalDigits d;

	if (isnan(v))
	{
		strcpy(out, "NaN");
		return 3;
	}
	if (isinf(v))
	{
		strcpy(out, v > 0 ? "Infinity" : "-Infinity");
		return v > 0 ? 8 : 9;
	}
	if (v == 0)
	{
		strcpy(out, signbit(v) ? "-0.0" : "0.0");
		return signbit(v) ? 4 : 3;
	}
	jsonout_shortest(fabs(v), is_float, &d);
	return jsonout_layout(&d, v < 0, out);
}

size_t
jsonout_double(double v, char *out)
{
	return jsonout_real(v, 0, out);
}

size_t
jsonout_float(float v, char *out)
{
	return jsonout_real((double) v, 1, out);
}

size_t
jsonout_uint64(uint64_t v, char *out)
{
	static const char pairs[] =
		"00010203040506070809101112131415161718192021222324252627282930313233343536373839"
		"40414243444546474849505152535455565758596061626364656667686970717273747576777879"
		"8081828384858687888990919293949596979899";
	char		tmp[24];
	char	   *end = tmp + sizeof(tmp);
	char	   *p = end;
	size_t		n;

	/* two digits per division: this runs for every number of every record */
	while (v >= 100)
	{
		unsigned	r = (unsigned) (v % 100);

		v /= 100;
		*--p = pairs[2 * r + 1];
		*--p = pairs[2 * r];
	}
	if (v >= 10)
	{
		*--p = pairs[2 * v + 1];
		*--p = pairs[2 * v];
	}
	else
		*--p = (char) ('0' + v);
	n = (size_t) (end - p);
	memcpy(out, p, n);
	out[n] = '\0';
	return n;
}

size_t
jsonout_int64(int64_t v, char *out)
{
	if (v < 0)
	{
		/* negate in unsigned arithmetic so INT64_MIN works */
		out[0] = '-';
		return 1 + jsonout_uint64((uint64_t) 0 - (uint64_t) v, out + 1);
	}
	return jsonout_uint64((uint64_t) v, out);
}
