/*
 * label_selector.h: label selectors (labelSelector=), parsed into
 * requirements, as k8s.io/apimachinery labels.Parse.  cache/selector.c
 * combines them with the field requirements and matches them.
 *
 * Grammar: comma-separated requirements: key=value, key==value, key!=value,
 * key in (v1,v2), key notin (v1,v2), key, !key, key>N, key<N.  != and notin
 * also match objects without the label.  Keys as validation_qualified_name,
 * values as validation_label_value (possibly empty); the values of > and <
 * are 64-bit integers.
 */
#ifndef LABEL_SELECTOR_H
#define LABEL_SELECTOR_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "cache/sbuf.h"

enum label_op {
    LABEL_IN,    /* =, ==, in: the label exists with one of the values */
    LABEL_NOTIN, /* !=, notin: the label is absent or none of the values */
    LABEL_EXISTS,
    LABEL_NOT_EXISTS,
    LABEL_GT,
    LABEL_LT,
};

/* One requirement (labels.Requirement). */
struct label_req {
    char *key;
    enum label_op op;
    size_t nvalues;
    char **values;  /* sorted, unique */
    int64_t number; /* LABEL_GT, LABEL_LT */
};

/*
 * Parses the label selector s (NUL-terminated; "" has no requirement) and
 * appends its requirements, in order, to the array *reqs of *nreqs (grown
 * with xrealloc; the caller frees it with label_selector_free, after an
 * error too).  Returns RW_OK, or RW_EINVAL with the apiserver's message
 * appended to why, e.g. "unable to parse requirement: ..." or
 * "found ',', expected: identifier after ','".
 */
int label_selector_parse(const char *s, struct label_req **reqs, size_t *nreqs,
                         struct sbuf *why);

/* Frees the nreqs requirements at reqs and the array; reqs may be NULL. */
void label_selector_free(struct label_req *reqs, size_t nreqs);

/*
 * A label value as a number, as strconv.ParseInt(s, 10, 64): an optional
 * sign, then decimal digits, no overflow.  Used to validate the values of >
 * and < and, when matching them, to read the object's label (inline: that
 * is on the event path).
 */
static inline bool label_selector_int64(const char *s, int64_t *out)
{
    bool neg = false;
    uint64_t v = 0, limit;

    if (*s == '+' || *s == '-')
        neg = *s++ == '-';
    if (*s == '\0')
        return false;
    limit = neg ? (uint64_t)INT64_MAX + 1 : (uint64_t)INT64_MAX;
    for (; *s; s++) {
        if (*s < '0' || *s > '9')
            return false;
        if (v > (limit - (uint64_t)(*s - '0')) / 10)
            return false;
        v = v * 10 + (uint64_t)(*s - '0');
    }
    *out = neg ? (int64_t)(0 - v) : (int64_t)v;
    return true;
}

#endif
