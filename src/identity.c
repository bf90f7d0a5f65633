/*
 * identity.c: who made a request (see identity.h).
 */
#include "src/identity.h"

#include <stdlib.h>
#include <string.h>

#include "cache/rw.h"

struct identity *identity_new(enum identity_method method, const char *name,
                              const char *uid)
{
    struct identity *id = xcalloc(1, sizeof(*id));

    id->refs = 1;
    id->method = method;
    id->name = xstrdup(name);
    id->uid = xstrdup(uid != NULL ? uid : "");
    return id;
}

bool identity_in_group(const struct identity *id, const char *group)
{
    for (size_t i = 0; i < id->ngroups; i++)
        if (strcmp(id->groups[i], group) == 0)
            return true;
    return false;
}

void identity_add_group(struct identity *id, const char *group)
{
    if (identity_in_group(id, group))
        return;
    id->groups = xrealloc(id->groups, (id->ngroups + 1) * sizeof(char *));
    id->groups[id->ngroups++] = xstrdup(group);
}

struct identity *identity_anonymous(void)
{
    struct identity *id =
        identity_new(IDENTITY_NONE, IDENTITY_ANONYMOUS, NULL);

    identity_add_group(id, IDENTITY_UNAUTHENTICATED);
    return id;
}

struct identity *identity_ref(struct identity *id)
{
    id->refs++;
    return id;
}

void identity_unref(struct identity *id)
{
    if (id == NULL || --id->refs > 0)
        return;
    for (size_t i = 0; i < id->ngroups; i++)
        free(id->groups[i]);
    free(id->groups);
    free(id->name);
    free(id->uid);
    free(id->pod_namespace);
    free(id->pod_name);
    free(id->pod_uid);
    free(id);
}
