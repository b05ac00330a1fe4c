/*-------------------------------------------------------------------------
 *
 * relinfo.h
 *		The relation cache: topics, columns, keys and rendered schemas.
 *
 * One CdcRelInfo per relation the plugin has seen, invalidated with the
 * relcache; the streaming worker's snapshots build standalone ones.
 *
 * src/plugin/relinfo.h
 *
 *-------------------------------------------------------------------------
 */
#ifndef CDC_PLUGIN_RELINFO_H
#define CDC_PLUGIN_RELINFO_H

#include "access/attmap.h"
#include "nodes/bitmapset.h"
#include "utils/relcache.h"
#include "plugin/options.h"
#include "plugin/pubfilter.h"
#include "plugin/typemap.h"

typedef struct CdcRelInfo
{
	Oid			relid;
	bool		valid;
	bool		published;		/* any action published at all */
	Oid			publish_relid;	/* relid, or the partition ancestor whose
								 * topic, columns and keys its changes take */
	const AttrMap *attrmap;		/* publish_relid's attnos to relid's; NULL: same */
	char	   *schemaname;
	char	   *relname;
	char	   *topic;			/* sanitised <prefix>.<schema>.<table>, or
								 * where the route transform sends it */
	char	   *table_topic;	/* <prefix>.<schema>.<table>, not rerouted */
	char	   *flat_topic;		/* names unwrap's value schema (route.c) */
	int			route_schema_name_mode; /* route.c: adjusts rerouted names */
	char	   *route_key_field;	/* route.c: ,"field":"id" ending the key, or NULL */
	char	   *route_key_schema;	/* route.c: that field's schema, or NULL */
	char	   *data_collection;	/* <schema>.<table>, for transaction metadata */
	int			ncolumns;		/* value columns (published, in order) */
	CdcColumn  *columns;
	int			nkeys;			/* record key columns, as indexes into columns */
	int		   *keys;
	int			nrowkeys;		/* the table's own unique key (primary key, else
								 * the unique index chosen): what identifies a
								 * row; keys, unless message.key.columns
								 * names other columns for the record key */
	int		   *rowkeys;
	char	   *key_prefix;		/* {"schema":...,"payload": or "" */
	char	   *header_key_prefix;	/* the same, not rerouted: key headers */
	int			header_key_prefix_len;
	char	   *value_prefix;	/* {"schema":...,"payload": or "" */
	char	   *source_suffix;	/* ,"schema":"s","table":"t" */
	int			key_prefix_len;
	int			value_prefix_len;
	int			source_suffix_len;
	char	   *unwrap_prefix;	/* unwrap.c: flattened value schema, or "" */
	int			unwrap_prefix_len;
	char	   *unwrap_null_value;	/* unwrap.c: a delete in tombstone mode */
	CdcPubFilter *pubfilter;	/* NULL: everything published */
	struct OutboxColumns *outbox_cols;	/* outbox.c: its columns, or NULL */
	MemoryContext cxt;			/* owns everything above */
} CdcRelInfo;

extern void relinfo_cache_init(MemoryContext parent, const CdcOptions *opts);
extern void relinfo_cache_destroy(void);
extern CdcRelInfo *relinfo_get(Relation rel);
extern CdcRelInfo *relinfo_build_standalone(Relation rel, const Bitmapset *only,
											const CdcOptions *opts, MemoryContext cxt);

#endif							/* CDC_PLUGIN_RELINFO_H */
