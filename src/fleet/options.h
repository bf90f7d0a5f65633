/*
 * options.h: ringwatch-fleet's command line, as one table of struct
 * option_spec (src/config.h) that parses argv into struct fleet_config,
 * prints --help, and must agree with man/ringwatch-fleet.1 (a unit test,
 * test/fleet_options_test.c, checks all three).
 *
 * The parsed struct is immutable once main has checked it; strings point
 * into argv or the table.  Options without a value default to NULL
 * (strings) or 0 (numbers) meaning "not given".
 */
#ifndef FLEET_OPTIONS_H
#define FLEET_OPTIONS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "src/config.h"

struct fleet_config {
    const char *server;         /* ringwatch's URL, http(s)://HOST:PORT */
    const char *cacert;         /* --server's CA (PEM); NULL: system's */
    const char *cert, *key;     /* client certificate for --server; NULL */
    const char *token;          /* bearer token for --server; NULL */
    const char *resource;       /* resource type, resource_type_find spelling */
    uint64_t watchers;          /* watch streams */
    uint64_t connections;       /* HTTP/2 connections; 0: ceil(watchers/100) */
    bool http1;                 /* one HTTP/1.1 connection per watcher */
    const char *label_selector; /* NULL: none */
    const char *field_selector; /* NULL: none */
    double duration;            /* seconds of load, from the first watch */
    double watch_delay;         /* seconds between the initial LIST and the
                                   watches */
    double drain_timeout;       /* seconds to wait for stragglers at the end */
    const char *etcd;           /* etcd URL (oracle, writer, final state) */
    const char *etcd_cacert;    /* --etcd's CA (PEM); NULL: system's */
    const char *etcd_cert, *etcd_key; /* client certificate for --etcd */
    const char *redis;          /* Redis URL, in place of --etcd */
    const char *redis_password_file; /* AUTH password file; NULL: none */
    const char *redis_revisions;     /* global or per-resource */
    uint64_t redis_history;          /* log length the writes trim to */
    uint64_t write_rate;        /* writes per second; 0: no writer */
    const char *write_via;      /* store or server */
    uint64_t contention;        /* writers per update (>= 1) */
    uint64_t server_pid;        /* ringwatch's pid for CPU and RSS; 0: none */
    const char *report;         /* JSON report path; NULL: none */
    const char *profile;        /* controller, kubelet or mix */
    uint64_t nodes;             /* kubelet nodes; 0: one per kubelet */
    uint64_t mix_controllers;   /* controllers of --profile mix */
    bool churn;                 /* create/update/move/delete pods */
    uint64_t pods;              /* live pods --churn keeps */
    const char *move_fraction;  /* of churn updates, in [0, 1] (text) */
    uint64_t seed;              /* churn's random seed */
    const char *target;         /* ringwatch, etcd or redis */
    const char *log_level;
};

/* The synopsis --help prints after the program name. */
#define FLEET_SYNOPSIS                                                         \
    "--server URL --resource RESOURCE --watchers N --duration SECONDS "        \
    "[options]"

extern const struct option_spec options_specs[];
extern const size_t options_nspecs;

#endif
