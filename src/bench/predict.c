/* Host predictions: the roofline rules of docs/physics.md#roofline applied to the benchmark's
 * own kernels, and roof_evaluate for the transformer (fp32 weights, activations and KV cache,
 * batch 1, FlashAttention-style fused attention as the benchmark runs it). */
#include "bench/predict.h"

#include "bench/llc.h"
#include "core/roof.h"
#include "util/units.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

static void
explain(struct bench_prediction *p, double bw, double peak, double launches, double launch_s)
{
    char a[32], b[32], c[128] = "";
    size_t n = 0;
    if (p->llc_bytes > 0) {
        char u[32];
        unit_format(p->llc_bytes, "B", 3, u, sizeof u);
        n += (size_t)snprintf(c, sizeof c, " (%s of it from the LLC)", u);
    }
    if (p->overlap_s > 0 && n < sizeof c) {
        char u[32];
        unit_format_time(p->overlap_s, 3, u, sizeof u);
        n += (size_t)snprintf(c + n, sizeof c - n, " + %s of core time not hidden", u);
    }
    if (p->launch_s > 0 && n < sizeof c) {
        char u[32];
        unit_format_time(launch_s, 3, u, sizeof u);
        snprintf(c + n, sizeof c - n, " + %.0f fork-joins x %s", launches, u);
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

double
bench_overlap_fraction(double t1, double tm, double c1, double cm)
{
    if (!(t1 > 0) || !(tm > t1) || !(c1 > 0) || !(cm > c1) || !isfinite(tm) || !isfinite(cm))
        return 1;
    /* memory-bound at m rows (stream s >= cm): t1 = s + u c1, tm = s + u cm, u = 1 - overlap */
    double u = (tm - t1) / (cm - c1);
    if (u > 1)
        u = 1;
    if (t1 - u * c1 < cm) {
        /* the m-row pass is core-bound: tm = cm + u s with s = t1 - u c1, a quadratic in u,
         * c1 u^2 - t1 u + (tm - cm) = 0, whose smaller root is the one in [0, 1] */
        double disc = t1 * t1 - 4 * c1 * (tm - cm);
        u = tm <= cm ? 0 : disc >= 0 ? (t1 - sqrt(disc)) / (2 * c1) : 1;
    }
    return u < 0 ? 1 : u > 1 ? 0 : 1 - u;
}

double
bench_report_overlap(const struct bench_report *r, const struct hw_profile *hw)
{
    double peak = hw_peak(hw, DT_FP32, NULL) * (hw->gemm_efficiency > 0 ? hw->gemm_efficiency : 1);
    if (r->overlap_rows < 2 || !(r->overlap_flops_row > 0) || !(peak > 0) ||
        r->overlap_gemv.n_samples == 0 || r->overlap_gemm.n_samples == 0)
        return 1;
    double c1 = r->overlap_flops_row / peak;
    return bench_overlap_fraction(r->overlap_gemv.s.min, r->overlap_gemm.s.min, c1,
                                  c1 * (double)r->overlap_rows);
}

/* the stream's bandwidth without the core time of the roof's own kernel: the roof (the weight
 * stream, 2 FLOPs per 4 bytes) took Q / bw = Q / b + u Q / (2 peak) */
static double
pure_bandwidth(double bw, double peak, double u)
{
    double inv = 1.0 / bw - u * 0.5 / peak;
    return inv > 0 && isfinite(inv) && u > 0 ? 1.0 / inv : bw;
}

int
bench_predict_case(const struct hw_profile *hw, const struct mdl_profile *model,
                   const struct bench_case *c, const struct bench_host_terms *ht,
                   struct bench_prediction *out)
{
    memset(out, 0, sizeof *out);
    out->predicted_s = NAN;
    enum dtype used;
    double peak = hw_peak(hw, DT_FP32, &used);
    double bw = hw->memory_bandwidth_bytes_per_s;
    double launch_s = ht ? ht->launch_s : 0;
    double u = ht && ht->overlap >= 0 && ht->overlap <= 1 ? 1 - ht->overlap : 0;
    double attn_rate = ht && isfinite(ht->attn_core_bytes_per_s) ? ht->attn_core_bytes_per_s : 0;
    /* the GEMM efficiency a measured profile carries applies to every kernel's FLOPs, as the
     * engine applies it (roof_config_init) */
    if (hw->gemm_efficiency > 0)
        peak *= hw->gemm_efficiency;
    if (!(peak > 0) || !(bw > 0)) {
        snprintf(out->reason, sizeof out->reason, "the profile has no fp32 roof or bandwidth");
        return -1;
    }
    bw = pure_bandwidth(bw, peak, u);
    /* the bytes of each pass the LLC retains come at its rate, the rest from DRAM
     * (docs/bench.md#the-llc-scan); the LLC's rate was
     * measured with the roof's own GEMV, so it loses the same core time */
    double kept = hw->llc_retained_bytes > 0 && hw->llc_stream_bandwidth_bytes_per_s > 0
                      ? hw->llc_retained_bytes
                      : 0;
    double b_llc = kept > 0 ? pure_bandwidth(hw->llc_stream_bandwidth_bytes_per_s, peak, u) : 0;
    if (c->kind != BENCH_CASE_MODEL) {
        double bwk = bench_llc_bandwidth(c->bytes, kept, b_llc, bw);
        out->flops = c->flops;
        out->bytes = c->bytes;
        out->compute_s = c->flops / peak;
        if (c->kind == BENCH_CASE_ATTN && attn_rate > 0)
            out->compute_s = fmax(out->compute_s, c->bytes / attn_rate);
        if (c->kind == BENCH_CASE_GEMM || c->kind == BENCH_CASE_GEMV)
            /* the engine's GEMM rule without the kernel model: 2 M N K / peak (one row on the
             * vector units, which on a CPU are the same units) */
            out->compute_s =
                (double)c->copies * roof_gemm_compute_s((double)c->rows, (double)c->cols,
                                                        (double)c->inner, peak, 0, peak);
        out->memory_s = c->bytes / bwk;
        out->llc_bytes = kept > 0 ? fmin(c->bytes, kept) : 0;
        out->memory_bound = out->memory_s >= out->compute_s;
        out->launch_s = launch_share(c, launch_s);
        out->overlap_s = u * (out->memory_bound ? out->compute_s : out->memory_s);
        out->predicted_s =
            (out->memory_bound ? out->memory_s : out->compute_s) + out->overlap_s + out->launch_s;
        explain(out, bwk, peak, c->launches, launch_s);
        return 0;
    }
    if (!model) {
        snprintf(out->reason, sizeof out->reason, "no model profile for a model case");
        return -1;
    }
    struct hw_profile pure = *hw;
    pure.memory_bandwidth_bytes_per_s = bw;
    struct roof_config cfg;
    roof_config_init(&cfg, &pure, model,
                     c->phase == BENCH_PHASE_PREFILL ? ROOF_PREFILL : ROOF_DECODE);
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
    if (kept > 0) {
        /* the pass streams r.bytes cyclically, a step after a step: its rate is that of a
         * working set of that size, every operator's stream alike */
        pure.memory_bandwidth_bytes_per_s = bench_llc_bandwidth(r.bytes, kept, b_llc, bw);
        if (roof_evaluate(&cfg, &r) != 0) {
            snprintf(out->reason, sizeof out->reason, "the engine cannot evaluate it");
            return -1;
        }
        out->llc_bytes = fmin(r.bytes, kept);
    }
    out->flops = r.flops;
    out->bytes = r.bytes;
    out->compute_s = r.compute_time_s;
    out->memory_s = r.memory_time_s;
    out->launch_s = launch_share(c, launch_s);
    /* operator by operator: the engine took max(core, stream) of each */
    bool attn_core = attn_rate > 0 && c->phase == BENCH_PHASE_DECODE;
    for (int i = 0; i < ROOF_OP_COUNT; i++)
        if (r.ops[i].present && !(attn_core && (i == ROOF_OP_ATTN_SCORE || i == ROOF_OP_SOFTMAX ||
                                                i == ROOF_OP_ATTN_AV)))
            out->overlap_s += u * fmin(r.ops[i].compute_time_s, r.ops[i].memory_time_s);
    double attn_fix = 0;
    if (attn_core) {
        /* decode attention as one kernel (the bench fuses it): its core time at least the KV
         * bytes at the kernel's measured L2 rate */
        static const int A[3] = {ROOF_OP_ATTN_SCORE, ROOF_OP_SOFTMAX, ROOF_OP_ATTN_AV};
        double cc = 0, mm = 0, kv = 0, engine = 0;
        for (int j = 0; j < 3; j++) {
            cc += r.ops[A[j]].compute_time_s;
            mm += r.ops[A[j]].memory_time_s;
            kv += r.ops[A[j]].bytes_kv_read;
            engine += r.ops[A[j]].time_s;
        }
        cc = fmax(cc, kv / attn_rate);
        out->overlap_s += u * fmin(cc, mm);
        attn_fix = fmax(cc, mm) - engine;
    }
    out->predicted_s = r.time_s + attn_fix + out->overlap_s + out->launch_s;
    out->memory_bound = r.bound == ROOF_BOUND_MEMORY;
    explain(out, pure.memory_bandwidth_bytes_per_s, peak, c->launches, launch_s);
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
