"""The command lines of ringwatch and ringwatch-fleet, run as binaries: every
invalid option, wherever it is detected (while parsing or when checking the
values together), exits 2 before anything starts, with exactly one line on
standard error that names the option and its value and says what form is
wanted, as ringwatch(8) and ringwatch-fleet(1) promise.  Runtime failures
keep exit status 1 (an address in use, a log file that cannot be opened).
At start ringwatch raises its soft RLIMIT_NOFILE to the hard limit and
sizes --max-connections from it, without a warning."""
import resource

from harness import *

FLEET = os.environ.get("RINGWATCH_FLEET", os.path.join(TOP, "build", "ringwatch-fleet"))

# (arguments, what the line must contain)
RINGWATCH_INVALID = [
    (["--resources", "pods,widgets"], '--resources: "widgets": unknown resource type: expected'),
    (["--resources", "pods,pods"], '--resources: "pods": given twice'),
    (["--resources", ""], '--resources: "": expected a comma-separated list'),
    (["--listen", "nohost"], '--listen: "nohost": expected HOST:PORT or [IPV6]:PORT'),
    (["--listen", "127.0.0.1:99999"], '--listen: "127.0.0.1:99999": port out of range'),
    (["--listen", "localhost:80"], 'with HOST an IPv4 address'),
    (["--etcd", "ftp://x"], '--upstream: "ftp://x": unknown scheme "ftp": expected http:// or https:// (etcd)'),
    (["--upstream", "http://127.0.0.1"], '--upstream: "http://127.0.0.1": expected http://HOST:PORT'),
    (["--upstream", "https://127.0.0.1:2379,http://127.0.0.1:2380"],
     '--upstream: "https://127.0.0.1:2379,http://127.0.0.1:2380": member 2 "http://127.0.0.1:2380"'
     ' is http but member 1 is https: expected one scheme for every member'),
    (["--etcd-certfile", "/dev/null", "--etcd", "https://127.0.0.1:2379"],
     '--etcd-certfile: "/dev/null": given without --etcd-keyfile: expected both or neither'),
    (["--upstream", "127.0.0.1:2379"],
     '--upstream: "127.0.0.1:2379": expected a URL SCHEME://HOST:PORT with SCHEME one of http:// or https:// (etcd)'),
    (["--index-fields", "pods=spec.bogus"],
     '--index-fields: "pods=spec.bogus": expected RESOURCE=FIELD with FIELD one of'),
    (["--index-fields", "widgets=spec.x"], '--index-fields: "widgets=spec.x": unknown resource type'),
    (["--index-fields", "nodes"], '--index-fields: "nodes": expected RESOURCE=FIELD'),
    (["--ring-capacity", "0"], '--ring-capacity: "0": out of range: expected 1 to 100000000'),
    (["--ring-capacity", "-3"], '--ring-capacity: "-3": out of range: expected 1 to 100000000'),
    (["--ring-capacity", "99999999999999999999"], 'out of range: expected 1 to 100000000'),
    (["--ring-capacity", "ten"], '--ring-capacity: "ten": expected a whole number from 1 to'),
    (["--ring-bytes", "12"], '--ring-bytes: "12": out of range: expected 1024 to'),
    (["--ring-bytes", "lots"], '--ring-bytes: "lots": expected a whole byte count'),
    (["--bookmark-interval", "0"], '--bookmark-interval: "0": out of range: expected 0.1 to 86400'),
    (["--bookmark-interval", "soon"], '--bookmark-interval: "soon": expected a duration'),
    (["--min-request-timeout", "0.5"], '--min-request-timeout: "0.5": out of range'),
    (["--list-page-size", "0"], '--list-page-size: "0": out of range'),
    (["--watch-high-water", "16Ki"], '--watch-high-water: "16Ki": out of range: expected 32768'),
    (["--max-connections", "-1"], '--max-connections: "-1": out of range: expected 0 to'),
    (["--h2-max-streams", "0"], '--h2-max-streams: "0": out of range'),
    (["--sndbuf", "2G"], '--sndbuf: "2G": out of range'),
    (["--header-timeout", "-1"], '--header-timeout: "-1": out of range'),
    (["--idle-timeout", "1e400"], '--idle-timeout: "1e400": out of range'),
    (["--shutdown-grace", "2h"], '--shutdown-grace: "2h": out of range: expected 0 to 3600'),
    (["--log-level", "loud"], '--log-level: "loud": expected debug, info, warn or error'),
    (["--log-file", ""], '--log-file: "": expected a file name'),
    (["--nope"], "unknown option --nope"),
    (["--listen"], "--listen needs a value (ADDRESS)"),
    (["stray"], 'unexpected argument "stray"'),
    (["--help=1"], "--help takes no value"),
    (["--version=2"], "--version takes no value"),
]

FLEET_INVALID = [
    (["--server", "ftp://x"], '--server: "ftp://x": expected http://HOST:PORT or https://HOST:PORT'),
    (["--resource", "widgets"], '--resource: "widgets": unknown resource type: expected one of'),
    (["--profile", "boss"], '--profile: "boss": expected controller, kubelet or mix'),
    (["--target", "grpc"], '--target: "grpc": expected ringwatch, etcd or redis'),
    (["--target", "redis"], "--target redis needs --redis URL"),
    (["--write-via", "proxy"], '--write-via: "proxy": expected store or server'),
    (["--contention", "0"], '--contention: "0": out of range: expected 1 to 1000'),
    (["--etcd", "http://x"], '--etcd: "http://x": expected http://HOST:PORT or https://HOST:PORT'),
    (["--cacert", "/dev/null"], '--cacert: "/dev/null": needs an https:// --server'),
    (["--etcd", "http://127.0.0.1:2379", "--etcd-key", "k"], '--etcd-key: "k": needs an https:// --etcd'),
    (["--server", "https://127.0.0.1:8443", "--cert", "c"],
     '--cert: "c": expected --cert and --key together'),
    (["--server", "https://127.0.0.1:8443", "--cacert", "/nonexistent/ca.crt"],
     '--cacert /nonexistent/ca.crt: No such file or directory'),
    (["--watchers", "0"], '--watchers: "0": out of range: expected 1 to 1000000'),
    (["--watchers", "many"], '--watchers: "many": expected a whole number'),
    (["--connections", "-1"], '--connections: "-1": out of range'),
    (["--duration", "0"], '--duration: "0": out of range'),
    (["--watch-delay", "2h"], '--watch-delay: "2h": out of range'),
    (["--drain-timeout", "soon"], '--drain-timeout: "soon": expected a duration'),
    (["--write-rate", "5"], "--write-rate needs --etcd URL or --redis URL"),
    (["--nodes", "99999999"], '--nodes: "99999999": out of range'),
    (["--mix-controllers", "x"], '--mix-controllers: "x": expected a whole number'),
    (["--pods", "0"], '--pods: "0": out of range'),
    (["--move-fraction", "2"], '--move-fraction: "2": out of range: expected 0 to 1'),
    (["--move-fraction", "half"], '--move-fraction: "half": expected a number from 0 to 1'),
    (["--seed", "-1"], '--seed: "-1": out of range'),
    (["--server-pid", "99999999"], '--server-pid: "99999999": out of range'),
    (["--http1=yes"], "--http1 takes no value"),
    (["--http1", "--target", "etcd"], "etcd speaks gRPC over HTTP/2 only"),
    (["--churn"], "--churn needs --resource pods, --etcd URL (or --redis URL) and "
                  "--write-rate N"),
    (["--redis", "http://127.0.0.1:6379"], '--redis: "http://127.0.0.1:6379": expected '
                                          'redis://HOST:PORT'),
    (["--redis", "redis://127.0.0.1:6379", "--etcd", "http://127.0.0.1:2379"],
     "--redis replaces --etcd"),
    (["--redis", "redis://127.0.0.1:6379", "--redis-revisions", "both"],
     '--redis-revisions: "both": expected global or per-resource'),
    (["--redis", "redis://127.0.0.1:6379", "--redis-password-file", "/nonexistent"],
     '--redis-password-file: "/nonexistent": No such file'),
    (["--profile", "kubelet", "--resource", "configmaps"], "needs a --resource with spec.nodeName"),
    (["--label-selector", "a in ("], "--label-selector or --field-selector:"),
    (["--log-level", "loud"], '--log-level: "loud": expected debug, info, warn or error'),
    (["--report"], "--report needs a value (FILE)"),
]


def check_invalid(binary, program, cases):
    for args, says in cases:
        p = subprocess.run([binary] + args, capture_output=True, text=True, timeout=20)
        what = "%s %s" % (program, " ".join(args))
        eq(p.returncode, 2, "%s: exit status (stderr %r)" % (what, p.stderr))
        lines = p.stderr.splitlines()
        eq(len(lines), 1, "%s: lines on stderr (%r)" % (what, p.stderr))
        check(lines[0].startswith(program + ": "), "%s: %r", what, lines[0])
        check(says in lines[0], "%s: %r does not say %r", what, lines[0], says)
        eq(p.stdout, "", "%s: stdout" % what)


def check_runtime_failures():
    """An address in use and an unwritable log file are not configuration
    errors: exit 1."""
    busy = socket.socket()
    busy.bind(("127.0.0.1", 0))
    busy.listen(1)
    port = busy.getsockname()[1]
    p = subprocess.run([RINGWATCH, "--listen", "127.0.0.1:%d" % port,
                        "--etcd", "http://127.0.0.1:%d" % free_port()],
                       capture_output=True, text=True, timeout=20)
    busy.close()
    eq(p.returncode, 1, "address in use: exit status (%r)" % p.stderr)
    check("Address already in use" in p.stderr, "address in use: %r", p.stderr)
    p = subprocess.run([RINGWATCH, "--log-file", "/nonexistent-dir/rw.log"],
                       capture_output=True, text=True, timeout=20)
    eq(p.returncode, 1, "log file: exit status (%r)" % p.stderr)
    eq(p.stderr.strip(), "ringwatch: --log-file /nonexistent-dir/rw.log: "
       "No such file or directory", "log file message")


def limits_of(pid):
    with open("/proc/%d/limits" % pid) as f:
        for line in f:
            if line.startswith("Max open files"):
                soft, hard = line.split()[3:5]
                return int(soft), int(hard)
    raise Failure("no Max open files in /proc/%d/limits" % pid)


def check_descriptor_limit():
    """Started with a soft limit below the hard one, ringwatch raises it to
    the hard limit and serves that many connections less 64, with no
    warning about the limit; an explicit larger --max-connections is
    lowered with one warning."""
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    if hard == resource.RLIM_INFINITY or hard <= 256:
        print("hard RLIMIT_NOFILE %s: descriptor sizing not checked" % hard)
        return
    low = min(soft, 256)
    fit = min(hard - 64, 10000000)
    cases = [([], fit, 0), (["--max-connections", "100"], 100, 0)]
    if fit < 10000000:
        cases.append((["--max-connections", str(fit + 1)], fit, 1))
    for extra, want, warnings in cases:
        log = tempfile.NamedTemporaryFile(prefix="rw-cli-", suffix=".log", delete=False)
        proc = subprocess.Popen(
            [RINGWATCH, "--listen", "127.0.0.1:%d" % free_port(),
             "--etcd", "http://127.0.0.1:%d" % free_port(), "--log-level", "info"] + extra,
            stdout=log, stderr=subprocess.STDOUT,
            preexec_fn=lambda: resource.setrlimit(resource.RLIMIT_NOFILE, (low, hard)))
        try:
            deadline = time.time() + 10
            text = ""
            while "serving" not in text and time.time() < deadline:
                check(proc.poll() is None, "ringwatch exited %s: %s", proc.returncode, text)
                time.sleep(0.05)
                with open(log.name) as f:
                    text = f.read()
            eq(limits_of(proc.pid), (hard, hard), "soft and hard RLIMIT_NOFILE after start")
            check("at most %d connections" % want in text,
                  "%s: no 'at most %d connections' in %r", extra, want, text)
            warned = [l for l in text.splitlines() if "descriptor" in l and " warn " in l]
            eq(len(warned), warnings,
               "%s: warnings about the descriptor limit (%r)" % (extra, warned))
        finally:
            proc.send_signal(signal.SIGTERM)
            proc.wait(10)
            os.unlink(log.name)


def check_help_and_version():
    """--help prints the usage and --version one line, both exit 0 and stop
    at once, whatever follows them."""
    for binary, program in ((RINGWATCH, "ringwatch"), (FLEET, "ringwatch-fleet")):
        p = subprocess.run([binary, "--version", "--nope"], capture_output=True,
                           text=True, timeout=20)
        eq((p.returncode, p.stderr), (0, ""), "%s --version --nope" % program)
        eq(len(p.stdout.splitlines()), 1, "%s --version: lines (%r)" % (program, p.stdout))
        check(p.stdout.startswith(program + " "), "%s --version: %r", program, p.stdout)
        p = subprocess.run([binary, "--help", "--nope"], capture_output=True,
                           text=True, timeout=20)
        eq((p.returncode, p.stderr), (0, ""), "%s --help --nope" % program)
        check("--help" in p.stdout and len(p.stdout.splitlines()) > 5,
              "%s --help: %r", program, p.stdout[:200])


def main():
    check_help_and_version()
    check_invalid(RINGWATCH, "ringwatch", RINGWATCH_INVALID)
    check_invalid(FLEET, "ringwatch-fleet", FLEET_INVALID)
    check_runtime_failures()
    check_descriptor_limit()


run(main)
