/*
 * validation.h: Kubernetes name and label-value validation, as
 * k8s.io/apimachinery util/validation: IsQualifiedName and
 * IsValidLabelValue append their messages, "; "-joined, to an sbuf (empty
 * when the input is valid), worded as apimachinery words them;
 * IsDNS1123Label and IsDNS1123Subdomain only say whether a name is one.
 */
#ifndef VALIDATION_H
#define VALIDATION_H

#include <stdbool.h>
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

/* validation.IsDNS1123Label on the n bytes at s: 1 to 63 characters
 * [a-z0-9] with '-' inside (a namespace's name: ValidateNamespaceName). */
bool validation_dns1123_label(const char *s, size_t n);

/* validation.IsDNS1123Subdomain on the n bytes at s: 1 to 253 characters,
 * labels of [a-z0-9] with '-' inside separated by dots (most objects'
 * names, a service account's: ValidateServiceAccountName). */
bool validation_dns1123_subdomain(const char *s, size_t n);

#endif
