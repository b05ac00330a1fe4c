/*-------------------------------------------------------------------------
 *
 * avroenc_check.c
 *		Encode Kafka Connect values with src/common/avroenc.c and compare
 *		the bytes with those Debezium's Avro converter wrote.
 *
 * Reads cases from stdin, three lines each: the Avro schema JSON, the
 * record's JsonConverter payload JSON, and the expected Avro binary in hex
 * (without the wire format's 5-byte header).  Prints one line per
 * difference and ends with "N compared, N differences"; exits 1 if any.
 * test/unit/avroenc_check.py makes the cases from a capture of
 * test/registry/probe/run.sh and the conformance run's Debezium JSON.
 *
 * test/unit/avroenc_check.c
 *
 *-------------------------------------------------------------------------
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/avroenc.h"
#include "common/binenc.h"

static void *
arena_alloc(void *arg, size_t size)
{
	void	   *p = calloc(1, size);

	if (p == NULL)
	{
		fprintf(stderr, "out of memory\n");
		exit(2);
	}
	return p;					/* leaked: a checker of a few thousand cases */
}

static char *
read_line(void)
{
	char	   *line = NULL;
	size_t		cap = 0;
	ssize_t		n = getline(&line, &cap, stdin);

	if (n <= 0)
	{
		free(line);
		return NULL;
	}
	if (line[n - 1] == '\n')
		line[n - 1] = '\0';
	return line;
}

/* Returns 1 when the encoding differs from expect_hex (and says how). */
static int
check_case(long no, const char *schema, const char *payload, const char *expect_hex)
{
	char		err[512] = "";
	AvroEnc    *enc = avroenc_create(schema, strlen(schema), err, sizeof(err));
	JsonTree   *value;
	char	   *out;
	char	   *hex;
	long		n;
	int			differs;

	if (enc == NULL)
	{
		printf("case %ld: schema: %s\n", no, err);
		return 1;
	}
	value = jsontree_parse(payload, strlen(payload), JSONTREE_MAX_DEPTH,
						   arena_alloc, NULL, err, sizeof(err));
	if (value == NULL)
	{
		printf("case %ld: payload: %s\n", no, err);
		avroenc_free(enc);
		return 1;
	}
	n = avroenc_encode(enc, value, NULL, 0, err, sizeof(err));
	out = malloc(n > 0 ? n : 1);
	if (n >= 0)
		n = avroenc_encode(enc, value, out, n, err, sizeof(err));
	avroenc_free(enc);
	if (n < 0)
	{
		printf("case %ld: encode: %s\n", no, err);
		free(out);
		return 1;
	}
	hex = malloc(BINENC_HEX_LEN(n) + 1);
	hex[binenc_hex((const uint8_t *) out, n, hex)] = '\0';
	differs = strcmp(hex, expect_hex) != 0;
	if (differs)
		printf("case %ld: bytes differ\n  got  %s\n  want %s\n", no, hex, expect_hex);
	free(hex);
	free(out);
	return differs;
}

int
main(void)
{
	long		compared = 0;
	long		differences = 0;
	char	   *schema;

	while ((schema = read_line()) != NULL)
	{
		char	   *payload = read_line();
		char	   *expect = read_line();

		if (payload == NULL || expect == NULL)
		{
			fprintf(stderr, "avroenc_check: a case needs three lines\n");
			return 2;
		}
		differences += check_case(++compared, schema, payload, expect);
		free(schema);
		free(payload);
		free(expect);
	}
	printf("%ld compared, %ld differences\n", compared, differences);
	return differences > 0;
}
