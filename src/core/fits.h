/* "Does not fit": by how much a configuration exceeds one device's memory, and what would fit
 * instead (a smaller weight format, more devices with tensor parallelism, data-parallel
 * attention, a shorter context, a smaller batch, a smaller reserve). Pure: fills a struct, never
 * prints. docs/physics.md#memory */
#ifndef ROOFLINE_CORE_FITS_H
#define ROOFLINE_CORE_FITS_H

#include "core/roof.h"

#include <stdbool.h>

enum roof_fix_kind {
    ROOF_FIX_FORMAT,  /* value: the weight format (enum dtype) */
    ROOF_FIX_TP,      /* value: the tensor-parallel degree */
    ROOF_FIX_ATTN_DP, /* value: the data-parallel attention degree */
    ROOF_FIX_CONTEXT, /* value: tokens (the prompt for a prefill, else the context) */
    ROOF_FIX_BATCH,   /* value: sequences */
    ROOF_FIX_RESERVE  /* value: the largest reserve in bytes */
};

struct roof_fix {
    enum roof_fix_kind kind;
    double value;
    double need_bytes; /* per device with this change */
    char text[160];    /* e.g. "weights in q4_k_m: 42.1 GB per device" */
};

#define ROOF_MAX_FIXES 6
struct roof_fit_advice {
    bool fits;
    double need_bytes, capacity_bytes; /* per device: weights + KV + activations + reserve */
    double over_bytes;                 /* need - capacity (<= 0 when it fits) */
    int n_fixes;
    struct roof_fix fixes[ROOF_MAX_FIXES]; /* in the order above, each only when it fits */
};

/* Advice for `cfg` (roof_memory's per-device footprint at its batch, prompt or context): when it
 * does not fit, each single change that would make it fit: the largest smaller weight format,
 * the smallest larger tp the model's heads allow, the smallest data-parallel attention degree
 * (where tp copies the KV cache), the longest context and the largest batch that fit, and the
 * reserve that would leave room. Returns 0, or -1 without hw or model. */
int roof_fit_advise(const struct roof_config *cfg, struct roof_fit_advice *out);

#endif
