# test/etcd.mk
