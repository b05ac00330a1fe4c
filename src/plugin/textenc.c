/*-------------------------------------------------------------------------
 *
 * textenc.c
 *		Text in the database encoding, written as UTF-8: JSON strings,
 *		database names and Kafka topic names.
 *
 * The primitives every writer of the plugin shares (encoder.c, typemap.c,
 * typedefault.c, recout.c, relinfo.c) and the settings use for topic
 * names.  The encoding-free JSON escaping itself is common/jsonout.c.
 *
 * src/plugin/textenc.c
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include <ctype.h>

#include "access/xact.h"
#include "catalog/namespace.h"
#include "mb/pg_wchar.h"
#include "utils/memutils.h"

#include "common/jsonout.h"
#include "plugin/bufappend.h"
#include "plugin/textenc.h"

/*
 * Records are UTF-8 whatever the database encoding, as Debezium's are (its
 * connections ask for client_encoding UTF8, so the server converts names
 * and values before they reach it).  Every text the plugin writes goes
 * through textenc_to_utf8; in a UTF-8 database, or for pure ASCII, that is
 * a test and nothing more.  The conversion function is looked up once per
 * backend, before decoding starts (textenc_init), and then called
 * directly, with no catalog access inside the decoding callbacks.
 *
 * SQL_ASCII declares no encoding: its bytes are taken as UTF-8 if they are
 * UTF-8, and are an error otherwise.  That is what the server does for
 * Debezium (pgoutput's text is checked against the client encoding), whose
 * connector stops there; we name the table and column.
 */
static int	db_encoding = -1;
static bool conversion_ready = false;
static FmgrInfo to_utf8_proc;

/*
 * Look up the database encoding's conversion to UTF-8.  Reads the catalog:
 * opens a transaction when called outside one (walsender, worker).
 */
void
textenc_init(void)
{
	bool		own_xact;
	Oid			proc;

	db_encoding = GetDatabaseEncoding();
	if (db_encoding == PG_UTF8 || db_encoding == PG_SQL_ASCII || conversion_ready)
		return;
	own_xact = !IsTransactionState();
	if (own_xact)
		StartTransactionCommand();
	proc = FindDefaultConversionProc(db_encoding, PG_UTF8);
	if (OidIsValid(proc))
	{
		fmgr_info_cxt(proc, &to_utf8_proc, TopMemoryContext);
		conversion_ready = true;
	}
	if (own_xact)
		CommitTransactionCommand();
}

static bool
is_ascii(const char *s, size_t len)
{
	for (size_t i = 0; i < len; i++)
	{
		if (IS_HIGHBIT_SET(s[i]))
			return false;
	}
	return true;
}

/* The slow path of textenc_to_utf8: non-ASCII text of a non-UTF-8 database. */
static char *
convert_to_utf8(const char *s, size_t len, size_t *outlen)
{
	char	   *out;

	if (db_encoding == PG_SQL_ASCII)
	{
		(void) pg_verify_mbstr(PG_UTF8, s, (int) len, false);
		return (char *) s;
	}
	if (!conversion_ready)
		textenc_init();
	if (!conversion_ready)
		ereport(ERROR,
				(errcode(ERRCODE_UNDEFINED_FUNCTION),
				 errmsg("no conversion from encoding \"%s\" to \"UTF8\"",
						GetDatabaseEncodingName()),
				 errdetail("cdc_kafka writes records in UTF-8.")));
	if (len >= (MaxAllocHugeSize - 1) / MAX_CONVERSION_GROWTH)
		ereport(ERROR,
				(errcode(ERRCODE_PROGRAM_LIMIT_EXCEEDED),
				 errmsg("value of %zu bytes is too long to be converted to UTF-8", len)));
	out = MemoryContextAllocHuge(CurrentMemoryContext, len * MAX_CONVERSION_GROWTH + 1);
	/* the conversion raises the error itself (noError false) */
	FunctionCall6(&to_utf8_proc, Int32GetDatum(db_encoding), Int32GetDatum(PG_UTF8),
				  CStringGetDatum(s), CStringGetDatum(out), Int32GetDatum((int32) len),
				  BoolGetDatum(false));
	*outlen = strlen(out);
	return out;
}

/*
 * s (len bytes in the database encoding) as UTF-8: s itself when it is
 * already, else a palloc'd copy.  *outlen is set either way.
 */
const char *
textenc_to_utf8(const char *s, size_t len, size_t *outlen)
{
	*outlen = len;
	if (unlikely(db_encoding < 0))
		db_encoding = GetDatabaseEncoding();
	if (likely(db_encoding == PG_UTF8) || is_ascii(s, len))
		return s;
	return convert_to_utf8(s, len, outlen);
}

/*
 * A database name in UTF-8.  pg_database is shared by databases of every
 * encoding, so its names are in the encoding of whichever session created
 * them.  A name that is valid UTF-8 is taken as it is: that is how a UTF-8
 * client (and so Debezium's database.dbname, which must match it to
 * connect) names it; any other is read in the database's encoding, or,
 * where that is UTF-8 or none, has its non-ASCII bytes as U+FFFD.
 */
char *
textenc_name_utf8(const char *name)
{
	size_t		len = strlen(name);
	StringInfoData buf;

	if (pg_verify_mbstr(PG_UTF8, name, (int) len, true))
		return pstrdup(name);
	if (GetDatabaseEncoding() != PG_UTF8 && GetDatabaseEncoding() != PG_SQL_ASCII)
		return pstrdup(textenc_to_utf8(name, len, &len));
	initStringInfo(&buf);
	for (const char *p = name; *p; p++)
	{
		if (IS_HIGHBIT_SET(*p))
			appendStringInfoString(&buf, "\xEF\xBF\xBD");
		else
			bufappend_char(&buf, *p);
	}
	return buf.data;
}

/* ---- JSON strings ---------------------------------------------------------------- */

/* A JSON string of UTF-8 text. */
void
textenc_append_json_utf8(StringInfo buf, const char *s, size_t len)
{
	enlargeStringInfo(buf, JSONOUT_ESCAPE_MAX(len) + 2);
	buf->data[buf->len++] = '"';
	buf->len += jsonout_escape(s, len, buf->data + buf->len);
	buf->data[buf->len++] = '"';
	buf->data[buf->len] = '\0';
}

/* A JSON string of text in the database encoding: every name and text value. */
void
textenc_append_json(StringInfo buf, const char *s, size_t len)
{
	const char *utf8 = textenc_to_utf8(s, len, &len);

	textenc_append_json_utf8(buf, utf8, len);
	if (utf8 != s)
		pfree((char *) utf8);
}

/* ---- topic names ----------------------------------------------------------------- */

/*
 * Kafka topic names allow [A-Za-z0-9._-]; Debezium replaces every other
 * character (each UTF-16 unit, so a 4-byte UTF-8 sequence gives two) by '_'
 * and cuts the name at 249 characters.  name is in the database encoding:
 * its characters are counted in its UTF-8 form.
 */
void
textenc_sanitize_topic(StringInfo buf, const char *name)
{
	size_t		len;

	textenc_sanitize_topic_utf8(buf, textenc_to_utf8(name, strlen(name), &len));
}

/* The same for a name already in UTF-8. */
void
textenc_sanitize_topic_utf8(StringInfo buf, const char *name)
{
	int			start = buf->len;

	for (const unsigned char *p = (const unsigned char *) name; *p; p++)
	{
		if (isalnum(*p) && *p < 0x80)
			bufappend_char(buf, (char) *p);
		else if (*p == '.' || *p == '_' || *p == '-')
			bufappend_char(buf, (char) *p);
		else if (*p < 0x80 || (*p & 0xC0) == 0xC0)
		{
			bufappend_char(buf, '_');
			if ((*p & 0xF8) == 0xF0)
				bufappend_char(buf, '_');
		}
	}
	if (buf->len - start > 249)
	{
		buf->len = start + 249;
		buf->data[buf->len] = '\0';
	}
	if (strcmp(buf->data + start, ".") == 0)
		buf->data[start] = '_';
	else if (strcmp(buf->data + start, "..") == 0)
		buf->data[start] = buf->data[start + 1] = '_';
}
