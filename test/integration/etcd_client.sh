#!/bin/sh
# etcd_client.sh: runs test/etcd_client_test (h2c, gRPC and the etcd codec
# against a real etcd) with a throwaway etcd from scripts/etcd-local,
# stopped on exit whatever happens.  Skips (77) without etcd.
set -eu
top=${TOP_SRCDIR:-$(cd "$(dirname "$0")/../.." && pwd)}
prog=./test/etcd_client_test
command -v etcd >/dev/null 2>&1 || { echo "etcd not installed: skip"; exit 77; }
dir=$(mktemp -d "${TMPDIR:-/tmp}/rw-etcd-client.XXXXXX")
trap '"$top/scripts/etcd-local" stop "$dir"; rm -rf "$dir"' EXIT INT TERM
endpoint=$("$top/scripts/etcd-local" start "$dir")
RW_TEST_ETCD=$endpoint "$prog"
