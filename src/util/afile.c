/* Atomic file writing through a unique temporary name beside the target (see afile.h). */
#include "util/afile.h"

#include "util/strs.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

/* Temporary names differ by process and by a per-process counter; O_EXCL settles any race. */
static unsigned long tmp_counter;

void (*afile_publish_all_hook)(void);

/* the temporaries open now, for the signal handler (a slot holds a pointer or NULL) */
#define LIVE_MAX 64
static char *volatile live[LIVE_MAX];

static void
on_signal(int sig)
{
    for (int i = 0; i < LIVE_MAX; i++)
        if (live[i])
            unlink(live[i]);
    signal(sig, SIG_DFL);
    raise(sig);
}

/* at every afile_open, where the signal's action is the default (a program's own handler, or an
 * ignored signal, stays): three sigaction calls, beside afile_open's directory scan */
static void
set_handlers(void)
{
    static const int SIGS[] = {SIGINT, SIGTERM, SIGHUP};
    for (size_t i = 0; i < sizeof SIGS / sizeof SIGS[0]; i++) {
        struct sigaction old, sa;
        memset(&sa, 0, sizeof sa);
        sa.sa_handler = on_signal;
        sigemptyset(&sa.sa_mask);
        if (sigaction(SIGS[i], NULL, &old) == 0 && old.sa_handler == SIG_DFL)
            sigaction(SIGS[i], &sa, NULL);
    }
}

static void
live_set(char *tmp, bool on)
{
    for (int i = 0; i < LIVE_MAX; i++) {
        if (on && !live[i]) {
            live[i] = tmp;
            return;
        }
        if (!on && live[i] == tmp) {
            live[i] = NULL;
            return;
        }
    }
}

/* remove `path`.tmp<PID>.<N> beside `path` whose process no longer exists */
static void
remove_stale(const char *path)
{
    const char *slash = strrchr(path, '/');
    const char *base = slash ? slash + 1 : path;
    size_t nb = strlen(base);
    size_t nd = slash ? (size_t)(slash - path) + 1 : 1;
    char *dir = malloc(nd + 1);
    if (!dir)
        return;
    memcpy(dir, slash ? path : ".", nd);
    dir[nd] = '\0';
    DIR *d = opendir(dir);
    struct dirent *e;
    while (d && (e = readdir(d)) != NULL) {
        const char *n = e->d_name;
        if (strncmp(n, base, nb) != 0 || strncmp(n + nb, ".tmp", 4) != 0)
            continue;
        char *end;
        errno = 0;
        long pid = strtol(n + nb + 4, &end, 10);
        if (errno || pid <= 0 || end == n + nb + 4 || *end != '.' || pid == (long)getpid())
            continue;
        const char *q = end + 1;
        if (!*q || strspn(q, "0123456789") != strlen(q))
            continue;
        if (kill((pid_t)pid, 0) == 0 || errno != ESRCH)
            continue;
        size_t l = strlen(dir) + strlen(n) + 2;
        char *full = malloc(l);
        if (full) {
            snprintf(full, l, "%s%s%s", dir, slash ? "" : "/", n);
            unlink(full);
            free(full);
        }
    }
    if (d)
        closedir(d);
    free(dir);
}

static void
release(struct afile *af)
{
    if (af->tmp)
        live_set(af->tmp, false);
    free(af->path);
    free(af->tmp);
    af->path = af->tmp = NULL;
    af->fp = NULL;
}

int
afile_open(struct afile *af, const char *path, struct err_list *errs)
{
    memset(af, 0, sizeof *af);
    struct stat st;
    /* a device, FIFO or symlink (/dev/stdout) is written through, never replaced by a rename */
    if (lstat(path, &st) == 0 && !S_ISREG(st.st_mode)) {
        af->fp = fopen(path, "wb");
        if (!af->fp) {
            err_add(errs, path, 0, 0, ERR_ERROR, "cannot write '%s': %s", path, strerror(errno));
            return -1;
        }
        af->path = str_dup(path);
        if (!af->path) {
            fclose(af->fp);
            af->fp = NULL;
            err_add(errs, path, 0, 0, ERR_ERROR, "out of memory");
            return -1;
        }
        return 0;
    }
    size_t n = strlen(path) + 48;
    af->path = str_dup(path);
    af->tmp = malloc(n);
    if (!af->path || !af->tmp) {
        release(af);
        err_add(errs, path, 0, 0, ERR_ERROR, "out of memory");
        return -1;
    }
    set_handlers();
    remove_stale(path);
    int fd = -1;
    for (int attempt = 0; attempt < 100 && fd < 0; attempt++) {
        snprintf(af->tmp, n, "%s.tmp%ld.%lu", path, (long)getpid(), tmp_counter++);
        /* known to the signal handler before the file exists: registered after open(), a
         * signal that came in between (a process preempted there, seen under load) left the
         * temporary behind; a name that turns out to be taken is only ever a stale temporary
         * of an earlier process with this PID */
        live_set(af->tmp, true);
        fd = open(af->tmp, O_WRONLY | O_CREAT | O_EXCL, 0666);
        if (fd < 0) {
            int e = errno;
            live_set(af->tmp, false);
            if (e != EEXIST)
                break;
        }
    }
    if (fd >= 0)
        af->fp = fdopen(fd, "wb");
    if (!af->fp) {
        err_add(errs, path, 0, 0, ERR_ERROR, "cannot create '%s': %s", af->tmp, strerror(errno));
        if (fd >= 0) {
            close(fd);
            unlink(af->tmp);
        }
        release(af);
        return -1;
    }
    return 0;
}

int
afile_finish(struct afile *af, struct err_list *errs)
{
    if (!af->fp)
        return -1;
    const char *shown = af->tmp ? af->tmp : af->path;
    int rc = 0;
    if (fflush(af->fp) != 0 || ferror(af->fp)) {
        err_add(errs, af->path, 0, 0, ERR_ERROR, "cannot write '%s': %s", shown,
                strerror(errno ? errno : EIO));
        rc = -1;
    }
    /* fsync before the rename, so a crash leaves the old file or the new one, never an empty one */
    if (rc == 0 && af->tmp && fsync(fileno(af->fp)) != 0 && errno != EINVAL) {
        err_add(errs, af->path, 0, 0, ERR_ERROR, "cannot write '%s': %s", shown, strerror(errno));
        rc = -1;
    }
    if (fclose(af->fp) != 0 && rc == 0) {
        err_add(errs, af->path, 0, 0, ERR_ERROR, "cannot write '%s': %s", shown, strerror(errno));
        rc = -1;
    }
    af->fp = NULL;
    if (rc != 0) {
        if (af->tmp)
            unlink(af->tmp);
        release(af);
    }
    return rc;
}

int
afile_publish(struct afile *af, struct err_list *errs)
{
    if (!af->path)
        return -1;
    int rc = 0;
    if (af->tmp && rename(af->tmp, af->path) != 0) {
        err_add(errs, af->path, 0, 0, ERR_ERROR, "cannot rename '%s' into place: %s", af->tmp,
                strerror(errno));
        unlink(af->tmp);
        rc = -1;
    }
    release(af);
    return rc;
}

int
afile_publish_all(struct afile *af, int n, struct err_list *errs)
{
    /* hard links keep each old target until every rename has succeeded */
    char **old = calloc(n > 0 ? (size_t)n : 1, sizeof *old);
    char **path = calloc(n > 0 ? (size_t)n : 1, sizeof *path);
    int rc = old && path ? 0 : -1;
    if (rc != 0)
        err_add(errs, n > 0 ? af[0].path : NULL, 0, 0, ERR_ERROR,
                "out of memory (while writing the files)");
    for (int i = 0; i < n && rc == 0; i++) {
        struct stat st;
        if (!af[i].tmp) /* written through (a device): nothing to rename or restore */
            continue;
        size_t len = strlen(af[i].path) + 48;
        path[i] = str_dup(af[i].path);
        old[i] = malloc(len);
        if (!path[i] || !old[i]) {
            err_add(errs, af[i].path, 0, 0, ERR_ERROR, "out of memory (while writing the files)");
            rc = -1;
            break;
        }
        if (lstat(af[i].path, &st) != 0) { /* a new file: removed on rollback */
            free(old[i]);
            old[i] = NULL;
            continue;
        }
        int e = EEXIST;
        for (int attempt = 0; attempt < 100 && e == EEXIST; attempt++) {
            snprintf(old[i], len, "%s.tmp%ld.%lu", af[i].path, (long)getpid(), tmp_counter++);
            /* known to the signal handler before the link exists, as afile_open's temporaries:
             * an interrupted publish leaves no old copy behind */
            live_set(old[i], true);
            e = link(af[i].path, old[i]) == 0 ? 0 : errno;
            if (e != 0)
                live_set(old[i], false);
        }
        if (e != 0) {
            err_add(errs, af[i].path, 0, 0, ERR_ERROR, "cannot keep the old '%s' as '%s': %s",
                    af[i].path, old[i], strerror(e));
            free(old[i]);
            old[i] = NULL;
            rc = -1;
        }
    }
    if (rc == 0 && afile_publish_all_hook)
        afile_publish_all_hook();
    int done = 0;
    while (rc == 0 && done < n)
        if (afile_publish(&af[done++], errs) != 0)
            rc = -1;
    for (int i = done; i < n; i++)
        afile_rollback(&af[i]);
    for (int i = 0; i < n && path; i++) {
        if (rc != 0 && path[i] && i < done - 1) { /* published: put the old file back */
            if (old[i] ? rename(old[i], path[i]) != 0 : unlink(path[i]) != 0)
                err_add(errs, path[i], 0, 0, ERR_ERROR, "cannot restore the old '%s': %s", path[i],
                        strerror(errno));
        }
        if (old && old[i]) {
            unlink(old[i]);
            live_set(old[i], false);
            free(old[i]);
        }
        free(path[i]);
    }
    free(old);
    free(path);
    return rc;
}

int
afile_commit(struct afile *af, struct err_list *errs)
{
    if (afile_finish(af, errs) != 0)
        return -1;
    return afile_publish(af, errs);
}

void
afile_rollback(struct afile *af)
{
    if (af->fp)
        fclose(af->fp);
    if (af->tmp)
        unlink(af->tmp);
    release(af);
}

int
afile_check(const char *path, struct err_list *errs)
{
    struct stat st;
    if (lstat(path, &st) == 0 && !S_ISREG(st.st_mode))
        return 0;
    const char *slash = strrchr(path, '/');
    size_t nd = slash ? (size_t)(slash - path) + (slash == path) : 1;
    char *dir = malloc(nd + 1);
    if (!dir) {
        err_add(errs, path, 0, 0, ERR_ERROR, "out of memory");
        return -1;
    }
    memcpy(dir, slash ? path : ".", nd);
    dir[nd] = '\0';
    int rc = 0;
    if (stat(dir, &st) != 0 || !S_ISDIR(st.st_mode) || access(dir, W_OK | X_OK) != 0) {
        int e = errno ? errno : ENOTDIR;
        if (stat(dir, &st) == 0 && !S_ISDIR(st.st_mode))
            e = ENOTDIR;
        err_add(errs, path, 0, 0, ERR_ERROR, "cannot write into '%s': %s", dir, strerror(e));
        rc = -1;
    }
    free(dir);
    return rc;
}

int
afile_write(const char *path, const void *data, size_t len, struct err_list *errs)
{
    struct afile af;
    if (afile_open(&af, path, errs) != 0)
        return -1;
    if (fwrite(data, 1, len, af.fp) != len) {
        err_add(errs, path, 0, 0, ERR_ERROR, "cannot write '%s': %s", af.tmp ? af.tmp : path,
                strerror(errno));
        afile_rollback(&af);
        return -1;
    }
    return afile_commit(&af, errs);
}
