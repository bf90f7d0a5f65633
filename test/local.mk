# test/: unit tests (cmocka, one per module) and integration tests that
# start real etcd, ringwatch and clients on loopback.
TEST_CFLAGS = $(AM_CFLAGS) $(CMOCKA_CFLAGS) $(LIBEVENT_CFLAGS) \
	$(NGHTTP2_CFLAGS) $(CJSON_CFLAGS) $(PROTOBUF_C_CFLAGS)
TEST_LIBS = $(RW_LIBS) $(RW_EXTERNAL_LIBS) $(CMOCKA_LIBS)

UNIT_TESTS =
TESTS += $(UNIT_TESTS)
check_PROGRAMS += $(UNIT_TESTS)

TEST_EXTENSIONS = .py .sh
PY_LOG_COMPILER = $(PYTHON3)
SH_LOG_COMPILER = $(SHELL)
AM_TESTS_ENVIRONMENT = \
	RINGWATCH='$(abs_top_builddir)/ringwatch'; \
	RINGWATCH_FLEET='$(abs_top_builddir)/ringwatch-fleet'; \
	TOP_SRCDIR='$(abs_top_srcdir)'; \
	MANDOC='$(MANDOC)'; \
	PYTHONPATH='$(abs_top_srcdir)/test/integration'; \
	PYTHONDONTWRITEBYTECODE=1; \
	export RINGWATCH RINGWATCH_FLEET TOP_SRCDIR MANDOC PYTHONPATH PYTHONDONTWRITEBYTECODE;

# One fragment per area, so that they can be edited independently.
include test/cache.mk
include test/proto.mk
include test/etcd.mk
include test/front.mk
include test/daemon.mk
include test/fuzz.mk
include test/integration.mk
include test/fleet.mk
