/*-------------------------------------------------------------------------
 *
 * binenc.h
 *		Binary-to-text encodings used in Debezium records: base64 (standard
 *		and URL-safe, both padded, as java.util.Base64), lower-case hex, and
 *		the little-endian byte layout Debezium gives BIT(n) / VARBIT values.
 *
 * Pure code: no PostgreSQL backend calls, so the unit tests link it alone.
 *
 * src/common/binenc.h
 *
 *-------------------------------------------------------------------------
 */
#ifndef CDC_KAFKA_BINENC_H
#define CDC_KAFKA_BINENC_H

#include <stddef.h>
#include <stdint.h>

#define BINENC_BASE64_LEN(n)	((((size_t) (n) + 2) / 3) * 4)
#define BINENC_HEX_LEN(n)		((size_t) (n) * 2)
#define BINENC_BITS_BYTES(nbits)	(((size_t) (nbits) + 7) / 8)

/*
 * Base64 of len bytes, always padded with '='.  url_safe selects the
 * alphabet with '-' and '_' (java.util.Base64.getUrlEncoder(), which pads).
 * Returns the number of characters written (no NUL).
 */
extern size_t binenc_base64(const uint8_t *in, size_t len, char *out, int url_safe);

/*
 * The bytes of padded standard base64 text (what binenc_base64 writes with
 * url_safe 0, and JsonConverter for BYTES), for reading records back.  out
 * needs len / 4 * 3 bytes.  Returns the number of bytes, or -1 when the
 * text is not whole groups of the alphabet with padding only at its end.
 */
extern long binenc_unbase64(const char *in, size_t len, uint8_t *out);

/* Lower-case hex of len bytes; returns 2 * len (no NUL written). */
extern size_t binenc_hex(const uint8_t *in, size_t len, char *out);

/*
 * Debezium's bytes for a bit string given as nbits characters '0'/'1' (the
 * way PostgreSQL prints it, most significant bit first): the rightmost
 * character is bit 0 of byte 0 (little-endian), and only as many bytes are
 * produced as the highest set bit needs (java.util.BitSet.toByteArray), then
 * zero-padded up to min_bytes.  So B'101' gives {0x05}; B'0000' with
 * min_bytes 0 gives no bytes.  out needs max(BINENC_BITS_BYTES(nbits),
 * min_bytes) bytes.  Returns the number of bytes written.
 */
extern size_t binenc_bits_le(const char *bits, size_t nbits, size_t min_bytes,
							 uint8_t *out);

#endif							/* CDC_KAFKA_BINENC_H */
