/* A YAML (or JSON) document as a tree of nodes with 1-based source positions, read with libyaml.
 * Loaders validate against it so that every problem can point at a line and column. */
#ifndef ROOFLINE_IO_YTREE_H
#define ROOFLINE_IO_YTREE_H

#include "util/err.h"

#include <stdbool.h>
#include <stddef.h>

enum ynode_kind { YNODE_SCALAR, YNODE_SEQ, YNODE_MAP };

struct ynode {
    enum ynode_kind kind;
    char *value; /* scalars */
    bool plain;  /* unquoted scalar: may be a number, bool or null */
    int line, col;
    struct ynode **items; /* seq: items; map: key0, value0, key1, value1, ... */
    size_t n;             /* number of items (map: 2 x pairs) */
};

/* Parse the file at `path`. Returns the root (caller frees with ynode_free) or NULL with an
 * error added to `errs`. An empty document gives NULL with an error. */
struct ynode *ynode_load(const char *path, struct err_list *errs);
/* Same from memory; `name` is used in messages. */
struct ynode *ynode_parse(const char *name, const char *text, size_t len, struct err_list *errs);
void ynode_free(struct ynode *n);
/* Map lookup: the value node for `key`, or NULL. */
const struct ynode *ynode_get(const struct ynode *map, const char *key);
/* Scalar classification of plain scalars. */
bool ynode_is_null(const struct ynode *n);
/* Parse a plain scalar as an integer / number / bool; 0 on success. */
int ynode_long(const struct ynode *n, long *out);
int ynode_double(const struct ynode *n, double *out);
int ynode_bool(const struct ynode *n, bool *out);
const char *ynode_kind_name(const struct ynode *n);

#endif
