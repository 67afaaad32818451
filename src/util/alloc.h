/* A sticky "an allocation failed" flag, so that a failure a caller did not check still ends the
 * command with "error: out of memory" and exit 1 instead of exit 0 with missing output. */
#ifndef ROOFLINE_UTIL_ALLOC_H
#define ROOFLINE_UTIL_ALLOC_H

#include <stdbool.h>

/* Records that an allocation failed (str_dup does; the test hook of alloc_hook.h does too). */
void alloc_note_failure(void);
/* Whether any allocation failure was recorded in this process. */
bool alloc_failed(void);

#endif
