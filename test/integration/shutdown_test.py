"""Graceful shutdown: on SIGTERM every watch ends cleanly (the terminating
chunk, as when timeoutSeconds runs out) after the events already queued,
so informers re-watch elsewhere instead of seeing a broken connection;
ringwatch then exits 0 long before --shutdown-grace."""
import signal

from harness import *


def main():
    etcd = Etcd()
    rw = Ringwatch(etcd, "--shutdown-grace", "20", resources="configmaps")
    ra = etcd.put(cm_key("ns", "a"), configmap("ns", "a"))
    rw.wait_rv(ra)
    watches = [rw.watch("/api/v1/namespaces/ns/configmaps?watch=1&resourceVersion=%d" % ra)
               for _ in range(3)]
    rb = etcd.put(cm_key("ns", "b"), configmap("ns", "b"))
    rw.wait_rv(rb)
    t0 = time.time()
    rw.proc.send_signal(signal.SIGTERM)
    for w in watches:
        events, ended = w.events_for(5)  # raises on a broken stream
        check(ended, "watch not ended by the shutdown")
        eq([(e["type"], e["object"]["metadata"]["name"]) for e in events],
           [("ADDED", "b")], "events before the end")
    eq(rw.proc.wait(10), 0, "exit status")
    check(time.time() - t0 < 5, "shutdown took %.1f s", time.time() - t0)
    check("every response finished" in rw.logtext(), "log: %s", rw.logtext()[-500:])


run(main)
