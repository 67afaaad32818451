/* Atomic file writing (after git's lockfile): write to a unique temporary name in the target's
 * directory, fsync, rename into place; a failure never leaves a half-written file. */
#ifndef ROOFLINE_UTIL_AFILE_H
#define ROOFLINE_UTIL_AFILE_H

#include "util/err.h"

#include <stdio.h>

struct afile {
    char *path; /* the target (owned copy) */
    char *tmp;  /* the temporary file (owned), NULL when writing the target directly */
    FILE *fp;   /* write here between afile_open and afile_commit/afile_rollback */
};

/* Create `path`.tmpN (O_EXCL, mode 0666 less the umask) next to `path` and open it for writing;
 * a target that exists and is not a regular file (/dev/null, a FIFO, a symlink such as
 * /dev/stdout) is opened directly and written through.
 * Returns 0, or -1 with the reason in `errs` and nothing to release. */
int afile_open(struct afile *af, const char *path, struct err_list *errs);
/* Flush, fsync, close and rename into place; on any failure unlink the temporary file and say
 * why in `errs`. Releases `af` either way. Returns 0 or -1. */
int afile_commit(struct afile *af, struct err_list *errs);
/* Close and unlink the temporary file, releasing `af` (a no-op on a released afile). */
void afile_rollback(struct afile *af);
/* Two-phase commit for a set of files (write all, then rename all): afile_finish flushes, fsyncs
 * and closes the temporary file, keeping it (on failure it is removed, `af` released, -1);
 * afile_publish then renames it into place (-1 and the temporary removed on failure). Release
 * a finished file that is not to be published with afile_rollback. */
int afile_finish(struct afile *af, struct err_list *errs);
int afile_publish(struct afile *af, struct err_list *errs);
/* Publishes `n` finished files (afile_finish) all or none: when a rename fails, the files
 * already renamed get their old contents back (kept as hard links until the end) or are removed
 * when they are new, and the rest are rolled back. Releases every `af`. Returns 0 or -1. */
int afile_publish_all(struct afile *af, int n, struct err_list *errs);
/* For tests: when set, afile_publish_all calls it after keeping the old targets and before the
 * first rename, where an interruption finds the most files on disk. */
extern void (*afile_publish_all_hook)(void);
/* Temporary files are named `path`.tmp<PID>.<N>: afile_open removes those beside `path` whose
 * process is gone (left by kill -9), and afile_open installs SIGINT/SIGTERM/SIGHUP handlers
 * (where the default action is in place) that remove the open temporaries, and the old
 * copies afile_publish_all keeps, and then die of the signal. */
/* Before long work: whether `path` could be written (an existing non-regular target, or a
 * directory that exists and is writable). Returns 0, or -1 with the reason in `errs`. */
int afile_check(const char *path, struct err_list *errs);
/* Convenience: write `len` bytes of `data` to `path` atomically. Returns 0 or -1 (`errs`). */
int afile_write(const char *path, const void *data, size_t len, struct err_list *errs);

#endif
