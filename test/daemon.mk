# test/daemon.mk
