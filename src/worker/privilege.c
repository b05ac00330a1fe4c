/*-------------------------------------------------------------------------
 *
 * privilege.c
 *		Running SQL as a less privileged role, with a search_path nobody
 *		but a superuser can write to.
 *
 * The worker connects as the bootstrap superuser, and the SQL functions
 * write the snapshot queue as its owner.  Whatever of other roles' code
 * such a statement may run (a table owner's function in a partial index
 * predicate, folded by the planner; a row filter; an operator or function
 * found through a schema someone else can create objects in) must run as
 * that role, never as the superuser.  So, as VACUUM and REFRESH
 * MATERIALIZED VIEW do, a table is read as its owner (or as the role that
 * asked) inside a security-restricted operation, and every statement runs
 * with search_path pg_catalog, pg_temp: its text names the extension's own
 * objects with their schema.
 *
 * src/worker/privilege.c
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include "access/htup_details.h"
#include "catalog/namespace.h"
#include "catalog/pg_class.h"
#include "catalog/pg_operator.h"
#include "miscadmin.h"
#include "utils/builtins.h"
#include "utils/guc.h"
#include "utils/lsyscache.h"
#include "utils/syscache.h"

#include "plugin/plugin.h"
#include "worker/privilege.h"

/* The search_path every statement of cdc_kafka runs with. */
#define SAFE_SEARCH_PATH "pg_catalog, pg_temp"

/*
 * Become role until privilege_as_role_end(): a security-restricted operation
 * (no SET ROLE, no temporary objects, no changed session state that would
 * outlive it) with the fixed search_path.  An error in between is undone
 * by the transaction's abort.
 */
void
privilege_as_role_begin(CdcAsRole *save, Oid role)
{
	GetUserIdAndSecContext(&save->save_user, &save->save_sec);
	SetUserIdAndSecContext(role, save->save_sec | SECURITY_LOCAL_USERID_CHANGE |
						   SECURITY_RESTRICTED_OPERATION);
	save->nestlevel = NewGUCNestLevel();
	(void) set_config_option("search_path", SAFE_SEARCH_PATH, PGC_USERSET, PGC_S_SESSION,
							 GUC_ACTION_SAVE, true, 0, false);
}

void
privilege_as_role_end(CdcAsRole *save)
{
	AtEOXact_GUC(false, save->nestlevel);
	SetUserIdAndSecContext(save->save_user, save->save_sec);
}

/*
 * For the worker's whole life: a database owner's ALTER DATABASE ... SET
 * search_path (or anyone's CREATE on a schema in it) must not decide
 * which function the worker calls.
 */
void
privilege_pin_search_path(void)
{
	SetConfigOption("search_path", SAFE_SEARCH_PATH, PGC_SUSET, PGC_S_OVERRIDE);
}

/* The owner of a relation, or InvalidOid if it is gone. */
Oid
privilege_rel_owner(Oid relid)
{
	HeapTuple	tup = SearchSysCache1(RELOID, ObjectIdGetDatum(relid));
	Oid			owner;

	if (!HeapTupleIsValid(tup))
		return InvalidOid;
	owner = ((Form_pg_class) GETSTRUCT(tup))->relowner;
	ReleaseSysCache(tup);
	return owner;
}

/* The owner of cdc_kafka.snapshots (the extension's owner): who writes the queue. */
Oid
privilege_queue_owner(void)
{
	Oid			relid = get_relname_relid("snapshots",
										  get_namespace_oid(CDC_EXTENSION_SCHEMA, false));

	if (!OidIsValid(relid))
		ereport(ERROR,
				(errcode(ERRCODE_UNDEFINED_TABLE),
				 errmsg("relation \"%s.snapshots\" does not exist", CDC_EXTENSION_SCHEMA)));
	return privilege_rel_owner(relid);
}

/* OPERATOR(schema.name) of an operator: the same whatever the search_path. */
char *
privilege_qualified_operator(Oid opno)
{
	HeapTuple	tup = SearchSysCache1(OPEROID, ObjectIdGetDatum(opno));
	Form_pg_operator op;
	char	   *result;

	if (!HeapTupleIsValid(tup))
		elog(ERROR, "cache lookup failed for operator %u", opno);
	op = (Form_pg_operator) GETSTRUCT(tup);
	result = psprintf("OPERATOR(%s.%s)", quote_identifier(get_namespace_name(op->oprnamespace)),
					  NameStr(op->oprname));
	ReleaseSysCache(tup);
	return result;
}
