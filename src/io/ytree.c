/* libyaml event stream -> node tree with marks. Aliases are refused (profiles do not need them
 * and they make positions ambiguous). Depth is capped so hostile input cannot exhaust the stack. */
#include "io/ytree.h"

#include "util/alloc.h"
#include "util/rfile.h"
#include "util/strs.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <yaml.h>

#define YTREE_MAX_DEPTH 64

/* Children grow geometrically (a 73 MB list took 1.9 GB with one realloc per item); the unused
 * tail is not trimmed. Returns -1 when out of memory (the child is freed). */
static int
node_push(struct ynode *parent, struct ynode *child)
{
    /* capacity is implicit: 4, then the next power of two each time n reaches one */
    if (parent->n == 0 || (parent->n >= 4 && (parent->n & (parent->n - 1)) == 0)) {
        size_t ncap = parent->n == 0 ? 4 : parent->n * 2;
        struct ynode **items = realloc(parent->items, ncap * sizeof *items);
        if (!items) {
            ynode_free(child);
            return -1;
        }
        parent->items = items;
    }
    parent->items[parent->n++] = child;
    return 0;
}

/* A node; a scalar's text lives in the same block (one allocation instead of two: 72 bytes per
 * list item instead of 104 for a list of small numbers). */
static struct ynode *
node_new(enum ynode_kind kind, const yaml_mark_t *mark, const char *text, size_t text_len)
{
    size_t extra = text ? text_len + 1 : 0;
    struct ynode *n = calloc(1, sizeof *n + extra);
    if (!n)
        return NULL;
    n->kind = kind;
    n->line = (int)mark->line + 1;
    n->col = (int)mark->column + 1;
    if (text) {
        n->value = (char *)(n + 1);
        memcpy(n->value, text, text_len);
        n->value[text_len] = '\0';
    }
    return n;
}

static int parse_node(yaml_parser_t *p, yaml_event_t *ev, const char *name, struct err_list *errs,
                      int depth, struct ynode **out);

static int
parse_children(yaml_parser_t *p, struct ynode *parent, yaml_event_type_t end, const char *name,
               struct err_list *errs, int depth)
{
    for (;;) {
        yaml_event_t ev;
        if (!yaml_parser_parse(p, &ev)) {
            err_add(errs, name, (int)p->problem_mark.line + 1, (int)p->problem_mark.column + 1,
                    ERR_ERROR, "invalid YAML: %s", p->problem ? p->problem : "malformed");
            return -1;
        }
        if (ev.type == end) {
            yaml_event_delete(&ev);
            return 0;
        }
        struct ynode *child = NULL;
        int child_line = (int)ev.start_mark.line + 1, child_col = (int)ev.start_mark.column + 1;
        int rc = parse_node(p, &ev, name, errs, depth + 1, &child);
        yaml_event_delete(&ev);
        if (rc != 0)
            return -1;
        if (node_push(parent, child) != 0) {
            err_add(errs, name, child_line, child_col, ERR_ERROR, "out of memory");
            return -1;
        }
    }
}

static int
parse_node(yaml_parser_t *p, yaml_event_t *ev, const char *name, struct err_list *errs, int depth,
           struct ynode **out)
{
    if (depth > YTREE_MAX_DEPTH) {
        err_add(errs, name, (int)ev->start_mark.line + 1, (int)ev->start_mark.column + 1, ERR_ERROR,
                "nesting deeper than %d levels", YTREE_MAX_DEPTH);
        return -1;
    }
    switch (ev->type) {
    case YAML_SCALAR_EVENT: {
        /* libyaml gives the length; a NUL inside a quoted scalar ends the text here */
        const char *text = (const char *)ev->data.scalar.value;
        struct ynode *n = node_new(YNODE_SCALAR, &ev->start_mark, text, strlen(text));
        if (!n) {
            err_add(errs, name, (int)ev->start_mark.line + 1, (int)ev->start_mark.column + 1,
                    ERR_ERROR, "out of memory");
            return -1;
        }
        n->plain = ev->data.scalar.style == YAML_PLAIN_SCALAR_STYLE;
        *out = n;
        return 0;
    }
    case YAML_SEQUENCE_START_EVENT: {
        struct ynode *n = node_new(YNODE_SEQ, &ev->start_mark, NULL, 0);
        if (!n) {
            err_add(errs, name, (int)ev->start_mark.line + 1, (int)ev->start_mark.column + 1,
                    ERR_ERROR, "out of memory (while reading the YAML)");
            return -1;
        }
        if (parse_children(p, n, YAML_SEQUENCE_END_EVENT, name, errs, depth) != 0) {
            ynode_free(n);
            return -1;
        }
        *out = n;
        return 0;
    }
    case YAML_MAPPING_START_EVENT: {
        struct ynode *n = node_new(YNODE_MAP, &ev->start_mark, NULL, 0);
        if (!n) {
            err_add(errs, name, (int)ev->start_mark.line + 1, (int)ev->start_mark.column + 1,
                    ERR_ERROR, "out of memory (while reading the YAML)");
            return -1;
        }
        if (parse_children(p, n, YAML_MAPPING_END_EVENT, name, errs, depth) != 0) {
            ynode_free(n);
            return -1;
        }
        for (size_t i = 0; i + 1 < n->n; i += 2) {
            if (n->items[i]->kind != YNODE_SCALAR) {
                err_add(errs, name, n->items[i]->line, n->items[i]->col, ERR_ERROR,
                        "a key must be a plain name");
                ynode_free(n);
                return -1;
            }
        }
        *out = n;
        return 0;
    }
    case YAML_ALIAS_EVENT:
        err_add(errs, name, (int)ev->start_mark.line + 1, (int)ev->start_mark.column + 1, ERR_ERROR,
                "YAML aliases are not supported");
        return -1;
    default:
        err_add(errs, name, (int)ev->start_mark.line + 1, (int)ev->start_mark.column + 1, ERR_ERROR,
                "unexpected YAML event");
        return -1;
    }
}

struct ynode *
ynode_parse(const char *name, const char *text, size_t len, struct err_list *errs)
{
    yaml_parser_t p;
    if (!yaml_parser_initialize(&p)) {
        err_add(errs, name, 0, 0, ERR_ERROR, "out of memory");
        return NULL;
    }
    yaml_parser_set_input_string(&p, (const unsigned char *)text, len);
    struct ynode *root = NULL;
    bool done = false, failed = false;
    while (!done && !failed) {
        yaml_event_t ev;
        if (!yaml_parser_parse(&p, &ev)) {
            err_add(errs, name, (int)p.problem_mark.line + 1, (int)p.problem_mark.column + 1,
                    ERR_ERROR, "invalid YAML: %s", p.problem ? p.problem : "malformed");
            failed = true;
            break;
        }
        switch (ev.type) {
        case YAML_STREAM_END_EVENT:
            done = true;
            break;
        case YAML_STREAM_START_EVENT:
        case YAML_DOCUMENT_END_EVENT:
            break;
        case YAML_DOCUMENT_START_EVENT:
            if (root) {
                err_add(errs, name, (int)ev.start_mark.line + 1, (int)ev.start_mark.column + 1,
                        ERR_ERROR, "more than one YAML document");
                failed = true;
            }
            break;
        default:
            if (parse_node(&p, &ev, name, errs, 0, &root) != 0)
                failed = true;
            break;
        }
        yaml_event_delete(&ev);
    }
    yaml_parser_delete(&p);
    if (failed) {
        ynode_free(root);
        return NULL;
    }
    if (!root)
        err_add(errs, name, 1, 1, ERR_ERROR, "empty document");
    return root;
}

static struct ynode *load(const char *path, struct err_list *errs);

struct ynode *
ynode_load(const char *path, struct err_list *errs)
{
    alloc_context_push("loading '%s'", path);
    struct ynode *root = load(path, errs);
    alloc_context_pop();
    return root;
}

static struct ynode *
load(const char *path, struct err_list *errs)
{
    char *buf;
    size_t len;
    int sys_err;
    int rc = rfile_read(path, RFILE_MAX_BYTES, &buf, &len, &sys_err);
    if (rc == RFILE_OPEN) {
        err_add(errs, path, 0, 0, ERR_ERROR, "cannot open file: %s", strerror(sys_err));
        return NULL;
    }
    if (rc != RFILE_OK) {
        err_add(errs, path, 0, 0, ERR_ERROR, "%s", rfile_strerror(rc, sys_err));
        return NULL;
    }
    struct ynode *root = ynode_parse(path, buf, len, errs);
    free(buf);
    return root;
}

void
ynode_free(struct ynode *n)
{
    if (!n)
        return;
    for (size_t i = 0; i < n->n; i++)
        ynode_free(n->items[i]);
    free(n->items);
    free(n); /* a scalar's value is in the same block */
}

const struct ynode *
ynode_get(const struct ynode *map, const char *key)
{
    if (!map || map->kind != YNODE_MAP)
        return NULL;
    for (size_t i = 0; i + 1 < map->n; i += 2)
        if (strcmp(map->items[i]->value, key) == 0)
            return map->items[i + 1];
    return NULL;
}

bool
ynode_is_null(const struct ynode *n)
{
    return n && n->kind == YNODE_SCALAR && n->plain &&
           (strcmp(n->value, "null") == 0 || strcmp(n->value, "~") == 0 || n->value[0] == '\0');
}

int
ynode_long(const struct ynode *n, long *out)
{
    if (!n || n->kind != YNODE_SCALAR || !n->plain)
        return -1;
    return str_to_long(n->value, out);
}

int
ynode_double(const struct ynode *n, double *out)
{
    if (!n || n->kind != YNODE_SCALAR || !n->plain)
        return -1;
    return str_to_double(n->value, out);
}

int
ynode_bool(const struct ynode *n, bool *out)
{
    if (!n || n->kind != YNODE_SCALAR || !n->plain)
        return -1;
    if (strcmp(n->value, "true") == 0 || strcmp(n->value, "True") == 0) {
        *out = true;
        return 0;
    }
    if (strcmp(n->value, "false") == 0 || strcmp(n->value, "False") == 0) {
        *out = false;
        return 0;
    }
    return -1;
}

const char *
ynode_kind_name(const struct ynode *n)
{
    if (!n)
        return "nothing";
    switch (n->kind) {
    case YNODE_SCALAR:
        return "a scalar";
    case YNODE_SEQ:
        return "a list";
    case YNODE_MAP:
        return "a mapping";
    }
    return "?";
}
