# test/integration.mk: end-to-end tests against a real store (etcd or
# Redis), ringwatch and clients on loopback (Debian's python3; see
# test/integration/harness.py).
# The tests whose meaning does not depend on the store: each takes its store
# from harness.Store() and runs twice, over etcd (NAME.py) and over Redis
# (NAME.py.redis, through test/integration/over_redis.sh).
STORE_TESTS = \
	test/integration/c01_too_old_watch.py \
	test/integration/fleet_write_test.py \
	test/integration/c02_watch_after_rv.py \
	test/integration/c03_window_edge.py \
	test/integration/c04_delete_rv.py \
	test/integration/c05_selector_transitions.py \
	test/integration/c06_list_rv.py \
	test/integration/c07_empty_lists.py \
	test/integration/c08_field_selectors.py \
	test/integration/c09_bookmarks_filtered.py \
	test/integration/c10_watch_list.py \
	test/integration/rv_semantics_test.py \
	test/integration/resume_test.py \
	test/integration/warm_restart_test.py \
	test/integration/relist_test.py \
	test/integration/relist_lagging_test.py \
	test/integration/undecodable_test.py \
	test/integration/wrong_type_test.py \
	test/integration/store_reset_test.py \
	test/integration/kubectl_test.py \
	test/integration/python_client_test.py \
	test/integration/js_informer_test.py \
	test/integration/write_test.py \
	test/integration/conflict_test.py
REDIS_TESTS = $(STORE_TESTS:=.redis)
INTEGRATION_TESTS = \
	$(STORE_TESTS) \
	test/integration/shutdown_test.py \
	test/integration/shutdown_drain_test.py \
	test/integration/h2_stream_errors_test.py \
	test/integration/h1_strict_test.py \
	test/integration/dispatch_test.py \
	test/integration/representations_test.py \
	test/integration/discovery_test.py \
	test/integration/routes_test.py \
	test/integration/authn_test.py \
	test/integration/review_test.py \
	test/integration/fairness_test.py \
	test/integration/metrics_test.py \
	test/integration/txn_test.py \
	test/integration/etcd_tls_test.py \
	test/integration/fleet_tls_test.py \
	test/integration/prometheus_test.py \
	test/integration/bench_table_test.py \
	test/integration/docs_test.py \
	test/integration/kubectl_commands_test.py \
	test/integration/cli_test.py \
	test/integration/signals_test.py \
	test/integration/seeded_test.py \
	test/integration/tls_front_test.py \
	test/integration/rbac_test.py \
	test/integration/secure_front_test.py \
	test/integration/cert_rotation_test.py \
	test/integration/redis_functions_test.py \
	test/integration/redis_store_test.py \
	test/integration/redis_cluster_test.py
TESTS += $(INTEGRATION_TESTS) $(REDIS_TESTS)
TEST_EXTENSIONS += .redis
REDIS_LOG_COMPILER = env PYTHON3='$(PYTHON3)' $(SHELL) $(srcdir)/test/integration/over_redis.sh
# A .redis file is one line, the path of the test it runs over Redis.
test/integration/%.py.redis: test/integration/%.py
	$(AM_V_GEN)echo '$(abs_top_srcdir)/test/integration/$*.py' >$@
CLEANFILES += $(REDIS_TESTS)
EXTRA_DIST += $(INTEGRATION_TESTS) test/integration/harness.py test/integration/pki.py \
	test/integration/harness_redis.py \
	test/integration/h2raw.py test/integration/over_redis.sh
EXTRA_DIST += test/integration/js/informer.mjs test/integration/js/package.json \
	test/integration/js/package-lock.json
