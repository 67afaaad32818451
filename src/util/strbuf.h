/* A growable NUL-terminated string buffer (after git's strbuf). Library code builds text here
 * and never prints; the CLI writes the buffer out. */
#ifndef ROOFLINE_UTIL_STRBUF_H
#define ROOFLINE_UTIL_STRBUF_H

#include <stdbool.h>
#include <stddef.h>

/* Zero-initialise (= {0}); release with strbuf_release. `buf` is NULL until the first
 * append, else NUL-terminated. After an allocation failure `failed` is set and later appends do
 * nothing, so a caller checks once at the end. */
struct strbuf {
    char *buf;
    size_t len, alloc;
    bool failed;
};

void strbuf_add(struct strbuf *sb, const void *data, size_t len);
void strbuf_addstr(struct strbuf *sb, const char *s);
void strbuf_addf(struct strbuf *sb, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 2, 3)))
#endif
    ;
/* s (NULL: empty) as a JSON string literal with its quotes, which is also a valid YAML
 * double-quoted scalar: '"' and '\\' escaped, control characters as \\u00XX. */
void strbuf_add_quoted(struct strbuf *sb, const char *s);
/* Frees the buffer and zeroes the struct (reusable afterwards). */
void strbuf_release(struct strbuf *sb);

#endif
