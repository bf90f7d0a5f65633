/*
 * upstream_etcd_tls.h: the etcd adapter's TLS towards https:// members
 * (src/upstream_etcd.h): one TLS client (src/tls.h) per member, verifying
 * the member's certificate against --etcd-cafile (the system's CA store
 * without it) and its name against the member URL's host (an IP SAN for
 * an address), offering ALPN h2 and the client certificate
 * (--etcd-certfile, --etcd-keyfile), as kube-apiserver's etcd client; and
 * what their handshakes said, so that a bad certificate or CA is a clear
 * error (logged once per distinct reason, on /readyz, and fatal when the
 * first connection to every member failed TLS verification), not a quiet
 * reconnect loop.
 */
#ifndef UPSTREAM_ETCD_TLS_H
#define UPSTREAM_ETCD_TLS_H

#include <stdbool.h>
#include <stddef.h>

struct h2_client_config;
struct upstream_config;
struct upstream_members;
struct upstream_etcd_tls;

/*
 * Checks the files of --etcd-cafile, --etcd-certfile and --etcd-keyfile
 * (each may be NULL; the certificate and the key come together) as
 * ringwatch starts, as OpenSSL reads them (tls_client_new): each readable
 * and valid, the key the certificate's.  Returns RW_OK, or RW_EINVAL with
 * one line naming the option and the file ("--etcd-keyfile /k: No such
 * file or directory", "--etcd-keyfile /k: key does not match
 * certificate").
 */
int upstream_etcd_tls_check(const char *ca_file, const char *cert_file,
                            const char *key_file, char *why, size_t why_len);

/* The TLS clients of ms's members (ms->tls must be true; ms and cfg are
 * read now only).  NULL with why when a client cannot be made (the files
 * are checked at startup: one changed since). */
struct upstream_etcd_tls *
upstream_etcd_tls_new(const struct upstream_members *ms,
                      const struct upstream_config *cfg, char *why,
                      size_t why_len);

/* NULL is a no-op. */
void upstream_etcd_tls_free(struct upstream_etcd_tls *t);

/* Makes hc's connection to member i speak TLS (hc->transport); call it
 * for each connection (it notes the TLS failures so far). */
void upstream_etcd_tls_configure(struct upstream_etcd_tls *t, size_t i,
                                 struct h2_client_config *hc);

/*
 * A connection to member i (url, for the log) ended.  Returns whether TLS
 * failed it (its handshake, or a fatal alert right after it: TLS 1.3
 * servers refuse a client certificate that way), logging the reason at
 * error level when it differs from the last one logged; else the last
 * reason is forgotten (upstream_etcd_tls_error says "" again).  first: no
 * connection ever succeeded (the member is then marked as refusing TLS,
 * for upstream_etcd_tls_hopeless).  silent: the handshake completed but
 * the member closed the connection before answering anything, which is
 * how a refused certificate looks when its alert is lost (reset); that
 * counts as a TLS failure too.
 */
bool upstream_etcd_tls_failed(struct upstream_etcd_tls *t, size_t i,
                              const char *url, bool first, bool silent);

/* Whether the first connection to every member failed TLS. */
bool upstream_etcd_tls_hopeless(const struct upstream_etcd_tls *t);

/* The last TLS failure's reason ("" none); valid until the next call on
 * t.  NULL t: "". */
const char *upstream_etcd_tls_error(const struct upstream_etcd_tls *t);

#endif
