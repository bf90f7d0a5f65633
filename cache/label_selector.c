/*
 * label_selector.c: the label selector parser (see label_selector.h), as
 * k8s.io/apimachinery labels.Parse: a lexer that reads the whole string into
 * tokens, then a recursive-descent parser with one token of lookahead, then
 * NewRequirement's validation of keys and values (cache/validation.c).
 * Error messages are the apiserver's, byte for byte where we know them.
 *
 * Data structure: each requirement owns its key and values; the values of
 * in/notin are kept sorted and unique (apimachinery's sets.String) so that
 * the matcher can binary-search them; gt/lt keep their integer.
 */
#include "cache/label_selector.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cache/rw.h"
#include "cache/sbuf.h"
#include "cache/validation.h"

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
        if (!label_selector_int64(r->values[i], &r->number))
            add_field_error(&all, &nerr, path, r->values[i],
                            "for 'Gt', 'Lt' operators, the value must be an "
                            "integer");
    }
    for (size_t i = 0; i < r->nvalues; i++) {
        struct sbuf errs = {0};
        char *vpath;

        validation_label_value(r->values[i], strlen(r->values[i]), &errs);
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
    validation_qualified_name(t->s, t->len, &errs);
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

/* Moves p->req to the end of the array *reqs of *nreqs. */
static void add_label_req(struct label_parser *p, struct label_req **reqs,
                          size_t *nreqs)
{
    *reqs = xrealloc(*reqs, (*nreqs + 1) * sizeof(**reqs));
    (*reqs)[(*nreqs)++] = p->req;
    memset(&p->req, 0, sizeof(p->req));
}

/* The requirement loop of Parser.parse. */
static int parse_label_tokens(struct label_parser *p, struct label_req **reqs,
                              size_t *nreqs)
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
            add_label_req(p, reqs, nreqs);
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

int label_selector_parse(const char *s, struct label_req **reqs, size_t *nreqs,
                         struct sbuf *why)
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
    rc = parse_label_tokens(&p, reqs, nreqs);
    if (rc != RW_OK)
        sbuf_add(why, p.err.data ? p.err.data : "");
    label_req_fini(&p.req);
    sbuf_fini(&p.err);
    free(p.toks);
    return rc;
}

void label_selector_free(struct label_req *reqs, size_t nreqs)
{
    for (size_t i = 0; i < nreqs; i++)
        label_req_fini(&reqs[i]);
    free(reqs);
}
