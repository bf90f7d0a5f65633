"""Everything a reader is sent to is in the repository.

- No file in the repository (README, docs, man pages, scripts, code,
  comments, tests) points at the workspace outside it: no `../shared`, no
  `/work/...`, none of the design notes that used to live there by name.
- The documents (README.md, docs/*.md, bench/README.md, the man pages)
  never leave the repository with `../`.
- docs/ is referred to by its path: a comment that says "kube-wire.md"
  alone sends the reader nowhere; "docs/kube-wire.md" does.
- Every repository path the documents name exists, and every relative
  markdown link in docs/ resolves."""
import os
import re
import subprocess

from harness import TOP, check, run

DOCUMENTS = ["README.md", "bench/README.md"]
FORBIDDEN = re.compile(r"\.\./shared|/work/|shared/reference|DESIGN\.md|STYLE\.md|"
                       r"list-watch-cases\.md")
REPO_PATH = re.compile(r"(?<![\w./-])((?:docs|bench|man|scripts|test|src|cache|proto|\.ci)"
                       r"/[A-Za-z0-9_./-]*[A-Za-z0-9_])")
LINK = re.compile(r"\]\(([^)#\s]+)(?:#[^)]*)?\)")
UP = re.compile(r"(?<!\.)\.\./")  # not the ellipsis in ".../NAME"
SELF = "test/integration/docs_test.py"  # names the patterns it forbids


def repo_files():
    """The repository's files, relative to TOP (git's list when there is
    one, else a walk that leaves build trees and node_modules out)."""
    try:
        out = subprocess.run(["git", "-C", TOP, "ls-files", "--cached", "--others",
                              "--exclude-standard"], capture_output=True, text=True,
                             timeout=30)
        if out.returncode == 0 and out.stdout.strip():
            return [f for f in out.stdout.splitlines() if os.path.isfile(os.path.join(TOP, f))]
    except OSError:
        pass
    files = []
    for root, dirs, names in os.walk(TOP):
        dirs[:] = [d for d in dirs if not d.startswith(("build", ".")) and d != "node_modules"]
        files += [os.path.relpath(os.path.join(root, n), TOP) for n in names]
    return files


def text(path):
    try:
        with open(os.path.join(TOP, path), encoding="utf-8") as f:
            return f.read()
    except (UnicodeDecodeError, OSError):
        return None


def main():
    files = repo_files()
    check(len(files) > 50, "the repository's files were found (%d)", len(files))
    docs = [f for f in files if f.startswith("docs/") and f.endswith(".md")]
    check({"docs/design.md", "docs/kube-wire.md", "docs/etcd-wire.md"} <= set(docs),
          "docs/ holds the design and wire documents (%r)", docs)
    documents = DOCUMENTS + docs + [f for f in files if re.match(r"man/.*\.[0-9]$", f)]
    bare_docs = re.compile(r"(?<![\w/.-])(%s)\b" % "|".join(
        re.escape(os.path.basename(d)) for d in docs))
    problems = []
    for f in files:
        if f.endswith("package-lock.json") or "/corpus/" in f or f == SELF:
            continue
        body = text(f)
        if body is None:
            continue
        for n, line in enumerate(body.splitlines(), 1):
            where = "%s:%d: %s" % (f, n, line.strip()[:100])
            if FORBIDDEN.search(line):
                problems.append("points outside the repository: " + where)
            if not f.startswith("docs/") and bare_docs.search(line):
                problems.append("names a docs/ file without its path: " + where)
            if f in documents:
                if UP.search(line):
                    problems.append("leaves the repository: " + where)
                for p in REPO_PATH.findall(line):
                    if re.search(r"YYYY|FILE|NN_", p):
                        continue  # a pattern, not a path
                    # A module or test may be named without its extension.
                    base = os.path.join(TOP, p.rstrip("."))
                    if not any(os.path.exists(base + ext) for ext in ("", ".c", ".py", ".sh")):
                        problems.append("names %s, which does not exist: %s" % (p, where))
            if f in docs:
                for target in LINK.findall(line):
                    if re.match(r"[a-z]+:", target):
                        continue
                    if not os.path.exists(os.path.join(TOP, os.path.dirname(f), target)):
                        problems.append("links to %s, which does not exist: %s" % (target, where))
    check(not problems, "%d problem(s):\n%s", len(problems), "\n".join(problems))


run(main)
