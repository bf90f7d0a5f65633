/*
 * write_impl.h: the write verbs' request, shared by their modules (not a
 * public interface: src/write.h is):
 *   write.c       the request, its answers, its store calls
 *   write_flow.c  create, and update, patch and delete as GuaranteedUpdate
 * See write.c for the design.
 */
#ifndef WRITE_IMPL_H
#define WRITE_IMPL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "proto/patch.h"
#include "src/stream.h"
#include "src/upstream.h"
#include "src/write_meta.h"

/* Rounds of GuaranteedUpdate one request makes at most: the apiserver's
 * loop runs until the request's deadline; a bound here, far above what
 * contention needs (each round lost is a write of another client). */
#define WRITE_TRIES 100
/* Names a create under generateName tries (the apiserver's 8). */
#define WRITE_GENERATE_TRIES 8

enum write_verb { VERB_CREATE, VERB_UPDATE, VERB_PATCH, VERB_DELETE };

struct write_req {
    struct stream *s;
    struct resource *r;
    const struct resource_type *rt;
    const struct upstream_reader *rd;
    struct write_rules rules;
    enum write_verb verb;
    char *ns;   /* NULL: cluster-scoped */
    char *name; /* the URL's, or the create's */
    char *key;
    bool dry_run;
    const char *body; /* the stream's */
    size_t body_len;
    enum patch_type patch;
    /* a create under generateName: its base, and the name tried */
    char *generate_base;
    /* the current object (update, patch, delete) */
    char *cur;
    size_t cur_len;
    int64_t cur_rev;
    bool cur_present;
    bool cur_fresh; /* read from the store, not the cache */
    /* delete preconditions; NULL: none */
    char *pre_uid, *pre_rv;
    /* the value being written, and whether a PUT creates */
    char *value;
    size_t value_len;
    bool creating;
    unsigned tries;
    struct upstream_read *call;
};

/* ---- write.c ---- */

/* The answer (body taken), and wr's end. */
void write_answer(struct write_req *wr, int code, struct rbuf *body);
/* A Status of code, reason and message, and wr's end. */
void write_fail(struct write_req *wr, int code, const char *reason,
                const char *message);
/* The apiserver's errors.NewNotFound, NewConflict (why after "...
 * \"name\": "), the etcd3 store's failed precondition (what "UID" or
 * "ResourceVersion"), errors.NewInvalid with causes; each ends wr. */
void write_not_found(struct write_req *wr);
void write_conflict(struct write_req *wr, const char *why);
void write_precondition(struct write_req *wr, const char *what,
                        const char *want, const char *have);
void write_invalid(struct write_req *wr, const char *name,
                   const struct write_cause *causes, size_t n);
/* A store call that failed (the apiserver's ServerTimeout or
 * InternalError); ends wr. */
void write_store_error(struct write_req *wr, int err, const char *why);
/* The success answer: the object written (res NULL: a dry run), or for a
 * delete the deleted object or a Status Success; ends wr. */
void write_succeeded(struct write_req *wr,
                     const struct upstream_write_result *res);
/* Reads the store's current object (upstream get), then
 * write_flow_step; at most WRITE_TRIES times, then a 500. */
void write_refresh(struct write_req *wr);
/* The conditional write of wr->value (op, expected mod revision); its
 * answer ends wr or steps again. */
void write_send(struct write_req *wr, enum upstream_write_op op,
                int64_t expected);

/* ---- write_flow.c ---- */

/* A create from the body (again under a new generated name on a
 * collision). */
void write_flow_create(struct write_req *wr);
/* One round for the current object (wr->cur*): update, patch or delete. */
void write_flow_step(struct write_req *wr);
/* A DELETE's DeleteOptions body (preconditions, dryRun); false once
 * answered. */
bool write_flow_delete_options(struct write_req *wr);

#endif
