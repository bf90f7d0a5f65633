/*
 * printers_rbac.h: the rbac.authorization.k8s.io printers, as
 * kube-apiserver 1.32's: rolebindings and clusterrolebindings by
 * printRoleBinding / printClusterRoleBinding (ROLE, AGE; wide USERS,
 * GROUPS, SERVICEACCOUNTS); roles and clusterroles have no printer there,
 * so they get its default table convertor (rest.NewDefaultTableConvertor:
 * NAME, CREATED AT).  Columns, cells and defaults as proto/printer.h
 * describes.
 */
#ifndef PRINTERS_RBAC_H
#define PRINTERS_RBAC_H

#include <stddef.h>

#include "proto/printer.h"

/* The printers, one per resource, for proto/table.c's lookup. */
extern const struct printer printers_rbac[];
extern const size_t printers_rbac_len;

#endif
