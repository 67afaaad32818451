/* Open-addressing string set (see strset.h): linear probing, grown at 1/2 load. */
#include "util/strset.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

void
strset_init(struct strset *s)
{
    *s = (struct strset){0};
}

void
strset_release(struct strset *s)
{
    free(s->keys);
    free(s->values);
    *s = (struct strset){0};
}

static uint64_t
hash(const char *k)
{
    uint64_t h = 1469598103934665603u; /* FNV-1a, 64 bit */
    for (const unsigned char *p = (const unsigned char *)k; *p; p++) {
        h ^= *p;
        h *= 1099511628211u;
    }
    return h;
}

/* slot of `key`, or of the empty slot where it would go */
static size_t
find(const struct strset *s, const char *key)
{
    size_t mask = s->cap - 1, i = (size_t)hash(key) & mask;
    while (s->keys[i] && strcmp(s->keys[i], key) != 0)
        i = (i + 1) & mask;
    return i;
}

static int
grow(struct strset *s)
{
    size_t cap = s->cap ? s->cap * 2 : 16;
    if (cap > SIZE_MAX / sizeof(const char *) / 2)
        return -1;
    struct strset t = {calloc(cap, sizeof *t.keys), calloc(cap, sizeof *t.values), cap, 0};
    if (!t.keys || !t.values) {
        free(t.keys);
        free(t.values);
        return -1;
    }
    for (size_t i = 0; i < s->cap; i++) {
        if (!s->keys[i])
            continue;
        size_t j = find(&t, s->keys[i]);
        t.keys[j] = s->keys[i];
        t.values[j] = s->values[i];
        t.n++;
    }
    free(s->keys);
    free(s->values);
    *s = t;
    return 0;
}

int
strset_add(struct strset *s, const char *key, int value, int *old)
{
    if ((s->n + 1) * 2 > s->cap && grow(s) != 0)
        return -1;
    size_t i = find(s, key);
    if (s->keys[i]) {
        if (old)
            *old = s->values[i];
        return 0;
    }
    s->keys[i] = key;
    s->values[i] = value;
    s->n++;
    return 1;
}
