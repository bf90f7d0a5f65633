/*
 * validation.h: Kubernetes name and label-value validation, as
 * k8s.io/apimachinery util/validation: IsQualifiedName and
 * IsValidLabelValue.  Each check appends its messages, "; "-joined, to an
 * sbuf (empty when the input is valid), worded as apimachinery words them.
 */
#ifndef VALIDATION_H
#define VALIDATION_H

#include <stddef.h>

#include "cache/sbuf.h"

/*
 * validation.IsQualifiedName on the n bytes at s (NUL not needed): an
 * optional DNS-1123 subdomain prefix (at most 253 characters) and '/', then
 * a name of 1 to 63 characters [A-Za-z0-9] with -_. inside.  Appends one
 * message per failed rule to errs ("; "-joined); appends nothing if valid.
 */
void validation_qualified_name(const char *s, size_t n, struct sbuf *errs);

/*
 * validation.IsValidLabelValue on the n bytes at s: empty, or at most 63
 * characters [A-Za-z0-9] with -_. inside.  Appends its messages to errs as
 * validation_qualified_name does.
 */
void validation_label_value(const char *s, size_t n, struct sbuf *errs);

#endif
