/*
 * printers_autoscaling.h: the horizontalpodautoscalers printer, as
 * kube-apiserver 1.32's printHorizontalPodAutoscaler: REFERENCE, TARGETS
 * (formatHPAMetrics: the first two metrics' current/target and "+ N more..."),
 * MINPODS, MAXPODS, REPLICAS. Columns, cells and defaults as proto/printer.h
 * describes.
 */
#ifndef PRINTERS_AUTOSCALING_H
#define PRINTERS_AUTOSCALING_H

#include <stddef.h>

#include "proto/printer.h"

/* The printers, one per resource, for proto/table.c's lookup. */
extern const struct printer printers_autoscaling[];
extern const size_t printers_autoscaling_len;

#endif
