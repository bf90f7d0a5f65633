/*
 * quantity.h: Kubernetes resource quantities ("500m", "1Gi", "1.5e3") as
 * the apiserver prints them: apimachinery's resource.ParseQuantity of the
 * stored string, then Quantity.String(), which the Table printers call for
 * a PersistentVolume's capacity or an HPA's metric targets.
 */
#ifndef QUANTITY_H
#define QUANTITY_H

#include <stdbool.h>

#include "cache/sbuf.h"

/*
 * Appends to out the quantity s as Quantity.String() writes it after
 * Quantity.UnmarshalJSON read s (surrounding ASCII whitespace trimmed) and,
 * when milli is set, after RoundUp(-3) as the v1 defaulting
 * (SetDefaults_ResourceList) rounds every ResourceList value up to a
 * multiple of 10^-3 ("1m" for "500u"):
 *  - s itself when ParseQuantity keeps it (its int64 fast path with a
 *    canonical-looking string: "500m", "+5", "1e3", "5Gi");
 *  - otherwise the canonical form: the value rounded away from zero to a
 *    multiple of 10^-9 (binary-suffixed values capped at 2^63-1), then
 *    mantissa and suffix: BinarySI values of 1024 or more that are whole
 *    as the largest power of 1024 ("1536Mi" for "1.5Gi"), the others in
 *    their decimal format with an exponent that is a multiple of 3 ("1"
 *    for "1000m", "1500" for "1.5k", "10e99" for "1e100"), "0" for zero.
 *    Like apimachinery, a DecimalSI exponent past E (10^18) gets no suffix.
 * Returns RW_OK; RW_EINVAL when ParseQuantity would fail (empty, a bad
 * suffix such as "1ki", trailing garbage), with nothing appended.
 */
int quantity_format(const char *s, bool milli, struct sbuf *out);

#endif
