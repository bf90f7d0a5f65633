/*
 * histogram.c: log-bucketed histogram (see histogram.h).
 *
 * Bucket layout: a value v < 2^S (S = HISTOGRAM_SUB_BITS) is bucket v.  A
 * larger v with highest set bit e (e >= S) is in row e - S + 1, column =
 * the S bits below its highest bit: bucket (e - S + 1) * 2^S + column.
 * Row r >= 1 thus covers [2^(r+S-1), 2^(r+S)) in 2^S buckets of width
 * 2^(r-1).  Rows are contiguous, so buckets are in increasing value order.
 */
#include "src/fleet/histogram.h"

#include <string.h>

#include "cache/rw.h"

void histogram_init(struct histogram *h)
{
    memset(h, 0, sizeof(*h));
    h->min = UINT64_MAX;
}

unsigned histogram_bucket(uint64_t value)
{
    unsigned e, column;

    if (value < HISTOGRAM_SUB_COUNT)
        return (unsigned)value;
    e = 63u - (unsigned)__builtin_clzll(value);
    column = (unsigned)(value >> (e - HISTOGRAM_SUB_BITS)) &
             (HISTOGRAM_SUB_COUNT - 1);
    return (e - HISTOGRAM_SUB_BITS + 1) * HISTOGRAM_SUB_COUNT + column;
}

void histogram_bucket_range(unsigned bucket, uint64_t *lo, uint64_t *hi)
{
    unsigned row = bucket / HISTOGRAM_SUB_COUNT;
    uint64_t column = bucket % HISTOGRAM_SUB_COUNT, width;

    rw_assert(bucket < HISTOGRAM_BUCKETS);
    if (row == 0) {
        *lo = *hi = bucket;
        return;
    }
    width = 1ull << (row - 1);
    *lo = (HISTOGRAM_SUB_COUNT + column) * width;
    *hi = *lo + (width - 1);
}

void histogram_record(struct histogram *h, uint64_t value)
{
    h->buckets[histogram_bucket(value)]++;
    h->count++;
    h->sum += (double)value;
    if (value < h->min)
        h->min = value;
    if (value > h->max)
        h->max = value;
}

void histogram_merge(struct histogram *dst, const struct histogram *src)
{
    if (src->count == 0)
        return;
    for (unsigned i = 0; i < HISTOGRAM_BUCKETS; i++)
        dst->buckets[i] += src->buckets[i];
    dst->count += src->count;
    dst->sum += src->sum;
    if (src->min < dst->min)
        dst->min = src->min;
    if (src->max > dst->max)
        dst->max = src->max;
}

uint64_t histogram_quantile(const struct histogram *h, double q)
{
    uint64_t rank, seen = 0, lo, hi, mid;

    if (h->count == 0)
        return 0;
    if (q <= 0)
        return h->min;
    if (q >= 1)
        return h->max;
    rank = (uint64_t)(q * (double)h->count + 0.999999);
    if (rank == 0)
        rank = 1;
    for (unsigned i = 0; i < HISTOGRAM_BUCKETS; i++) {
        seen += h->buckets[i];
        if (seen < rank)
            continue;
        histogram_bucket_range(i, &lo, &hi);
        mid = lo + (hi - lo) / 2;
        return mid < h->min ? h->min : mid > h->max ? h->max : mid;
    }
    return h->max;
}

double histogram_mean(const struct histogram *h)
{
    return h->count ? h->sum / (double)h->count : 0;
}
