/* Diagnostics collected by library code: a list of `path:line:col: severity: message` entries.
 * Library code never prints; the CLI prints the list. Lines and columns are 1-based (0 = unknown).
 */
#ifndef ROOFLINE_UTIL_ERR_H
#define ROOFLINE_UTIL_ERR_H

#include <stddef.h>

enum err_severity { ERR_ERROR = 0, ERR_WARNING = 1 };

struct err_item {
    char *path; /* owned; may be NULL */
    int line;   /* 1-based, 0 when unknown */
    int col;    /* 1-based, 0 when unknown */
    enum err_severity severity;
    char *msg; /* owned */
};

struct err_list {
    struct err_item *items;
    size_t n;
    size_t cap;
};

/* Append one diagnostic; `errs` may be NULL (quiet). Allocation failure drops the message. */
void err_add(struct err_list *errs, const char *path, int line, int col, enum err_severity sev,
             const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 6, 7)))
#endif
    ;
size_t err_count(const struct err_list *errs, enum err_severity sev);
/* Render item i as "path:line:col: error: msg" into buf (always NUL-terminated). */
void err_format(const struct err_item *item, char *buf, size_t size);
/* Order by path, line, column (stable), so a user reads a file's problems top to bottom. */
void err_sort(struct err_list *errs);
void err_list_release(struct err_list *errs);

#endif
