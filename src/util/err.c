/* Diagnostic list: append, count, format. No printing here. */
#include "util/err.h"

#include "util/alloc.h"
#include "util/strs.h"

#include <stdarg.h>
#include <stdbool.h>
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
     * (a candidate skipped, a profile listed as broken), and says what was being done unless the
     * message already does */
    if (sev == ERR_ERROR && strstr(buf, "out of memory")) {
        size_t used = strlen(buf);
        char ctx[512];
        alloc_context_describe(ctx, sizeof ctx);
        /* "out of memory (while checking keys)" gets ", loading 'x', ..." inside its brackets;
         * a message copied from another list already says its context (the outermost phrase) */
        const char *w = strstr(buf, "(while ");
        const char *outer = alloc_context_outer();
        bool said = !ctx[0] || (outer[0] && strstr(buf, outer));
        if (!said && w && used > 0 && buf[used - 1] == ')' && !strchr(w + 1, '('))
            snprintf(buf + used - 1, sizeof buf - (used - 1), ", %s)", ctx);
        else if (!said && !w)
            snprintf(buf + used, sizeof buf - used, " (while %s)", ctx);
        alloc_note_failure();
    }
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

static int
cmp_pos(const struct err_item *p, const struct err_item *q)
{
    int c = strcmp(p->path ? p->path : "", q->path ? q->path : "");
    if (c)
        return c;
    if (p->line != q->line)
        return p->line < q->line ? -1 : 1;
    return p->col < q->col ? -1 : p->col > q->col;
}

struct ranked {
    struct err_item it;
    size_t rank; /* the order of addition, so that sorting is stable */
};

static int
cmp_ranked(const void *a, const void *b)
{
    const struct ranked *p = a, *q = b;
    int c = cmp_pos(&p->it, &q->it);
    return c ? c : (p->rank > q->rank) - (p->rank < q->rank);
}

void
err_sort(struct err_list *errs)
{
    /* qsort with the addition order as the last key: 120k errors (80k keys, each a duplicate and
     * unknown, reported in two passes) took 11 s by insertion sort */
    struct ranked *r = errs->n > 1 ? malloc(errs->n * sizeof *r) : NULL;
    if (r) {
        for (size_t i = 0; i < errs->n; i++)
            r[i] = (struct ranked){errs->items[i], i};
        qsort(r, errs->n, sizeof *r, cmp_ranked);
        for (size_t i = 0; i < errs->n; i++)
            errs->items[i] = r[i].it;
        free(r);
        return;
    }
    /* out of memory (or nothing to sort): insertion sort, in place */
    for (size_t i = 1; i < errs->n; i++) {
        struct err_item it = errs->items[i];
        size_t j = i;
        while (j > 0 && cmp_pos(&errs->items[j - 1], &it) > 0) {
            errs->items[j] = errs->items[j - 1];
            j--;
        }
        errs->items[j] = it;
    }
}
