# test/proto.mk: unit tests of the wire codecs in proto/ (frames, the
# Kubernetes JSON codec, query strings).
UNIT_TESTS += test/frame_test
test_frame_test_SOURCES = test/frame_test.c
test_frame_test_CFLAGS = $(TEST_CFLAGS)
test_frame_test_LDADD = $(TEST_LIBS)

UNIT_TESTS += test/kjson_test
test_kjson_test_SOURCES = test/kjson_test.c test/json_testlib.h \
	test/kjson_testlib.h
test_kjson_test_CFLAGS = $(TEST_CFLAGS)
test_kjson_test_LDADD = $(TEST_LIBS)

UNIT_TESTS += test/kjson_decode_test
test_kjson_decode_test_SOURCES = test/kjson_decode_test.c \
	test/json_testlib.h test/kjson_testlib.h
test_kjson_decode_test_CFLAGS = $(TEST_CFLAGS)
test_kjson_decode_test_LDADD = $(TEST_LIBS)

UNIT_TESTS += test/kjson_scan_test
test_kjson_scan_test_SOURCES = test/kjson_scan_test.c test/json_testlib.h \
	test/kjson_testlib.h
test_kjson_scan_test_CFLAGS = $(TEST_CFLAGS)
test_kjson_scan_test_LDADD = $(TEST_LIBS)

UNIT_TESTS += test/query_test
test_query_test_SOURCES = test/query_test.c
test_query_test_CFLAGS = $(TEST_CFLAGS)
test_query_test_LDADD = $(TEST_LIBS)

UNIT_TESTS += test/ctoken_test
test_ctoken_test_SOURCES = test/ctoken_test.c
test_ctoken_test_CFLAGS = $(TEST_CFLAGS)
test_ctoken_test_LDADD = $(TEST_LIBS)

UNIT_TESTS += test/table_test
test_table_test_SOURCES = test/table_test.c
test_table_test_CFLAGS = $(TEST_CFLAGS)
test_table_test_LDADD = $(TEST_LIBS)

UNIT_TESTS += test/accept_test
test_accept_test_SOURCES = test/accept_test.c
test_accept_test_CFLAGS = $(TEST_CFLAGS)
test_accept_test_LDADD = $(TEST_LIBS) -lm

UNIT_TESTS += test/partial_test
test_partial_test_SOURCES = test/partial_test.c
test_partial_test_CFLAGS = $(TEST_CFLAGS)
test_partial_test_LDADD = $(TEST_LIBS)

UNIT_TESTS += test/repr_test
test_repr_test_SOURCES = test/repr_test.c
test_repr_test_CFLAGS = $(TEST_CFLAGS)
test_repr_test_LDADD = $(TEST_LIBS)

UNIT_TESTS += test/quantity_test
test_quantity_test_SOURCES = test/quantity_test.c
test_quantity_test_CFLAGS = $(TEST_CFLAGS)
test_quantity_test_LDADD = $(TEST_LIBS)

UNIT_TESTS += test/printers_test
test_printers_test_SOURCES = test/printers_test.c test/printers_testlib.h
test_printers_test_CFLAGS = $(TEST_CFLAGS)
test_printers_test_LDADD = $(TEST_LIBS)

UNIT_TESTS += test/printers_workloads_test
test_printers_workloads_test_SOURCES = test/printers_workloads_test.c test/printers_testlib.h
test_printers_workloads_test_CFLAGS = $(TEST_CFLAGS)
test_printers_workloads_test_LDADD = $(TEST_LIBS)

UNIT_TESTS += test/printer_test
test_printer_test_SOURCES = test/printer_test.c
test_printer_test_CFLAGS = $(TEST_CFLAGS)
test_printer_test_LDADD = $(TEST_LIBS)

UNIT_TESTS += test/metatime_test
test_metatime_test_SOURCES = test/metatime_test.c
test_metatime_test_CFLAGS = $(TEST_CFLAGS)
test_metatime_test_LDADD = $(TEST_LIBS)

UNIT_TESTS += test/patch_test
test_patch_test_SOURCES = test/patch_test.c test/patch_testlib.h
test_patch_test_CFLAGS = $(TEST_CFLAGS)
test_patch_test_LDADD = $(TEST_LIBS)

UNIT_TESTS += test/patch_strategic_test
test_patch_strategic_test_SOURCES = test/patch_strategic_test.c \
	test/patch_testlib.h
test_patch_strategic_test_CFLAGS = $(TEST_CFLAGS)
test_patch_strategic_test_LDADD = $(TEST_LIBS)
