/* Finding profiles: the data directory and id -> path resolution with hints. */
#include "io/profiles.h"

#include "util/alloc.h"
#include "util/strs.h"

#include <dirent.h>
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#ifndef ROOFLINE_DATADIR
#define ROOFLINE_DATADIR "/usr/local/share/roofline"
#endif

static char data_dir[PATH_MAX + 64];

void
prof_set_data_dir(const char *dir)
{
    snprintf(data_dir, sizeof data_dir, "%s", dir);
}

static bool
has_profiles(const char *dir)
{
    char p[PATH_MAX + 128];
    struct stat st;
    snprintf(p, sizeof p, "%s/hardware_profiles", dir);
    return stat(p, &st) == 0 && S_ISDIR(st.st_mode);
}

const char *
prof_data_dir(void)
{
    if (data_dir[0])
        return data_dir;
    const char *env = getenv("ROOFLINE_DATA");
    if (env && *env) {
        prof_set_data_dir(env);
        return data_dir;
    }
    char exe[PATH_MAX];
    ssize_t n = readlink("/proc/self/exe", exe, sizeof exe - 1);
    if (n > 0) {
        exe[n] = '\0';
        for (int up = 0; up < 3; up++) {
            char *slash = strrchr(exe, '/');
            if (!slash)
                break;
            *slash = '\0';
            if (has_profiles(exe)) {
                prof_set_data_dir(exe);
                return data_dir;
            }
            /* an installed tree: PREFIX/bin/roofline and PREFIX/share/roofline */
            char share[PATH_MAX + 32];
            if (strlen(exe) + 16 >= sizeof share)
                continue;
            snprintf(share, sizeof share, "%s/share/roofline", exe);
            if (has_profiles(share)) {
                prof_set_data_dir(share);
                return data_dir;
            }
        }
    }
    prof_set_data_dir(ROOFLINE_DATADIR);
    return data_dir;
}

static const char *
subdir(enum prof_kind kind)
{
    return kind == PROF_HARDWARE ? "hardware_profiles"
           : kind == PROF_MODEL  ? "model_profiles"
                                 : "engine_profiles";
}

static int
cmp_str(const void *a, const void *b)
{
    return strcmp(*(char *const *)a, *(char *const *)b);
}

int
prof_list(enum prof_kind kind, char ***out)
{
    char dir[PATH_MAX + 32];
    snprintf(dir, sizeof dir, "%s/%s", prof_data_dir(), subdir(kind));
    *out = NULL;
    DIR *d = opendir(dir);
    if (!d)
        return -1;
    char **ids = NULL;
    int n = 0;
    struct dirent *e;
    while ((e = readdir(d))) {
        size_t l = strlen(e->d_name);
        if (l < 6 || strcmp(e->d_name + l - 5, ".yaml") != 0 || e->d_name[0] == '.')
            continue;
        char **ni = realloc(ids, (size_t)(n + 1) * sizeof *ni);
        if (!ni) {
            alloc_note_failure(); /* a shorter list must not pass for the whole one */
            break;
        }
        ids = ni;
        ids[n] = str_dup(e->d_name);
        if (ids[n]) {
            ids[n][l - 5] = '\0';
            n++;
        }
    }
    closedir(d);
    if (n > 1)
        qsort(ids, (size_t)n, sizeof *ids, cmp_str);
    *out = ids;
    return n;
}

void
prof_list_free(char **ids, int n)
{
    for (int i = 0; i < n; i++)
        free(ids[i]);
    free(ids);
}

bool
prof_looks_like_path(const char *s)
{
    size_t l = strlen(s);
    return strchr(s, '/') || (l > 5 && strcmp(s + l - 5, ".yaml") == 0) ||
           (l > 4 && strcmp(s + l - 4, ".yml") == 0) || (l > 5 && strcmp(s + l - 5, ".json") == 0);
}

char *
prof_resolve(enum prof_kind kind, const char *arg, struct err_list *errs)
{
    const char *what = kind == PROF_HARDWARE ? "gpu" : kind == PROF_MODEL ? "model" : "engine";
    if (!arg || !*arg) {
        err_add(errs, NULL, 0, 0, ERR_ERROR, "empty %s name", what);
        return NULL;
    }
    struct stat st;
    if (prof_looks_like_path(arg)) {
        if (stat(arg, &st) != 0) {
            err_add(errs, arg, 0, 0, ERR_ERROR, "no such %s profile file (%s)", what,
                    strerror(errno));
            return NULL;
        }
        if (!S_ISREG(st.st_mode)) {
            err_add(errs, arg, 0, 0, ERR_ERROR, "%s profile is not a regular file", what);
            return NULL;
        }
        return str_dup(arg);
    }
    char p[PATH_MAX + 64];
    if (strlen(arg) > 200) {
        err_add(errs, NULL, 0, 0, ERR_ERROR, "%s name too long", what);
        return NULL;
    }
    snprintf(p, sizeof p, "%s/%s/%s.yaml", prof_data_dir(), subdir(kind), arg);
    if (stat(p, &st) == 0)
        return str_dup(p);
    if (kind == PROF_HARDWARE && strcmp(arg, "host") == 0) {
        /* this machine's profile is measured, not shipped */
        err_add(errs, NULL, 0, 0, ERR_ERROR,
                "no profile of this machine yet: 'roofline bench --write-profile %s' measures it "
                "and writes one",
                p);
        return NULL;
    }
    char **ids;
    int n = prof_list(kind, &ids);
    /* ids that start with the argument ("h100" -> "h100-nvl", "h100-pcie", "h100-sxm") are
     * better hints than the nearest by edit distance */
    const char *pre[3];
    int n_pre = 0, more = 0;
    for (int i = 0; i < n; i++)
        if (strncmp(ids[i], arg, strlen(arg)) == 0) {
            if (n_pre < 3)
                pre[n_pre++] = ids[i];
            else
                more = 1;
        }
    const char *hint = n > 0 ? str_closest(arg, (const char *const *)ids, (size_t)n) : NULL;
    if (n_pre == 1 || (n_pre > 1 && !more && n_pre == 2))
        err_add(errs, NULL, 0, 0, ERR_ERROR, "unknown %s '%s' (did you mean '%s'%s%s%s?)", what,
                arg, pre[0], n_pre > 1 ? " or '" : "", n_pre > 1 ? pre[1] : "",
                n_pre > 1 ? "'" : "");
    else if (n_pre == 3 && !more)
        err_add(errs, NULL, 0, 0, ERR_ERROR, "unknown %s '%s' (did you mean '%s', '%s' or '%s'?)",
                what, arg, pre[0], pre[1], pre[2]);
    else if (hint)
        err_add(errs, NULL, 0, 0, ERR_ERROR, "unknown %s '%s' (did you mean '%s'?)", what, arg,
                hint);
    else
        err_add(errs, NULL, 0, 0, ERR_ERROR, "unknown %s '%s' (see 'roofline list %ss')", what, arg,
                what);
    if (n > 0)
        prof_list_free(ids, n);
    return NULL;
}

struct hw_profile *
hw_find(const char *arg, struct err_list *errs)
{
    char *p = prof_resolve(PROF_HARDWARE, arg, errs);
    if (!p)
        return NULL;
    struct hw_profile *hw = hw_load(p, errs);
    free(p);
    return hw;
}

struct mdl_profile *
mdl_find(const char *arg, struct err_list *errs)
{
    char *p = prof_resolve(PROF_MODEL, arg, errs);
    if (!p)
        return NULL;
    struct mdl_profile *m = mdl_load(p, errs);
    free(p);
    return m;
}
