/*
 * status.h: answering a request with a Kubernetes Status, the one shape
 * every error takes (docs/kube-wire.md "Status objects"): never an HTML page,
 * never a bare status line.
 */
#ifndef STATUS_H
#define STATUS_H

#include "src/stream.h"

/*
 * Responds with HTTP code and the Status {"kind":"Status",...,"reason":
 * reason,"message":<printf>,"code":code} as application/json.  For 429 and
 * 504 it adds Retry-After: 1 (as the apiserver does for TooManyRequests
 * and Timeout).  The stream is finished afterwards.
 */
void status_respond(struct stream *s, int code, const char *reason,
                    const char *fmt, ...) __attribute__((format(printf, 4, 5)));

/*
 * Responds to a request whose representation repr_resolve (proto/repr.h)
 * refused: code 406 is NotAcceptable, 400 (a bad includeObject)
 * BadRequest, with why as the message.  The stream is finished afterwards.
 */
void status_refuse(struct stream *s, int code, const char *why);

#endif
