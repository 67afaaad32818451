/* Event heap (see heap.h): an implicit binary heap in an array that doubles when full. */
#include "sim/heap.h"

#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

void
sim_heap_init(struct sim_heap *h)
{
    memset(h, 0, sizeof *h);
}

void
sim_heap_release(struct sim_heap *h)
{
    free(h->items);
    memset(h, 0, sizeof *h);
}

static bool
before(const struct sim_event *a, const struct sim_event *b)
{
    return a->time_s < b->time_s || (a->time_s == b->time_s && a->order < b->order);
}

int
sim_heap_push(struct sim_heap *h, double time_s, enum sim_event_kind kind, int instance,
              long subject)
{
    if (h->n == h->cap) {
        size_t cap = h->cap ? 2 * h->cap : 64;
        struct sim_event *ni = realloc(h->items, cap * sizeof *ni);
        if (!ni)
            return -1;
        h->items = ni;
        h->cap = cap;
    }
    struct sim_event e = {time_s, h->next_order++, kind, instance, subject};
    size_t i = h->n++;
    while (i > 0) {
        size_t parent = (i - 1) / 2;
        if (!before(&e, &h->items[parent]))
            break;
        h->items[i] = h->items[parent];
        i = parent;
    }
    h->items[i] = e;
    return 0;
}

int
sim_heap_pop(struct sim_heap *h, struct sim_event *out)
{
    if (h->n == 0)
        return -1;
    *out = h->items[0];
    struct sim_event last = h->items[--h->n];
    size_t i = 0, n = h->n;
    for (;;) {
        size_t c = 2 * i + 1;
        if (c >= n)
            break;
        if (c + 1 < n && before(&h->items[c + 1], &h->items[c]))
            c++;
        if (!before(&h->items[c], &last))
            break;
        h->items[i] = h->items[c];
        i = c;
    }
    if (n > 0)
        h->items[i] = last;
    return 0;
}
