# proto/: wire codecs without sockets: etcd protobuf (protoc-c at build
# time), gRPC framing, Kubernetes JSON, query strings.
ETCD_PROTOS = proto/kv.proto proto/rpc.proto
PROTO_GENERATED = proto/kv.pb-c.c proto/kv.pb-c.h proto/rpc.pb-c.c proto/rpc.pb-c.h
EXTRA_DIST += $(ETCD_PROTOS)
BUILT_SOURCES += $(PROTO_GENERATED)
CLEANFILES += $(PROTO_GENERATED)

proto/kv.pb-c.c proto/kv.pb-c.h: $(top_srcdir)/proto/kv.proto
	$(AM_V_GEN)$(MKDIR_P) proto && \
	$(PROTOC_C) --proto_path=$(top_srcdir)/proto --c_out=proto $(top_srcdir)/proto/kv.proto
proto/rpc.pb-c.c proto/rpc.pb-c.h: $(top_srcdir)/proto/rpc.proto proto/kv.pb-c.h
	$(AM_V_GEN)$(MKDIR_P) proto && \
	$(PROTOC_C) --proto_path=$(top_srcdir)/proto --c_out=proto $(top_srcdir)/proto/rpc.proto

noinst_LIBRARIES += proto/libproto.a
proto_libproto_a_CFLAGS = $(AM_CFLAGS) $(CJSON_CFLAGS) $(PROTOBUF_C_CFLAGS)
proto_libproto_a_SOURCES = \
	proto/frame.c proto/frame.h \
	proto/kjson.c proto/kjson.h \
	proto/query.c proto/query.h \
	proto/grpc.c proto/grpc.h \
	proto/etcd.c proto/etcd.h
nodist_proto_libproto_a_SOURCES = proto/kv.pb-c.c proto/rpc.pb-c.c
