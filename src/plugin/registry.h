/*-------------------------------------------------------------------------
 *
 * registry.h
 *		The schema registry client (Confluent-compatible REST API).
 *
 * src/plugin/registry.h
 *
 *-------------------------------------------------------------------------
 */
#ifndef CDC_PLUGIN_REGISTRY_H
#define CDC_PLUGIN_REGISTRY_H

/*
 * Register schema (Avro schema JSON, NUL-terminated) under subject at the
 * registry whose base URL is url (e.g. http://host:8081, or Apicurio's
 * .../apis/ccompat/v6); returns the schema's id.  ERROR when the registry
 * cannot be reached or refuses the schema.
 */
extern int32 registry_register(const char *url, const char *subject,
							   const char *schema, char **refusal);
extern void registry_set_user_info(const char *user_info);
extern void registry_set_ca_file(const char *path);

#endif							/* CDC_PLUGIN_REGISTRY_H */
