# proto/: wire codecs without sockets: etcd protobuf (protoc-c at build
# time), gRPC framing, Kubernetes JSON, query strings.
ETCD_PROTOS = proto/kv.proto proto/rpc.proto
PROTO_GENERATED = proto/kv.pb-c.c proto/kv.pb-c.h proto/rpc.pb-c.c proto/rpc.pb-c.h
EXTRA_DIST += $(ETCD_PROTOS)
BUILT_SOURCES += $(PROTO_GENERATED)
CLEANFILES += $(PROTO_GENERATED)

# protoc-c writes the .c and the .h of one .proto in one run.  The .h is
# the rule's target and the .c hangs off it, so parallel make runs protoc-c
# once per .proto; objects that include the headers depend on them
# explicitly, since `make TARGET` does not build BUILT_SOURCES first.
proto/kv.pb-c.h: $(top_srcdir)/proto/kv.proto
	$(AM_V_GEN)$(MKDIR_P) proto && \
	$(PROTOC_C) --proto_path=$(top_srcdir)/proto --c_out=proto $(top_srcdir)/proto/kv.proto
proto/rpc.pb-c.h: $(top_srcdir)/proto/rpc.proto proto/kv.pb-c.h
	$(AM_V_GEN)$(MKDIR_P) proto && \
	$(PROTOC_C) --proto_path=$(top_srcdir)/proto --c_out=proto $(top_srcdir)/proto/rpc.proto
proto/kv.pb-c.c: proto/kv.pb-c.h
	@test -f $@ || { rm -f proto/kv.pb-c.h; $(MAKE) $(AM_MAKEFLAGS) proto/kv.pb-c.h; }
proto/rpc.pb-c.c: proto/rpc.pb-c.h
	@test -f $@ || { rm -f proto/rpc.pb-c.h; $(MAKE) $(AM_MAKEFLAGS) proto/rpc.pb-c.h; }
proto/libproto_a-etcd.$(OBJEXT) proto/libproto_a-kv.pb-c.$(OBJEXT) \
proto/libproto_a-rpc.pb-c.$(OBJEXT): proto/kv.pb-c.h proto/rpc.pb-c.h

noinst_LIBRARIES += proto/libproto.a
proto_libproto_a_CFLAGS = $(AM_CFLAGS) $(CJSON_CFLAGS) $(PROTOBUF_C_CFLAGS)
proto_libproto_a_SOURCES = \
	proto/frame.c proto/frame.h \
	proto/kjson.c proto/kjson.h \
	proto/kjson_scan.c proto/kjson_scan.h \
	proto/kjson_decode.c proto/kjson_decode.h \
	proto/ctoken.c proto/ctoken.h \
	proto/jwt.c proto/jwt.h \
	proto/tokenfile.c proto/tokenfile.h \
	proto/query.c proto/query.h \
	proto/accept.c proto/accept.h \
	proto/table.c proto/table.h \
	proto/jval.c proto/jval.h \
	proto/jval_edit.c proto/jval_edit.h \
	proto/patch.c proto/patch.h \
	proto/patch_merge.c proto/patch_merge.h \
	proto/patch_json.c proto/patch_json.h \
	proto/patch_strategic.c proto/patch_strategic.h \
	proto/quantity.c proto/quantity.h \
	proto/metatime.c proto/metatime.h \
	proto/printer.c proto/printer.h \
	proto/printers_pod.c proto/printers_pod.h \
	proto/printers_core.c proto/printers_core.h \
	proto/printers_service.c proto/printers_service.h \
	proto/printers_storage.c proto/printers_storage.h \
	proto/printers_apps.c proto/printers_apps.h \
	proto/printers_batch.c proto/printers_batch.h \
	proto/printers_autoscaling.c proto/printers_autoscaling.h \
	proto/printers_coordination.c proto/printers_coordination.h \
	proto/printers_rbac.c proto/printers_rbac.h \
	proto/partial.c proto/partial.h \
	proto/repr.c proto/repr.h \
	proto/grpc.c proto/grpc.h \
	proto/etcd.c proto/etcd.h
nodist_proto_libproto_a_SOURCES = proto/kv.pb-c.c proto/rpc.pb-c.c
