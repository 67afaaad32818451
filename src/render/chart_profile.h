/* The profile chart (docs/profile.md#roofline-chart-profile): a measured server's TTFT against
 * prompt length and its inter-token latency against context, the least-squares lines through them
 * and, given a device and a model, the roofline's prediction as a line beside them. No drawing, no
 * printing. */
#ifndef ROOFLINE_RENDER_CHART_PROFILE_H
#define ROOFLINE_RENDER_CHART_PROFILE_H

#include "core/roof.h"
#include "render/chart.h"
#include "util/err.h"

struct chart_profile_data {
    const char *url;               /* what was measured, for the title */
    const double *prompt, *ttft_s; /* one point per request */
    int n_prefill;
    const double *context, *itl_s; /* decode points (medians of blocks of gaps) */
    int n_decode;
    bool prefill_fit, decode_fit; /* the lines TTFT = a + b P, ITL = c + d context */
    double prefill_c0, prefill_c1, decode_c0, decode_c1;
    /* prediction: hw and model set (the rest of cfg as roof_config_init gives it, with the
     * formats wanted); NULL hw = none */
    const struct roof_config *predict;
};

/* Builds the two-panel chart. Returns it (caller frees with chart_free) or NULL with the reason
 * in errs (no point to draw). */
struct chart *chart_build_profile(const struct chart_profile_data *d, struct err_list *errs);

#endif
