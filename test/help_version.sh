#!/bin/sh
# --help and --version of ringwatch, ringwatch-fleet and ringwatch-rawfan,
# run as binaries: one convention for the three (config_program_parse), as
# GNU getopt programs.  The first of --help (-h) and --version on the line
# wins: it prints the usage or the version line on standard output, nothing
# on standard error, and exits 0, whatever follows.  When standard output
# cannot be written (/dev/full) the program says so on standard error and
# exits 1 instead of printing nothing and claiming success.
bindir=$(dirname "${RINGWATCH:?RINGWATCH names the ringwatch binary}")
out=$(mktemp) err=$(mktemp)
trap 'rm -f "$out" "$err"' EXIT
status=0

fail() {
    echo "FAIL: $*"
    status=1
}

# expect PROGRAM WANT ARGS...: WANT is "usage" or "version".
expect() {
    prog=$1 want=$2
    shift 2
    "$bindir/$prog" "$@" >"$out" 2>"$err"
    rc=$?
    [ "$rc" -eq 0 ] || fail "$prog $*: exit status $rc, want 0"
    [ -s "$err" ] && fail "$prog $*: wrote to standard error: $(cat "$err")"
    case $want in
    usage)
        head -n 1 "$out" | grep -q "^usage: $prog " ||
            fail "$prog $*: no usage line: $(head -n 1 "$out")"
        grep -q -- '--version' "$out" || fail "$prog $*: usage lacks --version"
        ;;
    version)
        if [ "$(wc -l <"$out")" -ne 1 ] || ! grep -q "^$prog [0-9]" "$out"; then
            fail "$prog $*: want one version line, got: $(cat "$out")"
        fi
        ;;
    esac
}

for prog in ringwatch ringwatch-fleet ringwatch-rawfan; do
    [ -x "$bindir/$prog" ] || { fail "$bindir/$prog not built"; continue; }
    expect "$prog" usage --help
    expect "$prog" usage -h
    expect "$prog" version --version
    expect "$prog" usage --help --version
    expect "$prog" version --version --help
    expect "$prog" usage -h --version
    expect "$prog" version --version --no-such-option
    # A bad argument before them is the answer: exit 2, one line.
    "$bindir/$prog" --no-such-option --help >"$out" 2>"$err"
    rc=$?
    [ "$rc" -eq 2 ] || fail "$prog --no-such-option --help: exit $rc, want 2"
    [ "$(wc -l <"$err")" -eq 1 ] ||
        fail "$prog --no-such-option --help: want one line on stderr"
    [ -s "$out" ] && fail "$prog --no-such-option --help: wrote to stdout"
    # Output that cannot be written is not a silent success.
    for arg in --help --version; do
        "$bindir/$prog" "$arg" >/dev/full 2>"$err"
        rc=$?
        [ "$rc" -eq 1 ] || fail "$prog $arg >/dev/full: exit $rc, want 1"
        grep -q "^$prog: write error" "$err" ||
            fail "$prog $arg >/dev/full: no write error on stderr"
    done
done
exit $status
