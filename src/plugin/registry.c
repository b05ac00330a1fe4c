/*-------------------------------------------------------------------------
 *
 * registry.c
 *		The schema registry client: registers a subject's Avro schema
 *		through the Confluent-compatible REST API and returns its id.
 *
 * One blocking POST per schema the process has not registered yet (avroout.c
 * caches the ids), with libcurl: the registry answers with the id it already
 * has for the same schema, or a new one.  Whatever goes wrong is an ERROR
 * naming the registry's URL, the subject and the registry's own message:
 * decoding stops at the change being written and nothing is lost, the
 * streaming worker retries from the slot's confirmed position.  The worker
 * (only) sends HTTP Basic credentials and may name the CA of an https://
 * registry (registry_set_user_info, registry_set_ca_file).  A schema
 * the registry refuses (HTTP 4xx: incompatible under the subject's rule,
 * invalid) can instead be handed back to the caller, for the streaming
 * worker to block on that one record as on a record Kafka refuses.  Interrupts
 * are served while waiting (libcurl's progress callback asks libcurl to
 * give up, the interrupt is then processed).
 *
 * src/plugin/registry.c
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include <curl/curl.h>

#include "miscadmin.h"
#include "utils/json.h"

#include "common/jsontree.h"
#include "plugin/registry.h"

/* Bounds on one request: registries answer in milliseconds when up. */
#define REGISTRY_CONNECT_TIMEOUT_MS	5000L
#define REGISTRY_TIMEOUT_MS			30000L
#define REGISTRY_MAX_RESPONSE		(1024 * 1024)

/* The registry refuses the schema itself: 409 incompatible, 422 or 400 invalid. */
#define REGISTRY_REFUSES_SCHEMA(status) \
	((status) == 409 || (status) == 422 || (status) == 400)

#define REGISTRY_CONTENT_TYPE "application/vnd.schemaregistry.v1+json"

static CURL *registry_handle = NULL;

/*
 * HTTP Basic credentials, "user:password" (malloc'd), or NULL.  Only the
 * streaming worker sets them, from its secrets file, for the registry its
 * own setting names: a SQL caller chooses the URL, so it never gets them.
 */
static char *registry_user_info = NULL;

/* The CA certificates of an https:// registry (malloc'd), or NULL: the system's. */
static char *registry_ca_file = NULL;

/*
 * The response body, collected with malloc: libcurl calls registry_collect
 * from inside curl_easy_perform, where an ERROR (palloc failing) would
 * longjmp over libcurl's frames.
 */
typedef struct RegistryBody
{
	char	   *data;
	size_t		len;
} RegistryBody;

/* Collects the response body; refuses (aborting the transfer) past the bound. */
static size_t
registry_collect(char *data, size_t size, size_t nmemb, void *arg)
{
	RegistryBody *body = arg;
	size_t		n = size * nmemb;
	char	   *grown;

	if (body->len + n > REGISTRY_MAX_RESPONSE)
		return 0;
	grown = realloc(body->data, body->len + n + 1);
	if (grown == NULL)
		return 0;
	body->data = grown;
	memcpy(body->data + body->len, data, n);
	body->len += n;
	body->data[body->len] = '\0';
	return n;
}

/* Asks libcurl to stop when an interrupt (cancel, shutdown) is pending. */
static int
registry_progress(void *arg, curl_off_t dltotal, curl_off_t dlnow,
				  curl_off_t ultotal, curl_off_t ulnow)
{
	return InterruptPending ? 1 : 0;
}

static CURL *
registry_open(void)
{
	if (registry_handle == NULL)
	{
		if (curl_global_init(CURL_GLOBAL_DEFAULT) != CURLE_OK ||
			(registry_handle = curl_easy_init()) == NULL)
			ereport(ERROR,
					(errcode(ERRCODE_OUT_OF_MEMORY),
					 errmsg("could not start the schema registry client (libcurl)")));
	}
	curl_easy_reset(registry_handle);
	return registry_handle;
}

/* {"schema":"<the schema as a JSON string>"} */
static char *
registry_request_body(const char *schema)
{
	StringInfoData body;

	initStringInfo(&body);
	appendStringInfoString(&body, "{\"schema\":");
	escape_json(&body, schema);
	appendStringInfoChar(&body, '}');
	return body.data;
}

static void *
registry_tree_alloc(void *arg, size_t size)
{
	return palloc0(size);
}

/* The "message" of a registry's error body, or the body itself. */
static char *
registry_error_text(const StringInfo body)
{
	char		err[128];
	JsonTree   *tree = jsontree_parse(body->data, body->len, 16,
									  registry_tree_alloc, NULL, err, sizeof(err));
	const JsonTree *message = jsontree_member(tree, "message");

	if (message != NULL && message->kind == JSONTREE_STRING)
		return pnstrdup(message->str, message->len);
	return pnstrdup(body->data, Min(body->len, 500));
}

/* The id of a successful answer, {"id":N}. */
static int32
registry_answer_id(const StringInfo body, const char *url, const char *subject)
{
	char		err[128];
	JsonTree   *tree = jsontree_parse(body->data, body->len, 16,
									  registry_tree_alloc, NULL, err, sizeof(err));
	const JsonTree *id = jsontree_member(tree, "id");

	if (id == NULL || id->kind != JSONTREE_NUMBER || !id->is_int ||
		id->integer < 0 || id->integer > PG_INT32_MAX)
		ereport(ERROR,
				(errcode(ERRCODE_PROTOCOL_VIOLATION),
				 errmsg("schema registry at \"%s\" gave no schema id for subject \"%s\"",
						url, subject),
				 errdetail("It answered: %s", pnstrdup(body->data, Min(body->len, 500)))));
	return (int32) id->integer;
}

/*
 * Report what the registry said when it did not give an id.  A refused
 * schema goes to *refusal when the caller takes it; anything else is an
 * ERROR.
 */
static void
registry_refused(long status, const StringInfo body, const char *url,
				 const char *subject, char **refusal)
{
	char	   *message = registry_error_text(body);

	if (status == 401 || status == 403)
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_AUTHORIZATION_SPECIFICATION),
				 errmsg("schema registry at \"%s\" refused %s to register subject \"%s\" (HTTP status %ld)",
						url, registry_user_info ? "the credentials given" : "a request without credentials",
						subject, status),
				 errdetail("It answered: %s", message),
				 errhint("The streaming worker sends the user and password of schema.registry.basic.auth.user.info "
						 "in cdc_kafka.kafka_secrets_file; SQL callers send none.")));
	if (REGISTRY_REFUSES_SCHEMA(status) && refusal != NULL)
	{
		*refusal = psprintf("schema registry at \"%s\" refused the schema of subject \"%s\": %s (HTTP status %ld)",
							url, subject, message, status);
		return;
	}
	if (REGISTRY_REFUSES_SCHEMA(status))
		ereport(ERROR,
				(errcode(ERRCODE_DATA_EXCEPTION),
				 errmsg("schema registry at \"%s\" refused the schema of subject \"%s\": %s",
						url, subject, message),
				 errdetail("HTTP status %ld.", status),
				 errhint("An incompatible change of a table's schema is refused under the subject's compatibility rule; "
						 "change the rule in the registry, or the table.")));
	ereport(ERROR,
			(errcode(ERRCODE_CONNECTION_FAILURE),
			 errmsg("schema registry at \"%s\" failed to register subject \"%s\": %s",
					url, subject, message),
			 errdetail("HTTP status %ld.", status)));
}

/*
 * Replace the malloc'd string in *slot with a copy of value (NULL or "":
 * none), wiping the old one first: it may be a password.
 */
static void
registry_keep(char **slot, const char *value)
{
	if (*slot != NULL)
	{
		explicit_bzero(*slot, strlen(*slot));
		free(*slot);
		*slot = NULL;
	}
	if (value != NULL && value[0] != '\0' && (*slot = strdup(value)) == NULL)
		ereport(ERROR,
				(errcode(ERRCODE_OUT_OF_MEMORY),
				 errmsg("out of memory")));
}

/* Set (or with NULL or "", forget) the CA file of the worker's registry. */
void
registry_set_ca_file(const char *path)
{
	registry_keep(&registry_ca_file, path);
}

/* Set (or with NULL, forget) the credentials the registry is sent: "user:password". */
void
registry_set_user_info(const char *user_info)
{
	registry_keep(&registry_user_info, user_info);
}

/*
 * The registry's id of schema under subject.  refusal: NULL to make a
 * refused schema an ERROR; otherwise it gets the refusal's text (and -1 is
 * returned) or NULL.
 */
int32
registry_register(const char *url, const char *subject, const char *schema,
				  char **refusal)
{
	CURL	   *curl = registry_open();
	char	   *escaped = curl_easy_escape(curl, subject, 0);
	char	   *endpoint = psprintf("%s/subjects/%s/versions", url, escaped);
	char	   *request = registry_request_body(schema);
	struct curl_slist *headers = NULL;
	RegistryBody collected = {NULL, 0};
	StringInfoData body;
	char		curl_error[CURL_ERROR_SIZE] = "";
	CURLcode	rc;
	long		status = 0;

	curl_free(escaped);
	headers = curl_slist_append(headers, "Content-Type: " REGISTRY_CONTENT_TYPE);
	headers = curl_slist_append(headers, "Accept: " REGISTRY_CONTENT_TYPE ", application/json");
	curl_easy_setopt(curl, CURLOPT_URL, endpoint);
	curl_easy_setopt(curl, CURLOPT_HTTPHEADER, headers);
	curl_easy_setopt(curl, CURLOPT_POSTFIELDS, request);
	curl_easy_setopt(curl, CURLOPT_WRITEFUNCTION, registry_collect);
	curl_easy_setopt(curl, CURLOPT_WRITEDATA, &collected);
	curl_easy_setopt(curl, CURLOPT_XFERINFOFUNCTION, registry_progress);
	curl_easy_setopt(curl, CURLOPT_NOPROGRESS, 0L);
	curl_easy_setopt(curl, CURLOPT_CONNECTTIMEOUT_MS, REGISTRY_CONNECT_TIMEOUT_MS);
	curl_easy_setopt(curl, CURLOPT_TIMEOUT_MS, REGISTRY_TIMEOUT_MS);
	curl_easy_setopt(curl, CURLOPT_NOSIGNAL, 1L);
	curl_easy_setopt(curl, CURLOPT_ERRORBUFFER, curl_error);
	if (registry_ca_file != NULL)
		curl_easy_setopt(curl, CURLOPT_CAINFO, registry_ca_file);
	if (registry_user_info != NULL)
	{
		curl_easy_setopt(curl, CURLOPT_HTTPAUTH, (long) CURLAUTH_BASIC);
		curl_easy_setopt(curl, CURLOPT_USERPWD, registry_user_info);
	}
	rc = curl_easy_perform(curl);
	curl_easy_getinfo(curl, CURLINFO_RESPONSE_CODE, &status);
	curl_slist_free_all(headers);
	initStringInfo(&body);
	if (collected.data != NULL)
	{
		appendBinaryStringInfo(&body, collected.data, (int) collected.len);
		free(collected.data);
	}

	if (rc == CURLE_ABORTED_BY_CALLBACK)
		CHECK_FOR_INTERRUPTS();
	if (rc != CURLE_OK)
		ereport(ERROR,
				(errcode(ERRCODE_CONNECTION_FAILURE),
				 errmsg("could not reach the schema registry at \"%s\" to register subject \"%s\": %s",
						url, subject, curl_error[0] ? curl_error : curl_easy_strerror(rc)),
				 errhint("Records wait until the registry answers; nothing is skipped.")));
	if (refusal != NULL)
		*refusal = NULL;
	if (status != 200)
	{
		registry_refused(status, &body, url, subject, refusal);
		return -1;
	}
	return registry_answer_id(&body, url, subject);
}
