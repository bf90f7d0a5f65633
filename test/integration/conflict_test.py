"""Optimistic concurrency through ringwatch (the seeds' "Controller A /
Controller B"), over the store RW_TEST_STORE names: two writers updating
one object from the same resourceVersion at the same moment get exactly
one 200 and one 409 Conflict, round after round; and N writers each
incrementing a counter in a retry-on-conflict loop (GET, increment, PUT
with the resourceVersion read, again on 409) converge: every increment
counted once, the object's last resourceVersion the last write's, and a
watcher sees one MODIFIED per successful write; and concurrent merge
patches of distinct keys all land (a patch that loses a race is applied
again to the new object by the server)."""
import threading
import time

from harness import *

PATH = "/api/v1/namespaces/c/configmaps"
WRITERS = 6
INCREMENTS = 15


def call(rw, method, path, body=None):
    conn = rw.connection(timeout=20)
    data = json.dumps(body).encode() if body is not None else None
    conn.request(method, path, body=data,
                 headers={"Content-Type": "application/json"} if data else {})
    resp = conn.getresponse()
    out = json.loads(resp.read())
    conn.close()
    return resp.status, out


def together(fn, n, timeout=90):
    """fn(0) .. fn(n - 1), each on its own thread; returns once all end."""
    threads = [threading.Thread(target=fn, args=(i,)) for i in range(n)]
    for t in threads:
        t.start()
    for t in threads:
        t.join(timeout)


def race(rw, obj, rounds):
    """Two PUTs from the same resourceVersion, released together."""
    for i in range(rounds):
        results = []
        barrier = threading.Barrier(2)

        def writer(n):
            body = dict(obj, data={"round": str(i), "writer": str(n)})
            barrier.wait()
            results.append(call(rw, "PUT", PATH + "/race", body))

        together(writer, 2, 30)
        codes = sorted(status for status, _ in results)
        eq(codes, [200, 409], "round %d: one winner, one conflict" % i)
        loser = [body for status, body in results if status == 409][0]
        eq((loser["reason"], loser["message"]),
           ("Conflict", 'Operation cannot be fulfilled on configmaps "race": the object '
            'has been modified; please apply your changes to the latest version and try '
            'again'), "the loser's Status")
        winner = [body for status, body in results if status == 200][0]
        obj = winner  # the next round starts from the winner's version


def increments(rw):
    status, _ = call(rw, "POST", PATH, {"metadata": {"name": "counter"}, "data": {"n": "0"}})
    eq(status, 201, "counter created")
    start = rw.get_json(PATH + "/counter")["metadata"]["resourceVersion"]
    w = rw.watch(PATH + "?watch=true&fieldSelector=metadata.name%3Dcounter&resourceVersion="
                 + start)
    conflicts, errors = [], []
    deadline = time.time() + 60

    def writer(_):
        lost = 0
        for _ in range(INCREMENTS):
            while time.time() < deadline:
                status, cur = call(rw, "GET", PATH + "/counter")
                if status != 200:
                    errors.append(("GET", status, cur))
                    return
                cur["data"]["n"] = str(int(cur["data"]["n"]) + 1)
                status, out = call(rw, "PUT", PATH + "/counter", cur)
                if status == 200:
                    break
                if status != 409:
                    errors.append(("PUT", status, out))
                    return
                lost += 1
        conflicts.append(lost)

    together(writer, WRITERS)
    eq(errors, [], "no error but 409")
    final = rw.get_json(PATH + "/counter")
    eq(final["data"]["n"], str(WRITERS * INCREMENTS), "every increment counted once")
    modified = []
    while len(modified) < WRITERS * INCREMENTS:
        e = w.next_event(timeout=10)
        if e is None:
            break
        if e["type"] == "MODIFIED":
            modified.append(e["object"])
    w.close()
    eq([o["data"]["n"] for o in modified],
       [str(i) for i in range(1, WRITERS * INCREMENTS + 1)],
       "one MODIFIED per increment, in order")
    eq(modified[-1]["metadata"]["resourceVersion"], final["metadata"]["resourceVersion"],
       "the last event is the last write")
    print("retry-on-conflict: %d writers x %d increments converged with %d conflicts"
          % (WRITERS, INCREMENTS, sum(conflicts)))


def patches(rw):
    """Merge patches of distinct keys from concurrent writers: each lands
    once, however the races fall (the server retries a lost one)."""
    status, _ = call(rw, "POST", PATH, {"metadata": {"name": "patched"}, "data": {}})
    eq(status, 201, "created")
    errors = []

    def writer(w):
        for i in range(5):
            conn = rw.connection(timeout=20)
            conn.request("PATCH", PATH + "/patched",
                         body=json.dumps({"data": {"w%d-%d" % (w, i): "x"}}).encode(),
                         headers={"Content-Type": "application/merge-patch+json"})
            resp = conn.getresponse()
            body = resp.read()
            conn.close()
            if resp.status != 200:
                errors.append((resp.status, body[:200]))

    together(writer, WRITERS, 60)
    eq(errors, [], "every patch answered 200")
    got = rw.get_json(PATH + "/patched")
    eq(sorted(got["data"]), sorted("w%d-%d" % (w, i) for w in range(WRITERS)
                                   for i in range(5)), "every patch applied once")


def main():
    store = Store()
    rw = Ringwatch(store, resources="configmaps")
    status, obj = call(rw, "POST", PATH, {"metadata": {"name": "race"}, "data": {}})
    eq(status, 201, "created")
    race(rw, obj, 10)
    increments(rw)
    patches(rw)


run(main)
