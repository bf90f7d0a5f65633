/*
 * upstream_etcd_write.h: the etcd adapter's conditional writes and its
 * linearizable get of one key (src/upstream.h's upstream_reader get and
 * write), each one unary call on the adapter's connection, sent and
 * canceled as its reads (src/upstream_etcd_read.h).  As kube-apiserver's
 * etcd3 store (k8s.io/apiserver/pkg/storage/etcd3/store.go):
 *
 *   CREATE  Txn if create_revision(key) == 0 then Put else Range(key)
 *   UPDATE  Txn if mod_revision(key) == expected (expected 0: if
 *           create_revision(key) > 0, the key exists) then Put else
 *           Range(key)
 *   DELETE  the same compare, then DeleteRange(key, prev_kv) else
 *           Range(key)
 *   get     Range(key), linearizable (not serializable)
 *
 * A failed compare's Range tells the outcome: no key is RW_ENOTFOUND
 * (UPDATE, DELETE), a key is RW_EEXIST (CREATE) or RW_ECONFLICT, with its
 * current value and mod revision.
 */
#ifndef UPSTREAM_ETCD_WRITE_H
#define UPSTREAM_ETCD_WRITE_H

struct upstream_etcd_read;

/* Sets rd's reader's get and write (before the reader is handed out). */
void upstream_etcd_write_install(struct upstream_etcd_read *rd);

#endif
