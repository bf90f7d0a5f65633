/*
 * selector_fuzz.c: fuzz target for label and field selector parsing
 * (cache/selector.c).  The input is split at its first NUL byte into a
 * labelSelector and a fieldSelector (no NUL: labels only); both are parsed
 * for pods and for nodes, and a selector that parses is matched against
 * two fixed objects and asked for its pinned field values.  A parse error
 * must leave a non-empty message and no selector.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "cache/object.h"
#include "cache/resource_type.h"
#include "cache/rw.h"
#include "cache/selector.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static struct object *mkobj(const char *name, const struct label *labels,
                            size_t nlabels, const char *node)
{
    static const char json[] = "{\"metadata\":{\"resourceVersion\":\"3\"}}";
    const char *fields[8] = {node};
    struct object_init in = {0};

    in.key = name;
    in.key_len = strlen(name);
    in.rv = 3;
    in.ns = "ns";
    in.name = name;
    in.labels = labels;
    in.nlabels = nlabels;
    in.fields = fields;
    in.nfields = 8;
    in.json = rbuf_from_str(json);
    in.rv_off = strlen("{\"metadata\":{\"resourceVersion\":\"");
    in.rv_len = 1;
    return object_new(&in);
}

static void run(const char *labels, const char *fields,
                const struct resource_type *rt, struct object *const *objs)
{
    struct selector *sel = (struct selector *)1;
    char why[512];
    int rc;

    why[0] = '\0';
    rc = selector_parse(labels, fields, rt, &sel, why, sizeof(why));
    if (rc != RW_OK) {
        if (rc != RW_EINVAL || sel != NULL || why[0] == '\0')
            abort();
        return;
    }
    for (int i = 0; i < 2; i++)
        (void)selector_matches(sel, objs[i]);
    for (int id = FIELD_NAME; id < FIELD_EXTRA + 8; id++)
        (void)selector_field_value(sel, id);
    selector_free(sel);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    static const struct label l1[] = {{"app", "x"}, {"n", "5"}};
    static const struct label l2[] = {{"app", ""}, {"example.com/t", "9"}};
    struct object *objs[2];
    char *labels = malloc(size + 1), *fields = NULL;
    const uint8_t *nul = memchr(data, '\0', size);

    memcpy(labels, data, size);
    labels[size] = '\0';
    if (nul != NULL)
        fields = labels + (nul - data) + 1;
    objs[0] = mkobj("foo", l1, 2, "node1");
    objs[1] = mkobj("bar", l2, 2, NULL);
    run(labels, fields, resource_type_find("pods"), objs);
    run(labels, fields, resource_type_find("nodes"), objs);
    object_unref(objs[0]);
    object_unref(objs[1]);
    free(labels);
    return 0;
}
