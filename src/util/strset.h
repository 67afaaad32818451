/* A set of borrowed strings with a value each (open addressing, FNV-1a), for duplicate checks
 * that must stay linear on hostile input (80,000 keys or rows). Does not copy the strings. */
#ifndef ROOFLINE_UTIL_STRSET_H
#define ROOFLINE_UTIL_STRSET_H

#include <stddef.h>

struct strset {
    const char **keys; /* borrowed; NULL = empty slot */
    int *values;
    size_t cap, n; /* cap is a power of two or 0 */
};

/* An empty set; strset_release frees the table (never the strings). */
void strset_init(struct strset *s);
void strset_release(struct strset *s);
/* Add `key` with `value` unless present. Returns 1 when added, 0 when already present (then
 * *old, if not NULL, gets the first value), -1 when out of memory. `key` must outlive the set. */
int strset_add(struct strset *s, const char *key, int value, int *old);

#endif
