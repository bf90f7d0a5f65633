# test/cache.mk
