/*-------------------------------------------------------------------------
 *
 * privilege.h
 *		Running SQL as a less privileged role, with a search_path nobody
 *		but a superuser can write to.
 *
 * src/worker/privilege.h
 *
 *-------------------------------------------------------------------------
 */
#ifndef CDC_KAFKA_PRIVILEGE_H
#define CDC_KAFKA_PRIVILEGE_H

/* What privilege_as_role_end() restores. */
typedef struct CdcAsRole
{
	Oid			save_user;
	int			save_sec;
	int			nestlevel;
} CdcAsRole;

extern void privilege_as_role_begin(CdcAsRole *save, Oid role);
extern void privilege_as_role_end(CdcAsRole *save);
extern void privilege_pin_search_path(void);
extern Oid	privilege_queue_owner(void);
extern Oid	privilege_rel_owner(Oid relid);
extern char *privilege_qualified_operator(Oid opno);

#endif							/* CDC_KAFKA_PRIVILEGE_H */
