/* Validation helpers over a ytree: typed getters that add a positioned error to a list and keep
 * going, so that a loader reports every problem of a file in one pass. */
#ifndef ROOFLINE_IO_YCHECK_H
#define ROOFLINE_IO_YCHECK_H

#include "io/ytree.h"
#include "util/err.h"
#include "util/units.h"

#include <stdbool.h>

struct ycheck {
    const char *path;      /* file name for messages */
    struct err_list *errs; /* where problems go */
    /* dotted paths of every number read, for the sources check */
    char **numbers;
    int *number_line, *number_col;
    int n_numbers, cap_numbers;
    size_t errors_before; /* errors in `errs` at ycheck_init (see ycheck_clean) */
};

/* A documented physical range (docs/profiles.md#ranges) in SI base units: values outside
 * [min, max] are errors, values above warn_above (when > 0) warnings. `unit` is for messages
 * ("B/s", "FLOP/s", ""). */
struct yrange {
    double min, max, warn_above;
    const char *unit;
};

void ycheck_init(struct ycheck *y, const char *path, struct err_list *errs);
void ycheck_release(struct ycheck *y);
void ycheck_error(struct ycheck *y, const struct ynode *at, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 3, 4)))
#endif
    ;
void ycheck_warning(struct ycheck *y, const struct ynode *at, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 3, 4)))
#endif
    ;
/* `map` must be a mapping (else an error naming `what`); returns false if not. */
bool ycheck_map(struct ycheck *y, const struct ynode *map, const char *what);
/* Error for each key of `map` not in `allowed` (with a did-you-mean hint) and for duplicates.
 * `prefix` is the dotted path of the map ("" at the top). */
void ycheck_keys(struct ycheck *y, const struct ynode *map, const char *prefix,
                 const char *const *allowed, size_t n_allowed);
/* Error for each key of `map` given twice (linear time). Called by ycheck_keys. */
void ycheck_duplicates(struct ycheck *y, const struct ynode *map, const char *prefix);
/* Getters: return true when the key is present and valid. A missing required key is an error
 * at the map's position. `prefix` names the map in messages. Strings are borrowed from the tree. */
bool ycheck_str(struct ycheck *y, const struct ynode *map, const char *prefix, const char *key,
                bool required, const char **out);
bool ycheck_qty(struct ycheck *y, const struct ynode *map, const char *prefix, const char *key,
                enum unit_kind kind, bool required, double *out);
bool ycheck_long(struct ycheck *y, const struct ynode *map, const char *prefix, const char *key,
                 bool required, long min, long *out);
bool ycheck_num(struct ycheck *y, const struct ynode *map, const char *prefix, const char *key,
                bool required, double *out);
bool ycheck_bool(struct ycheck *y, const struct ynode *map, const char *prefix, const char *key,
                 bool *out);
/* Check a value already read from `map`.`key` against `r`: an error (false) outside the range,
 * a warning above r->warn_above. Messages quote the text as written. */
bool ycheck_range(struct ycheck *y, const struct ynode *map, const char *prefix, const char *key,
                  double value, const struct yrange *r);
/* Index of `value` in `allowed`, or -1 after an error at `at` naming `name` with a did-you-mean
 * hint, else the list of allowed values. */
int ycheck_enum(struct ycheck *y, const struct ynode *at, const char *name, const char *value,
                const char *const *allowed, size_t n);
/* The optional mapping `key` of `root` with its keys checked against `keys`: NULL when absent or
 * null, and after an error when it is not a mapping. */
const struct ynode *ycheck_section(struct ycheck *y, const struct ynode *root, const char *key,
                                   const char *const *keys, size_t n);
/* The optional number `prefix`.`key` in [lo, hi] (lo excluded when lo_open; hi may be INFINITY):
 * true and *out when present and in range, else false (an error when present). */
bool ycheck_num_in(struct ycheck *y, const struct ynode *map, const char *prefix, const char *key,
                   double lo, bool lo_open, double hi, double *out);
/* A mapping `v` named `name` with keys among `keys` whose required key `tag` names its kind
 * among `kinds` (as "dist: lognormal"): the kind's index, or -1 after an error. */
int ycheck_tagged(struct ycheck *y, const struct ynode *v, const char *name,
                  const char *const *keys, size_t n_keys, const char *tag, const char *const *kinds,
                  size_t n_kinds);
/* `prefix`.min and `prefix`.max of `map` read as lo and hi (hi 0: no max): false after an error
 * at 'max' when hi is below lo. */
bool ycheck_min_max(struct ycheck *y, const struct ynode *map, const char *prefix, long lo,
                    long hi);
/* True while no error has been added to the list since ycheck_init (always for a quiet list). */
bool ycheck_clean(const struct ycheck *y);
/* Record a number's dotted path (for the sources rule). */
void ycheck_note_number(struct ycheck *y, const char *dotted, const struct ynode *at);

#endif
