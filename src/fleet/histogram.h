/*
 * histogram.h: a log-bucketed histogram of non-negative integer values
 * (the fleet records latencies in nanoseconds), HDR-like: fixed memory,
 * O(1) recording, about 0.8% relative precision at any magnitude.
 *
 * Values below 2^HISTOGRAM_SUB_BITS are counted exactly; above, each
 * power-of-two range is split into 2^HISTOGRAM_SUB_BITS equal buckets, so
 * a bucket's width is at most 1/128 of its lower bound.  Quantiles report
 * the middle of the bucket that holds them (clamped to the recorded
 * minimum and maximum), so they are within 0.4% of a recorded value.
 */
#ifndef FLEET_HISTOGRAM_H
#define FLEET_HISTOGRAM_H

#include <stdint.h>

#define HISTOGRAM_SUB_BITS 7
#define HISTOGRAM_SUB_COUNT (1u << HISTOGRAM_SUB_BITS)
/* Buckets: the exact range plus one row per power of two up to 2^63. */
#define HISTOGRAM_BUCKETS ((64u - HISTOGRAM_SUB_BITS + 1) * HISTOGRAM_SUB_COUNT)

struct histogram {
    uint64_t count; /* values recorded */
    uint64_t min, max;
    double sum; /* for the mean */
    uint64_t buckets[HISTOGRAM_BUCKETS];
};

/* Empties h (about 58 KiB, embedded or allocated by the caller). */
void histogram_init(struct histogram *h);

/* Records value (any uint64_t) once. */
void histogram_record(struct histogram *h, uint64_t value);

/* Adds every value of src to dst. */
void histogram_merge(struct histogram *dst, const struct histogram *src);

/* The value at quantile q in [0, 1] (0.99 for p99): the smallest recorded
 * value's bucket such that at least q of the values are at or below it;
 * 0 when h is empty. */
uint64_t histogram_quantile(const struct histogram *h, double q);

/* Mean of the recorded values; 0 when empty. */
double histogram_mean(const struct histogram *h);

/* Bucket index of value, and the range [*lo, *hi] of values in a bucket
 * (exposed for the unit test). */
unsigned histogram_bucket(uint64_t value);
void histogram_bucket_range(unsigned bucket, uint64_t *lo, uint64_t *hi);

#endif
