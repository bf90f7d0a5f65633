"""The upstream connection drops and comes back: every watch resumes from
the last revision the cache applied, so watchers get every change made
while ringwatch was cut off, in order, once, with no 410 and no relist.
ringwatch_upstream_connects_total counts every connection established,
the first included; ringwatch_upstream_connect_failures_total the
attempts refused while the relay was cut."""
from harness import *


def main():
    store = Store()
    relay = Relay(store)
    rw = Ringwatch(store, resources="configmaps", upstream=relay.url)
    r0 = store.put(cm_key("ns", "a"), configmap("ns", "a"))
    rw.wait_rv(r0)
    w = rw.watch("/api/v1/configmaps?watch=true&resourceVersion=%d" % r0)
    eq(rw.metric("ringwatch_upstream_connects_total", store=store.name), 1.0, "connects at start")
    eq(rw.metric("ringwatch_upstream_connect_failures_total", store=store.name), 0.0,
       "connect failures at start")

    relay.cut()
    revs = [store.put(cm_key("ns", "k%d" % i), configmap("ns", "k%d" % i)) for i in range(10)]
    revs.append(store.delete(cm_key("ns", "a")))
    time.sleep(1)
    relay.restore()

    events, ended = w.events_for(8)
    check(not ended, "watch ended")
    eq([rv_of(e["object"]) for e in events if e["type"] != "BOOKMARK"], revs,
       "revisions received across the reconnect")
    eq(events[-1]["type"], "DELETED", "last event")
    check(rw.metric("ringwatch_upstream_reconnects_total", resource="configmaps") >= 1,
          "reconnect not counted")
    eq(rw.metric("ringwatch_relists_total", resource="configmaps"), 0.0, "relists")
    eq(rw.metric("ringwatch_upstream_connects_total", store=store.name), 2.0,
       "connects after the reconnect")
    check(rw.metric("ringwatch_upstream_connect_failures_total", store=store.name) >= 1,
          "refused attempts not counted")
    lst = rw.get_json("/api/v1/configmaps")
    eq(sorted(i["metadata"]["name"] for i in lst["items"]),
       ["k%d" % i for i in range(10)], "LIST after the reconnect")


run(main)
