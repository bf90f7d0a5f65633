/*
 * impersonate.c: acting as another user (see impersonate.h).
 */
#include "src/impersonate.h"

#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cache/rw.h"
#include "src/authz.h"

#define EXTRA_PREFIX "impersonate-extra-"
#define AUTHN_GROUP "authentication.k8s.io"

/* One "name: value" entry of the fields, split in place (a copy). */
struct entry {
    const char *name, *value;
};

/* Splits the copy text into its entries, *e (the caller frees it);
 * returns how many. */
static size_t entries_split(char *text, struct entry **e)
{
    size_t n = 1;

    for (const char *p = text; (p = strchr(p, '\n')) != NULL; p++)
        n++;
    *e = xcalloc(n, sizeof(**e));
    n = 0;
    for (char *line = text, *next; line != NULL; line = next) {
        char *colon;

        if ((next = strchr(line, '\n')) != NULL)
            *next++ = '\0';
        if ((colon = strstr(line, ": ")) == NULL)
            continue;
        *colon = '\0';
        (*e)[n++] = (struct entry){line, colon + 2};
    }
    return n;
}

/* Whether id may impersonate what a names; if not, *forbidden. */
static bool allowed(struct authz *z, const struct identity *id,
                    const struct authz_attributes *a, struct rbuf **forbidden)
{
    char reason[AUTHZ_REASON_MAX];

    if (authz_authorize(z, id, a, reason, sizeof(reason)) == AUTHZ_ALLOW)
        return true;
    *forbidden = authz_forbidden_status(id, a, reason, false);
    return false;
}

static struct authz_attributes attributes(const char *group,
                                          const char *resource,
                                          const char *subresource,
                                          const char *ns, const char *name)
{
    return (struct authz_attributes){.verb = "impersonate",
                                     .resource_request = true,
                                     .api_group = group,
                                     .api_version = "v1",
                                     .resource = resource,
                                     .subresource = subresource,
                                     .ns = ns,
                                     .name = name,
                                     .path = ""};
}

/* The user's authorization: a service account's, else "users" NAME. */
static bool user_allowed(struct authz *z, const struct identity *id,
                         const char *user, struct rbuf **forbidden)
{
    char ns[IDENTITY_NS_MAX + 1];
    const char *name;
    struct authz_attributes a =
        identity_sa_split(user, ns, &name)
            ? attributes("", "serviceaccounts", "", ns, name)
            : attributes("", "users", "", "", user);

    return allowed(z, id, &a, forbidden);
}

/* A new identity for user with uid and groups (impersonate.h). */
static struct identity *acting_as(const struct identity *id, const char *user,
                                  const char *uid, const struct entry *e,
                                  size_t n)
{
    struct identity *out = identity_new(id->method, user, uid);
    bool groups = false, authn = false, unauthn = false;
    char ns[IDENTITY_NS_MAX + 1];
    const char *name;

    for (size_t i = 0; i < n; i++)
        if (strcmp(e[i].name, "impersonate-group") == 0) {
            identity_add_group(out, e[i].value);
            groups = true;
        }
    if (!groups && identity_sa_split(user, ns, &name))
        identity_add_sa_groups(out, ns);
    authn = identity_in_group(out, IDENTITY_AUTHENTICATED);
    unauthn = identity_in_group(out, IDENTITY_UNAUTHENTICATED);
    if (strcmp(user, IDENTITY_ANONYMOUS) != 0) {
        if (!authn && !unauthn)
            identity_add_group(out, IDENTITY_AUTHENTICATED);
    } else if (!unauthn) {
        identity_add_group(out, IDENTITY_UNAUTHENTICATED);
    }
    return out;
}

enum impersonate_result impersonate(struct authz *z, struct identity *id,
                                    const char *fields, struct identity **out,
                                    struct rbuf **forbidden, char *message,
                                    size_t message_len)
{
    struct entry *e;
    const char *user = NULL, *uid = NULL;
    bool others = false;
    char *text;
    size_t n;
    enum impersonate_result r = IMPERSONATE_OK;

    *out = NULL;
    *forbidden = NULL;
    if (fields == NULL || fields[0] == '\0') {
        *out = identity_ref(id);
        return IMPERSONATE_OK;
    }
    text = xstrdup(fields);
    n = entries_split(text, &e);
    for (size_t i = 0; i < n; i++) {
        /* Go's Header.Get: the first one; an empty value is none */
        if (strcmp(e[i].name, "impersonate-user") == 0 && user == NULL)
            user = e[i].value[0] != '\0' ? e[i].value : NULL;
        else if (strcmp(e[i].name, "impersonate-uid") == 0 && uid == NULL)
            uid = e[i].value[0] != '\0' ? e[i].value : NULL;
        if (strcmp(e[i].name, "impersonate-group") == 0 ||
            strncmp(e[i].name, EXTRA_PREFIX, strlen(EXTRA_PREFIX)) == 0)
            others = true;
    }
    if (user == NULL) {
        if (others || uid != NULL) {
            snprintf(message, message_len,
                     "Internal error occurred: requested groups, extras or a "
                     "uid without impersonating a user");
            r = IMPERSONATE_INVALID;
        } else {
            *out = identity_ref(id); /* nothing the apiserver reads */
        }
        free(e);
        free(text);
        return r;
    }
    if (!user_allowed(z, id, user, forbidden))
        r = IMPERSONATE_FORBIDDEN;
    for (size_t i = 0; i < n && r == IMPERSONATE_OK; i++) {
        struct authz_attributes a;

        if (strcmp(e[i].name, "impersonate-group") == 0)
            a = attributes("", "groups", "", "", e[i].value);
        else if (strncmp(e[i].name, EXTRA_PREFIX, strlen(EXTRA_PREFIX)) == 0)
            a = attributes(AUTHN_GROUP, "userextras",
                           e[i].name + strlen(EXTRA_PREFIX), "", e[i].value);
        else
            continue;
        if (!allowed(z, id, &a, forbidden))
            r = IMPERSONATE_FORBIDDEN;
    }
    if (r == IMPERSONATE_OK && uid != NULL) {
        struct authz_attributes a =
            attributes(AUTHN_GROUP, "uids", "", "", uid);

        if (!allowed(z, id, &a, forbidden))
            r = IMPERSONATE_FORBIDDEN;
    }
    if (r == IMPERSONATE_OK)
        *out = acting_as(id, user, uid, e, n);
    free(e);
    free(text);
    return r;
}
