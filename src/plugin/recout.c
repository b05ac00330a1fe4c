/*-------------------------------------------------------------------------
 *
 * recout.c
 *		Frame Kafka records in the output plugin's output row.
 *
 * The encoder writes a record's key, value and headers straight into the
 * decoding context's output buffer; this module writes what goes around
 * them, for the three output formats:
 *
 *	value	the row is the record's value only (what a consumer reads);
 *			a tombstone is the JSON literal null.
 *	record	the row is {"topic":...,"key":...,"value":...,"headers":{...}},
 *			for inspection and tests ("partition" and "timestamp" follow
 *			"topic" when the record sets them).
 *	binary	the row is a frame for the streaming worker, which hands topic,
 *			key, value and headers to librdkafka without parsing JSON:
 *				'R' lsn:u64 relid:u32 partition:i32 timestamp:i64
 *				    topiclen:u16 topic keylen:i32 key
 *				    valuelen:i32 value nheaders:u8
 *				    { namelen:u8 name len:i32 bytes }...
 *			(integers big-endian; a length of -1 is a null key or value;
 *			relid is the table's OID, 0 for messages and metadata;
 *			partition -1 is the partitioner's choice, timestamp -1 the
 *			producer's clock),
 *			and 'C' end_lsn:u64 commit_time:i64 after the last record of a
 *			transaction (commit_time as PostgreSQL's TimestampTz),
 *			'W' lsn:u64 len:u32 content for a snapshot watermark message,
 *			and 'X', laid out as 'R', for a record whose Avro schema the
 *			registry refused: its key is the key's JSON, its value the
 *			refusal's text, without headers (the worker blocks on it).
 *
 * src/plugin/recout.c
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include "plugin/avroout.h"
#include "plugin/bufappend.h"
#include "plugin/options.h"
#include "plugin/recout.h"
#include "plugin/textenc.h"

static void
put_u8(StringInfo buf, uint8 v)
{
	appendStringInfoCharMacro(buf, (char) v);
}

static void
put_u16(StringInfo buf, uint16 v)
{
	char		b[2] = {(char) (v >> 8), (char) v};

	bufappend_bytes(buf, b, 2);
}

static void
put_u32(StringInfo buf, uint32 v)
{
	char		b[4] = {(char) (v >> 24), (char) (v >> 16), (char) (v >> 8), (char) v};

	bufappend_bytes(buf, b, 4);
}

static void
put_u64(StringInfo buf, uint64 v)
{
	put_u32(buf, (uint32) (v >> 32));
	put_u32(buf, (uint32) v);
}

/* Overwrite the 4-byte length reserved at pos with what was written since. */
static void
patch_length(StringInfo buf, int pos)
{
	uint32		len = buf->len - pos - 4;
	unsigned char *p = (unsigned char *) buf->data + pos;

	p[0] = len >> 24;
	p[1] = len >> 16;
	p[2] = len >> 8;
	p[3] = len;
}

void
recout_begin(CdcRecordOut *ro, StringInfo buf, CdcOutputFormat format,
			 const char *topic, uint64 lsn, Oid relid)
{
	recout_begin_routed(ro, buf, format, topic, lsn, relid, -1, -1);
}

/* A record with its own partition and Kafka timestamp (ms); -1: not set. */
void
recout_begin_routed(CdcRecordOut *ro, StringInfo buf, CdcOutputFormat format,
					const char *topic, uint64 lsn, Oid relid, int32 partition,
					int64 timestamp)
{
	ro->buf = buf;
	ro->format = format;
	ro->len_pos = -1;
	ro->nheaders = 0;
	ro->nheaders_pos = -1;
	ro->topic = topic;
	ro->avro = NULL;
	ro->has_key = false;
	ro->refusal = NULL;

	if (format == CDC_OUTPUT_RECORD)
	{
		BUFAPPEND_LITERAL(buf, "{\"topic\":");
		textenc_append_json(buf, topic, strlen(topic));
		if (partition >= 0)
			appendStringInfo(buf, ",\"partition\":%d", partition);
		if (timestamp >= 0)
			appendStringInfo(buf, ",\"timestamp\":" INT64_FORMAT, timestamp);
		BUFAPPEND_LITERAL(buf, ",\"key\":");
	}
	else if (format == CDC_OUTPUT_BINARY)
	{
		size_t		topiclen = strlen(topic);

		ro->frame_start = buf->len;
		put_u8(buf, CDC_FRAME_RECORD);
		put_u64(buf, lsn);
		put_u32(buf, relid);
		put_u32(buf, (uint32) partition);
		put_u64(buf, (uint64) timestamp);
		put_u16(buf, (uint16) topiclen);
		bufappend_bytes(buf, topic, topiclen);
		ro->body_start = buf->len;
	}
}

/*
 * Write the key and value in the record format opts asks for (option
 * format): call after recout_begin.  JSON needs nothing; for Avro the JSON
 * the encoder writes is replaced at recout_key_end and recout_value_end.
 */
void
recout_use_format(CdcRecordOut *ro, const CdcOptions *opts)
{
	if (opts->record_format == CDC_FORMAT_AVRO)
		ro->avro = opts;
}

/*
 * Replace the JSON written since json_start by its Avro form.  For the
 * worker, a schema the registry refuses makes the record an 'X' frame at
 * recout_end; SQL callers get the ERROR.
 */
static void
finish_avro(CdcRecordOut *ro, bool is_key)
{
	if (ro->avro != NULL && ro->refusal == NULL)
		ro->refusal = avroout_replace(ro->buf, ro->json_start, ro->topic, is_key,
									  ro->format == CDC_OUTPUT_RECORD,
									  ro->format == CDC_OUTPUT_BINARY, ro->avro);
}

/* Rewrite the binary frame as the refused record: key JSON and the refusal. */
static void
write_refusal(CdcRecordOut *ro)
{
	StringInfo	buf = ro->buf;
	const char *key = NULL;
	size_t		keylen = 0;
	size_t		len = strlen(ro->refusal);

	if (ro->has_key)
		key = avroout_last_key(&keylen);
	buf->data[ro->frame_start] = CDC_FRAME_REFUSED;
	buf->len = ro->body_start;
	put_u32(buf, key == NULL ? 0xFFFFFFFF : (uint32) keylen);
	if (key != NULL)
		bufappend_bytes(buf, key, keylen);
	put_u32(buf, (uint32) len);
	bufappend_bytes(buf, ro->refusal, len);
	put_u8(buf, 0);
}

/* Only the value format leaves keys out. */
bool
recout_wants_key(const CdcRecordOut *ro)
{
	return ro->format != CDC_OUTPUT_VALUE;
}

void
recout_key_begin(CdcRecordOut *ro)
{
	if (ro->format == CDC_OUTPUT_BINARY)
	{
		ro->len_pos = ro->buf->len;
		put_u32(ro->buf, 0);
	}
	ro->json_start = ro->buf->len;
	ro->has_key = true;
}

void
recout_key_end(CdcRecordOut *ro)
{
	finish_avro(ro, true);
	if (ro->format == CDC_OUTPUT_BINARY)
		patch_length(ro->buf, ro->len_pos);
}

void
recout_key_null(CdcRecordOut *ro)
{
	if (ro->format == CDC_OUTPUT_RECORD)
		BUFAPPEND_LITERAL(ro->buf, "null");
	else if (ro->format == CDC_OUTPUT_BINARY)
		put_u32(ro->buf, 0xFFFFFFFF);
}

void
recout_value_begin(CdcRecordOut *ro)
{
	if (ro->format == CDC_OUTPUT_RECORD)
		BUFAPPEND_LITERAL(ro->buf, ",\"value\":");
	else if (ro->format == CDC_OUTPUT_BINARY)
	{
		ro->len_pos = ro->buf->len;
		put_u32(ro->buf, 0);
	}
	ro->json_start = ro->buf->len;
}

void
recout_value_end(CdcRecordOut *ro)
{
	finish_avro(ro, false);
	if (ro->format == CDC_OUTPUT_RECORD)
		BUFAPPEND_LITERAL(ro->buf, ",\"headers\":{");
	else if (ro->format == CDC_OUTPUT_BINARY)
	{
		patch_length(ro->buf, ro->len_pos);
		ro->nheaders_pos = ro->buf->len;
		put_u8(ro->buf, 0);
	}
}

void
recout_value_null(CdcRecordOut *ro)
{
	if (ro->format == CDC_OUTPUT_BINARY)
	{
		put_u32(ro->buf, 0xFFFFFFFF);
		ro->nheaders_pos = ro->buf->len;
		put_u8(ro->buf, 0);
		return;
	}
	if (ro->format == CDC_OUTPUT_RECORD)
		BUFAPPEND_LITERAL(ro->buf, ",\"value\":");
	/* a row of Avro bytes: a tombstone is none, as in Kafka */
	if (ro->format == CDC_OUTPUT_RECORD || ro->avro == NULL)
		BUFAPPEND_LITERAL(ro->buf, "null");
	if (ro->format == CDC_OUTPUT_RECORD)
		BUFAPPEND_LITERAL(ro->buf, ",\"headers\":{");
}

void
recout_header_begin(CdcRecordOut *ro, const char *name)
{
	if (ro->format == CDC_OUTPUT_RECORD)
	{
		if (ro->nheaders > 0)
			bufappend_char(ro->buf, ',');
		textenc_append_json(ro->buf, name, strlen(name));
		bufappend_char(ro->buf, ':');
	}
	else if (ro->format == CDC_OUTPUT_BINARY)
	{
		size_t		namelen = strlen(name);

		put_u8(ro->buf, (uint8) namelen);
		bufappend_bytes(ro->buf, name, namelen);
		ro->len_pos = ro->buf->len;
		put_u32(ro->buf, 0);
	}
	ro->nheaders++;
}

void
recout_header_end(CdcRecordOut *ro)
{
	if (ro->format == CDC_OUTPUT_BINARY)
		patch_length(ro->buf, ro->len_pos);
}

void
recout_end(CdcRecordOut *ro)
{
	if (ro->format == CDC_OUTPUT_RECORD)
		BUFAPPEND_LITERAL(ro->buf, "}}");
	else if (ro->format == CDC_OUTPUT_BINARY && ro->refusal != NULL)
		write_refusal(ro);
	else if (ro->format == CDC_OUTPUT_BINARY)
		ro->buf->data[ro->nheaders_pos] = (char) ro->nheaders;
}

/* Binary format only: the end of a transaction's records. */
void
recout_commit_marker(StringInfo buf, uint64 end_lsn, int64 commit_time)
{
	put_u8(buf, CDC_FRAME_COMMIT);
	put_u64(buf, end_lsn);
	put_u64(buf, (uint64) commit_time);
}

/* Binary format only: a watermark of the worker's incremental snapshots. */
void
recout_watermark(StringInfo buf, uint64 lsn, const char *content, Size len)
{
	put_u8(buf, CDC_FRAME_WATERMARK);
	put_u64(buf, lsn);
	put_u32(buf, (uint32) len);
	bufappend_bytes(buf, content, len);
}
