/* The shared frame of the document loaders (see ydoc.h). */
#include "io/ydoc.h"

#include "util/alloc.h"
#include "util/strs.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static void *from_tree(const struct ydoc_format *f, const struct ynode *root, const char *path,
                       const void *arg, struct err_list *errs);

void *
ydoc_from_tree(const struct ydoc_format *f, const struct ynode *root, const char *path,
               const void *arg, struct err_list *errs)
{
    alloc_context_push("loading '%s'", path);
    void *obj = from_tree(f, root, path, arg, errs);
    alloc_context_pop();
    return obj;
}

static void *
from_tree(const struct ydoc_format *f, const struct ynode *root, const char *path, const void *arg,
          struct err_list *errs)
{
    struct ycheck y;
    ycheck_init(&y, path, errs);
    void *obj = calloc(1, f->size);
    if (!obj) {
        err_add(errs, path, 0, 0, ERR_ERROR, "out of memory");
        return NULL;
    }
    bool ok = root->kind == f->root;
    if (!ok) {
        ycheck_error(&y, root,
                     f->root == YNODE_SEQ ? "%s is a list of rows, not %s"
                                          : "%s must be a mapping of keys, not %s",
                     f->what, ynode_kind_name(root));
    } else {
        if (f->keys)
            ycheck_keys(&y, root, "", f->keys, f->n_keys);
        unsigned long failures = alloc_failures();
        f->fill(&y, root, obj, arg);
        /* a copy the fill function did not check (a NULL id, hardware name...) fails the load */
        bool oom = alloc_failures() != failures;
        if (oom && ycheck_clean(&y))
            ycheck_error(&y, root, "out of memory");
        ok = ycheck_clean(&y) && !oom;
    }
    ycheck_release(&y);
    if (!ok) {
        f->free(obj);
        return NULL;
    }
    return obj;
}

void *
ydoc_load(const struct ydoc_format *f, const char *path, const void *arg, struct err_list *errs)
{
    struct ynode *root = ynode_load(path, errs);
    if (!root)
        return NULL;
    void *obj = ydoc_from_tree(f, root, path, arg, errs);
    ynode_free(root);
    return obj;
}

void *
ydoc_parse(const struct ydoc_format *f, const char *name, const char *text, size_t len,
           const void *arg, struct err_list *errs)
{
    struct ynode *root = ynode_parse(name, text, len, errs);
    if (!root)
        return NULL;
    void *obj = ydoc_from_tree(f, root, name, arg, errs);
    ynode_free(root);
    return obj;
}

char *
ydoc_relative(const char *doc_path, const char *rel)
{
    if (rel[0] == '/')
        return str_dup(rel);
    const char *slash = strrchr(doc_path, '/');
    if (!slash)
        return str_dup(rel);
    size_t dl = (size_t)(slash - doc_path) + 1, rl = strlen(rel);
    char *p = malloc(dl + rl + 1);
    if (!p)
        return NULL;
    memcpy(p, doc_path, dl);
    memcpy(p + dl, rel, rl + 1);
    return p;
}

char *
ydoc_profile(struct ycheck *y, const struct ynode *v, enum prof_kind kind)
{
    char *arg =
        prof_looks_like_path(v->value) ? ydoc_relative(y->path, v->value) : str_dup(v->value);
    if (!arg) {
        ycheck_error(y, v, "out of memory (while resolving the profile)");
        return NULL;
    }
    struct err_list tmp = {0};
    char *p = prof_resolve(kind, arg, &tmp);
    if (!p && tmp.n == 0) /* prof_resolve's own copy failed */
        ycheck_error(y, v, "out of memory (while resolving the profile)");
    if (!p)
        for (size_t i = 0; i < tmp.n; i++) {
            if (tmp.items[i].path)
                ycheck_error(y, v, "%s '%s'", tmp.items[i].msg, tmp.items[i].path);
            else
                ycheck_error(y, v, "%s", tmp.items[i].msg);
        }
    err_list_release(&tmp);
    free(arg);
    return p;
}

int
ydoc_length(struct ycheck *y, const struct ynode *parent, const char *key,
            const struct ydoc_length_form *f, struct sim_dist *d, struct ydoc_length *out)
{
    snprintf(out->name, sizeof out->name, "%s.%s", f->section, key);
    out->map = NULL;
    const struct ynode *v = ynode_get(parent, key);
    memset(d, 0, sizeof *d);
    if (!v || ynode_is_null(v)) {
        ycheck_error(y, parent, "missing required key '%s' in '%s'%s", key, f->section,
                     f->missing_hint);
        return -1;
    }
    if (v->kind == YNODE_SCALAR) {
        long x;
        if (f->trace_ok && strcmp(v->value, "trace") == 0) {
            d->kind = SIM_DIST_TRACE;
            return 0;
        }
        if (ynode_long(v, &x) != 0 || x < 1) {
            ycheck_error(y, v, "'%s' must be a whole number of tokens >= 1%s, got '%s'", out->name,
                         f->scalar_forms, v->value);
            return -1;
        }
        if (f->max_tokens > 0 && x > f->max_tokens) {
            ycheck_error(y, v, "'%s' must be at most %ld tokens, got '%s'", out->name,
                         f->max_tokens, v->value);
            return -1;
        }
        d->kind = SIM_DIST_FIXED;
        d->value = (double)x;
        return 0;
    }
    int k = ycheck_tagged(y, v, out->name, f->keys, f->n_keys, "dist", f->kinds, f->n_kinds);
    if (k < 0)
        return -1;
    d->kind = (enum sim_dist_kind)k;
    out->map = v;
    return 1;
}
