# src/: the daemon (I/O, libevent, nghttp2, http-parser); src/fleet/ and
# src/rawfan/ have their own fragments.
noinst_LIBRARIES += src/libsrc.a
src_libsrc_a_CFLAGS = $(AM_CFLAGS) $(LIBEVENT_CFLAGS) $(NGHTTP2_CFLAGS) \
	$(OPENSSL_CFLAGS) $(HIREDIS_CFLAGS)
src_libsrc_a_SOURCES = \
	src/log.c src/log.h \
	src/address.c src/address.h \
	src/fdlimit.c src/fdlimit.h \
	src/signals.c src/signals.h \
	src/h2_client.c src/h2_client.h \
	src/grpc_client.c src/grpc_client.h \
	src/upstream_etcd.c src/upstream_etcd.h \
	src/upstream_etcd_read.c src/upstream_etcd_read.h \
	src/upstream_etcd_write.c src/upstream_etcd_write.h \
	src/upstream_etcd_batch.c src/upstream_etcd_batch.h \
	src/upstream_etcd_tls.c src/upstream_etcd_tls.h \
	src/upstream_members.c src/upstream_members.h \
	src/redis_client.c src/redis_client.h \
	src/upstream_redis.c src/upstream_redis.h \
	src/upstream_redis_snap.c src/upstream_redis_snap.h \
	src/upstream_redis_entry.c src/upstream_redis_entry.h \
	src/upstream_redis_list.c src/upstream_redis_tail.c \
	src/upstream_redis_read.c src/upstream_redis_write.c \
	src/upstream_redis_impl.h \
	src/backoff.c src/backoff.h \
	src/upstream_registry.c src/upstream_registry.h \
	src/upstream_history.c src/upstream_history.h \
	src/transport.c src/transport.h \
	src/tls.c src/tls.h src/tls_impl.h src/tls_transport.c src/tls_transport.h \
	src/tls_server.c src/tls_server.h \
	src/stream.c src/stream.h src/stream_impl.h src/stream_types.h \
	src/front_config.h \
	src/registry.c src/registry.h \
	src/outq.c src/outq.h \
	src/listener.c src/listener.h \
	src/conn_h1.c src/conn_h1.h \
	src/h1_head.c src/h1_head.h \
	src/h1_req.c src/h1_req.h \
	src/conn_h2.c src/conn_h2.h \
	src/h2_frame.h \
	src/h2_guard.c src/h2_guard.h \
	src/h2_in.c src/h2_in.h \
	src/h2_out.c src/h2_out.h \
	src/h2_body.c src/h2_body.h \
	src/h2_req.c src/h2_req.h \
	src/h2_stream.c src/h2_stream.h \
	src/config.c src/config.h \
	src/metrics.c src/metrics.h src/metrics_resource.h \
	src/resource.c src/resource.h \
	src/resource_feed.c src/resource_feed.h \
	src/watch.c src/watch.h src/watch_impl.h \
	src/watch_start.c src/watch_start.h \
	src/watch_initial.c src/watch_initial.h \
	src/watch_relist.c src/watch_relist.h \
	src/watch_key.c src/watch_key.h \
	src/watch_authz.c src/watch_authz.h \
	src/authz.c src/authz.h src/authz_attributes.h \
	src/rbac.c src/rbac.h \
	src/rbac_object.c src/rbac_object.h \
	src/request_info.c src/request_info.h \
	src/list.c src/list.h \
	src/fresh.c src/fresh.h \
	src/upstream.h \
	src/discovery.c src/discovery.h \
	src/discovery_json.c src/discovery_json.h \
	src/health.c src/health.h \
	src/router.c src/router.h \
	src/write.c src/write.h src/write_impl.h src/write_flow.c \
	src/write_meta.c src/write_meta.h \
	src/status.c src/status.h \
	src/identity.c src/identity.h \
	src/fairness.c src/fairness.h \
	src/review.c src/review.h \
	src/review_body.c src/review_body.h \
	src/authn.c src/authn.h \
	src/impersonate.c src/impersonate.h \
	src/tls_sig.c src/tls_sig.h \
	src/redis_functions.c src/redis_functions.h
nodist_src_libsrc_a_SOURCES = src/redis_functions_lua.h

# The Redis Functions library's Lua source as C string literals, one per
# line (backslashes and quotes escaped), included by src/redis_functions.c.
src/redis_functions_lua.h: $(top_srcdir)/src/redis_functions.lua
	$(AM_V_GEN)$(MKDIR_P) src && \
	sed -e 's/\\/\\\\/g' -e 's/"/\\"/g' -e 's/^/"/' -e 's/$$/\\n"/' \
	    $(top_srcdir)/src/redis_functions.lua > $@-t && mv $@-t $@
BUILT_SOURCES += src/redis_functions_lua.h
CLEANFILES += src/redis_functions_lua.h
EXTRA_DIST += src/redis_functions.lua

RW_LIBS = src/libsrc.a proto/libproto.a cache/libcache.a
RW_EXTERNAL_LIBS = $(LIBEVENT_LIBS) $(NGHTTP2_LIBS) $(CJSON_LIBS) \
	$(PROTOBUF_C_LIBS) $(HTTP_PARSER_LIBS) $(LIBEVENT_OPENSSL_LIBS) \
	$(OPENSSL_LIBS) $(HIREDIS_LIBS) $(LIBM)

bin_PROGRAMS += ringwatch
ringwatch_SOURCES = src/main.c
ringwatch_CFLAGS = $(AM_CFLAGS) $(LIBEVENT_CFLAGS)
ringwatch_LDADD = $(RW_LIBS) $(RW_EXTERNAL_LIBS)
