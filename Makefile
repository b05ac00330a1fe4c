# cdc_kafka: PGXS build of the extension, its unit tests and its test suites.
#
#   make                  build the shared library (add WERROR=1 to fail on warnings)
#   make install          install it into the PostgreSQL given by PG_CONFIG (it builds
#                         first if needed: give it the same WERROR as make)
#   make layoutcheck      the layout rules on the built objects (README: Layout)
#   make unitcheck        cmocka tests of the pure C parts (no server needed)
#   make avroschemacheck  Avro schemas against a Debezium capture (AVRO_REFERENCE=dir)
#   make avroenccheck     Avro values against the same capture (and AVRO_JSON_CAPTURE)
#   make regresscheck     pg_regress suites on a temporary server (test/regress.conf)
#   make installcheck     pg_regress suites, then the TAP suites
#   make prove_installcheck   TAP suites (test/t) against a real Kafka broker
#
# Regression inputs live in test/sql and their expected outputs in expected/:
# pg_regress reads expected files from --outputdir before --inputdir.

EXTENSION = cdc_kafka
MODULE_big = cdc_kafka

# The source rooms (README: Layout; test/check-layout.py enforces the rules):
#   src/common  pure C without backend calls, linked alone into the cmocka tests
#   src/plugin  the logical decoding output plugin
#   src/worker  launcher, worker, stream, producer, snapshots, settings, SQL API
COMMON_SRCS = $(sort $(wildcard src/common/*.c))
PLUGIN_SRCS = $(sort $(wildcard src/plugin/*.c))
WORKER_SRCS = $(sort $(wildcard src/worker/*.c))
OBJS = $(COMMON_SRCS:.c=.o) $(PLUGIN_SRCS:.c=.o) $(WORKER_SRCS:.c=.o)
# (not HEADERS: PGXS would install them, for other extensions to include)
SRC_HEADERS = $(wildcard src/*/*.h)

DATA = $(sort $(wildcard sql/cdc_kafka--*.sql))

PG_CONFIG ?= /usr/lib/postgresql/15/bin/pg_config

WARNFLAGS = -Wall -Wextra -Wno-unused-parameter -Wno-sign-compare \
	-Wno-missing-field-initializers
PG_CFLAGS = $(WARNFLAGS) $(if $(WERROR),-Werror)
PG_CPPFLAGS = -I$(srcdir)/src
SHLIB_LINK = -lrdkafka -lavro -lcurl

REGRESS = $(patsubst test/sql/%.sql,%,$(sort $(wildcard test/sql/*.sql)))
REGRESS_OPTS = --inputdir=test --outputdir=. --temp-config=test/regress.conf \
	--temp-instance=./tmp_check
TAP_TESTS = $(if $(wildcard test/t/*.pl),1)
PROVE_TESTS = $(sort $(wildcard test/t/*.pl))

EXTRA_CLEAN = results regression.diffs regression.out tmp_check log \
	$(UNIT_BINS) test/unit/avroschema_check test/unit/avroenc_check $(BUILD_MODE)

PGXS := $(shell $(PG_CONFIG) --pgxs)
include $(PGXS)

# Every object depends on every header: the structs are shared.
$(OBJS): $(SRC_HEADERS)

# The build mode is part of what make tracks.  The objects depend on a stamp
# holding the compiler and its flags (WERROR=1 adds -Werror, PG_CONFIG the
# server's), rewritten only when they change: `make WERROR=1` after `make`
# recompiles instead of finding every object up to date, and so does a build
# against another PostgreSQL.
BUILD_MODE = .build-mode
BUILD_FLAGS = $(CC) $(CPPFLAGS) $(CFLAGS) | unit: $(UNIT_CFLAGS)
$(OBJS): $(BUILD_MODE)
$(BUILD_MODE): FORCE
	@echo '$(subst ','\'',$(BUILD_FLAGS))' | cmp -s - $@ || \
		echo '$(subst ','\'',$(BUILD_FLAGS))' >$@
.PHONY: FORCE
FORCE:

# The pg_regress suites alone (installcheck also runs the TAP suites).  Their
# logs stay in log/regress: pg_regress removes its temporary instance, and the
# server's log in it, when every test passes (and the TAP suites empty
# tmp_check), so the server logs there through its logging collector; when a
# test fails, regression.out and regression.diffs are copied there too
# (pg_regress deletes both when none does).
REGRESS_LOG = log/regress
.PHONY: regresscheck
regresscheck:
	@rm -rf $(REGRESS_LOG) && mkdir -p $(REGRESS_LOG)
	@printf "logging_collector = on\nlog_directory = '%s'\nlog_filename = 'postmaster.log'\nlog_file_mode = 0644\n" \
		'$(abspath $(REGRESS_LOG))' >$(REGRESS_LOG)/logging.conf
	$(pg_regress_installcheck) $(REGRESS_OPTS) --temp-config=$(REGRESS_LOG)/logging.conf \
		$(REGRESS); status=$$?; \
	cp regression.out $(REGRESS_LOG)/ 2>/dev/null; \
	if [ -f regression.diffs ]; then cp regression.diffs $(REGRESS_LOG)/; fi; \
	exit $$status

# The TAP suites alone (test/t, against the installed server and a Kafka
# cluster each suite starts with test/kafka/kafka.sh), each one timed.
# (Makefile.global empties PROVE_FLAGS: set it per target; make
# PROVE_FLAGS=... still overrides.)
.PHONY: prove_installcheck
prove_installcheck installcheck: PROVE_FLAGS = --timer
# Prove empties tmp_check before it starts (and a pg_regress run removes it):
# the suites' logs (tmp_check/log) are copied to log/tap, where they stay.
prove_installcheck:
	@rm -rf log/tap
	$(prove_installcheck); status=$$?; \
	mkdir -p log && cp -R tmp_check/log log/tap 2>/dev/null; \
	exit $$status

# ---- layout rules ---------------------------------------------------------

# test/check-layout.py reads src/ and the objects built from it; the
# self-test shows it fails on each rule broken.  Both run, either fails.
# The self-test builds copies whose injected code warns: it gets none of this
# make's variables (MAKEFLAGS and the environment would pass WERROR=1 on).
.PHONY: layoutcheck
layoutcheck: all
	@status=0; \
	python3 test/check-layout.py --pg-config $(PG_CONFIG) || status=1; \
	MAKEFLAGS= WERROR= PG_CONFIG=$(PG_CONFIG) bash test/layout/selftest.sh || status=1; \
	exit $$status

# ---- cmocka unit tests --------------------------------------------------

UNIT_SRCS = $(sort $(wildcard test/unit/*_test.c))
UNIT_BINS = $(UNIT_SRCS:.c=)
UNIT_CFLAGS = -std=gnu11 -O1 -g $(WARNFLAGS) $(if $(WERROR),-Werror) -Isrc

# Linking src/common alone is itself a check: a backend call there fails.
test/unit/%_test: test/unit/%_test.c $(COMMON_SRCS) $(wildcard src/common/*.h) $(BUILD_MODE)
	$(CC) $(UNIT_CFLAGS) -o $@ $< $(COMMON_SRCS) -lcmocka -lavro -lm

.PHONY: unitcheck
unitcheck: $(UNIT_BINS)
	@status=0; for t in $(UNIT_BINS); do ./$$t || status=1; done; exit $$status

# avroschema.c against a capture of Debezium with Apicurio's AvroConverter
# (test/registry/probe/run.sh writes it; REFERENCE.md there): every key and
# value schema derived and compared with the one the converter registered.
#   make avroschemacheck AVRO_REFERENCE=/path/to/capture
AVRO_REFERENCE ?= /var/tmp/avro-reference
test/unit/avroschema_check: test/unit/avroschema_check.c $(COMMON_SRCS) $(wildcard src/common/*.h) $(BUILD_MODE)
	$(CC) $(UNIT_CFLAGS) -o $@ $< $(COMMON_SRCS) -lavro -lm

.PHONY: avroschemacheck
avroschemacheck: test/unit/avroschema_check
	./test/unit/avroschema_check $(AVRO_REFERENCE)

# avroenc.c against the same capture: each record's JsonConverter payload
# (from the conformance run's Debezium JSON, AVRO_JSON_CAPTURE, same
# workload) encoded under the schema the converter registered for it and
# compared byte for byte with what it wrote.
#   make avroenccheck AVRO_REFERENCE=dir AVRO_JSON_CAPTURE=file
AVRO_JSON_CAPTURE ?= test/conformance/work/debezium/default.jsonl
test/unit/avroenc_check: test/unit/avroenc_check.c $(COMMON_SRCS) $(wildcard src/common/*.h) $(BUILD_MODE)
	$(CC) $(UNIT_CFLAGS) -o $@ $< $(COMMON_SRCS) -lavro -lm

.PHONY: avroenccheck
avroenccheck: test/unit/avroenc_check
	python3 test/unit/avroenc_check.py $(AVRO_REFERENCE) $(AVRO_JSON_CAPTURE) ./test/unit/avroenc_check
