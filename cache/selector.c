/*
 * selector.c: label and field selectors (see selector.h).
 *
 * Parsing follows k8s.io/apimachinery: labels.Parse (a lexer that reads
 * the whole string into tokens, then a recursive-descent parser with one
 * token of lookahead, then NewRequirement's validation) and
 * fields.ParseSelector (terms split on unescaped commas, sorted, each split
 * at its first operator, values unescaped), then the apiserver's field
 * label conversion (resource_type_field_id).  Error messages are the
 * apiserver's, byte for byte where we know them.
 *
 * Data structure: a parsed selector is two flat arrays of requirements,
 * owned strings included; matching walks them and allocates nothing.  Label
 * values of in/notin are kept sorted and unique (apimachinery's sets.String);
 * gt/lt keep their integer.  All requirements must hold.
 */
#include "cache/selector.h"

#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cache/rw.h"
#include "cache/sbuf.h"
#include "cache/utf8.h"

enum label_op {
    LABEL_IN,    /* =, ==, in: the label exists with one of the values */
    LABEL_NOTIN, /* !=, notin: the label is absent or none of the values */
    LABEL_EXISTS,
    LABEL_NOT_EXISTS,
    LABEL_GT,
    LABEL_LT,
};

struct label_req {
    char *key;
    enum label_op op;
    size_t nvalues;
    char **values;  /* sorted, unique */
    int64_t number; /* LABEL_GT, LABEL_LT */
};

struct field_req {
    int field_id;
    bool negate; /* != */
    char *value;
};

struct selector {
    struct label_req *labels;
    size_t nlabels;
    struct field_req *fields;
    size_t nfields;
};

/* Go's named escape for an ASCII byte in a quoted string, or NULL. */
static const char *go_escape(unsigned char c)
{
    static const char from[] = "\"\\\a\b\f\n\r\t\v";
    static const char *const to[] = {"\\\"", "\\\\", "\\a", "\\b", "\\f",
                                     "\\n",  "\\r",  "\\t", "\\v"};
    const char *at = c ? strchr(from, c) : NULL;

    return at ? to[at - from] : NULL;
}

/* Appends s as Go's %q would (close enough: every valid multibyte rune is
 * taken as printable). */
static void sbuf_add_quoted(struct sbuf *b, const char *s, size_t n)
{
    const unsigned char *p = (const unsigned char *)s;
    size_t i = 0;

    sbuf_add(b, "\"");
    while (i < n) {
        size_t len = utf8_len(p + i, n - i);
        const char *esc = go_escape(p[i]);

        if (len > 1) {
            sbuf_addn(b, s + i, len);
            i += len;
            continue;
        }
        if (esc != NULL)
            sbuf_add(b, esc);
        else if (p[i] < 0x20 || p[i] >= 0x7f)
            sbuf_addf(b, "\\x%02x", p[i]);
        else
            sbuf_addn(b, s + i, 1);
        i++;
    }
    sbuf_add(b, "\"");
}

/* ==== apimachinery validation (util/validation) ==== */

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

/* validation.IsQualifiedName: appends its messages, "; "-joined. */
static void check_qualified_name(const char *s, size_t n, struct sbuf *errs)
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

/* validation.IsValidLabelValue */
static void check_label_value(const char *s, size_t n, struct sbuf *errs)
{
    if (n > LABEL_VALUE_MAX)
        add_error(errs, "must be no more than 63 characters");
    if (n > 0 && !is_qname_part(s, n))
        add_error(errs, LABEL_VALUE_ERR);
}

/* strconv.ParseInt(s, 10, 64) */
static bool parse_int64(const char *s, int64_t *out)
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

/* ==== label selector: lexer (labels.Lexer) ==== */

enum token_type {
    TOK_END,
    TOK_CLOSE_PAREN,
    TOK_COMMA,
    TOK_NOT, /* "!": does-not-exist */
    TOK_DOUBLE_EQUALS,
    TOK_EQUALS,
    TOK_GT,
    TOK_IDENT,
    TOK_IN,
    TOK_LT,
    TOK_NOT_EQUALS,
    TOK_NOTIN,
    TOK_OPEN_PAREN,
};

struct token {
    enum token_type type;
    const char *s; /* the literal, not NUL-terminated */
    int len;
};

static bool is_space(char c)
{
    return c == ' ' || c == '\t' || c == '\r' || c == '\n';
}

static bool is_special(char c)
{
    return strchr("=!(),><", c) != NULL && c != '\0';
}

/* Reads one token at *pos.  Special symbols take the longest token that
 * is a prefix ("==", "!=" or one character), as scanSpecialSymbol does. */
static struct token lex_one(const char *s, size_t *pos)
{
    struct token t = {TOK_END, s + *pos, 0};
    size_t i = *pos, start;

    while (is_space(s[i]))
        i++;
    t.s = s + i;
    start = i;
    if (s[i] == '\0') {
        t.type = TOK_END;
    } else if (is_special(s[i])) {
        static const char singles[] = "=!(),><";
        static const enum token_type types[] = {
            TOK_EQUALS, TOK_NOT, TOK_OPEN_PAREN, TOK_CLOSE_PAREN,
            TOK_COMMA,  TOK_GT,  TOK_LT};

        if ((s[i] == '=' || s[i] == '!') && s[i + 1] == '=') {
            t.type = s[i] == '=' ? TOK_DOUBLE_EQUALS : TOK_NOT_EQUALS;
            i += 2;
        } else {
            t.type = types[strchr(singles, s[i]) - singles];
            i++;
        }
    } else {
        while (s[i] != '\0' && !is_special(s[i]) && !is_space(s[i]))
            i++;
        t.type = TOK_IDENT;
        if (i - start == 2 && memcmp(s + start, "in", 2) == 0)
            t.type = TOK_IN;
        else if (i - start == 5 && memcmp(s + start, "notin", 5) == 0)
            t.type = TOK_NOTIN;
    }
    t.len = (int)(i - start);
    *pos = i;
    return t;
}

/* ==== label selector: parser (labels.Parser) ==== */

struct label_parser {
    struct token *toks; /* the whole input, ending with TOK_END */
    size_t pos;
    struct sbuf err;      /* set on failure */
    struct label_req req; /* the requirement being parsed */
};

/* In a value context "in" and "notin" are identifiers. */
static enum token_type as_value(enum token_type t)
{
    return t == TOK_IN || t == TOK_NOTIN ? TOK_IDENT : t;
}

static const struct token *lookahead(const struct label_parser *p)
{
    return &p->toks[p->pos];
}

static const struct token *consume(struct label_parser *p)
{
    const struct token *t = &p->toks[p->pos];

    if (t->type != TOK_END)
        p->pos++;
    return t;
}

__attribute__((format(printf, 2, 3))) static int
parse_fail(struct label_parser *p, const char *fmt, ...)
{
    va_list ap;

    va_start(ap, fmt);
    sbuf_vaddf(&p->err, fmt, ap);
    va_end(ap);
    return RW_EINVAL;
}

static int value_cmp(const void *a, const void *b)
{
    return strcmp(*(char *const *)a, *(char *const *)b);
}

/* Adds a value to the requirement's set (sorted and deduplicated later). */
static void add_value(struct label_req *r, const char *s, size_t n)
{
    r->values = xrealloc(r->values, (r->nvalues + 1) * sizeof(char *));
    r->values[r->nvalues++] = xstrndup(s, n);
}

static void sort_values(struct label_req *r)
{
    size_t kept = 0;

    qsort(r->values, r->nvalues, sizeof(char *), value_cmp);
    for (size_t i = 0; i < r->nvalues; i++) {
        if (kept > 0 && strcmp(r->values[kept - 1], r->values[i]) == 0)
            free(r->values[i]);
        else
            r->values[kept++] = r->values[i];
    }
    r->nvalues = kept;
}

static void label_req_fini(struct label_req *r)
{
    free(r->key);
    for (size_t i = 0; i < r->nvalues; i++)
        free(r->values[i]);
    free(r->values);
    memset(r, 0, sizeof(*r));
}

/* parseIdentifiersList: a possibly empty, comma-separated list of possibly
 * empty values, up to (not including) ')'. */
static int parse_identifiers_list(struct label_parser *p)
{
    struct label_req *r = &p->req;

    for (;;) {
        const struct token *t = consume(p), *t2;

        switch (as_value(t->type)) {
        case TOK_IDENT:
            add_value(r, t->s, t->len);
            t2 = lookahead(p);
            if (t2->type == TOK_COMMA)
                continue;
            if (t2->type == TOK_CLOSE_PAREN)
                return RW_OK;
            return parse_fail(p, "found '%.*s', expected: ',' or ')'", t2->len,
                              t2->s);
        case TOK_COMMA:
            if (r->nvalues == 0)
                add_value(r, "", 0); /* "(," */
            t2 = lookahead(p);
            if (t2->type == TOK_CLOSE_PAREN) {
                add_value(r, "", 0); /* ",)" */
                return RW_OK;
            }
            if (t2->type == TOK_COMMA) {
                consume(p);
                add_value(r, "", 0); /* ",," */
            }
            continue;
        default:
            return parse_fail(p, "found '%.*s', expected: ',', or identifier",
                              t->len, t->s);
        }
    }
}

/* parseValues: "(" values ")" */
static int parse_values(struct label_parser *p)
{
    const struct token *t = consume(p), *la;

    if (t->type != TOK_OPEN_PAREN)
        return parse_fail(p, "found '%.*s' expected: '('", t->len, t->s);
    la = lookahead(p);
    switch (as_value(la->type)) {
    case TOK_IDENT:
    case TOK_COMMA:
        if (parse_identifiers_list(p) != RW_OK)
            return RW_EINVAL;
        if (consume(p)->type != TOK_CLOSE_PAREN)
            return parse_fail(p, "found '%.*s', expected: ')'", la->len, la->s);
        return RW_OK;
    case TOK_CLOSE_PAREN: /* "()" is the set {""} */
        consume(p);
        add_value(&p->req, "", 0);
        return RW_OK;
    default:
        return parse_fail(p, "found '%.*s', expected: ',', ')' or identifier",
                          la->len, la->s);
    }
}

/* parseExactValue: one value, possibly empty. */
static int parse_exact_value(struct label_parser *p)
{
    const struct token *t = lookahead(p);

    if (t->type == TOK_END || t->type == TOK_COMMA) {
        add_value(&p->req, "", 0);
        return RW_OK;
    }
    t = consume(p);
    if (as_value(t->type) == TOK_IDENT) {
        add_value(&p->req, t->s, t->len);
        return RW_OK;
    }
    return parse_fail(p, "found '%.*s', expected: identifier", t->len, t->s);
}

/* parseOperator, in the key-and-operator context ("in" is an operator). */
static int parse_operator(struct label_parser *p, bool *set_based)
{
    const struct token *t = consume(p);

    *set_based = false;
    switch (t->type) {
    case TOK_IN:
        *set_based = true;
        /* fallthrough */
    case TOK_EQUALS:
    case TOK_DOUBLE_EQUALS:
        p->req.op = LABEL_IN;
        return RW_OK;
    case TOK_NOTIN:
        *set_based = true;
        /* fallthrough */
    case TOK_NOT_EQUALS:
        p->req.op = LABEL_NOTIN;
        return RW_OK;
    case TOK_GT:
        p->req.op = LABEL_GT;
        return RW_OK;
    case TOK_LT:
        p->req.op = LABEL_LT;
        return RW_OK;
    default:
        return parse_fail(
            p, "found '%.*s', expected: in, notin, =, ==, !=, gt, lt", t->len,
            t->s);
    }
}

/* One field.Error of NewRequirement, collected for ToAggregate(). */
static void add_field_error(struct sbuf *all, size_t *n, const char *path,
                            const char *value, const char *detail)
{
    sbuf_add(all, *n > 0 ? ", " : "");
    sbuf_addf(all, "%s: Invalid value: ", path);
    sbuf_add_quoted(all, value, strlen(value));
    sbuf_addf(all, ": %s", detail);
    (*n)++;
}

/* NewRequirement's validation of the values (the key was checked when it
 * was read).  Messages as field.ErrorList.ToAggregate(). */
static int validate_requirement(struct label_parser *p)
{
    struct label_req *r = &p->req;
    struct sbuf all = {0};
    size_t nerr = 0;
    char path[64];

    sort_values(r);
    for (size_t i = 0;
         i < r->nvalues && (r->op == LABEL_GT || r->op == LABEL_LT); i++) {
        snprintf(path, sizeof(path), "values[%zu]", i);
        if (!parse_int64(r->values[i], &r->number))
            add_field_error(&all, &nerr, path, r->values[i],
                            "for 'Gt', 'Lt' operators, the value must be an "
                            "integer");
    }
    for (size_t i = 0; i < r->nvalues; i++) {
        struct sbuf errs = {0};
        char *vpath;

        check_label_value(r->values[i], strlen(r->values[i]), &errs);
        if (errs.len > 0) {
            vpath = xasprintf("values[%zu][%s]", i, r->key);
            add_field_error(&all, &nerr, vpath, r->values[i], errs.data);
            free(vpath);
        }
        sbuf_fini(&errs);
    }
    if (nerr > 0) {
        if (nerr > 1)
            sbuf_add(&p->err, "[");
        sbuf_add(&p->err, all.data);
        if (nerr > 1)
            sbuf_add(&p->err, "]");
    }
    sbuf_fini(&all);
    return nerr ? RW_EINVAL : RW_OK;
}

/* parseKeyAndInferOperator: [!] KEY, validated; exists / does-not-exist
 * when followed by ',' or the end.  Returns RW_OK and *done when the
 * requirement is complete. */
static int parse_key(struct label_parser *p, bool *done)
{
    const struct token *t = consume(p);
    bool not_exists = false;
    struct sbuf errs = {0};
    enum token_type next;

    if (t->type == TOK_NOT) {
        not_exists = true;
        t = consume(p);
    }
    if (as_value(t->type) != TOK_IDENT)
        return parse_fail(p, "found '%.*s', expected: identifier", t->len,
                          t->s);
    check_qualified_name(t->s, t->len, &errs);
    if (errs.len > 0) {
        /* field.Invalid(nil path, ...): the path prints as "<nil>". */
        sbuf_add(&p->err, "<nil>: Invalid value: ");
        sbuf_add_quoted(&p->err, t->s, t->len);
        sbuf_addf(&p->err, ": %s", errs.data);
        sbuf_fini(&errs);
        return RW_EINVAL;
    }
    p->req.key = xstrndup(t->s, t->len);
    next = lookahead(p)->type;
    *done = not_exists || next == TOK_END || next == TOK_COMMA;
    p->req.op = not_exists ? LABEL_NOT_EXISTS : LABEL_EXISTS;
    return RW_OK;
}

/* parseRequirement into p->req. */
static int parse_requirement(struct label_parser *p)
{
    bool done, set_based;

    if (parse_key(p, &done) != RW_OK)
        return RW_EINVAL;
    if (done)
        return RW_OK;
    if (parse_operator(p, &set_based) != RW_OK)
        return RW_EINVAL;
    if ((set_based ? parse_values(p) : parse_exact_value(p)) != RW_OK)
        return RW_EINVAL;
    return validate_requirement(p);
}

/* Moves p->req to the end of sel->labels. */
static void add_label_req(struct selector *sel, struct label_parser *p)
{
    sel->labels =
        xrealloc(sel->labels, (sel->nlabels + 1) * sizeof(*sel->labels));
    sel->labels[sel->nlabels++] = p->req;
    memset(&p->req, 0, sizeof(p->req));
}

/* The requirement loop of Parser.parse. */
static int parse_label_tokens(struct label_parser *p, struct selector *sel)
{
    for (;;) {
        const struct token *t = lookahead(p), *t2;

        switch (as_value(t->type)) {
        case TOK_IDENT:
        case TOK_NOT:
            if (parse_requirement(p) != RW_OK) {
                struct sbuf why = {0};

                sbuf_add(&why, "unable to parse requirement: ");
                sbuf_add(&why, p->err.data ? p->err.data : "");
                sbuf_fini(&p->err);
                p->err = why;
                return RW_EINVAL;
            }
            add_label_req(sel, p);
            t = consume(p);
            if (t->type == TOK_END)
                return RW_OK;
            if (t->type != TOK_COMMA)
                return parse_fail(
                    p, "found '%.*s', expected: ',' or 'end of string'", t->len,
                    t->s);
            t2 = lookahead(p);
            if (as_value(t2->type) != TOK_IDENT && t2->type != TOK_NOT)
                return parse_fail(
                    p, "found '%.*s', expected: identifier after ','", t2->len,
                    t2->s);
            break;
        case TOK_END:
            return RW_OK;
        default:
            return parse_fail(
                p,
                "found '%.*s', expected: !, identifier, or 'end of "
                "string'",
                t->len, t->s);
        }
    }
}

static int parse_labels(const char *s, struct selector *sel, struct sbuf *why)
{
    struct label_parser p = {0};
    size_t n = 0, cap = 0, pos = 0;
    int rc;

    for (;;) {
        if (n == cap) {
            cap = cap ? cap * 2 : 16;
            p.toks = xrealloc(p.toks, cap * sizeof(*p.toks));
        }
        p.toks[n] = lex_one(s, &pos);
        if (p.toks[n++].type == TOK_END)
            break;
    }
    rc = parse_label_tokens(&p, sel);
    if (rc != RW_OK)
        sbuf_add(why, p.err.data ? p.err.data : "");
    label_req_fini(&p.req);
    sbuf_fini(&p.err);
    free(p.toks);
    return rc;
}

/* ==== field selector (fields.ParseSelector + ConvertFieldLabel) ==== */

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
 * that order at each position).  Appends to sel unless it is the empty
 * term "=" that apimachinery drops.  *field gets the lhs. */
static int parse_field_term(const char *selector, const struct field_term *t,
                            struct selector *sel, char **field,
                            struct sbuf *why)
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
    sel->fields =
        xrealloc(sel->fields, (sel->nfields + 1) * sizeof(*sel->fields));
    req = &sel->fields[sel->nfields++];
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

static int parse_fields(const char *s, const struct resource_type *rt,
                        struct selector *sel, struct sbuf *why)
{
    size_t nterms, first = sel->nfields;
    struct field_term *terms = split_terms(s, &nterms);
    char **names = xcalloc(nterms, sizeof(char *));
    int rc = RW_OK;

    qsort(terms, nterms, sizeof(*terms), term_cmp);
    for (size_t i = 0; i < nterms && rc == RW_OK; i++) {
        char *name = NULL;

        if (terms[i].len == 0)
            continue;
        rc = parse_field_term(s, &terms[i], sel, &name, why);
        if (name != NULL)
            names[sel->nfields - 1 - first] = name;
    }
    /* The apiserver converts field labels once the whole selector parsed. */
    for (size_t i = first; i < sel->nfields && rc == RW_OK; i++) {
        sel->fields[i].field_id = field_id(rt, names[i - first]);
        if (sel->fields[i].field_id < 0) {
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

/* ==== public ==== */

void selector_free(struct selector *sel)
{
    if (sel == NULL)
        return;
    for (size_t i = 0; i < sel->nlabels; i++)
        label_req_fini(&sel->labels[i]);
    free(sel->labels);
    for (size_t i = 0; i < sel->nfields; i++)
        free(sel->fields[i].value);
    free(sel->fields);
    free(sel);
}

int selector_parse(const char *label_selector, const char *field_selector,
                   const struct resource_type *rt, struct selector **out,
                   char *why, size_t why_len)
{
    struct selector *sel = xcalloc(1, sizeof(*sel));
    struct sbuf msg = {0};
    int rc = RW_OK;

    *out = NULL;
    if (label_selector != NULL)
        rc = parse_labels(label_selector, sel, &msg);
    if (rc == RW_OK && field_selector != NULL)
        rc = parse_fields(field_selector, rt, sel, &msg);
    if (rc != RW_OK) {
        if (why != NULL && why_len > 0)
            snprintf(why, why_len, "%s", msg.data ? msg.data : "");
        free(msg.data);
        selector_free(sel);
        return rc;
    }
    free(msg.data);
    if (sel->nlabels == 0 && sel->nfields == 0)
        selector_free(sel);
    else
        *out = sel;
    return RW_OK;
}

static bool has_value(const struct label_req *r, const char *v)
{
    size_t lo = 0, hi = r->nvalues;

    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        int c = strcmp(r->values[mid], v);

        if (c == 0)
            return true;
        if (c < 0)
            lo = mid + 1;
        else
            hi = mid;
    }
    return false;
}

/* Requirement.Matches */
static bool label_matches(const struct label_req *r, const struct object *obj)
{
    const char *v = object_label(obj, r->key);
    int64_t n;

    switch (r->op) {
    case LABEL_IN:
        return v != NULL && has_value(r, v);
    case LABEL_NOTIN:
        return v == NULL || !has_value(r, v);
    case LABEL_EXISTS:
        return v != NULL;
    case LABEL_NOT_EXISTS:
        return v == NULL;
    case LABEL_GT:
        return v != NULL && parse_int64(v, &n) && n > r->number;
    case LABEL_LT:
        return v != NULL && parse_int64(v, &n) && n < r->number;
    }
    return false;
}

bool selector_matches(const struct selector *sel, const struct object *obj)
{
    if (sel == NULL)
        return true;
    for (size_t i = 0; i < sel->nfields; i++) {
        const struct field_req *f = &sel->fields[i];
        bool eq = strcmp(object_field(obj, f->field_id), f->value) == 0;

        if (eq == f->negate)
            return false;
    }
    for (size_t i = 0; i < sel->nlabels; i++)
        if (!label_matches(&sel->labels[i], obj))
            return false;
    return true;
}

const char *selector_field_value(const struct selector *sel, int field_id)
{
    if (sel == NULL)
        return NULL;
    for (size_t i = 0; i < sel->nfields; i++)
        if (sel->fields[i].field_id == field_id && !sel->fields[i].negate)
            return sel->fields[i].value;
    return NULL;
}
