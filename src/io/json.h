/* A small strict JSON parser (RFC 8259) for what roofline reads over the network and from other
 * tools' result files: server-sent event payloads, llama-bench, vLLM and genai-perf results.
 * Builds a tree; no streaming, no comments, no trailing commas, depth and size bounded. */
#ifndef ROOFLINE_IO_JSON_H
#define ROOFLINE_IO_JSON_H

#include <stdbool.h>
#include <stddef.h>

enum json_kind { JSON_NULL, JSON_BOOL, JSON_NUM, JSON_STR, JSON_ARR, JSON_OBJ };

struct json {
    enum json_kind kind;
    bool b;
    double num;
    char *str;           /* JSON_STR: UTF-8, NUL-terminated (an embedded \u0000 is refused) */
    size_t n;            /* items of an array or members of an object */
    struct json **items; /* values */
    char **keys;         /* JSON_OBJ: member names, parallel to items */
    int line, col;       /* 1-based position of the value's first character */
};

#define JSON_MAX_DEPTH 64

/* Where and why a parse failed: 1-based line and column, a lowercase message. */
struct json_error {
    int line, col;
    char msg[160];
};

/* Parse exactly one JSON value from s[0..len) (surrounding whitespace allowed). Returns the tree
 * (caller frees with json_free) or NULL with *e filled (e may be NULL). */
struct json *json_parse(const char *s, size_t len, struct json_error *e);
void json_free(struct json *j);

/* The member `key` of an object, or NULL (also when j is not an object or NULL). */
const struct json *json_get(const struct json *j, const char *key);
/* Typed accessors: 0 and *out, or -1 when absent or of another kind. */
int json_number(const struct json *j, const char *key, double *out);
const char *json_string(const struct json *j, const char *key);
const char *json_kind_name(enum json_kind k);

#endif
