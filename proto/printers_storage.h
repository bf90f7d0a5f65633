/*
 * printers_storage.h: the printers of persistentvolumes and
 * persistentvolumeclaims, as kube-apiserver 1.32's printPersistentVolume
 * (CAPACITY, ACCESS MODES, RECLAIM POLICY, STATUS, CLAIM, STORAGECLASS,
 * VOLUMEATTRIBUTESCLASS, REASON, wide VOLUMEMODE) and
 * printPersistentVolumeClaim (STATUS, VOLUME, CAPACITY, ACCESS MODES,
 * STORAGECLASS, VOLUMEATTRIBUTESCLASS, wide VOLUMEMODE). Columns, cells and
 * defaults as proto/printer.h describes.
 */
#ifndef PRINTERS_STORAGE_H
#define PRINTERS_STORAGE_H

#include <stddef.h>

#include "proto/printer.h"

/* The printers, one per resource, for proto/table.c's lookup. */
extern const struct printer printers_storage[];
extern const size_t printers_storage_len;

#endif
