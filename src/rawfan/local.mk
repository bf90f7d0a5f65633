# src/rawfan/: ringwatch-rawfan, the raw-socket fan-out baseline that
# scripts/bench compares servers with (not installed).
noinst_PROGRAMS += ringwatch-rawfan
ringwatch_rawfan_SOURCES = \
	src/rawfan/main.c \
	src/rawfan/options.c src/rawfan/options.h \
	src/rawfan/chunk.c src/rawfan/chunk.h \
	src/rawfan/sender.c src/rawfan/sender.h \
	src/rawfan/receiver.c src/rawfan/receiver.h \
	src/fleet/histogram.c src/fleet/histogram.h
ringwatch_rawfan_CFLAGS = $(AM_CFLAGS) $(LIBEVENT_CFLAGS)
# The fleet's histogram is compiled in, not linked from libfleet.a: the
# baseline needs nothing else of the fleet.
ringwatch_rawfan_LDADD = $(RW_LIBS) $(RW_EXTERNAL_LIBS)
