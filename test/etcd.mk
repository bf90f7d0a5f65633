# test/etcd.mk: everything between ringwatch and etcd: gRPC framing, the
# etcd codec, the HTTP/2 and gRPC clients and the etcd upstream adapter.

# The codec's unit test includes proto/etcd.c, hence the generated headers.
test/etcd_test-etcd_test.$(OBJEXT): proto/kv.pb-c.h proto/rpc.pb-c.h

UNIT_TESTS += test/grpc_test
test_grpc_test_SOURCES = test/grpc_test.c
test_grpc_test_CFLAGS = $(TEST_CFLAGS)
test_grpc_test_LDADD = $(TEST_LIBS)

UNIT_TESTS += test/etcd_test
test_etcd_test_SOURCES = test/etcd_test.c
test_etcd_test_CFLAGS = $(TEST_CFLAGS)
test_etcd_test_LDADD = $(TEST_LIBS)

# The revision a warm start lists at, against a simulated compaction; its
# requests unpacked with protobuf-c, hence the generated headers.
test/upstream_etcd_warm_test-upstream_etcd_warm_test.$(OBJEXT): \
	proto/kv.pb-c.h proto/rpc.pb-c.h
UNIT_TESTS += test/upstream_etcd_warm_test
test_upstream_etcd_warm_test_SOURCES = test/upstream_etcd_warm_test.c
test_upstream_etcd_warm_test_CFLAGS = $(TEST_CFLAGS)
test_upstream_etcd_warm_test_LDADD = $(TEST_LIBS)

# Against a real etcd: each program reads its endpoint from RW_TEST_ETCD and
# is run by a shell test that starts etcd with scripts/etcd-local (so the
# programs are built by `make check` but are not TESTS themselves).
# upstream_etcd_test feeds test/upstream_contract.c, the contract checker
# every adapter's test links.
check_PROGRAMS += test/etcd_client_test test/upstream_etcd_test
test_etcd_client_test_SOURCES = test/etcd_client_test.c test/etcd_testlib.h
test_etcd_client_test_CFLAGS = $(TEST_CFLAGS)
test_etcd_client_test_LDADD = $(TEST_LIBS)
test_upstream_etcd_test_SOURCES = test/upstream_etcd_test.c \
	test/etcd_testlib.h test/upstream_contract.c test/upstream_contract.h
test_upstream_etcd_test_CFLAGS = $(TEST_CFLAGS)
test_upstream_etcd_test_LDADD = $(TEST_LIBS)

TESTS += test/integration/etcd_client.sh test/integration/upstream_etcd.sh
EXTRA_DIST += test/integration/etcd_client.sh \
	test/integration/upstream_etcd.sh scripts/etcd-local

# The feed contract checker finds each breach (no etcd needed).
UNIT_TESTS += test/upstream_contract_test
test_upstream_contract_test_SOURCES = test/upstream_contract_test.c \
	test/upstream_contract.c test/upstream_contract.h
test_upstream_contract_test_CFLAGS = $(TEST_CFLAGS)
test_upstream_contract_test_LDADD = $(TEST_LIBS)

# src/redis_client.c against a real redis-server the test starts itself on
# a free loopback port (test/redis_testlib.h; skipped without redis-server).
UNIT_TESTS += test/redis_client_test
test_redis_client_test_SOURCES = test/redis_client_test.c test/redis_testlib.h
test_redis_client_test_CFLAGS = $(TEST_CFLAGS)
test_redis_client_test_LDADD = $(TEST_LIBS)

# The Redis upstream adapter through the contract checker, against a real
# redis-server the test starts itself (skipped without redis-server).
UNIT_TESTS += test/upstream_redis_test
test_upstream_redis_test_SOURCES = test/upstream_redis_test.c \
	test/redis_testlib.h test/upstream_contract.c test/upstream_contract.h
test_upstream_redis_test_CFLAGS = $(TEST_CFLAGS)
test_upstream_redis_test_LDADD = $(TEST_LIBS)
