"""Representations on every verb (issue 8 item 1), against real etcd and
kubectl 1.32.

- kubectl get pods -n NS -w while a pod's status.phase changes in etcd:
  one header, then a row whose STATUS column shows the new phase (watch
  events are Tables, not plain pods printed as NAME AGE).
- A raw WATCH with kubectl's Table Accept: the first event carries the
  column definitions, later ones "columnDefinitions":null; each row's
  object is PartialObjectMetadata, null or the object per includeObject;
  v1beta1 when only that is asked; BOOKMARKs are Tables too; the same over
  HTTP/2.
- A sendInitialEvents watch: Tables are not offered there (the 1.32
  apiserver's watch-list), so kubectl's header falls back to JSON and a
  Table-only header is 406; the end marker carries the list blueprint.
- Metadata only (client-go's metadata informers): LIST with
  as=PartialObjectMetadataList, WATCH and GET with as=PartialObjectMetadata,
  a watch-list in PartialObjectMetadata; the other pairs are 406.
- 406 NotAcceptable for each verb with Accept: application/yaml,
  application/vnd.kubernetes.protobuf alone, as=Foo, g=other,
  application/* alone (go-restful's route check); a bad includeObject is
  400; */*, no Accept and protobuf-then-JSON give JSON.
- Discovery, /version, /metrics and health negotiate as the apiserver does.
- ERROR events carry their Status unconverted in every representation.
- Repeated Accept fields: the first counts (Go's Header.Get), over
  HTTP/1.1 and HTTP/2, on LIST, GET and WATCH.
"""
import shutil

from harness import *
from h2raw import (END_HEADERS, END_STREAM, HEADERS, H2Client, h2_frame,
                   header_block)

TABLE = "application/json;as=Table;v=v1;g=meta.k8s.io"
KUBECTL_ACCEPT = TABLE + ",application/json;as=Table;v=v1beta1;g=meta.k8s.io,application/json"
POM = "application/json;as=PartialObjectMetadata;g=meta.k8s.io;v=v1"
POML = "application/json;as=PartialObjectMetadataList;g=meta.k8s.io;v=v1"
WL = "watch=1&sendInitialEvents=true&resourceVersionMatch=NotOlderThan&allowWatchBookmarks=true"


def pod(ns, name, phase, node="node-1"):
    return {"apiVersion": "v1", "kind": "Pod",
            "metadata": {"name": name, "namespace": ns, "uid": "u-" + name,
                         "labels": {"app": "web"},
                         "creationTimestamp": "2026-11-29T00:00:00Z"},
            "spec": {"nodeName": node, "containers": [{"name": "c", "image": "nginx"}]},
            "status": {"phase": phase}}


def get(rw, path, accept=None):
    """GET with an Accept header (None: none at all); (status, headers, body)."""
    return rw.get(path, headers={} if accept is None else {"Accept": accept})


def status_406(rw, path, accept, what):
    status, hdrs, body = get(rw, path, accept)
    eq(status, 406, "%s: status (%r)" % (what, body[:200]))
    eq(hdrs.get("content-type"), "application/json", what + ": content type")
    st = json.loads(body)
    eq((st["kind"], st["status"], st["reason"], st["code"]),
       ("Status", "Failure", "NotAcceptable", 406), what + ": Status")
    return st["message"]


def kubectl_watch(rw, ns, etcd, key, obj):
    """kubectl get pods -n ns -w; obj's status.phase goes Pending -> Running
    once the list is printed.  Returns kubectl's lines."""
    def change(lines):
        check(len(lines) >= 3, "kubectl -w printed %r", lines)  # header + 2 pods
        obj["status"]["phase"] = "Running"
        etcd.put(key, obj)
    return Kubectl(rw.url).watch(
        ["get", "pods", "-n", ns, "-w"], 3, change,
        lambda lines: any(l.split()[:1] == ["w1"] and "Running" in l.split()
                          for l in lines[3:]), 20)


def check_kubectl(rw, etcd):
    if KUBECTL is None:
        print("kubectl not installed: skipping the kubectl part")
        return
    obj = pod("kw", "w1", "Pending")
    etcd.put("/registry/pods/kw/w1", obj)
    rv = etcd.put("/registry/pods/kw/w2", pod("kw", "w2", "Running"))
    rw.wait_rv(rv, "/api/v1/pods")
    lines = kubectl_watch(rw, "kw", etcd, "/registry/pods/kw/w1", obj)
    eq(lines[0].split(), ["NAME", "READY", "STATUS", "RESTARTS", "AGE"], "kubectl -w header")
    headers = [l for l in lines if l.split()[:1] == ["NAME"]]
    eq(len(headers), 1, "headers printed by kubectl -w (%r)" % lines)
    rows = {l.split()[0]: l.split() for l in lines[1:3]}
    eq(rows["w1"][2], "Pending", "w1 listed Pending")
    later = [l.split() for l in lines[3:]]
    check(any(r[0] == "w1" and r[2] == "Running" for r in later),
          "the watch printed w1 Running in the STATUS column: %r", lines)
    check(all(len(r) == 5 for r in later), "watch rows have every column: %r", lines)


def first_rows(w, n):
    events = []
    while len(events) < n:
        ev = w.next_event(10)
        check(ev is not None, "stream ended after %r", events)
        events.append(ev)
    return events


def check_table_watch(rw, etcd):
    NS = "/api/v1/namespaces/tw/pods"
    etcd.put("/registry/pods/tw/a", pod("tw", "a", "Pending"))
    rv = etcd.put("/registry/pods/tw/b", pod("tw", "b", "Running"))
    rw.wait_rv(rv, "/api/v1/pods")
    lst = json.loads(get(rw, NS, KUBECTL_ACCEPT)[2])
    eq(lst["kind"], "Table", "LIST with kubectl's Accept")

    for include in ("", "Metadata", "None", "Object"):
        q = "?watch=1&resourceVersion=0" + ("&includeObject=" + include if include else "")
        w = rw.watch(NS + q, accept=KUBECTL_ACCEPT)
        eq(w.status, 200, "Table watch status")
        eq(w.headers.get("content-type"), "application/json", "Table watch content type")
        events = first_rows(w, 2)
        for i, ev in enumerate(events):
            tab = ev["object"]
            eq((ev["type"], tab["kind"], tab["apiVersion"]), ("ADDED", "Table", "meta.k8s.io/v1"),
               "event %d" % i)
            eq(len(tab["rows"]), 1, "one row per event")
            row = tab["rows"][0]
            check(tab["metadata"]["resourceVersion"].isdigit(), "Table resourceVersion")
            if include != "None":
                eq(rv_of(tab), rv_of(row["object"]), "the Table's RV is its object's")
            if include in ("", "Metadata"):
                eq((row["object"]["kind"], row["object"]["apiVersion"]),
                   ("PartialObjectMetadata", "meta.k8s.io/v1"), "row object")
                check("spec" not in row["object"], "metadata only")
            elif include == "None":
                check(row["object"] is None, "includeObject=None: %r", row)
            else:
                eq(row["object"]["kind"], "Pod", "includeObject=Object")
                eq(row["object"]["spec"]["nodeName"], "node-1", "the whole object")
        eq([c["name"] for c in events[0]["object"]["columnDefinitions"]],
           [c["name"] for c in lst["columnDefinitions"]], "first event's columns = LIST's")
        check(events[1]["object"]["columnDefinitions"] is None,
              "later events without columns: %r", events[1]["object"].keys())
        eq(sorted(e["object"]["rows"][0]["cells"][0] for e in events), ["a", "b"], "names")
        # A change: MODIFIED, its STATUS cell, no columns.
        if include == "":
            rc = etcd.put("/registry/pods/tw/a", pod("tw", "a", "Failed"))
            ev = w.next_event(10)
            eq((ev["type"], ev["object"]["metadata"]["resourceVersion"]), ("MODIFIED", str(rc)),
               "MODIFIED as a Table")
            eq(ev["object"]["rows"][0]["cells"][2], "Failed", "STATUS cell")
            check(ev["object"]["columnDefinitions"] is None, "MODIFIED without columns")
        w.close()

    # v1beta1 only: v1beta1 Tables; a bookmark is a Table too.
    w = rw.watch(NS + "?watch=1&allowWatchBookmarks=true&resourceVersion=%d" % rv,
                 accept="application/json;as=Table;v=v1beta1;g=meta.k8s.io")
    eq(w.status, 200, "v1beta1 watch")
    rd = etcd.delete("/registry/pods/tw/b")
    ev = w.next_event(10)
    eq((ev["type"], ev["object"]["apiVersion"]), ("MODIFIED", "meta.k8s.io/v1beta1"),
       "v1beta1 event (a's Failed)")
    check(ev["object"]["columnDefinitions"], "the first event has columns")
    eq(ev["object"]["rows"][0]["object"]["apiVersion"], "meta.k8s.io/v1beta1", "row object")
    ev = w.next_event(10)
    eq((ev["type"], ev["object"]["metadata"]["resourceVersion"]), ("DELETED", str(rd)), "DELETED")
    w.close()

    # HTTP/2 (h2c): the same Table frames.
    curl = shutil.which("curl")
    if curl:
        p = subprocess.run([curl, "-s", "--http2-prior-knowledge", "-H", "Accept: " + KUBECTL_ACCEPT,
                            rw.url + NS + "?watch=1&resourceVersion=0&timeoutSeconds=1"],
                           capture_output=True, text=True, timeout=20)
        events = [json.loads(l) for l in p.stdout.splitlines()]
        eq([e["object"]["kind"] for e in events], ["Table"], "h2 Table watch")
        check(events[0]["object"]["columnDefinitions"], "h2 first event has columns")


def check_bookmarks(rw, etcd):
    """BOOKMARKs in a Table and a PartialObjectMetadata watch."""
    rv = etcd.put("/registry/pods/bm/p", pod("bm", "p", "Running"))
    rw.wait_rv(rv, "/api/v1/pods")
    path = "/api/v1/namespaces/bm/pods?watch=1&allowWatchBookmarks=true&resourceVersion=%d" % rv
    w = rw.watch(path, accept=TABLE)
    ev = w.next_event(10)  # the bookmark timer is 1 s
    eq((ev["type"], ev["object"]["kind"]), ("BOOKMARK", "Table"), "Table bookmark")
    check(ev["object"]["columnDefinitions"], "a first event that is a bookmark has columns")
    eq(len(ev["object"]["rows"]), 1, "a bookmark Table has the bookmark's row")
    ev = w.next_event(10)
    check(ev["type"] == "BOOKMARK" and ev["object"]["columnDefinitions"] is None,
          "the next bookmark has none: %r", ev)
    w.close()
    w = rw.watch(path, accept=POM)
    ev = w.next_event(10)
    eq((ev["type"], ev["object"]["kind"]), ("BOOKMARK", "PartialObjectMetadata"), "POM bookmark")
    check(int(ev["object"]["metadata"]["resourceVersion"]) >= rv, "bookmark RV")
    w.close()


def check_watch_list(rw, etcd):
    NS = "/api/v1/namespaces/wl/pods"
    rv = etcd.put("/registry/pods/wl/a", pod("wl", "a", "Running"))
    rw.wait_rv(rv, "/api/v1/pods")
    # kubectl's header: Tables are skipped, JSON wins.
    w = rw.watch(NS + "?" + WL, accept=KUBECTL_ACCEPT)
    eq(w.status, 200, "watch-list with kubectl's Accept")
    ev, end = first_rows(w, 2)
    eq((ev["type"], ev["object"]["kind"]), ("ADDED", "Pod"), "watch-list initial event: a Pod")
    eq((end["type"], end["object"]["kind"]), ("BOOKMARK", "Pod"), "end marker")
    ann = end["object"]["metadata"]["annotations"]
    eq(ann["k8s.io/initial-events-end"], "true", "end marker")
    eq(base64.b64decode(ann["kubernetes.io/initial-events-list-blueprint"]),
       b'{"kind":"PodList","apiVersion":"v1","metadata":{},"items":null}\n', "blueprint")
    w.close()
    # Table only: 406 (and the same for the deprecated /watch/ path).
    status_406(rw, NS + "?" + WL, TABLE, "watch-list with a Table-only Accept")
    # Metadata: PartialObjectMetadata events, PartialObjectMetadataList blueprint.
    w = rw.watch(NS + "?" + WL, accept=POM)
    ev, end = first_rows(w, 2)
    eq((ev["object"]["kind"], ev["object"]["metadata"]["name"]),
       ("PartialObjectMetadata", "a"), "metadata watch-list event")
    ann = end["object"]["metadata"]["annotations"]
    eq(base64.b64decode(ann["kubernetes.io/initial-events-list-blueprint"]),
       b'{"kind":"PartialObjectMetadataList","apiVersion":"meta.k8s.io/v1",'
       b'"metadata":{},"items":null}\n', "metadata blueprint")
    w.close()


def check_metadata(rw, etcd):
    NS = "/api/v1/namespaces/md/pods"
    etcd.put("/registry/pods/md/a", pod("md", "a", "Running"))
    rv = etcd.put("/registry/pods/md/b", pod("md", "b", "Pending"))
    rw.wait_rv(rv, "/api/v1/pods")
    status, hdrs, body = get(rw, NS + "?limit=1", POML + ",application/json")
    eq(status, 200, "metadata LIST")
    lst = json.loads(body)
    eq((lst["kind"], lst["apiVersion"]), ("PartialObjectMetadataList", "meta.k8s.io/v1"),
       "metadata LIST kind")
    eq([(i["kind"], i["apiVersion"], i["metadata"]["name"]) for i in lst["items"]],
       [("PartialObjectMetadata", "meta.k8s.io/v1", "a")], "metadata LIST items")
    check("continue" in lst["metadata"], "continue token kept")
    check(all("spec" not in i for i in lst["items"]), "metadata only")
    eq(lst["items"][0]["metadata"]["labels"], {"app": "web"}, "labels kept")
    lst = json.loads(get(rw, "/api/v1/namespaces/none/pods", POML)[2])
    check(lst["items"] is None, "empty PartialObjectMetadataList: items null (%r)", lst)
    one = json.loads(get(rw, NS + "/a", POM)[2])
    eq((one["kind"], one["metadata"]["name"], rv_of(one) < rv), ("PartialObjectMetadata", "a", True),
       "metadata GET")
    w = rw.watch(NS + "?watch=1&resourceVersion=%d" % rv, accept=POM + ",application/json")
    rc = etcd.put("/registry/pods/md/b", pod("md", "b", "Running"))
    ev = w.next_event(10)
    eq((ev["type"], ev["object"]["kind"], rv_of(ev["object"])),
       ("MODIFIED", "PartialObjectMetadata", rc), "metadata WATCH event")
    w.close()
    # Conversions a verb cannot make.
    msg = status_406(rw, NS, POM, "LIST as PartialObjectMetadata")
    eq(msg, "you requested PartialObjectMetadata, but the requested object is a list "
            "(*core.PodList)", "message")
    msg = status_406(rw, NS + "/a", POML, "GET as PartialObjectMetadataList")
    eq(msg, "you requested PartialObjectMetadataList, but the requested object is not a "
            "list (*core.Pod)", "message")
    status_406(rw, NS + "?watch=1", POML, "WATCH as PartialObjectMetadataList")


def check_refusals(rw):
    paths = {"GET": "/api/v1/namespaces/md/pods/a", "LIST": "/api/v1/namespaces/md/pods",
             "WATCH": "/api/v1/namespaces/md/pods?watch=1&resourceVersion=0",
             "WATCH-LIST": "/api/v1/namespaces/md/pods?" + WL,
             "deprecated WATCH": "/api/v1/watch/namespaces/md/pods"}
    for verb, path in paths.items():
        for accept in ("application/yaml", "application/vnd.kubernetes.protobuf",
                       "application/cbor", "application/json;as=Foo;g=meta.k8s.io;v=v1",
                       "application/json;as=Table;g=other;v=v1",
                       "application/json;as=Table;g=meta.k8s.io;v=v2",
                       "application/json;as=Table"):
            msg = status_406(rw, path, accept, "%s with %s" % (verb, accept))
            if "yaml" in accept or "protobuf" in accept or "cbor" in accept:
                check(msg.startswith("406: Not Acceptable\n\nAvailable representations: "
                                     "application/json"), "route check message: %r", msg)
            else:
                eq(msg, "only the following media types are accepted: application/json",
                   "negotiation message")
        msg = status_406(rw, path, "application/*", "%s with application/*" % verb)
        check(msg.startswith("406: Not Acceptable"), "application/* alone: %r", msg)
        for accept in (None, "*/*", "application/json",
                       "application/vnd.kubernetes.protobuf,application/json",
                       "application/*, application/json;q=0.1"):
            status, hdrs, body = get(rw, path + ("&" if "?" in path else "?") + "timeoutSeconds=1",
                                     accept)
            eq(status, 200, "%s with %r" % (verb, accept))
            first = json.loads(body.split(b"\n")[0])
            kind = first.get("kind") or first["object"]["kind"]
            eq(kind, {"GET": "Pod", "LIST": "PodList"}.get(verb, "Pod"),
               "%s with %r answers JSON" % (verb, accept))
    st = json.loads(get(rw, "/api/v1/namespaces/md/pods?includeObject=All", TABLE)[2])
    eq((st["code"], st["reason"]), (400, "BadRequest"), "bad includeObject with a Table")
    eq(st["message"], "Unable to convert to Table as requested: includeObject: Invalid value: "
       "\"All\": must be 'Metadata', 'Object', 'None', or empty", "includeObject message")
    eq(get(rw, "/api/v1/namespaces/md/pods?includeObject=All", "application/json")[0], 200,
       "includeObject means nothing without a Table")


def check_error_passthrough(rw, etcd):
    """An ERROR event's Status is not converted (the ring holds 50 events)."""
    first = etcd.put("/registry/pods/er/p", pod("er", "p", "Pending"))
    for i in range(60):
        last = etcd.put("/registry/pods/er/p", pod("er", "p", "Running" if i % 2 else "Pending"))
    rw.wait_rv(last, "/api/v1/pods")
    for accept in (TABLE, POM):
        w = rw.watch("/api/v1/namespaces/er/pods?watch=1&resourceVersion=%d" % first,
                     accept=accept)
        ev = w.next_event(10)
        eq((ev["type"], ev["object"]["kind"], ev["object"]["code"], ev["object"]["reason"]),
           ("ERROR", "Status", 410, "Expired"), "ERROR with %s" % accept)
        check(w.next_event(10) is None, "the stream ends after the ERROR")


def check_other_endpoints(rw):
    disc = "application/json;g=apidiscovery.k8s.io;v=v2;as=APIGroupDiscoveryList"
    eq(get(rw, "/apis", disc)[1]["content-type"], disc, "aggregated /apis")
    eq(get(rw, "/apis", "application/json")[1]["content-type"], "application/json", "/apis")
    status_406(rw, "/apis", "application/yaml", "/apis as YAML")
    status_406(rw, "/apis", TABLE, "/apis as a Table")
    status_406(rw, "/api/v1", "application/yaml", "/api/v1 as YAML")
    status_406(rw, "/version", "application/yaml", "/version as YAML")
    eq(get(rw, "/version", TABLE)[0], 200, "/version is written raw")
    eq(get(rw, "/apis/apps", "application/*")[0], 200, "/apis/GROUP has no route check")
    status_406(rw, "/api/v1", "application/*", "/api/v1 route check")
    proto = ("application/vnd.google.protobuf;proto=io.prometheus.client.MetricFamily;"
             "encoding=delimited")
    status_406(rw, "/metrics", proto, "/metrics in protobuf")
    status, hdrs, _ = get(rw, "/metrics", proto + ",text/plain;version=0.0.4;q=0.5")
    eq((status, hdrs["content-type"]), (200, "text/plain; version=0.0.4; charset=utf-8"),
       "/metrics falls back to text")
    eq(get(rw, "/metrics", "application/json")[0], 200, "/metrics in text for anything else")
    eq(get(rw, "/healthz", "application/yaml")[:3:2], (200, b"ok"), "health is not negotiated")


def raw_h1(rw, path, accepts):
    """GET path over HTTP/1.1 with one Accept field per item of accepts;
    (status, first line of the body)."""
    buf = rw.raw(("GET %s HTTP/1.1\r\nHost: a\r\nConnection: close\r\n%s"
                  "\r\n" % (path, "".join("Accept: %s\r\n" % a
                                          for a in accepts))).encode(),
                 until=lambda b: b"\n" in b.partition(b"\r\n\r\n")[2])
    head, _, body = buf.partition(b"\r\n\r\n")
    if b"chunked" in head.lower():
        body = body.split(b"\r\n", 1)[1]
    return int(head.split()[1]), body.split(b"\n", 1)[0]


def raw_h2(rw, path, accepts):
    """The same over HTTP/2 (h2c): one accept field per item."""
    c = H2Client(rw.port, open_windows=True)
    c.send(h2_frame(HEADERS, END_STREAM | END_HEADERS, 1, header_block(
        [(":method", "GET"), (":scheme", "http"), (":path", path),
         (":authority", "a")] + [("accept", a) for a in accepts])))
    check(c.until(lambda: b"\n" in c.data.get(1, b"") or 1 in c.ended),
          "h2 %s: no answer", path)
    c.close()
    return c.status[1], c.data.get(1, b"").split(b"\n", 1)[0]


def check_repeated_accept(rw, etcd):
    """Two Accept fields: the first one counts, as Go's Header.Get that the
    apiserver's negotiation and go-restful's route check read, over
    HTTP/1.1 and HTTP/2, on every verb."""
    rv = etcd.put("/registry/configmaps/rep/c1", configmap("rep", "c1"))
    rw.wait_rv(rv)
    for verb, path in (
            ("LIST", "/api/v1/namespaces/rep/configmaps"),
            ("GET", "/api/v1/namespaces/rep/configmaps/c1"),
            ("WATCH", "/api/v1/namespaces/rep/configmaps?watch=1&resourceVersion=0")):
        for accepts, want in (((TABLE, "application/json"), "Table"),
                              (("application/json", TABLE), "json"),
                              (("", TABLE), "json"),
                              (("application/yaml", "application/json"), 406)):
            got = raw_h1(rw, path, accepts)
            h2 = raw_h2(rw, path, accepts)
            for proto, (status, line) in (("HTTP/1.1", got), ("HTTP/2", h2)):
                what = "%s %s with Accept fields %r" % (proto, verb, accepts)
                if want == 406:
                    check(status in (406, b"\x48") and b'"code":406' in line,
                          "%s: not 406: %r %r", what, status, line[:200])
                    continue
                check(status in (200, b"\x88"), "%s: %r %r", what, status,
                      line[:200])
                table = b'"kind":"Table"' in line
                check(table == (want == "Table"), "%s: %s, not %s: %r", what,
                      "a Table" if table else "no Table", want, line[:200])


def main():
    etcd = Etcd()
    rw = Ringwatch(etcd, "--bookmark-interval", "1", "--ring-capacity", "50",
                   resources="pods,configmaps,apps/v1/deployments")
    check_kubectl(rw, etcd)
    check_table_watch(rw, etcd)
    check_bookmarks(rw, etcd)
    check_watch_list(rw, etcd)
    check_metadata(rw, etcd)
    check_refusals(rw)
    check_other_endpoints(rw)
    check_error_passthrough(rw, etcd)
    check_repeated_accept(rw, etcd)
    check(rw.proc.poll() is None, "ringwatch died")


run(main)
