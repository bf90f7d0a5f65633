/*
 * tokenfile.h: kube-apiserver's --token-auth-file, a CSV file of static
 * bearer tokens, one record a line:
 *
 *   token,user,uid,"group1,group2"
 *
 * read as the apiserver's tokenfile.NewCSV reads it with Go's
 * encoding/csv (FieldsPerRecord -1: any number of fields per record):
 * fields separated by commas, a field may be quoted ("..." with "" for a
 * quote, commas and line breaks inside), "\r\n" ends a line as "\n" does,
 * blank lines are skipped, there are no comments and no trimming (a
 * leading space is part of the field).  A record needs at least three
 * fields (token, user name, uid); the fourth, when present, is the
 * comma-separated groups; the rest are ignored.
 *
 * Differences from the apiserver, each stricter and each a startup
 * error: an empty user name (the apiserver would authenticate a user
 * named ""), a NUL byte.  Empty group names (the apiserver's
 * strings.Split of "" or "a,,b") are dropped.  The parser keeps every
 * record, empty tokens and repeated ones included, in file order: the
 * caller skips the first and lets the last of the second win, as the
 * apiserver does (each with a warning).
 */
#ifndef TOKENFILE_H
#define TOKENFILE_H

#include <stddef.h>

struct tokenfile_row {
    char *token; /* "" for a record the apiserver skips */
    char *user;
    char *uid;     /* may be "" */
    char **groups; /* ngroups non-empty names, in file order */
    size_t ngroups;
    unsigned line; /* where the record starts, from 1 */
};

struct tokenfile {
    struct tokenfile_row *rows;
    size_t n;
};

/*
 * Parses the len bytes of a token file at text into *out (free with
 * tokenfile_fini).  Returns RW_OK, or RW_EINVAL with why naming the line
 * ("line 3: must have at least 3 columns (token, user name, user uid),
 * found 2"; "line 5: bare \" in non-quoted field"; ...), *out then empty.
 */
int tokenfile_parse(const char *text, size_t len, struct tokenfile *out,
                    char *why, size_t why_len);
void tokenfile_fini(struct tokenfile *tf);

#endif
