/*-------------------------------------------------------------------------
 *
 * decimal.c
 *		Decimal text, as numeric_out prints it, to the unscaled
 *		two's-complement bytes of Kafka Connect's Decimal and Debezium's
 *		VariableScaleDecimal (java.math.BigInteger.toByteArray of
 *		BigDecimal.unscaledValue), and to BigDecimal.toPlainString.
 *
 * Debezium reads a numeric column into a BigDecimal, sets its scale to the
 * column's (or, for an unconstrained numeric in precise mode, strips the
 * trailing zeros but never below scale 0) and serialises the unscaled
 * integer.  The value is seen here as a string of decimal digits of any
 * length; it is converted to binary with exact integer arithmetic in
 * 32-bit limbs, built inside the caller's output buffer so that no other
 * memory is needed.
 *
 * Pure code: no PostgreSQL backend calls, so the unit tests link it alone.
 *
 * src/common/decimal.c
 *
 *-------------------------------------------------------------------------
 */
#include <string.h>

#include "common/decimal.h"

/* Decimal digits folded into the binary value per multiply-add step. */
#define DECIMAL_CHUNK_DIGITS	9

/*
 * The unscaled value as digit runs: the integer digits without leading
 * zeros, the fraction digits kept, then pad zeros; scale counts the last
 * two.
 */
typedef struct DecimalParts
{
	int			negative;
	const char *intdigits;
	size_t		intlen;
	const char *fracdigits;
	size_t		fraclen;
	size_t		pad;
	int			scale;
} DecimalParts;

static size_t
decimal_count_digits(const char *p)
{
	size_t		n = 0;

	while (p[n] >= '0' && p[n] <= '9')
		n++;
	return n;
}

/* Recognise the special values numeric_out prints. */
static DecimalStatus
decimal_special(const char *text)
{
	if (strcmp(text, "NaN") == 0)
		return DECIMAL_NAN;
	if (strcmp(text, "Infinity") == 0 || strcmp(text, "+Infinity") == 0)
		return DECIMAL_POS_INFINITY;
	if (strcmp(text, "-Infinity") == 0)
		return DECIMAL_NEG_INFINITY;
	return DECIMAL_OK;
}

/*
 * Apply the requested scale to the fraction digits of the text: keep them,
 * strip trailing zeros, or rescale, which fails when non-zero digits would
 * be dropped (BigDecimal.setScale without a rounding mode throws).
 */
static DecimalStatus
decimal_apply_scale(DecimalParts *dp, int scale)
{
	size_t		i;

	if (scale == DECIMAL_KEEP_SCALE)
		scale = (int) dp->fraclen;
	else if (scale == DECIMAL_STRIP_SCALE)
	{
		while (dp->fraclen > 0 && dp->fracdigits[dp->fraclen - 1] == '0')
			dp->fraclen--;
		scale = (int) dp->fraclen;
	}
	else if (scale < 0)
		return DECIMAL_BAD_INPUT;

	if (dp->fraclen > (size_t) scale)
	{
		for (i = scale; i < dp->fraclen; i++)
		{
			if (dp->fracdigits[i] != '0')
				return DECIMAL_NEEDS_ROUNDING;
		}
		dp->fraclen = scale;
	}
	dp->pad = scale - dp->fraclen;
	dp->scale = scale;
	return DECIMAL_OK;
}

/* Split text into sign, integer and fraction digits, then apply scale. */
static DecimalStatus
decimal_parse(const char *text, int scale, DecimalParts *dp)
{
	DecimalStatus special = decimal_special(text);
	const char *p = text;

	if (special != DECIMAL_OK)
		return special;

	memset(dp, 0, sizeof(*dp));
	if (*p == '-' || *p == '+')
		dp->negative = (*p++ == '-');
	dp->intdigits = p;
	dp->intlen = decimal_count_digits(p);
	p += dp->intlen;
	dp->fracdigits = p;
	if (*p == '.')
	{
		dp->fracdigits = ++p;
		dp->fraclen = decimal_count_digits(p);
		p += dp->fraclen;
	}
	if (*p != '\0' || dp->intlen + dp->fraclen == 0)
		return DECIMAL_BAD_INPUT;

	while (dp->intlen > 0 && dp->intdigits[0] == '0')
	{
		dp->intdigits++;
		dp->intlen--;
	}
	return decimal_apply_scale(dp, scale);
}

/* The k-th digit (0-based, most significant first) of the unscaled value. */
static int
decimal_digit_at(const DecimalParts *dp, size_t k)
{
	if (k < dp->intlen)
		return dp->intdigits[k] - '0';
	k -= dp->intlen;
	if (k < dp->fraclen)
		return dp->fracdigits[k] - '0';
	return 0;
}

/*
 * limbs[0..n-1] (least significant first) = limbs * mul + add; returns the
 * new number of limbs.
 */
static size_t
decimal_mul_add(uint8_t *limbs, size_t n, uint32_t mul, uint32_t add)
{
	uint64_t	carry = add;
	size_t		i;

	for (i = 0; i < n; i++)
	{
		uint32_t	limb;
		uint64_t	t;

		/* memcpy: the caller's byte buffer need not be aligned */
		memcpy(&limb, limbs + 4 * i, 4);
		t = (uint64_t) limb * mul + carry;
		limb = (uint32_t) t;
		memcpy(limbs + 4 * i, &limb, 4);
		carry = t >> 32;
	}
	if (carry != 0)
	{
		uint32_t	limb = (uint32_t) carry;

		memcpy(limbs + 4 * n, &limb, 4);
		n++;
	}
	return n;
}

/*
 * Write the magnitude of the unscaled value as big-endian bytes at the
 * start of out, without leading zero bytes; returns their count (0 for
 * zero).
 */
static size_t
decimal_magnitude(const DecimalParts *dp, uint8_t *out)
{
	size_t		ndigits = dp->intlen + dp->fraclen + dp->pad;
	size_t		nlimbs = 0;
	size_t		k = 0;
	size_t		nbytes;
	size_t		i;
	size_t		skip;

	while (k < ndigits)
	{
		uint32_t	chunk = 0;
		uint32_t	mul = 1;
		size_t		end = k + DECIMAL_CHUNK_DIGITS;

		for (; k < ndigits && k < end; k++)
		{
			chunk = chunk * 10 + (uint32_t) decimal_digit_at(dp, k);
			mul *= 10;
		}
		nlimbs = decimal_mul_add(out, nlimbs, mul, chunk);
	}

	/* each limb to little-endian bytes, then reverse the lot */
	nbytes = 4 * nlimbs;
	for (i = 0; i < nlimbs; i++)
	{
		uint32_t	limb;

		memcpy(&limb, out + 4 * i, 4);
		out[4 * i] = (uint8_t) limb;
		out[4 * i + 1] = (uint8_t) (limb >> 8);
		out[4 * i + 2] = (uint8_t) (limb >> 16);
		out[4 * i + 3] = (uint8_t) (limb >> 24);
	}
	for (i = 0; i < nbytes / 2; i++)
	{
		uint8_t		tmp = out[i];

		out[i] = out[nbytes - 1 - i];
		out[nbytes - 1 - i] = tmp;
	}

	for (skip = 0; skip < nbytes && out[skip] == 0; skip++)
		;
	memmove(out, out + skip, nbytes - skip);
	return nbytes - skip;
}

/* Two's-complement negation of the big-endian bytes out[0..n-1], in place. */
static void
decimal_negate(uint8_t *out, size_t n)
{
	unsigned	carry = 1;
	size_t		i = n;

	while (i-- > 0)
	{
		unsigned	v = (uint8_t) ~out[i] + carry;

		out[i] = (uint8_t) v;
		carry = v >> 8;
	}
}

DecimalStatus
decimal_unscaled_bytes(const char *text, int scale, uint8_t *out,
					   size_t *nbytes, int *scale_out)
{
	DecimalParts dp;
	DecimalStatus status = decimal_parse(text, scale, &dp);
	size_t		n;

	if (status != DECIMAL_OK)
		return status;
	if (scale_out)
		*scale_out = dp.scale;

	n = decimal_magnitude(&dp, out);
	if (n == 0)
	{
		out[0] = 0;
		*nbytes = 1;
		return DECIMAL_OK;
	}
	if (dp.negative)
	{
		decimal_negate(out, n);
		/* a clear top bit means -value needs one more byte for the sign */
		if ((out[0] & 0x80) == 0)
		{
			memmove(out + 1, out, n++);
			out[0] = 0xFF;
		}
	}
	else if (out[0] & 0x80)
	{
		memmove(out + 1, out, n++);
		out[0] = 0x00;
	}
	*nbytes = n;
	return DECIMAL_OK;
}

/* Largest magnitude the digit path takes: 2^63 - 1, eight bytes with sign. */
#define DECIMAL_DIRECT_LIMIT	UINT64_C(0x7FFFFFFFFFFFFFFF)

/*
 * acc * 10000 + add and acc * 10, or *overflow set when the result could
 * pass the limit.  The bounds are constants, so no division at run time.
 */
static uint64_t
decimal_times_10000_plus(uint64_t acc, uint32_t add, int *overflow)
{
	if (acc > (DECIMAL_DIRECT_LIMIT - 9999) / 10000)
		*overflow = 1;
	return acc * 10000 + add;
}

static uint64_t
decimal_times_10(uint64_t acc, int *overflow)
{
	if (acc > DECIMAL_DIRECT_LIMIT / 10)
		*overflow = 1;
	return acc * 10;
}

/*
 * Bring the magnitude from units of 10^exp10 to the asked scale (or,
 * stripping, to the fewest fraction digits >= 0); the resulting scale goes
 * to *scale, and is larger than asked when that would drop nonzero digits.
 */
static DecimalStatus
decimal_direct_rescale(uint64_t *mag, int exp10, int want, int *scale)
{
	int			overflow = 0;
	int			have = exp10 >= 0 ? 0 : -exp10;

	for (; exp10 > 0 && !overflow; exp10--)
		*mag = decimal_times_10(*mag, &overflow);
	if (want == DECIMAL_STRIP_SCALE)
		want = 0;
	for (; have < want && !overflow; have++)
		*mag = decimal_times_10(*mag, &overflow);
	if (overflow)
		return DECIMAL_BAD_INPUT;
	for (; have > want && *mag % 10 == 0; have--)
		*mag /= 10;
	*scale = have;
	return DECIMAL_OK;
}

DecimalStatus
decimal_base10000_bytes(const int16_t *digits, int ndigits, int weight,
						int negative, int scale, uint8_t *out, size_t *nbytes,
						int *scale_out)
{
	uint64_t	mag = 0;
	uint64_t	top;
	uint64_t	word;
	DecimalStatus status;
	int			overflow = 0;
	int			got;
	int			n;
	int			i;

	if (ndigits > DECIMAL_B10000_MAX_DIGITS || scale < DECIMAL_STRIP_SCALE)
		return DECIMAL_BAD_INPUT;
	for (i = 0; i < ndigits && !overflow; i++)
	{
		if (digits[i] < 0 || digits[i] > 9999)
			return DECIMAL_BAD_INPUT;
		mag = decimal_times_10000_plus(mag, (uint32_t) digits[i], &overflow);
	}
	if (overflow)
		return DECIMAL_BAD_INPUT;
	status = decimal_direct_rescale(&mag, 4 * (weight - ndigits + 1), scale, &got);
	if (status != DECIMAL_OK)
		return status;
	if (scale >= 0 && got != scale)
		return DECIMAL_NEEDS_ROUNDING;
	if (scale_out)
		*scale_out = got;

	/*
	 * The fewest bytes holding the value with its sign bit: -2^(8n-1) fits
	 * in n bytes, +2^(8n-1) does not
	 */
	top = (negative && mag > 0) ? mag - 1 : mag;
	for (n = 1; n < 8 && (top >> (8 * n - 1)) != 0; n++)
		;
	word = negative ? ~mag + 1 : mag;
	for (i = 0; i < n; i++)
		out[i] = (uint8_t) (word >> (8 * (n - 1 - i)));
	*nbytes = n;
	return DECIMAL_OK;
}

DecimalStatus
decimal_plain_string(const char *text, int scale, char *out, size_t *len)
{
	DecimalParts dp;
	DecimalStatus status = decimal_parse(text, scale, &dp);
	char	   *p = out;
	size_t		i;
	int			is_zero = 1;

	if (status != DECIMAL_OK)
		return status;

	for (i = 0; i < dp.fraclen && is_zero; i++)
		is_zero = dp.fracdigits[i] == '0';
	if (dp.intlen > 0)
		is_zero = 0;

	/* BigDecimal has no negative zero */
	if (dp.negative && !is_zero)
		*p++ = '-';
	if (dp.intlen == 0)
		*p++ = '0';
	memcpy(p, dp.intdigits, dp.intlen);
	p += dp.intlen;
	if (dp.scale > 0)
	{
		*p++ = '.';
		memcpy(p, dp.fracdigits, dp.fraclen);
		p += dp.fraclen;
		memset(p, '0', dp.pad);
		p += dp.pad;
	}
	*p = '\0';
	*len = (size_t) (p - out);
	return DECIMAL_OK;
}
