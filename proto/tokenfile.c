/*
 * tokenfile.c: the --token-auth-file CSV reader (see tokenfile.h).  A
 * record is read field by field into growing buffers; the state is the
 * position in the text and the line number (line breaks inside quoted
 * fields count).
 */
#include "proto/tokenfile.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cache/rw.h"
#include "cache/sbuf.h"

struct csv {
    const char *p, *end;
    unsigned line;
    char *why;
    size_t why_len;
};

static int csv_fail(struct csv *c, unsigned line, const char *msg)
{
    snprintf(c->why, c->why_len, "line %u: %s", line, msg);
    return RW_EINVAL;
}

/* At a line break ("\n" or "\r\n") or the end: consumes it; true. */
static bool csv_eol(struct csv *c)
{
    if (c->p == c->end)
        return true;
    if (*c->p == '\n' ||
        (*c->p == '\r' && c->p + 1 < c->end && c->p[1] == '\n')) {
        c->p += *c->p == '\r' ? 2 : 1;
        c->line++;
        return true;
    }
    return false;
}

/* One field into f (NUL-terminated); *last: it ended the record. */
static int csv_field(struct csv *c, struct sbuf *f, bool *last)
{
    unsigned start = c->line;

    if (c->p < c->end && *c->p == '"') {
        c->p++;
        for (;;) {
            if (c->p == c->end)
                return csv_fail(c, start,
                                "extraneous or missing \" in "
                                "quoted-field");
            if (*c->p == '"' && c->p + 1 < c->end && c->p[1] == '"') {
                sbuf_addn(f, "\"", 1);
                c->p += 2;
            } else if (*c->p == '"') {
                c->p++;
                break;
            } else if (*c->p == '\r' && c->p + 1 < c->end && c->p[1] == '\n') {
                sbuf_addn(f, "\n", 1); /* Go: \r\n in a quoted field is \n */
                c->p += 2;
                c->line++;
            } else {
                if (*c->p == '\n')
                    c->line++;
                if (*c->p == '\0')
                    return csv_fail(c, c->line, "NUL byte");
                sbuf_addn(f, c->p++, 1);
            }
        }
        if (c->p < c->end && *c->p == ',') {
            c->p++;
            *last = false;
        } else if (csv_eol(c)) {
            *last = true;
        } else {
            return csv_fail(c, c->line,
                            "extraneous or missing \" in "
                            "quoted-field");
        }
        sbuf_addn(f, "", 0);
        return RW_OK;
    }
    for (;;) {
        if (c->p < c->end && *c->p == ',') {
            c->p++;
            *last = false;
            break;
        }
        if (csv_eol(c)) {
            *last = true;
            break;
        }
        if (*c->p == '"')
            return csv_fail(c, c->line, "bare \" in non-quoted-field");
        if (*c->p == '\0')
            return csv_fail(c, c->line, "NUL byte");
        sbuf_addn(f, c->p++, 1);
    }
    sbuf_addn(f, "", 0);
    return RW_OK;
}

/* Splits groups at commas, dropping empty names. */
static void row_groups(struct tokenfile_row *row, const char *text)
{
    char *copy = xstrdup(text), *save = NULL;

    for (char *g = strtok_r(copy, ",", &save); g != NULL;
         g = strtok_r(NULL, ",", &save)) {
        row->groups =
            xrealloc(row->groups, (row->ngroups + 1) * sizeof(char *));
        row->groups[row->ngroups++] = xstrdup(g);
    }
    free(copy);
}

/* One record (the line is not blank) into out->rows. */
static int csv_record(struct csv *c, struct tokenfile *out)
{
    struct sbuf fields[4] = {{0}};
    struct sbuf extra = {0};
    struct tokenfile_row row = {.line = c->line};
    size_t n = 0;
    bool last = false;
    int rc = RW_OK;

    while (!last && rc == RW_OK) {
        struct sbuf *f = n < 4 ? &fields[n] : &extra;

        extra.len = 0;
        if ((rc = csv_field(c, f, &last)) == RW_OK)
            n++;
    }
    if (rc == RW_OK && n < 3) {
        snprintf(c->why, c->why_len,
                 "line %u: must have at least 3 columns (token, user name, "
                 "user uid), found %zu",
                 row.line, n);
        rc = RW_EINVAL;
    } else if (rc == RW_OK && fields[0].len > 0 && fields[1].len == 0) {
        snprintf(c->why, c->why_len, "line %u: empty user name", row.line);
        rc = RW_EINVAL;
    }
    if (rc == RW_OK) {
        row.token = xstrdup(fields[0].data);
        row.user = xstrdup(fields[1].data);
        row.uid = xstrdup(fields[2].data);
        if (n >= 4)
            row_groups(&row, fields[3].data);
        out->rows = xrealloc(out->rows, (out->n + 1) * sizeof(row));
        out->rows[out->n++] = row;
    }
    for (size_t i = 0; i < 4; i++)
        sbuf_fini(&fields[i]);
    sbuf_fini(&extra);
    return rc;
}

int tokenfile_parse(const char *text, size_t len, struct tokenfile *out,
                    char *why, size_t why_len)
{
    struct csv c = {text, text + len, 1, why, why_len};

    memset(out, 0, sizeof(*out));
    while (c.p < c.end) {
        if (csv_eol(&c))
            continue; /* a blank line */
        if (csv_record(&c, out) != RW_OK) {
            tokenfile_fini(out);
            return RW_EINVAL;
        }
    }
    return RW_OK;
}

void tokenfile_fini(struct tokenfile *tf)
{
    for (size_t i = 0; i < tf->n; i++) {
        struct tokenfile_row *r = &tf->rows[i];

        free(r->token);
        free(r->user);
        free(r->uid);
        for (size_t g = 0; g < r->ngroups; g++)
            free(r->groups[g]);
        free(r->groups);
    }
    free(tf->rows);
    memset(tf, 0, sizeof(*tf));
}
