# test/proto.mk
