/*
 * watch_key.h: the key a live watcher is filed under in its watch set's
 * dispatch index (cache/dindex.h), and the keys an event is looked up
 * under.
 *
 * A key is one kind byte and a value, not NUL-terminated:
 *   'N' + the metadata.name the field selector pins;
 *   'F' + the value it pins the resource's indexed field to (pods:
 *         spec.nodeName, as kubelets watch; watch_limits.indexed_field);
 *   'S' + the namespace of the path, else the metadata.namespace the field
 *         selector pins;
 *   '*'   no namespace and no selector: every event concerns it;
 *   '?'   filtered by something no index covers (labels, other fields, a
 *         value too long to be a key).
 * The first that applies wins, so a watcher is filed once.  An event is
 * offered to '*', '?' and to 'N', 'F' and 'S' with its new and its old
 * object's values (a pod leaving a node reaches that node's watchers as
 * DELETED); each watcher then applies its full filter.
 */
#ifndef WATCH_KEY_H
#define WATCH_KEY_H

#include <stddef.h>
#include <string.h>

struct selector;

/* Bytes of a key buffer; a value of WATCH_KEY_MAX - 1 bytes or more is
 * never a key. */
#define WATCH_KEY_MAX 512

/* The key kind + value (NULL: the kind alone) into buf (WATCH_KEY_MAX
 * bytes); returns its length in bytes, or 0 when value is too long to be
 * a key.  Inline: the dispatcher builds up to eight per event. */
static inline size_t watch_key_make(char kind, const char *value, char *buf)
{
    size_t len;

    buf[0] = kind;
    if (value == NULL)
        return 1;
    len = strlen(value);
    if (len >= WATCH_KEY_MAX - 1)
        return 0;
    memcpy(buf + 1, value, len);
    return 1 + len;
}

/* The key of a watcher of namespace ns (NULL: all) and selector sel (NULL:
 * none) into buf (WATCH_KEY_MAX bytes), the resource's indexed field being
 * extra field indexed_field (-1: none); returns its length (>= 1). */
size_t watch_key_of(const struct selector *sel, const char *ns,
                    int indexed_field, char *buf);

#endif
