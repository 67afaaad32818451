/* The allocation-failure flag, and in the test build (ROOFLINE_ALLOC_HOOK) the wrappers that
 * alloc_hook.h routes roofline's allocations to. */
#include "util/alloc.h"

#include <stdarg.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static atomic_bool failed;

enum { CTX_DEPTH = 6, CTX_LEN = 161 };
static char command_ctx[CTX_LEN];
static _Thread_local char nested_ctx[CTX_DEPTH][CTX_LEN];
static _Thread_local int nested_depth;
/* the first failure's context: written once by the thread that wins `snap_taken` */
static atomic_bool snap_taken;
static char snap_ctx[3 * CTX_LEN];

static atomic_ulong n_failures;

void
alloc_note_failure(void)
{
    if (!atomic_exchange(&snap_taken, true))
        alloc_context_describe(snap_ctx, sizeof snap_ctx);
    atomic_fetch_add(&n_failures, 1);
    atomic_store(&failed, true);
}

unsigned long
alloc_failures(void)
{
    return atomic_load(&n_failures);
}

const char *
alloc_failure_context(void)
{
    return atomic_load(&snap_taken) ? snap_ctx : "";
}

void
alloc_context_command(const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(command_ctx, sizeof command_ctx, fmt, ap);
    va_end(ap);
}

void
alloc_context_push(const char *fmt, ...)
{
    if (nested_depth < CTX_DEPTH) {
        va_list ap;
        va_start(ap, fmt);
        vsnprintf(nested_ctx[nested_depth], CTX_LEN, fmt, ap);
        va_end(ap);
    }
    nested_depth++;
}

void
alloc_context_pop(void)
{
    if (nested_depth > 0)
        nested_depth--;
}

const char *
alloc_context_outer(void)
{
    if (command_ctx[0])
        return command_ctx;
    return nested_depth > 0 ? nested_ctx[0] : "";
}

/* Appends ", phrase" (or "phrase" first) unless it repeats the phrase just written. */
static void
describe_add(char *buf, size_t size, size_t *used, const char **last, const char *phrase)
{
    if (!phrase[0] || (*last && strcmp(*last, phrase) == 0) || *used >= size - 1)
        return;
    int n = snprintf(buf + *used, size - *used, "%s%s", *used ? ", " : "", phrase);
    if (n > 0)
        *used = *used + (size_t)n < size ? *used + (size_t)n : size - 1;
    *last = phrase;
}

void
alloc_context_describe(char *buf, size_t size)
{
    if (size == 0)
        return;
    buf[0] = '\0';
    size_t used = 0;
    const char *last = NULL;
    int top = nested_depth < CTX_DEPTH ? nested_depth : CTX_DEPTH;
    /* the innermost two nested phrases and the command's: enough to say what and where */
    for (int i = top - 1, k = 0; i >= 0 && k < 2; i--, k++)
        describe_add(buf, size, &used, &last, nested_ctx[i]);
    describe_add(buf, size, &used, &last, command_ctx);
}

bool
alloc_failed(void)
{
    return atomic_load(&failed);
}

#ifdef ROOFLINE_ALLOC_HOOK
#include "util/alloc_hook.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <unistd.h>

static atomic_ulong n_calls;
static unsigned long fail_at; /* 0: never */
static atomic_bool started;

static void
write_count(void)
{
    const char *path = getenv("ROOFLINE_ALLOC_COUNT");
    int fd = path && *path ? open(path, O_WRONLY | O_CREAT | O_TRUNC, 0666) : -1;
    if (fd >= 0) {
        char line[32];
        int n = snprintf(line, sizeof line, "%lu\n", atomic_load(&n_calls));
        ssize_t w = n > 0 ? write(fd, line, (size_t)n) : 0;
        (void)w; /* a short count file makes the test say so */
        close(fd);
    }
}

volatile unsigned long alloc_hook_failures;

void
alloc_hook_fail_point(void)
{
    alloc_hook_failures++;
}

/* True when this call is the one to fail. */
static bool
fail_now(void)
{
    if (!atomic_exchange(&started, true)) {
        const char *s = getenv("ROOFLINE_FAIL_ALLOC");
        fail_at = s ? strtoul(s, NULL, 10) : 0;
        atexit(write_count);
    }
    unsigned long k = atomic_fetch_add(&n_calls, 1) + 1;
    /* the flag is not set here: only what production code records (str_dup) may set it */
    if (fail_at == 0 || k != fail_at)
        return false;
    alloc_hook_fail_point();
    return true;
}

void *
alloc_hook_malloc(size_t n)
{
    return fail_now() ? NULL : malloc(n);
}

void *
alloc_hook_calloc(size_t count, size_t size)
{
    return fail_now() ? NULL : calloc(count, size);
}

void *
alloc_hook_realloc(void *p, size_t n)
{
    return fail_now() ? NULL : realloc(p, n);
}

char *
alloc_hook_strdup(const char *s)
{
    return fail_now() ? NULL : strdup(s);
}
int
alloc_hook_rename(const char *from, const char *to)
{
    static atomic_ulong n_renames;
    const char *s = getenv("ROOFLINE_FAIL_RENAME");
    unsigned long at = s ? strtoul(s, NULL, 10) : 0;
    if (atomic_fetch_add(&n_renames, 1) + 1 == at) {
        errno = EIO;
        return -1;
    }
    return rename(from, to);
}
#endif
