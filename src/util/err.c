/* Diagnostic list: append, count, format. No printing here. */
#include "util/err.h"

#include "util/alloc.h"
#include "util/strs.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

void
err_add(struct err_list *errs, const char *path, int line, int col, enum err_severity sev,
        const char *fmt, ...)
{
    char buf[1024];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(buf, sizeof buf, fmt, ap);
    va_end(ap);
    /* a reported "out of memory" ends the command with exit 1 even where the caller goes on
     * (a candidate skipped, a profile listed as broken) */
    if (sev == ERR_ERROR && strncmp(buf, "out of memory", 13) == 0)
        alloc_note_failure();
    if (!errs)
        return;
    if (errs->n == errs->cap) {
        size_t cap = errs->cap ? errs->cap * 2 : 8;
        struct err_item *items = realloc(errs->items, cap * sizeof *items);
        if (!items) {
            alloc_note_failure();
            return;
        }
        errs->items = items;
        errs->cap = cap;
    }
    struct err_item *it = &errs->items[errs->n];
    it->path = str_dup(path);
    it->line = line;
    it->col = col;
    it->severity = sev;
    it->msg = str_dup(buf);
    if (!it->msg) {
        free(it->path);
        return;
    }
    errs->n++;
}

size_t
err_count(const struct err_list *errs, enum err_severity sev)
{
    size_t c = 0;
    if (!errs)
        return 0;
    for (size_t i = 0; i < errs->n; i++)
        if (errs->items[i].severity == sev)
            c++;
    return c;
}

void
err_format(const struct err_item *it, char *buf, size_t size)
{
    const char *sev = it->severity == ERR_ERROR ? "error" : "warning";
    if (it->path && it->line > 0)
        snprintf(buf, size, "%s:%d:%d: %s: %s", it->path, it->line, it->col, sev, it->msg);
    else if (it->path)
        snprintf(buf, size, "%s: %s: %s", it->path, sev, it->msg);
    else
        snprintf(buf, size, "%s: %s", sev, it->msg);
}

void
err_list_release(struct err_list *errs)
{
    if (!errs)
        return;
    for (size_t i = 0; i < errs->n; i++) {
        free(errs->items[i].path);
        free(errs->items[i].msg);
    }
    free(errs->items);
    errs->items = NULL;
    errs->n = errs->cap = 0;
}

void
err_sort(struct err_list *errs)
{
    /* insertion sort: lists are short and the order of equal positions must stay */
    for (size_t i = 1; i < errs->n; i++) {
        struct err_item it = errs->items[i];
        size_t j = i;
        while (j > 0) {
            const struct err_item *p = &errs->items[j - 1];
            int c = strcmp(p->path ? p->path : "", it.path ? it.path : "");
            if (c < 0 ||
                (c == 0 && (p->line < it.line || (p->line == it.line && p->col <= it.col))))
                break;
            errs->items[j] = errs->items[j - 1];
            j--;
        }
        errs->items[j] = it;
    }
}
