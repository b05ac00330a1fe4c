/*-------------------------------------------------------------------------
 *
 * binenc.c
 *		Binary-to-text encodings of Debezium records: base64 in the two
 *		alphabets of java.util.Base64 (both padded), lower-case hex as
 *		Debezium's HexConverter writes it, and the little-endian bytes that
 *		Debezium builds from a BIT / VARBIT value through java.util.BitSet.
 *
 * The encoder uses these for bytea columns (binary.handling.mode), for
 * Kafka Connect BYTES values, which JsonConverter writes as standard base64,
 * and for io.debezium.data.Bits columns.
 *
 * Pure code: no PostgreSQL backend calls, so the unit tests link it alone.
 *
 * src/common/binenc.c
 *
 *-------------------------------------------------------------------------
 */
#include <string.h>

#include "common/binenc.h"

static const char base64_standard[] =
"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
static const char base64_url[] =
"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_";
static const char hex_lower[] = "0123456789abcdef";

size_t
binenc_base64(const uint8_t *in, size_t len, char *out, int url_safe)
{
	const char *alphabet = url_safe ? base64_url : base64_standard;
	char	   *p = out;
	size_t		i;

	for (i = 0; i + 3 <= len; i += 3)
	{
		uint32_t	group = (uint32_t) in[i] << 16 |
			(uint32_t) in[i + 1] << 8 | in[i + 2];

		p[0] = alphabet[group >> 18];
		p[1] = alphabet[(group >> 12) & 0x3F];
		p[2] = alphabet[(group >> 6) & 0x3F];
		p[3] = alphabet[group & 0x3F];
		p += 4;
	}
	if (i < len)
	{
		/* one or two bytes left: pad the group with '=' */
		uint32_t	group = (uint32_t) in[i] << 16;

		if (i + 1 < len)
			group |= (uint32_t) in[i + 1] << 8;
		p[0] = alphabet[group >> 18];
		p[1] = alphabet[(group >> 12) & 0x3F];
		p[2] = i + 1 < len ? alphabet[(group >> 6) & 0x3F] : '=';
		p[3] = '=';
		p += 4;
	}
	return (size_t) (p - out);
}

/* The 6-bit value of a standard base64 character, or -1. */
static int
base64_value(char c)
{
	if (c >= 'A' && c <= 'Z')
		return c - 'A';
	if (c >= 'a' && c <= 'z')
		return c - 'a' + 26;
	if (c >= '0' && c <= '9')
		return c - '0' + 52;
	if (c == '+')
		return 62;
	if (c == '/')
		return 63;
	return -1;
}

long
binenc_unbase64(const char *in, size_t len, uint8_t *out)
{
	uint8_t    *p = out;
	size_t		i;

	if (len % 4 != 0)
		return -1;
	for (i = 0; i < len; i += 4)
	{
		int			pad = (in[i + 3] == '=') + (in[i + 2] == '=' && in[i + 3] == '=');
		uint32_t	group = 0;
		int			k;

		if (pad > 0 && i + 4 != len)
			return -1;
		for (k = 0; k < 4 - pad; k++)
		{
			int			v = base64_value(in[i + k]);

			if (v < 0)
				return -1;
			group = group << 6 | (uint32_t) v;
		}
		group <<= 6 * pad;
		*p++ = (uint8_t) (group >> 16);
		if (pad < 2)
			*p++ = (uint8_t) (group >> 8);
		if (pad < 1)
			*p++ = (uint8_t) group;
	}
	return (long) (p - out);
}

size_t
binenc_hex(const uint8_t *in, size_t len, char *out)
{
	size_t		i;

	for (i = 0; i < len; i++)
	{
		out[2 * i] = hex_lower[in[i] >> 4];
		out[2 * i + 1] = hex_lower[in[i] & 0x0F];
	}
	return 2 * len;
}

size_t
binenc_bits_le(const char *bits, size_t nbits, size_t min_bytes, uint8_t *out)
{
	size_t		used = 0;
	size_t		nbytes;
	size_t		i;

	/* BitSet.toByteArray stops at the highest set bit */
	for (i = 0; i < nbits; i++)
	{
		if (bits[i] == '1')
		{
			used = BINENC_BITS_BYTES(nbits - i);
			break;
		}
	}
	nbytes = used > min_bytes ? used : min_bytes;
	memset(out, 0, nbytes);

	for (i = 0; i < nbits; i++)
	{
		/* the last character is bit 0 */
		size_t		bit = nbits - 1 - i;

		if (bits[i] == '1')
			out[bit / 8] |= (uint8_t) (1 << (bit % 8));
	}
	return nbytes;
}
