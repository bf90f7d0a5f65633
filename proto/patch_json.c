/*
 * patch_json.c: RFC 6902 JSON Patch (see patch_json.h), operation by
 * operation on the document as evanphx/json-patch v4 (the version
 * kube-apiserver links) applies them, whose observable rules are kept:
 *
 *  - a pointer's first token (before the first '/') is ignored, tokens are
 *    decoded ~1 then ~0 in one pass; "" addresses the whole document for
 *    replace and test only;
 *  - array indices are Go's strconv.Atoi ("+1" and "-1" included), negative
 *    ones counting from the end; "-" appends (add only);
 *  - replace of an absent object member adds it; copy of an absent member
 *    copies null; add and copy without "value" add null; test of an absent
 *    member passes against null;
 *  - an unknown or missing "op" fails ("Unexpected kind: unknown").
 *
 * The error texts are evanphx's (pkg/errors' "context: cause" wrapping),
 * kept in patch_error.detail: the apiserver's Status carries a fixed
 * message.  The copies' accumulated size is bounded (COPY_LIMIT) so that a
 * patch of repeated copies cannot double the object 10000 times.
 */
#include "proto/patch_json.h"

#include <errno.h>
#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cache/rw.h"
#include "proto/jval_edit.h"

/* The apiserver's maxJSONPatchOperations. */
#define MAX_OPS 10000
/* Bytes that copy operations may add in total: the apiserver's request
 * body limit (3 MiB), as its etcd object size limit would refuse more. */
#define COPY_LIMIT (3 * 1024 * 1024)

#define MISSING ": missing value"
#define INVALID_INDEX ": invalid index referenced"

/* One operation's context: the document root and where the error text
 * goes. */
struct op_ctx {
    struct jval **doc;
    const struct jval *op;
    char *why;
    size_t why_size;
    size_t copied;
};

static int op_fail(struct op_ctx *c, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));

static int op_fail(struct op_ctx *c, const char *fmt, ...)
{
    va_list ap;

    va_start(ap, fmt);
    vsnprintf(c->why, c->why_size, fmt, ap);
    va_end(ap);
    return RW_EINVAL;
}

/* RFC 6901 token decoding as a strings.NewReplacer("~1", "/", "~0", "~"):
 * one pass, left to right.  n bytes at s; malloc'd. */
static char *decode_token(const char *s, size_t n)
{
    char *out = xmalloc(n + 1), *w = out;

    for (size_t i = 0; i < n; i++) {
        if (s[i] == '~' && i + 1 < n && (s[i + 1] == '0' || s[i + 1] == '1')) {
            *w++ = s[i + 1] == '1' ? '/' : '~';
            i++;
        } else {
            *w++ = s[i];
        }
    }
    *w = '\0';
    return out;
}

/* Go's strconv.Atoi: an optional sign and decimal digits, in range. */
static bool parse_index(const char *s, long long *idx)
{
    const char *d = s + (*s == '+' || *s == '-');
    char *end;

    errno = 0;
    if (*d < '0' || *d > '9' || strspn(d, "0123456789") != strlen(d))
        return false;
    *idx = strtoll(s, &end, 10);
    return errno == 0;
}

/* The index token key of an array of len elements, as partialArray's get
 * (negative counting from the end); -1 with the error text set when it is
 * not one.  extra is 1 for add (one past the end allowed). */
static long long array_index(struct op_ctx *c, const char *key, size_t len,
                             size_t extra, const char *ctx)
{
    long long idx, n = (long long)(len + extra);

    if (!parse_index(key, &idx)) {
        op_fail(c, "%sstrconv.Atoi: parsing \"%s\": %s", ctx, key,
                errno == ERANGE ? "value out of range" : "invalid syntax");
        return -1;
    }
    if (idx >= n || idx < -n) {
        op_fail(c, "%sUnable to access invalid index: %lld" INVALID_INDEX,
                ctx, idx);
        return -1;
    }
    return idx < 0 ? idx + n : idx;
}

/* A container's child named by a decoded token, as partialDoc's and
 * partialArray's get: NULL without an error for an absent or null object
 * member; NULL with the error text for a bad array index. */
static const struct jval *child_of(struct op_ctx *c, const struct jval *con,
                                   const char *key, const char *ctx,
                                   bool *bad)
{
    const struct jval *v;
    long long i;

    *bad = false;
    if (jval_type(con) == JVAL_OBJECT) {
        v = jval_member(con, key, strlen(key));
        return jval_type(v) == JVAL_NULL ? NULL : v;
    }
    i = array_index(c, key, jval_count(con), 0, ctx);
    *bad = i < 0;
    return i < 0 ? NULL : jval_at(con, (size_t)i);
}

/* findObject: the container of path's last token, whose decoded text goes
 * to *key (malloc'd); NULL when a token before it does not name an object
 * or an array. */
static struct jval *find_container(struct op_ctx *c, const char *path,
                                   char **key)
{
    const char *p = strchr(path, '/'), *slash;
    const struct jval *con = *c->doc;
    char *why = c->why;

    *key = NULL;
    if (p == NULL)
        return NULL;
    for (p++; (slash = strchr(p, '/')) != NULL; p = slash + 1) {
        char *tok = decode_token(p, (size_t)(slash - p));
        bool bad;

        con = child_of(c, con, tok, "", &bad);
        free(tok);
        if (jval_type(con) != JVAL_OBJECT && jval_type(con) != JVAL_ARRAY) {
            *why = '\0';
            return NULL;
        }
    }
    *key = decode_token(p, strlen(p));
    return jval_edit_mut(con);
}

/* The string member name of the operation: 1 when present, 0 when absent
 * or null, -1 when not a string. */
static int op_string(const struct jval *op, const char *name, const char **s)
{
    const struct jval *v = jval_get(op, name);

    *s = jval_str(v);
    if (v == NULL)
        return 0;
    return jval_type(v) == JVAL_STRING ? 1 : -1;
}

/* The operation's value, copied; null when absent. */
static struct jval *op_value(const struct jval *op)
{
    const struct jval *v = jval_get(op, "value");

    return v != NULL ? jval_edit_dup(v) : jval_edit_new_null();
}

/* partialDoc's and partialArray's add: v taken to own. */
static int con_add(struct op_ctx *c, struct jval *con, const char *key,
                   struct jval *v, const char *ctx)
{
    long long i;

    if (jval_type(con) == JVAL_OBJECT) {
        jval_edit_set(con, key, v);
        return RW_OK;
    }
    if (strcmp(key, "-") == 0) {
        jval_edit_append(con, v);
        return RW_OK;
    }
    if (!parse_index(key, &i)) {
        jval_free(v);
        return op_fail(c,
                       "%svalue was not a proper array index: '%s': "
                       "strconv.Atoi: parsing \"%s\": invalid syntax",
                       ctx, key, key);
    }
    i = array_index(c, key, jval_count(con), 1, ctx);
    if (i < 0) {
        jval_free(v);
        return RW_EINVAL;
    }
    jval_edit_insert(con, (size_t)i, v);
    return RW_OK;
}

/* partialDoc's and partialArray's remove: the removed value, owned by the
 * caller, or NULL with the error text set. */
static struct jval *con_remove(struct op_ctx *c, struct jval *con,
                               const char *key, const char *ctx)
{
    const struct jval *v;
    long long i;

    if (jval_type(con) == JVAL_OBJECT) {
        v = jval_member(con, key, strlen(key));
        if (v == NULL)
            op_fail(c, "%sUnable to remove nonexistent key: %s" MISSING, ctx,
                    key);
    } else {
        i = array_index(c, key, jval_count(con), 0, ctx);
        v = i < 0 ? NULL : jval_at(con, (size_t)i);
    }
    return v != NULL ? jval_edit_detach(con, v) : NULL;
}

static int op_add(struct op_ctx *c, const char *path)
{
    char *key, ctx[256];
    struct jval *con = find_container(c, path, &key);
    int rc;

    if (con == NULL)
        return op_fail(c,
                       "add operation does not apply: doc is missing path: "
                       "\"%s\"" MISSING,
                       path);
    snprintf(ctx, sizeof(ctx), "error in add for path: '%s': ", path);
    rc = con_add(c, con, key, op_value(c->op), ctx);
    free(key);
    return rc;
}

static int op_remove(struct op_ctx *c, const char *path)
{
    char *key, ctx[256];
    struct jval *con = find_container(c, path, &key), *old;

    if (con == NULL)
        return op_fail(c,
                       "remove operation does not apply: doc is missing "
                       "path: \"%s\"" MISSING,
                       path);
    snprintf(ctx, sizeof(ctx), "error in remove for path: '%s': ", path);
    old = con_remove(c, con, key, ctx);
    free(key);
    jval_free(old);
    return old != NULL ? RW_OK : RW_EINVAL;
}

static int op_replace(struct op_ctx *c, const char *path)
{
    const struct jval *cur;
    struct jval *con;
    char *key;
    bool bad;

    if (*path == '\0') { /* the whole document: an object or an array */
        const struct jval *v = jval_get(c->op, "value");

        if (jval_type(v) == JVAL_OBJECT || jval_type(v) == JVAL_ARRAY) {
            jval_free(*c->doc);
            *c->doc = jval_edit_dup(v);
        }
        return RW_OK; /* evanphx wraps a nil error here: no failure */
    }
    con = find_container(c, path, &key);
    if (con == NULL)
        return op_fail(c,
                       "replace operation does not apply: doc is missing "
                       "path: %s" MISSING,
                       path);
    cur = child_of(c, con, key, "", &bad);
    if (bad) {
        free(key);
        return op_fail(c,
                       "replace operation does not apply: doc is missing "
                       "key: %s" MISSING,
                       path);
    }
    if (cur != NULL)
        jval_edit_replace(con, cur, op_value(c->op));
    else /* an absent or null object member */
        jval_edit_set(con, key, op_value(c->op));
    free(key);
    return RW_OK;
}

static int op_test(struct op_ctx *c, const char *path)
{
    const struct jval *want = jval_get(c->op, "value"), *cur;
    struct jval *con;
    char *key, ctx[256];
    bool bad;

    if (*path == '\0') {
        cur = *c->doc;
    } else {
        con = find_container(c, path, &key);
        if (con == NULL)
            return op_fail(c,
                           "test operation does not apply: is missing "
                           "path: %s" MISSING,
                           path);
        snprintf(ctx, sizeof(ctx), "error in test for path: '%s': ", path);
        cur = child_of(c, con, key, ctx, &bad);
        free(key);
        if (bad)
            return RW_EINVAL;
    }
    if (cur == NULL ? want == NULL : want != NULL && jval_edit_equal(cur, want))
        return RW_OK;
    return op_fail(c, "testing value %s failed: test failed", path);
}

/* Counts the bytes a copy adds against COPY_LIMIT. */
static int count_copy(struct op_ctx *c, const struct jval *v)
{
    size_t n;

    free(jval_edit_print(v, &n));
    c->copied += n;
    if (c->copied <= COPY_LIMIT)
        return RW_OK;
    return op_fail(c,
                   "Unable to complete the copy, the accumulated size "
                   "increase of copy is %zu, exceeding the limit %d",
                   c->copied, COPY_LIMIT);
}

/* The value at from for move (detached) or copy (copied, null for an
 * absent member); NULL with the error text set. */
static struct jval *take_from(struct op_ctx *c, bool move, const char *from)
{
    char *key, ctx[256];
    struct jval *con = find_container(c, from, &key), *v = NULL;
    const struct jval *cur;
    bool bad;

    if (con == NULL) {
        op_fail(c,
                "%s operation does not apply: doc is missing from path: "
                "%s" MISSING,
                move ? "move" : "copy", from);
        return NULL;
    }
    if (move) {
        snprintf(ctx, sizeof(ctx), "error in move for path: '%s': ", key);
        v = con_remove(c, con, key, ctx);
    } else {
        snprintf(ctx, sizeof(ctx), "error in copy for from: '%s': ", from);
        cur = child_of(c, con, key, ctx, &bad);
        if (!bad)
            v = cur != NULL ? jval_edit_dup(cur) : jval_edit_new_null();
        if (v != NULL && count_copy(c, v) != RW_OK) {
            jval_free(v);
            v = NULL;
        }
    }
    free(key);
    return v;
}

/* move and copy: the value at "from" added at "path". */
static int op_move_copy(struct op_ctx *c, bool move, const char *path,
                        const char *from)
{
    struct jval *v = take_from(c, move, from), *con;
    char *key, ctx[256];
    int rc;

    if (v == NULL)
        return RW_EINVAL;
    con = find_container(c, path, &key);
    if (con == NULL) {
        jval_free(v);
        return op_fail(c,
                       "%s operation does not apply: doc is missing "
                       "destination path: %s" MISSING,
                       move ? "move" : "copy", path);
    }
    if (move)
        snprintf(ctx, sizeof(ctx), "error in move for path: '%s': ", path);
    else
        snprintf(ctx, sizeof(ctx), "error while adding value during copy: ");
    rc = con_add(c, con, key, v, ctx);
    free(key);
    return rc;
}

/*
 * Operation.Path() or From(): the string member name into *s, or RW_EINVAL
 * with the error text: "<op> operation failed to decode <name>: <cause>",
 * the cause dropped where evanphx wraps ErrMissing instead (terse).
 */
static int op_pointer(struct op_ctx *c, const char *op, const char *name,
                      bool terse, const char **s)
{
    int have = op_string(c->op, name, s);

    if (have == 1)
        return RW_OK;
    if (terse)
        return op_fail(c, "%s operation failed to decode %s" MISSING, op,
                       name);
    if (have == 0)
        return op_fail(c, "%s operation failed to decode %s: operation%s "
                          "missing %s field" MISSING,
                       op, name, strcmp(name, "from") == 0 ? "," : "", name);
    return op_fail(c,
                   "%s operation failed to decode %s: json: cannot "
                   "unmarshal %s into Go value of type string",
                   op, name, patch_go_type(jval_get(c->op, name)));
}

static int apply_op(struct op_ctx *c)
{
    const char *kind = "unknown", *path, *from;
    bool terse;

    if (op_string(c->op, "op", &kind) != 1)
        kind = "unknown";
    terse = strcmp(kind, "add") == 0 || strcmp(kind, "remove") == 0 ||
            strcmp(kind, "copy") == 0;
    if (strcmp(kind, "move") == 0 || strcmp(kind, "copy") == 0) {
        if (op_pointer(c, kind, "from", false, &from) != RW_OK)
            return RW_EINVAL;
        /* from is looked up before path is decoded */
        if (op_string(c->op, "path", &path) != 1) {
            struct jval *v = take_from(c, kind[0] == 'm', from);

            if (v == NULL)
                return RW_EINVAL;
            jval_free(v);
            return op_pointer(c, kind, "path", terse, &path);
        }
        return op_move_copy(c, kind[0] == 'm', path, from);
    }
    if (strcmp(kind, "add") != 0 && strcmp(kind, "remove") != 0 &&
        strcmp(kind, "replace") != 0 && strcmp(kind, "test") != 0)
        return op_fail(c, "Unexpected kind: %s", kind);
    if (op_pointer(c, kind, "path", terse, &path) != RW_OK)
        return RW_EINVAL;
    switch (kind[0]) {
    case 'a':
        return op_add(c, path);
    case 'r':
        return kind[2] == 'm' ? op_remove(c, path) : op_replace(c, path);
    default:
        return op_test(c, path);
    }
}

int patch_json_apply(struct jval **doc, const struct jval *patch,
                     struct patch_error *err)
{
    struct op_ctx c = {.doc = doc, .why = err->detail,
                       .why_size = sizeof(err->detail)};
    const struct jval *op;
    size_t n = jval_count(patch);

    JVAL_EACH(op, patch) {
        if (jval_type(op) != JVAL_OBJECT && jval_type(op) != JVAL_NULL)
            return patch_fail(err, 400, "BadRequest",
                              "json: cannot unmarshal %s into Go value of "
                              "type jsonpatch.Operation",
                              patch_go_type(op));
    }
    if (n > MAX_OPS)
        return patch_fail(err, 413, "RequestEntityTooLarge",
                          "Request entity too large: The allowed maximum "
                          "operations in a JSON patch is %d, got %zu",
                          MAX_OPS, n);
    JVAL_EACH(op, patch) {
        c.op = op;
        if (apply_op(&c) != RW_OK)
            return patch_fail(err, 422, "Invalid",
                              "the server rejected our request due to an "
                              "error in our request");
    }
    return RW_OK;
}
