"""Request fairness (API Priority and Fairness in small) end to end: with
--max-requests-inflight 1, one user (alice, a bearer token) relisting on
many connections at once fills her queue and gets 429 TooManyRequests
with Retry-After: 1, while another user (bob) relisting meanwhile is
served every time (seats go to the flows round robin); /healthz is exempt;
a WATCH holds its seat only while its initial events are sent, so an open
watch does not keep the one seat, nor do watches whose client does not read
them (HTTP/2 with a window of 0); /metrics counts it all."""
import http.client
import threading

from h2raw import H2Client
from harness import *

HAMMER_CONNECTIONS = 80  # more than alice's queue (50) holds
SECONDS = 4
LIST = "/api/v1/configmaps"


def lister(port, token, stop, results, lock):
    """LISTs on one connection until stop; records (status, Retry-After)."""
    conn = http.client.HTTPConnection("127.0.0.1", port, timeout=30)
    headers = {"Authorization": "Bearer " + token}
    while not stop.is_set():
        try:
            conn.request("GET", LIST, headers=headers)
            resp = conn.getresponse()
            body = resp.read()
            entry = (resp.status, resp.getheader("Retry-After"))
            if resp.status == 429:
                entry += (json.loads(body)["message"],)
        except (OSError, http.client.HTTPException) as e:
            entry = ("error", repr(e))
            conn.close()
            conn = http.client.HTTPConnection("127.0.0.1", port, timeout=30)
        with lock:
            results.append(entry)
    conn.close()


def main():
    tmp = tempfile.mkdtemp(prefix="rw-fair-")
    defer(lambda: shutil.rmtree(tmp, ignore_errors=True))
    token_file = os.path.join(tmp, "tokens.csv")
    with open(token_file, "w") as f:
        f.write("alice-token-0123456789,alice,u1\nbob-token-0123456789,bob,u2\n")
    etcd = Etcd()
    rev = 0
    for i in range(300):  # LISTs that take a little while to write
        rev = etcd.put(cm_key("ns", "cm%03d" % i), configmap("ns", "cm%03d" % i,
                                                             {"k": "v" * 200}))
    rw = Ringwatch(etcd, "--max-requests-inflight", "1", "--token-auth-file", token_file,
                   resources="configmaps")
    rw.wait_rv(rev)
    eq(rw.metric("ringwatch_fairness_seats_limit"), 1.0, "seats limit")

    # an open watch with initial events gives its seat back once they are
    # sent: the next LIST is served at once, not after a 15 s wait
    w = rw.watch(LIST + "?watch=true")
    events, _ = w.events_for(1)
    eq(len(events), 300, "initial events")
    started = time.time()
    status, _, _ = rw.get(LIST + "?limit=1", timeout=5)
    eq(status, 200, "a LIST while a watch is open")
    check(time.time() - started < 2, "the LIST waited %.1fs", time.time() - started)

    stop = threading.Event()
    lock = threading.Lock()
    alice, bob = [], []
    threads = [threading.Thread(target=lister, args=(rw.port, "alice-token-0123456789",
                                                     stop, alice, lock))
               for _ in range(HAMMER_CONNECTIONS)]
    threads.append(threading.Thread(target=lister, args=(rw.port, "bob-token-0123456789",
                                                         stop, bob, lock)))
    for t in threads:
        t.start()
    time.sleep(SECONDS)
    exempt, _, _ = rw.get("/healthz", timeout=5)  # exempt, while all are busy
    queued = rw.metric("ringwatch_fairness_queued", flow_class="workload")
    stop.set()
    for t in threads:
        t.join(30)
    w.close()

    eq(exempt, 200, "/healthz under load")
    rejected = [r for r in alice if r[0] == 429]
    served = [r for r in alice if r[0] == 200]
    check(rejected, "alice was never refused (%d LISTs)", len(alice))
    check(served, "alice was never served")
    eq(set(rejected), {(429, "1", "Too many requests, please try again later.")},
       "alice's 429s")
    check(len(alice) == len(served) + len(rejected), "alice: other answers %r",
          [r for r in alice if r[0] not in (200, 429)][:5])
    check(len(bob) >= 10, "bob relisted only %d times", len(bob))
    eq({r[0] for r in bob}, {200}, "bob's answers")
    check(queued is not None and queued >= 1, "queued under load: %r", queued)
    full = rw.metric("ringwatch_fairness_rejected_total", flow_class="workload",
                     reason="queue-full")
    eq(full, float(len(rejected)), "rejected_total queue-full")
    print("alice: %d served, %d refused; bob: %d served" % (len(served), len(rejected),
                                                            len(bob)))
    check(rw.metric("ringwatch_fairness_dispatched_total", flow_class="workload")
          >= len(served) + len(bob), "dispatched_total")
    check(rw.metric("ringwatch_fairness_dispatched_total", flow_class="exempt") >= 1,
          "exempt dispatched")

    # watches whose client does not read their initial events hold no seat:
    # one HTTP/2 connection offering a window of 0, watching more than a
    # watch's output holds (--watch-high-water), keeps nobody waiting
    for i in range(60):
        rev = etcd.put(cm_key("big", "b%02d" % i), configmap("big", "b%02d" % i,
                                                             {"k": "v" * 8000}))
    rw.wait_rv(rev)
    stalled = H2Client(rw.port, window=0)
    for i in range(3):
        stalled.get(1 + 2 * i, "/api/v1/namespaces/big/configmaps?watch=true")
    stalled.settle()
    started = time.time()
    status, _, _ = rw.get(LIST + "?limit=1", timeout=10,
                          headers={"Authorization": "Bearer bob-token-0123456789"})
    eq(status, 200, "bob's LIST while watches wait for a client that does not read")
    check(time.time() - started < 2, "bob's LIST waited %.1fs", time.time() - started)
    eq(rw.metric("ringwatch_fairness_seats_in_use"), 1.0, "seats in use (this /metrics)")
    stalled.close()


if __name__ == "__main__":
    run(main)
