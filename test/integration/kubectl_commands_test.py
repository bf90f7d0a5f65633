"""The README's table of kubectl commands ("kubectl through ringwatch"),
run with kubectl 1.32 against real etcd: the read commands it lists as
working do work (kubectl_test.py covers `get` itself), and the commands it
lists as needing a real kube-apiserver fail the way it says, with a
Kubernetes Status kubectl understands rather than a hang or garbage.

Works: describe (with the Events section when events are served),
events, get events (the apiserver's columns), get all (the served types
of the "all" category), wait --for=jsonpath, api-resources, api-versions,
version, cluster-info (with services served), get --raw /metrics, proxy,
get -w -o name receiving a change.
Writes: label, annotate, patch, delete (write_test.py covers the verbs).
Needs an apiserver: create of a generator (its protobuf body: 415), scale
(405: no subresources), apply -f (OpenAPI validation), explain (404), logs
(404), exec (405 on the upgrade), top (no Metrics API).
auth can-i and auth whoami work (the review endpoints)."""
import base64
import json
import os
import subprocess
import sys
import threading
import time
import urllib.request

from harness import KUBECTL, Etcd, Kubectl, Ringwatch, check, defer, eq, free_port, run, \
    seed_cluster

RESOURCES = ("pods,configmaps,nodes,namespaces,apps/v1/deployments,apps/v1/replicasets,"
             "events,services")


def first_pod(etcd):
    r = etcd.call("/v3/kv/range", {"key": base64.b64encode(b"/registry/pods/").decode(),
                                   "range_end": base64.b64encode(b"/registry/pods0").decode(),
                                   "limit": 1})
    return json.loads(base64.b64decode(r["kvs"][0]["value"]))


def main():
    if KUBECTL is None:
        print("SKIP: kubectl not installed")
        sys.exit(77)
    etcd = Etcd()
    seed_cluster(etcd, nodes=3, namespaces=2, deployments=2, replicas=2, configmaps=2)
    pod = first_pod(etcd)
    ns, name = pod["metadata"]["namespace"], pod["metadata"]["name"]
    event = {"apiVersion": "v1", "kind": "Event",
             "metadata": {"name": name + ".1", "namespace": ns,
                          "creationTimestamp": "2026-11-30T10:00:00Z"},
             "involvedObject": {"apiVersion": "v1", "kind": "Pod", "name": name,
                                "namespace": ns, "uid": pod["metadata"]["uid"]},
             "reason": "Pulled", "message": "Container image pulled by the test",
             "source": {"component": "kubelet"}, "count": 1, "type": "Normal",
             "firstTimestamp": "2026-11-30T10:00:00Z",
             "lastTimestamp": "2026-11-30T10:00:00Z"}
    svc = {"apiVersion": "v1", "kind": "Service",
           "metadata": {"name": "kube-dns", "namespace": "kube-system",
                        "creationTimestamp": "2026-11-01T00:00:00Z",
                        "labels": {"kubernetes.io/cluster-service": "true",
                                   "kubernetes.io/name": "CoreDNS"}},
           "spec": {"type": "ClusterIP", "clusterIP": "10.96.0.10",
                    "ports": [{"name": "dns", "port": 53, "protocol": "UDP"}]}}
    etcd.put("/registry/events/%s/%s.1" % (ns, name), event)
    rev = etcd.put("/registry/services/specs/kube-system/kube-dns", svc)
    rw = Ringwatch(etcd, resources=RESOURCES)
    for path in ("/api/v1/pods", "/api/v1/events", "/api/v1/services"):
        rw.wait_rv(rev, path)
    k = Kubectl(rw.url)

    def kubectl(*args, timeout=30):
        p = k.run(*args, timeout=timeout)
        return p.returncode, p.stdout, p.stderr

    def works(*args, want=None):
        code, out, err = kubectl(*args)
        eq(code, 0, "kubectl %s exit status (%s)" % (" ".join(args), err.strip()))
        if want is not None:
            check(want in out, "kubectl %s: %r not in:\n%s", " ".join(args), want, out)
        return out

    def refused(args, why):
        code, out, err = kubectl(*args)
        check(code != 0, "kubectl %s succeeded through ringwatch:\n%s", " ".join(args), out)
        check(why in err, "kubectl %s: %r not in:\n%s", " ".join(args), why, err)

    # ---- works through ringwatch ----
    out = works("describe", "pod", name, "-n", ns, want="Container image pulled by the test")
    check("Events:" in out and "Pulled" in out, "describe shows the pod's events:\n%s", out)
    works("describe", "node", pod["spec"]["nodeName"], want="Name:")
    works("events", "-n", ns, want="Container image pulled by the test")
    out = works("get", "events", "-n", ns, want="Container image pulled by the test")
    eq(" ".join(out.splitlines()[0].split()), "LAST SEEN TYPE REASON OBJECT MESSAGE",
       "get events header")
    check(any("pod/" + name in l and "Pulled" in l for l in out.splitlines()),
          "get events: the pod's Pulled event as OBJECT pod/%s:\n%s", name, out)
    out = works("get", "all", "-n", ns)
    for kind in ("pod/", "service/", "deployment.apps/", "replicaset.apps/"):
        check(("\n" + kind) in out, "get all lists %s:\n%s", kind, out)
    works("wait", "--for=jsonpath={.status.phase}=" + pod["status"]["phase"],
          "pod/" + name, "-n", ns, "--timeout=10s", want="condition met")
    out = works("api-resources")
    for resource in ("pods", "events", "services", "deployments"):
        check(("\n" + resource + " ") in out, "api-resources lists %s:\n%s", resource, out)
    eq(sorted(works("api-versions").split()),
       ["apps/v1", "authentication.k8s.io/v1", "authorization.k8s.io/v1", "v1"],
       "api-versions (the reviews' groups too)")
    works("auth", "can-i", "list", "pods", want="yes")  # review_test.py
    works("auth", "whoami", want="system:anonymous")
    works("version", want="Server Version: v1.32")
    works("cluster-info", want="Kubernetes control plane is running at " + rw.url)
    works("get", "--raw", "/metrics", want="ringwatch_watch_cache_hits_total")

    port = free_port()
    proxy = subprocess.Popen(k.argv("proxy", "--address", "127.0.0.1", "--port", str(port)),
                             stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)

    def stop_proxy():
        proxy.terminate()
        proxy.wait(10)
    defer(stop_proxy)
    deadline = time.time() + 15
    while True:
        try:
            with urllib.request.urlopen("http://127.0.0.1:%d/api/v1/namespaces/%s/pods/%s"
                                        % (port, ns, name), timeout=2) as r:
                eq(json.load(r)["metadata"]["name"], name, "GET through kubectl proxy")
            break
        except OSError:
            check(time.time() < deadline, "kubectl proxy did not answer in 15 s")
            time.sleep(0.2)

    # get -w -o name: the initial object, then a change made while watching.
    result = {}

    def watch():
        result["out"] = kubectl("get", "pod", name, "-n", ns, "-w", "-o", "name",
                                "--request-timeout=6s", timeout=20)
    t = threading.Thread(target=watch)
    t.start()
    time.sleep(2)
    pod["metadata"].setdefault("labels", {})["touched"] = "yes"
    etcd.put("/registry/pods/%s/%s" % (ns, name), pod)
    t.join(25)
    check("out" in result, "kubectl get -w did not end")
    lines = result["out"][1].split()
    eq(lines[:2], ["pod/" + name] * 2, "get -w -o name: the object, then its change")

    # ---- the writes (write_test.py has the rest) ----
    works("label", "pod", name, "-n", ns, "a=b", want="labeled")
    works("annotate", "pod", name, "-n", ns, "a=b", want="annotated")
    works("patch", "pod", name, "-n", ns, "--type", "merge", "-p",
          '{"metadata":{"labels":{"c":"d"}}}', want="patched")

    # ---- needs a real kube-apiserver ----
    not_allowed = "the server does not allow this method on the requested resource"
    # a generator's typed client sends protobuf, which ringwatch does not decode
    refused(["create", "configmap", "x", "-n", ns, "--from-literal=a=b"],
            "the body of the request was in an unknown format")
    refused(["scale", "deployment", pod["metadata"]["labels"]["app"], "-n", ns,
             "--replicas=3"], not_allowed)
    refused(["exec", name, "-n", ns, "--", "true"], not_allowed)
    manifest = os.path.join(k.cache, "cm.json")
    with open(manifest, "w") as f:
        json.dump({"apiVersion": "v1", "kind": "ConfigMap",
                   "metadata": {"name": "x", "namespace": ns}}, f)
    refused(["apply", "-f", manifest], "failed to download openapi")
    refused(["explain", "pods"], "the server could not find the requested resource")
    refused(["logs", name, "-n", ns], "the server could not find the requested resource")
    refused(["top", "pods", "-n", ns], "Metrics API not available")
    works("delete", "pod", name, "-n", ns, "--wait", want="deleted")


run(main)
