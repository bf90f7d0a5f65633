/*
 * h1_head.c: strict HTTP/1.1 request syntax (see h1_head.h).
 *
 * h1_head_parse walks the head line by line (a line ends at LF, a CR
 * right before it is dropped, any other CR is invalid); the request line
 * and each field line are checked against the grammar of RFC 9112 3 and
 * 5 and RFC 9110 5.5-5.6, and the few fields that decide how the message
 * is framed (Host, Content-Length, Transfer-Encoding) are remembered.
 * h1_head_chunked_feed is a byte-at-a-time state machine over a chunked body,
 * so that a body may arrive in any number of pieces.
 */
#include "src/h1_head.h"

#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include <strings.h>

#include <event2/buffer.h>

#include "cache/rw.h"
#include "proto/query.h"

#define CHUNK_LINE_MAX 1024
#define CHUNK_SIZE_MAX ((uint64_t)1 << 60)
#define LENGTH_MAX ((uint64_t)1 << 63)

/* Writes why and returns status. */
static int refuse(int status, char *why, size_t why_len, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));

static int refuse(int status, char *why, size_t why_len, const char *fmt, ...)
{
    va_list ap;

    if (why_len > 0) {
        va_start(ap, fmt);
        vsnprintf(why, why_len, fmt, ap);
        va_end(ap);
    }
    return status;
}

/* ---- character classes (RFC 9110 5.6.2, 5.5) ---- */

static bool is_tchar(unsigned char ch)
{
    return (ch >= '0' && ch <= '9') || (ch >= 'a' && ch <= 'z') ||
           (ch >= 'A' && ch <= 'Z') ||
           (ch != '\0' && strchr("!#$%&'*+-.^_`|~", ch) != NULL);
}

static bool is_vchar(unsigned char ch)
{
    return ch >= 0x21 && ch <= 0x7e;
}

/* field-vchar, SP or HTAB: what a field value may hold. */
static bool is_value_char(unsigned char ch)
{
    return is_vchar(ch) || ch >= 0x80 || ch == ' ' || ch == '\t';
}

static bool is_ows(unsigned char ch)
{
    return ch == ' ' || ch == '\t';
}

/* uri-host [":" port]: unreserved, pct-encoded, sub-delims, ":" and the
 * brackets of an IP-literal (RFC 3986 3.2.2). */
static bool is_host_char(unsigned char ch)
{
    return (ch >= '0' && ch <= '9') || (ch >= 'a' && ch <= 'z') ||
           (ch >= 'A' && ch <= 'Z') ||
           (ch != '\0' && strchr("-._~%!$&'()*+,;=:[]", ch) != NULL);
}

/* ---- lines ---- */

struct line {
    const char *p;
    size_t len; /* without CR LF */
};

/* The next line of [*at, end) into *l; false at the end (no LF). */
static bool next_line(const char **at, const char *end, struct line *l)
{
    const char *lf = memchr(*at, '\n', (size_t)(end - *at));

    if (lf == NULL)
        return false;
    l->p = *at;
    l->len = (size_t)(lf - *at);
    if (l->len > 0 && l->p[l->len - 1] == '\r')
        l->len--;
    *at = lf + 1;
    return true;
}

/* ---- the request line (RFC 9112 3) ---- */

static size_t span(const struct line *l, size_t from, bool (*ok)(unsigned char))
{
    size_t i = from;

    while (i < l->len && ok((unsigned char)l->p[i]))
        i++;
    return i;
}

/* Percent escapes in the target's path (what precedes '?', all of an
 * absolute-form target's scheme, authority and path): each "%" followed
 * by two hex digits, as Go's url.ParseRequestURI wants.  The query is
 * not checked: Go keeps it raw, and so does ringwatch until it parses
 * it. */
static bool target_escapes_ok(const char *t, size_t tlen)
{
    const char *q = memchr(t, '?', tlen);

    return query_escapes_valid(t, q != NULL ? (size_t)(q - t) : tlen);
}

/* Origin-form, absolute-form, authority-form (CONNECT only) or
 * asterisk-form (OPTIONS only), as RFC 9112 3.2 permits. */
static bool target_form_ok(const char *m, size_t mlen, const char *t,
                           size_t tlen)
{
    size_t i = 0;

    if (t[0] == '/')
        return !(mlen == 7 && memcmp(m, "CONNECT", 7) == 0);
    if (tlen == 1 && t[0] == '*')
        return mlen == 7 && memcmp(m, "OPTIONS", 7) == 0;
    if (mlen == 7 && memcmp(m, "CONNECT", 7) == 0)
        return memchr(t, '/', tlen) == NULL && memchr(t, ':', tlen) != NULL;
    /* absolute-form: scheme "://" ... */
    while (i < tlen &&
           ((t[i] >= 'a' && t[i] <= 'z') || (t[i] >= 'A' && t[i] <= 'Z') ||
            (i > 0 && ((t[i] >= '0' && t[i] <= '9') || t[i] == '+' ||
                       t[i] == '-' || t[i] == '.'))))
        i++;
    return i > 0 && tlen - i > 3 && memcmp(t + i, "://", 3) == 0;
}

static int request_line(const struct line *l, struct h1_head *h, char *why,
                        size_t why_len)
{
    size_t m_end = span(l, 0, is_tchar), t_end, v_len;
    const char *v;

    if (m_end == 0 || m_end == l->len)
        return refuse(400, why, why_len,
                      "malformed request line: no method and target");
    if (l->p[m_end] != ' ')
        return refuse(400, why, why_len,
                      "invalid character 0x%02x in the method",
                      (unsigned char)l->p[m_end]);
    t_end = span(l, m_end + 1, is_vchar);
    if (t_end == m_end + 1 && t_end < l->len && l->p[t_end] == ' ')
        return refuse(400, why, why_len,
                      "malformed request line: more than one space after "
                      "the method");
    if (t_end == m_end + 1)
        return refuse(400, why, why_len,
                      "malformed request line: no request target");
    if (t_end == l->len)
        return refuse(400, why, why_len,
                      "malformed request line: no HTTP version (HTTP/0.9 is "
                      "not supported)");
    if (l->p[t_end] != ' ')
        return refuse(400, why, why_len,
                      "invalid character 0x%02x in the request target",
                      (unsigned char)l->p[t_end]);
    v = l->p + t_end + 1;
    v_len = l->len - t_end - 1;
    if (v_len != 8 || memcmp(v, "HTTP/", 5) != 0 || v[5] < '0' || v[5] > '9' ||
        v[6] != '.' || v[7] < '0' || v[7] > '9')
        return refuse(400, why, why_len,
                      "malformed HTTP version \"%.*s\" (HTTP/DIGIT.DIGIT "
                      "after a single space)",
                      (int)(v_len > 16 ? 16 : v_len), v);
    if (v[5] != '1')
        return refuse(505, why, why_len,
                      "HTTP version %.8s is not supported: HTTP/1.x as text, "
                      "HTTP/2 with prior knowledge (its connection preface)",
                      v);
    if (!target_form_ok(l->p, m_end, l->p + m_end + 1, t_end - m_end - 1))
        return refuse(400, why, why_len,
                      "request target \"%.*s\" is not in a form the method "
                      "allows",
                      (int)(t_end - m_end - 1 > 64 ? 64 : t_end - m_end - 1),
                      l->p + m_end + 1);
    if (!target_escapes_ok(l->p + m_end + 1, t_end - m_end - 1))
        return refuse(400, why, why_len,
                      "invalid URL escape in the request target \"%.*s\"",
                      (int)(t_end - m_end - 1 > 64 ? 64 : t_end - m_end - 1),
                      l->p + m_end + 1);
    h->version = v[7] == '0' ? 10 : 11;
    return 0;
}

/* The request line at the start of [p, p + len): checked into h (its
 * version), or the status to refuse it with. */
static int check_request_line(const char *p, size_t len, struct h1_head *h,
                              char *why, size_t why_len)
{
    const char *at = p;
    struct line l;

    if (!next_line(&at, p + len, &l))
        return refuse(400, why, why_len, "incomplete request head");
    if (memchr(l.p, '\r', l.len) != NULL)
        return refuse(400, why, why_len, "CR without LF in the request line");
    return request_line(&l, h, why, why_len);
}

/* ---- field lines (RFC 9112 5, RFC 9110 5.5) ---- */

struct fields {
    int hosts;
    int lengths;
    bool chunked;       /* chunked seen */
    bool after_chunked; /* a coding after chunked */
    bool twice;         /* chunked more than once */
    const char *other;  /* a coding other than chunked */
    size_t other_len;
};

static bool name_is(const struct line *l, size_t name_len, const char *want)
{
    return strlen(want) == name_len && strncasecmp(l->p, want, name_len) == 0;
}

/* Checks one field line's syntax; *name_len and the value (OWS
 * trimmed) out. */
static int field_syntax(const struct line *l, size_t *name_len,
                        const char **value, size_t *value_len, char *why,
                        size_t why_len)
{
    size_t n = span(l, 0, is_tchar), v, e;

    if (l->len > 0 && is_ows((unsigned char)l->p[0]))
        return refuse(400, why, why_len,
                      "a line starts with whitespace (obsolete line folding "
                      "is not accepted, RFC 9112 5.2)");
    if (n == l->len)
        return refuse(400, why, why_len, "field line \"%.*s\" without a colon",
                      (int)(n > 64 ? 64 : n), l->p);
    if (n == 0)
        return refuse(400, why, why_len, "field line without a name");
    if (l->p[n] != ':')
        return refuse(400, why, why_len,
                      is_ows((unsigned char)l->p[n])
                          ? "whitespace in the name of field \"%.*s\" or "
                            "before its colon"
                          : "invalid character in the name of field \"%.*s\"",
                      (int)(n > 64 ? 64 : n), l->p);
    for (v = n + 1; v < l->len; v++)
        if (!is_value_char((unsigned char)l->p[v]))
            return refuse(400, why, why_len,
                          "invalid character 0x%02x in the value of field "
                          "\"%.*s\"",
                          (unsigned char)l->p[v], (int)(n > 64 ? 64 : n), l->p);
    for (v = n + 1; v < l->len && is_ows((unsigned char)l->p[v]); v++)
        ;
    for (e = l->len; e > v && is_ows((unsigned char)l->p[e - 1]); e--)
        ;
    *name_len = n;
    *value = l->p + v;
    *value_len = e - v;
    return 0;
}

static int content_length(const char *v, size_t len, struct h1_head *h,
                          struct fields *f, char *why, size_t why_len)
{
    uint64_t n = 0;

    if (++f->lengths > 1)
        return refuse(400, why, why_len, "more than one Content-Length");
    if (len == 0)
        return refuse(400, why, why_len, "empty Content-Length");
    for (size_t i = 0; i < len; i++) {
        if (v[i] < '0' || v[i] > '9')
            return refuse(400, why, why_len,
                          "Content-Length \"%.*s\" is not a number of bytes",
                          (int)(len > 32 ? 32 : len), v);
        if (n > (LENGTH_MAX - 9) / 10)
            return refuse(400, why, why_len, "Content-Length out of range");
        n = n * 10 + (uint64_t)(v[i] - '0');
    }
    h->content_length = n;
    return 0;
}

/* Transfer-Encoding's list of codings (RFC 9112 6.1, RFC 9110 5.6.1),
 * across every field line of it. */
static void transfer_encoding(const char *v, size_t len, struct fields *f)
{
    size_t i = 0;

    while (i < len) {
        size_t start, end;
        bool params, chunked;

        while (i < len && (is_ows((unsigned char)v[i]) || v[i] == ','))
            i++;
        start = i;
        while (i < len && is_tchar((unsigned char)v[i]))
            i++;
        end = i;
        while (i < len && is_ows((unsigned char)v[i]))
            i++;
        params = i < len && v[i] != ',';
        while (i < len && v[i] != ',') /* parameters, or not a token */
            i++;
        if (end == start && i == start)
            continue;
        if (f->chunked)
            f->after_chunked = true;
        chunked = end - start == 7 && strncasecmp(v + start, "chunked", 7) == 0;
        if (chunked) {
            f->twice = f->twice || f->chunked;
            f->chunked = true;
        }
        /* chunked has no parameters (RFC 9112 7.1): with some, it is a
         * coding ringwatch does not implement, as Go's server says */
        if ((!chunked || params) && f->other == NULL) {
            f->other = v + start;
            f->other_len = i - start;
        }
    }
}

static int field_line(const struct line *l, struct h1_head *h, struct fields *f,
                      char *why, size_t why_len)
{
    size_t name_len = 0, len = 0;
    const char *v = NULL;
    int rc = field_syntax(l, &name_len, &v, &len, why, why_len);

    if (rc != 0)
        return rc;
    if (name_is(l, name_len, "host")) {
        f->hosts++;
        for (size_t i = 0; i < len; i++)
            if (!is_host_char((unsigned char)v[i]))
                return refuse(400, why, why_len,
                              "invalid Host \"%.*s\" (uri-host[:port])",
                              (int)(len > 64 ? 64 : len), v);
    } else if (name_is(l, name_len, "content-length")) {
        return content_length(v, len, h, f, why, why_len);
    } else if (name_is(l, name_len, "transfer-encoding")) {
        transfer_encoding(v, len, f);
        if (!f->chunked && f->other == NULL)
            return refuse(400, why, why_len, "empty Transfer-Encoding");
    }
    return 0;
}

/* What the fields together say about the framing (RFC 9112 3.2, 6). */
static int framing(struct h1_head *h, const struct fields *f, char *why,
                   size_t why_len)
{
    bool te = f->chunked || f->other != NULL;

    if (f->hosts > 1)
        return refuse(400, why, why_len, "more than one Host");
    if (f->hosts == 0 && h->version >= 11)
        return refuse(400, why, why_len, "HTTP/1.1 request without Host");
    if (te && h->version < 11)
        return refuse(400, why, why_len, "Transfer-Encoding in HTTP/1.0");
    if (te && f->lengths > 0)
        return refuse(400, why, why_len,
                      "both Content-Length and Transfer-Encoding");
    if (f->twice)
        return refuse(400, why, why_len, "chunked applied more than once");
    if (te && (!f->chunked || f->after_chunked))
        return refuse(400, why, why_len,
                      "chunked is not the final transfer coding");
    if (f->other != NULL)
        return refuse(501, why, why_len,
                      "transfer coding \"%.*s\" is not implemented (chunked "
                      "only)",
                      (int)(f->other_len > 32 ? 32 : f->other_len), f->other);
    h->framing = f->chunked                                ? H1_FRAMING_CHUNKED
                 : f->lengths > 0 && h->content_length > 0 ? H1_FRAMING_LENGTH
                                                           : H1_FRAMING_NONE;
    return 0;
}

int h1_head_parse(const char *p, size_t len, struct h1_head *head, char *why,
                  size_t why_len)
{
    const char *at = p, *end = p + len;
    struct fields f = {0};
    struct line l;
    int rc;

    memset(head, 0, sizeof(*head));
    if ((rc = check_request_line(p, len, head, why, why_len)) != 0)
        return rc;
    next_line(&at, end, &l); /* (the request line) */
    while (next_line(&at, end, &l) && l.len > 0) {
        if (memchr(l.p, '\r', l.len) != NULL)
            return refuse(400, why, why_len, "CR without LF in a field line");
        if ((rc = field_line(&l, head, &f, why, why_len)) != 0)
            return rc;
    }
    if (l.len > 0 || at != end)
        return refuse(400, why, why_len,
                      "request head does not end with an "
                      "empty line");
    return framing(head, &f, why, why_len);
}

/* ---- chunked bodies (RFC 9112 7.1) ---- */

enum chunk_state {
    CH_SIZE_FIRST, /* the first hex digit of a chunk-size */
    CH_SIZE,       /* more hex digits */
    CH_SIZE_BWS,   /* whitespace after the size: ";" must follow */
    CH_EXT,        /* chunk extensions, up to CR */
    CH_SIZE_LF,    /* CR seen, LF due */
    CH_DATA,
    CH_DATA_CR, /* CR due after the data */
    CH_DATA_LF,
    CH_TRAILER_START, /* a trailer line (or the empty line) begins */
    CH_TRAILER_NAME,
    CH_TRAILER_VALUE,
    CH_TRAILER_LF, /* CR of a trailer line seen */
    CH_END_LF,     /* CR of the empty line seen */
};

/* One byte of a chunk-size line; RW_EINVAL and why if it is not allowed. */
static int chunk_size_byte(struct h1_chunked *ch, unsigned char c, char *why,
                           size_t why_len)
{
    int d = rw_hex_digit((char)c);

    if (++ch->line_bytes > CHUNK_LINE_MAX)
        return refuse(RW_EINVAL, why, why_len,
                      "chunk-size line longer than %d bytes", CHUNK_LINE_MAX);
    switch (ch->state) {
    case CH_SIZE_FIRST:
    case CH_SIZE:
        if (d >= 0) {
            if (ch->left >= CHUNK_SIZE_MAX >> 4)
                return refuse(RW_EINVAL, why, why_len,
                              "chunk size out of range");
            ch->left = ch->left * 16 + (uint64_t)d;
            ch->state = CH_SIZE;
            return 0;
        }
        if (ch->state == CH_SIZE_FIRST)
            return refuse(RW_EINVAL, why, why_len,
                          "invalid chunk size (0x%02x where a hex digit is "
                          "due)",
                          c);
        /* what may follow the digits: */
        /* fall through */
    case CH_SIZE_BWS:
        if (c == ';')
            ch->state = CH_EXT;
        else if (is_ows(c))
            ch->state = CH_SIZE_BWS;
        else if (c == '\r' && ch->state == CH_SIZE)
            ch->state = CH_SIZE_LF;
        else
            return refuse(RW_EINVAL, why, why_len,
                          "invalid character 0x%02x after the chunk size", c);
        return 0;
    case CH_EXT:
        if (c == '\r')
            ch->state = CH_SIZE_LF;
        else if (!is_value_char(c))
            return refuse(RW_EINVAL, why, why_len,
                          "invalid character 0x%02x in a chunk extension", c);
        return 0;
    default: /* CH_SIZE_LF */
        if (c != '\n')
            return refuse(RW_EINVAL, why, why_len,
                          "chunk-size line without CRLF");
        ch->line_bytes = 0;
        ch->state = ch->left > 0 ? CH_DATA : CH_TRAILER_START;
        return 0;
    }
}

/* One byte of the trailer section (field lines, then an empty line). */
static int chunk_trailer_byte(struct h1_chunked *ch, unsigned char c,
                              size_t max_trailer, char *why, size_t why_len)
{
    if (++ch->trailer_bytes > max_trailer)
        return refuse(RW_EINVAL, why, why_len,
                      "trailer section longer than %zu bytes", max_trailer);
    switch (ch->state) {
    case CH_TRAILER_START:
        if (c == '\r')
            ch->state = CH_END_LF;
        else if (is_tchar(c))
            ch->state = CH_TRAILER_NAME;
        else
            return refuse(RW_EINVAL, why, why_len,
                          "invalid character 0x%02x at the start of a "
                          "trailer field",
                          c);
        return 0;
    case CH_TRAILER_NAME:
        if (c == ':')
            ch->state = CH_TRAILER_VALUE;
        else if (!is_tchar(c))
            return refuse(RW_EINVAL, why, why_len,
                          "invalid character 0x%02x in a trailer field name",
                          c);
        return 0;
    case CH_TRAILER_VALUE:
        if (c == '\r')
            ch->state = CH_TRAILER_LF;
        else if (!is_value_char(c))
            return refuse(RW_EINVAL, why, why_len,
                          "invalid character 0x%02x in a trailer field value",
                          c);
        return 0;
    case CH_TRAILER_LF:
        if (c != '\n')
            return refuse(RW_EINVAL, why, why_len, "trailer line without CRLF");
        ch->state = CH_TRAILER_START;
        return 0;
    default: /* CH_END_LF */
        if (c != '\n')
            return refuse(RW_EINVAL, why, why_len,
                          "chunked body without its final "
                          "CRLF");
        ch->done = true;
        return 0;
    }
}

long h1_head_chunked_feed(struct h1_chunked *ch, const char *p, size_t len,
                          size_t max_trailer, char *why, size_t why_len)
{
    size_t i = 0;

    while (i < len && !ch->done) {
        unsigned char c = (unsigned char)p[i];
        int rc = 0;

        if (ch->state == CH_DATA) {
            if (ch->stop_at_data)
                break;
            size_t take = ch->left < len - i ? (size_t)ch->left : len - i;

            ch->left -= take;
            ch->data += take;
            i += take;
            if (ch->left == 0)
                ch->state = CH_DATA_CR;
            continue;
        }
        if (ch->state == CH_DATA_CR || ch->state == CH_DATA_LF) {
            if (c != (ch->state == CH_DATA_CR ? '\r' : '\n'))
                return refuse(RW_EINVAL, why, why_len,
                              "chunk data not followed by CRLF");
            ch->state = ch->state == CH_DATA_CR ? CH_DATA_LF : CH_SIZE_FIRST;
        } else if (ch->state >= CH_TRAILER_START) {
            rc = chunk_trailer_byte(ch, c, max_trailer, why, why_len);
        } else {
            rc = chunk_size_byte(ch, c, why, why_len);
        }
        if (rc < 0)
            return RW_EINVAL;
        i++;
    }
    return (long)i;
}

/* ---- reading requests from a connection's input ---- */

/* The byte at off of in (0 beyond its end). */
static char byte_at(struct evbuffer *in, size_t off)
{
    struct evbuffer_ptr at;
    char ch = 0;

    if (evbuffer_ptr_set(in, &at, off, EVBUFFER_PTR_SET) == 0)
        evbuffer_copyout_from(in, &at, &ch, 1);
    return ch;
}

/* The request line, of len bytes at the front of in, has ended: it is
 * checked at once, as Go's server reads and parses it before the fields
 * (a request line alone, as HTTP/0.9 sends it, is refused without
 * waiting for more).  Returns 0 or the status to refuse it with; one
 * longer than max_head is left to the 414 check. */
static int request_line_in(struct h1_reader *r, struct evbuffer *in, size_t len,
                           size_t max_head, char *why, size_t why_len)
{
    r->line1 = len;
    if (len > max_head)
        return 0;
    return check_request_line((const char *)evbuffer_pullup(in, (ssize_t)len),
                              len, &r->head, why, why_len);
}

long h1_head_reader_head(struct h1_reader *r, struct evbuffer *in,
                         size_t max_head, int *status, char *why,
                         size_t why_len)
{
    struct evbuffer_ptr at;
    size_t end = 0, line;

    while (end == 0 && r->scanned < evbuffer_get_length(in) &&
           evbuffer_ptr_set(in, &at, r->scanned, EVBUFFER_PTR_SET) == 0) {
        at = evbuffer_search(in, "\n", 1, &at);
        if (at.pos < 0) {
            r->scanned = evbuffer_get_length(in);
            break;
        }
        line = (size_t)at.pos - r->line_start;
        if (line > 1 || (line == 1 && byte_at(in, r->line_start) != '\r')) {
            if (r->line1 == 0 &&
                (*status = request_line_in(r, in, (size_t)at.pos + 1, max_head,
                                           why, why_len)) != 0)
                return RW_EINVAL;
            r->line_start = r->scanned = (size_t)at.pos + 1;
        } else if (r->line_start > 0) {
            end = (size_t)at.pos + 1;
        } else {
            evbuffer_drain(in, (size_t)at.pos + 1); /* before the request */
            r->scanned = 0;
        }
    }
    if ((r->line1 == 0 ? r->scanned : r->line1) > max_head) {
        *status = refuse(414, why, why_len,
                         "Request line too long: limit is %zu bytes", max_head);
        return RW_EINVAL;
    }
    if ((end > 0 ? end : r->scanned) > max_head) {
        *status = refuse(431, why, why_len,
                         "Request header fields too large: limit is %zu bytes",
                         max_head);
        return RW_EINVAL;
    }
    return (long)end;
}

void h1_head_reader_head_done(struct h1_reader *r, struct evbuffer *in,
                              size_t len)
{
    evbuffer_drain(in, len);
    r->head_done = true;
    r->body_left = r->head.content_length;
}

/* Whether the body still has bytes due. */
static bool body_due(const struct h1_reader *r)
{
    if (r->head.framing == H1_FRAMING_LENGTH)
        return r->body_left > 0;
    return r->head.framing == H1_FRAMING_CHUNKED && !r->chunked.done;
}

/* Takes n bytes of data from the front of in, into keep (NULL: dropped). */
static void body_take(struct evbuffer *in, struct evbuffer *keep, size_t n)
{
    if (keep != NULL)
        evbuffer_remove_buffer(in, keep, n);
    else
        evbuffer_drain(in, n);
}

int h1_head_reader_body(struct h1_reader *r, struct evbuffer *in,
                        struct evbuffer *keep, size_t max_trailer,
                        uint64_t max_body, int *status, char *why,
                        size_t why_len)
{
    struct h1_chunked *ch = &r->chunked;
    struct evbuffer_iovec v;
    long n;

    if (r->head.framing == H1_FRAMING_LENGTH && r->body_left > max_body)
        goto too_large;
    ch->stop_at_data = true;
    while (body_due(r)) {
        if (evbuffer_peek(in, -1, NULL, &v, 1) < 1 || v.iov_len == 0)
            return 0;
        if (r->head.framing == H1_FRAMING_LENGTH) {
            n = (long)(v.iov_len < r->body_left ? v.iov_len : r->body_left);
            r->body_left -= (uint64_t)n;
            body_take(in, keep, (size_t)n);
        } else if (ch->state == CH_DATA) {
            n = (long)(v.iov_len < ch->left ? v.iov_len : ch->left);
            ch->left -= (uint64_t)n;
            ch->data += (uint64_t)n;
            if (ch->left == 0)
                ch->state = CH_DATA_CR;
            body_take(in, keep, (size_t)n);
        } else if ((n = h1_head_chunked_feed(ch, v.iov_base, v.iov_len,
                                             max_trailer, why, why_len)) < 0) {
            *status = 400;
            return RW_EINVAL;
        } else {
            evbuffer_drain(in, (size_t)n);
            /* a chunk larger than the limit is refused before its data */
            if (ch->state == CH_DATA && ch->data + ch->left > max_body)
                goto too_large;
        }
    }
    return H1_READER_DONE;
too_large:
    *status = refuse(413, why, why_len,
                     "Request entity too large: limit is %llu",
                     (unsigned long long)max_body);
    return RW_EINVAL;
}
