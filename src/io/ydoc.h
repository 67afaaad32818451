/* One YAML document to one object: the frame the file-format loaders share (hardware, model and
 * engine profiles, measurement files, scenarios, questions). It reads the file or the text into
 * a ytree, checks the shape of the root and the top-level keys, runs the format's fill with a
 * ycheck that collects every problem, and frees the object when an error was added. Profiles a
 * document names (an id, or a path relative to the document) resolve here too. */
#ifndef ROOFLINE_IO_YDOC_H
#define ROOFLINE_IO_YDOC_H

#include "io/profiles.h"
#include "io/ycheck.h"
#include "io/ytree.h"
#include "sim/sim.h"
#include "util/err.h"

#include <stddef.h>

struct ydoc_format {
    /* the document in messages: "a scenario" gives "a scenario must be a mapping of keys, not a
     * list" (root YNODE_MAP) or "... is a list of rows, not ..." (root YNODE_SEQ) */
    const char *what;
    enum ynode_kind root;
    const char *const *keys; /* a mapping's top-level keys (ycheck_keys); NULL: fill checks */
    size_t n_keys;
    size_t size; /* bytes of the object, allocated zeroed */
    /* Fill `obj` from `root` (of the right kind), adding every problem to `y`; `arg` is the
     * caller's (ydoc_load's). The object keeps what it has filled when an error is added. */
    void (*fill)(struct ycheck *y, const struct ynode *root, void *obj, const void *arg);
    void (*free)(void *obj); /* frees a zeroed or partly filled object */
};

/* Read the document at `path` and build its object. Returns the object (the caller frees it with
 * the format's free function) or NULL with every problem in `errs`; warnings may be added on
 * success. `errs` NULL is quiet: a document with problems may then load. */
void *ydoc_load(const struct ydoc_format *f, const char *path, const void *arg,
                struct err_list *errs);
/* Same from memory; `name` is used in messages and for relative paths. */
void *ydoc_parse(const struct ydoc_format *f, const char *name, const char *text, size_t len,
                 const void *arg, struct err_list *errs);
/* Same from a tree already read; `path` is used in messages and for relative paths. */
void *ydoc_from_tree(const struct ydoc_format *f, const struct ynode *root, const char *path,
                     const void *arg, struct err_list *errs);

/* A mapping document with no loader argument, in one line: the struct ydoc_format `format`
 * ("a scenario", the top-level keys `keys` (an array), `fill`), and the public pair
 * `type *load(path, errs)` and `type *parse(name, text, len, errs)` (ydoc_load, ydoc_parse) whose
 * objects `free_fn(type *)` frees. */
#define YDOC_MAP_FORMAT(format, type, what_, keys_, fill_, free_fn, load, parse)                   \
    static void format##_free(void *obj)                                                           \
    {                                                                                              \
        free_fn(obj);                                                                              \
    }                                                                                              \
    static const struct ydoc_format format = {.what = (what_),                                     \
                                              .root = YNODE_MAP,                                   \
                                              .keys = (keys_),                                     \
                                              .n_keys = sizeof(keys_) / sizeof((keys_)[0]),        \
                                              .size = sizeof(type),                                \
                                              .fill = (fill_),                                     \
                                              .free = format##_free};                              \
    type *load(const char *path, struct err_list *errs)                                            \
    {                                                                                              \
        return ydoc_load(&(format), path, NULL, errs);                                             \
    }                                                                                              \
    type *parse(const char *name, const char *text, size_t len, struct err_list *errs)             \
    {                                                                                              \
        return ydoc_parse(&(format), name, text, len, NULL, errs);                                 \
    }

/* How a document writes a token-length distribution (struct sim_dist): a whole number of tokens
 * (fixed), the word "trace" when trace_ok, or a mapping tagged by 'dist' among `kinds`. The texts
 * complete the messages: "missing required key 'prompt' in '<section>'<missing_hint>" and
 * "'<section>.prompt' must be a whole number of tokens >= 1<scalar_forms>, got '...'". */
struct ydoc_length_form {
    const char *section, *missing_hint, *scalar_forms;
    bool trace_ok;
    long max_tokens;                        /* a number above it is an error; 0: no limit */
    const char *const *kinds, *const *keys; /* the mapping's 'dist' values and keys */
    size_t n_kinds, n_keys;
};
struct ydoc_length {
    char name[32];           /* "lengths.prompt", for the caller's messages */
    const struct ynode *map; /* the mapping form, whose keys the caller reads */
};
/* Read the length `key` of `parent` as `f` says into d (zeroed first): 0 when a number or the word
 * "trace" said it all (d->kind, d->value), 1 with d->kind and out->map for the caller to read the
 * mapping's keys for that kind, -1 after an error. */
int ydoc_length(struct ycheck *y, const struct ynode *parent, const char *key,
                const struct ydoc_length_form *f, struct sim_dist *d, struct ydoc_length *out);

/* `rel` relative to the directory of the document at `doc_path` (absolute paths unchanged).
 * Caller frees; NULL when out of memory. */
char *ydoc_relative(const char *doc_path, const char *rel);
/* Resolve the profile id or path (relative to the document) that the scalar `v` names, with
 * prof_resolve; problems of the name are errors positioned at `v`. Returns the profile's path
 * (caller frees) or NULL. */
char *ydoc_profile(struct ycheck *y, const struct ynode *v, enum prof_kind kind);

#endif
