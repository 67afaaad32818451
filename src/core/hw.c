/* Hardware roofs: per-format peak with documented fallbacks, ridge points, links. */
#include "core/hw.h"

#include <stdio.h>
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
hw_vector_peak(const struct hw_profile *hw, enum hw_vector_origin *origin)
{
    enum hw_vector_origin o = HW_VECTOR_NONE;
    double v = 0.0;
    if (hw->peak_flops_per_s[DT_FP32] > 0) {
        o = HW_VECTOR_DATASHEET;
        v = hw->peak_flops_per_s[DT_FP32];
    } else if (hw->compute_units > 0 && hw->boost_clock_hz > 0 && hw->vector_flops_per_cycle > 0) {
        /* every unit retires its vector lanes' FLOPs each cycle at the boost clock: the same
         * product that gives a datasheet's non-tensor fp32 figure (e.g. A100: 108 SMs x
         * 1.41 GHz x 64 FMA lanes x 2 = 19.5 TFLOP/s) */
        o = HW_VECTOR_UNITS;
        v = hw->compute_units * hw->boost_clock_hz * hw->vector_flops_per_cycle;
    } else if (hw->vector_fraction > 0 && dtype_is_roof(hw->vector_fraction_of) &&
               hw->peak_flops_per_s[hw->vector_fraction_of] > 0) {
        /* the vector and tensor units run on one clock: their rates stand in the ratio of
         * their FLOPs per cycle, an architecture fact the profile cites */
        o = HW_VECTOR_FRACTION;
        v = hw->vector_fraction * hw->peak_flops_per_s[hw->vector_fraction_of];
    }
    if (origin)
        *origin = o;
    return v;
}

void
hw_vector_describe(const struct hw_profile *hw, char *buf, size_t n)
{
    enum hw_vector_origin o;
    double v = hw_vector_peak(hw, &o);
    if (n == 0)
        return;
    switch (o) {
    case HW_VECTOR_DATASHEET:
        snprintf(buf, n, "the datasheet's fp32 peak");
        break;
    case HW_VECTOR_UNITS:
        snprintf(buf, n,
                 "derived, the datasheet has no fp32 peak: %.0f compute units x %.4g GHz x %.0f "
                 "FLOP/cycle = %.4g TFLOP/s",
                 hw->compute_units, hw->boost_clock_hz / 1e9, hw->vector_flops_per_cycle, v / 1e12);
        break;
    case HW_VECTOR_FRACTION:
        snprintf(buf, n,
                 "derived, the datasheet has no fp32 peak: %.4g x the %s tensor peak %.4g TFLOP/s "
                 "= %.4g TFLOP/s",
                 hw->vector_fraction, dtype_name(hw->vector_fraction_of),
                 hw->peak_flops_per_s[hw->vector_fraction_of] / 1e12, v / 1e12);
        break;
    default:
        snprintf(buf, n, "unknown");
        break;
    }
}

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
        double p = d == DT_FP32 ? hw_vector_peak(hw, NULL) : hw->peak_flops_per_s[d];
        if (p > best) {
            best = p;
            best_dt = d;
        }
    }
    if (used)
        *used = best_dt;
    return best;
}

double
hw_memory_bytes(const struct hw_profile *hw)
{
    return hw->memory_reported_bytes > 0 ? hw->memory_reported_bytes : hw->memory_capacity_bytes;
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

double
hw_link_group_bytes_per_s(const struct hw_profile *hw, int n, double total)
{
    if (!hw || hw->link_per_peer_bytes_per_s <= 0 || n < 2)
        return total;
    double mesh = (double)(n - 1) * hw->link_per_peer_bytes_per_s;
    return mesh < total ? mesh : total;
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
