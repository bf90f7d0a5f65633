/*
 * query.h: the query string of a LIST or WATCH request, as the apiserver
 * reads it (metav1.ListOptions).
 *
 * Parameters: watch, resourceVersion, resourceVersionMatch, labelSelector,
 * fieldSelector, limit, continue, timeoutSeconds, allowWatchBookmarks,
 * sendInitialEvents, includeObject (of Table output).  Booleans take Go's
 * strconv.ParseBool spellings (1, t, T, TRUE, true, True and 0, FALSE,
 * false, False) on which the apiserver's conversion agrees: not "f" or
 * "F", which it reads as true.  Values are
 * percent-decoded ('+' is a space).  Unknown parameters are ignored, as
 * the apiserver does; a repeated parameter takes its first value.
 *
 * Stricter than the apiserver, deliberately: its conversion reads any
 * boolean other than "0"/"false" (any case) as true, even "", "f" and
 * "maybe",
 * and Go's url.Query() silently drops a pair with a malformed %-escape;
 * here those are 400s (a malformed key is still just ignored).
 */
#ifndef QUERY_H
#define QUERY_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

enum rv_match {
    RV_MATCH_UNSET = 0,
    RV_MATCH_NOT_OLDER_THAN, /* "NotOlderThan" */
    RV_MATCH_EXACT,          /* "Exact" */
    RV_MATCH_OTHER,          /* any other value: query_validate's 422 */
};

struct query {
    bool watch;
    bool has_rv; /* resourceVersion present and non-empty */
    int64_t rv;  /* its value (>= 0) when has_rv */
    enum rv_match rv_match;
    const char *rv_match_value; /* decoded; "" when absent */
    const char *label_selector; /* decoded; "" when absent */
    const char *field_selector; /* decoded; "" when absent */
    int64_t limit; /* 0 when absent; a negative limit is no limit (0), as
                      the apiserver reads it */
    const char *continue_token; /* decoded; "" when absent */
    const char *include_object; /* decoded; "" when absent */
    int64_t timeout_seconds;    /* -1 when absent; seconds */
    bool allow_bookmarks;
    int send_initial_events; /* -1 absent, 0 false, 1 true */
    char *storage;           /* owns the decoded strings */
};

/*
 * Parses query (len bytes, without the leading '?'; may be empty; need not
 * be NUL-terminated) into *q.  Returns RW_OK; or RW_EINVAL with the
 * message for a 400 BadRequest in why (e.g. "invalid value for watch:
 * \"maybe\"", "invalid resourceVersion: \"abc\"", "limit must be a
 * non-negative integer", "invalid resourceVersionMatch: \"Newest\"",
 * "invalid labelSelector: malformed percent-encoding in the query"),
 * truncated to why_len bytes, quoting the decoded value unescaped (JSON-
 * escape it for a Status); *q must still be finalised.
 * resourceVersion: "" is unset, else decimal digits only (as the etcd3
 * versioner's ParseUint) up to INT64_MAX.  limit and timeoutSeconds: an
 * optional '+' then digits (as strconv.ParseInt), non-negative; an empty
 * value is an error.  A value that decodes to a NUL byte is malformed.
 * q->storage is one allocation of len + 1 bytes.
 */
int query_parse(const char *query, size_t len, struct query *q, char *why,
                size_t why_len);
/*
 * Checks the combination of options as the apiserver's ValidateListOptions
 * (apimachinery's meta internalversion validation) does, for a WATCH
 * (watch) or a LIST.  Returns RW_OK, or RW_EINVAL with the offending field
 * in *field (static, e.g. "resourceVersionMatch") and the error in why as
 * the apiserver words it (e.g. "Forbidden: sendInitialEvents requires
 * setting resourceVersionMatch to NotOlderThan"), for a 422 Invalid.
 * LIST: resourceVersionMatch needs a resourceVersion, is forbidden with
 * continue, and Exact is forbidden with resourceVersion "0";
 * sendInitialEvents is forbidden.  WATCH: sendInitialEvents needs
 * resourceVersionMatch=NotOlderThan and allowWatchBookmarks=true;
 * resourceVersionMatch needs sendInitialEvents and can only be
 * NotOlderThan; neither goes with continue.
 */
int query_validate(const struct query *q, bool watch, const char **field,
                   char *why, size_t why_len);

/* Frees q->storage; the string fields then read "".  For a query that
 * query_parse accepted or refused; idempotent. */
void query_fini(struct query *q);

/* Whether parameter name (compared decoded, as query_parse and Go's
 * url.Values read keys) appears in the NUL-terminated
 * query at all, with or without a value: for switches such as /readyz's
 * ?verbose, which the apiserver reads the same way. */
bool query_has(const char *query, const char *name);

/* The first value of parameter name (compared decoded: "%77atch" is
 * watch, as query_parse reads it), decoded ('+' a space), as
 * url.Values.Get reads it: a new string (free()), "" for a
 * parameter without a value; NULL when absent or its value is malformed. */
char *query_first(const char *query, const char *name);

/* Whether every '%' in len bytes of s begins an escape of two hex digits,
 * as Go's url.ParseRequestURI requires of a request's path (a request
 * whose path fails it gets 400 from Go's HTTP/1.1 server, RST_STREAM
 * PROTOCOL_ERROR from its HTTP/2 server). */
bool query_escapes_valid(const char *s, size_t len);

/* Percent-decodes len bytes of s into a new NUL-terminated string ('+' is
 * a space when plus_is_space; free() it).  Returns NULL on a malformed %XX
 * escape, and on "%00" or a raw NUL (which would cut the string short). */
char *query_unescape(const char *s, size_t len, bool plus_is_space);

#endif
