/* Strict recursive-descent JSON parser (RFC 8259 grammar; numbers through strtod after the
 * grammar check, so "01", "1.", ".5" and "+1" are refused as the RFC refuses them). */
#include "io/json.h"

#include "util/alloc.h"

#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

struct parser {
    const char *s;
    size_t len, pos;
    int line, col;
    struct json_error *e;
    bool failed;
};

static void fail(struct parser *p, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 2, 3)))
#endif
    ;

static void
fail(struct parser *p, const char *fmt, ...)
{
    if (p->failed)
        return;
    p->failed = true;
    if (strcmp(fmt, "out of memory") == 0)
        alloc_note_failure(); /* the command ends with "out of memory (while ...)" */
    if (!p->e)
        return;
    p->e->line = p->line;
    p->e->col = p->col;
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(p->e->msg, sizeof p->e->msg, fmt, ap);
    va_end(ap);
}

static int
peek(const struct parser *p)
{
    return p->pos < p->len ? (unsigned char)p->s[p->pos] : -1;
}

static void
advance(struct parser *p)
{
    if (p->pos >= p->len)
        return;
    if (p->s[p->pos] == '\n') {
        p->line++;
        p->col = 1;
    } else {
        p->col++;
    }
    p->pos++;
}

static void
skip_ws(struct parser *p)
{
    for (int c = peek(p); c == ' ' || c == '\t' || c == '\n' || c == '\r'; c = peek(p))
        advance(p);
}

static const char *
describe(int c, char *buf, size_t n)
{
    if (c < 0)
        snprintf(buf, n, "end of input");
    else if (c >= 0x20 && c < 0x7f)
        snprintf(buf, n, "'%c'", c);
    else
        snprintf(buf, n, "byte 0x%02x", c);
    return buf;
}

static struct json *
node(struct parser *p, enum json_kind k)
{
    struct json *j = calloc(1, sizeof *j);
    if (!j) {
        fail(p, "out of memory");
        return NULL;
    }
    j->kind = k;
    j->line = p->line;
    j->col = p->col;
    return j;
}

void
json_free(struct json *j)
{
    if (!j)
        return;
    for (size_t i = 0; i < j->n; i++) {
        json_free(j->items[i]);
        if (j->keys)
            free(j->keys[i]);
    }
    free(j->items);
    free(j->keys);
    free(j->str);
    free(j);
}

static int
hex4(struct parser *p, unsigned *out)
{
    unsigned v = 0;
    for (int i = 0; i < 4; i++) {
        int c = peek(p);
        unsigned d;
        if (c >= '0' && c <= '9')
            d = (unsigned)(c - '0');
        else if (c >= 'a' && c <= 'f')
            d = (unsigned)(c - 'a' + 10);
        else if (c >= 'A' && c <= 'F')
            d = (unsigned)(c - 'A' + 10);
        else {
            char b[24];
            fail(p, "expected a hex digit in a \\u escape, got %s", describe(c, b, sizeof b));
            return -1;
        }
        v = v * 16 + d;
        advance(p);
    }
    *out = v;
    return 0;
}

static void
put_utf8(char *dst, size_t *n, unsigned cp)
{
    if (cp < 0x80) {
        dst[(*n)++] = (char)cp;
    } else if (cp < 0x800) {
        dst[(*n)++] = (char)(0xc0 | (cp >> 6));
        dst[(*n)++] = (char)(0x80 | (cp & 0x3f));
    } else if (cp < 0x10000) {
        dst[(*n)++] = (char)(0xe0 | (cp >> 12));
        dst[(*n)++] = (char)(0x80 | ((cp >> 6) & 0x3f));
        dst[(*n)++] = (char)(0x80 | (cp & 0x3f));
    } else {
        dst[(*n)++] = (char)(0xf0 | (cp >> 18));
        dst[(*n)++] = (char)(0x80 | ((cp >> 12) & 0x3f));
        dst[(*n)++] = (char)(0x80 | ((cp >> 6) & 0x3f));
        dst[(*n)++] = (char)(0x80 | (cp & 0x3f));
    }
}

/* A string at p (the opening quote); the decoded text, or NULL after fail(). Escapes never
 * lengthen the text beyond its source length (\uXXXX: 6 bytes -> at most 4), so the source
 * length bounds the buffer. */
static char *
parse_string(struct parser *p)
{
    advance(p); /* " */
    size_t start = p->pos, end = start;
    while (end < p->len && p->s[end] != '"') {
        if (p->s[end] == '\\')
            end++;
        end++;
    }
    char *out = malloc(end - start + 1);
    if (!out) {
        fail(p, "out of memory");
        return NULL;
    }
    size_t n = 0;
    for (;;) {
        int c = peek(p);
        char b[24];
        if (c < 0) {
            fail(p, "unterminated string");
            break;
        }
        if (c == '"') {
            advance(p);
            out[n] = '\0';
            return out;
        }
        if (c < 0x20) {
            fail(p, "control character %s in a string", describe(c, b, sizeof b));
            break;
        }
        if (c != '\\') {
            out[n++] = (char)c;
            advance(p);
            continue;
        }
        advance(p);
        c = peek(p);
        static const char ESC_IN[] = "\"\\/bfnrt", ESC_OUT[] = "\"\\/\b\f\n\r\t";
        const char *k = c > 0 ? strchr(ESC_IN, c) : NULL;
        if (k && *k) {
            out[n++] = ESC_OUT[k - ESC_IN];
            advance(p);
            continue;
        }
        if (c != 'u') {
            fail(p, "invalid escape '\\%c' in a string", c > 0x20 && c < 0x7f ? c : '?');
            break;
        }
        advance(p);
        unsigned cp;
        if (hex4(p, &cp) != 0)
            break;
        if (cp >= 0xd800 && cp < 0xdc00) {
            unsigned lo;
            if (peek(p) != '\\') {
                fail(p, "unpaired surrogate \\u%04x in a string", cp);
                break;
            }
            advance(p);
            if (peek(p) != 'u') {
                fail(p, "unpaired surrogate \\u%04x in a string", cp);
                break;
            }
            advance(p);
            if (hex4(p, &lo) != 0)
                break;
            if (lo < 0xdc00 || lo > 0xdfff) {
                fail(p, "unpaired surrogate \\u%04x in a string", cp);
                break;
            }
            cp = 0x10000 + ((cp - 0xd800) << 10) + (lo - 0xdc00);
        } else if (cp >= 0xdc00 && cp < 0xe000) {
            fail(p, "unpaired surrogate \\u%04x in a string", cp);
            break;
        } else if (cp == 0) {
            fail(p, "\\u0000 in a string is not supported");
            break;
        }
        put_utf8(out, &n, cp);
    }
    free(out);
    return NULL;
}

static void
parse_number(struct parser *p, struct json *j)
{
    size_t start = p->pos;
    if (peek(p) == '-')
        advance(p);
    int c = peek(p);
    if (c == '0') {
        advance(p);
    } else if (c >= '1' && c <= '9') {
        while (peek(p) >= '0' && peek(p) <= '9')
            advance(p);
    } else {
        fail(p, "expected a digit");
        return;
    }
    if (peek(p) == '.') {
        advance(p);
        if (!(peek(p) >= '0' && peek(p) <= '9')) {
            fail(p, "expected a digit after the decimal point");
            return;
        }
        while (peek(p) >= '0' && peek(p) <= '9')
            advance(p);
    }
    if (peek(p) == 'e' || peek(p) == 'E') {
        advance(p);
        if (peek(p) == '+' || peek(p) == '-')
            advance(p);
        if (!(peek(p) >= '0' && peek(p) <= '9')) {
            fail(p, "expected a digit in the exponent");
            return;
        }
        while (peek(p) >= '0' && peek(p) <= '9')
            advance(p);
    }
    char buf[64];
    size_t n = p->pos - start;
    if (n >= sizeof buf) {
        fail(p, "number too long");
        return;
    }
    memcpy(buf, p->s + start, n);
    buf[n] = '\0';
    errno = 0;
    j->num = strtod(buf, NULL);
    if (errno == ERANGE && fabs(j->num) > 1)
        fail(p, "number '%s' out of range", buf);
}

static int
push(struct parser *p, struct json *j, size_t *cap, char *key, struct json *v)
{
    if (j->n == *cap) {
        size_t nc = *cap ? *cap * 2 : 4;
        struct json **it = realloc(j->items, nc * sizeof *it);
        if (!it) {
            fail(p, "out of memory");
            return -1;
        }
        j->items = it;
        if (j->kind == JSON_OBJ) {
            char **ks = realloc(j->keys, nc * sizeof *ks);
            if (!ks) {
                fail(p, "out of memory");
                return -1;
            }
            j->keys = ks;
        }
        *cap = nc;
    }
    j->items[j->n] = v;
    if (j->kind == JSON_OBJ)
        j->keys[j->n] = key;
    j->n++;
    return 0;
}

static struct json *parse_value(struct parser *p, int depth);

static struct json *
parse_container(struct parser *p, int depth, bool obj)
{
    struct json *j = node(p, obj ? JSON_OBJ : JSON_ARR);
    if (!j)
        return NULL;
    if (depth > JSON_MAX_DEPTH) {
        fail(p, "nesting deeper than %d levels", JSON_MAX_DEPTH);
        json_free(j);
        return NULL;
    }
    char close = obj ? '}' : ']';
    size_t cap = 0;
    advance(p);
    skip_ws(p);
    if (peek(p) == close) {
        advance(p);
        return j;
    }
    for (;;) {
        char *key = NULL;
        char b[24];
        skip_ws(p);
        if (obj) {
            if (peek(p) != '"') {
                fail(p, "expected a member name in quotes, got %s", describe(peek(p), b, sizeof b));
                break;
            }
            key = parse_string(p);
            if (!key)
                break;
            skip_ws(p);
            if (peek(p) != ':') {
                fail(p, "expected ':' after member name \"%s\", got %s", key,
                     describe(peek(p), b, sizeof b));
                free(key);
                break;
            }
            advance(p);
        }
        struct json *v = parse_value(p, depth + 1);
        if (!v || push(p, j, &cap, key, v) != 0) {
            free(key);
            json_free(v);
            break;
        }
        skip_ws(p);
        int c = peek(p);
        if (c == ',') {
            advance(p);
            skip_ws(p);
            if (peek(p) == close) {
                fail(p, "trailing comma before '%c'", close);
                break;
            }
            continue;
        }
        if (c == close) {
            advance(p);
            return j;
        }
        fail(p, "expected ',' or '%c', got %s", close, describe(c, b, sizeof b));
        break;
    }
    json_free(j);
    return NULL;
}

static struct json *
parse_value(struct parser *p, int depth)
{
    skip_ws(p);
    int c = peek(p);
    char b[24];
    if (c == '{' || c == '[')
        return parse_container(p, depth, c == '{');
    if (c == '"') {
        struct json *j = node(p, JSON_STR);
        if (j && !(j->str = parse_string(p))) {
            json_free(j);
            return NULL;
        }
        return j;
    }
    if (c == '-' || (c >= '0' && c <= '9')) {
        struct json *j = node(p, JSON_NUM);
        if (j)
            parse_number(p, j);
        if (p->failed) {
            json_free(j);
            return NULL;
        }
        return j;
    }
    static const char *const WORDS[] = {"true", "false", "null"};
    for (int w = 0; w < 3; w++) {
        size_t l = strlen(WORDS[w]);
        if (p->len - p->pos >= l && memcmp(p->s + p->pos, WORDS[w], l) == 0) {
            struct json *j = node(p, w == 2 ? JSON_NULL : JSON_BOOL);
            if (!j)
                return NULL;
            j->b = w == 0;
            for (size_t i = 0; i < l; i++)
                advance(p);
            return j;
        }
    }
    fail(p, "expected a JSON value, got %s", describe(c, b, sizeof b));
    return NULL;
}

struct json *
json_parse(const char *s, size_t len, struct json_error *e)
{
    struct parser p = {s, len, 0, 1, 1, e, false};
    if (e)
        memset(e, 0, sizeof *e);
    struct json *j = parse_value(&p, 0);
    if (!j)
        return NULL;
    skip_ws(&p);
    if (p.pos < p.len) {
        char b[24];
        fail(&p, "unexpected %s after the JSON value", describe(peek(&p), b, sizeof b));
        json_free(j);
        return NULL;
    }
    return j;
}

const struct json *
json_get(const struct json *j, const char *key)
{
    if (!j || j->kind != JSON_OBJ)
        return NULL;
    for (size_t i = 0; i < j->n; i++)
        if (strcmp(j->keys[i], key) == 0)
            return j->items[i];
    return NULL;
}

int
json_number(const struct json *j, const char *key, double *out)
{
    const struct json *v = json_get(j, key);
    if (!v || v->kind != JSON_NUM)
        return -1;
    *out = v->num;
    return 0;
}

const char *
json_string(const struct json *j, const char *key)
{
    const struct json *v = json_get(j, key);
    return v && v->kind == JSON_STR ? v->str : NULL;
}

const char *
json_kind_name(enum json_kind k)
{
    static const char *const N[] = {"null",     "a boolean", "a number",
                                    "a string", "an array",  "an object"};
    return k <= JSON_OBJ ? N[k] : "?";
}
