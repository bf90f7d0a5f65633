"""C01 too-old watch answers in-band.

Ring capacity 8; put ns/a 20 times.  A watch of CM from the first of those
revisions gets HTTP 200 and exactly one ERROR event: a Status with code
410, reason Expired, message "too old resource version: <req> (<oldest-1>)";
then the stream ends.  Never a bare HTTP 410, never an empty 200.
"""
from harness import *


def main():
    store = Store()
    rw = Ringwatch(store, "--ring-capacity", "8", resources="configmaps")
    revs = [store.put(cm_key("ns", "a"), configmap("ns", "a", {"i": str(i)}))
            for i in range(20)]
    rw.wait_rv(revs[-1])

    w = rw.watch("/api/v1/namespaces/ns/configmaps?watch=true&resourceVersion=%d" % revs[0])
    eq(w.status, 200, "HTTP status of a too-old watch")
    eq(w.headers.get("content-type"), "application/json", "content type")
    events, ended = w.events_for(5)
    check(ended, "the stream did not end after the ERROR event: %r", events)
    eq(len(events), 1, "number of events (%r)" % events)
    ev = events[0]
    eq(ev["type"], "ERROR", "event type")
    st = ev["object"]
    eq(st["kind"], "Status", "object kind")
    eq(st["apiVersion"], "v1", "object apiVersion")
    eq(st["status"], "Failure", "status")
    eq(st["code"], 410, "code")
    eq(st["reason"], "Expired", "reason")
    # The ring holds the last 8 writes: the oldest is revs[12].
    eq(st["message"], "too old resource version: %d (%d)" % (revs[0], revs[12] - 1),
       "message")
    eq(rw.metric("ringwatch_watch_cache_misses_total", resource="configmaps"), 1.0,
       "misses counted")


run(main)
