/* Whole-file reads for inputs (see rfile.h). The open is non-blocking so that a FIFO cannot hang
 * the open itself; fstat then refuses anything that is not a regular file. */
#include "util/rfile.h"

#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

int
rfile_read(const char *path, size_t max_bytes, char **out, size_t *len, int *errno_out)
{
    *out = NULL;
    *len = 0;
    *errno_out = 0;
    int fd = open(path, O_RDONLY | O_NONBLOCK | O_CLOEXEC | O_NOCTTY);
    if (fd < 0) {
        *errno_out = errno;
        return RFILE_OPEN;
    }
    struct stat st;
    if (fstat(fd, &st) != 0) {
        *errno_out = errno;
        close(fd);
        return RFILE_READ;
    }
    if (!S_ISREG(st.st_mode)) {
        close(fd);
        return RFILE_NOT_REGULAR;
    }
    if (st.st_size < 0 || (unsigned long long)st.st_size > max_bytes) {
        close(fd);
        return RFILE_TOO_LARGE;
    }
    /* regular files never block; clear the flag anyway for file systems that care */
    int fl = fcntl(fd, F_GETFL);
    if (fl >= 0)
        (void)fcntl(fd, F_SETFL, fl & ~O_NONBLOCK);
    /* the file may grow while we read: read up to max_bytes + 1 to notice */
    size_t cap = (size_t)st.st_size + 1, n = 0;
    if (cap < 4096)
        cap = 4096;
    char *buf = malloc(cap + 1);
    if (!buf) {
        close(fd);
        return RFILE_NOMEM;
    }
    for (;;) {
        if (n == cap) {
            if (cap > max_bytes) {
                free(buf);
                close(fd);
                return RFILE_TOO_LARGE;
            }
            size_t ncap = cap * 2 > max_bytes + 1 ? max_bytes + 1 : cap * 2;
            char *nb = realloc(buf, ncap + 1);
            if (!nb) {
                free(buf);
                close(fd);
                return RFILE_NOMEM;
            }
            buf = nb;
            cap = ncap;
        }
        ssize_t got = read(fd, buf + n, cap - n);
        if (got < 0) {
            if (errno == EINTR)
                continue;
            *errno_out = errno;
            free(buf);
            close(fd);
            return RFILE_READ;
        }
        if (got == 0)
            break;
        n += (size_t)got;
    }
    close(fd);
    if (n > max_bytes) {
        free(buf);
        return RFILE_TOO_LARGE;
    }
    buf[n] = '\0';
    *out = buf;
    *len = n;
    return RFILE_OK;
}

const char *
rfile_strerror(int status, int errno_value)
{
    switch (status) {
    case RFILE_OK:
        return "no error";
    case RFILE_NOT_REGULAR:
        return "not a regular file";
    case RFILE_TOO_LARGE:
        return "file larger than 64 MiB";
    case RFILE_NOMEM:
        return "out of memory";
    case RFILE_OPEN:
    case RFILE_READ:
        return errno_value ? strerror(errno_value) : "cannot read file";
    }
    return "cannot read file";
}
