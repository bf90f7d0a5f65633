dist_man_MANS += man/ringwatch.8 man/ringwatch-fleet.1 man/ringwatch-redis.7
