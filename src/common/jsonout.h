/*-------------------------------------------------------------------------
 *
 * jsonout.h
 *		JSON text primitives, written the way Jackson (and so Kafka's
 *		JsonConverter) writes them.
 *
 * Pure code: no PostgreSQL backend calls, so the unit tests link it alone.
 * Every function writes into a caller-supplied buffer whose required size is
 * given by a macro, so that backend callers can enlarge a StringInfo once and
 * write in place.
 *
 * src/common/jsonout.h
 *
 *-------------------------------------------------------------------------
 */
#ifndef CDC_KAFKA_JSONOUT_H
#define CDC_KAFKA_JSONOUT_H

#include <stddef.h>
#include <stdint.h>

/* Worst case: every byte becomes \u00XX (4-byte UTF-8 grows to 12 bytes). */
#define JSONOUT_ESCAPE_MAX(len)		((size_t) (len) * 6)

/* Enough for any double or float in Java's Double.toString layout. */
#define JSONOUT_NUMBER_MAX			32

/*
 * Escape len bytes of UTF-8 text as the body of a JSON string (no surrounding
 * quotes), exactly as Kafka's JsonConverter writes it (Jackson's UTF-8
 * generator): '"' and '\\' are backslash-escaped, \b \t \n \f \r use
 * their short forms, other bytes below 0x20 become \u00XX with upper-case
 * hex digits, a character above U+FFFF (4-byte UTF-8) becomes the two
 * escapes of its UTF-16 surrogate pair ("\uD83D\uDE00"), and everything
 * else (other multi-byte UTF-8, 0x7F, '/') is copied unchanged.  Returns the
 * number of bytes written.
 */
extern size_t jsonout_escape(const char *in, size_t len, char *out);

/*
 * The same, but leaving 4-byte UTF-8 unchanged, as Jackson's Writer-based
 * generator does.  For JSON text that Debezium builds into a Java String and
 * that is then written as a string value (hstore.handling.mode=json): build
 * it with this, then escape the whole text with jsonout_escape.
 */
extern size_t jsonout_escape_nested(const char *in, size_t len, char *out);

/*
 * True if jsonout_escape would change the text, i.e. it contains '"', '\\',
 * a byte below 0x20 or a 4-byte UTF-8 sequence; false means the text can be
 * copied as is (by either function).
 */
extern int	jsonout_needs_escape(const char *in, size_t len);

/*
 * Format a double the way Java's Double.toString does (the JDK 19+
 * algorithm): the shortest decimal that reads back to the same double,
 * among equally short ones the closest, and never fewer than two digits
 * considered (so Double.MIN_VALUE is "4.9E-324"), written as "123.456" or
 * "1.0" when 1e-3 <= |v| < 1e7 and as "1.234E7" / "1.0E-5" otherwise;
 * "-0.0" for negative zero.  NaN and infinities are written as NaN, Infinity and
 * -Infinity (the caller quotes them: JsonConverter writes them as strings).
 * Returns the length written (no terminating NUL is counted, one is written).
 */
extern size_t jsonout_double(double v, char *out);

/* The same for a float, with Float.toString's shortest digits. */
extern size_t jsonout_float(float v, char *out);

/* Plain decimal integers. Return the length written (NUL written too). */
extern size_t jsonout_int64(int64_t v, char *out);
extern size_t jsonout_uint64(uint64_t v, char *out);

#endif							/* CDC_KAFKA_JSONOUT_H */
