/*
 * printers_core.h: the printers of the core group's plain types, as
 * kube-apiserver 1.32's printNode, printNamespace, printConfigMap, printSecret,
 * printServiceAccount and printEvent: nodes (STATUS, ROLES, VERSION and the
 * wide addresses and versions), namespaces (STATUS), configmaps and secrets
 * (DATA), serviceaccounts (SECRETS) and events (LAST SEEN, TYPE, REASON,
 * OBJECT, MESSAGE and the wide SUBOBJECT, SOURCE, FIRST SEEN, COUNT, NAME).
 * Columns, cells and defaults as proto/printer.h describes.
 */
#ifndef PRINTERS_CORE_H
#define PRINTERS_CORE_H

#include <stddef.h>

#include "proto/printer.h"

/* The printers, one per resource, for proto/table.c's lookup. */
extern const struct printer printers_core[];
extern const size_t printers_core_len;

#endif
