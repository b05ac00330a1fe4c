/*-------------------------------------------------------------------------
 *
 * compat.h
 *		The one place where server calls that differ between PostgreSQL
 *		major versions are spelled out (15 to 18).
 *
 * src/plugin/compat.h
 *
 *-------------------------------------------------------------------------
 */
#ifndef CDC_KAFKA_COMPAT_H
#define CDC_KAFKA_COMPAT_H

#if PG_VERSION_NUM < 150000 || PG_VERSION_NUM >= 190000
#error "cdc_kafka supports PostgreSQL 15 to 18; see src/plugin/compat.h"
#endif

#if PG_VERSION_NUM >= 160000
#include "parser/parse_relation.h"	/* addRTEPermissionInfo */
#endif

/* Acquire a slot by name; invalidation is checked by the caller (PG18 flag). */
#if PG_VERSION_NUM >= 180000
#define compat_slot_acquire(name, nowait) \
	ReplicationSlotAcquire((name), (nowait), false)
#else
#define compat_slot_acquire(name, nowait) \
	ReplicationSlotAcquire((name), (nowait))
#endif

/*
 * Failover slots (PG17): a physical standby with sync_replication_slots
 * keeps a copy of a slot marked failover.  COMPAT_SLOT_FAILOVER says whether
 * the server has them; before 17 the failover arguments below are ignored
 * (cdc_kafka.slot_failover refuses "on" there).
 */
#if PG_VERSION_NUM >= 170000
#define COMPAT_SLOT_FAILOVER 1
#else
#define COMPAT_SLOT_FAILOVER 0
#endif

/* Create a persistent logical slot (PG17 adds failover and synced flags). */
#if PG_VERSION_NUM >= 170000
#define compat_slot_create(name, two_phase, failover) \
	ReplicationSlotCreate((name), true, RS_EPHEMERAL, (two_phase), (failover), false)
#else
#define compat_slot_create(name, two_phase, failover) \
	ReplicationSlotCreate((name), true, RS_EPHEMERAL, (two_phase))
#endif

/* Whether a slot's persistent data marks it failover (false before 17). */
#if PG_VERSION_NUM >= 170000
#define compat_slot_is_failover(slotdata) ((slotdata).failover)
#else
#define compat_slot_is_failover(slotdata) (false)
#endif

/*
 * Set a slot's failover flag (the slot must not be acquired by the caller):
 * PG18 passes the flags to change by pointer, two_phase too.
 */
#if PG_VERSION_NUM >= 180000
#define compat_slot_set_failover(name, failover) \
	do { \
		bool		failover_ = (failover); \
		ReplicationSlotAlter((name), &failover_, NULL); \
	} while (0)
#elif PG_VERSION_NUM >= 170000
#define compat_slot_set_failover(name, failover) \
	ReplicationSlotAlter((name), (failover))
#else
#define compat_slot_set_failover(name, failover) ((void) 0)
#endif

/* Decode base64 into dst: PG18 takes the bytes as uint8 *, before as char *. */
#if PG_VERSION_NUM >= 180000
#define compat_b64_decode(src, len, dst, dstlen) \
	pg_b64_decode((src), (len), (uint8 *) (dst), (dstlen))
#else
#define compat_b64_decode(src, len, dst, dstlen) \
	pg_b64_decode((src), (len), (char *) (dst), (dstlen))
#endif

/*
 * Have the physical standbys of synchronized_standby_slots received WAL up
 * to lsn?  Only asked for a failover slot (the acquired one): its changes
 * must not reach Kafka before the standby that would take over has them, as
 * walsenders of failover slots wait too.  elevel: how to report why not
 * (PostgreSQL names the slot that lags, is missing or inactive).  Always
 * true before 17.
 */
#if PG_VERSION_NUM >= 170000
#define compat_standbys_have(lsn, elevel) \
	(!MyReplicationSlot->data.failover || StandbySlotsHaveCaughtup((lsn), (elevel)))
#else
#define compat_standbys_have(lsn, elevel) (true)
#endif

/* Whether a slot's persistent data says it was invalidated (PG16: a cause). */
#if PG_VERSION_NUM >= 160000
#define compat_slot_invalidated(slotdata) \
	((slotdata).invalidated != RS_INVAL_NONE)
#else
#define compat_slot_invalidated(slotdata) \
	(!XLogRecPtrIsInvalid((slotdata).invalidated_at))
#endif

/* WAL position flushed to disk (PG15 takes an optional TLI out-parameter). */
#define compat_flush_rec_ptr() GetFlushRecPtr(NULL)

/* Emit a logical decoding message; the caller flushes (PG17 flush flag). */
#if PG_VERSION_NUM >= 170000
#define compat_log_logical_message(prefix, msg, len, transactional) \
	LogLogicalMessage((prefix), (msg), (len), (transactional), false)
#else
#define compat_log_logical_message(prefix, msg, len, transactional) \
	LogLogicalMessage((prefix), (msg), (len), (transactional))
#endif

/* Map an ancestor's columns to a partition's by name (PG16 adds missing_ok). */
#if PG_VERSION_NUM >= 160000
#define compat_attrmap_by_name_if_req(indesc, outdesc) \
	build_attrmap_by_name_if_req((indesc), (outdesc), false)
#else
#define compat_attrmap_by_name_if_req(indesc, outdesc) \
	build_attrmap_by_name_if_req((indesc), (outdesc))
#endif

/* CheckLogicalDecodingRequirements() is unchanged from 15 to 18. */
#define compat_check_logical_decoding() CheckLogicalDecodingRequirements()

/*
 * An executor state's range table of the one relation rte: PG16 keeps the
 * permission info apart (RTEPermissionInfo), PG18 also wants the unpruned
 * range table indexes.
 */
#if PG_VERSION_NUM >= 180000
#define compat_init_range_table(estate, rte) \
	do { \
		List	   *perminfos_ = NIL; \
		addRTEPermissionInfo(&perminfos_, (rte)); \
		ExecInitRangeTable((estate), list_make1(rte), perminfos_, \
						   bms_make_singleton(1)); \
	} while (0)
#elif PG_VERSION_NUM >= 160000
#define compat_init_range_table(estate, rte) \
	do { \
		List	   *perminfos_ = NIL; \
		addRTEPermissionInfo(&perminfos_, (rte)); \
		ExecInitRangeTable((estate), list_make1(rte), perminfos_); \
	} while (0)
#else
#define compat_init_range_table(estate, rte) \
	ExecInitRangeTable((estate), list_make1(rte))
#endif

/* Datetime field decoding (PG16 adds a DateTimeErrorExtra out-parameter). */
#if PG_VERSION_NUM >= 160000
#define compat_decode_datetime(f, ft, nf, dtype, tm, fsec, tz) \
	DecodeDateTime((f), (ft), (nf), (dtype), (tm), (fsec), (tz), \
				   &(DateTimeErrorExtra) {0})
#define compat_decode_time_only(f, ft, nf, dtype, tm, fsec, tz) \
	DecodeTimeOnly((f), (ft), (nf), (dtype), (tm), (fsec), (tz), \
				   &(DateTimeErrorExtra) {0})
#else
#define compat_decode_datetime(f, ft, nf, dtype, tm, fsec, tz) \
	DecodeDateTime((f), (ft), (nf), (dtype), (tm), (fsec), (tz))
#define compat_decode_time_only(f, ft, nf, dtype, tm, fsec, tz) \
	DecodeTimeOnly((f), (ft), (nf), (dtype), (tm), (fsec), (tz))
#endif

/* A decoded change's tuple (PG17 dropped ReorderBufferTupleBuf). */
#if PG_VERSION_NUM >= 170000
#define compat_change_tuple(t) (t)
#else
#define compat_change_tuple(t) ((t) ? &(t)->tuple : NULL)
#endif

/* A wait event set for the process's lifetime (PG17: owned by a resowner). */
#if PG_VERSION_NUM >= 170000
#define compat_create_wait_event_set(nevents) CreateWaitEventSet(NULL, (nevents))
#else
#define compat_create_wait_event_set(nevents) \
	CreateWaitEventSet(TopMemoryContext, (nevents))
#endif

#endif							/* CDC_KAFKA_COMPAT_H */
