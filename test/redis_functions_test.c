/*
 * redis_functions_test.c: the library ringwatch carries is byte for byte
 * src/redis_functions.lua (the file test/integration/redis_functions_test.py
 * loads into a real redis-server), names itself "ringwatch" and registers
 * the three functions of redis_functions.h.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "src/redis_functions.h"

/* The whole file at $TOP_SRCDIR/path, NUL terminated. */
static char *read_source(const char *path)
{
    const char *top = getenv("TOP_SRCDIR");
    char full[4096];
    FILE *f;
    char *buf;
    long len;

    snprintf(full, sizeof(full), "%s/%s", top ? top : "..", path);
    f = fopen(full, "rb");
    assert_non_null(f);
    assert_int_equal(fseek(f, 0, SEEK_END), 0);
    len = ftell(f);
    assert_true(len > 0);
    rewind(f);
    buf = malloc((size_t)len + 1);
    assert_non_null(buf);
    assert_int_equal(fread(buf, 1, (size_t)len, f), (size_t)len);
    buf[len] = '\0';
    fclose(f);
    return buf;
}

static void compiled_in_equals_file(void **state)
{
    char *file = read_source("src/redis_functions.lua");

    assert_string_equal(redis_functions_source(), file);
    free(file);
}

static void names_library_and_functions(void **state)
{
    const char *src = redis_functions_source();

    assert_true(strncmp(src, "#!lua name=" REDIS_FUNCTIONS_LIBRARY "\n",
                        strlen("#!lua name=" REDIS_FUNCTIONS_LIBRARY "\n")) ==
                0);
    assert_non_null(strstr(src, "register_function('" REDIS_FUNCTIONS_PUT
                                "', "));
    assert_non_null(strstr(src, "register_function('" REDIS_FUNCTIONS_DELETE
                                "', "));
    assert_non_null(strstr(src, "function_name = '" REDIS_FUNCTIONS_REV "'"));
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(compiled_in_equals_file),
        cmocka_unit_test(names_library_and_functions),
    };

    return cmocka_run_group_tests(tests, NULL, NULL);
}
