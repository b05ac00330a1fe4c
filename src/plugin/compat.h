/*-------------------------------------------------------------------------
 *
 * compat.h
 *		The one place where server calls that differ between PostgreSQL
 *		major versions are spelled out.
 *
 * cdc_kafka is built and tested against PostgreSQL 15.  Calls whose
 * signatures changed in 16 or 17 (slot acquisition, WAL flush position,
 * logical messages, attribute maps) go through these macros so that
 * supporting another major version is a contained change here rather than
 * #ifs everywhere.
 *
 * src/plugin/compat.h
 *
 *-------------------------------------------------------------------------
 */
#ifndef CDC_KAFKA_COMPAT_H
#define CDC_KAFKA_COMPAT_H

#if PG_VERSION_NUM < 150000 || PG_VERSION_NUM >= 160000
#error "cdc_kafka supports PostgreSQL 15; see src/compat.h for the calls to adapt"
#endif

/* Acquire a replication slot by name (PG18 adds an error_if_invalid flag). */
#define compat_slot_acquire(name, nowait) \
	ReplicationSlotAcquire((name), (nowait))

/* Create a persistent logical slot (PG17 adds failover and synced flags). */
#define compat_slot_create(name, two_phase) \
	ReplicationSlotCreate((name), true, RS_EPHEMERAL, (two_phase))

/* WAL position flushed to disk (PG15 takes an optional TLI out-parameter). */
#define compat_flush_rec_ptr() GetFlushRecPtr(NULL)

/* Emit a logical decoding message (PG17 adds a flush argument). */
#define compat_log_logical_message(prefix, msg, len, transactional) \
	LogLogicalMessage((prefix), (msg), (len), (transactional))

/* Map an ancestor's columns to a partition's by name (PG16 adds missing_ok). */
#define compat_attrmap_by_name_if_req(indesc, outdesc) \
	build_attrmap_by_name_if_req((indesc), (outdesc))

/* CheckLogicalDecodingRequirements() gained a repack argument in PG18. */
#define compat_check_logical_decoding() CheckLogicalDecodingRequirements()

#endif							/* CDC_KAFKA_COMPAT_H */
