/* Shared by the libFuzzer harnesses (tests/fuzz/README.md): the one entry point every harness
 * has, quiet setup and a per-process scratch file for loaders that take a path. A harness is a
 * check of one input (from memory, as a parsed tree or through the scratch file) and one line
 * naming it: FUZZ_TEXT(check), FUZZ_TREE("fuzz.yaml", check) or FUZZ_FILE(".yaml", check). Every
 * check gets a real err_list (released after each input) so loaders run their full validation;
 * nothing prints. The data directory (profiles inputs name by id) is set before the first input. */
#ifndef ROOFLINE_FUZZ_COMMON_H
#define ROOFLINE_FUZZ_COMMON_H

#include "io/profiles.h"
#include "io/ytree.h"
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

/* The input as text (not NUL-terminated), through the scratch file, or as a tree named `name`
 * (inputs that are not YAML stop at ynode_parse): each runs `check` with a fresh error list. */
static inline int
fuzz_text(const uint8_t *data, size_t size,
          void (*check)(const char *text, size_t size, struct err_list *errs))
{
    fuzz_setup();
    struct err_list errs = {0};
    check((const char *)data, size, &errs);
    err_list_release(&errs);
    return 0;
}

static inline int
fuzz_file(const char *ext, const uint8_t *data, size_t size,
          void (*check)(const char *path, struct err_list *errs))
{
    fuzz_setup();
    const char *path = fuzz_scratch(ext);
    if (fuzz_write(path, data, size) != 0)
        return 0;
    struct err_list errs = {0};
    check(path, &errs);
    err_list_release(&errs);
    return 0;
}

static inline int
fuzz_tree(const char *name, const uint8_t *data, size_t size,
          void (*check)(const struct ynode *root, const char *name, struct err_list *errs))
{
    fuzz_setup();
    struct err_list errs = {0};
    struct ynode *root = ynode_parse(name, (const char *)data, size, &errs);
    if (root) {
        check(root, name, &errs);
        ynode_free(root);
    }
    err_list_release(&errs);
    return 0;
}

/* The harness's entry point over one of the three. */
#define FUZZ_ENTRY(call)                                                                           \
    int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);                                  \
    int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)                                   \
    {                                                                                              \
        return call;                                                                               \
    }
#define FUZZ_TEXT(check) FUZZ_ENTRY(fuzz_text(data, size, check))
#define FUZZ_FILE(ext, check) FUZZ_ENTRY(fuzz_file(ext, data, size, check))
#define FUZZ_TREE(name, check) FUZZ_ENTRY(fuzz_tree(name, data, size, check))

#endif
