/*-------------------------------------------------------------------------
 *
 * typemap.h
 *		The type mapping: PostgreSQL values as Debezium fields.
 *
 * A CdcColumn says how one column's values are written (typemap.c) and,
 * with typedefault.c, what its schema's default and fallback values are.
 *
 * src/plugin/typemap.h
 *
 *-------------------------------------------------------------------------
 */
#ifndef CDC_PLUGIN_TYPEMAP_H
#define CDC_PLUGIN_TYPEMAP_H

#include "access/attnum.h"
#include "fmgr.h"
#include "lib/stringinfo.h"
#include "plugin/options.h"

/* How a column's values are written. */
typedef enum CdcValueKind
{
	CDC_VK_BOOL,
	CDC_VK_INT16,
	CDC_VK_INT32,
	CDC_VK_INT64,
	CDC_VK_OID,
	CDC_VK_FLOAT32,
	CDC_VK_FLOAT64,
	CDC_VK_NUMERIC,
	CDC_VK_MONEY,
	CDC_VK_TEXT,				/* varlena text: text, varchar, bpchar, ... */
	CDC_VK_OUTPUT_TEXT,			/* anything written as its output function's text */
	CDC_VK_UUID,
	CDC_VK_BYTEA,
	CDC_VK_DATE,
	CDC_VK_TIME,
	CDC_VK_TIMETZ,
	CDC_VK_TIMESTAMP,
	CDC_VK_TIMESTAMPTZ,
	CDC_VK_INTERVAL,
	CDC_VK_BIT,					/* bit(1): boolean */
	CDC_VK_BITS,				/* bit(n), varbit: io.debezium.data.Bits */
	CDC_VK_HSTORE,
	CDC_VK_POINT,
	CDC_VK_ARRAY,
	CDC_VK_UNKNOWN				/* no Debezium mapping: its text as binary */
} CdcValueKind;

typedef struct CdcColumn CdcColumn;
typedef struct ColMask ColMask;

struct CdcColumn
{
	char	   *name;
	char	   *field_name;		/* name after field.name.adjustment.mode */
	char	   *name_json;		/* "field_name": as it precedes the value */
	int			name_json_len;
	AttrNumber	attnum;			/* 1-based position in publish_relid's tuple */
	Oid			typid;			/* declared type (may be a domain) */
	Oid			basetypid;		/* type after looking through domains */
	int32		typmod;
	CdcValueKind kind;
	bool		optional;		/* nullable column */
	bool		typbyval;
	int16		typlen;
	char		typalign;
	int			precision;		/* numeric precision, bit length, time digits */
	int			scale;			/* numeric scale; -1 for unconstrained */
	FmgrInfo	outfunc;		/* for kinds written through their text form */
	bool		canonical_output;	/* text form read with ISO dates, UTC */
	char	   *schema_json;	/* {"type":...} field schema, without "field" */
	char	   *default_json;	/* rendered default value, or NULL */
	char	   *fallback_json;	/* value for a NOT NULL column with no value */
	CdcColumn  *element;		/* CDC_VK_ARRAY: the element's column */
	const char *mask_json;		/* colmask.c: written for every value, or NULL */
	const char *value_schema_json;	/* colmask.c: schema_json in values, or NULL */
	const ColMask *mapper;		/* colmask.c: rule reshaping values, or NULL */
};

extern void typemap_column_init(CdcColumn *col, const char *name, AttrNumber attnum,
								Oid typid, int32 typmod, bool notnull,
								const CdcOptions *opts);
extern void typemap_write_value(StringInfo buf, const CdcColumn *col,
								Datum value, const CdcOptions *opts);
extern void typemap_write_binary(StringInfo buf, const char *data, size_t len,
								 const CdcOptions *opts);
extern void typemap_write_placeholder(StringInfo buf, const CdcColumn *col,
									  const CdcOptions *opts);
extern void typemap_write_field_schema(StringInfo buf, const CdcColumn *col,
									   bool with_default);

#endif							/* CDC_PLUGIN_TYPEMAP_H */
