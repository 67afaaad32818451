/* Loading hardware and model profiles (strict, all problems in one pass) and finding them by id
 * in the data directory. docs/profiles.md describes both formats. */
#ifndef ROOFLINE_IO_PROFILES_H
#define ROOFLINE_IO_PROFILES_H

#include "core/hw.h"
#include "core/model.h"
#include "io/ytree.h"
#include "util/err.h"

/* Load a hardware profile from `path`. Returns a profile the caller frees with hw_free, or NULL
 * with every problem added to `errs`. Warnings may be added on success. */
struct hw_profile *hw_load(const char *path, struct err_list *errs);
/* The profile as the YAML that hw_load reads back (io/hw_save.c), appended to out; 0, or -1 when
 * out of memory. */
struct strbuf;
int hw_profile_text(const struct hw_profile *hw, struct strbuf *out);
struct hw_profile *hw_from_tree(const struct ynode *root, const char *path, const char *id,
                                struct err_list *errs);
/* Load a model profile (YAML) or a Hugging Face config.json. Caller frees with mdl_free. */
struct mdl_profile *mdl_load(const char *path, struct err_list *errs);
struct mdl_profile *mdl_from_tree(const struct ynode *root, const char *path, const char *id,
                                  bool lenient_unknown, struct err_list *errs);

/* hardware_profiles/, model_profiles/, engine_profiles/ */
enum prof_kind { PROF_HARDWARE, PROF_MODEL, PROF_ENGINE };

/* The directory holding hardware_profiles/, model_profiles/ and engine_profiles/: $ROOFLINE_DATA,
 * else the executable's directory or its parent, else the compiled-in data directory. Never NULL.
 */
const char *prof_data_dir(void);
void prof_set_data_dir(const char *dir);
/* Resolve an id or a path to a file path (malloc'd, caller frees). An argument containing '/'
 * or ending in .yaml/.yml/.json is a path. Unknown ids add an error with a did-you-mean hint. */
char *prof_resolve(enum prof_kind kind, const char *id_or_path, struct err_list *errs);
/* True when prof_resolve takes `s` as a path: it contains '/' or ends in .yaml, .yml or .json. */
bool prof_looks_like_path(const char *s);
/* Sorted list of ids in the data directory, the names of its NAME.yaml files (caller frees with
 * prof_list_free); returns count or -1 (and *ids NULL) when the directory cannot be read. */
int prof_list(enum prof_kind kind, char ***ids);
void prof_list_free(char **ids, int n);
/* Convenience: resolve and load. */
struct hw_profile *hw_find(const char *id_or_path, struct err_list *errs);
struct mdl_profile *mdl_find(const char *id_or_path, struct err_list *errs);

#endif
