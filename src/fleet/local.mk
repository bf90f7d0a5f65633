# src/fleet/: ringwatch-fleet, the load generator and verifier.  Its
# library is linked by its tests (test/fleet.mk).
noinst_LIBRARIES += src/fleet/libfleet.a
src_fleet_libfleet_a_CFLAGS = $(AM_CFLAGS) $(LIBEVENT_CFLAGS) $(NGHTTP2_CFLAGS)
src_fleet_libfleet_a_SOURCES = \
	src/fleet/options.c src/fleet/options.h \
	src/fleet/scan.c src/fleet/scan.h \
	src/fleet/histogram.c src/fleet/histogram.h \
	src/fleet/keys.c src/fleet/keys.h \
	src/fleet/view.c src/fleet/view.h \
	src/fleet/filter.c src/fleet/filter.h \
	src/fleet/profile.c src/fleet/profile.h \
	src/fleet/churn.c src/fleet/churn.h \
	src/fleet/range.c src/fleet/range.h \
	src/fleet/oracle.c src/fleet/oracle.h \
	src/fleet/verify.c src/fleet/verify.h \
	src/fleet/line_cache.c src/fleet/line_cache.h \
	src/fleet/stamp.h \
	src/fleet/kube_write.c src/fleet/kube_write.h \
	src/fleet/writer.c src/fleet/writer.h \
	src/fleet/watcher.c src/fleet/watcher.h \
	src/fleet/watch_h2.c src/fleet/watch_h2.h \
	src/fleet/watch_h1.c src/fleet/watch_h1.h \
	src/fleet/dial.c src/fleet/dial.h \
	src/fleet/links.c src/fleet/links.h \
	src/fleet/watch_etcd.c src/fleet/watch_etcd.h \
	src/fleet/watch_redis.c src/fleet/watch_redis.h \
	src/fleet/report.c src/fleet/report.h \
	src/fleet/setup.c src/fleet/setup.h \
	src/fleet/redis_store.c src/fleet/redis_store.h \
	src/fleet/redis_follow.c src/fleet/redis_follow.h
FLEET_LIBS = src/fleet/libfleet.a $(RW_LIBS)

bin_PROGRAMS += ringwatch-fleet
ringwatch_fleet_SOURCES = src/fleet/main.c
ringwatch_fleet_CFLAGS = $(AM_CFLAGS) $(LIBEVENT_CFLAGS) $(NGHTTP2_CFLAGS)
ringwatch_fleet_LDADD = $(FLEET_LIBS) $(RW_EXTERNAL_LIBS)
