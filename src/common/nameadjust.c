/*-------------------------------------------------------------------------
 *
 * nameadjust.c
 *		Debezium's schema.name.adjustment.mode and field.name.adjustment.mode:
 *		names made valid Avro names.
 *
 * Debezium adjusts a Java string, one UTF-16 code unit at a time, so a
 * character outside the BMP is two units, each replaced on its own.  "avro"
 * keeps [A-Za-z_] first and [A-Za-z0-9_] after (plus '.' in a schema's full
 * name), writes '_' for any other unit, and keeps a leading digit after its
 * '_' (so that "1a" and "2a" stay apart).  "avro_unicode" keeps [A-Za-z]
 * first and [A-Za-z0-9] after (plus '.'): '_' itself is replaced, since it
 * starts the escape, and every other unit becomes "_u" and its lower-case
 * hex, given 4 digits when it has 2 or fewer (Integer.toHexString, padded
 * with "00" as Debezium does; 3 hex digits stay 3).
 *
 * src/common/nameadjust.c
 *
 *-------------------------------------------------------------------------
 */
#include <stdio.h>
#include <string.h>

#include "common/nameadjust.h"

/* The next code point of UTF-8 s at *i; a byte that starts no sequence is itself. */
static unsigned int
next_code_point(const unsigned char *s, size_t *i)
{
	unsigned int c = s[*i];
	int			extra = c >= 0xF0 ? 3 : c >= 0xE0 ? 2 : c >= 0xC0 ? 1 : 0;

	if (c < 0x80 || extra == 0)
	{
		(*i)++;
		return c;
	}
	c &= 0x3F >> extra;
	for (int k = 1; k <= extra; k++)
	{
		if ((s[*i + k] & 0xC0) != 0x80)
		{
			(*i)++;
			return s[*i - 1];
		}
		c = (c << 6) | (s[*i + k] & 0x3F);
	}
	*i += extra + 1;
	return c;
}

static bool
is_letter(unsigned int u)
{
	return (u >= 'a' && u <= 'z') || (u >= 'A' && u <= 'Z');
}

static bool
is_digit(unsigned int u)
{
	return u >= '0' && u <= '9';
}

static bool
valid_unit(unsigned int u, bool first, NameAdjustMode mode, bool field)
{
	if (is_letter(u))
		return true;
	if (u == '_')
		return mode == NAMEADJUST_AVRO;
	if (first)
		return false;
	return is_digit(u) || (u == '.' && !field);
}

/* One UTF-16 unit: kept or replaced. */
static size_t
put_unit(char *out, unsigned int u, bool first, NameAdjustMode mode, bool field)
{
	if (valid_unit(u, first, mode, field))
	{
		out[0] = (char) u;
		return 1;
	}
	if (mode == NAMEADJUST_AVRO)
	{
		out[0] = '_';
		if (first && is_digit(u))
		{
			out[1] = (char) u;
			return 2;
		}
		return 1;
	}
	return (size_t) sprintf(out, u <= 0xFF ? "_u00%x" : "_u%x", u);
}

size_t
nameadjust_apply(const char *name, NameAdjustMode mode, bool field, char *out)
{
	const unsigned char *s = (const unsigned char *) name;
	size_t		len = strlen(name);
	size_t		n = 0;
	size_t		i = 0;

	if (mode == NAMEADJUST_NONE)
	{
		memcpy(out, name, len + 1);
		return len;
	}
	while (i < len)
	{
		bool		first = (i == 0);
		unsigned int c = next_code_point(s, &i);

		if (c > 0xFFFF)
		{
			c -= 0x10000;
			n += put_unit(out + n, 0xD800 + (c >> 10), first, mode, field);
			n += put_unit(out + n, 0xDC00 + (c & 0x3FF), false, mode, field);
		}
		else
			n += put_unit(out + n, c, first, mode, field);
	}
	out[n] = '\0';
	return n;
}
