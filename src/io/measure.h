/* The measurement format (docs/calibration.md#the-measurement-format): a YAML list of rows, one
 * published measurement each. Strict: positioned errors, all in one pass. */
#ifndef ROOFLINE_IO_MEASURE_H
#define ROOFLINE_IO_MEASURE_H

#include "core/calib.h"
#include "util/err.h"

#include <stddef.h>

struct meas_row {
    char *id, *source, *hardware, *model, *engine, *note;
    char *op_name; /* kernel op (owned) */
    int line;
    double value;
    struct pred_case pc; /* pc.op points at op_name */
};

struct meas_set {
    char *path;
    struct meas_row *rows;
    int n;
};

/* Load `path`; NULL with every problem in `errs`. Caller frees with meas_set_free. */
struct meas_set *meas_load(const char *path, struct err_list *errs);
void meas_set_free(struct meas_set *s);
const char *pred_phase_name(enum pred_phase p);

/* Engine profiles: engine_profiles/<name>.yaml (docs/calibration.md). `like: NAME` takes the
 * kernel overhead, step overhead and efficiencies the file does not give from NAME.yaml in the
 * same directory (docs/calibration.md#engines-without-a-profile). */
struct engine_profile *engine_load(const char *path, struct err_list *errs);
/* The serving keys of a profile (admission, batch limits, reserve, KV share) as YAML lines in
 * `buf` (n bytes, always terminated), for a writer that rewrites the profile; returns the
 * length the text needs (snprintf's rule). engine_serving_key says whether a sources entry
 * belongs to them (their sources are facts to keep). */
size_t engine_serving_format(const struct engine_profile *e, char *buf, size_t n);
bool engine_serving_key(const char *key);
/* Every engine name, sorted: those with a profile, the NAME.yaml files of engine_profiles/ in the
 * data directory (the names scenarios, questions and --engine take: adding an engine is adding
 * its file), and with `with_generic` those a measurement may name that the generic kernel model
 * predicts (measure.c's GENERIC_ENGINES, one line each). The caller frees *names with
 * engine_names_free; returns the count (0 and NULL when none can be read). */
int engine_names(bool with_generic, char ***names);
void engine_names_free(char **names, int n);
/* names[0..n) as "a, b, c" in buf (size bytes, always terminated). */
void engine_names_join(char *const *names, int n, char *buf, size_t size);
/* The known engines in words for an error message: the profiled ones, then ", or one predicted
 * by the generic model: ..." (buf of size bytes, always terminated). */
void engine_names_text(char *buf, size_t size);
/* By name in the data directory ("llama.cpp", "vllm", ...), or the built-in "kernel". */
struct engine_profile *engine_find(const char *name, struct err_list *errs);
/* The same in `dir`/engine_profiles (NULL: the data directory). */
struct engine_profile *engine_find_in(const char *dir, const char *name, struct err_list *errs);
/* The generic kernel model for engine `name`, which has no profile: the geometric mean of the
 * profiled serving engines in `dir` (NULL = the data directory), marked `generic`; adds a warning
 * to errs. Caller frees with engine_profile_free. */
struct engine_profile *engine_generic(const char *dir, const char *name, struct err_list *errs);

#endif
