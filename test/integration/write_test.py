"""The write verbs (POST create, PUT update, PATCH, DELETE) through
ringwatch, over the store RW_TEST_STORE names (etcd, or Redis through the
functions library), checked against kube-apiserver's answers: every error
with its code, reason, message and details; the server-set fields (uid,
creationTimestamp, generation, no stored resourceVersion, generateName);
dryRun; the types' rules (a namespace's name is an RFC 1123 label, a PUT
creates a Lease but not a ConfigMap, a DELETE answers a Namespace but a
Status for a ConfigMap); a watcher sees each write exactly once with the
write's resourceVersion; a GET or LIST sent after a write's answer sees it
(and how long the cache takes to catch up, printed); RBAC refuses writes
(403) for verbs it does not grant, before the body is read."""
import re
import time

from harness import *
from h2raw import END_HEADERS, HEADERS, H2Client, h2_frame, h2_request_headers

NS = "/api/v1/namespaces/w/configmaps"
OPT = "Operation cannot be fulfilled on configmaps \"%s\": "
MODIFIED = ("the object has been modified; please apply your changes to the "
            "latest version and try again")
SUBDOMAIN = ("a lowercase RFC 1123 subdomain must consist of lower case alphanumeric "
             "characters, '-' or '.', and must start and end with an alphanumeric "
             "character (e.g. 'example.com', regex used for validation is "
             "'[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*')")
LABEL = ("a lowercase RFC 1123 label must consist of lower case alphanumeric "
         "characters or '-', and must start and end with an alphanumeric character "
         "(e.g. 'my-name',  or '123-abc', regex used for validation is "
         "'[a-z0-9]([-a-z0-9]*[a-z0-9])?')")


def call(rw, method, path, body=None, ctype="application/json", headers=None):
    """One request; returns (status, decoded JSON body or raw bytes)."""
    conn = rw.connection()
    data = json.dumps(body).encode() if isinstance(body, (dict, list)) else body
    hdrs = dict(headers or {})
    if data is not None:
        hdrs["Content-Type"] = ctype
    conn.request(method, path, body=data, headers=hdrs)
    resp = conn.getresponse()
    raw = resp.read()
    conn.close()
    try:
        return resp.status, json.loads(raw)
    except ValueError:
        return resp.status, raw


def send_big(rw, method, path):
    """The head of a request whose body is over 3 MiB (Content-Length
    3145729, none of the body sent): the answer must come without it;
    returns (status, Status)."""
    def complete(buf):
        head, sep, rest = buf.partition(b"\r\n\r\n")
        length = re.search(rb"(?i)content-length: *(\d+)", head)
        return sep and length and len(rest) >= int(length.group(1))

    out = rw.raw(("%s %s HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\n"
                  "Content-Length: 3145729\r\n\r\n" % (method, path)).encode(),
                 until=complete)
    head, _, rest = out.partition(b"\r\n\r\n")
    return int(head.split()[1]), json.loads(rest)


def cm(name, data=None, **meta):
    m = {"name": name}
    m.update(meta)
    return {"apiVersion": "v1", "kind": "ConfigMap", "metadata": m, "data": data or {"k": "v"}}


def status_is(got, code, reason, message, details=None, what=""):
    status, body = got
    eq(status, code, "%s status (body %r)" % (what, body))
    check(isinstance(body, dict), "%s: not JSON: %r", what, body)
    eq(body.get("kind"), "Status", what + " kind")
    eq(body.get("status"), "Failure", what + " status")
    eq(body.get("code"), code, what + " code")
    eq(body.get("reason"), reason, what + " reason")
    eq(body.get("message"), message, what + " message")
    if details is not None:
        eq(body.get("details"), details, what + " details")
    return body


def created(rw, path, obj, what):
    status, body = call(rw, "POST", path, obj)
    eq(status, 201, "%s: status (body %r)" % (what, body))
    return body


def check_server_fields(o, name, ns):
    meta = o["metadata"]
    eq(meta["name"], name, "name")
    eq(meta.get("namespace"), ns, "namespace")
    check(re.fullmatch(r"[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}",
                       meta["uid"]), "uid %r is not a UUID v4", meta["uid"])
    check(re.fullmatch(r"\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ", meta["creationTimestamp"]),
          "creationTimestamp %r", meta["creationTimestamp"])
    eq(meta["generation"], 1, "generation on create")
    check(int(meta["resourceVersion"]) > 0, "resourceVersion %r", meta["resourceVersion"])


def test_create(rw, store):
    a = created(rw, NS, cm("a"), "create a")
    check_server_fields(a, "a", "w")
    rv = int(a["metadata"]["resourceVersion"])
    # read back: the same object; the store holds no resourceVersion
    got = rw.get_json(NS + "/a")
    eq(got, a, "GET after create")
    status_is(call(rw, "POST", NS, cm("a")), 409, "AlreadyExists",
              'configmaps "a" already exists', {"name": "a", "kind": "configmaps"},
              "create twice")
    # the body's server fields are the server's
    b = created(rw, NS, cm("b", uid="x", generation=7,
                           creationTimestamp="2001-01-01T00:00:00Z"), "create b")
    check_server_fields(b, "b", "w")
    # the namespace comes from the URL; a body that disagrees is refused
    created(rw, NS, cm("c", namespace="w"), "create c with its namespace")
    status_is(call(rw, "POST", NS, cm("d", namespace="other")), 400, "BadRequest",
              "the namespace of the provided object does not match the namespace "
              "sent on the request", what="namespace mismatch")
    status_is(call(rw, "POST", NS, cm("e", resourceVersion="5")), 500, "InternalError",
              "Internal error occurred: resourceVersion should not be set on objects "
              "to be created", what="create with a resourceVersion")
    # kind and apiVersion default from the URL
    o = created(rw, NS, {"metadata": {"name": "bare"}}, "create without kind")
    eq((o["kind"], o["apiVersion"]), ("ConfigMap", "v1"), "defaulted kind")
    return rv


def test_bad_bodies(rw):
    status_is(call(rw, "POST", NS, b"hello"), 400, "BadRequest",
              "the object provided is unrecognized (must be of type ConfigMap): "
              "couldn't get version/kind; json parse error: invalid JSON (68656c6c6f)",
              what="not JSON")
    status, body = call(rw, "POST", NS, [1, 2])
    eq((status, body["reason"]), (400, "BadRequest"), "an array")
    check(body["message"].startswith("the object provided is unrecognized (must be of "
                                     "type ConfigMap): couldn't get version/kind"),
          "array message %r", body["message"])
    status_is(call(rw, "POST", NS, {"apiVersion": "v1", "kind": "Secret",
                                    "metadata": {"name": "s"}}),
              400, "BadRequest", 'Secret in version "v1" cannot be handled as a '
              'ConfigMap: converting (v1.Secret) to (core.ConfigMap): unknown conversion',
              what="another kind")
    status_is(call(rw, "POST", NS, {"apiVersion": "v2", "kind": "ConfigMap",
                                    "metadata": {"name": "s"}}),
              400, "BadRequest", 'ConfigMap in version "v2" cannot be handled as a '
              'ConfigMap: no kind "ConfigMap" is registered for version "v2" in scheme '
              '"pkg/api/legacyscheme/scheme.go:30"', what="another version")
    status_is(call(rw, "POST", NS, cm("t"), ctype="text/plain"), 415,
              "UnsupportedMediaType", "the body of the request was in an unknown "
              "format - accepted media types include: application/json",
              what="text/plain")
    status, body = send_big(rw, "POST", NS)
    eq((status, body["reason"], body["message"]),
       (413, "RequestEntityTooLarge", "Request entity too large: limit is 3145728"),
       "over 3 MiB")


def test_names(rw):
    status_is(call(rw, "POST", NS, cm("Bad_Name")), 422, "Invalid",
              'ConfigMap "Bad_Name" is invalid: metadata.name: Invalid value: '
              '"Bad_Name": ' + SUBDOMAIN,
              {"name": "Bad_Name", "kind": "ConfigMap", "causes": [
                  {"reason": "FieldValueInvalid", "field": "metadata.name",
                   "message": 'Invalid value: "Bad_Name": ' + SUBDOMAIN}]},
              "bad name")
    status_is(call(rw, "POST", NS, {"metadata": {}}), 422, "Invalid",
              'ConfigMap "" is invalid: metadata.name: Required value: name or '
              'generateName is required', what="no name")
    long = "a" * 254
    status, body = call(rw, "POST", NS, cm(long))
    eq((status, body["details"]["causes"][0]["message"]),
       (422, 'Invalid value: "%s": must be no more than 253 characters' % long), "too long")
    status_is(call(rw, "POST", "/api/v1/namespaces/Bad/configmaps", cm("x")), 422, "Invalid",
              'ConfigMap "x" is invalid: metadata.namespace: Invalid value: "Bad": ' + LABEL,
              what="a namespace that is not a label")
    # a namespace's name is an RFC 1123 label: no dots
    status_is(call(rw, "POST", "/api/v1/namespaces", {"metadata": {"name": "a.b"}}),
              422, "Invalid", 'Namespace "a.b" is invalid: metadata.name: Invalid value: '
              '"a.b": ' + LABEL, what="namespace name")
    ns = created(rw, "/api/v1/namespaces", {"metadata": {"name": "made"}}, "namespace")
    check("namespace" not in ns["metadata"], "cluster-scoped with a namespace: %s", ns)
    # generateName: 5 characters of the apiserver's alphabet, each unique
    names = set()
    for _ in range(3):
        g = created(rw, NS, {"metadata": {"generateName": "gen-"}}, "generateName")
        check(re.fullmatch(r"gen-[bcdfghjklmnpqrstvwxz2456789]{5}", g["metadata"]["name"]),
              "generated name %r", g["metadata"]["name"])
        eq(g["metadata"]["generateName"], "gen-", "generateName kept")
        names.add(g["metadata"]["name"])
    eq(len(names), 3, "generated names distinct")


def test_dry_run(rw):
    o = created(rw, NS + "?dryRun=All", cm("dry"), "dry-run create")
    check_server_fields(dict(o, metadata=dict(o["metadata"], resourceVersion="1")), "dry", "w")
    check("resourceVersion" not in o["metadata"], "dry run has a resourceVersion: %s", o)
    status_is(call(rw, "GET", NS + "/dry"), 404, "NotFound", 'configmaps "dry" not found',
              what="dry run stored nothing")
    status_is(call(rw, "POST", NS + "?dryRun=Foo", cm("dry")), 422, "Invalid",
              'CreateOptions.meta.k8s.io "" is invalid: dryRun: Unsupported value: "Foo": '
              'supported values: "All"', what="dryRun=Foo")
    status_is(call(rw, "POST", NS + "?fieldValidation=Loose", cm("dry")), 422, "Invalid",
              'CreateOptions.meta.k8s.io "" is invalid: fieldValidation: Unsupported '
              'value: "Loose": supported values: "Ignore", "Strict", "Warn"',
              what="fieldValidation=Loose")
    created(rw, NS + "?fieldManager=kubectl-create&fieldValidation=Strict", cm("fm"),
            "fieldManager")
    a = rw.get_json(NS + "/a")
    status, d = call(rw, "DELETE", NS + "/a?dryRun=All")
    eq(status, 200, "dry-run delete")
    eq(rw.get_json(NS + "/a")["metadata"], a["metadata"], "dry-run delete kept it")


def test_update(rw):
    a = rw.get_json(NS + "/a")
    rv = a["metadata"]["resourceVersion"]
    a2 = dict(a, data={"k": "v2"})
    status, u = call(rw, "PUT", NS + "/a", a2)
    eq(status, 200, "update at the current resourceVersion (%r)" % (u,))
    check(int(u["metadata"]["resourceVersion"]) > int(rv), "new resourceVersion")
    eq(u["metadata"]["uid"], a["metadata"]["uid"], "uid kept")
    eq(u["metadata"]["creationTimestamp"], a["metadata"]["creationTimestamp"], "created kept")
    eq(u["metadata"]["generation"], 2, "data changed: generation + 1")
    # a stale resourceVersion: the apiserver's 409
    status_is(call(rw, "PUT", NS + "/a", a2), 409, "Conflict", OPT % "a" + MODIFIED,
              {"name": "a", "kind": "configmaps"}, "stale update")
    # metadata only: generation unchanged; no resourceVersion: unconditional
    bare = {"metadata": {"name": "a", "labels": {"x": "y"}}, "data": {"k": "v2"}}
    status, u2 = call(rw, "PUT", NS + "/a", bare)
    eq(status, 200, "unconditional update (%r)" % (u2,))
    eq(u2["metadata"]["generation"], 2, "labels only: generation kept")
    eq(u2["metadata"]["uid"], a["metadata"]["uid"], "uid from the stored object")
    status_is(call(rw, "PUT", NS + "/zz", cm("zz")), 404, "NotFound",
              'configmaps "zz" not found', {"name": "zz", "kind": "configmaps"},
              "update of an absent ConfigMap")
    status_is(call(rw, "PUT", NS + "/a", cm("other")), 400, "BadRequest",
              "the name of the object (other) does not match the name on the URL (a)",
              what="name mismatch")
    status_is(call(rw, "PUT", NS + "/a", cm("a", namespace="x")), 400, "BadRequest",
              "the namespace of the object (x) does not match the namespace on the "
              "request (w)", what="namespace mismatch")
    status, body = call(rw, "PUT", NS + "/a", cm("a", uid="not-the-uid"))
    eq(status, 409, "another uid (%r)" % (body,))
    check(body["message"].startswith(OPT % "a" + "StorageError: invalid object, Code: 4") and
          body["message"].endswith("Precondition failed: UID in precondition: not-the-uid, "
                                   "UID in object meta: " + a["metadata"]["uid"]),
          "uid precondition message %r", body["message"])
    # a Lease is created by a PUT (AllowCreateOnUpdate)
    lease = {"apiVersion": "coordination.k8s.io/v1", "kind": "Lease",
             "metadata": {"name": "l"}, "spec": {"holderIdentity": "me"}}
    status, body = call(rw, "PUT", "/apis/coordination.k8s.io/v1/namespaces/w/leases/l", lease)
    eq(status, 201, "PUT creates a Lease (%r)" % (body,))
    check_server_fields(body, "l", "w")


def test_delete(rw):
    c = rw.get_json(NS + "/c")
    uid = c["metadata"]["uid"]
    status, body = call(rw, "DELETE", NS + "/c", {"kind": "DeleteOptions", "apiVersion": "v1",
                                                  "preconditions": {"uid": "nope"}})
    eq(status, 409, "uid precondition (%r)" % (body,))
    check(body["message"].endswith("Precondition failed: UID in precondition: nope, UID in "
                                   "object meta: " + uid), "message %r", body["message"])
    eq(body["reason"], "Conflict", "reason")
    status, body = call(rw, "DELETE", NS + "/c", {"preconditions": {"resourceVersion": "1"}})
    eq(status, 409, "resourceVersion precondition (%r)" % (body,))
    check(body["message"].endswith("Precondition failed: ResourceVersion in precondition: 1, "
                                   "ResourceVersion in object meta: " +
                                   c["metadata"]["resourceVersion"]), "message %r", body["message"])
    status, body = call(rw, "DELETE", NS + "/c", {"preconditions": {
        "uid": uid, "resourceVersion": c["metadata"]["resourceVersion"]}})
    eq(status, 200, "delete with preconditions (%r)" % (body,))
    eq(body, {"kind": "Status", "apiVersion": "v1", "metadata": {}, "status": "Success",
              "details": {"name": "c", "kind": "configmaps", "uid": uid}}, "Status Success")
    status_is(call(rw, "DELETE", NS + "/c"), 404, "NotFound", 'configmaps "c" not found',
              {"name": "c", "kind": "configmaps"}, "delete twice")
    # a Namespace's delete answers the object (ReturnDeletedObject)
    status, body = call(rw, "DELETE", "/api/v1/namespaces/made")
    eq((status, body.get("kind"), body["metadata"]["name"]), (200, "Namespace", "made"),
       "namespace delete answers it")
    # no write on a collection, no create on an object
    status, _ = call(rw, "DELETE", NS)
    eq(status, 405, "DELETE of a collection")
    status, _ = call(rw, "POST", NS + "/a", cm("a"))
    eq(status, 405, "POST on an object")
    status, _ = call(rw, "POST", "/api/v1/configmaps", cm("a"))
    eq(status, 405, "POST on all namespaces")


def test_watch_and_read_your_writes(rw):
    """A watcher sees every write once, as ADDED/MODIFIED/DELETED at the
    write's resourceVersion; a GET and a LIST after each answer see it."""
    start = rw.get_json(NS)["metadata"]["resourceVersion"]
    w = rw.watch(NS + "?watch=true&resourceVersion=" + start)
    want, waits = [], []
    for i in range(20):
        status, o = call(rw, "POST", NS, cm("ryw%d" % i))
        eq(status, 201, "create")
        rv = o["metadata"]["resourceVersion"]
        want.append(("ADDED", "ryw%d" % i, rv))
        eq(rw.get_json(NS + "/ryw%d" % i)["metadata"]["resourceVersion"], rv,
           "consistent GET after create")
        t0 = time.monotonic()
        got = rw.get_json(NS + "/ryw%d?resourceVersion=%s" % (i, rv))
        waits.append(time.monotonic() - t0)
        eq(got["metadata"]["resourceVersion"], rv, "GET at the write's RV")
        status, u = call(rw, "PUT", NS + "/ryw%d" % i, dict(o, data={"k": "u"}))
        eq(status, 200, "update")
        want.append(("MODIFIED", "ryw%d" % i, u["metadata"]["resourceVersion"]))
        lst = rw.get_json(NS + "?fieldSelector=metadata.name%3Dryw" + str(i))
        eq([x["data"] for x in lst["items"]], [{"k": "u"}], "consistent LIST after update")
        status, d = call(rw, "DELETE", NS + "/ryw%d" % i)
        eq(status, 200, "delete")
        status, _ = call(rw, "GET", NS + "/ryw%d" % i)
        eq(status, 404, "consistent GET after delete")
        # the deletion's revision: the cache's after it
        drv = rw.get_json(NS)["metadata"]["resourceVersion"]
        want.append(("DELETED", "ryw%d" % i, drv))
    events = []
    deadline = time.time() + 10
    while len(events) < len(want) and time.time() < deadline:
        e = w.next_event(timeout=deadline - time.time())
        if e is None:
            break
        if e["type"] != "BOOKMARK" and e["object"]["metadata"]["name"].startswith("ryw"):
            events.append((e["type"], e["object"]["metadata"]["name"],
                           e["object"]["metadata"]["resourceVersion"]))
    w.close()
    eq([e[:2] for e in events], [x[:2] for x in want], "watch events, each once")
    eq([e[2] for e in events if e[0] != "DELETED"], [x[2] for x in want if x[0] != "DELETED"],
       "watch events at the writes' resourceVersions")
    waits.sort()
    print("read-your-writes: GET ?resourceVersion=<write's RV> right after the "
          "answer: p50 %.2f ms, max %.2f ms (the cache's catch-up)"
          % (waits[len(waits) // 2] * 1000, waits[-1] * 1000))
    # from a write's answer to a watcher's receipt of its event
    w = rw.watch(NS + "?watch=true&resourceVersion=" + rw.get_json(NS)["metadata"]
                 ["resourceVersion"])
    lags = []
    for i in range(20):
        status, o = call(rw, "POST", NS, cm("lag%d" % i))
        t0 = time.monotonic()
        e = w.next_event(timeout=5)
        lags.append(time.monotonic() - t0)
        eq((e["type"], e["object"]["metadata"]["resourceVersion"]),
           ("ADDED", o["metadata"]["resourceVersion"]), "the write's event")
    w.close()
    lags.sort()
    print("a write's event reaches a watcher %.2f ms (p50), %.2f ms (max) after "
          "its answer" % (lags[len(lags) // 2] * 1000, lags[-1] * 1000))


def test_patch(rw):
    path = NS + "/p"
    o = created(rw, NS, cm("p", {"a": "1"}), "create p")
    merge = "application/merge-patch+json"
    status, m = call(rw, "PATCH", path, {"data": {"b": "2"}}, ctype=merge)
    eq(status, 200, "merge patch (%r)" % (m,))
    eq(m["data"], {"a": "1", "b": "2"}, "merged")
    eq(m["metadata"]["uid"], o["metadata"]["uid"], "uid kept")
    check(int(m["metadata"]["resourceVersion"]) > int(o["metadata"]["resourceVersion"]),
          "new resourceVersion")
    eq(m["metadata"]["generation"], 2, "data changed: generation + 1")
    eq(rw.get_json(path), m, "GET after the patch")
    # a patch naming a stale resourceVersion conflicts; renaming is refused
    status_is(call(rw, "PATCH", path, {"metadata": {"resourceVersion": o["metadata"]
                                                    ["resourceVersion"]}}, ctype=merge),
              409, "Conflict", OPT % "p" + MODIFIED, what="stale patch")
    status_is(call(rw, "PATCH", path, {"metadata": {"name": "q"}}, ctype=merge),
              400, "BadRequest",
              "the name of the object (q) does not match the name on the URL (p)",
              what="patch renaming")
    status_is(call(rw, "PATCH", NS + "/absent", {"data": {}}, ctype=merge), 404, "NotFound",
              'configmaps "absent" not found', what="patch of an absent object")
    status, body = call(rw, "PATCH", path, b"metadata: {}",
                        ctype="application/apply-patch+yaml")
    eq((status, body["reason"]), (415, "UnsupportedMediaType"), "server-side apply")
    check("server-side apply" in body["message"], "apply message %r", body["message"])
    status, body = call(rw, "PATCH", path, {"data": {}}, ctype="application/json")
    eq((status, body["reason"]), (415, "UnsupportedMediaType"), "PATCH as application/json")
    status, d = call(rw, "PATCH", path + "?dryRun=All", {"data": {"z": "9"}}, ctype=merge)
    eq((status, d["data"].get("z")), (200, "9"), "dry-run patch")
    check("z" not in rw.get_json(path)["data"], "dry-run patch wrote")


RBAC = "rbac.authorization.k8s.io"


def test_rbac(store):
    """Anonymous may create configmaps in namespace ok, nothing more: every
    other write is 403 in the apiserver's words, decided before the body is
    read (a body over 3 MiB is 403, not 413; no 100 Continue)."""
    def put(kind, res, name, ns=None, **rest):
        meta = {"name": name}
        if ns:
            meta["namespace"] = ns
        o = {"apiVersion": RBAC + "/v1", "kind": kind, "metadata": meta}
        o.update(rest)
        return store.put("/registry/%s/%s%s" % (res, ns + "/" if ns else "", name), json.dumps(o))

    put("Role", "roles", "cm-create", "ok", rules=[
        {"apiGroups": [""], "resources": ["configmaps"],
         "verbs": ["get", "list", "watch", "create"]}])
    rev = put("RoleBinding", "rolebindings", "anon", "ok",
              roleRef={"apiGroup": RBAC, "kind": "Role", "name": "cm-create"},
              subjects=[{"kind": "Group", "name": "system:unauthenticated", "apiGroup": RBAC}])
    rw = Ringwatch(store, "--authorization-mode", "RBAC", resources="configmaps")
    rw.wait_rv(rev, "/api/v1/namespaces/ok/configmaps")
    who = 'User "system:anonymous"'
    ok = "/api/v1/namespaces/ok/configmaps"
    o = created(rw, ok, cm("mine"), "an allowed create")
    for method, path, verb, name, body in (
            ("POST", "/api/v1/namespaces/no/configmaps", "create", None, cm("x")),
            ("PUT", ok + "/mine", "update", "mine", o),
            ("PATCH", ok + "/mine", "patch", "mine", {"data": {"k": "p"}}),
            ("DELETE", ok + "/mine", "delete", "mine", None)):
        ns = path.split("/")[4]
        status_is(call(rw, method, path, body, ctype="application/merge-patch+json"
                       if method == "PATCH" else "application/json"),
                  403, "Forbidden",
                  '%s is forbidden: %s cannot %s resource "configmaps" in API group "" in '
                  'the namespace "%s"' % ('configmaps "%s"' % name if name else "configmaps",
                                          who, verb, ns),
                  dict({"name": name} if name else {}, kind="configmaps"), verb + " denied")
    # before the body: 403 for a forbidden body over the limit, 413 for an
    # allowed one
    status, body = send_big(rw, "POST", "/api/v1/namespaces/no/configmaps")
    eq((status, body["reason"]), (403, "Forbidden"), "forbidden, over 3 MiB")
    status, body = send_big(rw, "POST", ok)
    eq((status, body["reason"]), (413, "RequestEntityTooLarge"), "allowed, over 3 MiB")
    out = rw.raw(b"POST /api/v1/namespaces/no/configmaps HTTP/1.1\r\nHost: x\r\n"
                 b"Content-Type: application/json\r\nContent-Length: 10\r\n"
                 b"Expect: 100-continue\r\n\r\n")
    check(out.startswith(b"HTTP/1.1 403 "), "403 before 100 Continue: %r", out[:80])
    # HTTP/2: answered at the end of the header block, no DATA sent
    h2 = H2Client(rw.port, open_windows=True)
    h2.send(h2_frame(HEADERS, END_HEADERS, 1, h2_request_headers(
        "/api/v1/namespaces/no/configmaps", "POST",
        extra=[("content-type", "application/json")])))
    check(h2.until(lambda: 1 in h2.ended or 1 in h2.resets), "h2: no answer before the body")
    eq(json.loads(h2.data.get(1, b"{}")).get("reason"), "Forbidden", "h2 403 before the body")
    h2.close()
    eq(rw.get_json(ok + "/mine")["metadata"]["resourceVersion"],
       o["metadata"]["resourceVersion"], "nothing written")
    rw.stop()


def main():
    store = Store()
    rw = Ringwatch(store, resources="configmaps,namespaces,leases.coordination.k8s.io")
    test_create(rw, store)
    test_bad_bodies(rw)
    test_names(rw)
    test_dry_run(rw)
    test_update(rw)
    test_patch(rw)
    test_delete(rw)
    test_watch_and_read_your_writes(rw)
    rw.stop()
    test_rbac(store)


run(main)
