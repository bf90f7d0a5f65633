"""The "ringwatch" Redis Functions library (src/redis_functions.lua, the
bytes ringwatch compiles in) against a real redis-server 7:

- FUNCTION LOAD REPLACE of the file: library "ringwatch", rw_put and
  rw_delete writers, rw_rev flagged no-writes (FCALL_RO refuses rw_put);
- create, update, delete: the revision returned, the hash field
  "<modrev> <json>", the log entry "<rev>-0" with type/key/value (a DELETE
  carries the object's last JSON), metadata.resourceVersion stripped and
  every other byte kept (member order, [], large integers, a nested
  resourceVersion);
- conditions: EXISTS n, CONFLICT n, NOTFOUND, for puts and deletes;
- INVALID values and arguments, and that a refused call writes nothing;
- global revisions strictly increasing across resources, per-resource
  revisions counting per resource, every call's keys on one cluster slot
  and keys of two tags refused;
- exact trimming to the history and the compaction revision;
- a restart from the RDB keeps the library, the counter and the log; a
  counter behind its log (a restore that lost it) is refused;
- the function's own JSON scanner (it cuts metadata.resourceVersion out
  without re-encoding) on 300 random objects: random nesting, escapes,
  unicode, spacing and an escaped "resource\u0056ersion" key: the stored
  value parses as the input without metadata.resourceVersion, and is the
  input byte for byte when there was none.
"""

import json
import random

from harness import Failure, Redis, RedisError, check, eq, run
from harness_redis import key_slot as slot


def pod(ns, name, **extra):
    obj = {"apiVersion": "v1", "kind": "Pod",
           "metadata": {"name": name, "namespace": ns}, "spec": {"nodeName": "n1"}}
    obj.update(extra)
    return obj


def cm(ns, name):
    return {"apiVersion": "v1", "kind": "ConfigMap",
            "metadata": {"name": name, "namespace": ns}, "data": {}}


def refused(fn, code, what):
    try:
        fn()
    except RedisError as e:
        eq(e.code, code, "%s: error word (%s)" % (what, e.message))
        return e.message
    raise Failure("%s: accepted, want %s" % (what, code))


def test_library(r):
    libs = r.command("FUNCTION", "LIST", "LIBRARYNAME", "ringwatch")
    eq(len(libs), 1, "libraries named ringwatch")
    lib = dict(zip(libs[0][::2], libs[0][1::2]))
    flags = {}
    for f in lib[b"functions"]:
        f = dict(zip(f[::2], f[1::2]))
        flags[f[b"name"].decode()] = sorted(x if isinstance(x, str) else x.decode() for x in f[b"flags"])
    eq(flags, {"rw_put": [], "rw_delete": [], "rw_rev": ["no-writes"]}, "functions and flags")
    eq(r.revision(), 0, "revision of an empty store")
    refused(lambda: r.command("FCALL_RO", "rw_put", 4, *r.keys("pods"),
                              "/registry/pods/a/b", json.dumps(pod("a", "b")), "", 10),
            "ERR", "rw_put through FCALL_RO")


def test_writes(r):
    key = "/registry/pods/ns1/web"
    # resourceVersion stripped; member order, [], a big integer and a
    # nested resourceVersion kept byte for byte
    raw = ('{"kind":"Pod","apiVersion":"v1","metadata":{"resourceVersion":"77",'
           '"name":"web","namespace":"ns1","labels":{"app":"w"}},'
           '"spec":{"containers":[],"priority":12345678901234567890,'
           '"ref":{"resourceVersion":"9"}}}')
    kept = raw.replace('"resourceVersion":"77",', "")
    rev1 = r.put(key, raw, expected="0")
    eq(rev1, 1, "first revision")
    eq(r.range("/registry/pods/"), {key: (1, kept.encode())}, "hash after create")
    eq(r.command("HGET", r.keys("pods")[1], key), b"1 " + kept.encode(), "hash field format")
    eq(r.log("pods"), [(1, {"type": "PUT", "key": key, "value": kept.encode()})], "log after create")
    refused(lambda: r.put(key, pod("ns1", "web"), expected="0"), "EXISTS", "create of an existing key")
    msg = refused(lambda: r.put(key, pod("ns1", "web"), expected=7), "CONFLICT", "update at a stale revision")
    eq(msg, "CONFLICT 1", "conflict names the current mod revision")
    refused(lambda: r.put("/registry/pods/ns1/nope", pod("ns1", "nope"), expected=1),
            "NOTFOUND", "update of an absent key")
    # whitespace inside metadata, resourceVersion last
    rev2 = r.put(key, '{ "metadata" : { "name" : "web", "namespace":"ns1" , "resourceVersion" : "1" } }',
                 expected=1)
    eq(rev2, 2, "update's revision")
    eq(r.range("/registry/pods/")[key][1], b'{ "metadata" : {"name" : "web","namespace":"ns1"} }',
       "stripped last member")
    rev3 = r.put(key, pod("ns1", "web"))
    eq(rev3, 3, "unconditional update's revision")
    refused(lambda: r.delete(key, expected=2), "CONFLICT", "delete at a stale revision")
    refused(lambda: r.delete("/registry/pods/ns1/nope"), "NOTFOUND", "delete of an absent key")
    last = r.range("/registry/pods/")[key][1]
    rev4 = r.delete(key, expected=3)
    eq(rev4, 4, "delete's revision")
    eq(r.range("/registry/pods/"), {}, "hash after delete")
    eq(r.log("pods")[-1], (4, {"type": "DELETE", "key": key, "value": last}),
       "DELETE entry carries the last JSON")
    eq([rev for rev, _ in r.log("pods")], [1, 2, 3, 4], "log IDs")
    eq(r.command("XRANGE", r.keys("pods")[2], "-", "+")[-1][0], b"4-0", "entry ID form")
    # cluster-scoped: the key's last segment only
    eq(r.put("/registry/minions/n1", {"kind": "Node", "metadata": {"name": "n1"}}), 5,
       "cluster-scoped create")


def test_invalid(r):
    key = "/registry/pods/ns1/bad"
    before = (r.revision(), r.log("pods"), r.range("/registry/pods/"))
    cases = [
        ("not json", "value is not JSON"),
        ('{"metadata":{"name":"bad","namespace":"ns1"}', "value is not JSON"),
        ("[1,2]", "not a JSON object"),
        ('"x"', "not a JSON object"),
        ("", "value is not JSON"),
        ('{"metadata":[]}', "metadata is not an object"),
        ('{"kind":"Pod"}', "metadata is not an object"),
        ('{"metadata":{"namespace":"ns1"}}', "metadata.name"),
        ('{"metadata":{"name":"other","namespace":"ns1"}}', "metadata.name"),
        ('{"metadata":{"name":"bad","namespace":"ns2"}}', "metadata.namespace"),
        ('{"metadata":{"name":"bad","namespace":7}}', "metadata.namespace"),
        (b'{"metadata":{"name":"bad","namespace":"ns1"},"x":"\xff"}', "UTF-8"),
        (b'{"metadata":{"name":"bad","namespace":"ns1"},"x":"\xc0\xaf"}', "UTF-8"),
        (b'k8s\x00\x0a\x02', "not"),
    ]
    for value, why in cases:
        msg = refused(lambda: r.put(key, value), "INVALID", "value %r" % (value,))
        check(why in msg, "value %r: message %r lacks %r", value, msg, why)
    good = json.dumps(pod("ns1", "bad"))
    args = [
        (["FCALL", "rw_put", 4, *r.keys("pods"), key, good, "x", 10], "expected"),
        (["FCALL", "rw_put", 4, *r.keys("pods"), key, good, "-1", 10], "expected"),
        (["FCALL", "rw_put", 4, *r.keys("pods"), key, good, "", 0], "history"),
        (["FCALL", "rw_put", 4, *r.keys("pods"), key, good, "", "ten"], "history"),
        (["FCALL", "rw_put", 4, *r.keys("pods"), key, good, ""], "arguments"),
        (["FCALL", "rw_put", 4, *r.keys("pods"), "registry/pods/ns1/bad", good, "", 10], "key"),
        (["FCALL", "rw_put", 4, *r.keys("pods"), "/registry/pods/ns1/bad/", good, "", 10], "key"),
        (["FCALL", "rw_put", 4, "{rw}:rev", "{rw:pods}:pods:objects", "{rw}:pods:log",
          "{rw}:pods:compacted", key, good, "", 10], "key"),
        (["FCALL", "rw_put", 4, "{rw}:rev", "{rw}:pods:objects", "{rw}:configmaps:log",
          "{rw}:pods:compacted", key, good, "", 10], "keys 3 and 4"),
        (["FCALL", "rw_put", 3, "{rw}:rev", "{rw}:pods:objects", "{rw}:pods:log",
          key, good, "", 10], "4 keys"),
        (["FCALL", "rw_put", 4, "rw:rev", "rw:pods:objects", "rw:pods:log",
          "rw:pods:compacted", key, good, "", 10], "{TAG}:rev"),
        (["FCALL", "rw_delete", 4, *r.keys("pods"), key, "x", 10], "expected"),
        (["FCALL", "rw_delete", 4, *r.keys("pods"), key, "0", 10], "expected"),
        (["FCALL", "rw_delete", 4, *r.keys("pods"), key, ""], "arguments"),
        (["FCALL_RO", "rw_rev", 1, "rev"], "{TAG}:rev"),
    ]
    for argv, why in args:
        msg = refused(lambda: r.command(*argv), "INVALID", " ".join(map(str, argv[:2] + argv[-4:])))
        check(why in msg, "%r: message %r lacks %r", argv, msg, why)
    eq((r.revision(), r.log("pods"), r.range("/registry/pods/")), before,
       "refused calls wrote nothing")


def test_global_order(r):
    revs = []
    for i in range(6):
        revs.append(r.put("/registry/pods/ns/p%d" % i, pod("ns", "p%d" % i)))
        revs.append(r.put("/registry/configmaps/ns/c%d" % i, cm("ns", "c%d" % i)))
    check(all(a < b for a, b in zip(revs, revs[1:])), "global revisions not increasing: %r", revs)
    eq(r.revision("configmaps"), revs[-1], "rw_rev is the last revision")
    eq([rev for rev, _ in r.log("configmaps")], revs[1::2], "configmaps log IDs")
    for resource in ("pods", "configmaps"):
        eq({slot(k) for k in r.keys(resource)}, {slot("{rw}:rev")}, "one slot for %s" % resource)


def test_per_resource():
    r = Redis(revisions="per-resource", history=100)
    eq(r.keys("deployments.apps"),
       ["{rw:deployments.apps}:rev", "{rw:deployments.apps}:deployments.apps:objects",
        "{rw:deployments.apps}:deployments.apps:log",
        "{rw:deployments.apps}:deployments.apps:compacted"], "per-resource keys")
    pods = [r.put("/registry/pods/ns/p%d" % i, pod("ns", "p%d" % i)) for i in range(3)]
    cms = [r.put("/registry/configmaps/ns/c%d" % i, cm("ns", "c%d" % i)) for i in range(2)]
    eq(pods, [1, 2, 3], "pods' own revisions")
    eq(cms, [1, 2], "configmaps' own revisions")
    eq((r.revision("pods"), r.revision("configmaps")), (3, 2), "rw_rev per tag")
    for resource in ("pods", "configmaps", "deployments.apps"):
        eq(len({slot(k) for k in r.keys(resource)}), 1, "one slot for %s" % resource)
    refused(lambda: r.command("FCALL", "rw_put", 4, "{rw:pods}:rev", "{rw:pods}:pods:objects",
                              "{rw:configmaps}:pods:log", "{rw:pods}:pods:compacted",
                              "/registry/pods/ns/x", json.dumps(pod("ns", "x")), "", 10),
            "INVALID", "keys of two hash tags")


def test_trim():
    r = Redis(history=3)
    revs = []
    for i in range(3):
        revs.append(r.put("/registry/pods/ns/p", pod("ns", "p", status={"i": i})))
    eq(r.compacted("pods"), 0, "compaction revision before any trimming")
    eq(r.command("EXISTS", r.keys("pods")[3]), 0, "no compacted key before any trimming")
    for i in range(3, 7):
        revs.append(r.put("/registry/pods/ns/p", pod("ns", "p", status={"i": i})))
        revs.append(r.put("/registry/configmaps/ns/c%d" % i, cm("ns", "c%d" % i)))
    revs.append(r.delete("/registry/pods/ns/p"))
    log = [rev for rev, _ in r.log("pods")]
    eq(len(log), 3, "pods log length (exact trimming)")
    eq(r.compacted("pods"), log[0] - 1, "pods compaction revision")
    eq(r.command("XLEN", r.keys("configmaps")[2]), 3, "configmaps log length")
    eq(r.compacted("configmaps"), r.log("configmaps")[0][0] - 1, "configmaps compaction revision")
    return r


def test_restart(r):
    before = (r.revision(), r.log("pods"), r.compacted("pods"))
    r.restart(save=True)
    eq((r.revision(), r.log("pods"), r.compacted("pods")), before, "state after a restart from RDB")
    rev = r.put("/registry/pods/ns/after", pod("ns", "after"))
    eq(rev, before[0] + 1, "next revision after the restart")
    # a counter behind its log (not behind the compaction revision):
    # refused, nothing written
    behind = r.compacted("pods")
    r.command("SET", r.keys("pods")[0], behind)
    log = r.log("pods")
    msg = refused(lambda: r.put("/registry/pods/ns/x", pod("ns", "x")), "INVALID", "counter behind the log")
    check("behind" in msg, "message %r", msg)
    eq((r.revision(), r.log("pods")), (behind, log), "nothing written with the counter behind")


def random_value(rng, depth):
    kind = rng.randrange(8 if depth < 4 else 5)
    if kind == 0:
        return rng.choice([None, True, False])
    if kind == 1:
        return rng.choice([0, -1, 3.25, 1e300, 12345678901234567890, -0.5e-7])
    if kind in (2, 3, 4):
        return "".join(rng.choice(['a', '"', '\\', '/', '}', ']', ',', ':', '\u00e9',
                                   '\u2603', '\U0001f600', '\n', ' ', 'resourceVersion'])
                       for _ in range(rng.randrange(6)))
    if kind in (5, 6):
        return {random_value(rng, 9) if rng.random() < 0.3 else "k%d" % i:
                random_value(rng, depth + 1) for i in range(rng.randrange(4))}
    return [random_value(rng, depth + 1) for _ in range(rng.randrange(4))]


def test_scanner(r):
    rng = random.Random(11)
    for i in range(300):
        name = "s%d" % i
        meta = {"name": name, "namespace": "ns"}
        for j in range(rng.randrange(3)):
            meta["m%d" % j] = random_value(rng, 1)
        if rng.random() < 0.7:
            meta["resourceVersion"] = str(rng.randrange(1000))
        items = list(meta.items())
        rng.shuffle(items)
        obj = {"kind": "Pod", "spec": random_value(rng, 0), "metadata": dict(items),
               "status": random_value(rng, 1)}
        top = list(obj.items())
        rng.shuffle(top)
        text = json.dumps(dict(top), ensure_ascii=rng.random() < 0.5,
                          indent=rng.choice([None, None, 0, 2, "\t"]),
                          separators=rng.choice([None, (",", ":"), (" , ", " : ")]))
        if rng.random() < 0.2:
            text = text.replace('"resourceVersion"', '"resource\\u0056ersion"')
        key = "/registry/pods/ns/" + name
        r.put(key, text)
        stored = r.range(key)[key][1]
        want = json.loads(text)
        had = want["metadata"].pop("resourceVersion", None) is not None
        eq(json.loads(stored), want, "object %d stored (%s)" % (i, text[:200]))
        if not had:
            eq(stored, text.encode(), "object %d without resourceVersion, byte for byte" % i)


def main():
    r = Redis(history=100)
    test_library(r)
    test_writes(r)
    test_invalid(r)
    test_global_order(r)
    test_scanner(r)
    test_per_resource()
    test_restart(test_trim())


run(main)
