/*
 * field_selector.c: the field selector parser (see field_selector.h), as
 * k8s.io/apimachinery fields.ParseSelector: terms split on unescaped
 * commas, sorted, each split at its first operator, values unescaped; then
 * the apiserver's field label conversion (resource_type_field_id), once the
 * whole selector has parsed.  Error messages are the apiserver's.
 */
#include "cache/field_selector.h"

#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "cache/rw.h"
#include "cache/sbuf.h"
#include "cache/utf8.h"

struct field_term {
    const char *s; /* the raw term, not NUL-terminated */
    size_t len;
};

static int term_cmp(const void *a, const void *b)
{
    const struct field_term *x = a, *y = b;
    int c = memcmp(x->s, y->s, RW_MIN(x->len, y->len));

    if (c != 0)
        return c;
    return x->len < y->len ? -1 : x->len > y->len;
}

/* splitTerms: split on commas not preceded by an escaping backslash. */
static struct field_term *split_terms(const char *s, size_t *n)
{
    struct field_term *terms = NULL;
    size_t start = 0, count = 0, i;
    bool in_slash = false;

    for (i = 0;; i++) {
        if (s[i] != '\0' && (in_slash || s[i] != ',')) {
            in_slash = !in_slash && s[i] == '\\';
            continue;
        }
        terms = xrealloc(terms, (count + 1) * sizeof(*terms));
        terms[count].s = s + start;
        terms[count++].len = i - start;
        if (s[i] == '\0')
            break;
        start = i + 1;
    }
    *n = count;
    return terms;
}

/* UnescapeValue: \\ \, \= are escapes; any other escape, a trailing
 * backslash or an unescaped ',' or '=' is an error. */
static char *unescape_value(const char *s, size_t n, struct sbuf *why)
{
    char *out = xmalloc(n + 1), *o = out;

    for (size_t i = 0; i < n; i++) {
        unsigned char c = (unsigned char)s[i];

        if (c == ',' || c == '=') {
            sbuf_addf(why,
                      "invalid field selector: unescaped character in value: "
                      "%d",
                      c);
            goto err;
        }
        if (c != '\\') {
            *o++ = (char)c;
            continue;
        }
        if (++i == n) {
            sbuf_add(why,
                     "invalid field selector: invalid escape sequence: \\");
            goto err;
        }
        if (s[i] != '\\' && s[i] != ',' && s[i] != '=') {
            size_t len = utf8_len((const unsigned char *)s + i, n - i);

            sbuf_add(why,
                     "invalid field selector: invalid escape sequence: \\");
            if (len > 0)
                sbuf_addn(why, s + i, len);
            else
                sbuf_add(why, "\xef\xbf\xbd"); /* Go decodes it as U+FFFD */
            goto err;
        }
        *o++ = s[i];
    }
    *o = '\0';
    return out;
err:
    free(out);
    return NULL;
}

/* One term: lhs op rhs, split at the first "!=", "==" or "=" (tried in
 * that order at each position).  Appends to *reqs unless it is the empty
 * term "=" that apimachinery drops.  *field gets the lhs. */
static int parse_field_term(const char *selector, const struct field_term *t,
                            struct field_req **reqs, size_t *nreqs,
                            char **field, struct sbuf *why)
{
    static const char *const ops[] = {"!=", "==", "="};
    size_t i, op = 0, oplen = 0;
    struct field_req *req;
    char *value;

    for (i = 0; i < t->len && oplen == 0; i++) {
        for (op = 0; op < RW_ARRAY_LEN(ops); op++) {
            size_t l = strlen(ops[op]);

            if (t->len - i >= l && memcmp(t->s + i, ops[op], l) == 0) {
                oplen = l;
                break;
            }
        }
    }
    if (oplen == 0) {
        sbuf_addf(why, "invalid selector: '%s'; can't understand '%.*s'",
                  selector, (int)t->len, t->s);
        return RW_EINVAL;
    }
    i--;
    value = unescape_value(t->s + i + oplen, t->len - i - oplen, why);
    if (value == NULL)
        return RW_EINVAL;
    if (i == 0 && *value == '\0') {
        free(value);
        *field = NULL;
        return RW_OK;
    }
    *reqs = xrealloc(*reqs, (*nreqs + 1) * sizeof(**reqs));
    req = &(*reqs)[(*nreqs)++];
    req->field_id = -1;
    req->negate = op == 0;
    req->value = value;
    *field = xstrndup(t->s, i);
    return RW_OK;
}

static int field_id(const struct resource_type *rt, const char *path)
{
    if (rt != NULL)
        return resource_type_field_id(rt, path);
    if (strcmp(path, "metadata.name") == 0)
        return FIELD_NAME;
    return strcmp(path, "metadata.namespace") == 0 ? FIELD_NAMESPACE : -1;
}

int field_selector_parse(const char *s, const struct resource_type *rt,
                         struct field_req **reqs, size_t *nreqs,
                         struct sbuf *why)
{
    size_t nterms, first = *nreqs;
    struct field_term *terms = split_terms(s, &nterms);
    char **names = xcalloc(nterms, sizeof(char *));
    int rc = RW_OK;

    qsort(terms, nterms, sizeof(*terms), term_cmp);
    for (size_t i = 0; i < nterms && rc == RW_OK; i++) {
        char *name = NULL;

        if (terms[i].len == 0)
            continue;
        rc = parse_field_term(s, &terms[i], reqs, nreqs, &name, why);
        if (name != NULL)
            names[*nreqs - 1 - first] = name;
    }
    /* The apiserver converts field labels once the whole selector parsed. */
    for (size_t i = first; i < *nreqs && rc == RW_OK; i++) {
        (*reqs)[i].field_id = field_id(rt, names[i - first]);
        if ((*reqs)[i].field_id < 0) {
            sbuf_addf(why, "field label not supported: %s", names[i - first]);
            rc = RW_EINVAL;
        }
    }
    for (size_t i = 0; i < nterms; i++)
        free(names[i]);
    free(names);
    free(terms);
    return rc;
}

void field_selector_free(struct field_req *reqs, size_t nreqs)
{
    for (size_t i = 0; i < nreqs; i++)
        free(reqs[i].value);
    free(reqs);
}
