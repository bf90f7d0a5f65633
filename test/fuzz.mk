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
