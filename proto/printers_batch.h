/*
 * printers_batch.h: the printers of the batch group, as kube-apiserver 1.32's
 * printJob (STATUS, COMPLETIONS, DURATION) and printCronJob (SCHEDULE,
 * TIMEZONE, SUSPEND, ACTIVE, LAST SCHEDULE), each with the wide
 * CONTAINERS, IMAGES and SELECTOR.
 * Columns, cells and defaults as proto/printer.h describes.
 */
#ifndef PRINTERS_BATCH_H
#define PRINTERS_BATCH_H

#include <stddef.h>

#include "proto/printer.h"

/* The printers, one per resource, for proto/table.c's lookup. */
extern const struct printer printers_batch[];
extern const size_t printers_batch_len;

#endif
