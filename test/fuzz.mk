# Fuzz targets: test/fuzz/NAME_fuzz.c defines LLVMFuzzerTestOneInput.  In
# `make check` each is linked with test/fuzz/driver.c and replays its corpus
# (test/fuzz/corpus/NAME/) plus a bounded, seeded run of mutations.  For
# coverage-guided fuzzing, build a target with clang and libFuzzer instead:
#   clang -fsanitize=fuzzer,address -D_GNU_SOURCE -I. -Ibuild \
#     test/fuzz/selector_fuzz.c build/cache/libcache.a -o selector_fuzz
#   ./selector_fuzz test/fuzz/corpus/selector
FUZZ_DRIVER = test/fuzz/driver.c
FUZZ_TESTS =
check_PROGRAMS += $(FUZZ_TESTS)
TESTS += $(FUZZ_TESTS)
EXTRA_DIST += test/fuzz/corpus

FUZZ_TESTS += test/fuzz/kjson_fuzz
test_fuzz_kjson_fuzz_SOURCES = test/fuzz/kjson_fuzz.c $(FUZZ_DRIVER)
test_fuzz_kjson_fuzz_CFLAGS = $(TEST_CFLAGS)
test_fuzz_kjson_fuzz_LDADD = $(TEST_LIBS)

FUZZ_TESTS += test/fuzz/query_fuzz
test_fuzz_query_fuzz_SOURCES = test/fuzz/query_fuzz.c $(FUZZ_DRIVER)
test_fuzz_query_fuzz_CFLAGS = $(TEST_CFLAGS)
test_fuzz_query_fuzz_LDADD = $(TEST_LIBS)

FUZZ_TESTS += test/fuzz/selector_fuzz
test_fuzz_selector_fuzz_SOURCES = test/fuzz/selector_fuzz.c $(FUZZ_DRIVER)
test_fuzz_selector_fuzz_CFLAGS = $(TEST_CFLAGS)
test_fuzz_selector_fuzz_LDADD = cache/libcache.a
FUZZ_TESTS += test/fuzz/etcd_fuzz test/fuzz/grpc_fuzz
test_fuzz_etcd_fuzz_SOURCES = test/fuzz/etcd_fuzz.c $(FUZZ_DRIVER)
test_fuzz_etcd_fuzz_CFLAGS = $(TEST_CFLAGS)
test_fuzz_etcd_fuzz_LDADD = proto/libproto.a cache/libcache.a $(PROTOBUF_C_LIBS)
test_fuzz_grpc_fuzz_SOURCES = test/fuzz/grpc_fuzz.c $(FUZZ_DRIVER)
test_fuzz_grpc_fuzz_CFLAGS = $(TEST_CFLAGS)
test_fuzz_grpc_fuzz_LDADD = proto/libproto.a cache/libcache.a

FUZZ_TESTS += test/fuzz/write_fuzz
test_fuzz_write_fuzz_SOURCES = test/fuzz/write_fuzz.c $(FUZZ_DRIVER)
test_fuzz_write_fuzz_CFLAGS = $(TEST_CFLAGS)
test_fuzz_write_fuzz_LDADD = $(TEST_LIBS)

FUZZ_TESTS += test/fuzz/review_fuzz
test_fuzz_review_fuzz_SOURCES = test/fuzz/review_fuzz.c $(FUZZ_DRIVER)
test_fuzz_review_fuzz_CFLAGS = $(TEST_CFLAGS)
test_fuzz_review_fuzz_LDADD = $(TEST_LIBS)

FUZZ_TESTS += test/fuzz/h1_head_fuzz
test_fuzz_h1_head_fuzz_SOURCES = test/fuzz/h1_head_fuzz.c $(FUZZ_DRIVER)
test_fuzz_h1_head_fuzz_CFLAGS = $(TEST_CFLAGS)
test_fuzz_h1_head_fuzz_LDADD = $(TEST_LIBS)

FUZZ_TESTS += test/fuzz/front_fuzz
test_fuzz_front_fuzz_SOURCES = test/fuzz/front_fuzz.c $(FUZZ_DRIVER)
test_fuzz_front_fuzz_CFLAGS = $(TEST_CFLAGS)
test_fuzz_front_fuzz_LDADD = $(TEST_LIBS)

FUZZ_TESTS += test/fuzz/fleet_scan_fuzz
test_fuzz_fleet_scan_fuzz_SOURCES = test/fuzz/fleet_scan_fuzz.c $(FUZZ_DRIVER)
test_fuzz_fleet_scan_fuzz_CFLAGS = $(TEST_CFLAGS)
test_fuzz_fleet_scan_fuzz_LDADD = src/fleet/libfleet.a $(TEST_LIBS)

FUZZ_TESTS += test/fuzz/ctoken_fuzz
test_fuzz_ctoken_fuzz_SOURCES = test/fuzz/ctoken_fuzz.c $(FUZZ_DRIVER)
test_fuzz_ctoken_fuzz_CFLAGS = $(TEST_CFLAGS)
test_fuzz_ctoken_fuzz_LDADD = $(TEST_LIBS)

FUZZ_TESTS += test/fuzz/options_fuzz
test_fuzz_options_fuzz_SOURCES = test/fuzz/options_fuzz.c $(FUZZ_DRIVER)
test_fuzz_options_fuzz_CFLAGS = $(TEST_CFLAGS)
test_fuzz_options_fuzz_LDADD = $(TEST_LIBS)

FUZZ_TESTS += test/fuzz/accept_fuzz
test_fuzz_accept_fuzz_SOURCES = test/fuzz/accept_fuzz.c $(FUZZ_DRIVER)
test_fuzz_accept_fuzz_CFLAGS = $(TEST_CFLAGS)
test_fuzz_accept_fuzz_LDADD = $(TEST_LIBS)

FUZZ_TESTS += test/fuzz/table_fuzz
test_fuzz_table_fuzz_SOURCES = test/fuzz/table_fuzz.c $(FUZZ_DRIVER)
test_fuzz_table_fuzz_CFLAGS = $(TEST_CFLAGS)
test_fuzz_table_fuzz_LDADD = $(TEST_LIBS)

FUZZ_TESTS += test/fuzz/sniff_fuzz
test_fuzz_sniff_fuzz_SOURCES = test/fuzz/sniff_fuzz.c $(FUZZ_DRIVER)
test_fuzz_sniff_fuzz_CFLAGS = $(TEST_CFLAGS)
test_fuzz_sniff_fuzz_LDADD = $(TEST_LIBS)

# The authentication decoders: the --token-auth-file CSV and service-account
# JWTs (proto/tokenfile.c, proto/jwt.c).
FUZZ_TESTS += test/fuzz/tokenfile_fuzz test/fuzz/jwt_fuzz
test_fuzz_tokenfile_fuzz_SOURCES = test/fuzz/tokenfile_fuzz.c $(FUZZ_DRIVER)
test_fuzz_tokenfile_fuzz_CFLAGS = $(TEST_CFLAGS)
test_fuzz_tokenfile_fuzz_LDADD = proto/libproto.a cache/libcache.a
test_fuzz_jwt_fuzz_SOURCES = test/fuzz/jwt_fuzz.c $(FUZZ_DRIVER)
test_fuzz_jwt_fuzz_CFLAGS = $(TEST_CFLAGS)
test_fuzz_jwt_fuzz_LDADD = proto/libproto.a cache/libcache.a $(CJSON_LIBS)

# The Impersonate-* fields (src/impersonate.c).
FUZZ_TESTS += test/fuzz/impersonate_fuzz
test_fuzz_impersonate_fuzz_SOURCES = test/fuzz/impersonate_fuzz.c $(FUZZ_DRIVER)
test_fuzz_impersonate_fuzz_CFLAGS = $(TEST_CFLAGS)
test_fuzz_impersonate_fuzz_LDADD = $(TEST_LIBS)

FUZZ_TESTS += test/fuzz/rbac_fuzz
test_fuzz_rbac_fuzz_SOURCES = test/fuzz/rbac_fuzz.c $(FUZZ_DRIVER)
test_fuzz_rbac_fuzz_CFLAGS = $(TEST_CFLAGS)
test_fuzz_rbac_fuzz_LDADD = $(TEST_LIBS)

FUZZ_TESTS += test/fuzz/redis_entry_fuzz
test_fuzz_redis_entry_fuzz_SOURCES = test/fuzz/redis_entry_fuzz.c $(FUZZ_DRIVER)
test_fuzz_redis_entry_fuzz_CFLAGS = $(TEST_CFLAGS)
test_fuzz_redis_entry_fuzz_LDADD = $(TEST_LIBS)
