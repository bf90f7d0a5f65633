/*
 * options_fuzz.c: ringwatch's command line on arbitrary bytes.  The input,
 * split at newlines, is argv (at most 15 arguments): config_parse then
 * config_check either accept it, with every number within its option's
 * bounds and every address parsable again, or refuse it with one line.
 * The whole input is also given to address_parse_listen,
 * address_parse_server_url and upstream_members_parse
 * (--upstream's member lists), whose results must be well formed.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "cache/rw.h"
#include "src/address.h"
#include "src/config.h"
#include "src/upstream_members.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static void check_addresses(const char *text)
{
    struct sockaddr_storage ss;
    socklen_t sslen = sizeof(ss);
    char why[256], *host, *port;
    struct upstream_members ms;
    bool tls;

    if (address_parse_listen(text, &ss, &sslen, why, sizeof(why)) == RW_OK)
        rw_assert(ss.ss_family == AF_INET || ss.ss_family == AF_INET6);
    else
        rw_assert(strncmp(why, "expected ", 9) == 0 ||
                  strncmp(why, "port out of range", 17) == 0);
    if (address_parse_server_url(text, &host, &port, &tls, why,
                                 sizeof(why)) == RW_OK) {
        long p = strtol(port, NULL, 10);

        rw_assert(host[0] != '\0' && p >= 1 && p <= 65535);
        rw_assert(tls == (strncasecmp(text, "https://", 8) == 0));
        free(host);
        free(port);
    }
    if (upstream_members_parse(text, &ms, why, sizeof(why)) == RW_OK) {
        rw_assert(ms.n >= 1);
        for (size_t i = 0; i < ms.n; i++)
            rw_assert(ms.m[i].host[0] != '\0' && ms.m[i].url[0] != '\0');
        upstream_members_fini(&ms);
    } else {
        rw_assert(ms.n == 0 && ms.m == NULL && why[0] != '\0');
    }
}

static void check_config(const struct config *c)
{
    for (size_t i = 0; i < config_noptions; i++) {
        const struct option_spec *o = &config_options[i];
        const char *field = (const char *)c + o->offset;
        double v;

        if (o->type == OPT_UINT || o->type == OPT_BYTES)
            v = (double)*(const uint64_t *)field;
        else if (o->type == OPT_SECONDS)
            v = *(const double *)field;
        else
            continue;
        rw_assert(v >= o->min && v <= o->max);
    }
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    char *text = xstrndup((const char *)data, size), *save = NULL;
    char *copy = xstrdup(text), *argv[16] = {"ringwatch"};
    char why[1024];
    struct config c;
    struct config_resources res;
    int argc = 1, rc;

    check_addresses(text);
    for (char *tok = strtok_r(copy, "\n", &save); tok != NULL && argc < 16;
         tok = strtok_r(NULL, "\n", &save))
        argv[argc++] = tok;
    rc = config_parse(config_options, config_noptions, &c, argc, argv, why,
                      sizeof(why));
    if (rc == RW_OK) {
        check_config(&c);
        rc = config_check(&c, &res, why, sizeof(why));
        if (rc == RW_OK) {
            rw_assert(res.n > 0);
            config_resources_fini(&res);
        } else {
            rw_assert(strncmp(why, "--", 2) == 0 && res.types == NULL);
        }
    }
    rw_assert(rc == RW_OK || rc == CONFIG_HELP || rc == CONFIG_VERSION ||
              strchr(why, '\n') == NULL);
    free(copy);
    free(text);
    return 0;
}
