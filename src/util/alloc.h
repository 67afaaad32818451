/* A sticky "an allocation failed" flag, so that a failure a caller did not check still ends the
 * command with "error: out of memory" and exit 1 instead of exit 0 with missing output; and what
 * the command was doing (the context), so that every such message can end "(while ...)". */
#ifndef ROOFLINE_UTIL_ALLOC_H
#define ROOFLINE_UTIL_ALLOC_H

#include <stdbool.h>
#include <stddef.h>

/* Records that an allocation failed (str_dup does; err_add of an "out of memory" message does),
 * with the context at that moment (the first failure's is kept, see alloc_failure_context). */
void alloc_note_failure(void);
/* Whether any allocation failure was recorded in this process. */
bool alloc_failed(void);
/* How many were recorded so far: a loader compares the count before and after filling an object,
 * so that an unchecked copy (str_dup returning NULL) fails the load instead of leaving a NULL. */
unsigned long alloc_failures(void);

/* The context, for "out of memory (while ...)". The command's phrase ("simulating scenario
 * 'x.yaml'") is set once by the CLI from the main thread, before any worker thread starts; the
 * nested phrases ("loading 'h100.yaml'", "drawing chart 'roofline'") are a per-thread stack of
 * static storage, so pushing cannot fail. Phrases longer than 160 bytes are cut; nesting past 6
 * is counted but not recorded. Every push is paired with a pop in the same function. */
void alloc_context_command(const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 1, 2)))
#endif
    ;
void alloc_context_push(const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 1, 2)))
#endif
    ;
void alloc_context_pop(void);
/* The current context, innermost first and comma-separated ("loading 'h100.yaml', analyzing
 * llama-3-8b on h100-sxm"), into buf (always NUL-terminated); "" when none is set. */
void alloc_context_describe(char *buf, size_t size);
/* The outermost phrase of the context (the command's, else the first nested one; "" if none). */
const char *alloc_context_outer(void);
/* The context recorded at the first alloc_note_failure ("" when none was set or none failed). */
const char *alloc_failure_context(void);

#endif
