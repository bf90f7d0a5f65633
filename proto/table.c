/*
 * table.c: meta.k8s.io/v1 Table rendering (see table.h).
 *
 * The Table document is built here, in one sbuf handed over as an rbuf;
 * each row's cells come from the type's printer (proto/printer.h), found
 * in the printers_*.c modules by group and resource.  Every type ringwatch
 * serves has one (test/table_test checks it); an object is parsed once
 * per row (proto/jval.h).
 */
#include "proto/table.h"

#include <stdlib.h>
#include <string.h>

#include "cache/rw.h"
#include "cache/sbuf.h"
#include "proto/kjson.h"
#include "proto/partial.h"
#include "proto/printer.h"
#include "proto/printers_apps.h"
#include "proto/printers_autoscaling.h"
#include "proto/printers_batch.h"
#include "proto/printers_coordination.h"
#include "proto/printers_rbac.h"
#include "proto/printers_core.h"
#include "proto/printers_pod.h"
#include "proto/printers_service.h"
#include "proto/printers_storage.h"

/* ------------------------------------------------------------------ */
/* includeObject                                                       */
/* ------------------------------------------------------------------ */

int table_parse_include(const char *value, enum table_object *out)
{
    if (strcmp(value, "") == 0 || strcmp(value, "Metadata") == 0)
        *out = TABLE_OBJECT_METADATA;
    else if (strcmp(value, "None") == 0)
        *out = TABLE_OBJECT_NONE;
    else if (strcmp(value, "Object") == 0)
        *out = TABLE_OBJECT_FULL;
    else
        return RW_EINVAL;
    return RW_OK;
}

/* ------------------------------------------------------------------ */
/* The printers                                                        */
/* ------------------------------------------------------------------ */

static const struct {
    const struct printer *printers;
    const size_t *n;
} groups[] = {
    {printers_pod, &printers_pod_len},
    {printers_core, &printers_core_len},
    {printers_service, &printers_service_len},
    {printers_storage, &printers_storage_len},
    {printers_apps, &printers_apps_len},
    {printers_batch, &printers_batch_len},
    {printers_autoscaling, &printers_autoscaling_len},
    {printers_coordination, &printers_coordination_len},
    {printers_rbac, &printers_rbac_len},
};

/* rt's printer, NULL for a type without one (none that ringwatch serves). */
static const struct printer *printer_lookup(const struct resource_type *rt)
{
    for (size_t g = 0; g < RW_ARRAY_LEN(groups); g++)
        for (size_t i = 0; i < *groups[g].n; i++)
            if (strcmp(groups[g].printers[i].group, rt->group) == 0 &&
                strcmp(groups[g].printers[i].resource, rt->resource) == 0)
                return &groups[g].printers[i];
    return NULL;
}

static const struct printer *printer_for(const struct resource_type *rt)
{
    const struct printer *p = printer_lookup(rt);

    rw_assert(p != NULL);
    return p;
}

/* ------------------------------------------------------------------ */
/* The document                                                        */
/* ------------------------------------------------------------------ */

static void add_columns(struct sbuf *sb, const struct printer *p)
{
    sbuf_add(sb, "[");
    for (size_t i = 0; i < p->ncolumns; i++) {
        const struct printer_column *c = &p->columns[i];

        sbuf_add(sb, i ? ",{\"name\":" : "{\"name\":");
        kjson_add_string(sb, c->name);
        sbuf_add(sb, ",\"type\":");
        kjson_add_string(sb, c->type);
        sbuf_add(sb, ",\"format\":");
        kjson_add_string(sb, c->format);
        sbuf_add(sb, ",\"description\":");
        kjson_add_string(sb, c->description);
        sbuf_addf(sb, ",\"priority\":%d}", c->priority);
    }
    sbuf_add(sb, "]");
}

void table_append_columns(struct sbuf *sb, const struct resource_type *rt)
{
    add_columns(sb, printer_for(rt));
}

static void add_row(struct sbuf *sb, const struct printer *p,
                    const struct object *o, enum table_object include,
                    bool beta, time_t now)
{
    struct jval *obj = jval_parse(o->json->data, o->json->len);
    struct printer_row r = {.sb = sb, .now = now};

    sbuf_add(sb, "{\"cells\":[");
    p->cells(&r, obj, o);
    rw_assert(r.ncells == p->ncolumns);
    sbuf_add(sb, "]");
    if (r.completed != NULL)
        sbuf_addf(sb,
                  ",\"conditions\":[{\"type\":\"Completed\",\"status\":"
                  "\"True\",\"reason\":\"%s\",\"message\":\"%s\"}]",
                  r.completed,
                  strcmp(r.completed, "Succeeded") == 0
                      ? "The pod has completed successfully."
                      : "The pod failed.");
    sbuf_add(sb, ",\"object\":");
    if (include == TABLE_OBJECT_FULL)
        sbuf_addn(sb, o->json->data, o->json->len);
    else if (include == TABLE_OBJECT_METADATA)
        partial_append(sb, o, beta);
    else
        sbuf_add(sb, "null");
    sbuf_add(sb, "}");
    jval_free(obj);
}

/* {"kind":"Table","apiVersion":"meta.k8s.io/V","metadata":{"resourceVersion":"rv"
 */
static void add_head(struct sbuf *sb, bool beta, int64_t rv)
{
    sbuf_addf(sb,
              "{\"kind\":\"Table\",\"apiVersion\":\"meta.k8s.io/%s\","
              "\"metadata\":{\"resourceVersion\":\"%lld\"",
              beta ? "v1beta1" : "v1", (long long)rv);
}

struct rbuf *table_render(const struct resource_type *rt,
                          struct object *const *items, size_t n, int64_t rv,
                          const char *continue_token, int64_t remaining,
                          enum table_object include_object, bool beta,
                          time_t now)
{
    const struct printer *p = printer_for(rt);
    struct sbuf sb = {0};
    struct rbuf *out;

    add_head(&sb, beta, rv);
    if (continue_token != NULL && *continue_token != '\0') {
        sbuf_add(&sb, ",\"continue\":");
        kjson_add_string(&sb, continue_token);
    }
    if (remaining >= 0)
        sbuf_addf(&sb, ",\"remainingItemCount\":%lld", (long long)remaining);
    sbuf_add(&sb, "},\"columnDefinitions\":");
    add_columns(&sb, p);
    sbuf_add(&sb, ",\"rows\":[");
    for (size_t i = 0; i < n; i++) {
        if (i > 0)
            sbuf_add(&sb, ",");
        add_row(&sb, p, items[i], include_object, beta, now);
    }
    sbuf_add(&sb, "]}");
    out = rbuf_from(sb.data, sb.len);
    sbuf_fini(&sb);
    return out;
}

void table_append_object(struct sbuf *sb, const struct resource_type *rt,
                         const struct object *o, enum table_object include,
                         bool beta, bool columns, time_t now)
{
    const struct printer *p = printer_for(rt);

    add_head(sb, beta, o->rv);
    sbuf_add(sb, "},\"columnDefinitions\":");
    if (columns)
        add_columns(sb, p);
    else
        sbuf_add(sb, "null");
    sbuf_add(sb, ",\"rows\":[");
    add_row(sb, p, o, include, beta, now);
    sbuf_add(sb, "]}");
}
