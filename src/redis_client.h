/*
 * redis_client.h: one asynchronous Redis connection on a libevent base,
 * the only module that includes hiredis (its async API and libevent
 * adapter; Debian 12's hiredis 0.14: plaintext TCP only, no TLS).
 *
 * A client is created connecting.  Once TCP is up it sends AUTH with the
 * password when one is given, else PING, so that a wrong password, or a
 * server on the port that does not speak RESP, is found before anyone
 * sends a command: on_ready then fires once, and commands may be sent.
 * Commands are argv vectors (binary safe); their replies arrive in order,
 * each as a neutral struct redis_client_reply tree that is valid only
 * during the callback.
 *
 * Callback rules.  on_down fires at most once, with a sentence saying
 * why: the connection could not be made, the handshake failed (AUTH
 * refused, not a Redis server, no answer within the handshake timeout) or
 * the connection was lost (closed by the server, protocol error).  After
 * on_down the client is dead: commands fail, the callbacks of commands
 * still pending are never called (their replies are lost with the
 * connection), and the owner frees it.  No callback fires after
 * redis_client_free.  redis_client_free may be called from inside any of
 * the client's callbacks: hiredis' context is then released only when its
 * callback chain has returned (hiredis' REDIS_IN_CALLBACK deferral, as
 * redis' freeClientAsync), never under its own feet.  No function but the
 * loop runs a callback: redis_client_new reports even an immediate failure
 * from the loop.
 */
#ifndef REDIS_CLIENT_H
#define REDIS_CLIENT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct event_base;
struct redis_client;

/* A reply, translated from RESP2 (hiredis' redisReply).  str/len: the
 * bytes of a STRING, ERROR or STATUS reply (not NUL-terminated in general,
 * though hiredis does end them with a NUL); integer: an INTEGER reply;
 * elem/n: the elements of an ARRAY (nested arrays are arrays again).  A
 * NIL reply is a missing value (GET of an absent key, XREAD BLOCK timing
 * out).  ERROR: the server refused the command; str is its message
 * ("WRONGTYPE ...", a function's "CONFLICT 12").  Borrowed: valid until
 * the callback returns. */
enum redis_client_type {
    REDIS_CLIENT_STRING,
    REDIS_CLIENT_INTEGER,
    REDIS_CLIENT_ARRAY,
    REDIS_CLIENT_NIL,
    REDIS_CLIENT_ERROR,
    REDIS_CLIENT_STATUS,
};

struct redis_client_reply {
    enum redis_client_type type;
    const char *str;
    size_t len;
    long long integer;
    const struct redis_client_reply *elem;
    size_t n;
};

struct redis_client_callbacks {
    /* The connection is up and the handshake (AUTH or PING) succeeded. */
    void (*on_ready)(struct redis_client *c, void *arg);
    /* The client is dead; why is a sentence naming the address. */
    void (*on_down)(struct redis_client *c, const char *why, void *arg);
};

/* reply is never NULL; see the callback rules above. */
typedef void (*redis_client_reply_fn)(struct redis_client *c,
                                      const struct redis_client_reply *reply,
                                      void *arg);

/* Connects to host:port (host: a name or address; ringwatch passes only
 * loopback in its tests).  password: sent with AUTH when not NULL (copied;
 * Redis 6 ACL users are not supported: AUTH <password> authenticates the
 * default user).  handshake_timeout: seconds from now until on_ready, else
 * on_down ("... did not answer within N s"); 0: 10.  cbs is copied; arg
 * is passed to every callback.  Never NULL (out of memory aborts). */
struct redis_client *redis_client_new(struct event_base *base, const char *host,
                                      uint16_t port, const char *password,
                                      double handshake_timeout,
                                      const struct redis_client_callbacks *cbs,
                                      void *arg);

/* Closes the connection (pending commands are dropped without their
 * callbacks) and frees the client.  NULL is a no-op.  Safe from inside any
 * of the client's callbacks. */
void redis_client_free(struct redis_client *c);

/* Sends argv[0..argc) (argvlen[i]: the length of argv[i]; NULL: every
 * argument is a C string).  The arguments are copied.  cb (may be NULL:
 * the reply is discarded) gets the reply, unless the connection goes down
 * first.  Returns RW_OK, or RW_ECLOSED when the client is not ready (before
 * on_ready or after on_down). */
int redis_client_command(struct redis_client *c, int argc, const char **argv,
                         const size_t *argvlen, redis_client_reply_fn cb,
                         void *arg);

/* Whether TCP was established: after on_down, true tells a server that
 * answered wrongly (AUTH refused, not Redis, silent) from one that could
 * not be reached. */
bool redis_client_reached(const struct redis_client *c);

/* "host:port", for messages; valid while c is. */
const char *redis_client_address(const struct redis_client *c);

/* Copies reply's string into buf (NUL-terminated, truncated to size-1
 * bytes) and returns buf: for an error or status in a message. */
char *redis_client_reply_text(const struct redis_client_reply *reply, char *buf,
                              size_t size);

#endif
