#!/bin/sh
# upstream_etcd.sh: runs test/upstream_etcd_test (the etcd upstream adapter
# against a real etcd, with 1 s progress notifications) with a throwaway
# etcd from scripts/etcd-local, stopped on exit whatever happens.  Skips
# (77) without etcd.
set -eu
top=${TOP_SRCDIR:-$(cd "$(dirname "$0")/../.." && pwd)}
prog=./test/upstream_etcd_test
command -v etcd >/dev/null 2>&1 || { echo "etcd not installed: skip"; exit 77; }
dir=$(mktemp -d "${TMPDIR:-/tmp}/rw-upstream-etcd.XXXXXX")
trap '"$top/scripts/etcd-local" stop "$dir"; rm -rf "$dir"' EXIT INT TERM
endpoint=$("$top/scripts/etcd-local" start "$dir" --progress-notify-interval 1s)
RW_TEST_ETCD=$endpoint "$prog"
