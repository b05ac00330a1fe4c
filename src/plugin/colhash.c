/*-------------------------------------------------------------------------
 *
 * colhash.c
 *		column.mask.hash.[v2.]<algorithm>.with.salt.<salt>: hashed values.
 *
 * Debezium's MaskStrings with a HashValueConverter: the value, a Java
 * String, is digested after the salt's bytes (UTF-8) by the
 * java.security.MessageDigest algorithm named, and replaced by the digest
 * in lower-case hex, cut to the column's length when that is known.  v1
 * (column.mask.hash.*) digests the String as ObjectOutputStream serializes
 * it: the stream header AC ED 00 05, then TC_STRING (74) and a 2-byte
 * length, or TC_LONGSTRING (7C) and an 8-byte length past 65535 bytes, then
 * the text in Java's modified UTF-8 (U+0000 as C0 80, a character beyond
 * U+FFFF as two 3-byte surrogates).  v2 (column.mask.hash.v2.*) digests
 * the text's UTF-8 bytes alone.  The algorithms are those of pg_cryptohash:
 * MD5, SHA-1 (also SHA), SHA-224, SHA-256, SHA-384, SHA-512, named case
 * insensitively, '_' standing for '-'.
 *
 * The plugin option is column_mask_hash_[v2_]<algorithm>_with_salt_<salt>
 * (the salt verbatim); the worker's setting cdc_kafka.column_mask_hash
 * lists them as "[v2:]<algorithm>:<salt>:<regex list>; ...".
 *
 * src/plugin/colhash.c
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include "common/cryptohash.h"
#include "mb/pg_wchar.h"

#include "plugin/colhash.h"
#include "plugin/optvalue.h"
#include "plugin/colregex.h"
#include "plugin/textenc.h"

struct ColHash
{
	pg_cryptohash_type type;
	bool		v2;
	const char *salt;			/* UTF-8 */
	size_t		saltlen;
};

#define SALT_INFIX "_with_salt_"
#define ALGORITHMS "MD5, SHA-1 (SHA), SHA-224, SHA-256, SHA-384, SHA-512"

static const struct
{
	const char *name;
	pg_cryptohash_type type;
	int			digest_len;
}			algorithms[] =
{
	{"MD5", PG_MD5, 16},
	{"SHA", PG_SHA1, 20},
	{"SHA-1", PG_SHA1, 20},
	{"SHA-224", PG_SHA224, 28},
	{"SHA-256", PG_SHA256, 32},
	{"SHA-384", PG_SHA384, 48},
	{"SHA-512", PG_SHA512, 64},
};

/* Index in algorithms of name (Java's names, any case, '_' for '-'), or -1. */
static int
find_algorithm(const char *name, size_t len)
{
	for (int i = 0; i < lengthof(algorithms); i++)
	{
		const char *known = algorithms[i].name;
		size_t		j;

		if (strlen(known) != len)
			continue;
		for (j = 0; j < len; j++)
		{
			char		c = name[j] == '_' ? '-' : pg_ascii_toupper((unsigned char) name[j]);

			if (c != known[j])
				break;
		}
		if (j == len)
			return i;
	}
	return -1;
}

/*
 * The rule of option column_mask_hash_[v2_]<algorithm>_with_salt_<salt>;
 * an ERROR if the name is not of that form or the algorithm unknown.
 */
ColHash *
colhash_parse(const char *option)
{
	const char *alg = option + strlen(COLHASH_PREFIX);
	const char *infix;
	ColHash    *hash = palloc0(sizeof(ColHash));
	int			i;
	size_t		len;

	if (strncmp(alg, "v2_", 3) == 0)
	{
		hash->v2 = true;
		alg += 3;
	}
	infix = strstr(alg, SALT_INFIX);
	if (infix == NULL || infix == alg || infix[strlen(SALT_INFIX)] == '\0')
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("invalid option name \"%s\"", option),
				 errhint("Write " COLHASH_PREFIX "<algorithm>" SALT_INFIX "<salt> or "
						 COLHASH_PREFIX "v2_<algorithm>" SALT_INFIX "<salt>.")));
	i = find_algorithm(alg, infix - alg);
	if (i < 0)
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("unsupported hash algorithm \"%.*s\" in option \"%s\"",
						(int) (infix - alg), alg, option),
				 errhint("Supported algorithms: " ALGORITHMS ".")));
	hash->type = algorithms[i].type;
	hash->salt = textenc_to_utf8(infix + strlen(SALT_INFIX),
								 strlen(infix + strlen(SALT_INFIX)), &len);
	hash->saltlen = len;
	return hash;
}

bool
colhash_is_v2(const ColHash *hash)
{
	return hash->v2;
}

/* UTF-8 text in Java's modified UTF-8 (DataOutput.writeUTF's encoding). */
static void
append_modified_utf8(StringInfo out, const char *text, int len)
{
	for (int i = 0; i < len;)
	{
		const unsigned char *p = (const unsigned char *) text + i;
		int			clen = pg_utf_mblen(p);
		pg_wchar	c = utf8_to_unicode(p);

		if (c == 0)
			appendBinaryStringInfo(out, "\xC0\x80", 2);
		else if (clen == 4)
		{
			/* each surrogate as a 3-byte sequence */
			pg_wchar	units[2] = {0xD800 + ((c - 0x10000) >> 10), 0xDC00 + ((c - 0x10000) & 0x3FF)};

			for (int u = 0; u < 2; u++)
			{
				appendStringInfoChar(out, (char) (0xE0 | (units[u] >> 12)));
				appendStringInfoChar(out, (char) (0x80 | ((units[u] >> 6) & 0x3F)));
				appendStringInfoChar(out, (char) (0x80 | (units[u] & 0x3F)));
			}
		}
		else
			appendBinaryStringInfo(out, (const char *) p, clen);
		i += clen;
	}
}

/* The bytes ObjectOutputStream.writeObject writes for a String. */
static void
java_serialized_string(StringInfo out, const char *text, int len)
{
	StringInfoData utf;

	initStringInfo(&utf);
	append_modified_utf8(&utf, text, len);
	appendBinaryStringInfo(out, "\xAC\xED\x00\x05", 4);
	if (utf.len <= 0xFFFF)
	{
		appendStringInfoChar(out, 0x74);
	}
	else
	{
		appendStringInfoChar(out, 0x7C);
		for (int shift = 56; shift >= 16; shift -= 8)
			appendStringInfoChar(out, (char) (((uint64) utf.len >> shift) & 0xFF));
	}
	appendStringInfoChar(out, (char) ((utf.len >> 8) & 0xFF));
	appendStringInfoChar(out, (char) (utf.len & 0xFF));
	appendBinaryStringInfo(out, utf.data, utf.len);
	pfree(utf.data);
}

/*
 * The hash of the UTF-8 text as a JSON string, cut to maxlen characters if
 * maxlen > 0 (Debezium cuts it to the column's length).
 */
void
colhash_append(StringInfo buf, const ColHash *hash, const char *text, int len, int maxlen)
{
	pg_cryptohash_ctx *ctx = pg_cryptohash_create(hash->type);
	uint8		digest[64];
	char		hex[129];
	int			digest_len = 0;
	StringInfoData input;

	for (int i = 0; i < lengthof(algorithms); i++)
	{
		if (algorithms[i].type == hash->type)
			digest_len = algorithms[i].digest_len;
	}
	initStringInfo(&input);
	if (hash->v2)
		appendBinaryStringInfo(&input, text, len);
	else
		java_serialized_string(&input, text, len);
	if (pg_cryptohash_init(ctx) < 0 ||
		pg_cryptohash_update(ctx, (const uint8 *) hash->salt, hash->saltlen) < 0 ||
		pg_cryptohash_update(ctx, (const uint8 *) input.data, input.len) < 0 ||
		pg_cryptohash_final(ctx, digest, sizeof(digest)) < 0)
		ereport(ERROR,
				(errcode(ERRCODE_INTERNAL_ERROR),
				 errmsg("could not hash a column value: %s", pg_cryptohash_error(ctx))));
	pg_cryptohash_free(ctx);
	pfree(input.data);
	for (int i = 0; i < digest_len; i++)
		snprintf(hex + 2 * i, 3, "%02x", digest[i]);
	if (maxlen > 0 && maxlen < 2 * digest_len)
		hex[maxlen] = '\0';
	appendStringInfo(buf, "\"%s\"", hex);
}

/*
 * One entry "[v2:]<algorithm>:<salt>:<regex list>" of the setting as an
 * option name and value; NULL if valid, else what is wrong.
 */
static char *
setting_entry(char *entry, char **name, char **list)
{
	char	   *fields[3];
	int			nfields = 2;
	char	   *p = entry;
	bool		v2;
	ListCell   *lc;

	/* the regex list may hold ':' (lookahead): split the leading fields only */
	for (int i = 0; i < nfields; i++)
	{
		char	   *colon = strchr(p, ':');

		if (colon == NULL)
			return psprintf("Entry \"%s\" is not [v2:]<algorithm>:<salt>:<regex list>.", entry);
		fields[i] = optvalue_java_trim(p, colon - p);
		p = colon + 1;
		if (i == 0 && pg_strcasecmp(fields[0], "v2") == 0)
			nfields = 3;
	}
	v2 = nfields == 3;
	if (find_algorithm(fields[v2], strlen(fields[v2])) < 0)
		return psprintf("Unsupported hash algorithm \"%s\" (supported: " ALGORITHMS ").",
						fields[v2]);
	if (fields[v2 + 1][0] == '\0')
		return psprintf("Entry \"%s\" has an empty salt.", entry);
	if (colregex_split(p) == NIL)
		return psprintf("Entry \"%s\" has no regular expression.", entry);
	foreach(lc, colregex_split(p))
	{
		char	   *error = colregex_check(lfirst(lc));

		if (error != NULL)
			return psprintf("Invalid regular expression \"%s\": %s.", (char *) lfirst(lc), error);
	}
	*name = psprintf(COLHASH_PREFIX "%s%s" SALT_INFIX "%s", v2 ? "v2_" : "", fields[v2],
					 fields[v2 + 1]);
	*list = pstrdup(p);
	return NULL;
}

/*
 * The setting cdc_kafka.column_mask_hash: "[v2:]<algorithm>:<salt>:<regex
 * list>" entries separated by ";", each the plugin option
 * column_mask_hash_[v2_]<algorithm>_with_salt_<salt>.  NULL if value is
 * valid (then, if names is not NULL, the option names and values appended
 * to names and lists), else what is wrong, for a check hook.
 */
char *
colhash_setting_options(const char *value, List **names, List **lists)
{
	char	   *copy = pstrdup(value);
	char	   *save = NULL;
	List	   *seen = NIL;

	for (char *entry = strtok_r(copy, ";", &save); entry != NULL;
		 entry = strtok_r(NULL, ";", &save))
	{
		char	   *name = NULL;
		char	   *list = NULL;
		char	   *error;
		ListCell   *lc;

		entry = optvalue_java_trim(entry, strlen(entry));
		if (entry[0] == '\0')
			continue;
		error = setting_entry(entry, &name, &list);
		if (error != NULL)
			return error;
		foreach(lc, seen)
		{
			if (strcmp(lfirst(lc), name) == 0)
				return psprintf("Entry \"%s\" repeats an algorithm and salt.", entry);
		}
		seen = lappend(seen, name);
		if (list_length(seen) > COLHASH_MAX_SETTING_ENTRIES)
			return psprintf("At most %d entries.", COLHASH_MAX_SETTING_ENTRIES);
		if (names != NULL)
		{
			*names = lappend(*names, name);
			*lists = lappend(*lists, list);
		}
	}
	return NULL;
}
