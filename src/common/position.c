/*-------------------------------------------------------------------------
 *
 * position.c
 *		Stream positions and the offsets record value (see position.h).
 *
 * The parser reads what position_format writes, nothing more general: the
 * keys in any order, string values without escapes (the transactional id
 * is made of a slot name, digits and dashes; progress is hex), integers.
 *
 * src/common/position.c
 *
 *-------------------------------------------------------------------------
 */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/position.h"

int
position_covers(const StreamPosition *pos, uint64_t unit_end, int32_t index)
{
	if (pos->lsn == 0 || unit_end > pos->lsn)
		return 0;
	if (unit_end < pos->lsn)
		return 1;
	return pos->index == POSITION_COMPLETE || index <= pos->index;
}

size_t
position_format_size(const PositionRecord *rec)
{
	return 200 + strlen(rec->transactional_id) * 6 +
		rec->snapshot_len * 2 + rec->incremental_len * 2;
}

static char *
put_hex(char *p, const char *key, const char *text, size_t len)
{
	static const char digits[] = "0123456789abcdef";

	p += sprintf(p, ",\"%s\":\"", key);
	for (size_t i = 0; i < len; i++)
	{
		*p++ = digits[(unsigned char) text[i] >> 4];
		*p++ = digits[(unsigned char) text[i] & 15];
	}
	*p++ = '"';
	return p;
}

size_t
position_format(const PositionRecord *rec, char *buf)
{
	char	   *p = buf;

	p += sprintf(p, "{\"transactional_id\":\"%s\",\"lsn\":\"%X/%X\",\"index\":%d,"
				 "\"seq\":%" PRId64 ",\"ts_ms\":%" PRId64,
				 rec->transactional_id, (unsigned) (rec->pos.lsn >> 32),
				 (unsigned) rec->pos.lsn, (int) rec->pos.index, rec->seq, rec->ts_ms);
	if (rec->snapshot != NULL)
		p = put_hex(p, "snapshot", rec->snapshot, rec->snapshot_len);
	if (rec->incremental != NULL)
		p = put_hex(p, "incremental", rec->incremental, rec->incremental_len);
	*p++ = '}';
	*p = '\0';
	return (size_t) (p - buf);
}

/* The text after "key": in json (NUL-terminated copy), or NULL. */
static const char *
find_value(const char *json, const char *key)
{
	char		pattern[64];
	const char *p;

	snprintf(pattern, sizeof(pattern), "\"%s\":", key);
	p = strstr(json, pattern);
	return p ? p + strlen(pattern) : NULL;
}

static int
hexval(char c)
{
	if (c >= '0' && c <= '9')
		return c - '0';
	if (c >= 'a' && c <= 'f')
		return c - 'a' + 10;
	return -1;
}

/* Decode the hex string value at v into *out; -1 if malformed. */
static int
get_hex(const char *v, char **out, const char **text, size_t *len)
{
	char	   *start = *out;

	if (v == NULL)
		return 0;
	if (*v++ != '"')
		return -1;
	while (*v != '"')
	{
		int			hi = hexval(v[0]);
		int			lo = hi < 0 ? -1 : hexval(v[1]);

		if (lo < 0)
			return -1;
		*(*out)++ = (char) (hi << 4 | lo);
		v += 2;
	}
	*text = start;
	*len = (size_t) (*out - start);
	*(*out)++ = '\0';
	return 0;
}

static int
get_int(const char *v, int64_t *result)
{
	char	   *end;

	if (v == NULL)
		return -1;
	*result = strtoll(v, &end, 10);
	return end == v ? -1 : 0;
}

int
position_parse(const char *json, size_t len, PositionRecord *rec, char *out)
{
	char	   *copy = malloc(len + 1);
	const char *v;
	unsigned	hi,
				lo;
	int64_t		index;
	int			ok = -1;

	if (copy == NULL)
		return -1;
	memcpy(copy, json, len);
	copy[len] = '\0';
	memset(rec, 0, sizeof(*rec));
	v = find_value(copy, "lsn");
	if (v != NULL && sscanf(v, "\"%X/%X\"", &hi, &lo) == 2 &&
		get_int(find_value(copy, "index"), &index) == 0 && index >= -1 && index <= INT32_MAX &&
		get_int(find_value(copy, "seq"), &rec->seq) == 0 &&
		get_int(find_value(copy, "ts_ms"), &rec->ts_ms) == 0 &&
		get_hex(find_value(copy, "snapshot"), &out, &rec->snapshot, &rec->snapshot_len) == 0 &&
		get_hex(find_value(copy, "incremental"), &out, &rec->incremental,
				&rec->incremental_len) == 0)
	{
		rec->pos.lsn = (uint64_t) hi << 32 | lo;
		rec->pos.index = (int32_t) index;
		ok = 0;
	}
	free(copy);
	return ok;
}
