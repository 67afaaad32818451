/* Host predictions: the roofline rules of docs/physics.md#roofline applied to the benchmark's
 * own kernels, and roof_evaluate for the transformer (fp32 weights, activations and KV cache,
 * batch 1, FlashAttention-style fused attention as the benchmark runs it). */
#include "bench/predict.h"

#include "core/roof.h"
#include "util/units.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

static void
explain(struct bench_prediction *p, double bw, double peak, double launches, double launch_s)
{
    char a[32], b[32], c[48] = "";
    if (p->launch_s > 0) {
        char u[32];
        unit_format_time(launch_s, 3, u, sizeof u);
        snprintf(c, sizeof c, " + %.0f fork-joins x %s", launches, u);
    }
    if (p->memory_bound) {
        unit_format(p->bytes, "B", 3, a, sizeof a);
        unit_format(bw, "B/s", 3, b, sizeof b);
        snprintf(p->reason, sizeof p->reason, "memory-bound: %s at %s%s", a, b, c);
    } else {
        unit_format(p->flops, "FLOP", 3, a, sizeof a);
        unit_format(peak, "FLOP/s", 3, b, sizeof b);
        snprintf(p->reason, sizeof p->reason, "compute-bound: %s at %s%s", a, b, c);
    }
}

/* the fork-joins' share of a case: each parallel kernel waits for the slowest thread and
 * hands the next job over, which the roofs (one long parallel region each) never pay */
static double
launch_share(const struct bench_case *c, double launch_s)
{
    return c->launches > 0 && launch_s > 0 && isfinite(launch_s) ? c->launches * launch_s : 0;
}

int
bench_predict_case(const struct hw_profile *hw, const struct mdl_profile *model,
                   const struct bench_case *c, double launch_s, struct bench_prediction *out)
{
    memset(out, 0, sizeof *out);
    out->predicted_s = NAN;
    enum dtype used;
    double peak = hw_peak(hw, DT_FP32, &used);
    double bw = hw->memory_bandwidth_bytes_per_s;
    /* the GEMM efficiency a measured profile carries applies to every kernel's FLOPs, as the
     * engine applies it (roof_config_init) */
    if (hw->gemm_efficiency > 0)
        peak *= hw->gemm_efficiency;
    if (!(peak > 0) || !(bw > 0)) {
        snprintf(out->reason, sizeof out->reason, "the profile has no fp32 roof or bandwidth");
        return -1;
    }
    if (c->kind != BENCH_CASE_MODEL) {
        out->flops = c->flops;
        out->bytes = c->bytes;
        out->compute_s = c->flops / peak;
        if (c->kind == BENCH_CASE_GEMM || c->kind == BENCH_CASE_GEMV)
            /* the engine's GEMM rule without the kernel model: 2 M N K / peak (one row on the
             * vector units, which on a CPU are the same units) */
            out->compute_s =
                (double)c->copies * roof_gemm_compute_s((double)c->rows, (double)c->cols,
                                                        (double)c->inner, peak, 0, peak);
        out->memory_s = c->bytes / bw;
        out->memory_bound = out->memory_s >= out->compute_s;
        out->launch_s = launch_share(c, launch_s);
        out->predicted_s = (out->memory_bound ? out->memory_s : out->compute_s) + out->launch_s;
        explain(out, bw, peak, c->launches, launch_s);
        return 0;
    }
    if (!model) {
        snprintf(out->reason, sizeof out->reason, "no model profile for a model case");
        return -1;
    }
    struct roof_config cfg;
    roof_config_init(&cfg, hw, model, c->phase == BENCH_PHASE_PREFILL ? ROOF_PREFILL : ROOF_DECODE);
    cfg.weights = cfg.act = cfg.kv = DT_FP32;
    cfg.batch = 1;
    cfg.prompt = c->phase == BENCH_PHASE_PREFILL ? (double)c->prompt : 1;
    cfg.context = c->phase == BENCH_PHASE_DECODE ? (double)c->context : 0;
    cfg.flash_attention = true;
    cfg.reserve_bytes = 0;
    struct roof_result r;
    const char *problem = roof_config_problem(&cfg);
    if (problem || roof_evaluate(&cfg, &r) != 0) {
        snprintf(out->reason, sizeof out->reason, "the engine cannot evaluate it: %s",
                 problem ? problem : "invalid configuration");
        return -1;
    }
    out->flops = r.flops;
    out->bytes = r.bytes;
    out->compute_s = r.compute_time_s;
    out->memory_s = r.memory_time_s;
    out->launch_s = launch_share(c, launch_s);
    out->predicted_s = r.time_s + out->launch_s;
    out->memory_bound = r.bound == ROOF_BOUND_MEMORY;
    explain(out, bw, peak, c->launches, launch_s);
    return 0;
}

double
bench_error_pct(double predicted, double measured)
{
    return (predicted - measured) / measured * 100.0;
}

void
bench_error_summarize(const double *err_pct, int n, struct bench_error_summary *out)
{
    out->n = n;
    out->median_abs_pct = out->p90_abs_pct = out->mean_pct = NAN;
    if (n <= 0 || n > 4096)
        return;
    double a[4096], sum = 0;
    for (int i = 0; i < n; i++) {
        a[i] = fabs(err_pct[i]);
        sum += err_pct[i];
    }
    out->median_abs_pct = bench_quantile(a, n, 0.5);
    out->p90_abs_pct = bench_quantile(a, n, 0.9);
    out->mean_pct = sum / n;
}
