/* String helpers shared by the loaders and the CLI. */
#include "util/strs.h"

#include "util/alloc.h"

#include <ctype.h>
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

char *
str_dup(const char *s)
{
    if (!s)
        return NULL;
    size_t n = strlen(s) + 1;
    char *d = malloc(n);
    if (d)
        memcpy(d, s, n);
    else
        alloc_note_failure();
    return d;
}

int
str_distance(const char *a, const char *b)
{
    size_t la = strlen(a), lb = strlen(b);
    if (la > 63 || lb > 63)
        return 64;
    int row[64];
    for (size_t j = 0; j <= lb; j++)
        row[j] = (int)j;
    for (size_t i = 1; i <= la; i++) {
        int prev = row[0];
        row[0] = (int)i;
        for (size_t j = 1; j <= lb; j++) {
            int cur = row[j];
            int cost = tolower((unsigned char)a[i - 1]) == tolower((unsigned char)b[j - 1]) ? 0 : 1;
            int best = prev + cost;
            if (row[j] + 1 < best)
                best = row[j] + 1;
            if (row[j - 1] + 1 < best)
                best = row[j - 1] + 1;
            row[j] = best;
            prev = cur;
        }
    }
    return row[lb];
}

const char *
str_closest(const char *word, const char *const *candidates, size_t n)
{
    const char *best = NULL;
    int best_d = 1000;
    size_t wl = strlen(word);
    for (size_t i = 0; i < n; i++) {
        int d = str_distance(word, candidates[i]);
        if (d < best_d) {
            best_d = d;
            best = candidates[i];
        }
    }
    /* a typo: at most a third of the word changed, and never more than 3 edits */
    int limit = (int)(wl / 3);
    if (limit < 1)
        limit = 1;
    if (limit > 3)
        limit = 3;
    return best_d <= limit ? best : NULL;
}

int
str_to_long(const char *s, long *out)
{
    if (!s || !*s)
        return -1;
    errno = 0;
    char *end;
    long v = strtol(s, &end, 10);
    if (errno == ERANGE || *end != '\0')
        return -1;
    *out = v;
    return 0;
}

int
str_to_double(const char *s, double *out)
{
    if (!s || !*s)
        return -1;
    errno = 0;
    char *end;
    double v = strtod(s, &end);
    if (errno == ERANGE || *end != '\0' || !isfinite(v))
        return -1;
    for (const char *q = s; q < end; q++)
        if (!(isdigit((unsigned char)*q) || strchr(".-+eE", *q)))
            return -1;
    *out = v;
    return 0;
}
