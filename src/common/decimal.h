/*-------------------------------------------------------------------------
 *
 * decimal.h
 *		Decimal text (as numeric_out prints it) to the unscaled
 *		two's-complement big-endian bytes of Kafka Connect's Decimal and of
 *		Debezium's VariableScaleDecimal, and to the plain-string form of
 *		decimal.handling.mode=string.
 *
 * Pure code: no PostgreSQL backend calls, so the unit tests link it alone.
 * Works on digit strings of any length (numeric allows 131072 digits before
 * the point and 16383 after), with no intermediate floating point.
 *
 * src/common/decimal.h
 *
 *-------------------------------------------------------------------------
 */
#ifndef CDC_KAFKA_DECIMAL_H
#define CDC_KAFKA_DECIMAL_H

#include <stddef.h>
#include <stdint.h>

/* Rescale argument meaning "strip trailing fractional zeros" (variable scale). */
#define DECIMAL_STRIP_SCALE		(-1)

/* Rescale argument meaning "keep the fraction digits the text has". */
#define DECIMAL_KEEP_SCALE		(-2)

/*
 * Size of the buffer decimal_unscaled_bytes needs (it also does its
 * arithmetic there): len is strlen(text) plus the scale asked for when that
 * is positive, since rescaling can append zeros.
 */
#define DECIMAL_BYTES_MAX(len)	((size_t) (len) / 2 + 8)

/* Results of the conversions below. */
typedef enum DecimalStatus
{
	DECIMAL_OK = 0,
	DECIMAL_NAN,				/* input was "NaN" */
	DECIMAL_POS_INFINITY,		/* input was "Infinity" */
	DECIMAL_NEG_INFINITY,		/* input was "-Infinity" */
	DECIMAL_BAD_INPUT,			/* not a plain decimal */
	DECIMAL_NEEDS_ROUNDING		/* more fraction digits than the target scale */
} DecimalStatus;

/*
 * Convert text such as "-123.4500", "0", "1000" to the unscaled value at
 * the given scale, written as the minimal big-endian two's-complement bytes
 * (java.math.BigInteger.toByteArray: 0 is {0x00}, 128 is {0x00,0x80}, -1 is
 * {0xFF}).
 *
 * scale >= 0: the value is rescaled to exactly that many fraction digits
 * (padding with zeros; dropping digits that are not all zero gives
 * DECIMAL_NEEDS_ROUNDING, as BigDecimal.setScale without a rounding mode
 * would throw).
 * scale == DECIMAL_STRIP_SCALE: trailing fractional zeros are stripped
 * (BigDecimal.stripTrailingZeros, but never below scale 0), for
 * VariableScaleDecimal.
 * scale == DECIMAL_KEEP_SCALE: the scale is the text's own fraction length.
 * The resulting scale is stored in *scale_out (which may be NULL).
 *
 * out must hold DECIMAL_BYTES_MAX(strlen(text) + Max(scale, 0)) bytes;
 * *nbytes gets the count.  Zero is {0x00}, never negative.
 */
extern DecimalStatus decimal_unscaled_bytes(const char *text, int scale,
											uint8_t *out, size_t *nbytes,
											int *scale_out);

/* Base-10000 digits decimal_base10000_bytes takes at most. */
#define DECIMAL_B10000_MAX_DIGITS	5

/* Bytes decimal_base10000_bytes writes at most. */
#define DECIMAL_B10000_BYTES_MAX	8

/*
 * The same bytes as decimal_unscaled_bytes, from PostgreSQL numeric's own
 * digits: ndigits base-10000 digits, the first worth 10000^weight, and a
 * sign.  Only for unscaled values below 2^63, which covers every
 * numeric(p,s) with p up to 18 and most values of wider ones; anything
 * larger gives DECIMAL_BAD_INPUT and the caller goes through the text.
 * scale is >= 0 or DECIMAL_STRIP_SCALE (DECIMAL_KEEP_SCALE is not taken:
 * the digits do not carry numeric's display scale).  out must hold
 * DECIMAL_B10000_BYTES_MAX bytes.
 */
extern DecimalStatus decimal_base10000_bytes(const int16_t *digits, int ndigits,
											 int weight, int negative, int scale,
											 uint8_t *out, size_t *nbytes,
											 int *scale_out);

/*
 * Write the value rescaled to scale (or stripped or kept, as above) as
 * BigDecimal.toPlainString would: "-123.45", "0.00", "1000" (no "-0").
 * Special values give their status and write nothing.  out must hold
 * strlen(text) + Max(scale, 0) + 3 bytes; a NUL is written; *len gets the
 * length without it.
 */
extern DecimalStatus decimal_plain_string(const char *text, int scale,
										  char *out, size_t *len);

#endif							/* CDC_KAFKA_DECIMAL_H */
