/*-------------------------------------------------------------------------
 *
 * bufappend.h
 *		Appending short pieces to a StringInfo without a function call when
 *		they fit.
 *
 * A record is written as some thirty short pieces (field names, a source
 * block rendered once per transaction, numbers), and for pieces of a few
 * bytes appendBinaryStringInfo's call, and its call into
 * enlargeStringInfo, cost more than the copy: about a tenth of decoding
 * with schemas off.  When the piece fits, these copy it in place; else
 * they leave the growing to PostgreSQL's own functions.
 *
 * src/plugin/bufappend.h
 *
 *-------------------------------------------------------------------------
 */
#ifndef CDC_PLUGIN_BUFAPPEND_H
#define CDC_PLUGIN_BUFAPPEND_H

#include "lib/stringinfo.h"

static inline void
bufappend_bytes(StringInfo buf, const char *data, int len)
{
	if (likely(buf->len + len < buf->maxlen))
	{
		memcpy(buf->data + buf->len, data, len);
		buf->len += len;
		buf->data[buf->len] = '\0';
	}
	else
		appendBinaryStringInfo(buf, data, len);
}

static inline void
bufappend_char(StringInfo buf, char c)
{
	if (likely(buf->len + 1 < buf->maxlen))
	{
		buf->data[buf->len++] = c;
		buf->data[buf->len] = '\0';
	}
	else
		appendStringInfoChar(buf, c);
}

/* A string literal: its length is known when compiling, so is the copy. */
#define BUFAPPEND_LITERAL(buf, lit) bufappend_bytes((buf), (lit), sizeof(lit) - 1)

#endif							/* CDC_PLUGIN_BUFAPPEND_H */
