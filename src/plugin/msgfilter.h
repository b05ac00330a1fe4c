/*-------------------------------------------------------------------------
 *
 * msgfilter.h
 *		Which logical decoding messages are sent: message.prefix.include.list
 *		and message.prefix.exclude.list.
 *
 * src/plugin/msgfilter.h
 *
 *-------------------------------------------------------------------------
 */
#ifndef CDC_PLUGIN_MSGFILTER_H
#define CDC_PLUGIN_MSGFILTER_H

typedef struct CdcMsgFilter CdcMsgFilter;

extern char *msgfilter_check(const char *list);
extern CdcMsgFilter *msgfilter_create(const char *include_list, const char *exclude_list);
extern bool msgfilter_included(const CdcMsgFilter *filter, const char *prefix);

#endif							/* CDC_PLUGIN_MSGFILTER_H */
