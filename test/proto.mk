# test/proto.mk: unit tests of the wire codecs in proto/ (frames, the
# Kubernetes JSON codec, query strings).
UNIT_TESTS += test/frame_test
test_frame_test_SOURCES = test/frame_test.c
test_frame_test_CFLAGS = $(TEST_CFLAGS)
test_frame_test_LDADD = $(TEST_LIBS)

UNIT_TESTS += test/kjson_test
test_kjson_test_SOURCES = test/kjson_test.c
test_kjson_test_CFLAGS = $(TEST_CFLAGS)
test_kjson_test_LDADD = $(TEST_LIBS)

UNIT_TESTS += test/query_test
test_query_test_SOURCES = test/query_test.c
test_query_test_CFLAGS = $(TEST_CFLAGS)
test_query_test_LDADD = $(TEST_LIBS)
