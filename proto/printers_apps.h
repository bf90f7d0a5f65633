/*
 * printers_apps.h: the printers of the apps group and of
 * replicationcontrollers, as kube-apiserver 1.32's printDeployment (READY,
 * UP-TO-DATE, AVAILABLE), printReplicaSet and printReplicationController
 * (DESIRED, CURRENT, READY), printStatefulSet (READY "n/m") and printDaemonSet
 * (DESIRED, CURRENT, READY, UP-TO-DATE, AVAILABLE, NODE SELECTOR), each with
 * the wide CONTAINERS, IMAGES and (but statefulsets) SELECTOR. Columns, cells
 * and defaults as proto/printer.h describes.
 */
#ifndef PRINTERS_APPS_H
#define PRINTERS_APPS_H

#include <stddef.h>

#include "proto/printer.h"

/* The printers, one per resource, for proto/table.c's lookup. */
extern const struct printer printers_apps[];
extern const size_t printers_apps_len;

#endif
