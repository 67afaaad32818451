/* Small string helpers: bounded copy, edit distance for "did you mean" hints. */
#ifndef ROOFLINE_UTIL_STRS_H
#define ROOFLINE_UTIL_STRS_H

#include <stddef.h>

/* Heap copy of s (caller frees); NULL on NULL or allocation failure. */
char *str_dup(const char *s);
/* Levenshtein distance, capped at 64 for long strings. */
int str_distance(const char *a, const char *b);
/* The candidate closest to `word` within a distance that makes a typo plausible, or NULL. */
const char *str_closest(const char *word, const char *const *candidates, size_t n);
/* Parse a whole string as a long / double; 0 on success. */
int str_to_long(const char *s, long *out);
int str_to_double(const char *s, double *out);

#endif
