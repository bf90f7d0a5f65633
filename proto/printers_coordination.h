/*
 * printers_coordination.h: the leases printer, as kube-apiserver 1.32's
 * printLease: HOLDER. Columns, cells and defaults as proto/printer.h describes.
 */
#ifndef PRINTERS_COORDINATION_H
#define PRINTERS_COORDINATION_H

#include <stddef.h>

#include "proto/printer.h"

/* The printers, one per resource, for proto/table.c's lookup. */
extern const struct printer printers_coordination[];
extern const size_t printers_coordination_len;

#endif
