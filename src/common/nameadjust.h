/*-------------------------------------------------------------------------
 *
 * nameadjust.h
 *		Debezium's schema.name.adjustment.mode and field.name.adjustment.mode:
 *		names made valid Avro names.
 *
 * Pure code: no PostgreSQL backend calls, so the unit tests link it alone.
 *
 * src/common/nameadjust.h
 *
 *-------------------------------------------------------------------------
 */
#ifndef CDC_KAFKA_NAMEADJUST_H
#define CDC_KAFKA_NAMEADJUST_H

#include <stdbool.h>
#include <stddef.h>

typedef enum NameAdjustMode
{
	NAMEADJUST_NONE,
	NAMEADJUST_AVRO,
	NAMEADJUST_AVRO_UNICODE
} NameAdjustMode;

/* Bytes that nameadjust_apply may write for a name of len bytes, NUL included. */
#define NAMEADJUST_MAX_LEN(len)	((size_t) (len) * 6 + 1)

/*
 * Write name (UTF-8, NUL-terminated) adjusted by mode to out, NUL-terminated;
 * field: a field name (no '.' allowed), else a schema's full name.  Returns
 * the length written.
 */
extern size_t nameadjust_apply(const char *name, NameAdjustMode mode, bool field,
							   char *out);

#endif							/* CDC_KAFKA_NAMEADJUST_H */
