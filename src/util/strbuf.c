/* Growable string buffer: amortised doubling, a sticky failure flag instead of a status per call.
 */
#include "util/strbuf.h"

#include "util/alloc.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Room for `extra` more bytes plus the NUL; false (and `failed`) when out of memory. */
static bool
grow(struct strbuf *sb, size_t extra)
{
    if (sb->failed)
        return false;
    size_t need = sb->len + extra + 1;
    if (need <= sb->alloc)
        return true;
    size_t alloc = sb->alloc ? sb->alloc : 4096;
    while (alloc < need)
        alloc *= 2;
    char *b = realloc(sb->buf, alloc);
    if (!b) {
        sb->failed = true;
        alloc_note_failure();
        return false;
    }
    sb->buf = b;
    sb->alloc = alloc;
    return true;
}

void
strbuf_add(struct strbuf *sb, const void *data, size_t len)
{
    if (!grow(sb, len))
        return;
    memcpy(sb->buf + sb->len, data, len);
    sb->len += len;
    sb->buf[sb->len] = '\0';
}

void
strbuf_addstr(struct strbuf *sb, const char *s)
{
    strbuf_add(sb, s, strlen(s));
}

void
strbuf_addf(struct strbuf *sb, const char *fmt, ...)
{
    if (sb->failed)
        return;
    va_list ap;
    va_start(ap, fmt);
    char small[256];
    int n = vsnprintf(small, sizeof small, fmt, ap);
    va_end(ap);
    if (n < 0) {
        sb->failed = true;
        return;
    }
    if (!grow(sb, (size_t)n))
        return;
    if ((size_t)n < sizeof small) {
        memcpy(sb->buf + sb->len, small, (size_t)n + 1);
    } else {
        va_start(ap, fmt);
        vsnprintf(sb->buf + sb->len, (size_t)n + 1, fmt, ap);
        va_end(ap);
    }
    sb->len += (size_t)n;
}

void
strbuf_release(struct strbuf *sb)
{
    free(sb->buf);
    memset(sb, 0, sizeof *sb);
}

void
strbuf_add_quoted(struct strbuf *sb, const char *s)
{
    strbuf_addstr(sb, "\"");
    for (const unsigned char *p = (const unsigned char *)(s ? s : ""); *p; p++) {
        if (*p == '"' || *p == '\\')
            strbuf_addf(sb, "\\%c", *p);
        else if (*p < 0x20)
            strbuf_addf(sb, "\\u%04x", *p);
        else
            strbuf_add(sb, p, 1);
    }
    strbuf_addstr(sb, "\"");
}
