/*
 * printers_service.h: the printers of services and endpoints, as kube-apiserver
 * 1.32's printService (TYPE, CLUSTER-IP, EXTERNAL-IP, PORT(S), wide
 * SELECTOR) and printEndpoints (ENDPOINTS: the first three address:port
 * pairs and "+ N more...").
 * Columns, cells and defaults as proto/printer.h describes.
 */
#ifndef PRINTERS_SERVICE_H
#define PRINTERS_SERVICE_H

#include <stddef.h>

#include "proto/printer.h"

/* The printers, one per resource, for proto/table.c's lookup. */
extern const struct printer printers_service[];
extern const size_t printers_service_len;

#endif
