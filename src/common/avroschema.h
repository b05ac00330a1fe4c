/*-------------------------------------------------------------------------
 *
 * avroschema.h
 *		The Avro schema that Apicurio's AvroConverter registers for a Kafka
 *		Connect schema, derived from Kafka Connect JsonConverter's schema JSON.
 *
 * For cdc_kafka's Avro output (issue 16): the encoder already builds each
 * relation's Connect schema as JsonConverter writes it ({"type":"struct",
 * "fields":[...],"optional":false,"name":...}); this module turns that text
 * into the Avro schema that io.apicurio:apicurio-registry-utils-converter
 * 2.6.13.Final's AvroData.fromConnectSchema builds (connect.meta.data=true,
 * enhanced.avro.schema.support=false, the other options at their defaults)
 * and into the text Avro 1.12's Schema.toString() writes for it, byte for
 * byte: that text is what the converter registers.  It also keeps the tree
 * (AvroSchema) with the link from each Avro node back to its Connect schema,
 * for the Avro value encoder.
 *
 * The mapping (AvroData and Avro 1.12, see avroschema.c for the details):
 * int8/int16 -> int with connect.type; Decimal -> bytes with scale,
 * precision and logicalType decimal; Connect's Date/Time/Timestamp -> int/
 * long with logicalType date/time-millis/timestamp-millis; structs ->
 * records named by splitting the Connect name at its last dot (nameless
 * ones: io.confluent.connect.avro.ConnectDefault, ConnectDefault2, ...);
 * maps with required string keys -> Avro maps, other maps -> arrays of
 * records MapEntry {key, value}; an optional schema -> ["null", T] with
 * field default null, or [T, "null"] when it has a default (optional
 * structs always ["null", record]); connect.doc, connect.version,
 * connect.parameters, connect.default, connect.name properties; a record
 * name written before is written again as a (relative) name reference.
 * Names are not adjusted: an invalid Avro record or field name is an error,
 * as the converter throws (Debezium's schema.name.adjustment.mode=avro makes
 * the record names valid; field names may still be invalid).
 *
 * Not supported (errors): Connect unions (io.confluent.connect.avro.Union)
 * and Decimal defaults given as JSON numbers (decimal.format=NUMERIC).
 *
 * Pure code: no PostgreSQL backend calls, so the unit tests link it alone.
 *
 * src/common/avroschema.h
 *
 *-------------------------------------------------------------------------
 */
#ifndef CDC_KAFKA_AVROSCHEMA_H
#define CDC_KAFKA_AVROSCHEMA_H

#include <stdbool.h>
#include <stddef.h>

#include "common/jsontree.h"

typedef enum AvroSchemaType
{
	AVROSCHEMA_NULL,
	AVROSCHEMA_BOOLEAN,
	AVROSCHEMA_INT,
	AVROSCHEMA_LONG,
	AVROSCHEMA_FLOAT,
	AVROSCHEMA_DOUBLE,
	AVROSCHEMA_BYTES,
	AVROSCHEMA_STRING,
	AVROSCHEMA_RECORD,
	AVROSCHEMA_ARRAY,
	AVROSCHEMA_MAP,
	AVROSCHEMA_UNION
} AvroSchemaType;

/* Kafka Connect's schema types (the "type" of JsonConverter's schema). */
typedef enum AvroSchemaConnectType
{
	AVROSCHEMA_CONNECT_NONE,	/* the null branch of a union */
	AVROSCHEMA_CONNECT_INT8,
	AVROSCHEMA_CONNECT_INT16,
	AVROSCHEMA_CONNECT_INT32,
	AVROSCHEMA_CONNECT_INT64,
	AVROSCHEMA_CONNECT_FLOAT32,
	AVROSCHEMA_CONNECT_FLOAT64,
	AVROSCHEMA_CONNECT_BOOLEAN,
	AVROSCHEMA_CONNECT_STRING,
	AVROSCHEMA_CONNECT_BYTES,
	AVROSCHEMA_CONNECT_ARRAY,
	AVROSCHEMA_CONNECT_MAP,
	AVROSCHEMA_CONNECT_STRUCT
} AvroSchemaConnectType;

/* A schema property: its name and its value as JSON text. */
typedef struct AvroSchemaProp
{
	const char *key;
	const char *json;
	size_t		json_len;
} AvroSchemaProp;

typedef struct AvroSchema AvroSchema;

typedef struct AvroSchemaField
{
	const char *name;			/* UTF-8, not NUL-terminated */
	size_t		name_len;
	AvroSchema *type;
	const JsonTree *connect;	/* the Connect field's schema */
	const char *doc;			/* NUL-terminated or NULL */
	const char *default_json;	/* the field's "default" as JSON, or NULL */
	size_t		default_len;
} AvroSchemaField;

struct AvroSchema
{
	AvroSchemaType type;
	AvroSchemaConnectType connect_type;
	const JsonTree *connect;	/* its Connect schema (NULL: null branch) */
	bool		optional;		/* UNION made for an optional Connect schema */
	int			value_branch;	/* ... and the index of its non-null branch */
	bool		map_entries;	/* ARRAY of MapEntry records from a Connect map */
	const char *logical;		/* logicalType (decimal, date, ...) or NULL */
	int			scale;			/* decimal */
	int			precision;
	/* RECORD: names NUL-terminated; space NULL when there is none */
	const char *name;
	const char *space;
	const char *fullname;
	const char *doc;
	AvroSchemaField *fields;
	int			nfields;
	AvroSchema *items;			/* ARRAY elements, MAP values */
	AvroSchema **branches;		/* UNION */
	int			nbranches;
	AvroSchemaProp *props;		/* in the order Schema.toString writes them */
	int			nprops;
};

/*
 * Build the Avro schema of a Connect schema (JsonConverter's schema JSON,
 * parsed).  The tree points into connect, which must outlive it.  Returns
 * NULL with a one-line message in err (NUL-terminated, truncated to errlen)
 * when the converter would refuse the schema (invalid names, malformed
 * Connect schema, unsupported types).
 */
extern AvroSchema *avroschema_from_connect(const JsonTree *connect,
										   JsonTreeAlloc alloc, void *alloc_arg,
										   char *err, size_t errlen);

/*
 * The schema's JSON text as Avro's Schema.toString() writes it (compact,
 * properties in insertion order, a record already written given as a name
 * relative to the enclosing namespace).  NUL-terminated; *len is set.
 */
extern char *avroschema_to_json(const AvroSchema *schema, JsonTreeAlloc alloc,
								void *alloc_arg, size_t *len);

/*
 * Both steps from the Connect schema's JSON text: returns the Avro schema's
 * text (NUL-terminated, *len set), or NULL with the reason in err.
 */
extern char *avroschema_derive(const char *connect_json, size_t connect_len,
							   JsonTreeAlloc alloc, void *alloc_arg,
							   size_t *len, char *err, size_t errlen);

#endif							/* CDC_KAFKA_AVROSCHEMA_H */
