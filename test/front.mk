# test/front.mk
