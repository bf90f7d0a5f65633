# cache/: data structures and Kubernetes semantics; no I/O, no libevent.
noinst_LIBRARIES += cache/libcache.a
cache_libcache_a_SOURCES = \
	cache/rw.c cache/rw.h \
	cache/clock.c cache/clock.h \
	cache/rbuf.c cache/rbuf.h \
	cache/sbuf.c cache/sbuf.h \
	cache/resource_type.c cache/resource_type.h \
	cache/object.c cache/object.h \
	cache/store.c cache/store.h \
	cache/ring.c cache/ring.h \
	cache/dindex.c cache/dindex.h \
	cache/deadline.c cache/deadline.h \
	cache/watchcache.c cache/watchcache.h \
	cache/validation.c cache/validation.h \
	cache/label_selector.c cache/label_selector.h \
	cache/field_selector.c cache/field_selector.h \
	cache/selector.c cache/selector.h \
	cache/utf8.c cache/utf8.h
