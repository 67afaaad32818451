/* Atomic file writing through a unique temporary name beside the target (see afile.h). */
#include "util/afile.h"

#include "util/strs.h"

#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

/* Temporary names differ by process and by a per-process counter; O_EXCL settles any race. */
static unsigned long tmp_counter;

static void
release(struct afile *af)
{
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
    if (stat(path, &st) == 0 && !S_ISREG(st.st_mode)) {
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
    int fd = -1;
    for (int attempt = 0; attempt < 100 && fd < 0; attempt++) {
        snprintf(af->tmp, n, "%s.tmp%ld.%lu", path, (long)getpid(), tmp_counter++);
        fd = open(af->tmp, O_WRONLY | O_CREAT | O_EXCL, 0666);
        if (fd < 0 && errno != EEXIST)
            break;
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
afile_commit(struct afile *af, struct err_list *errs)
{
    if (!af->fp)
        return -1;
    const char *shown = af->tmp ? af->tmp : af->path;
    int rc = 0;
    if (fflush(af->fp) != 0 || ferror(af->fp)) {
        err_add(errs, af->path, 0, 0, ERR_ERROR, "cannot write '%s': %s", shown, strerror(errno));
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
    if (rc == 0 && af->tmp && rename(af->tmp, af->path) != 0) {
        err_add(errs, af->path, 0, 0, ERR_ERROR, "cannot rename '%s' into place: %s", af->tmp,
                strerror(errno));
        rc = -1;
    }
    if (rc != 0 && af->tmp)
        unlink(af->tmp);
    release(af);
    return rc;
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
