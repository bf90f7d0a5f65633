/*
 * kjson_decode.c: store values in (see kjson_decode.h).
 *
 * Decoding serves the store value's own bytes.  The strict scanner
 * (kjson_scan.c, no allocation) validates the value and finds the spans
 * of the members the codec completes: kind, apiVersion and metadata at the
 * top, name, namespace and resourceVersion inside metadata.  cJSON (through
 * jval.h) parses the same bytes for what is extracted (labels,
 * creationTimestamp, field-selector values) and must agree with the scanner on
 * those members; it never prints anything.  The object's JSON is the value
 * copied with the whitespace between tokens dropped (so that a watch event
 * stays one line) and a few edits spliced in: resourceVersion's value
 * replaced by the quoted revision, missing members inserted, null or ""
 * ones replaced.  Every other byte (numbers, strings, escapes, key order,
 * duplicates) is the store's.  The revision's digits' offset is recorded
 * so that later revisions (object_with_rv) are spliced without parsing
 * again.
 *
 * Lookups follow Go's encoding/json as the apiserver's case-sensitive
 * decoder uses it: member names compare after unescaping, case-sensitively,
 * and the last of repeated members wins.  The spliced members admit no
 * repetition, so no reader can pick another one than ours.
 */
#include "proto/kjson_decode.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cache/rw.h"
#include "cache/sbuf.h"
#include "cache/utf8.h"
#include "proto/jval.h"
#include "proto/kjson.h"
#include "proto/kjson_scan.h"

#define MAX_LABELS (UINT16_MAX - 1)
#define NUMBER_LEN 32

/* ------------------------------------------------------------------ */
/* The key and the edits                                               */
/* ------------------------------------------------------------------ */

/* What decoding extracts: ns and name copied from the key, the rest
 * pointing into the parsed tree (or into numbers[]). */
struct decoded {
    const struct resource_type *rt;
    char *ns; /* "" for cluster-scoped types */
    char *name;
    struct jval *root;
    const struct jval *meta; /* metadata when it is an object, else NULL */
    const char *created;
    struct label *labels;
    size_t nlabels;
    const char *fields[RESOURCE_TYPE_MAX_FIELDS];
    char numbers[RESOURCE_TYPE_MAX_FIELDS][NUMBER_LEN];
};

/* What an edit writes: a string, the quoted revision, or a whole metadata
 * object {"name":..[,"namespace":..],"resourceVersion":..}. */
enum splice_value { SPLICE_STRING, SPLICE_RV, SPLICE_METADATA };

/* One edit of the value: at offset off, del bytes (a value) replaced by
 * [,]["name":]value[,]. */
struct edit {
    size_t off;
    size_t del;
    const char *name; /* NULL: a bare value replacing another */
    enum splice_value what;
    const char *str; /* SPLICE_STRING's content */
    bool comma_before;
    bool comma_after;
};

/* kind, apiVersion, metadata or name, namespace, resourceVersion: one
 * edit each at most. */
#define MAX_EDITS 6

/* Decoding's working state: the value, its layout and the edits. */
struct plan {
    const unsigned char *s;
    struct kjson_scan_layout l;
    struct decoded *d;
    struct edit edits[MAX_EDITS];
    size_t nedits;
};

/*
 * Where the next member inserted into an object goes: first in the object
 * (lead, at the offset after '{'), or right after the member last seen.
 * Leading inserts are joined by commas, and the last one gets a trailing
 * comma when the object has members of its own.
 */
struct chain {
    size_t at;
    bool lead;
    struct edit *last_lead;
};

static struct edit *plan_edit(struct plan *p, size_t off, size_t del,
                              const char *name, enum splice_value what,
                              const char *str)
{
    struct edit *e;

    rw_assert(p->nedits < MAX_EDITS);
    e = &p->edits[p->nedits++];
    *e = (struct edit){off, del, name, what, str, false, false};
    return e;
}

static void chain_insert(struct plan *p, struct chain *ch, const char *name,
                         enum splice_value what, const char *str)
{
    struct edit *e = plan_edit(p, ch->at, 0, name, what, str);

    e->comma_before = !ch->lead || ch->last_lead != NULL;
    if (ch->lead)
        ch->last_lead = e;
}

static void chain_after(struct chain *ch, const struct kjson_scan_member *m)
{
    ch->at = m->end;
    ch->lead = false;
}

static void chain_close(struct chain *ch, const struct kjson_scan_braces *b)
{
    if (ch->last_lead != NULL && b->nmembers > 0)
        ch->last_lead->comma_after = true;
}

/* A member Go reads as absent or empty: null or "". */
static bool blank(const unsigned char *s, const struct kjson_scan_member *m)
{
    return s[m->val] == 'n' || (s[m->val] == '"' && m->end - m->val == 2);
}

/* How plan_string treats one string member. */
struct string_rule {
    const char *name;       /* the member */
    const char *value;      /* spliced in when absent, null or "" */
    const char *not_string; /* why, when it holds another type */
    const char *mismatch;   /* why, when set to another value; NULL: any */
    const char *missing;    /* why, when absent, null or ""; NULL: the
                               value is spliced in instead */
};

/* A string member m of the object ch walks: inserted or replaced with
 * r->value when absent, null or "" (or refused, r->missing), else
 * checked. */
static int plan_string(struct plan *p, struct chain *ch,
                       const struct kjson_scan_member *m,
                       const struct string_rule *r, const char **why)
{
    const unsigned char *s = p->s;

    if (r->missing != NULL && (m->count == 0 || blank(s, m))) {
        *why = r->missing;
        return RW_EINVAL;
    }
    if (m->count == 0) {
        chain_insert(p, ch, r->name, SPLICE_STRING, r->value);
        return RW_OK;
    }
    if (s[m->val] != '"' && s[m->val] != 'n') {
        *why = r->not_string;
        return RW_EINVAL;
    }
    if (blank(s, m))
        plan_edit(p, m->val, m->end - m->val, NULL, SPLICE_STRING, r->value);
    else if (r->mismatch != NULL &&
             !kjson_scan_string_equals(s + m->val + 1, m->end - m->val - 2,
                                       r->value, strlen(r->value))) {
        *why = r->mismatch;
        return RW_EINVAL;
    }
    chain_after(ch, m);
    return RW_OK;
}

/* Inside metadata: name and namespace (from the key), resourceVersion. */
static int plan_metadata(struct plan *p, const char **why)
{
    const struct kjson_scan_layout *l = &p->l;
    const struct kjson_scan_member *ns = &l->metam[KJSON_SCAN_NAMESPACE];
    const struct kjson_scan_member *rv = &l->metam[KJSON_SCAN_RV];
    struct chain ch = {.at = l->meta.open + 1, .lead = true};
    const struct string_rule name_rule = {
        "name", p->d->name, "metadata.name is not a string",
        "metadata.name does not match the key", NULL};
    const struct string_rule ns_rule = {
        "namespace", p->d->ns, "metadata.namespace is not a string",
        "metadata.namespace does not match the key", NULL};
    struct edit *e;
    int rc;

    rc = plan_string(p, &ch, &l->metam[KJSON_SCAN_NAME], &name_rule, why);
    if (rc != RW_OK)
        return rc;
    if (p->d->rt->namespaced) {
        if ((rc = plan_string(p, &ch, ns, &ns_rule, why)) != RW_OK)
            return rc;
    } else if (ns->count > 0 && !blank(p->s, ns)) {
        *why = p->s[ns->val] == '"'
                   ? "metadata.namespace is set on a cluster-scoped object"
                   : "metadata.namespace is not a string";
        return RW_EINVAL;
    }
    chain_close(&ch, &l->meta);
    if (rv->count > 0) {
        plan_edit(p, rv->val, rv->end - rv->val, NULL, SPLICE_RV, NULL);
    } else {
        e = plan_edit(p, l->meta.close, 0, "resourceVersion", SPLICE_RV, NULL);
        e->comma_before = l->meta.nmembers > 0 || ch.last_lead != NULL;
    }
    return RW_OK;
}

/*
 * The top level: kind and apiVersion, metadata.  As the apiserver's
 * storage decoder (apimachinery's json.Serializer.Decode into the
 * resource's type, then conversion to it): the group, version and kind
 * come from the stored bytes; a missing kind is the type's (with the
 * type's apiVersion, it names the type), a missing apiVersion fails, and
 * another kind or apiVersion does not convert to the type.
 */
static int plan_top(struct plan *p, const char **why)
{
    const struct kjson_scan_layout *l = &p->l;
    const struct kjson_scan_member *meta = &l->topm[KJSON_SCAN_METADATA];
    struct chain ch = {.at = l->top.open + 1, .lead = true};
    const struct string_rule kind_rule = {
        "kind", p->d->rt->kind, "kind is not a string",
        "kind does not match the resource", NULL};
    const struct string_rule api_rule = {
        "apiVersion", p->d->rt->api_version, "apiVersion is not a string",
        "apiVersion does not match the resource", "apiVersion is missing"};
    int rc;

    rc = plan_string(p, &ch, &l->topm[KJSON_SCAN_KIND], &kind_rule, why);
    if (rc != RW_OK)
        return rc;
    rc = plan_string(p, &ch, &l->topm[KJSON_SCAN_API_VERSION], &api_rule, why);
    if (rc != RW_OK)
        return rc;
    if (meta->count == 0) {
        chain_insert(p, &ch, "metadata", SPLICE_METADATA, NULL);
    } else if (p->s[meta->val] == 'n') {
        plan_edit(p, meta->val, meta->end - meta->val, NULL, SPLICE_METADATA,
                  NULL);
    } else if (!l->has_meta) {
        *why = "metadata is not an object";
        return RW_EINVAL;
    }
    chain_close(&ch, &l->top);
    return l->has_meta ? plan_metadata(p, why) : RW_OK;
}

/* ------------------------------------------------------------------ */
/* The parsed tree (jval): agreement and extraction                     */
/* ------------------------------------------------------------------ */

/* The member of obj named name (case-sensitive, the last of repeated
 * keys, as Go's encoding/json, null included), or NULL. */
static const struct jval *member(const struct jval *obj, const char *name)
{
    return jval_member(obj, name, strlen(name));
}

/* A member that Go would read as absent: missing or JSON null. */
static bool absent(const struct jval *item)
{
    return jval_type(item) == JVAL_NONE || jval_type(item) == JVAL_NULL;
}

/* Whether the tree sees member name of obj as the scanner saw m: as many
 * occurrences, the last one of the same type. */
static bool member_agrees(const unsigned char *s,
                          const struct kjson_scan_member *m,
                          const struct jval *obj, const char *name)
{
    const struct jval *item = NULL, *c;
    unsigned count = 0;

    JVAL_EACH(c, obj)
    {
        if (strcmp(jval_name(c), name) == 0) {
            count++;
            item = c;
        }
    }
    if (count != m->count)
        return false;
    if (count == 0)
        return true;
    switch (s[m->val]) {
    case '"':
        return jval_type(item) == JVAL_STRING;
    case '{':
        return jval_type(item) == JVAL_OBJECT;
    case '[':
        return jval_type(item) == JVAL_ARRAY;
    case 'n':
        return jval_type(item) == JVAL_NULL;
    case 't':
        return jval_type(item) == JVAL_TRUE;
    case 'f':
        return jval_type(item) == JVAL_FALSE;
    default:
        return jval_type(item) == JVAL_NUMBER;
    }
}

/* A string member that is set must read as want (kind, apiVersion, name
 * and namespace, already compared by the scanner). */
static bool string_agrees(const struct jval *obj, const char *name,
                          const char *want)
{
    const struct jval *item = member(obj, name);

    return jval_type(item) != JVAL_STRING || jval_str(item)[0] == '\0' ||
           strcmp(jval_str(item), want) == 0;
}

/* Whether the tree has the scanner's structure where it matters. */
static bool tree_agrees(const struct plan *p)
{
    const struct kjson_scan_layout *l = &p->l;
    const struct jval *root = p->d->root, *meta;

    if (!jval_is_object(root) || jval_count(root) != l->top.nmembers)
        return false;
    for (size_t i = 0; i < KJSON_SCAN_TOP_N; i++)
        if (!member_agrees(p->s, &l->topm[i], root, kjson_scan_top_names[i]))
            return false;
    if (!string_agrees(root, "kind", p->d->rt->kind) ||
        !string_agrees(root, "apiVersion", p->d->rt->api_version))
        return false;
    if (!l->has_meta)
        return true;
    meta = member(root, "metadata");
    if (jval_count(meta) != l->meta.nmembers)
        return false;
    for (size_t i = 0; i < KJSON_SCAN_META_N; i++)
        if (!member_agrees(p->s, &l->metam[i], meta, kjson_scan_meta_names[i]))
            return false;
    return string_agrees(meta, "name", p->d->name) &&
           (!p->d->rt->namespaced ||
            string_agrees(meta, "namespace", p->d->ns));
}

/*
 * Parses the value with cJSON through jval (a patched copy when the
 * scanner saw what cJSON mishandles) and checks it agrees with the scanner:
 * RW_EINVAL "value is not valid JSON" otherwise.
 */
static int parse_tree(struct plan *p, size_t len, const char **why)
{
    char *copy = p->l.patch ? kjson_scan_patched_copy(p->s, len) : NULL;
    const char *text = copy != NULL ? copy : (const char *)p->s;
    const struct jval *meta;

    p->d->root = jval_try_parse(text, len);
    free(copy);
    if (p->d->root == NULL || !tree_agrees(p)) {
        *why = "value is not valid JSON";
        return RW_EINVAL;
    }
    meta = member(p->d->root, "metadata");
    p->d->meta = jval_is_object(meta) ? meta : NULL;
    return RW_OK;
}

/* metadata.labels: an object of strings (null or absent: none), and
 * metadata.creationTimestamp. */
static int extract_meta(struct decoded *d, const char **why)
{
    const struct jval *labels, *c;
    size_t n = 0;

    if (d->meta == NULL)
        return RW_OK;
    d->created = jval_str(member(d->meta, "creationTimestamp"));
    labels = member(d->meta, "labels");
    if (absent(labels))
        return RW_OK;
    if (!jval_is_object(labels)) {
        *why = "metadata.labels is not an object";
        return RW_EINVAL;
    }
    JVAL_EACH(c, labels)
    {
        if (jval_type(c) != JVAL_STRING) {
            *why = "label values must be strings";
            return RW_EINVAL;
        }
        n++;
    }
    if (n > MAX_LABELS) {
        *why = "too many labels";
        return RW_EINVAL;
    }
    d->labels = xcalloc(n, sizeof(*d->labels));
    JVAL_EACH(c, labels)
    {
        d->labels[d->nlabels++] =
            (struct label){.key = jval_name(c), .value = jval_str(c)};
    }
    return RW_OK;
}

/* The item at a dot-separated path under root, or NULL. */
static const struct jval *lookup_path(const struct jval *root, const char *path)
{
    const struct jval *item = root;

    while (item != NULL) {
        const char *dot = strchr(path, '.');
        size_t n = dot ? (size_t)(dot - path) : strlen(path);

        if (!jval_is_object(item))
            return NULL;
        item = jval_member(item, path, n);
        if (dot == NULL)
            return item;
        path = dot + 1;
    }
    return NULL;
}

/* Fields the apiserver reads from a Go bool: absent means "false". */
static bool bool_field(const struct resource_type *rt, const char *path)
{
    static const char *const table[][2] = {
        {"Pod", "spec.hostNetwork"},
        {"Node", "spec.unschedulable"},
    };

    for (size_t i = 0; i < RW_ARRAY_LEN(table); i++)
        if (strcmp(rt->kind, table[i][0]) == 0 &&
            strcmp(path, table[i][1]) == 0)
            return true;
    return false;
}

/* A field-selector value as the apiserver's GetAttrs renders it. */
static const char *field_text(const struct jval *item, char *number,
                              bool boolean)
{
    double v;

    if (jval_type(item) == JVAL_STRING)
        return jval_str(item);
    if (jval_type(item) == JVAL_TRUE)
        return "true";
    if (jval_type(item) == JVAL_FALSE)
        return "false";
    if (absent(item))
        return boolean ? "false" : "";
    if (!jval_is_number(item))
        return "";
    v = jval_double(item);
    if (v >= -9.2e18 && v <= 9.2e18 && v == (double)(int64_t)v)
        snprintf(number, NUMBER_LEN, "%" PRId64, (int64_t)v);
    else
        snprintf(number, NUMBER_LEN, "%.17g", v);
    return number;
}

static void extract_fields(const struct resource_type *rt, struct decoded *d)
{
    size_t n = resource_type_nfields(rt);

    for (size_t i = 0; i < n; i++) {
        const char *path = rt->fields[i];
        const struct jval *item;

        /* Events: "source" is source.component, else reportingComponent
         * (as the apiserver's event ToSelectableFields). */
        if (strcmp(rt->kind, "Event") == 0 && strcmp(path, "source") == 0) {
            item = lookup_path(d->root, "source.component");
            if (jval_str(item)[0] == '\0')
                item = lookup_path(d->root, "reportingComponent");
        } else {
            item = lookup_path(d->root, path);
        }
        d->fields[i] = field_text(item, d->numbers[i], bool_field(rt, path));
    }
}

/* ------------------------------------------------------------------ */
/* Splicing                                                            */
/* ------------------------------------------------------------------ */

/* Appends "digits" and notes where the digits start. */
static void put_rv(struct sbuf *w, const char *digits, size_t *rv_off,
                   unsigned *nrv)
{
    sbuf_addn(w, "\"", 1);
    *rv_off = w->len;
    sbuf_add(w, digits);
    sbuf_addn(w, "\"", 1);
    (*nrv)++;
}

static void put_edit(struct sbuf *w, const struct edit *e,
                     const struct decoded *d, const char *digits,
                     size_t *rv_off, unsigned *nrv)
{
    if (e->comma_before)
        sbuf_addn(w, ",", 1);
    if (e->name != NULL) {
        kjson_add_string(w, e->name);
        sbuf_addn(w, ":", 1);
    }
    switch (e->what) {
    case SPLICE_STRING:
        kjson_add_string(w, e->str);
        break;
    case SPLICE_RV:
        put_rv(w, digits, rv_off, nrv);
        break;
    case SPLICE_METADATA:
        sbuf_add(w, "{\"name\":");
        kjson_add_string(w, d->name);
        if (d->rt->namespaced) {
            sbuf_add(w, ",\"namespace\":");
            kjson_add_string(w, d->ns);
        }
        sbuf_add(w, ",\"resourceVersion\":");
        put_rv(w, digits, rv_off, nrv);
        sbuf_add(w, "}");
        break;
    }
    if (e->comma_after)
        sbuf_addn(w, ",", 1);
}

/* Edits in the order of their offsets (stable: inserts at one offset keep
 * the order they were planned in). */
static void sort_edits(struct plan *p)
{
    for (size_t i = 1; i < p->nedits; i++) {
        struct edit e = p->edits[i];
        size_t j = i;

        for (; j > 0 && p->edits[j - 1].off > e.off; j--)
            p->edits[j] = p->edits[j - 1];
        p->edits[j] = e;
    }
}

/*
 * The object's JSON: the value from its '{' to its '}', compacted, with
 * the edits spliced in; sets in->json, in->rv_off and in->rv_len.
 * RW_EINVAL "value is too large" past what rv_off can address.
 */
static int splice(struct plan *p, int64_t rv, struct object_init *in,
                  const char **why)
{
    size_t cur = p->l.top.open, end = p->l.top.close + 1, rv_off = 0;
    char digits[NUMBER_LEN];
    struct sbuf w = {0};
    unsigned nrv = 0;

    snprintf(digits, sizeof(digits), "%" PRId64, rv);
    sort_edits(p);
    sbuf_reserve(&w, end - cur + 256);
    for (size_t i = 0; i < p->nedits; i++) {
        const struct edit *e = &p->edits[i];

        rw_assert(e->off >= cur && e->off + e->del <= end);
        kjson_scan_compact(&w, p->s + cur, e->off - cur);
        put_edit(&w, e, p->d, digits, &rv_off, &nrv);
        cur = e->off + e->del;
    }
    kjson_scan_compact(&w, p->s + cur, end - cur);
    rw_assert(nrv == 1 && w.data[0] == '{' && w.data[w.len - 1] == '}');
    if (w.len > UINT32_MAX - 2 * NUMBER_LEN) {
        free(w.data);
        *why = "value is too large";
        return RW_EINVAL;
    }
    in->json = rbuf_from(w.data, w.len);
    free(w.data);
    in->rv_off = rv_off;
    in->rv_len = strlen(digits);
    return RW_OK;
}

/* The checks on the bytes alone: not protobuf, UTF-8, one JSON object. */
static int check_value(const void *value, size_t len,
                       struct kjson_scan_layout *l, const char **why)
{
    if (len >= 4 && memcmp(value, "k8s\0", 4) == 0) {
        *why = "value is protobuf (k8s\\0 prefix)";
        return RW_EINVAL;
    }
    if (!utf8_valid(value, len)) {
        *why = "value is not valid UTF-8";
        return RW_EINVAL;
    }
    return kjson_scan_layout(value, len, l, why);
}

/* The key's layout; ns and name copied from it into d. */
static int check_key(const struct resource_type *rt, const char *key,
                     size_t key_len, struct decoded *d, const char **why)
{
    struct resource_key kp;

    if (!resource_type_key_split(rt, key, key_len, &kp)) {
        *why = "key does not match the resource's layout";
        return RW_EINVAL;
    }
    if (!utf8_valid(key, key_len)) {
        *why = "key is not valid UTF-8";
        return RW_EINVAL;
    }
    d->ns = xstrndup(kp.ns, kp.ns_len);
    d->name = xstrndup(kp.name, kp.name_len);
    return RW_OK;
}

int kjson_decode_object(const struct resource_type *rt, const char *key,
                        size_t key_len, const void *value, size_t len,
                        int64_t rv, struct object **out, const char **why)
{
    struct decoded d = {.rt = rt};
    struct plan p = {.s = value, .d = &d};
    struct object_init in;
    int rc;

    *out = NULL;
    if ((rc = check_value(value, len, &p.l, why)) != RW_OK)
        return rc;
    if ((rc = check_key(rt, key, key_len, &d, why)) != RW_OK)
        return rc;
    if ((rc = plan_top(&p, why)) != RW_OK)
        goto done;
    if ((rc = parse_tree(&p, len, why)) != RW_OK)
        goto done;
    if ((rc = extract_meta(&d, why)) != RW_OK)
        goto done;
    extract_fields(rt, &d);
    in = (struct object_init){
        .key = key,
        .key_len = key_len,
        .rv = rv,
        .ns = d.ns,
        .name = d.name,
        .created = d.created,
        .labels = d.labels,
        .nlabels = d.nlabels,
        .fields = d.fields,
        .nfields = resource_type_nfields(rt),
    };
    if ((rc = splice(&p, rv, &in, why)) != RW_OK)
        goto done;
    *out = object_new(&in);
done:
    free(d.labels);
    free(d.ns);
    free(d.name);
    jval_free(d.root);
    return rc;
}
