/* Hardware roofs: per-format peak with documented fallbacks, ridge points, links. */
#include "core/hw.h"

#include <stdlib.h>

/* When a device has no roof for a format, the computation runs in the next wider format the
 * device has: the kernel upcasts (e.g. fp8 weights on an A100 run through fp16 tensor cores).
 * docs/physics.md#data-types */
static const enum dtype FALLBACK[DT_COUNT][4] = {
    [DT_FP64] = {DT_FP64, DT_COUNT},
    [DT_FP32] = {DT_FP32, DT_COUNT},
    [DT_TF32] = {DT_TF32, DT_FP32, DT_COUNT},
    [DT_FP16] = {DT_FP16, DT_BF16, DT_FP32, DT_COUNT},
    [DT_BF16] = {DT_BF16, DT_FP16, DT_FP32, DT_COUNT},
    [DT_FP8] = {DT_FP8, DT_FP16, DT_BF16, DT_FP32},
    [DT_INT8] = {DT_INT8, DT_FP16, DT_BF16, DT_FP32},
    [DT_FP4] = {DT_FP4, DT_FP8, DT_FP16, DT_FP32},
    [DT_INT4] = {DT_INT4, DT_INT8, DT_FP16, DT_FP32},
};

double
hw_peak(const struct hw_profile *hw, enum dtype want, enum dtype *used)
{
    if (!dtype_is_roof(want))
        want = DT_FP16;
    /* the fastest of the formats the computation may run in: a device whose fp16 rate is a
     * fraction of its fp32 rate (Pascal GeForce/Tesla) computes fp16 work in fp32 */
    double best = 0.0;
    enum dtype best_dt = want;
    for (int i = 0; i < 4; i++) {
        enum dtype d = FALLBACK[want][i];
        if (d == DT_COUNT && i > 0)
            break;
        if (hw->peak_flops_per_s[d] > best) {
            best = hw->peak_flops_per_s[d];
            best_dt = d;
        }
    }
    if (used)
        *used = best_dt;
    return best;
}

double
hw_ridge(const struct hw_profile *hw, enum dtype dt)
{
    double p = hw_peak(hw, dt, NULL);
    return hw->memory_bandwidth_bytes_per_s > 0 ? p / hw->memory_bandwidth_bytes_per_s : 0.0;
}

double
hw_link_bytes_per_s_per_direction(const struct hw_profile *hw)
{
    if (!hw->link_kind || hw->link_bandwidth_bytes_per_s <= 0)
        return 0.0;
    return hw->link_direction == HW_LINK_PER_DIRECTION ? hw->link_bandwidth_bytes_per_s
                                                       : hw->link_bandwidth_bytes_per_s / 2.0;
}

void
hw_free(struct hw_profile *hw)
{
    if (!hw)
        return;
    free(hw->id);
    free(hw->path);
    free(hw->name);
    free(hw->vendor);
    free(hw->kind);
    free(hw->memory_type);
    free(hw->notes);
    free(hw->link_kind);
    for (int i = 0; i < hw->n_purchase; i++) {
        free(hw->purchase[i].date);
        free(hw->purchase[i].basis);
        free(hw->purchase[i].source);
    }
    free(hw->purchase);
    for (int i = 0; i < hw->n_cloud; i++) {
        free(hw->cloud[i].provider);
        free(hw->cloud[i].date);
        free(hw->cloud[i].basis);
        free(hw->cloud[i].source);
    }
    free(hw->cloud);
    for (int i = 0; i < hw->n_sources; i++) {
        free(hw->source_keys[i]);
        free(hw->source_texts[i]);
    }
    for (int i = 0; i < hw->n_provenance; i++) {
        free(hw->provenance_keys[i]);
        free(hw->provenance_texts[i]);
    }
    free(hw->provenance_keys);
    free(hw->provenance_texts);
    free(hw->source_keys);
    free(hw->source_texts);
    free(hw);
}
