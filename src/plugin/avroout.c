/*-------------------------------------------------------------------------
 *
 * avroout.c
 *		The Avro record format (option format 'avro'): each key and value,
 *		written by the encoder as JsonConverter JSON with its schema, is
 *		replaced in the output by the Confluent wire format: a zero byte,
 *		the schema registry's 4-byte id of its schema, and the Avro binary.
 *
 * This is what Debezium with an Avro converter does, in the same order: the
 * record is Kafka Connect data (here the JSON the encoder writes byte for
 * byte as JsonConverter would), the Avro schema is derived from its Connect
 * schema (avroschema.c, as Apicurio's AvroConverter derives it), registered
 * under the subject <topic>-key or <topic>-value (TopicNameStrategy), and
 * the value encoded under it (avroenc.c, libavro).
 *
 * A subject's schema is derived, registered and made ready to encode once:
 * while the encoder writes the same Connect schema text for it (a relation
 * version), a record only costs a comparison of that text and the parsing
 * and encoding of its payload.  A new Connect schema (DDL) registers a new
 * version.
 *
 * src/plugin/avroout.c
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include "utils/hsearch.h"
#include "utils/memutils.h"

#include "common/avroenc.h"
#include "common/avroschema.h"
#include "common/binenc.h"
#include "common/jsontree.h"
#include "plugin/avroout.h"
#include "plugin/registry.h"

/* Kafka topic names have at most 249 characters, then "-value". */
#define AVROOUT_SUBJECT_LEN		264

/* The JSON the encoder writes around a schema and its payload. */
#define SCHEMA_OPEN		"{\"schema\":"
#define PAYLOAD_OPEN	",\"payload\":"
#define LIT_LEN(lit)	(sizeof(lit) - 1)

/* The Confluent wire format's header: magic byte 0 and the id. */
#define WIRE_HEADER_LEN	5

typedef struct AvroSubject
{
	char		subject[AVROOUT_SUBJECT_LEN];	/* hash key */
	char	   *url;			/* registry the id is from */
	char	   *connect_schema; /* JsonConverter schema text it was made from */
	int			connect_len;
	int32		id;				/* the registry's id of the Avro schema */
	AvroEnc    *enc;			/* libavro's form of it (malloc'd) */
} AvroSubject;

static HTAB *avroout_subjects = NULL;
static MemoryContext avroout_cxt = NULL;	/* the subjects' texts */
static MemoryContext avroout_record_cxt = NULL; /* one record's trees */
static StringInfoData avroout_key;	/* the last key's JSON (avroout_keep_key) */

static void
avroout_init(void)
{
	HASHCTL		ctl;

	if (avroout_subjects != NULL)
		return;
	avroout_cxt = AllocSetContextCreate(TopMemoryContext, "cdc_kafka Avro subjects",
										ALLOCSET_SMALL_SIZES);
	avroout_record_cxt = AllocSetContextCreate(avroout_cxt, "cdc_kafka Avro record",
											   ALLOCSET_DEFAULT_SIZES);
	ctl.keysize = AVROOUT_SUBJECT_LEN;
	ctl.entrysize = sizeof(AvroSubject);
	ctl.hcxt = avroout_cxt;
	avroout_subjects = hash_create("cdc_kafka Avro subjects", 64, &ctl,
								   HASH_ELEM | HASH_STRINGS | HASH_CONTEXT);
}

static void *
avroout_alloc(void *arg, size_t size)
{
	return MemoryContextAllocZero((MemoryContext) arg, size);
}

/* Whether the entry was made from the Connect schema at the start of text. */
static bool
avroout_same_schema(const AvroSubject *s, const char *url, const char *text,
					size_t len)
{
	return s->enc != NULL && strcmp(s->url, url) == 0 &&
		(size_t) s->connect_len + LIT_LEN(PAYLOAD_OPEN) <= len &&
		memcmp(text, s->connect_schema, s->connect_len) == 0 &&
		memcmp(text + s->connect_len, PAYLOAD_OPEN, LIT_LEN(PAYLOAD_OPEN)) == 0;
}

/*
 * The Avro schema of the Connect schema at the start of text, and its
 * length there.  A Connect schema without an Avro form (names Avro does not
 * take) is an ERROR, or with may_refuse NULL and *refusal says why.
 */
static char *
avroout_derive(const char *subject, const char *text, size_t len, size_t *used,
			   bool may_refuse, char **refusal)
{
	char		err[512];
	JsonTree   *connect;
	AvroSchema *avro;
	size_t		avro_len;

	connect = jsontree_parse_prefix(text, len, JSONTREE_MAX_DEPTH, avroout_alloc,
									avroout_record_cxt, used, err, sizeof(err));
	avro = connect == NULL ? NULL :
		avroschema_from_connect(connect, avroout_alloc, avroout_record_cxt,
								err, sizeof(err));
	if (avro == NULL && connect != NULL && may_refuse)
	{
		*refusal = psprintf("the Kafka Connect schema of subject \"%s\" has no Avro form: %s "
							"(set schema_name_adjustment_mode and field_name_adjustment_mode to avro)",
							subject, err);
		return NULL;
	}
	if (avro == NULL)
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_NAME),
				 errmsg("the Kafka Connect schema of subject \"%s\" has no Avro form: %s",
						subject, err),
				 errhint("Avro names are letters, digits and _: set the options schema_name_adjustment_mode "
						 "and field_name_adjustment_mode to \"avro\".")));
	return avroschema_to_json(avro, avroout_alloc, avroout_record_cxt, &avro_len);
}

/*
 * Derive, register and prepare the subject's schema from text.  A schema
 * the registry refuses, or one without an Avro form, is returned as the
 * refusal's text when may_refuse (the entry is left as it was), an ERROR
 * otherwise.
 */
static char *
avroout_prepare(AvroSubject *s, const char *url, const char *text, size_t len,
				bool may_refuse, size_t *used_out)
{
	size_t		used = 0;
	char		err[512];
	char	   *refusal = NULL;
	char	   *avro = avroout_derive(s->subject, text, len, &used, may_refuse, &refusal);
	int32		id;
	AvroEnc    *enc;

	*used_out = used;
	if (refusal != NULL)
		return refusal;
	id = registry_register(url, s->subject, avro, may_refuse ? &refusal : NULL);
	if (refusal != NULL)
		return refusal;
	enc = avroenc_create(avro, strlen(avro), err, sizeof(err));
	if (enc == NULL)
		ereport(ERROR,
				(errcode(ERRCODE_INTERNAL_ERROR),
				 errmsg("could not prepare the Avro schema of subject \"%s\": %s",
						s->subject, err)));
	if (s->enc != NULL)
	{
		avroenc_free(s->enc);
		pfree(s->url);
		pfree(s->connect_schema);
	}
	s->enc = enc;
	s->id = id;
	s->url = MemoryContextStrdup(avroout_cxt, url);
	s->connect_schema = MemoryContextAlloc(avroout_cxt, used);
	memcpy(s->connect_schema, text, used);
	s->connect_len = (int) used;
	if (!avroout_same_schema(s, url, text, len))
		elog(ERROR, "cdc_kafka: no payload after the schema of subject \"%s\"", s->subject);
	return NULL;
}

/* The Avro binary of the payload text under the subject's schema. */
static long
avroout_encode(AvroSubject *s, const char *payload, size_t len, char **out)
{
	char		err[512];
	JsonTree   *value = jsontree_parse(payload, len, JSONTREE_MAX_DEPTH, avroout_alloc,
									   avroout_record_cxt, err, sizeof(err));
	size_t		cap = Max(len, 64);
	long		n = -1;

	for (int attempt = 0; value != NULL && attempt < 2; attempt++)
	{
		*out = MemoryContextAlloc(avroout_record_cxt, WIRE_HEADER_LEN + cap);
		n = avroenc_encode(s->enc, value, *out + WIRE_HEADER_LEN, cap, err, sizeof(err));
		if (n < 0 || (size_t) n <= cap)
			break;
		cap = (size_t) n;
	}
	if (n < 0)
		ereport(ERROR,
				(errcode(ERRCODE_DATA_EXCEPTION),
				 errmsg("could not write a record of subject \"%s\" in Avro: %s",
						s->subject, err)));
	return n;
}

/*
 * Forget every subject's schema and id: a decoding session registers again
 * what it writes, so ids never outlive a session in which the registry or
 * its contents may have changed (a registry restored, or swapped at the
 * same URL).
 */
void
avroout_forget(void)
{
	HASH_SEQ_STATUS seq;
	AvroSubject *s;

	if (avroout_subjects == NULL)
		return;
	hash_seq_init(&seq, avroout_subjects);
	while ((s = hash_seq_search(&seq)) != NULL)
		avroenc_free(s->enc);
	MemoryContextDelete(avroout_cxt);
	avroout_subjects = NULL;
	avroout_cxt = avroout_record_cxt = NULL;
}

/*
 * Keep the JSON of the record's key (its payload, without the schema): a
 * record whose schema the registry refuses is named by it.
 */
static void
avroout_keep_key(const char *payload, size_t len)
{
	if (avroout_key.data == NULL)
	{
		MemoryContext oldcxt = MemoryContextSwitchTo(TopMemoryContext);

		initStringInfo(&avroout_key);
		MemoryContextSwitchTo(oldcxt);
	}
	resetStringInfo(&avroout_key);
	appendBinaryStringInfo(&avroout_key, payload, (int) len);
}

/* The JSON of the last key avroout_replace saw, and its length. */
const char *
avroout_last_key(size_t *len)
{
	*len = avroout_key.data == NULL ? 0 : avroout_key.len;
	return avroout_key.data;
}

/*
 * Replace the JSON key or value written at start (schema and payload) by
 * its Avro form: base64 text (as_text) or the wire format's bytes.  Returns
 * NULL, or with may_refuse the registry's refusal of its schema (the buffer
 * is then left as it is).
 */
char *
avroout_replace(StringInfo buf, int start, const char *topic, bool is_key,
				bool as_text, bool may_refuse, const CdcOptions *opts)
{
	const char *text = buf->data + start + LIT_LEN(SCHEMA_OPEN);
	size_t		len = buf->len - start - LIT_LEN(SCHEMA_OPEN);
	char		subject[AVROOUT_SUBJECT_LEN];
	AvroSubject *s;
	bool		found;
	char	   *wire;
	long		n;
	size_t		schema_len;
	char	   *refusal = NULL;

	if (buf->len - start < (int) LIT_LEN(SCHEMA_OPEN) ||
		memcmp(buf->data + start, SCHEMA_OPEN, LIT_LEN(SCHEMA_OPEN)) != 0)
		elog(ERROR, "cdc_kafka: Avro output needs the record's schema");
	avroout_init();
	MemoryContextReset(avroout_record_cxt);
	snprintf(subject, sizeof(subject), "%s-%s", topic, is_key ? "key" : "value");
	s = hash_search(avroout_subjects, subject, HASH_ENTER, &found);
	if (!found)
	{
		s->url = s->connect_schema = NULL;
		s->connect_len = 0;
		s->enc = NULL;
	}
	schema_len = s->connect_len;
	if (!avroout_same_schema(s, opts->schema_registry_url, text, len))
		refusal = avroout_prepare(s, opts->schema_registry_url, text, len,
								  may_refuse, &schema_len);
	if (is_key && may_refuse)
		avroout_keep_key(text + schema_len + LIT_LEN(PAYLOAD_OPEN),
						 len - schema_len - LIT_LEN(PAYLOAD_OPEN) - 1);
	if (refusal != NULL)
		return refusal;

	/* the payload runs to the record's closing brace */
	n = avroout_encode(s, text + s->connect_len + LIT_LEN(PAYLOAD_OPEN),
					   len - s->connect_len - LIT_LEN(PAYLOAD_OPEN) - 1, &wire);
	wire[0] = 0;
	wire[1] = (char) (s->id >> 24);
	wire[2] = (char) (s->id >> 16);
	wire[3] = (char) (s->id >> 8);
	wire[4] = (char) s->id;
	n += WIRE_HEADER_LEN;

	buf->len = start;
	if (as_text)
	{
		/* rows of JSON text: the record's bytes as a base64 string */
		enlargeStringInfo(buf, BINENC_BASE64_LEN(n) + 2);
		buf->data[buf->len++] = '"';
		buf->len += binenc_base64((const uint8_t *) wire, n, buf->data + buf->len, 0);
		appendStringInfoChar(buf, '"');
	}
	else
		appendBinaryStringInfo(buf, wire, (int) n);
	MemoryContextReset(avroout_record_cxt);
	return NULL;
}
