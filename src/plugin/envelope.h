/*-------------------------------------------------------------------------
 *
 * envelope.h
 *		The fixed parts of the Debezium envelope's value schema.
 *
 * The source block and the transaction block are the same in every change
 * record; relinfo.c renders them into each table's value schema and
 * encoder.c into the schema of logical decoding messages.
 *
 * src/plugin/envelope.h
 *
 *-------------------------------------------------------------------------
 */
#ifndef CDC_PLUGIN_ENVELOPE_H
#define CDC_PLUGIN_ENVELOPE_H

#define CDC_SOURCE_SCHEMA \
	"{\"type\":\"struct\",\"fields\":[" \
	"{\"type\":\"string\",\"optional\":false,\"field\":\"version\"}," \
	"{\"type\":\"string\",\"optional\":false,\"field\":\"connector\"}," \
	"{\"type\":\"string\",\"optional\":false,\"field\":\"name\"}," \
	"{\"type\":\"int64\",\"optional\":false,\"field\":\"ts_ms\"}," \
	"{\"type\":\"string\",\"optional\":true,\"name\":\"io.debezium.data.Enum\",\"version\":1," \
	"\"parameters\":{\"allowed\":\"true,first,first_in_data_collection,last_in_data_collection,last,false,incremental\"}," \
	"\"default\":\"false\",\"field\":\"snapshot\"}," \
	"{\"type\":\"string\",\"optional\":false,\"field\":\"db\"}," \
	"{\"type\":\"string\",\"optional\":true,\"field\":\"sequence\"}," \
	"{\"type\":\"int64\",\"optional\":true,\"field\":\"ts_us\"}," \
	"{\"type\":\"int64\",\"optional\":true,\"field\":\"ts_ns\"}," \
	"{\"type\":\"string\",\"optional\":false,\"field\":\"schema\"}," \
	"{\"type\":\"string\",\"optional\":false,\"field\":\"table\"}," \
	"{\"type\":\"int64\",\"optional\":true,\"field\":\"txId\"}," \
	"{\"type\":\"int64\",\"optional\":true,\"field\":\"lsn\"}," \
	"{\"type\":\"int64\",\"optional\":true,\"field\":\"xmin\"}," \
	"{\"type\":\"string\",\"optional\":true,\"field\":\"origin\"}," \
	"{\"type\":\"int64\",\"optional\":true,\"field\":\"origin_lsn\"}]," \
	"\"optional\":false,\"name\":\"io.debezium.connector.postgresql.Source\",\"version\":1," \
	"\"field\":\"source\"}"

#define CDC_TRANSACTION_BLOCK_SCHEMA \
	"{\"type\":\"struct\",\"fields\":[" \
	"{\"type\":\"string\",\"optional\":false,\"field\":\"id\"}," \
	"{\"type\":\"int64\",\"optional\":false,\"field\":\"total_order\"}," \
	"{\"type\":\"int64\",\"optional\":false,\"field\":\"data_collection_order\"}]," \
	"\"optional\":true,\"name\":\"event.block\",\"version\":1,\"field\":\"transaction\"}"

/* The envelope's fields after before/after: source, transaction, op, ts_*. */
#define CDC_ENVELOPE_TAIL_SCHEMA \
	CDC_SOURCE_SCHEMA "," CDC_TRANSACTION_BLOCK_SCHEMA "," \
	"{\"type\":\"string\",\"optional\":false,\"field\":\"op\"}," \
	"{\"type\":\"int64\",\"optional\":true,\"field\":\"ts_ms\"}," \
	"{\"type\":\"int64\",\"optional\":true,\"field\":\"ts_us\"}," \
	"{\"type\":\"int64\",\"optional\":true,\"field\":\"ts_ns\"}"

#endif							/* CDC_PLUGIN_ENVELOPE_H */
