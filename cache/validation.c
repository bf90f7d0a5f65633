/*
 * validation.c: the name and label-value checks of k8s.io/apimachinery
 * util/validation (see validation.h).  The character classes are tested by
 * hand, not by regular expression; the messages are apimachinery's, byte for
 * byte, regular expressions included.
 */
#include "cache/validation.h"

#include <stdbool.h>
#include <string.h>

#include "cache/sbuf.h"

#define QNAME_ERR                                                              \
    "must consist of alphanumeric characters, '-', '_' or '.', and must "      \
    "start and end with an alphanumeric character (e.g. 'MyName',  or "        \
    "'my.name',  or '123-abc', regex used for validation is "                  \
    "'([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]')"
#define DNS1123_SUBDOMAIN_ERR                                                  \
    "a lowercase RFC 1123 subdomain must consist of lower case alphanumeric "  \
    "characters, '-' or '.', and must start and end with an alphanumeric "     \
    "character (e.g. 'example.com', regex used for validation is "             \
    "'[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*')"
#define LABEL_VALUE_ERR                                                        \
    "a valid label must be an empty string or consist of alphanumeric "        \
    "characters, '-', '_' or '.', and must start and end with an "             \
    "alphanumeric character (e.g. 'MyValue',  or 'my_value',  or '12345', "    \
    "regex used for validation is "                                            \
    "'(([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9])?')"

#define QNAME_MAX 63
#define DNS1123_LABEL_MAX 63
#define DNS1123_SUBDOMAIN_MAX 253
#define LABEL_VALUE_MAX 63

static bool is_alnum(char c)
{
    return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') ||
           (c >= '0' && c <= '9');
}

static bool is_lower_alnum(char c)
{
    return (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9');
}

/* ([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9] */
static bool is_qname_part(const char *s, size_t n)
{
    if (n == 0 || !is_alnum(s[0]) || !is_alnum(s[n - 1]))
        return false;
    for (size_t i = 1; i + 1 < n; i++)
        if (!is_alnum(s[i]) && s[i] != '-' && s[i] != '_' && s[i] != '.')
            return false;
    return true;
}

/* [a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)* */
static bool is_dns1123_subdomain(const char *s, size_t n)
{
    size_t start = 0;

    for (size_t i = 0; i <= n; i++) {
        if (i < n && s[i] != '.') {
            if (!is_lower_alnum(s[i]) && s[i] != '-')
                return false;
            continue;
        }
        if (i == start || !is_lower_alnum(s[start]) ||
            !is_lower_alnum(s[i - 1]))
            return false;
        start = i + 1;
    }
    return true;
}

/* Appends msg to a "; "-joined list. */
static void add_error(struct sbuf *errs, const char *msg)
{
    if (errs->len > 0)
        sbuf_add(errs, "; ");
    sbuf_add(errs, msg);
}

void validation_qualified_name(const char *s, size_t n, struct sbuf *errs)
{
    const char *slash = memchr(s, '/', n);
    const char *name = s;
    size_t name_len = n;

    if (slash != NULL) {
        size_t prefix_len = slash - s;

        if (memchr(slash + 1, '/', n - prefix_len - 1) != NULL) {
            add_error(errs, "a qualified name " QNAME_ERR
                            " with an optional DNS subdomain prefix and '/' "
                            "(e.g. 'example.com/MyName')");
            return;
        }
        if (prefix_len == 0) {
            add_error(errs, "prefix part must be non-empty");
        } else {
            if (prefix_len > DNS1123_SUBDOMAIN_MAX)
                add_error(errs, "prefix part must be no more than 253 "
                                "characters");
            if (!is_dns1123_subdomain(s, prefix_len))
                add_error(errs, "prefix part " DNS1123_SUBDOMAIN_ERR);
        }
        name = slash + 1;
        name_len = n - prefix_len - 1;
    }
    if (name_len == 0)
        add_error(errs, "name part must be non-empty");
    else if (name_len > QNAME_MAX)
        add_error(errs, "name part must be no more than 63 characters");
    if (!is_qname_part(name, name_len))
        add_error(errs, "name part " QNAME_ERR);
}

void validation_label_value(const char *s, size_t n, struct sbuf *errs)
{
    if (n > LABEL_VALUE_MAX)
        add_error(errs, "must be no more than 63 characters");
    if (n > 0 && !is_qname_part(s, n))
        add_error(errs, LABEL_VALUE_ERR);
}

bool validation_dns1123_label(const char *s, size_t n)
{
    return n <= DNS1123_LABEL_MAX && memchr(s, '.', n) == NULL &&
           is_dns1123_subdomain(s, n);
}

bool validation_dns1123_subdomain(const char *s, size_t n)
{
    return n <= DNS1123_SUBDOMAIN_MAX && is_dns1123_subdomain(s, n);
}
