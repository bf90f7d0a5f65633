/*
 * identity.c: who made a request (see identity.h).
 */
#include "src/identity.h"

#include <stdlib.h>
#include <string.h>

#include "cache/rw.h"
#include "cache/validation.h"

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
    struct identity *id = identity_new(IDENTITY_NONE, IDENTITY_ANONYMOUS, NULL);

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

void identity_add_sa_groups(struct identity *id, const char *ns)
{
    char *group = xasprintf(IDENTITY_SA_GROUP ":%s", ns);

    identity_add_group(id, IDENTITY_SA_GROUP);
    identity_add_group(id, group);
    free(group);
}

bool identity_sa_split(const char *user, char ns[IDENTITY_NS_MAX + 1],
                       const char **name)
{
    const char *at, *colon;

    if (strncmp(user, IDENTITY_SA_PREFIX, strlen(IDENTITY_SA_PREFIX)) != 0)
        return false;
    at = user + strlen(IDENTITY_SA_PREFIX);
    if ((colon = strchr(at, ':')) == NULL ||
        (size_t)(colon - at) > IDENTITY_NS_MAX ||
        !validation_dns1123_label(at, (size_t)(colon - at)) ||
        !validation_dns1123_subdomain(colon + 1, strlen(colon + 1)))
        return false;
    memcpy(ns, at, (size_t)(colon - at));
    ns[colon - at] = '\0';
    *name = colon + 1;
    return true;
}
