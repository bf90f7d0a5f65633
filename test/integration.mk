# test/integration.mk
