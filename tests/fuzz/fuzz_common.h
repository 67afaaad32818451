/* Shared by the libFuzzer harnesses (tests/fuzz/README.md): quiet setup and a per-process
 * scratch file for loaders that take a path. Every harness passes a real err_list (released
 * after each input) so loaders run their full validation, and prints nothing. */
#ifndef ROOFLINE_FUZZ_COMMON_H
#define ROOFLINE_FUZZ_COMMON_H

#include "io/profiles.h"
#include "util/err.h"

#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* A scratch path unique to this process, under $TMPDIR (default /tmp); `ext` keeps loaders that
 * look at the extension (".json" for HF configs) on the intended path. */
static inline const char *
fuzz_scratch(const char *ext)
{
    static char path[512];
    const char *dir = getenv("TMPDIR");
    snprintf(path, sizeof path, "%s/roofline-fuzz-%ld%s", dir && *dir ? dir : "/tmp",
             (long)getpid(), ext);
    return path;
}

/* Write data to the scratch file; 0 or -1. */
static inline int
fuzz_write(const char *path, const uint8_t *data, size_t size)
{
    int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0600);
    if (fd < 0)
        return -1;
    size_t off = 0;
    while (off < size) {
        ssize_t w = write(fd, data + off, size - off);
        if (w <= 0) {
            close(fd);
            return -1;
        }
        off += (size_t)w;
    }
    return close(fd);
}

/* Once per process: the data directory (profiles the inputs name by id) from
 * ROOFLINE_FUZZ_DATA, else the current directory (make fuzz runs from the top). */
static inline void
fuzz_setup(void)
{
    static int done;
    if (done)
        return;
    done = 1;
    const char *d = getenv("ROOFLINE_FUZZ_DATA");
    prof_set_data_dir(d && *d ? d : ".");
}

#endif
