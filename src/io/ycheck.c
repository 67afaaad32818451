/* Positioned, collect-all validation over a ytree (see ycheck.h). */
#include "io/ycheck.h"

#include "util/strs.h"
#include "util/strset.h"

#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

void
ycheck_init(struct ycheck *y, const char *path, struct err_list *errs)
{
    memset(y, 0, sizeof *y);
    y->path = path;
    y->errs = errs;
    y->errors_before = err_count(errs, ERR_ERROR);
}

bool
ycheck_clean(const struct ycheck *y)
{
    return err_count(y->errs, ERR_ERROR) == y->errors_before;
}

void
ycheck_release(struct ycheck *y)
{
    for (int i = 0; i < y->n_numbers; i++)
        free(y->numbers[i]);
    free(y->numbers);
    free(y->number_line);
    free(y->number_col);
    y->numbers = NULL;
    y->number_line = y->number_col = NULL;
    y->n_numbers = y->cap_numbers = 0;
}

static void
vreport(struct ycheck *y, const struct ynode *at, enum err_severity sev, const char *fmt,
        va_list ap)
{
    char buf[900];
    vsnprintf(buf, sizeof buf, fmt, ap);
    err_add(y->errs, y->path, at ? at->line : 0, at ? at->col : 0, sev, "%s", buf);
}

void
ycheck_error(struct ycheck *y, const struct ynode *at, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vreport(y, at, ERR_ERROR, fmt, ap);
    va_end(ap);
}

void
ycheck_warning(struct ycheck *y, const struct ynode *at, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vreport(y, at, ERR_WARNING, fmt, ap);
    va_end(ap);
}

static void
dotted(char *buf, size_t size, const char *prefix, const char *key)
{
    if (prefix && *prefix)
        snprintf(buf, size, "%s.%s", prefix, key);
    else
        snprintf(buf, size, "%s", key);
}

bool
ycheck_map(struct ycheck *y, const struct ynode *map, const char *what)
{
    if (map && map->kind == YNODE_MAP)
        return true;
    ycheck_error(y, map, "'%s' must be a mapping, not %s", what, ynode_kind_name(map));
    return false;
}

void
ycheck_duplicates(struct ycheck *y, const struct ynode *map, const char *prefix)
{
    /* a hash set: comparing every pair took 17 s for 80,000 keys */
    struct strset seen;
    strset_init(&seen);
    for (size_t i = 0; i + 1 < map->n; i += 2) {
        const struct ynode *k = map->items[i];
        int first = 0;
        int rc = strset_add(&seen, k->value, k->line, &first);
        if (rc < 0) {
            ycheck_error(y, k, "out of memory (while checking for duplicate keys)");
            break;
        }
        if (rc == 0) {
            char name[256];
            dotted(name, sizeof name, prefix, k->value);
            ycheck_error(y, k, "duplicate key '%s' (first at line %d)", name, first);
        }
    }
    strset_release(&seen);
}

void
ycheck_keys(struct ycheck *y, const struct ynode *map, const char *prefix,
            const char *const *allowed, size_t n_allowed)
{
    ycheck_duplicates(y, map, prefix);
    for (size_t i = 0; i + 1 < map->n; i += 2) {
        const struct ynode *k = map->items[i];
        bool ok = false;
        for (size_t j = 0; j < n_allowed && !ok; j++)
            ok = strcmp(k->value, allowed[j]) == 0;
        if (ok)
            continue;
        char name[256];
        dotted(name, sizeof name, prefix, k->value);
        const char *hint = str_closest(k->value, allowed, n_allowed);
        if (hint)
            ycheck_error(y, k, "unknown key '%s' (did you mean '%s'?)", name, hint);
        else
            ycheck_error(y, k, "unknown key '%s'", name);
    }
}

int
ycheck_enum(struct ycheck *y, const struct ynode *at, const char *name, const char *value,
            const char *const *allowed, size_t n)
{
    for (size_t i = 0; i < n; i++)
        if (strcmp(value, allowed[i]) == 0)
            return (int)i;
    const char *hint = str_closest(value, allowed, n);
    char list[256] = "";
    for (size_t i = 0; i < n; i++) {
        strncat(list, allowed[i], sizeof list - strlen(list) - 1);
        if (i + 1 < n)
            strncat(list, ", ", sizeof list - strlen(list) - 1);
    }
    if (hint)
        ycheck_error(y, at, "'%s' is '%s' (did you mean '%s'?)", name, value, hint);
    else
        ycheck_error(y, at, "'%s' is '%s'; expected one of: %s", name, value, list);
    return -1;
}

const struct ynode *
ycheck_section(struct ycheck *y, const struct ynode *root, const char *key, const char *const *keys,
               size_t n)
{
    const struct ynode *v = ynode_get(root, key);
    if (!v || ynode_is_null(v))
        return NULL;
    if (!ycheck_map(y, v, key))
        return NULL;
    ycheck_keys(y, v, key, keys, n);
    return v;
}

int
ycheck_tagged(struct ycheck *y, const struct ynode *v, const char *name, const char *const *keys,
              size_t n_keys, const char *tag, const char *const *kinds, size_t n_kinds)
{
    if (!ycheck_map(y, v, name))
        return -1;
    ycheck_keys(y, v, name, keys, n_keys);
    const char *s;
    if (!ycheck_str(y, v, name, tag, true, &s))
        return -1;
    char full[256];
    dotted(full, sizeof full, name, tag);
    return ycheck_enum(y, ynode_get(v, tag), full, s, kinds, n_kinds);
}

bool
ycheck_min_max(struct ycheck *y, const struct ynode *map, const char *prefix, long lo, long hi)
{
    if (hi > 0 && hi < lo) {
        ycheck_error(y, ynode_get(map, "max"), "'%s.max' (%ld) is below '%s.min' (%ld)", prefix, hi,
                     prefix, lo);
        return false;
    }
    return true;
}

static const struct ynode *
lookup(struct ycheck *y, const struct ynode *map, const char *prefix, const char *key,
       bool required)
{
    const struct ynode *v = ynode_get(map, key);
    if (v && !ynode_is_null(v))
        return v;
    if (required) {
        char name[256];
        dotted(name, sizeof name, prefix, key);
        if (v)
            ycheck_error(y, v, "'%s' is required but empty", name);
        else if (prefix && *prefix)
            ycheck_error(y, map, "missing required key '%s' in '%s'", key, prefix);
        else
            ycheck_error(y, map, "missing required key '%s'", key);
    }
    return NULL;
}

bool
ycheck_str(struct ycheck *y, const struct ynode *map, const char *prefix, const char *key,
           bool required, const char **out)
{
    const struct ynode *v = lookup(y, map, prefix, key, required);
    if (!v)
        return false;
    if (v->kind != YNODE_SCALAR) {
        char name[256];
        dotted(name, sizeof name, prefix, key);
        ycheck_error(y, v, "'%s' must be text, not %s", name, ynode_kind_name(v));
        return false;
    }
    *out = v->value;
    return true;
}

bool
ycheck_qty(struct ycheck *y, const struct ynode *map, const char *prefix, const char *key,
           enum unit_kind kind, bool required, double *out)
{
    const struct ynode *v = lookup(y, map, prefix, key, required);
    if (!v)
        return false;
    char name[256];
    dotted(name, sizeof name, prefix, key);
    if (v->kind != YNODE_SCALAR) {
        ycheck_error(y, v, "'%s' must be %s, not %s", name, unit_example(kind), ynode_kind_name(v));
        return false;
    }
    const char *why;
    double x;
    if (unit_parse(v->value, kind, &x, &why) != 0) {
        ycheck_error(y, v, "'%s': cannot read '%s' as %s (%s)", name, v->value, unit_example(kind),
                     why);
        return false;
    }
    ycheck_note_number(y, name, v);
    if (!(x > 0)) {
        ycheck_error(y, v, "'%s' must be positive, got '%s'", name, v->value);
        return false;
    }
    *out = x;
    return true;
}

bool
ycheck_long(struct ycheck *y, const struct ynode *map, const char *prefix, const char *key,
            bool required, long min, long *out)
{
    const struct ynode *v = lookup(y, map, prefix, key, required);
    if (!v)
        return false;
    char name[256];
    dotted(name, sizeof name, prefix, key);
    long x;
    if (v->kind == YNODE_SCALAR && !v->plain && str_to_long(v->value, &x) == 0) {
        ycheck_error(y, v, "'%s' must be a whole number, not the text \"%s\" (remove the quotes)",
                     name, v->value);
        return false;
    }
    if (ynode_long(v, &x) != 0) {
        ycheck_error(y, v, "'%s' must be a whole number, got %s%s%s", name,
                     v->kind == YNODE_SCALAR ? "'" : "",
                     v->kind == YNODE_SCALAR ? v->value : ynode_kind_name(v),
                     v->kind == YNODE_SCALAR ? "'" : "");
        return false;
    }
    ycheck_note_number(y, name, v);
    if (x < min) {
        ycheck_error(y, v, "'%s' must be at least %ld, got %ld", name, min, x);
        return false;
    }
    *out = x;
    return true;
}

bool
ycheck_num(struct ycheck *y, const struct ynode *map, const char *prefix, const char *key,
           bool required, double *out)
{
    const struct ynode *v = lookup(y, map, prefix, key, required);
    if (!v)
        return false;
    char name[256];
    dotted(name, sizeof name, prefix, key);
    double x;
    if (v->kind == YNODE_SCALAR && !v->plain && str_to_double(v->value, &x) == 0) {
        ycheck_error(y, v, "'%s' must be a number, not the text \"%s\" (remove the quotes)", name,
                     v->value);
        return false;
    }
    if (ynode_double(v, &x) != 0) {
        ycheck_error(y, v, "'%s' must be a number, got %s%s%s", name,
                     v->kind == YNODE_SCALAR ? "'" : "",
                     v->kind == YNODE_SCALAR ? v->value : ynode_kind_name(v),
                     v->kind == YNODE_SCALAR ? "'" : "");
        return false;
    }
    ycheck_note_number(y, name, v);
    *out = x;
    return true;
}

bool
ycheck_bool(struct ycheck *y, const struct ynode *map, const char *prefix, const char *key,
            bool *out)
{
    const struct ynode *v = lookup(y, map, prefix, key, false);
    if (!v)
        return false;
    if (ynode_bool(v, out) != 0) {
        char name[256];
        dotted(name, sizeof name, prefix, key);
        ycheck_error(y, v, "'%s' must be true or false", name);
        return false;
    }
    return true;
}

bool
ycheck_num_in(struct ycheck *y, const struct ynode *map, const char *prefix, const char *key,
              double lo, bool lo_open, double hi, double *out)
{
    double x;
    if (!ycheck_num(y, map, prefix, key, false, &x))
        return false;
    if ((lo_open ? !(x > lo) : !(x >= lo)) || !(x <= hi)) {
        if (isinf(hi))
            ycheck_error(y, ynode_get(map, key), "'%s.%s' must be %s %g, got %g", prefix, key,
                         lo_open ? "greater than" : "at least", lo, x);
        else
            ycheck_error(y, ynode_get(map, key), "'%s.%s' must be in %s%g, %g], got %g", prefix,
                         key, lo_open ? "(" : "[", lo, hi, x);
        return false;
    }
    *out = x;
    return true;
}

void
ycheck_note_number(struct ycheck *y, const char *name, const struct ynode *at)
{
    int n = y->n_numbers + 1;
    if (n > y->cap_numbers) {
        /* geometric: one realloc per number made 80,000-row files quadratic */
        int cap = y->cap_numbers ? y->cap_numbers * 2 : 16;
        char **nums = realloc(y->numbers, (size_t)cap * sizeof *nums);
        if (!nums)
            return;
        y->numbers = nums;
        int *ln = realloc(y->number_line, (size_t)cap * sizeof *ln);
        if (!ln)
            return;
        y->number_line = ln;
        int *cl = realloc(y->number_col, (size_t)cap * sizeof *cl);
        if (!cl)
            return;
        y->number_col = cl;
        y->cap_numbers = cap;
    }
    y->numbers[n - 1] = str_dup(name);
    if (!y->numbers[n - 1])
        return;
    y->number_line[n - 1] = at ? at->line : 0;
    y->number_col[n - 1] = at ? at->col : 0;
    y->n_numbers = n;
}

bool
ycheck_range(struct ycheck *y, const struct ynode *map, const char *prefix, const char *key,
             double value, const struct yrange *r)
{
    const struct ynode *at = ynode_get(map, key);
    char name[256], lo[64], hi[64];
    dotted(name, sizeof name, prefix, key);
    unit_format_short(r->min, r->unit, 3, lo, sizeof lo);
    unit_format_short(r->max, r->unit, 3, hi, sizeof hi);
    if (!(value >= r->min && value <= r->max)) {
        ycheck_error(y, at, "'%s' is '%s', outside the physical range %s to %s", name,
                     at && at->kind == YNODE_SCALAR ? at->value : "?", lo, hi);
        return false;
    }
    if (r->warn_above > 0 && value > r->warn_above) {
        char w[64];
        unit_format_short(r->warn_above, r->unit, 3, w, sizeof w);
        ycheck_warning(y, at, "'%s' is '%s', above %s: check the unit", name,
                       at && at->kind == YNODE_SCALAR ? at->value : "?", w);
    }
    return true;
}
