"""A throwaway PKI for the tests, made with the openssl command line: a CA,
server certificates for 127.0.0.1/localhost, client certificates with a
CN (the user) and O values (the groups), expired or foreign ones for the
bad cases, and service-account signing keys.  Everything lives in a temp
dir removed at exit (harness's cleanups)."""
import os
import shutil
import subprocess
import tempfile

import harness


def _openssl(*args, cwd=None, input=None):
    r = subprocess.run(["openssl"] + list(args), cwd=cwd, input=input,
                       capture_output=True, text=True, timeout=60)
    if r.returncode != 0:
        raise harness.Failure("openssl %s: %s" % (" ".join(args), r.stderr))
    return r.stdout


class CA:
    """A certificate authority in dir (a new temp dir when None)."""

    def __init__(self, name="ringwatch-test-ca", dir=None, key="ec"):
        self.dir = dir or tempfile.mkdtemp(prefix="rw-pki-")
        if dir is None:
            harness.defer(lambda: shutil.rmtree(self.dir, ignore_errors=True))
        self.name = name
        self.key = self._key(name, key)
        self.cert = self.path(name + ".crt")
        _openssl("req", "-x509", "-new", "-key", self.key, "-out", self.cert,
                 "-days", "30", "-subj", "/CN=" + name,
                 "-addext", "basicConstraints=critical,CA:TRUE",
                 "-addext", "keyUsage=critical,keyCertSign,cRLSign")
        # `openssl ca` state, for certificates with chosen validity dates
        open(self.path(name + ".index"), "w").close()
        with open(self.path(name + ".serial"), "w") as f:
            f.write("1000\n")

    def path(self, name):
        return os.path.join(self.dir, name)

    def _key(self, name, kind):
        key = self.path(name + ".key")
        if kind == "rsa":
            _openssl("genpkey", "-algorithm", "RSA", "-pkeyopt",
                     "rsa_keygen_bits:2048", "-out", key)
        else:
            _openssl("genpkey", "-algorithm", "EC", "-pkeyopt",
                     "ec_paramgen_curve:P-256", "-out", key)
        return key

    def _sign(self, name, subj, ext, start=None, end=None):
        """Issues name.crt for name.key with the extension lines ext;
        start/end as `openssl ca` dates (YYMMDDHHMMSSZ) or None (now,
        30 days)."""
        key = self._key(name, "ec")
        csr = self.path(name + ".csr")
        crt = self.path(name + ".crt")
        _openssl("req", "-new", "-key", key, "-out", csr, "-subj", subj)
        extfile = self.path(name + ".ext")
        with open(extfile, "w") as f:
            f.write("[ext]\n" + "\n".join(ext) + "\n")
        conf = self.path(name + ".cnf")
        with open(conf, "w") as f:
            f.write("""[ca]
default_ca = rwca
[rwca]
dir = %s
database = %s
serial = %s
new_certs_dir = %s
certificate = %s
private_key = %s
default_md = sha256
policy = policy
unique_subject = no
copy_extensions = none
[policy]
commonName = optional
organizationName = optional
""" % (self.dir, self.path(self.name + ".index"), self.path(self.name + ".serial"),
       self.dir, self.cert, self.key))
        args = ["ca", "-batch", "-config", conf, "-in", csr, "-out", crt,
                "-extfile", extfile, "-extensions", "ext", "-notext"]
        if start or end:
            args += ["-startdate", start or "250101000000Z",
                     "-enddate", end or "351231000000Z"]
        else:
            args += ["-days", "30"]
        _openssl(*args)
        return crt, key

    def server(self, name="server", hosts=("127.0.0.1", "localhost", "::1")):
        """A server certificate for hosts; returns (cert, key) paths."""
        sans = ",".join(("IP:" if h[0].isdigit() or ":" in h else "DNS:") + h
                        for h in hosts)
        return self._sign(name, "/CN=" + name, [
            "subjectAltName=" + sans,
            "extendedKeyUsage=serverAuth,clientAuth",
            "keyUsage=critical,digitalSignature,keyEncipherment"])

    def client(self, user, groups=(), name=None, start=None, end=None):
        """A client certificate for user (CN) in groups (O values);
        returns (cert, key) paths.  start/end make it not yet valid or
        expired: e.g. end="200101000000Z".  user "": no CN at all (a
        certificate that names nobody)."""
        subj = "".join("/O=" + g for g in groups) + ("/CN=" + user if user else "")
        return self._sign(name or "client-" + user.replace(":", "_"), subj, [
            "extendedKeyUsage=clientAuth",
            "keyUsage=critical,digitalSignature"], start, end)


def signing_key(dir, kind="rsa"):
    """A service-account signing key pair in dir: returns (private key,
    public key) PEM paths.  kind: "rsa" (RS256) or "ec" (ES256, P-256)."""
    priv = os.path.join(dir, "sa-%s.key" % kind)
    pub = os.path.join(dir, "sa-%s.pub" % kind)
    if kind == "rsa":
        _openssl("genpkey", "-algorithm", "RSA", "-pkeyopt", "rsa_keygen_bits:2048",
                 "-out", priv)
    else:
        _openssl("genpkey", "-algorithm", "EC", "-pkeyopt", "ec_paramgen_curve:P-256",
                 "-out", priv)
    _openssl("pkey", "-in", priv, "-pubout", "-out", pub)
    return priv, pub
