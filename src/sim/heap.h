/* A binary min-heap of timed events for the simulator: ordered by time, ties by insertion
 * order, so a run is deterministic. Not thread-safe; no printing. */
#ifndef ROOFLINE_SIM_HEAP_H
#define ROOFLINE_SIM_HEAP_H

#include <stddef.h>

enum sim_event_kind { SIM_EV_ARRIVAL, SIM_EV_STEP_DONE, SIM_EV_TRANSFER_DONE, SIM_EV_TOKENIZED };

struct sim_event {
    double time_s;
    unsigned long order; /* insertion counter: the tie-breaker */
    enum sim_event_kind kind;
    int instance;
    long subject; /* request id, or user index of a closed loop */
};

struct sim_heap {
    struct sim_event *items;
    size_t n, cap;
    unsigned long next_order;
};

void sim_heap_init(struct sim_heap *h);
void sim_heap_release(struct sim_heap *h);
/* 0, or -1 when out of memory (the heap is unchanged). */
int sim_heap_push(struct sim_heap *h, double time_s, enum sim_event_kind kind, int instance,
                  long subject);
/* Removes the earliest event into *out; 0, or -1 when empty. */
int sim_heap_pop(struct sim_heap *h, struct sim_event *out);

#endif
