/*-------------------------------------------------------------------------
 *
 * jregex.h
 *		Java-style regular expressions and replacements, as Kafka Connect's
 *		routers use them (Pattern.matches, Matcher.replaceFirst).
 *
 * Used by the route transform (route.c) and the outbox transform's
 * topic routing (outbox.c).
 *
 * src/plugin/jregex.h
 *
 *-------------------------------------------------------------------------
 */
#ifndef CDC_PLUGIN_JREGEX_H
#define CDC_PLUGIN_JREGEX_H

typedef struct JRegex JRegex;

extern const char *jregex_check(const char *pattern);
extern const char *jregex_check_replacement(const char *replacement);
extern const char *jregex_check_groups(const char *pattern, const char *replacement);
extern JRegex *jregex_compile(const char *pattern);
extern char *jregex_replace(JRegex *re, const char *replacement, const char *subject);

#endif							/* CDC_PLUGIN_JREGEX_H */
