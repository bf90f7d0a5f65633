#!/bin/sh
# Runs one integration test over Redis: RW_TEST_STORE=redis makes
# harness.Store() start a redis-server where the test would otherwise get
# etcd.  `make check` runs every test of test/integration.mk's STORE_TESTS
# so a second time, as test/integration/NAME.py.redis: a one-line file
# that names the test's .py.
# usage: test/integration/over_redis.sh TEST.py|TEST.py.redis
# (PYTHON3 in the environment: the interpreter, python3 by default)
test=$1
case $test in
*.redis) read -r test <"$test" ;;
esac
RW_TEST_STORE=redis
export RW_TEST_STORE
exec "${PYTHON3:-python3}" "$test"
