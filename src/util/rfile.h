/* Reading an input file whole, safely: regular files only (a FIFO, /dev/zero or a directory is
 * refused without blocking), with a size limit checked before and while reading. */
#ifndef ROOFLINE_UTIL_RFILE_H
#define ROOFLINE_UTIL_RFILE_H

#include <stddef.h>

/* The documented limit on any input file (profiles, scenarios, traces, measurements). */
#define RFILE_MAX_BYTES ((size_t)64 << 20)

enum rfile_status {
    RFILE_OK = 0,
    RFILE_OPEN = -1,        /* cannot open: see errno_out */
    RFILE_NOT_REGULAR = -2, /* a directory, FIFO, socket or device */
    RFILE_TOO_LARGE = -3,   /* more than max_bytes */
    RFILE_READ = -4,        /* read error: see errno_out */
    RFILE_NOMEM = -5,
};

/* Read all of `path` (at most `max_bytes`) into a new buffer with a NUL after the last byte.
 * Returns RFILE_OK and sets *out (caller frees) and *len, or a negative status with *errno_out
 * set to the system error where there is one (else 0). */
int rfile_read(const char *path, size_t max_bytes, char **out, size_t *len, int *errno_out);

/* A short lowercase description of a status for messages: "not a regular file", ... */
const char *rfile_strerror(int status, int errno_value);

#endif
