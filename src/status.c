/*
 * status.c: Kubernetes Status error responses (see status.h).
 */
#include "src/status.h"

#include <stdarg.h>
#include <stdio.h>

#include "proto/kjson.h"

void status_respond(struct stream *s, int code, const char *reason,
                    const char *fmt, ...)
{
    char message[1024];
    struct rbuf *body;
    va_list ap;

    va_start(ap, fmt);
    vsnprintf(message, sizeof(message), fmt, ap);
    va_end(ap);
    if (code == 429 || code == 504)
        stream_add_header(s, "retry-after", "1");
    body = kjson_status(code, reason, message);
    stream_respond(s, code, "application/json", body);
    rbuf_unref(body);
}

void status_refuse(struct stream *s, int code, const char *why)
{
    status_respond(s, code, code == 406 ? "NotAcceptable" : "BadRequest",
                   "%s", why);
}
