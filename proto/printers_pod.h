/*
 * printers_pod.h: the pods printer (kube-apiserver 1.32 printPod): NAME, READY,
 * STATUS, RESTARTS, AGE and the wide IP, NODE, NOMINATED NODE, READINESS
 * GATES, with the Completed row condition of pods that Succeeded or Failed.
 * Columns, cells and defaults as proto/printer.h describes.
 */
#ifndef PRINTERS_POD_H
#define PRINTERS_POD_H

#include <stddef.h>

#include "proto/printer.h"

/* The printers, one per resource, for proto/table.c's lookup. */
extern const struct printer printers_pod[];
extern const size_t printers_pod_len;

#endif
