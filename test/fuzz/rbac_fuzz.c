/*
 * rbac_fuzz.c: rbac_object_parse on arbitrary bytes (the first byte picks
 * the kind, the rest is the stored value): it either refuses with a reason
 * and no object, or yields one the evaluator can index and evaluate, with
 * a Role and a ClusterRole beside it, for requests of every shape; a
 * parsed object grants nothing to a user none of its subjects names.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "cache/rw.h"
#include "src/identity.h"
#include "src/rbac.h"
#include "src/rbac_object.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static const char role[] =
    "{\"metadata\":{\"name\":\"r\",\"namespace\":\"ns\",\"labels\":{\"a\":"
    "\"b\"}},\"rules\":[{\"verbs\":[\"get\"],\"apiGroups\":[\"\"],"
    "\"resources\":[\"pods\"]}]}";
static const char cluster_role[] =
    "{\"metadata\":{\"name\":\"r\",\"labels\":{\"a\":\"b\"}},\"rules\":[{"
    "\"verbs\":[\"*\"],\"nonResourceURLs\":[\"/x*\"]}]}";

static void evaluate(const struct rbac *x, const struct identity *id)
{
    static const struct authz_attributes reqs[] = {
        {"get", true, "", "v1", "pods", "", "ns", "x", ""},
        {"list", true, "", "v1", "pods", "", "", "", ""},
        {"watch", true, "apps", "v1", "deployments", "", "ns", "", ""},
        {"get", true, "", "v1", "pods", "log", "ns", "x", ""},
        {"get", false, "", "", "", "", "", "", "/xyz"},
        {"get", false, "", "", "", "", "", "", "/metrics"},
    };
    char reason[256];

    for (size_t i = 0; i < RW_ARRAY_LEN(reqs); i++)
        (void)rbac_allows(x, id, &reqs[i], reason, sizeof(reason));
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    struct rbac_object *o, *fixed[2];
    struct identity *nobody, *sa;
    struct rbac *x;
    char why[256];

    if (size == 0)
        return 0;
    if (rbac_object_parse((enum rbac_kind)(data[0] % RBAC_KINDS),
                          (const char *)data + 1, size - 1, &o, why,
                          sizeof(why)) != RW_OK) {
        rw_assert(o == NULL && why[0] != '\0');
        return 0;
    }
    rw_assert(o != NULL && o->name != NULL && o->ns != NULL);
    rw_assert(rbac_object_parse(RBAC_ROLE, role, strlen(role), &fixed[0], why,
                                sizeof(why)) == RW_OK);
    rw_assert(rbac_object_parse(RBAC_CLUSTERROLE, cluster_role,
                                strlen(cluster_role), &fixed[1], why,
                                sizeof(why)) == RW_OK);
    x = rbac_new();
    rbac_add(x, o);
    rbac_add(x, fixed[0]);
    rbac_add(x, fixed[1]);
    rbac_build(x);
    nobody = identity_new(IDENTITY_NONE, "\x01nobody", NULL);
    sa = identity_new(IDENTITY_SERVICE_ACCOUNT, "system:serviceaccount:ns:r",
                      NULL);
    identity_add_group(sa, "system:serviceaccounts");
    /* a user in no group is allowed only by a binding naming it */
    {
        struct authz_attributes a = {"get", true, "",  "v1", "pods",
                                     "",    "ns", "x", ""};
        char reason[256];
        bool named = false;

        for (size_t i = 0; i < o->nsubjects; i++)
            named |= o->subjects[i].kind == RBAC_SUBJECT_USER &&
                     strcmp(o->subjects[i].name, nobody->name) == 0;
        rw_assert(!rbac_allows(x, nobody, &a, reason, sizeof(reason)) || named);
    }
    evaluate(x, nobody);
    evaluate(x, sa);
    identity_unref(nobody);
    identity_unref(sa);
    rbac_free(x);
    rbac_object_free(o);
    rbac_object_free(fixed[0]);
    rbac_object_free(fixed[1]);
    return 0;
}
