"""A store that goes backwards: real etcd, or Redis (harness.Store),
restarted on its port from an older copy of its data (etcd's data
directory; Redis's RDB file).

1. The store is stopped, its data copied, and it is started again on the
   same port: the same history, so nothing is reset (no false alarm).
2. More writes (a new object, a change, a delete), read through
   ringwatch: LIST, watches (plain, sendInitialEvents, on another
   resource), a continue token and an Exact read.
3. The store is stopped, the older copy put back, the store started
   again: its revision is below what ringwatch served (r_old), and new
   writes reuse those revisions for other changes.  Every watch ends with
   ERROR 410 Expired (so informers relist); a fresh consistent LIST shows
   exactly the store's state (the object the old history created is gone,
   the restored ones are back, the new one is there); the old continue
   token and the old Exact read get 410;
   ringwatch_upstream_store_resets_total{reason="revision"} counts 1 per
   resource; the reset is logged once.
4. While the store is below r_old, every revision ringwatch can vouch for
   is lost: a watch from its own LIST's revision gets ERROR 410 after
   about a second, so a client that relists at once lists about once a
   second, each time the store's state; a continue token of the new
   history is served.
5. The new history writes past r_old.  The reviewer's scenario: an
   informer that held the old history's state at r_old comes back; its
   watch and Exact reads get 410 (never the new history's changes after
   r_old as if they followed its state), its NotOlderThan LIST the current
   state at a revision past r_old.  Every LIST hands out a revision past
   r_old now, and a watch from it sees the next write.
6. etcd only: while ringwatch is cut off (a TCP relay), etcd is replaced
   by a brand-new cluster on the same port, written past ringwatch's
   revision: the cluster ID alone tells; the same outcome, counted as
   reason "identity".  (A standalone Redis has no identity that outlives
   a restart: its run ID changes at every start.)
7. Another store, without progress notifications (etcd's are off; over
   Redis ringwatch reads the revision counter itself): after a restore,
   pods are not written while configmaps pass r_old, so the pods cache
   stays at a lost revision; pods LISTs and a watch-list's
   initial-events-end bookmark are still at the store's revision (proven
   by a probe), watches from them work, and no timer bookmark is sent at
   a lost revision.
8. Another store restarted from an older copy while ringwatch is
   connected, with no timer bookmarks: ringwatch notices at its reconnect
   (before the new history's writes pass what it served), not at a
   progress read that may come after them.
"""
from harness import *

CM = "/api/v1/namespaces/ns/configmaps"
PODS = "/api/v1/namespaces/ns/pods"


def pod(name):
    return {"apiVersion": "v1", "kind": "Pod",
            "metadata": {"name": name, "namespace": "ns",
                         "creationTimestamp": "2026-11-29T00:00:00Z"},
            "spec": {"nodeName": "n1"}}


def state(lst):
    return sorted((i["metadata"]["name"], rv_of(i), i.get("data")) for i in lst["items"])


def store_state(store, prefix):
    return sorted((k.rsplit("/", 1)[1], rev, json.loads(v).get("data"))
                  for k, (rev, v) in store.range(prefix).items())


def expect_410(w, what, old_rv):
    """The watch gets nothing but bookmarks of the old history, then ERROR
    410 Expired, then its end."""
    events, ended = w.events_for(15)
    check(ended, "%s: the stream did not end (events %r)", what, events)
    eq([e["type"] for e in events if e["type"] != "BOOKMARK"], ["ERROR"], "%s: events" % what)
    check(all(rv_of(e["object"]) >= old_rv for e in events if e["type"] == "BOOKMARK"),
          "%s: a bookmark of the new history: %r", what, events)
    st = events[-1]["object"]
    eq((st["code"], st["reason"]), (410, "Expired"), "%s: Status" % what)


def wait_list(rw, path, store, prefix, timeout=15):
    """Waits until a consistent LIST of path is 200 (ready again) and
    equals the store's state under prefix; returns it."""
    deadline = time.time() + timeout
    while True:
        status, _, body = rw.get(path)
        if status == 200:
            lst = json.loads(body)
            if state(lst) == store_state(store, prefix):
                return lst
        else:
            check(status in (429, 504), "LIST during the reset: %d %r", status, body[:200])
        if time.time() > deadline:
            raise Failure("LIST %s never matched the store: %s %r vs %r" % (
                path, status, body[:300], store_state(store, prefix)))
        time.sleep(0.1)


def resets(rw, reason):
    return [rw.metric("ringwatch_upstream_store_resets_total", resource=r, reason=reason)
            for r in ("pods", "configmaps")]


def restore_older_copy(store, relay, rw):
    store.put(cm_key("ns", "a"), configmap("ns", "a", {"v": "1"}))
    store.put(cm_key("ns", "b"), configmap("ns", "b", {"v": "1"}))
    r_snap = store.put("/registry/pods/ns/p", pod("p"))
    rw.wait_rv(r_snap)

    # A restart over the same data: the same history.
    store.halt()
    store.resume()
    snap = store.snapshot()
    rc = store.put(cm_key("ns", "c"), configmap("ns", "c", {"v": "old history"}))
    rw.wait_rv(rc)
    early = rw.get_json(CM + "?limit=1")
    eq(rv_of(early), rc, "paged LIST revision just after c")
    store.put(cm_key("ns", "a"), configmap("ns", "a", {"v": "2"}))
    r_old = store.delete(cm_key("ns", "b"))
    lst = rw.wait_rv(r_old)
    eq(state(lst), [("a", r_old - 1, {"v": "2"}), ("c", r_old - 2, {"v": "old history"})],
       "LIST before the restore")
    eq(resets(rw, "revision"), [0.0, 0.0], "resets after a plain restart")
    eq(state(rw.get_json(CM)), state(lst), "consistent LIST before the restore")
    page = rw.get_json(CM + "?limit=1")
    token = page["metadata"]["continue"]
    eq(rv_of(page), r_old, "paged LIST revision")
    eq(rw.get(CM + "?resourceVersion=%d&resourceVersionMatch=Exact" % r_old)[0], 200,
       "Exact read at the old revision before the restore")

    watches = {
        "plain": rw.watch(CM + "?watch=1&resourceVersion=%d" % r_old),
        "all namespaces": rw.watch("/api/v1/configmaps?watch=1&resourceVersion=%d"
                                   "&allowWatchBookmarks=true" % r_old),
        "sendInitialEvents": rw.watch(CM + "?watch=1&sendInitialEvents=true&allowWatchBookmarks=true"
                                      "&resourceVersionMatch=NotOlderThan"),
        "pods": rw.watch(PODS + "?watch=1&resourceVersion=%d" % r_old),
    }
    watches["sendInitialEvents"].events_for(1)  # its initial events and marker

    # Restore the older copy: the store is back at r_snap < r_old.
    store.restore(snap)
    eq(store.revision(), r_snap, "the store's revision after the restore")
    rd = store.put(cm_key("ns", "d"), configmap("ns", "d", {"v": "new history"}))
    check(rd <= r_old, "the new write reuses an old revision (%d > %d)", rd, r_old)

    for what, w in watches.items():
        expect_410(w, what, r_old)
    lst = wait_list(rw, CM, store, "/registry/configmaps/")
    eq([n for n, _, _ in state(lst)], ["a", "b", "d"], "names after the restore")
    eq(dict((n, d) for n, _, d in state(lst)),
       {"a": {"v": "1"}, "b": {"v": "1"}, "d": {"v": "new history"}}, "data after the restore")
    wait_list(rw, PODS, store, "/registry/pods/")
    eq(resets(rw, "revision"), [1.0, 1.0], "resets counted")
    eq(resets(rw, "identity"), [0.0, 0.0], "identity resets")
    eq(rw.metric("ringwatch_watchers_terminated_total", resource="configmaps",
                 reason="store_reset"), 3.0, "configmaps watchers ended by the reset")
    # Logged once, naming the revision served (etcd's adapter: "the
    # store's revision went back from R to N"; Redis's: "T:rev is at
    # revision N, below the R already served: Redis lost writes").
    said = [line for line in rw.logtext().splitlines()
            if ("went back from %d to " % r_old in line or
                "below the %d already served" % r_old in line)]
    eq(len(said), 1, "reset log lines (%r)" % said)

    # The old history's continue token and Exact read: 410, never the new
    # history's state under an old name.
    status, _, body = rw.get(CM + "?limit=1&continue=" + token)
    eq(status, 410, "old continue token (%r)" % body[:200])
    eq(json.loads(body)["reason"], "Expired", "old continue token reason")
    status, _, body = rw.get(CM + "?resourceVersion=%d&resourceVersionMatch=Exact" % r_old)
    eq(status, 410, "old Exact read (%r)" % body[:200])
    # A watch from the old history's last revision, which the new one has
    # not reached: ERROR 410 (it would wait, then skip the new changes).
    expect_410(rw.watch(CM + "?watch=1&resourceVersion=%d" % r_old), "old watch", r_old)

    before_passing(store, rw, lst, r_old)
    # A token of the old history at a revision the new one has reached
    # too (c's, now d's): only its epoch tells, and it gets 410.
    re = store.put(cm_key("ns", "e"), configmap("ns", "e"))
    rw.wait_rv(re)
    check(rc <= re, "the new history reached %d", rc)
    status, _, body = rw.get(CM + "?limit=1&continue=" + early["metadata"]["continue"])
    eq(status, 410, "old continue token at a revision both histories have (%r)" % body[:200])
    return after_passing(store, rw, lst, r_old)


def lost_watch(rw, path, rv, what):
    """A watch from the lost revision rv: HTTP 200, nothing for about a
    second, then ERROR 410 Expired naming rv, and the end."""
    t0 = time.time()
    w = rw.watch(path + ("&" if "?" in path else "?") + "watch=1&resourceVersion=%d" % rv)
    eq(w.status, 200, "%s: HTTP status" % what)
    events, ended = w.events_for(10)
    took = time.time() - t0
    check(ended, "%s: the stream did not end (events %r)", what, events)
    eq([e["type"] for e in events], ["ERROR"], "%s: events" % what)
    st = events[0]["object"]
    eq((st["code"], st["reason"]), (410, "Expired"), "%s: Status" % what)
    check(st["message"].startswith("too old resource version: %d (" % rv),
          "%s: message %r", what, st["message"])
    check(0.8 <= took < 5, "%s: the 410 came after %.2f s, not about 1 s", what, took)
    return took


def before_passing(store, rw, lst, r_old):
    """The store is below r_old: every revision ringwatch can vouch for is
    lost.  Its own LIST's revision gets the delayed 410 (it cannot be told
    from the old history's); a client that relists at once (the
    JavaScript informer does) comes back about once a second, each time
    with the store's state; a continue token of this history at a lost revision
    is ringwatch's own and served; an Exact read at one is not."""
    rv = int(lst["metadata"]["resourceVersion"])
    check(rv <= r_old, "the LIST after the restore is at %d, past %d", rv, r_old)
    lost_watch(rw, CM, rv, "watch from ringwatch's own LIST after the restore")

    lists, t0 = 0, time.time()
    while time.time() - t0 < 3.5:
        again = rw.get_json(CM)
        lists += 1
        eq(state(again), store_state(store, "/registry/configmaps/ns/"), "relist %d" % lists)
        w = rw.watch(CM + "?watch=1&resourceVersion=%s" % again["metadata"]["resourceVersion"])
        events, ended = w.events_for(5)
        check(ended and [e["type"] for e in events] == ["ERROR"],
              "relist %d: the watch from its RV got %r", lists, events)
    check(2 <= lists <= 5, "a client relisting at once listed %d times in %.1f s",
          lists, time.time() - t0)

    page = rw.get_json(CM + "?limit=1")
    check(int(page["metadata"]["resourceVersion"]) <= r_old, "paged LIST past %d", r_old)
    eq([i["metadata"]["name"] for i in rw.get_json(
        CM + "?limit=5&continue=" + page["metadata"]["continue"])["items"]],
       ["b", "d"], "a continue token of this history at a lost revision")
    status, _, body = rw.get(CM + "?resourceVersion=%s&resourceVersionMatch=Exact"
                             % lst["metadata"]["resourceVersion"])
    eq(status, 410, "Exact read at ringwatch's own lost revision (%r)" % body[:200])


def after_passing(store, rw, lst, r_old):
    """The new history writes past r_old.  An informer that held the old
    history's state at r_old (the reviewer's scenario: c, which is gone,
    and neither b, d nor e) is refused, whatever the new history holds at
    r_old now: its watch and its Exact reads get 410, its NotOlderThan
    LIST the current state at a revision past r_old.  Every LIST now
    hands out a revision past r_old, and watches from those work."""
    last = 0
    while last <= r_old:
        last = store.put(cm_key("ns", "e"), configmap("ns", "e", {"n": str(last)}))
    rw.wait_rv(last)
    now = store_state(store, "/registry/configmaps/ns/")

    lost_watch(rw, CM, r_old, "the old informer's watch")
    lost_watch(rw, CM + "?allowWatchBookmarks=true", r_old,
               "the old informer's watch with bookmarks")
    lost_watch(rw, "/api/v1/configmaps", r_old, "the old informer's watch of every namespace")
    for q in ("resourceVersion=%d&resourceVersionMatch=Exact" % r_old,
              "resourceVersion=%d&limit=1" % r_old,
              "resourceVersion=%d&limit=1&resourceVersionMatch=Exact" % (r_old - 1)):
        status, _, body = rw.get(CM + "?" + q)
        eq(status, 410, "LIST ?%s (%r)" % (q, body[:200]))
        eq(json.loads(body)["reason"], "Expired", "LIST ?%s reason" % q)
    lost_watch(rw, CM, int(lst["metadata"]["resourceVersion"]),
               "watch from ringwatch's own lost revision, after")

    for q in ("resourceVersion=%d" % r_old, "resourceVersion=%d&resourceVersionMatch=NotOlderThan"
              % r_old, "resourceVersion=0", ""):
        got = rw.get_json(CM + "?" + q)
        eq(state(got), now, "LIST ?%s" % q)
        check(int(got["metadata"]["resourceVersion"]) > r_old, "LIST ?%s at %s, not past %d",
              q, got["metadata"]["resourceVersion"], r_old)

    # A GET not older than r_old: the object as it is now.
    got = rw.get_json(CM + "/d?resourceVersion=%d" % r_old)
    eq((got["metadata"]["name"], got.get("data")), ("d", {"v": "new history"}), "GET ?rv=r_old")
    # A watch-list not older than r_old: the current state, its end marker
    # past r_old, then the next write.
    wl = rw.watch(CM + "?watch=1&sendInitialEvents=true&allowWatchBookmarks=true"
                  "&resourceVersionMatch=NotOlderThan&resourceVersion=%d" % r_old)
    events, _ = wl.events_for(2)
    eq(sorted((n, r, None) for n, r, _ in now), sorted(
        (e["object"]["metadata"]["name"], rv_of(e["object"]), None)
        for e in events if e["type"] == "ADDED"), "watch-list from r_old: its state")
    marks = [e for e in events if e["type"] == "BOOKMARK"]
    check(len(marks) >= 1 and rv_of(marks[0]["object"]) > r_old and
          marks[0]["object"]["metadata"].get("annotations", {}).get(
              "k8s.io/initial-events-end") == "true",
          "watch-list from r_old: end marker %r", marks)

    # A client that lists now watches without a relist.
    got = rw.get_json(CM)
    w = rw.watch(CM + "?watch=1&allowWatchBookmarks=true&resourceVersion=%s"
                 % got["metadata"]["resourceVersion"])
    rf = store.put(cm_key("ns", "f"), configmap("ns", "f"))
    events, _ = w.events_for(2.5)
    eq([(e["type"], e["object"]["metadata"].get("name"), rv_of(e["object"]))
        for e in events if e["type"] != "BOOKMARK"],
       [("ADDED", "f", rf)], "a watch from a LIST after the store passed")
    # Bookmarks are of the new history: never below the LIST's revision
    # (a timer bookmark may come at it, before f's write) and never going
    # back.
    marks = [rv_of(e["object"]) for e in events if e["type"] == "BOOKMARK"]
    check(all(m >= int(got["metadata"]["resourceVersion"]) for m in marks) and
          marks == sorted(marks), "bookmarks %r", events)
    w.close()
    events, _ = wl.events_for(0.5)
    eq([(e["type"], e["object"]["metadata"]["name"]) for e in events if e["type"] != "BOOKMARK"],
       [("ADDED", "f")], "watch-list from r_old after its end marker")
    wl.close()
    page = rw.get_json(CM + "?limit=1")
    eq([i["metadata"]["name"] for i in rw.get_json(
        CM + "?limit=5&continue=" + page["metadata"]["continue"])["items"]],
       ["b", "d", "e", "f"], "a new continue token")
    check("past the abandoned history's %d" % r_old in rw.logtext(),
          "passing the lost revisions not logged")
    return rf


def quiet_resource():
    """A resource nobody writes after the restore (pods), while the store
    passes the lost revisions through another (configmaps), with no
    progress notifications (etcd's are off; over Redis ringwatch reads the
    revision counter itself): its cache stays at a lost revision, at least
    until such a read moves it past them.  Its
    LISTs are still answered at a revision past them (a probe proves its
    state unchanged up to the store's revision), its watch-list's
    initial-events-end bookmark too, watches from those work, and no
    timer bookmark is sent at its lost revision."""
    store = Store(progress_notify=None)
    rw = Ringwatch(store, "--bookmark-interval", "1", resources="pods,configmaps")
    store.put("/registry/pods/ns/p", pod("p"))
    rw.wait_rv(store.put(cm_key("ns", "a"), configmap("ns", "a")))
    snap = store.snapshot()
    for n in "bcde":
        r_old = store.put(cm_key("ns", n), configmap("ns", n))
    rw.wait_rv(r_old)
    store.restore(snap)
    wait_list(rw, PODS, store, "/registry/pods/")
    eq(resets(rw, "revision"), [1.0, 1.0], "resets counted")
    lost = rw.get_json(PODS + "?resourceVersion=0")
    check(int(lost["metadata"]["resourceVersion"]) <= r_old, "pods listed at %s, past %d",
          lost["metadata"]["resourceVersion"], r_old)
    last = 0
    while last <= r_old:
        last = store.put(cm_key("ns", "n"), configmap("ns", "n", {"n": str(last)}))
    rw.wait_rv(last)

    bw = rw.watch(PODS + "?watch=1&resourceVersion=0&allowWatchBookmarks=true")
    for q in ("resourceVersion=0", "resourceVersion=1", ""):
        got = rw.get_json(PODS + "?" + q)
        eq([i["metadata"]["name"] for i in got["items"]], ["p"], "pods LIST ?%s" % q)
        check(int(got["metadata"]["resourceVersion"]) >= last, "pods LIST ?%s at %s, not at "
              "the store's revision %d", q, got["metadata"]["resourceVersion"], last)
    wl = rw.watch(PODS + "?watch=1&sendInitialEvents=true&allowWatchBookmarks=true"
                  "&resourceVersionMatch=NotOlderThan")
    events, _ = wl.events_for(2)
    # p, then the end marker; later timer bookmarks only once the pods
    # cache has passed the lost revisions (over Redis, by reading the
    # counter), never at one.
    eq([(e["type"], rv_of(e["object"]) >= last) for e in events][:2],
       [("ADDED", False), ("BOOKMARK", True)], "watch-list of pods (%r)" % events)
    check(all(e["type"] == "BOOKMARK" and rv_of(e["object"]) >= last for e in events[2:]),
          "watch-list of pods after its end marker: %r", events)
    w = rw.watch(PODS + "?watch=1&resourceVersion=%s" % got["metadata"]["resourceVersion"])
    events, _ = bw.events_for(2.5)
    eq([e["type"] for e in events][:1], ["ADDED"], "RV=0 pods watch: its initial event")
    check(all(e["type"] == "BOOKMARK" and rv_of(e["object"]) > r_old for e in events[1:]),
          "RV=0 pods watch: a bookmark at a lost revision: %r", events)
    rq = store.put("/registry/pods/ns/q", pod("q"))
    events, _ = w.events_for(1.5)
    eq([(e["type"], e["object"]["metadata"]["name"], rv_of(e["object"])) for e in events],
       [("ADDED", "q", rq)], "pods watch from a LIST's revision")
    events, _ = bw.events_for(2.5)
    eq([e["type"] for e in events][:1], ["ADDED"], "RV=0 pods watch after q")
    check([e for e in events[1:] if e["type"] == "BOOKMARK" and rv_of(e["object"]) >= rq],
          "no bookmark once the pods cache passed: %r", events)
    log = rw.logtext()
    check("pods: listed at revision" in log and "below what the abandoned history reached (%d)"
          % r_old in log, "the lost list not logged")


def reconnect_checks():
    """The store restarts from an older copy while ringwatch stays
    connected (no timer bookmarks, no progress reads for 60 s): ringwatch
    notices at its reconnect, before the new history passes r_old, so the
    watch ends with 410 and the cache equals the store, even though the
    writes that follow carry revisions past everything it served."""
    store = Store()
    rw = Ringwatch(store, "--bookmark-interval", "60", resources="configmaps")
    store.put(cm_key("ns", "a"), configmap("ns", "a"))
    snap = store.snapshot()
    for n in "bcd":
        r_old = store.put(cm_key("ns", n), configmap("ns", n))
    rw.wait_rv(r_old)  # (connected again after the snapshot's restart)
    connects = rw.metric("ringwatch_upstream_connects_total", store=store.name)
    w = rw.watch(CM + "?watch=1&resourceVersion=%d" % r_old)
    store.restore(snap)
    deadline = time.time() + 15
    while rw.metric("ringwatch_upstream_connects_total", store=store.name) <= connects:
        check(time.time() < deadline, "ringwatch did not reconnect:\n%s", rw.logtext())
        time.sleep(0.05)
    last = 0
    for n in "efgh":
        last = store.put(cm_key("ns", n), configmap("ns", n))
    check(last > r_old, "the new history at %d, not past %d", last, r_old)
    expect_410(w, "watch across the restore", r_old)
    eq(resets(rw, "revision")[1], 1.0, "the reset noticed at the reconnect")
    wait_list(rw, CM, store, "/registry/configmaps/")


def brand_new_cluster(store, relay, rw, r_before):
    w = rw.watch(CM + "?watch=1&resourceVersion=%d" % r_before)
    relay.cut()
    store.halt()
    shutil.rmtree(store.data)
    store.resume("--initial-cluster-token", "another-cluster")
    # Far past ringwatch's revision: only the cluster ID can tell.
    last = 0
    for i in range(r_before + 5):
        last = store.put(cm_key("other", "x%d" % (i % 4)), configmap("other", "x%d" % (i % 4),
                                                                      {"i": str(i)}))
    check(last > r_before + 3, "new cluster at %d, not past %d", last, r_before)
    relay.restore()
    expect_410(w, "watch across the cluster change", r_before)
    lst = wait_list(rw, "/api/v1/configmaps", store, "/registry/configmaps/")
    eq([n for n, _, _ in state(lst)], ["x0", "x1", "x2", "x3"], "LIST of the new cluster")
    eq(resets(rw, "identity"), [1.0, 1.0], "identity resets counted")
    eq(resets(rw, "revision"), [1.0, 1.0], "revision resets unchanged")
    check("the store changed: cluster ID" in rw.logtext(), "cluster change not logged")
    eq(rw.get("/readyz")[0], 200, "ready again")


def main():
    store = Store()
    relay = Relay(store)
    rw = Ringwatch(store, "--bookmark-interval", "1", resources="pods,configmaps",
                   upstream=relay.url)
    r = restore_older_copy(store, relay, rw)
    if store.name == "etcd":  # (6. above)
        brand_new_cluster(store, relay, rw, r)
    quiet_resource()
    reconnect_checks()


run(main)
