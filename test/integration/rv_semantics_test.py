"""Every row of docs/kube-wire.md's resourceVersion table that the C cases do
not already cover, against the real store (etcd, or Redis: harness.Store):

- WATCH, RV unset or 0: synthetic ADDED for the state, then changes.
- LIST, RV unset: consistent.  Served from memory when a probe of the
  store proves the cache fresh (even though the store's revision moved on
  through other resources), and never from memory when the store cannot
  be asked: with the upstream cut, a write the cache has not seen must not
  be hidden: 504 (RV=0 still answers from the cache).
- LIST, RV=N newer than the store: 504 Timeout "Too large resource version"
  with Retry-After and the ResourceVersionTooLarge cause after ~3 s.  A
  plain WATCH from it is accepted at once (200), sends nothing (no
  BOOKMARK below N) until changes beyond N arrive, then exactly those, and
  ends cleanly at timeoutSeconds.  A sendInitialEvents WATCH from it ends
  after ~3 s with that 504 Status as its one ERROR event.
- LIST with limit/continue: pages of one snapshot, remainingItemCount,
  opaque tokens; continue with a non-zero RV -> 400; a malformed token ->
  400; an expired token -> 410 with a fresh token that continues on
  current state.
- GET of one object: RV unset (consistent), 0, N; 404 NotFound.
- Exact reads outside the ring: from etcd (504 while it is cut, and the
  daemon stays up); 410 over Redis, which keeps no old values, cut or
  not.  An undecodable value next to a namespace's objects does not slow
  its consistent LISTs.
- Concurrent consistent LISTs of one prefix share probes.
- Readiness: while the cache cannot list (upstream unreachable), LIST and
  WATCH get 429 with Retry-After and /readyz names the resource.
- Table output when the Accept header asks for one.
"""
from harness import *

CM = "/api/v1/namespaces/ns/configmaps"


def secret(ns, name):
    return {"apiVersion": "v1", "kind": "Secret", "type": "Opaque",
            "metadata": {"name": name, "namespace": ns}}


def names(lst):
    return [i["metadata"]["name"] for i in lst["items"]]


def consistent_reads(store, rw, relay):
    ra = store.put(cm_key("ns", "a"), configmap("ns", "a"))
    rw.wait_rv(ra)
    # The store moves on through another resource; the cache has nothing
    # to apply.
    other = store.put("/registry/secrets/ns/s", secret("ns", "s"))
    t0 = time.time()
    lst = rw.get_json(CM)
    check(time.time() - t0 < 1.0, "consistent LIST of a quiet resource waited %.1f s",
          time.time() - t0)
    check(int(lst["metadata"]["resourceVersion"]) >= other,
          "consistent LIST RV %s below the store's %d", lst["metadata"]["resourceVersion"], other)
    eq(names(lst), ["a"], "consistent LIST items")
    hits = rw.metric("ringwatch_list_cache_hits_total", resource="configmaps")
    check(hits >= 1, "proven-fresh LIST counted as a hit")
    # A watch from that (newer than the cache) RV starts at once.
    w = rw.watch(CM + "?watch=1&resourceVersion=%s" % lst["metadata"]["resourceVersion"])
    eq(w.status, 200, "watch from the list RV")
    rb = store.put(cm_key("ns", "b"), configmap("ns", "b"))
    events, _ = w.events_for(1.5)
    eq([(e["type"], e["object"]["metadata"]["name"], rv_of(e["object"])) for e in events],
       [("ADDED", "b", rb)], "watch from a proven RV")
    w.close()
    # GET of one object: unset, 0, N; and 404.
    eq(rw.get_json(CM + "/a")["metadata"]["name"], "a", "GET a")
    eq(rw.get_json(CM + "/a?resourceVersion=0")["metadata"]["name"], "a", "GET a RV=0")
    eq(rv_of(rw.get_json(CM + "/b?resourceVersion=%d" % rb)), rb, "GET b RV=rb")
    st = rw.get_json(CM + "/zz", want_status=404)
    eq((st["reason"], st["message"]), ("NotFound", 'configmaps "zz" not found'), "GET zz")

    # WATCH with RV unset (a consistent state) and RV=0 (the cache's):
    # synthetic ADDED for every object, then the changes.
    for q in ("watch=1", "watch=1&resourceVersion=0"):
        w = rw.watch(CM + "?" + q)
        events, _ = w.events_for(1.0)
        eq([(e["type"], e["object"]["metadata"]["name"]) for e in events],
           [("ADDED", "a"), ("ADDED", "b")], "initial events of ?%s" % q)
        rm = store.put(cm_key("ns", "a"), configmap("ns", "a", {"m": q}))
        events, _ = w.events_for(1.5)
        eq([(e["type"], e["object"]["metadata"]["name"], rv_of(e["object"])) for e in events],
           [("MODIFIED", "a", rm)], "changes after the initial events of ?%s" % q)
        w.close()

    # Cut the upstream and write behind the cache's back.
    relay.cut()
    rc = store.put(cm_key("ns", "c"), configmap("ns", "c"))
    status, hdrs, body = rw.get(CM)
    eq(status, 504, "consistent LIST without the store (body %r)" % body[:200])
    eq(hdrs.get("retry-after"), "1", "Retry-After")
    eq(json.loads(body)["reason"], "Timeout", "reason")
    status, _, body = rw.get(CM + "/a")
    eq(status, 504, "consistent GET without the store")
    lst = rw.get_json(CM + "?resourceVersion=0")
    eq(names(lst), ["a", "b"], "RV=0 LIST from the cache")
    relay.restore()
    rw.wait_rv(rc)
    eq(names(rw.get_json(CM)), ["a", "b", "c"], "consistent LIST after restore")


def outages_and_odd_values(store, rw, relay):
    """An Exact read outside the ring: from etcd, and 504 while it is
    unreachable (the daemon stays up); 410 over Redis, which keeps no old
    values, whether or not it is reachable (there is nothing to ask it).
    An undecodable value does not defeat the proof of freshness."""
    first = store.put(cm_key("old", "x0"), configmap("old", "x0"))
    last = first
    for i in range(1, 12):  # more than the ring (8) holds
        last = store.put(cm_key("old", "x%d" % i), configmap("old", "x%d" % i))
    rw.wait_rv(last)
    exact = "/api/v1/namespaces/old/configmaps?resourceVersion=%d&resourceVersionMatch=Exact" % first
    if store.old_revisions:
        eq(names(rw.get_json(exact)), ["x0"], "Exact outside the ring, from the store")
    else:
        eq(rw.get(exact)[0], 410, "Exact outside the ring of a store without old values")
    relay.cut()
    for attempt in range(3):
        status, hdrs, body = rw.get(exact)
        eq(status, 504 if store.old_revisions else 410,
           "Exact outside the ring while the store is cut (attempt %d): %r"
           % (attempt, body[:200]))
    eq(rw.get("/healthz")[0], 200, "alive after reads during the outage")
    relay.restore()
    rw.wait_ready()

    bad = store.put_raw("/registry/configmaps/bad/x", "not json")
    good = store.put(cm_key("bad", "y"), configmap("bad", "y"))
    rw.wait_rv(good)
    store.put("/registry/secrets/ns/moves-the-store-on", secret("ns", "moves-the-store-on"))
    t0 = time.time()
    eq(names(rw.get_json("/api/v1/namespaces/bad/configmaps")), ["y"],
       "consistent LIST next to an undecodable value")
    check(time.time() - t0 < 1.0, "it waited %.1f s", time.time() - t0)


def shared_probes(rw, relay):
    """100 consistent LISTs at once cost the store a few probes, not 100:
    at most one is in flight, and the reads that come meanwhile share the
    next.  The relay makes each answer take 10 ms, as a store further away
    would (a local Redis answers in a tenth of a millisecond, before the
    next read arrives)."""
    import threading
    relay.delay = 0.005
    before = rw.metric("ringwatch_freshness_probes_total", resource="configmaps")
    statuses = []

    def one():
        statuses.append(rw.get(CM)[0])
    threads = [threading.Thread(target=one) for _ in range(100)]
    for t in threads:
        t.start()
    for t in threads:
        t.join(20)
    eq(statuses, [200] * 100, "concurrent consistent LISTs")
    probes = rw.metric("ringwatch_freshness_probes_total", resource="configmaps") - before
    check(1 <= probes <= 50, "%d probes for 100 concurrent LISTs", probes)
    relay.delay = 0


def too_large_status(st, future, what):
    """The apiserver's storage.NewTooLargeResourceVersionError."""
    eq((st["kind"], st["status"], st["code"], st["reason"]), ("Status", "Failure", 504, "Timeout"),
       "%s: Status" % what)
    check(st["message"].startswith("Timeout: Too large resource version: %d, current: " % future),
          "%s: message %r", what, st["message"])
    eq(st["details"], {"causes": [{"reason": "ResourceVersionTooLarge",
                                   "message": "Too large resource version"}],
                       "retryAfterSeconds": 1}, "%s: details" % what)


def too_large(store, rw):
    future = store.revision() + 1000
    t0 = time.time()
    status, hdrs, body = rw.get(CM + "?resourceVersion=%d" % future)
    took = time.time() - t0
    eq(status, 504, "LIST from the future")
    too_large_status(json.loads(body), future, "LIST")
    eq(hdrs.get("retry-after"), "1", "Retry-After")
    check(2.5 <= took <= 6, "waited %.1f s, not ~3 s", took)
    eq(rw.get(CM + "/a?resourceVersion=%d" % future)[0], 504, "GET from the future")

    # A sendInitialEvents watch cannot be made fresh: 200, then the 504
    # Status as its one ERROR event after ~3 s, then the end.
    t0 = time.time()
    w = rw.watch(CM + "?watch=1&sendInitialEvents=true&resourceVersionMatch=NotOlderThan"
                 "&allowWatchBookmarks=true&resourceVersion=%d" % future)
    eq(w.status, 200, "sendInitialEvents WATCH from the future")
    events, ended = w.events_for(8)
    took = time.time() - t0
    check(ended, "sendInitialEvents WATCH from the future did not end")
    eq([e["type"] for e in events], ["ERROR"], "sendInitialEvents WATCH events")
    too_large_status(events[0]["object"], future, "sendInitialEvents WATCH")
    check(2.5 <= took <= 6, "ERROR after %.1f s, not ~3 s", took)

    # A plain watch from a revision the store has not reached: accepted at once;
    # nothing (not even a bookmark) until changes beyond N, then those; it
    # ends cleanly at timeoutSeconds.
    n = store.revision() + 3
    t0 = time.time()
    w = rw.watch(CM + "?watch=1&allowWatchBookmarks=true&timeoutSeconds=7&resourceVersion=%d" % n)
    eq(w.status, 200, "WATCH from the future")
    check(time.time() - t0 < 1, "WATCH from the future answered after %.1f s", time.time() - t0)
    events, ended = w.events_for(2.5)
    eq((events, ended), ([], False), "WATCH from the future before any write (bookmarks every 1 s)")
    writes = [store.put(cm_key("ns", "f%d" % i), configmap("ns", "f%d" % i)) for i in range(3)]
    eq(writes[-1], n, "the third write's revision")
    events, _ = w.events_for(2.5)
    check(all(e["type"] == "BOOKMARK" and rv_of(e["object"]) >= n for e in events),
          "changes up to N (or bookmarks below it) sent: %r", events)
    rf = store.put(cm_key("ns", "f3"), configmap("ns", "f3"))
    events, ended = w.events_for(10)
    check(ended, "WATCH from the future did not end at timeoutSeconds")
    check(time.time() - t0 < 9, "ended after %.1f s, timeoutSeconds=7", time.time() - t0)
    eq([(e["type"], e["object"]["metadata"]["name"], rv_of(e["object"]))
        for e in events if e["type"] != "BOOKMARK"], [("ADDED", "f3", rf)],
       "WATCH from the future after N")
    check(all(rv_of(e["object"]) >= rf for e in events if e["type"] == "BOOKMARK"),
          "bookmark below the last event: %r", events)
    check(any(e["type"] == "BOOKMARK" for e in events), "no bookmark after N: %r", events)


def pagination(store, rw):
    last = 0
    for i in range(7):
        last = store.put(cm_key("pg", "o%d" % i), configmap("pg", "o%d" % i))
    rw.wait_rv(last)
    P = "/api/v1/namespaces/pg/configmaps"
    seen, token, rvs = [], None, set()
    for page in range(10):
        lst = rw.get_json(P + "?limit=3" + ("&continue=" + token if token else ""))
        seen += names(lst)
        rvs.add(lst["metadata"]["resourceVersion"])
        token = lst["metadata"].get("continue")
        if page == 0:
            eq(lst["metadata"].get("remainingItemCount"), 4, "remainingItemCount")
            # A write between pages does not show: one snapshot.
            store.put(cm_key("pg", "o0z"), configmap("pg", "o0z"))
        if not token:
            break
    eq(seen, ["o%d" % i for i in range(7)], "pages")
    eq(len(rvs), 1, "every page at one RV")
    # Label selector pages carry no remainingItemCount.
    lst = rw.get_json(P + "?limit=2&labelSelector=!nope")
    check("remainingItemCount" not in lst["metadata"], "no count under a selector")
    check("continue" in lst["metadata"], "token under a selector")

    lst = rw.get_json(P + "?limit=2")
    tok = lst["metadata"]["continue"]
    status, _, body = rw.get(P + "?limit=2&resourceVersion=5&continue=" + tok)
    eq(status, 400, "continue with a resourceVersion")
    status, _, body = rw.get(P + "?limit=2&continue=bm90LWEtdG9rZW4")
    eq(status, 400, "malformed token")
    check(b"continue key is not valid" in body, "malformed token message %r", body[:200])

    # Expire the token: many writes evict its revision from the ring, then
    # compact the store past it.
    for i in range(20):
        last = store.put(cm_key("pg", "o1"), configmap("pg", "o1", {"i": str(i)}))
    rw.wait_rv(last)
    store.compact(last)
    status, _, body = rw.get(P + "?limit=2&continue=" + tok)
    eq(status, 410, "expired token (body %r)" % body[:300])
    st = json.loads(body)
    eq(st["reason"], "Expired", "expired token reason")
    fresh = st["metadata"]["continue"]
    lst = rw.get_json(P + "?limit=100&continue=" + fresh)
    eq(names(lst), ["o1", "o2", "o3", "o4", "o5", "o6"], "inconsistent continue")


def table(rw):
    status, _, body = rw.get("/api/v1/namespaces/pg/configmaps?limit=2", headers={
        "Accept": "application/json;as=Table;v=v1;g=meta.k8s.io,"
                  "application/json;as=Table;v=v1beta1;g=meta.k8s.io,application/json"})
    eq(status, 200, "Table status")
    t = json.loads(body)
    eq((t["kind"], t["apiVersion"]), ("Table", "meta.k8s.io/v1"), "Table kind")
    eq([c["name"] for c in t["columnDefinitions"]][:1], ["Name"], "Table columns")
    eq(len(t["rows"]), 2, "Table rows")
    check("continue" in t["metadata"], "Table continue token")
    eq(t["rows"][0]["cells"][0], "o0", "first cell")


def readiness(store):
    relay = Relay(store)
    relay.cut()
    rw = Ringwatch(store, resources="configmaps", upstream=relay.url, wait=False)
    time.sleep(0.5)
    for path in (CM, CM + "?watch=1"):
        status, hdrs, body = rw.get(path)
        eq(status, 429, "%s before the first list" % path)
        eq(hdrs.get("retry-after"), "1", "Retry-After")
    status, _, body = rw.get("/readyz?verbose")
    eq(status, 500, "/readyz before the first list (%r)" % body[:300])
    check(b"[-]cache/configmaps" in body, "readyz names the resource: %r", body[:300])
    relay.restore()
    rw.wait_ready()
    eq(rw.get(CM)[0], 200, "LIST once ready")


def main():
    store = Store()
    relay = Relay(store)
    rw = Ringwatch(store, "--ring-capacity", "8", "--bookmark-interval", "1",
                   resources="configmaps", upstream=relay.url)
    consistent_reads(store, rw, relay)
    outages_and_odd_values(store, rw, relay)
    shared_probes(rw, relay)
    too_large(store, rw)
    pagination(store, rw)
    table(rw)
    readiness(store)


run(main)
