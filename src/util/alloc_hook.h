/* Allocation-failure injection for tests only: `make alloc-test` force-includes this header
 * (-include) into roofline's own sources, so that malloc/calloc/realloc/strdup go through
 * wrappers that fail the Nth call when ROOFLINE_FAIL_ALLOC=N, and write the number of calls to
 * the file ROOFLINE_ALLOC_COUNT at exit. Libraries (libyaml, Cairo, GSL) are not affected.
 * ROOFLINE_FAIL_RENAME=N likewise fails the Nth rename() (EIO), to test all-or-none writes. */
#ifndef ROOFLINE_UTIL_ALLOC_HOOK_H
#define ROOFLINE_UTIL_ALLOC_HOOK_H
#ifdef ROOFLINE_ALLOC_HOOK

/* only <stddef.h>: a forced include must not fix the feature macros (_GNU_SOURCE) of a file */
#include <stddef.h>

void *alloc_hook_malloc(size_t n);
void *alloc_hook_calloc(size_t count, size_t size);
void *alloc_hook_realloc(void *p, size_t n);
char *alloc_hook_strdup(const char *s);
int alloc_hook_rename(const char *from, const char *to);
/* Called where the chosen allocation fails: a place for a gdb breakpoint. */
void alloc_hook_fail_point(void);

/* not in util/alloc.c (built with ROOFLINE_ALLOC_HOOK_IMPL), which calls the real ones */
#ifndef ROOFLINE_ALLOC_HOOK_IMPL
#define malloc(n) alloc_hook_malloc(n)
#define calloc(c, s) alloc_hook_calloc(c, s)
#define realloc(p, n) alloc_hook_realloc(p, n)
#define strdup(s) alloc_hook_strdup(s)
#define rename(a, b) alloc_hook_rename(a, b)
#endif

#endif
#endif
