/* Per-operator roofline of one transformer pass (docs/physics.md#operators). Each operator's
 * time is max(FLOPs / peak, bytes / bandwidth) per kernel instance, summed over layers.
 * Over 1,000 lines on purpose: every operator is charged through one accumulator (add_op with a
 * named struct op_cost) inside one layer walk, and the memory footprint and the parallel split
 * read the same shapes; split apart, one set of formulas would live in several files. */
#include "core/roof.h"

#include <gsl/gsl_cdf.h>
#include <gsl/gsl_integration.h>
#include <gsl/gsl_randist.h>
#include <math.h>
#include <pthread.h>
#include <stdint.h>
#include <string.h>

static const char *const OP_NAMES[ROOF_OP_COUNT] = {
    [ROOF_OP_EMBEDDING] = "embedding",
    [ROOF_OP_ATTN_NORM] = "attn_norm",
    [ROOF_OP_QKV] = "qkv_proj",
    [ROOF_OP_ATTN_SCORE] = "attn_score",
    [ROOF_OP_SOFTMAX] = "softmax",
    [ROOF_OP_ATTN_AV] = "attn_av",
    [ROOF_OP_LINEAR_ATTN] = "linear_attn",
    [ROOF_OP_O_PROJ] = "o_proj",
    [ROOF_OP_ATTN_RESIDUAL] = "attn_residual",
    [ROOF_OP_MLP_NORM] = "mlp_norm",
    [ROOF_OP_ROUTER] = "moe_router",
    [ROOF_OP_MLP_GATE] = "mlp_gate",
    [ROOF_OP_MLP_UP] = "mlp_up",
    [ROOF_OP_MLP_ACT] = "mlp_act",
    [ROOF_OP_MLP_DOWN] = "mlp_down",
    [ROOF_OP_MOE_SUM] = "moe_sum", /* moe_sum_kernel: the experts' rows summed */
    [ROOF_OP_MLP_RESIDUAL] = "mlp_residual",
    [ROOF_OP_FINAL_NORM] = "final_norm",
    [ROOF_OP_LM_HEAD] = "lm_head",
    [ROOF_OP_ALLREDUCE] = "allreduce",
    [ROOF_OP_PP_SEND] = "pp_send",
    [ROOF_OP_STEP] = "step_overhead",
};

const char *
roof_op_name(enum roof_op op)
{
    return op < ROOF_OP_COUNT ? OP_NAMES[op] : "?";
}

const char *
roof_bound_name(enum roof_bound b)
{
    switch (b) {
    case ROOF_BOUND_COMPUTE:
        return "compute";
    case ROOF_BOUND_MEMORY:
        return "memory";
    case ROOF_BOUND_OVERHEAD:
        return "overhead";
    case ROOF_BOUND_LINK:
        return "link";
    }
    return "?";
}

const char *
roof_phase_name(enum roof_phase p)
{
    return p == ROOF_PREFILL ? "prefill" : "decode";
}

double
roof_op_bytes(const struct roof_op_result *r)
{
    return r->bytes_weights + r->bytes_act_in + r->bytes_act_out + r->bytes_kv_read +
           r->bytes_kv_write;
}

double
roof_op_intensity(const struct roof_op_result *r)
{
    double b = roof_op_bytes(r);
    return b > 0 ? r->flops / b : 0.0;
}

double
roof_attainable(double peak, double bw, double ai)
{
    double mem = bw * ai;
    return mem < peak ? mem : peak;
}

enum dtype
roof_default_act(enum dtype w)
{
    switch (w) {
    case DT_FP32:
    case DT_FP64:
        return DT_FP32;
    case DT_BF16:
        return DT_BF16;
    case DT_FP8:
        return DT_FP8;
    default:
        return DT_FP16;
    }
}

enum dtype
roof_default_kv(enum dtype w)
{
    switch (w) {
    case DT_FP32:
    case DT_FP64:
        return DT_FP32;
    case DT_BF16:
    case DT_FP8:
        return DT_BF16;
    default:
        return DT_FP16;
    }
}

void
roof_config_init(struct roof_config *cfg, const struct hw_profile *hw, const struct mdl_profile *m,
                 enum roof_phase phase)
{
    memset(cfg, 0, sizeof *cfg);
    cfg->hw = hw;
    cfg->model = m;
    cfg->phase = phase;
    cfg->batch = 1;
    cfg->prompt = 512;
    cfg->context = 512;
    cfg->weights = DT_FP16;
    if (m && m->torch_dtype) {
        enum dtype d;
        if (dtype_parse(m->torch_dtype, &d) == 0 && (d == DT_BF16 || d == DT_FP16))
            cfg->weights = d;
    }
    cfg->act = roof_default_act(cfg->weights);
    cfg->kv = roof_default_kv(cfg->weights);
    cfg->flash_attention = true;
    cfg->tp = 1;
    cfg->pp = 1;
    cfg->gpus = 0;
    cfg->link_latency_s = -1.0;
    cfg->reserve_bytes = hw ? ROOF_DEFAULT_RESERVE_FRACTION * hw_memory_bytes(hw) : 0.0;
    /* a measured profile's GEMM efficiency (roofline bench) is the device's own; datasheet
     * profiles have none and the roofline is pure until calibration tunes it */
    cfg->tuning.compute_efficiency = hw && hw->gemm_efficiency > 0 ? hw->gemm_efficiency : 1.0;
    cfg->tuning.memory_efficiency = 1.0;
    cfg->tuning.kernel_overhead_s = 0.0;
}

struct acc_ctx {
    const struct roof_config *cfg;
    struct roof_result *res;
    double times; /* identical kernel instances being added (layers of one class) */
    /* per pass, for the operators: the vector-unit peak, the tuned bandwidth, and the tuned
     * peak and its format per requested format (cached: a pass asks for few formats) */
    double vec_peak, bw;
    enum dtype peak_for[2], peak_used[2];
    double peak[2];
    int n_peaks;
    /* the datasheet peak of one format, for a kernel with its own fraction of it (Marlin) */
    enum dtype ds_for, ds_used;
    double ds_peak;
    unsigned long mask; /* operators to evaluate (bit op); the others are skipped */
    /* only each operator's time (and the terms fused decode attention replaces) is kept */
    bool time_only;
    /* the attention's batch: the whole step's, or under data-parallel attention the busiest
     * rank's (attn_busiest_rank); NULL = the layer's batch */
    const struct batch_agg *attn;
};

static bool
want(const struct acc_ctx *c, enum roof_op op)
{
    return (c->mask >> op) & 1ul;
}

static void
acc_init(struct acc_ctx *c, const struct roof_config *cfg, struct roof_result *res, double bw)
{
    const struct roof_tuning *tu = &cfg->tuning;
    memset(c, 0, sizeof *c);
    c->cfg = cfg;
    c->res = res;
    c->times = 1.0;
    c->mask = ROOF_OPS_ALL;
    c->vec_peak = hw_peak(cfg->hw, DT_FP32, NULL) *
                  (tu->vector_efficiency > 0 ? tu->vector_efficiency : tu->compute_efficiency);
    c->bw = roof_tuned_bandwidth(cfg->hw, tu, bw);
}

static double
acc_peak(struct acc_ctx *c, enum dtype compute, enum dtype *used)
{
    for (int i = 0; i < c->n_peaks; i++)
        if (c->peak_for[i] == compute) {
            *used = c->peak_used[i];
            return c->peak[i];
        }
    double p = roof_tuned_peak(c->cfg->hw, &c->cfg->tuning, compute, used);
    if (c->n_peaks < 2) {
        c->peak_for[c->n_peaks] = compute;
        c->peak_used[c->n_peaks] = *used;
        c->peak[c->n_peaks++] = p;
    }
    return p;
}

/* What attention needs to know about a batch, for one window size: summed over sequences. */
struct attn_agg {
    double pairs;   /* query-key pairs per head */
    double visible; /* keys read (compulsory traffic): min(past + new, window) per sequence */
    double score;   /* score-matrix elements per head if materialised: new x visible */
};

/* The batch of one pass: rows, sequences that need logits, and attention aggregates for the
 * full-attention and the windowed layers. */
struct batch_agg {
    double tokens, logits_rows, seqs;
    double decode_seqs; /* sequences of one new token (a linear-attention layer's recurrent form) */
    struct attn_agg full, windowed;
    double window;
};

/* The cost of one kernel instance, named so that a call reads without the prototype; fields
 * left out of a designated initializer are zero. */
struct op_cost {
    bool matmul;        /* on the matrix units; otherwise an fp32 kernel runs on the vector units */
    enum dtype compute; /* the format of the arithmetic */
    double flops;
    double weight_bytes, act_in_bytes, act_out_bytes, kv_read_bytes, kv_write_bytes;
    double vec_flops;      /* on the vector units (dequantization), added to the compute term */
    double gemm_m, gemm_n; /* a GEMM's rows x output columns, for wave quantization; else 0 */
    double tile_m, tile_n; /* fixed tiles without a split of K (Metal's mul_mm); 0: the
                            * library's choice among its tilings */
    double kernels;        /* launches this cost stands for, each paying the kernel overhead
                            * and the memory latency; 0 = one */
    double rate;           /* the kernel's fraction of the format's GEMM rate (Triton's
                            * block-scaled fp8 MoE against bf16); 0 = the whole rate */
    double peak_fraction;  /* the kernel's own rate as a fraction of the format's datasheet
                            * peak, in place of the tuned one (Marlin's issue-bound MoE);
                            * 0 = the tuned peak */
    bool serial;           /* its arithmetic does not hide its memory traffic: the time is
                            * their sum, not the larger (Marlin's MoE) */
};

double
roof_weight_gemm_bw(const struct roof_tuning *tu, double bw)
{
    double g = tu->gemm_bandwidth_bytes_per_s;
    return g > 0 && g < bw ? g : bw;
}

double
roof_weight_gemm_time(const struct roof_tuning *tu, double t)
{
    return t < tu->gemm_floor_s ? tu->gemm_floor_s : t;
}

/* Add `c->times` kernel instances of `op` costing `k` each. */
static void
add_op(struct acc_ctx *c, enum roof_op op, const struct op_cost *k)
{
    if (!want(c, op))
        return;
    bool matmul = k->matmul;
    enum dtype compute = k->compute;
    double flops = k->flops, vec_flops = k->vec_flops, gemm_m = k->gemm_m, gemm_n = k->gemm_n;
    double w = k->weight_bytes, ain = k->act_in_bytes, aout = k->act_out_bytes;
    double kvr = k->kv_read_bytes, kvw = k->kv_write_bytes;
    struct roof_op_result *r = &c->res->ops[op];
    const struct roof_tuning *tu = &c->cfg->tuning;
    double times = c->times;
    enum dtype used = compute;
    double vec_peak = c->vec_peak, peak;
    /* a vector kernel runs at the vector peak; a time-only pass needs no roof format for it,
     * so it skips the lookup (one hw_peak a step) */
    if (compute == DT_FP32 && !matmul && c->time_only)
        peak = vec_peak;
    else
        peak = compute == DT_FP32 && !matmul ? (acc_peak(c, compute, &used), vec_peak)
                                             : acc_peak(c, compute, &used);
    if (k->peak_fraction > 0) {
        if (!(c->ds_peak > 0) || c->ds_for != compute) { /* once a pass, not a kernel */
            c->ds_peak = hw_peak(c->cfg->hw, compute, &c->ds_used);
            c->ds_for = compute;
        }
        used = c->ds_used;
        peak = c->ds_peak * k->peak_fraction;
    } else if (k->rate > 0)
        peak *= k->rate;
    double bw = c->bw;
    double bytes = w + ain + aout + kvr + kvw;
    double tc;
    if (peak <= 0)
        tc = flops > 0 ? INFINITY : 0.0;
    else if (k->tile_m > 0 && gemm_m > 0 && gemm_n > 0 && tu->compute_units > 0)
        tc = roof_gemm_fixed_tiles_s(gemm_m, gemm_n, flops / (2.0 * gemm_m * gemm_n), peak,
                                     tu->compute_units, k->tile_m, k->tile_n, &tu->metal);
    else if (gemm_m > 0 && gemm_n > 0 && tu->compute_units > 0)
        tc = roof_gemm_compute_s(gemm_m, gemm_n, flops / (2.0 * gemm_m * gemm_n), peak,
                                 tu->compute_units, vec_peak);
    else
        tc = flops / peak;
    if (vec_flops > 0)
        tc += vec_peak > 0
                  ? vec_flops * (tu->dequant_scale > 0 ? tu->dequant_scale : 1.0) / vec_peak
                  : INFINITY;
    bool weight_gemm = matmul && w > 0;
    if (weight_gemm)
        bw = roof_weight_gemm_bw(tu, bw);
    double launches = k->kernels > 0 ? k->kernels : 1.0;
    double tm = bw > 0 ? bytes / bw : INFINITY;
    if (bytes > 0)
        tm += launches * tu->memory_latency_s;
    double t = k->serial ? tc + tm : tc > tm ? tc : tm;
    if (weight_gemm)
        t = roof_weight_gemm_time(tu, t);
    t += launches * tu->kernel_overhead_s;
    r->present = true;
    r->memory_time_s += times * tm;
    r->time_s += times * t;
    r->last_compute_s = tc;
    r->last_memory_s = tm;
    if (c->time_only)
        return;
    r->is_matmul = matmul;
    r->instances += times;
    r->flops += times * flops;
    r->dequant_flops += times * vec_flops;
    r->bytes_weights += times * w;
    r->bytes_act_in += times * ain;
    r->bytes_act_out += times * aout;
    r->bytes_kv_read += times * kvr;
    r->bytes_kv_write += times * kvw;
    r->compute_time_s += times * tc;
    r->roof_dtype = used;
    r->peak_flops_per_s = peak;
}

/* one tiling: mt x nt output tiles of tm x tn, split-K when the tiles cannot fill the units;
 * `k_splits` = floor(K / 512), the most splits that keep 512 of K per split. Returns the
 * tiling's time times peak / units: each wave runs `units` tiles at peak / units each. */
static double
gemm_tiled_work(double mt, double nt, double K, double units, double k_splits, double tm, double tn)
{
    double tiles = mt * nt;
    if (!(tiles < units)) /* one split: K / 1 and tiles x 1 are exact, so skipped */
        return ceil(tiles / units) * 2.0 * tm * tn * K;
    double splits = floor(units / tiles);
    if (splits > k_splits)
        splits = k_splits > 1 ? k_splits : 1;
    double waves = ceil(tiles * splits / units);
    return waves * 2.0 * tm * tn * (K / splits);
}

/* The tiled path of roof_gemm_compute_s for M >= 1.5 rows (or no vector peak) on `units` > 0:
 * the least of the tilings' work divided by the unit peak. */
static double
gemm_tiles_s(double M, double N, double K, double peak, double units, double tm, double inv_tm)
{
    double k_splits = floor(K * (1.0 / 512.0)), unit_peak = peak / units;
    double mt = ceil(M * inv_tm), nt128 = ceil(N * (1.0 / 128.0)), nt64 = ceil(N * (1.0 / 64.0));
    double w[4];
    int n = 2;
    w[0] = gemm_tiled_work(mt, nt128, K, units, k_splits, tm, 128);
    w[1] = gemm_tiled_work(mt, nt64, K, units, k_splits, tm, 64);
    if (tm > 16) { /* at 16 rows the half-height tiles are the same tiles */
        double mh = ceil(M * (2.0 * inv_tm));
        w[2] = gemm_tiled_work(mh, nt128, K, units, k_splits, tm / 2, 128);
        w[3] = gemm_tiled_work(mh, nt64, K, units, k_splits, tm / 2, 64);
        n = 4;
    }
    if (!(unit_peak > 0) || isinf(unit_peak)) { /* divide each, as the formula reads */
        double best = w[0] / unit_peak;
        for (int i = 1; i < n; i++)
            if (w[i] / unit_peak < best)
                best = w[i] / unit_peak;
        return best;
    }
    double least = w[0];
    for (int i = 1; i < n; i++)
        if (w[i] < least)
            least = w[i];
    return least / unit_peak;
}

/* rows rounded up to a power of two from 16 (tensor-core MMA height) to 128; the library
 * picks the tile shape that quantizes least (cuBLAS/CUTLASS heuristics) among 128 and 64
 * columns and full or half height. Tile sides are powers of two, so M / tm is M times the
 * exact reciprocal; and since a correctly rounded division by a positive unit peak is
 * monotone, the least time is the least work divided once. */
static double
tile_rows(double M, double *inv_tm)
{
    double tm = 16, inv = 1.0 / 16.0;
    while (tm < M && tm < 128) {
        tm *= 2;
        inv *= 0.5;
    }
    *inv_tm = inv;
    return tm;
}

double
roof_metal_core_util(const struct roof_metal *m, double simds)
{
    int n = m->occ_n;
    if (n < 1 || !(m->mm_simdgroups > 0))
        return 1.0;
    const double *s = m->core_simds, *cy = m->core_cycles;
    double full = cy[n - 1];
    if (!(simds < s[n - 1]))
        return 1.0;
    if (!(simds > s[0]))
        return full / cy[0];
    int i = 1;
    while (simds > s[i])
        i++;
    double c = cy[i - 1] + (cy[i] - cy[i - 1]) * (simds - s[i - 1]) / (s[i] - s[i - 1]);
    return full / c;
}

double
roof_gemm_fixed_tiles_s(double M, double N, double K, double peak, double units, double tm,
                        double tn, const struct roof_metal *occ)
{
    double tiles = ceil(M / tm) * ceil(N / tn);
    double n = ceil(tiles / units);
    double u = occ ? roof_metal_core_util(occ, n * occ->mm_simdgroups) : 1.0;
    return n * 2.0 * tm * tn * K / (peak / units) / u;
}

double
roof_gemm_compute_direct_s(double M, double N, double K, double peak, double units, double vec_peak)
{
    /* a single row is a GEMV: engines run it on the vector units, no tile padding */
    if (M < 1.5 && vec_peak > 0)
        return 2.0 * M * N * K / vec_peak;
    if (!(units > 0))
        return 2.0 * M * N * K / peak;
    double inv_tm, tm = tile_rows(M, &inv_tm);
    return gemm_tiles_s(M, N, K, peak, units, tm, inv_tm);
}

/* The tiled time depends on M only through the tile rows tm and the tile counts ceil(M / tm)
 * and ceil(2 M / tm), so a step's fractional rows (the analytic estimate's mean batches)
 * repeat the same few values: a per-thread direct-mapped memo keyed by every input the result
 * reads (tm, the two counts, N, K, peak, units; compared exactly, so a hit returns the very
 * double) saves the four tilings of each GEMM of each step. */
#define GEMM_MEMO_N 2048

struct gemm_memo {
    double tm, mt, mh, N, K, peak, units, t;
};

static _Thread_local struct gemm_memo gemm_memo[GEMM_MEMO_N];

static uint64_t
mix(uint64_t h, double x)
{
    uint64_t u;
    memcpy(&u, &x, sizeof u);
    h ^= u;
    h *= 0x9E3779B97F4A7C15ull;
    return h ^ (h >> 32);
}

double
roof_gemm_compute_s(double M, double N, double K, double peak, double units, double vec_peak)
{
    if ((M < 1.5 && vec_peak > 0) || !(units > 0))
        return roof_gemm_compute_direct_s(M, N, K, peak, units, vec_peak);
    double inv_tm, tm = tile_rows(M, &inv_tm);
    double mt = ceil(M * inv_tm), mh = tm > 16 ? ceil(M * (2.0 * inv_tm)) : 0;
    uint64_t h = mix(mix(mix(mix(mix(mix(0, tm), mh), N), K), peak), units);
    h = mix(h, mt);
    struct gemm_memo *e = &gemm_memo[h & (GEMM_MEMO_N - 1)];
    if (e->tm == tm && e->mt == mt && e->mh == mh && e->N == N && e->K == K && e->peak == peak &&
        e->units == units)
        return e->t;
    double t = gemm_tiles_s(M, N, K, peak, units, tm, inv_tm);
    *e = (struct gemm_memo){tm, mt, mh, N, K, peak, units, t};
    return t;
}

double
roof_attn_decode_s(const struct hw_profile *hw, const struct roof_tuning *tu, double seqs,
                   double kv_heads, double tokens, double bytes_per_token_head)
{
    double parts = ceil(tokens / ROOF_ATTN_PARTITION);
    if (parts < 1)
        parts = 1;
    return roof_attn_waves_s(hw, tu, seqs * kv_heads * parts, tokens / parts * bytes_per_token_head,
                             false);
}

double
roof_attn_waves_s(const struct hw_profile *hw, const struct roof_tuning *tu, double ctas,
                  double slice_bytes, bool whole_waves)
{
    double units = tu->compute_units;
    if (!(units > 0) || !(tu->memory_latency_s > 0))
        return -1.0;
    double bw_unit = roof_tuned_bandwidth(hw, tu, hw->memory_bandwidth_bytes_per_s) / units;
    double per_cta = slice_bytes / bw_unit;
    double floor_s = ROOF_ATTN_ROUND_TRIPS * tu->memory_latency_s;
    if (per_cta < floor_s)
        per_cta = floor_s;
    double waves = whole_waves ? ceil(ctas / units) : ctas / units;
    if (waves < 1)
        waves = 1;
    return waves * per_cta;
}

double
roof_metal_fa_vec_s(const struct hw_profile *hw, const struct roof_tuning *tu, double seqs,
                    double queries_per_seq, double q_heads, double kv_heads, double head_dim,
                    double tokens_per_seq, double bytes_per_token_head)
{
    double l2 = hw->cache_bandwidth_bytes_per_s[HW_L2];
    if (!(tu->metal.fa_vec_below > 0) || !(queries_per_seq < tu->metal.fa_vec_below) || !(l2 > 0) ||
        !(head_dim > 0) || fmod(head_dim, 32.0) != 0)
        return -1.0;
    /* the cores' data path: every query head's threadgroups load their KV head's cache; the
     * profile's L2 figure is taken as the achieved rate (no memory efficiency on top) */
    double t = seqs * q_heads * tokens_per_seq * bytes_per_token_head / l2;
    /* the kernel's own streaming rate of the cache, each KV head once */
    double f = tu->metal.fa_vec_kv_fraction, bw = hw->memory_bandwidth_bytes_per_s;
    if (f > 0 && bw > 0 && kv_heads > 0) {
        double tk = seqs * kv_heads * tokens_per_seq * bytes_per_token_head / (f * bw);
        if (tk > t)
            t = tk;
    }
    return t;
}

double
roof_tuned_peak(const struct hw_profile *hw, const struct roof_tuning *tu, enum dtype dt,
                enum dtype *used)
{
    double p = hw_peak(hw, dt, used);
    if (tu->fp16_accumulate && hw->fp16_acc16_flops_per_s > p &&
        (dt == DT_FP16 || (used && *used == DT_FP16)))
        p = hw->fp16_acc16_flops_per_s;
    return p * tu->compute_efficiency;
}

double
roof_tuned_bandwidth(const struct hw_profile *hw, const struct roof_tuning *tu, double bw)
{
    double b = bw * tu->memory_efficiency;
    /* Little's law: what the kernels keep in flight, over the memory latency */
    if (tu->inflight_bytes_per_unit > 0 && tu->memory_latency_s > 0) {
        double units = tu->compute_units > 0 ? tu->compute_units : hw->compute_units;
        if (units > 0) {
            double cap = units * tu->inflight_bytes_per_unit / tu->memory_latency_s;
            if (cap < b)
                b = cap;
        }
    }
    return b;
}

/* Interconnect traffic: `times` transfers of `bytes`, each taking `time_s`. */
static void
add_link(struct acc_ctx *c, enum roof_op op, double bytes, double time_s)
{
    if (!want(c, op))
        return;
    struct roof_op_result *r = &c->res->ops[op];
    r->present = true;
    r->instances += c->times;
    r->link_bytes += c->times * bytes;
    r->link_time_s += c->times * time_s;
    r->time_s += c->times * time_s;
}

double
roof_dequant_ops_per_weight(enum dtype w, enum dtype compute)
{
    if (w == compute)
        return 0.0;
    if (dtype_is_mix(w)) /* the bulk of a mix: its routed experts */
        w = dtype_part_format(w, DT_PART_EXPERTS);
    /* unpack, remove the zero point / offset, apply the scale (docs/physics.md#quantization) */
    switch (w) {
    case DT_Q4_K_M:
        return 4.0; /* two-level (super-block) scales */
    case DT_INT4:
    case DT_FP4:
    case DT_MXFP4: /* E2M1 code through a 16-entry table, the E8M0 block scale */
    case DT_Q4_0:
    case DT_Q4_1:
        return 3.0;
    case DT_Q8_0:
    case DT_INT8:
        return 2.0; /* convert, scale */
    case DT_FP8:
        return 1.0; /* convert */
    default:
        return 0.0;
    }
}

const char *
roof_metal_kernel_name(enum roof_metal_kernel k)
{
    switch (k) {
    case ROOF_METAL_MV:
        return "mul_mv";
    case ROOF_METAL_MV_EXT:
        return "mul_mv_ext";
    case ROOF_METAL_MM:
        return "mul_mm";
    default:
        return "";
    }
}

void
roof_metal_choose(const struct roof_metal *m, enum dtype w, double T, struct roof_metal_choice *out)
{
    double c = floor(T + 0.5);
    if (c < 1)
        c = 1;
    *out = (struct roof_metal_choice){ROOF_METAL_NONE, c, 0, T, 1.0, 1.0};
    if (!(m->mm_above > 0))
        return;
    if (c > m->mm_above) {
        double tile = m->mm_tile > 0 ? m->mm_tile : 1;
        out->kernel = ROOF_METAL_MM;
        out->paid_columns = ceil(c / tile) * tile;
        /* the column tiles of one weight tile run side by side: one read from memory, but each
         * threadgroup dequantizes the weight tile into its threadgroup memory itself */
        out->dequant_passes = ceil(c / tile);
        return;
    }
    out->kernel = ROOF_METAL_MV;
    if (c < 2)
        return; /* one column: T as given (a mean batch of the analytic estimate) */
    out->paid_columns = c;
    double g = c <= ROOF_METAL_EXT_MAX ? m->ext_group[(int)c] : 0;
    bool kquant = w == DT_Q4_K_M;
    if (g > 0 && !(kquant && c < m->ext_kquant_min)) {
        out->kernel = ROOF_METAL_MV_EXT;
        out->group = g;
        out->weight_reads = out->dequant_passes = ceil(c / g);
    } else {
        out->weight_reads = out->dequant_passes = c; /* plain mat-vec: one column per sweep */
    }
}

/* The storage format of a tensor class under the config's weight format (a mix stores each
 * class at its own width: docs/physics.md#moe-and-gguf-mixed-precision). */
static enum dtype
wfmt(const struct roof_config *cfg, enum dtype_part p)
{
    return dtype_part_format(cfg->weights, p);
}

/* ggml-cuda's MMQ runs this weight-only GEMM of `rows` rows (docs/physics.md#dgx-spark-gb10) */
static bool
mmq_applies(const struct roof_config *cfg, enum dtype wdt, double rows)
{
    const struct roof_tuning *tu = &cfg->tuning;
    double vec_rows = tu->mmq_above > 1 ? tu->mmq_above : 1;
    return tu->mmq && tu->mmq_tile_tokens > 0 && tu->mmq_tile_rows > 0 &&
           dtype_is_weight_only(wdt) && rows > vec_rows + 0.5;
}

double
roof_mmq_bytes(double rows, double n, double k, double weight_bytes, double experts, double act,
               double tile_tokens, double tile_rows, double *weights_read, double *act_read)
{
    double per_expert = experts > 1 ? rows / experts : rows;
    double col_tiles = ceil(per_expert / tile_tokens - 1e-9), row_tiles = ceil(n / tile_rows);
    if (col_tiles < 1)
        col_tiles = 1;
    double w = weight_bytes * col_tiles;
    /* the activations: read in `act` and written as q8_1 once (the quantize kernel), then read
     * by each of the row tiles */
    double q = rows * k * ROOF_MMQ_Q8_1_BYTES;
    double ain = rows * k * act + q + q * row_tiles;
    if (weights_read)
        *weights_read = w;
    if (act_read)
        *act_read = ain;
    return col_tiles;
}

/* A weight-only GEMM (dense, or the routed experts with `experts` > 0 of them touched) on MMQ;
 * `tile` tokens per column tile (0: the engine's mmq_tile_tokens). The routed experts pay the
 * arithmetic of whole column tiles: each touched expert's tile computes all its columns. */
static void
add_mmq(struct acc_ctx *c, enum roof_op op, enum dtype wdt, double rows, double n, double k,
        double weight_elems, double experts, double tile)
{
    if (!want(c, op))
        return;
    const struct roof_config *cfg = c->cfg;
    const struct roof_tuning *tu = &cfg->tuning;
    double a = dtype_bytes(cfg->act), w, ain;
    double tt = tile > 0 ? tile : tu->mmq_tile_tokens;
    double col_tiles = roof_mmq_bytes(rows, n, k, weight_elems * dtype_bytes(wdt), experts, a, tt,
                                      tu->mmq_tile_rows, &w, &ain);
    /* each weight tile is unpacked into shared memory once per column tile */
    double deq = weight_elems * roof_dequant_ops_per_weight(wdt, DT_INT8) * col_tiles;
    double paid = tile > 0 && experts > 0 ? experts * col_tiles * tt : rows;
    add_op(c, op,
           &(struct op_cost){.matmul = true,
                             .compute = DT_INT8,
                             .flops = 2.0 * paid * n * k,
                             .weight_bytes = w,
                             .act_in_bytes = ain,
                             .act_out_bytes = rows * n * a,
                             .vec_flops = deq,
                             .gemm_m = experts > 0 ? 0 : rows,
                             .gemm_n = experts > 0 ? 0 : n});
}

/* A weight GEMM: T tokens x (k -> n), weights n x k stored in `wdt`. */
static void
add_gemm(struct acc_ctx *c, enum roof_op op, enum dtype wdt, double T, double n, double k,
         double weight_elems)
{
    if (!want(c, op))
        return;
    const struct roof_config *cfg = c->cfg;
    double a = dtype_bytes(cfg->act);
    enum dtype compute = dtype_gemm_compute(wdt, cfg->act);
    const struct roof_tuning *tu = &cfg->tuning;
    if (mmq_applies(cfg, wdt, T)) {
        add_mmq(c, op, wdt, T, n, k, weight_elems, 0, 0);
        return;
    }
    double direct_rows = tu->dequant_buffer_above > 1 ? tu->dequant_buffer_above : 1;
    if (tu->dequant_buffer && dtype_is_weight_only(wdt) && T > direct_rows + 0.5) {
        /* convert the weights to the activation format in a buffer (read packed, write wide),
         * then a dense GEMM reading the wide copy (ggml-cuda's cuBLAS path); up to
         * dequant_buffer_above rows the engine's GEMV / quantized-GEMM kernels read the packed
         * weights directly (ggml-cuda's MMVQ and MMQ) */
        double wide = weight_elems * a, packed = weight_elems * dtype_bytes(wdt);
        add_op(c, op,
               &(struct op_cost){.matmul = true,
                                 .compute = compute,
                                 .flops = 2.0 * T * n * k,
                                 .weight_bytes = wide,
                                 .act_in_bytes = T * k * a,
                                 .act_out_bytes = T * n * a,
                                 .gemm_m = T,
                                 .gemm_n = n});
        struct roof_op_result *r = &c->res->ops[op];
        double bw = c->bw;
        double conv = (packed + wide) / bw + tu->memory_latency_s + tu->kernel_overhead_s;
        if (!c->time_only) {
            r->bytes_weights += c->times * packed;
            r->bytes_act_out += c->times * wide;
        }
        r->memory_time_s += c->times * (packed + wide) / bw;
        r->time_s += c->times * conv;
        return;
    }
    /* each weight is dequantized once per pass, whatever the rows: the tile is reused; on
     * Metal the kernel for T columns sets the passes and the columns paid for */
    struct roof_metal_choice mc;
    roof_metal_choose(&tu->metal, wdt, T, &mc);
    double deq = weight_elems * roof_dequant_ops_per_weight(wdt, compute);
    add_op(c, op,
           &(struct op_cost){.matmul = true,
                             .compute = compute,
                             .flops = 2.0 * mc.paid_columns * n * k,
                             .weight_bytes = mc.weight_reads * weight_elems * dtype_bytes(wdt),
                             .act_in_bytes = T * k * a,
                             .act_out_bytes = T * n * a,
                             .vec_flops = mc.dequant_passes * deq,
                             .gemm_m = mc.paid_columns,
                             .gemm_n = n,
                             .tile_m = mc.kernel == ROOF_METAL_MM ? tu->metal.mm_tile : 0,
                             .tile_n = tu->metal.mm_tile_rows});
}

/* Elementwise / reduction kernels run on the vector units at fp32. */
static void
add_vector(struct acc_ctx *c, enum roof_op op, double flops, double w, double ain, double aout)
{
    add_op(c, op,
           &(struct op_cost){.compute = DT_FP32,
                             .flops = flops,
                             .weight_bytes = w,
                             .act_in_bytes = ain,
                             .act_out_bytes = aout});
}

/* Query-key pairs of one sequence's causal attention. Prefill of P new tokens after `past`
 * cached ones: sum over i = 1..P of min(past + i, window). */
static double
causal_pairs(double past, double P, double window)
{
    if (window <= 0)
        return P * past + P * (P + 1.0) / 2.0;
    double pairs = 0;
    /* tokens whose span is still under the window */
    double lo = past + 1, hi = past + P; /* spans */
    double under_hi = hi < window ? hi : window;
    if (under_hi >= lo)
        pairs += (under_hi * (under_hi + 1) - (lo - 1) * lo) / 2.0;
    double over = hi - (under_hi > lo - 1 ? under_hi : lo - 1);
    if (over > 0)
        pairs += over * window;
    return pairs;
}

/* Expected distinct experts touched when T tokens each pick k of E uniformly at random:
 * E (1 - (1 - k/E)^T). docs/physics.md#operators */
static double
distinct_experts(double E, double k, double T)
{
    if (E <= 0)
        return 0;
    return E * (1.0 - pow(1.0 - k / E, T));
}

/* The expected maximum of n independent standard normals, E = integral of x n phi(x) Phi(x)^(n-1)
 * dx, by GSL's adaptive quadrature on the whole line, each n computed on first use and kept
 * (docs/physics.md#expert-parallelism: 0.5642 at 2, 1.0294 at 4, 1.4236 at 8) */
#define ROOF_EP_MAX 256
static double normal_max[ROOF_EP_MAX + 1]; /* 0 = not computed yet */
static pthread_mutex_t normal_max_lock = PTHREAD_MUTEX_INITIALIZER;

static double
normal_max_integrand(double x, void *p)
{
    double n = *(const double *)p;
    return x * n * gsl_ran_ugaussian_pdf(x) * pow(gsl_cdf_ugaussian_P(x), n - 1.0);
}

static double
normal_max_integral(int n)
{
    gsl_integration_workspace *w = gsl_integration_workspace_alloc(200);
    double nd = n, r = 0, err = 0;
    gsl_function f = {normal_max_integrand, &nd};
    /* the integrand is negligible beyond |x| = 12 for every n here */
    if (!w || gsl_integration_qag(&f, -12.0, 12.0, 1e-12, 1e-10, 200, GSL_INTEG_GAUSS61, w, &r,
                                  &err) != 0)
        r = 0;
    if (w)
        gsl_integration_workspace_free(w);
    return r;
}

double
roof_normal_max_mean(int n)
{
    if (n <= 1)
        return 0;
    if (n > ROOF_EP_MAX)
        n = ROOF_EP_MAX;
    pthread_mutex_lock(&normal_max_lock);
    if (!(normal_max[n] > 0))
        normal_max[n] = normal_max_integral(n);
    double v = normal_max[n];
    pthread_mutex_unlock(&normal_max_lock);
    return v;
}

/* E[max of m independent Binomial(n, p)] = sum over a >= 1 of 1 - F(a - 1)^m, F the binomial CDF
 * (GSL); the terms below mean - 12 sd are 1 and those above mean + 12 sd are 0 to double
 * precision. Past a standard deviation of 10 the normal approximation's error is below 0.1%. */
static double
binomial_max_mean(double n, double p, int m)
{
    if (!(n > 0) || !(p > 0))
        return 0;
    if (p >= 1)
        return n;
    double mu = n * p, sd = sqrt(n * p * (1.0 - p));
    if (m <= 1)
        return mu;
    if (sd > 10.0 || n > 4.0e9) {
        double v = mu + sd * roof_normal_max_mean(m);
        return v < n ? v : n;
    }
    unsigned int N = (unsigned int)floor(n + 0.5);
    double lo = floor(mu - 12.0 * sd), hi = ceil(mu + 12.0 * sd) + 1.0;
    unsigned int a0 = lo > 1.0 ? (unsigned int)lo : 1u, a1 = hi < N ? (unsigned int)hi : N;
    double e = a0 - 1.0; /* P(max >= a) = 1 for a < a0 */
    for (unsigned int a = a0; a <= a1; a++)
        e += 1.0 - pow(gsl_cdf_binomial_P(a - 1, p, N), m);
    return e;
}

/* The last arguments and value of binomial_max_mean in this thread: every MoE layer of a pass
 * asks for the same T (a sum of up to a few hundred CDF terms each time otherwise) */
struct binomial_max_memo {
    double n, p, v;
    int m;
    bool set;
};

static double
binomial_max_memo(struct binomial_max_memo *c, double n, double p, int m)
{
    if (!(c->set && c->n == n && c->p == p && c->m == m))
        *c = (struct binomial_max_memo){n, p, binomial_max_mean(n, p, m), m, true};
    return c->v;
}

double
roof_ep_touched_max(double E, double k, double T, int ep)
{
    static _Thread_local struct binomial_max_memo memo;
    if (ep <= 1 || !(E > 0))
        return distinct_experts(E, k, T);
    return binomial_max_memo(&memo, E / ep, 1.0 - pow(1.0 - k / E, T), ep);
}

double
roof_ep_pairs_max(double pairs, int ep)
{
    static _Thread_local struct binomial_max_memo memo;
    if (ep <= 1)
        return pairs;
    return binomial_max_memo(&memo, pairs, 1.0 / ep, ep);
}

const char *
roof_moe_kernel_name(enum roof_moe_kernel k)
{
    switch (k) {
    case ROOF_MOE_METAL_MV_ID:
        return "mul_mv_id";
    case ROOF_MOE_METAL_MM_ID:
        return "mul_mm_id";
    case ROOF_MOE_MMVQ:
        return "mmvq";
    case ROOF_MOE_MMQ:
        return "mmq";
    default:
        return "";
    }
}

/* docs/physics.md#moe-kernels: which kernel runs the routed experts of T tokens, how many expert
 * matrices it reads and how many columns' arithmetic it pays */
void
roof_moe_choose(const struct roof_tuning *tu, double E, double k, double T,
                struct roof_moe_choice *out)
{
    double d = distinct_experts(E, k, T), pairs = T * k;
    *out = (struct roof_moe_choice){ROOF_MOE_READ_ONCE, d, 0, d, pairs, d};
    if (!(d > 0))
        return;
    const struct roof_metal *m = &tu->metal;
    if (m->mm_above > 0 && m->mm_id_min > 0) {
        double c = floor(T + 0.5); /* whole tokens: ne21 of the MUL_MAT_ID node */
        if (c < 1)
            c = 1;
        if (c < m->mm_id_min) {
            /* mul_mv_id: the grid's third dimension is the (token, expert) pairs, each a
             * mat-vec over its expert's whole matrix: no pair shares another's read */
            out->kernel = ROOF_MOE_METAL_MV_ID;
            out->expert_reads = out->dequant_passes = out->paid_columns = c * k;
            return;
        }
        /* mul_mm_id: per expert, tiles of mm_tile of its own tokens; a touched expert's tiles
         * share one read of its weights and each dequantizes its weight tile */
        double tile = m->mm_tile > 0 ? m->mm_tile : 1;
        double ct = ceil(c * k / d / tile - 1e-9);
        if (ct < 1)
            ct = 1;
        out->kernel = ROOF_MOE_METAL_MM_ID;
        out->tile = tile;
        out->paid_columns = d * ct * tile;
        out->dequant_passes = d * ct;
        return;
    }
    if (tu->mmq && tu->mmq_tile_tokens > 0 && tu->mmq_tile_rows > 0 && tu->mmq_id_above > 0) {
        if (T <= tu->mmq_id_above + 0.5) {
            out->kernel = ROOF_MOE_MMVQ; /* one read of each touched expert, no tiles */
            return;
        }
        /* MMQ: the tile width that needs fewest column tiles for ncols_max = the tokens (an
         * expert can get every token): the least multiple of the step that holds them */
        double step = tu->mmq_tile_step > 0 ? tu->mmq_tile_step : tu->mmq_tile_tokens;
        double c = ceil(T - 1e-9);
        double tile = step * ceil(c / step - 1e-9);
        if (tile > tu->mmq_tile_tokens)
            tile = tu->mmq_tile_tokens;
        double ct = ceil(pairs / d / tile - 1e-9);
        if (ct < 1)
            ct = 1;
        out->kernel = ROOF_MOE_MMQ;
        out->tile = tile;
        out->expert_reads = out->dequant_passes = d * ct;
        out->paid_columns = d * ct * tile;
    }
}

/* llama.cpp's build_moe_ffn (src/llama-graph.cpp at 434f71a5b4d1ff9c9c9b59e08326f0fe3d15193a)
 * adds these nodes per MoE layer: the router MUL_MAT (plus ADD of its bias for gpt-oss), the
 * gating SOFT_MAX or SIGMOID (gpt-oss: SOFTMAX_WEIGHT, a SOFT_MAX over the k picked weights after
 * the top-k instead), DeepSeek-V3's selection-bias ADD and its group-limited routing (TOP_K,
 * GET_ROWS, SUM_ROWS, TOP_K, GET_ROWS, SCALE, SET_ROWS), TOP_K, GET_ROWS of the weights,
 * SUM_ROWS and DIV when the weights are normalized (norm_w), SCALE when scaled (scale_w),
 * MUL_MAT_ID up and gate, the GLU, MUL_MAT_ID down, ADD_ID of each expert bias (gpt-oss),
 * MUL by the weights, and k - 1 ADDs of the experts' views; a shared expert is build_ffn's
 * four nodes and one ADD. norm_w / scale_w / gating per architecture as llama-model.cpp passes
 * them: qwen3_moe and mixtral softmax + norm_w; deepseek_v2 softmax + scale_w (V2-Lite's
 * expert_weights_norm is false); deepseek_v3 sigmoid + bias + groups + norm_w + scale_w. The
 * architecture is m->moe_graph, resolved when the profile was read. */
void
roof_moe_graph_kernels(const struct mdl_profile *m, double add_fuse, struct roof_moe_graph *out)
{
    memset(out, 0, sizeof *out);
    if (!m || m->n_experts <= 0 || m->experts_per_token <= 0)
        return;
    enum mdl_moe_graph kind = m->moe_graph;
    bool oss = kind == MDL_MOE_GRAPH_GPT_OSS, v3 = kind == MDL_MOE_GRAPH_DEEPSEEK_V3;
    bool v2 = kind == MDL_MOE_GRAPH_DEEPSEEK_V2;
    bool norm = v3 || kind == MDL_MOE_GRAPH_NORM;
    double k = (double)m->experts_per_token;
    double fuse = add_fuse >= 1 ? floor(add_fuse) : 1.0;
    /* router, gating (gpt-oss: logits bias and the softmax after the top-k), top-k, get_rows */
    out->routing = 1.0 + (oss ? 2.0 : 1.0) + 2.0;
    if (v3)
        out->routing += 1.0 + 7.0;
    if (norm)
        out->routing += 2.0;
    if (v2 || v3)
        out->routing += 1.0;
    out->experts = 4.0 + (oss ? 3.0 : 0.0);
    out->combine = 1.0 + ceil((k - 1.0) / fuse - 1e-9);
    out->shared = m->n_shared_experts > 0 ? 5.0 : 0.0;
    out->total = out->routing + out->experts + out->combine + out->shared;
    out->uncharged = out->total - 5.0;
}

bool
roof_triton_moe_device(double cc)
{
    return cc >= 9.0 && !(cc >= 10.0 && cc < 11.0);
}

double
roof_triton_moe_extra(double launches)
{
    return launches > 4.0 ? launches - 4.0 : 0.0;
}

double
roof_fused_moe_extra(const struct roof_tuning *tu, bool fp8, bool sum_charged)
{
    if (!(tu->fused_moe_kernels > 0))
        return 0.0;
    double chain = tu->fused_moe_kernels + (fp8 ? 2.0 * tu->fused_moe_quant_kernels : 0.0);
    double own = 4.0 + (sum_charged ? 1.0 : 0.0);
    return chain > own ? chain - own : 0.0;
}

bool
roof_mxfp4_marlin_format(const struct mdl_profile *m, enum dtype weights, enum dtype act)
{
    return m && m->n_experts > 0 && dtype_part_format(weights, DT_PART_EXPERTS) == DT_MXFP4 &&
           (act == DT_FP16 || act == DT_BF16);
}

bool
roof_moe_marlin(const struct roof_config *cfg)
{
    if (!(cfg->tuning.marlin_moe_vs_peak > 0))
        return false;
    if (cfg->mxfp4_marlin && roof_mxfp4_marlin_format(cfg->model, cfg->weights, cfg->act))
        return true;
    /* int4 experts take it by default */
    return cfg->model && cfg->model->n_experts > 0 && wfmt(cfg, DT_PART_EXPERTS) == DT_INT4 &&
           (cfg->act == DT_FP16 || cfg->act == DT_BF16);
}

void
roof_marlin_dims(enum dtype we, double h, double I, double *hp, double *Ip)
{
    /* vLLM Mxfp4MoEMethod.create_weights, Marlin backend: "The moe marlin kernel requires that
     * for each linear n % 256 == 0 and k % 128 == 0", so round_up(intermediate, 128) and
     * round_up(hidden, 256) */
    bool mx = we == DT_MXFP4;
    *hp = mx ? ceil(h / 256.0) * 256.0 : h;
    *Ip = mx ? ceil(I / 128.0) * 128.0 : I;
}

void
roof_moe_dims(const struct roof_config *cfg, double h, double I, double *hp, double *Ip)
{
    enum dtype we = wfmt(cfg, DT_PART_EXPERTS);
    *hp = h;
    *Ip = I;
    if (roof_moe_marlin(cfg))
        roof_marlin_dims(we, h, I, hp, Ip);
    else if (we == DT_MXFP4 && cfg->tuning.triton_moe_kernels > 0)
        *Ip = ceil(I / 64.0) * 64.0; /* the triton_kernels path's own alignment */
}

/* With the kernel model on, decode attention is one fused kernel whose memory side follows the
 * CTA-wave model; its time replaces the streaming estimate of the score and PV operators. */
static void
fused_decode_attention(struct acc_ctx *c, const struct batch_agg *b, double tokens_per_seq,
                       double kv_heads, double bytes_per_token_head)
{
    if (!want(c, ROOF_OP_ATTN_SCORE) || !want(c, ROOF_OP_ATTN_AV))
        return;
    const struct roof_tuning *tu = &c->cfg->tuning;
    const struct mdl_profile *m = c->cfg->model;
    double t =
        roof_attn_decode_s(c->cfg->hw, tu, b->seqs, kv_heads, tokens_per_seq, bytes_per_token_head);
    if (t < 0)
        return;
    /* Metal's vector kernel: the keys and values cross each core's data path once per query
     * head, and the kernel streams the cache at its own rate; the memory side stays the larger */
    double tv =
        roof_metal_fa_vec_s(c->cfg->hw, tu, b->seqs, b->tokens / b->seqs, (double)m->num_heads,
                            kv_heads, (double)m->head_dim, tokens_per_seq, bytes_per_token_head);
    if (tv > t)
        t = tv;
    struct roof_op_result *sc = &c->res->ops[ROOF_OP_ATTN_SCORE];
    struct roof_op_result *av = &c->res->ops[ROOF_OP_ATTN_AV];
    /* the last add() of each op was this layer class: replace its memory term and time; one
     * launch for the fused kernel */
    double times = c->times;
    double per_op = t / 2.0;
    double launch = tu->kernel_overhead_s / 2.0;
    for (int i = 0; i < 2; i++) {
        struct roof_op_result *o = i == 0 ? sc : av;
        double last_m = o->last_memory_s, last_c = o->last_compute_s;
        o->memory_time_s += times * (per_op - last_m);
        double before = (last_c > last_m ? last_c : last_m) + tu->kernel_overhead_s;
        double after = (last_c > per_op ? last_c : per_op) + launch;
        o->time_s += times * (after - before);
    }
}

/* consecutive ADDs one Metal kernel runs: ggml-metal-ops.cpp ggml_metal_op_bin, 'for (n_fuse =
 * 0; n_fuse <= 6; ++n_fuse)' over fops[8] = GGML_OP_ADD (the ADD chain c[i] = add(c[i-1],
 * b[i]) with b[i] of one layout in one buffer) */
#define ROOF_METAL_ADD_FUSE 8.0

/* The softmax attention of a layer over `ab`'s rows: the q/k/v projection, scores, softmax,
 * the product with the values and o_proj (MLA's naive or absorbed form, or standard heads). */
static void
add_attention(struct acc_ctx *c, const struct batch_agg *ab, bool windowed)
{
    const struct roof_config *cfg = c->cfg;
    const struct mdl_profile *m = cfg->model;
    bool prefill = cfg->phase == ROOF_PREFILL;
    double T = ab->tokens;
    double h = (double)m->hidden_size, H = (double)m->num_heads;
    double a = dtype_bytes(cfg->act), kvb = dtype_bytes(cfg->kv);
    const struct attn_agg *ag = windowed ? &ab->windowed : &ab->full;
    double dqk = (double)mdl_qk_head_dim(m), dv = (double)mdl_v_head_dim(m);
    double qd = H * dqk;
    /* the attention's two GEMMs multiply the queries (activations) by the keys and values,
     * which come from the KV cache (or, in MLA's prefill, from the kv_b GEMM's output); one MMA
     * takes both operands in one format, so the tensor-core rate is the wider of the activation
     * and KV formats: fp8 weights with a bf16 cache attend in bf16
     * (docs/physics.md#operators, the attention's format) */
    enum dtype att_compute = dtype_gemm_compute(cfg->kv, cfg->act);
    double kv_elems = mdl_kv_elems_per_token_layer(m);
    double pairs = ag->pairs;     /* query-key pairs per head, all sequences */
    double visible = ag->visible; /* keys read, all sequences */

    if (mdl_is_mla(m)) {
        double kvr = (double)m->kv_lora_rank, rope = (double)m->qk_rope_head_dim;
        double nope = (double)m->qk_nope_head_dim;
        double qr = (double)m->q_lora_rank;
        /* q path, latent KV down-projection; the KV write is the latent cache */
        double wq = qr > 0 ? h * qr + qr * qd : h * qd;
        double wkv_a = h * (kvr + rope);
        double wkv_b = kvr * H * (nope + dv);
        double flops_q = qr > 0 ? 2.0 * T * (h * qr + qr * qd) : 2.0 * T * h * qd;
        double wb = dtype_bytes(wfmt(cfg, DT_PART_ATTN_QKV));
        enum dtype gc = dtype_gemm_compute(wfmt(cfg, DT_PART_ATTN_QKV), cfg->act);
        /* exp, max, sum and scale run on the vector units in fp32 (FlashAttention keeps the
         * softmax off the tensor cores), as in the standard branch; fused, so no bytes */
        const struct op_cost softmax = {.compute = DT_FP32, .flops = 5.0 * pairs * H};
        if (prefill) {
            /* naive form: decompress K and V for the new tokens (kv_b on T rows) */
            add_op(c, ROOF_OP_QKV,
                   &(struct op_cost){.matmul = true,
                                     .compute = gc,
                                     .flops = flops_q + 2.0 * T * h * (kvr + rope) +
                                              2.0 * T * kvr * H * (nope + dv),
                                     .weight_bytes = (wq + wkv_a + wkv_b) * wb,
                                     .act_in_bytes = T * h * a,
                                     .act_out_bytes = T * (qd + H * (nope + dv)) * a,
                                     .kv_write_bytes = T * kv_elems * kvb});
            add_op(c, ROOF_OP_ATTN_SCORE,
                   &(struct op_cost){.matmul = true,
                                     .compute = att_compute,
                                     .flops = 2.0 * pairs * H * dqk,
                                     .act_in_bytes = T * qd * a + visible * H * dqk * a});
            add_op(c, ROOF_OP_SOFTMAX, &softmax);
            add_op(c, ROOF_OP_ATTN_AV,
                   &(struct op_cost){.matmul = true,
                                     .compute = att_compute,
                                     .flops = 2.0 * pairs * H * dv,
                                     .act_in_bytes = visible * H * dv * a,
                                     .act_out_bytes = T * H * dv * a});
        } else {
            /* absorbed form (DeepSeek-V2 sec. 2.1.2): q_nope is multiplied into the latent space,
             * attention runs over the shared latent cache, W_UV is applied after */
            add_op(c, ROOF_OP_QKV,
                   &(struct op_cost){.matmul = true,
                                     .compute = gc,
                                     .flops = flops_q + 2.0 * T * h * (kvr + rope) +
                                              2.0 * T * H * nope * kvr,
                                     .weight_bytes = (wq + wkv_a + wkv_b) * wb,
                                     .act_in_bytes = T * h * a,
                                     .act_out_bytes = T * H * (kvr + rope) * a,
                                     .kv_write_bytes = T * kv_elems * kvb});
            add_op(c, ROOF_OP_ATTN_SCORE,
                   &(struct op_cost){.matmul = true,
                                     .compute = att_compute,
                                     .flops = 2.0 * pairs * H * (kvr + rope),
                                     .act_in_bytes = T * H * (kvr + rope) * a,
                                     .kv_read_bytes = visible * kv_elems * kvb});
            add_op(c, ROOF_OP_SOFTMAX, &softmax);
            add_op(c, ROOF_OP_ATTN_AV,
                   &(struct op_cost){.matmul = true,
                                     .compute = att_compute,
                                     .flops = 2.0 * pairs * H * kvr + 2.0 * T * H * kvr * dv,
                                     .act_out_bytes = T * H * dv * a});
        }
    } else {
        double kvd = (double)m->num_kv_heads * (double)m->head_dim;
        /* gated attention: q_proj gives a gate a query element too (twice the width) */
        double qw = m->attn_output_gate ? 2.0 * qd : qd;
        double wqkv = h * (qw + 2.0 * kvd);
        /* Q goes on as an activation; K and V are written to the KV cache */
        enum dtype wo = wfmt(cfg, DT_PART_ATTN_QKV);
        double wb = dtype_bytes(wo);
        struct roof_metal_choice mc; /* Metal's kernel for T columns (none elsewhere) */
        roof_metal_choose(&cfg->tuning.metal, wo, T, &mc);
        add_op(
            c, ROOF_OP_QKV,
            &(struct op_cost){.matmul = true,
                              .compute = dtype_gemm_compute(wo, cfg->act),
                              .flops = 2.0 * mc.paid_columns * h * (qw + 2.0 * kvd),
                              .weight_bytes = mc.weight_reads * wqkv * wb,
                              /* Metal's mul_mm: q, k and v in its fixed tiles (the three
                               * run concurrently); elsewhere no wave model here */
                              .gemm_m = mc.kernel == ROOF_METAL_MM ? mc.paid_columns : 0,
                              .gemm_n = qw + 2.0 * kvd,
                              .tile_m = mc.kernel == ROOF_METAL_MM ? cfg->tuning.metal.mm_tile : 0,
                              .tile_n = cfg->tuning.metal.mm_tile_rows,
                              .act_in_bytes = T * h * a,
                              .act_out_bytes = T * qw * a,
                              .kv_write_bytes = T * 2.0 * kvd * kvb});
        double k_read = visible * kvd * kvb; /* compulsory: each key once */
        double score_pairs = pairs;
        /* unfused (docs/physics.md#unfused-attention): the scores go through memory, a write
         * and a read in each of the three kernels; the product runs over the whole n_kv x
         * n_tokens rectangle (the mask zeroes the future), and each query head's GEMM reads its
         * KV head's keys and values itself, so a grouped-query cache is read once per query
         * head, not once per KV head */
        double sc_kq = 0, sc_soft_in = 0, sc_soft_out = 0, sc_av = 0;
        if (!roof_flash_attention(cfg)) {
            double elems = H * ag->score;
            double sb = cfg->tuning.score_bytes;
            if (sb > 0) {
                sc_kq = sc_av = elems * sb / 3.0;
                sc_soft_in = sc_soft_out = elems * sb / 6.0;
            } else {
                sc_kq = sc_soft_in = sc_soft_out = sc_av = elems * a;
            }
            score_pairs = ag->score;
            /* the query heads of one KV head run side by side (one batched GEMM over all
             * heads): where a layer's keys fit in the GPU's L2 the repeated reads hit there
             * and memory sees each key once; where they do not, each is a memory read */
            double l2 = cfg->hw->cache_bytes[HW_L2];
            bool in_l2 = l2 > 0 && k_read <= l2;
            if (m->num_kv_heads > 0 && m->num_heads > m->num_kv_heads && !in_l2)
                k_read *= H / (double)m->num_kv_heads;
        }
        /* fused prefill on ggml-cuda (docs/physics.md#prefill-attention): each CTA loads the
         * KQ mask's rows of its ncols1 tokens for every KV tile it visits; the mask is one
         * tensor broadcast over the heads, and a CTA holds ncols2 query heads of one KV head
         * (ncols2 = 8, 4 or 2, the largest that divides the GQA ratio, else 1), so the mask's
         * visited elements are read once per head group */
        double mask_in = 0;
        if (prefill && roof_flash_attention(cfg) && cfg->tuning.fa_mask_bytes > 0)
            mask_in = pairs * (H / roof_fa_head_group(H, (double)m->num_kv_heads)) *
                      cfg->tuning.fa_mask_bytes;
        /* scores: Q K^T over the visible keys; softmax; probabilities x V */
        add_op(c, ROOF_OP_ATTN_SCORE,
               &(struct op_cost){.matmul = true,
                                 .compute = att_compute,
                                 .flops = 2.0 * score_pairs * H * dqk,
                                 .act_in_bytes = T * qd * a + mask_in,
                                 .act_out_bytes = sc_kq,
                                 .kv_read_bytes = k_read});
        add_op(c, ROOF_OP_SOFTMAX,
               &(struct op_cost){.compute = DT_FP32,
                                 .flops = 5.0 * score_pairs * H,
                                 .act_in_bytes = sc_soft_in,
                                 .act_out_bytes = sc_soft_out});
        add_op(c, ROOF_OP_ATTN_AV,
               &(struct op_cost){.matmul = true,
                                 .compute = att_compute,
                                 .flops = 2.0 * score_pairs * H * dv,
                                 .act_in_bytes = sc_av,
                                 .act_out_bytes = T * H * dv * a,
                                 .kv_read_bytes = k_read});
        if (!prefill && roof_flash_attention(cfg) && ab->seqs > 0)
            fused_decode_attention(c, ab, visible / ab->seqs, (double)m->num_kv_heads,
                                   (double)m->head_dim * 2.0 * kvb);
        /* the gate: the attention's output times sigmoid(gate), about 5 FLOP an element */
        if (m->attn_output_gate)
            add_vector(c, ROOF_OP_O_PROJ, 5.0 * T * qd, 0, 2.0 * T * qd * a, T * qd * a);
    }
    add_gemm(c, ROOF_OP_O_PROJ, wfmt(cfg, DT_PART_ATTN_O), T, h, H * dv, H * dv * h);
}

/* the gated delta rule's chunk in the chunked (WY) form: FLA's chunk_gated_delta_rule and
 * transformers' torch_chunk_gated_delta_rule (chunk_size = 64) */
#define ROOF_GDN_CHUNK 64.0

/* A gated DeltaNet layer in place of the attention (Qwen3-Next, Qwen3.5;
 * docs/physics.md#linear-attention): in_proj_qkvz and in_proj_ba as one GEMM, then the
 * convolution, the gates, the delta-rule recurrence over a fixed state a sequence and the gated
 * norm (ROOF_OP_LINEAR_ATTN), then out_proj (ROOF_OP_O_PROJ). Each sequence's state is read and
 * written once a pass, whatever its length. As vLLM's layer splits a batch, the sequences of one
 * new token take the recurrent kernels and the others (prompts, chunks) the chunked ones. */
static void
add_linear_attention(struct acc_ctx *c, const struct batch_agg *ab)
{
    const struct roof_config *cfg = c->cfg;
    const struct mdl_profile *m = cfg->model;
    /* the layer's kernels work in the model's 16-bit format whatever the GEMMs' activations
     * (an fp8 GEMM's input is quantized for it alone) */
    double h = (double)m->hidden_size, a = fmax(dtype_bytes(cfg->act), 2.0);
    double Hv = (double)m->lin_value_heads, dk = (double)m->lin_key_dim;
    double dv = (double)m->lin_value_dim, Kc = (double)m->lin_conv_kernel;
    double kd = (double)m->lin_key_heads * dk, vd = Hv * dv, conv = mdl_linear_conv_dim(m);
    /* a gated DeltaNet's q, k, v, z, b and a; a Mamba-2 mixer's z, x, B, C and dt */
    bool mamba2 = m->lin_kind == MDL_LINEAR_MAMBA2;
    double proj = 2.0 * kd + 2.0 * vd + (mamba2 ? 1.0 : 2.0) * Hv;
    double T = ab->tokens;
    add_gemm(c, ROOF_OP_QKV, wfmt(cfg, DT_PART_ATTN_QKV), T, proj, h, h * proj);
    double S = mdl_linear_state_elems(m), seq_state = mdl_linear_state_bytes_per_layer(m);
    /* a token's convolution (2 Kc FLOP an element), gates (about 10 FLOP a value head) and
     * gated RMSNorm (about 8 FLOP an element: the norm and silu(z)); its activations: the
     * convolution reads and writes q, k and v, the recurrence reads them and the gates and
     * writes its output, the norm reads it with z and writes the result */
    double side = 2.0 * Kc * conv + 10.0 * Hv + 8.0 * vd;
    double ain = (2.0 * conv + 2.0 * vd + 2.0 * Hv) * a, aout = (conv + 2.0 * vd) * a;
    double Td = ab->decode_seqs, Tp = T - Td, Sp = ab->seqs - Td;
    if (Td > 0)
        /* recurrent, a token at a time, in fp32 on the vector units: the delta rule decays the
         * state, takes S k, adds the rank-1 update and S q, about 7 FLOP a state element
         * (kernels: the convolution's update, the gates, fused_recurrent_gated_delta_rule and
         * the norm); Mamba-2 decays it, adds dt x B^T and takes S C, about 5 (kernels:
         * causal_conv1d_update, selective_state_update, the norm) */
        add_op(c, ROOF_OP_LINEAR_ATTN,
               &(struct op_cost){.compute = DT_FP32,
                                 .flops = Td * ((mamba2 ? 5.0 : 7.0) * S + side),
                                 .act_in_bytes = Td * ain,
                                 .act_out_bytes = Td * aout,
                                 .kv_read_bytes = Td * seq_state,
                                 .kv_write_bytes = Td * seq_state,
                                 .kernels = mamba2 ? 3.0 : 4.0});
    if (Tp > 0 && Sp > 0) {
        /* chunked: per token and value head 6 C dk + 4 C dv + 6 dk dv + C^2 / 3 FLOP on the
         * matrix units (the WY form's products within a chunk, the state's update and its
         * product with the queries), and each chunk's state written and read back in the
         * activations' format (chunk_delta_h's h); kernels: the convolution, the gates, six
         * stages of the chunked rule (cumsum, kkt, solve_tril, recompute_w_u, chunk_delta_h,
         * chunk_o) and the norm */
        double C = m->lin_chunk > 0 ? (double)m->lin_chunk : ROOF_GDN_CHUNK;
        double per = Hv * (6.0 * C * dk + 4.0 * C * dv + 6.0 * dk * dv + C * C / 3.0);
        /* Mamba-2's state-space duality (Dao and Gu 2024, ssd_minimal): per token C B^T within
         * the chunk for each group (2 C N), its product with x and the chunk's states in and
         * out for each head (2 C P + 4 N P); kernels: the convolution, chunk_cumsum,
         * chunk_state, state_passing, bmm_chunk, chunk_scan and the norm */
        if (mamba2)
            per = (double)m->lin_key_heads * 2.0 * C * dk + Hv * (2.0 * C * dv + 4.0 * dk * dv);
        double chunk_states = (ceil(Tp / C) + Sp) * S * a;
        add_op(c, ROOF_OP_LINEAR_ATTN,
               &(struct op_cost){.matmul = true,
                                 .compute = a > 2.0 ? DT_FP32 : DT_BF16,
                                 .flops = Tp * per,
                                 .vec_flops = Tp * side,
                                 .act_in_bytes = Tp * ain + chunk_states,
                                 .act_out_bytes = Tp * aout + chunk_states,
                                 .kv_read_bytes = Sp * seq_state,
                                 .kv_write_bytes = Sp * seq_state,
                                 .kernels = mamba2 ? 7.0 : 9.0});
    }
    add_gemm(c, ROOF_OP_O_PROJ, wfmt(cfg, DT_PART_ATTN_O), T, h, vd, vd * h);
}

/* A layer's mixer and MLP by kind (a Nemotron-H layer has one of the two) */
enum layer_mixer { MIX_FULL, MIX_WINDOW, MIX_LINEAR, MIX_NONE, MIX_KINDS };
enum layer_ffn { FFN_DENSE, FFN_MOE, FFN_NONE, FFN_KINDS };

/* An MLP's activation on `elems` intermediate elements: gated, act(gate) x up, about 5 FLOP an
 * element (SiLU's exp, add, divide, multiply; the gate's product) on two inputs; Nemotron-H's
 * ungated relu^2, 2 FLOP an element on one */
static void
add_mlp_act(struct acc_ctx *c, double elems)
{
    bool gated = !c->cfg->model->mlp_ungated;
    double a = dtype_bytes(c->cfg->act);
    add_vector(c, ROOF_OP_MLP_ACT, (gated ? 5.0 : 2.0) * elems, 0, (gated ? 2.0 : 1.0) * elems * a,
               elems * a);
}

/* An MLP's gate (when gated), up, activation and down on `rows` rows of width I with weight
 * format `w` */
static void
add_dense_mlp(struct acc_ctx *c, enum dtype w, double rows, double I, double weights_per_mat)
{
    const struct mdl_profile *m = c->cfg->model;
    double h = (double)m->hidden_size;
    if (!m->mlp_ungated)
        add_gemm(c, ROOF_OP_MLP_GATE, w, rows, I, h, weights_per_mat);
    add_gemm(c, ROOF_OP_MLP_UP, w, rows, I, h, weights_per_mat);
    add_mlp_act(c, rows * I);
    add_gemm(c, ROOF_OP_MLP_DOWN, w, rows, h, I, weights_per_mat);
}

static void
add_layer(struct acc_ctx *c, const struct batch_agg *b, enum layer_mixer mixer, enum layer_ffn ffn)
{
    /* with the dense parts on each rank (roof_attn_dp_dense_rank) the dense MLP and the shared
     * experts run on the rank's rows too; only the routed experts take every rank's */
    bool rank_dense = roof_attn_dp_dense_rank(c->cfg);
    const struct roof_config *cfg = c->cfg;
    const struct mdl_profile *m = cfg->model;
    /* data-parallel attention: the norms, the attention and the residual adds run on the
     * busiest rank's rows (ab), the MLP on every rank's (b) */
    const struct batch_agg *ab = c->attn ? c->attn : b;
    double T = ab->tokens; /* rows of the activation matrix (the attention's) */
    double h = (double)m->hidden_size;
    double a = dtype_bytes(cfg->act);

    if (mixer != MIX_NONE) {
        /* attention norm (RMSNorm: square, sum, scale, weight: 4 FLOP/element) */
        add_vector(c, ROOF_OP_ATTN_NORM, 4.0 * T * h, h * a, T * h * a, T * h * a);
        if (mixer == MIX_LINEAR)
            add_linear_attention(c, ab);
        else
            add_attention(c, ab, mixer == MIX_WINDOW);
        /* residual add: read two, write one */
        add_vector(c, ROOF_OP_ATTN_RESIDUAL, T * h, 0, 2.0 * T * h * a, T * h * a);
    }
    if (ffn == FFN_NONE)
        return;
    bool moe = ffn == FFN_MOE;
    add_vector(c, ROOF_OP_MLP_NORM, 4.0 * T * h, h * a, T * h * a, T * h * a);
    double Tr = T; /* this rank's rows, for the residual add after the MLP */
    T = b->tokens;
    double Ts = rank_dense ? Tr : T; /* the dense MLP's and shared experts' rows */

    if (moe) {
        double E = (double)m->n_experts, k = (double)m->experts_per_token;
        double I = (double)(m->moe_intermediate_size > 0 ? m->moe_intermediate_size
                                                         : m->intermediate_size);
        double S = (double)m->n_shared_experts;
        /* a shared expert's width on this device (its own split with the dense parts on each
         * rank, shard_view) */
        double Is = m->shared_intermediate_size > 0 ? (double)m->shared_intermediate_size : I;
        const struct roof_tuning *tu = &cfg->tuning;
        /* routed rows: T*k through experts; the engine's MUL_MAT_ID kernel sets how many
         * expert matrices are read (docs/physics.md#moe-kernels) */
        struct roof_moe_choice mc;
        roof_moe_choose(tu, E, k, T, &mc);
        bool metal = mc.kernel == ROOF_MOE_METAL_MV_ID || mc.kernel == ROOF_MOE_METAL_MM_ID;
        /* expert parallelism: this device is one of ep groups holding E / ep whole experts,
         * each split tp / ep ways (I, the shard's columns, times ep); every group waits for the
         * busiest, whose expected routed pairs are kp (docs/physics.md#expert-parallelism) */
        int ep = cfg->ep > 1 && !metal ? cfg->ep : 1;
        double kp = ep > 1 ? roof_ep_pairs_max(T * k, ep) : T * k, Ir = I * ep;
        /* the MoE FFN's other graph nodes (roof_moe_graph_kernels): each a launch; their
         * traffic is the T x E logits per routing kernel, the experts' bias adds on their
         * outputs, the weighted k outputs and the adds that sum them (Metal runs up to 8
         * consecutive ADDs as one kernel), the shared expert's add. Charged on the router. */
        struct roof_moe_graph g;
        roof_moe_graph_kernels(m, metal ? ROOF_METAL_ADD_FUSE : 1.0, &g);
        /* Metal encodes every node as its own dispatch; ggml-cuda replays a batch-1 decode as
         * one CUDA graph and fuses the routing (topk-moe), so there the launches are not
         * charged (docs/physics.md#moe-kernels: charged, the DGX Spark's MoE rows went 10-15
         * points too slow) */
        if (metal && g.uncharged > 0) {
            double add_groups = g.combine - 1.0;
            double bytes = (g.routing - 1.0) * 2.0 * T * E * a +
                           (g.experts - 4.0 > 0 ? 2.0 * T * k * (2.0 * I + h) * a : 0.0) +
                           2.0 * T * k * h * a + T * h * a * (k - 1.0 + 2.0 * add_groups) +
                           (g.shared > 0 ? 3.0 * T * h * a : 0.0);
            add_op(c, ROOF_OP_ROUTER,
                   &(struct op_cost){.compute = DT_FP32,
                                     .flops = bytes / a,
                                     .act_in_bytes = bytes,
                                     .kernels = g.uncharged});
        }
        /* MXFP4 experts through triton_kernels (vLLM on Hopper): its routing (top-k, the
         * bitmatrix and its metadata, index casts and gathers) and the grouped reduction of the
         * k outputs are launches of their own; their traffic is the T x E logits and the k rows
         * of each token read and summed. Charged on the router. */
        enum dtype wx = wfmt(cfg, DT_PART_EXPERTS);
        /* vLLM's Marlin MoE instead (int4, or MXFP4 when asked): its own chain of launches
         * (alignment, workspace, the fused gate-up GEMM, activation, down GEMM, the top-k sum) */
        bool marlin = !metal && roof_moe_marlin(cfg);
        /* SGLang's and vLLM's Triton path sums each token's k + S expert rows in a kernel of its
         * own (charged below): not the MXFP4 path, not Marlin's, not Metal, not one row a token */
        bool sum_kernel = tu->moe_sum_kernel && !metal && !marlin &&
                          !(wx == DT_FP4 || wx == DT_MXFP4) && k + S > 1;
        double tx = marlin ? roof_triton_moe_extra(tu->marlin_moe_kernels)
                    : (wx == DT_FP4 || wx == DT_MXFP4) && !metal
                        ? roof_triton_moe_extra(tu->triton_moe_kernels)
                        : 0.0;
        /* 16-bit and fp8 experts through Triton's fused MoE: its routing, alignment and the
         * activations' fp8 quantisation are launches of their own (the layer's sum kernel is
         * charged below when the engine has one); their traffic is the T x E logits read and,
         * in fp8, each GEMM's 16-bit input read and written again in one byte an element */
        if (!marlin && !metal && (wx == DT_FP16 || wx == DT_BF16 || wx == DT_FP8)) {
            bool q8 = dtype_gemm_compute(wx, cfg->act) == DT_FP8;
            double fx = roof_fused_moe_extra(tu, q8, sum_kernel);
            double q = q8 ? T * h + kp * Ir + Ts * S * Is : 0.0;
            if (fx > 0)
                add_op(c, ROOF_OP_ROUTER,
                       &(struct op_cost){.compute = DT_FP32,
                                         .flops = T * E + q,
                                         .act_in_bytes = T * E * a + q * a,
                                         .act_out_bytes = q,
                                         .kernels = fx});
        }
        if (tx > 0)
            add_op(c, ROOF_OP_ROUTER,
                   &(struct op_cost){.compute = DT_FP32,
                                     .flops = kp * h,
                                     .act_in_bytes = 2.0 * T * E * a + kp * h * a,
                                     .act_out_bytes = T * h * a,
                                     .kernels = tx});
        add_gemm(c, ROOF_OP_ROUTER, wfmt(cfg, DT_PART_ROUTER), T, E, h, E * h);
        /* Qwen2-MoE's shared expert is scaled by a gate of its own: sigmoid(x . g) on the
         * shared expert's rows (a 1-column GEMM, then the sigmoid and the product) */
        if (m->shared_expert_gate && S > 0) {
            add_gemm(c, ROOF_OP_ROUTER, wfmt(cfg, DT_PART_ROUTER), Ts, S, h, S * h);
            add_vector(c, ROOF_OP_ROUTER, 2.0 * Ts * h, 0, Ts * (h + S) * a, Ts * h * a);
        }
        double distinct = mc.distinct;
        double rows = T * (k + S);
        /* routed experts and shared experts may be stored at different widths (a mix) */
        enum dtype we = wfmt(cfg, DT_PART_EXPERTS), ws = wfmt(cfg, DT_PART_OTHER);
        bool on_mmq = tu->mmq_id_above > 0 ? mc.kernel == ROOF_MOE_MMQ && dtype_is_weight_only(we)
                                           : mmq_applies(cfg, we, rows);
        if (on_mmq) {
            /* ggml-cuda's MMQ on the experts' rows: each touched expert's weights once per
             * column tile of its own rows; with mmq_id_above, tiles of the width MMQ picks for
             * the batch's tokens, whose arithmetic is paid whole */
            /* a shared expert of another width than the routed ones (Qwen2-MoE's) is a plain
             * weight GEMM of its own; one of the same width goes with them */
            bool apart = S > 0 && Is != I;
            double ne = apart ? distinct : distinct + S, rr = apart ? rows - Ts * S : rows;
            double wexp = ne * h * I;
            if (!m->mlp_ungated)
                add_mmq(c, ROOF_OP_MLP_GATE, we, rr, I, h, wexp, ne, mc.tile);
            add_mmq(c, ROOF_OP_MLP_UP, we, rr, I, h, wexp, ne, mc.tile);
            add_mlp_act(c, rr * I);
            add_mmq(c, ROOF_OP_MLP_DOWN, we, rr, h, I, wexp, ne, mc.tile);
            if (apart)
                add_dense_mlp(c, ws, Ts * S, Is, S * h * Is);
        } else {
            /* Metal: the shared experts are plain mul_mat nodes of T columns (roof_metal_choose);
             * elsewhere each is read once */
            struct roof_metal_choice sc = {ROOF_METAL_NONE, Ts, 0, Ts, 1.0, 1.0};
            if (metal && S > 0)
                roof_metal_choose(&tu->metal, ws, Ts, &sc);
            /* the engine's MXFP4 experts are stored padded (roof_moe_dims) */
            double hp = h, Ip = Ir;
            if (!metal)
                roof_moe_dims(cfg, h, Ir, &hp, &Ip);
            double wroute = hp * Ip, wshared = S * h * Is;
            /* under expert parallelism the busiest group's touched experts, each read whole
             * (for this device's tp / ep share) */
            double reads = ep > 1 ? roof_ep_touched_max(E, k, T, ep) : mc.expert_reads;
            double passes = ep > 1 ? reads : mc.dequant_passes;
            /* this device's routed and shared rows and their intermediate elements */
            double rows_dev = kp + Ts * S, inter = kp * Ir + Ts * S * Is;
            double wbytes =
                reads * wroute * dtype_bytes(we) + sc.weight_reads * wshared * dtype_bytes(ws);
            enum dtype gc = dtype_gemm_compute(we, cfg->act);
            /* Marlin dequantises in its main loop: that work is in its measured rate */
            double deq = (marlin ? 0.0 : passes * wroute * roof_dequant_ops_per_weight(we, gc)) +
                         sc.dequant_passes * wshared *
                             roof_dequant_ops_per_weight(ws, dtype_gemm_compute(ws, cfg->act));
            /* the columns whose arithmetic is paid: the routed pairs (mul_mm_id: whole tiles
             * per touched expert) and the shared experts' T columns each */
            double paid = (metal ? mc.paid_columns : kp) + S * sc.paid_columns;
            bool tiles = mc.kernel == ROOF_MOE_METAL_MM_ID;
            /* Triton's fused MoE on a block-scaled FP8 checkpoint (SGLang on Hopper) rescales
             * every 128-column K block inside its main loop: it runs at a measured fraction of
             * the bf16 rate, not at the fp8 rate (docs/physics.md#moe-kernels) */
            bool block_fp8 = tu->moe_block_fp8_vs_bf16 > 0 && m->fp8_weight_block > 0 &&
                             we == DT_FP8 && gc == DT_FP8 && !metal;
            if (block_fp8)
                gc = DT_BF16;
            /* the routed columns on the experts' (padded) shapes, the shared ones on theirs */
            double shared_paid = S * sc.paid_columns, routed_paid = paid - shared_paid;
            /* gate and up: h -> I on the routed rows; down the same FLOPs and weights, I -> h;
             * mul_mm_id in its fixed tiles (mm_tile tokens x mm_tile_rows rows, K whole);
             * Marlin on Hopper: issue-bound arithmetic at its measured fraction of the 16-bit
             * peak, after the weights' stream (docs/physics.md#moe-kernels) */
            struct op_cost expert = {.matmul = true,
                                     .compute = gc,
                                     .flops = 2.0 * (routed_paid * hp * Ip + shared_paid * h * Is),
                                     .weight_bytes = wbytes,
                                     .act_in_bytes = rows_dev * h * a,
                                     .act_out_bytes = inter * a,
                                     .vec_flops = deq,
                                     .gemm_m = tiles ? paid : 0,
                                     .gemm_n = tiles ? I : 0,
                                     .tile_m = tiles ? tu->metal.mm_tile : 0,
                                     .tile_n = tiles ? tu->metal.mm_tile_rows : 0,
                                     .rate = block_fp8 ? tu->moe_block_fp8_vs_bf16 : 0,
                                     .peak_fraction = marlin ? tu->marlin_moe_vs_peak : 0,
                                     .serial = marlin};
            if (!m->mlp_ungated)
                add_op(c, ROOF_OP_MLP_GATE, &expert);
            add_op(c, ROOF_OP_MLP_UP, &expert);
            add_mlp_act(c, inter);
            expert.act_in_bytes = inter * a;
            expert.act_out_bytes = rows_dev * h * a;
            expert.gemm_n = tiles ? h : 0;
            add_op(c, ROOF_OP_MLP_DOWN, &expert);
            /* SGLang's Triton fused MoE writes the down GEMM's output per (token, expert) pair
             * in the 16-bit activation type and sums each token's k + S rows in a kernel of its
             * own (fused_experts_impl: intermediate_cache3, moe_sum_reduce): the rows read once,
             * the tokens' sums written once (docs/physics.md#moe-kernels). Not the MXFP4 path
             * (triton_kernels, its reduction above), not Marlin's (its chain's own sum), not
             * Metal, not one row a token. */
            if (sum_kernel) {
                double eb = a > 2.0 ? a : 2.0;
                add_vector(c, ROOF_OP_MOE_SUM, rows_dev * h, 0, rows_dev * h * eb, T * h * eb);
            }
        }
    } else {
        double I = (double)m->intermediate_size;
        add_dense_mlp(c, wfmt(cfg, DT_PART_OTHER), Ts, I, h * I);
    }
    add_vector(c, ROOF_OP_MLP_RESIDUAL, Tr * h, 0, 2.0 * Tr * h * a, Tr * h * a);
}

static void shard_view(const struct roof_config *cfg, struct mdl_profile *shard,
                       struct roof_config *out);

void
roof_memory(const struct roof_config *cfg_in, struct roof_memory *out)
{
    /* per device: one tensor shard of one pipeline stage */
    struct mdl_profile shard;
    struct roof_config view;
    shard_view(cfg_in, &shard, &view);
    const struct roof_config *cfg = &view;
    const struct mdl_profile *m = cfg->model;
    struct mdl_params p;
    mdl_param_count(m, &p);
    /* data-parallel attention: a device holds its rank's sequences (the busiest's) */
    double B = cfg->attn_dp > 1 ? ceil(cfg->batch / cfg->attn_dp) : cfg->batch;
    double tokens_per_seq =
        cfg->phase == ROOF_PREFILL ? cfg->prefill_past + cfg->prompt : cfg->context + 1.0;
    double kvb = dtype_bytes(cfg->kv), a = dtype_bytes(cfg->act);
    /* the linear-attention layers keep a fixed state a sequence in place of a KV cache */
    double state_per_seq = mdl_linear_state_bytes_per_seq(m);
    double kv_per_seq = state_per_seq;
    for (long l = 0; l < m->num_layers; l++) {
        if (!mdl_layer_has_kv(m, l))
            continue;
        double w = (double)mdl_layer_window(m, l);
        double t = w > 0 && tokens_per_seq > w ? w : tokens_per_seq;
        kv_per_seq += t * mdl_kv_elems_per_token_layer(m) * kvb;
    }
    double rows = cfg->phase == ROOF_PREFILL ? B * cfg->prompt : B;
    double h = (double)m->hidden_size, I = (double)m->intermediate_size;
    if (m->moe_intermediate_size > 0 && m->n_experts > 0) {
        double Is = m->shared_intermediate_size > 0 ? (double)m->shared_intermediate_size
                                                    : (double)m->moe_intermediate_size;
        double moeI = (double)m->moe_intermediate_size * (double)m->experts_per_token +
                      Is * (double)m->n_shared_experts;
        if (moeI > I)
            I = moeI;
    }
    /* live activations of one layer: residual stream, normed input, q/k/v, gate and up,
     * plus fp32 logits of the last position of each sequence (docs/physics.md#memory) */
    double per_row =
        (2.0 * h + (double)mdl_q_dim(m) + mdl_kv_elems_per_token_layer(m) + 2.0 * I) * a;
    double act = rows * per_row + B * (double)m->vocab_size * 4.0;
    if (roof_attn_dp_dense_rank(cfg)) {
        /* the routed experts' gate and up alone take every rank's rows */
        double all = cfg->phase == ROOF_PREFILL ? cfg->batch * cfg->prompt : cfg->batch;
        if (m->n_experts > 0 && m->moe_intermediate_size > 0)
            act += (all - rows) * 2.0 * (double)m->moe_intermediate_size *
                   (double)m->experts_per_token * a;
    } else if (cfg->attn_dp > 1) { /* the MLP's gate and up and the logits take every rank's */
        double all = cfg->phase == ROOF_PREFILL ? cfg->batch * cfg->prompt : cfg->batch;
        act += (all - rows) * 2.0 * I * a + (cfg->batch - B) * (double)m->vocab_size * 4.0;
    }
    if (!roof_flash_attention(cfg) && cfg->phase == ROOF_PREFILL)
        act += B * (double)m->num_heads * cfg->prompt * (cfg->prefill_past + cfg->prompt) * a;
    out->weights_bytes = mdl_weight_bytes(m, cfg->weights);
    /* the engine's experts are allocated on their (padded) shapes (roof_moe_dims): the routed
     * experts' weights grow by the ratio of the areas */
    if (p.mlp_experts > 0) {
        double Ie = (double)(m->moe_intermediate_size > 0 ? m->moe_intermediate_size
                                                          : m->intermediate_size);
        double hp, Ip;
        roof_moe_dims(cfg, h, Ie, &hp, &Ip);
        out->weights_bytes += p.mlp_experts * (hp * Ip / (h * Ie) - 1.0) *
                              dtype_bytes(dtype_part_format(cfg->weights, DT_PART_EXPERTS));
    }
    /* SGLang keeps the embedding whole on every device under data-parallel attention
     * (VocabParallelEmbedding's enable_tp off): the vocabulary's other shards too */
    if (cfg->attn_dp > 1 && cfg_in->model->vocab_size > m->vocab_size)
        out->weights_bytes += (double)(cfg_in->model->vocab_size - m->vocab_size) * h *
                              dtype_bytes(dtype_part_format(cfg->weights, DT_PART_HEAD));
    out->kv_bytes = B * kv_per_seq;
    out->state_bytes = B * state_per_seq;
    out->act_bytes = act;
    out->reserve_bytes = cfg->reserve_bytes;
    out->total_bytes = out->weights_bytes + out->kv_bytes + out->act_bytes + out->reserve_bytes;
    out->capacity_bytes = hw_memory_bytes(cfg->hw);
    out->kv_bytes_per_token = mdl_kv_bytes_per_token(m, kvb);
    out->fits = out->total_bytes <= out->capacity_bytes;
}

/* The phase is bound by whatever holds most of its time. */
static enum roof_bound
summary_bound(const struct roof_result *r)
{
    enum roof_bound b = ROOF_BOUND_COMPUTE;
    double best = r->time_in_compute_bound_s;
    if (r->time_in_memory_bound_s > best) {
        b = ROOF_BOUND_MEMORY;
        best = r->time_in_memory_bound_s;
    }
    if (r->time_in_overhead_s > best) {
        b = ROOF_BOUND_OVERHEAD;
        best = r->time_in_overhead_s;
    }
    if (r->time_in_link_bound_s > best)
        b = ROOF_BOUND_LINK;
    return b;
}

/* `bucket` > 0: a decode step's attention runs over the cache padded to the next multiple of
 * `bucket` tokens (static shapes, optimum-habana's --bucket_size with --bucket_internal), so it
 * reads and scores ceil(visible / bucket) x bucket keys */
static void
agg_add(struct attn_agg *g, const struct roof_seq *q, double window, double bucket)
{
    double vis = q->past_tokens + q->new_tokens;
    if (window > 0 && vis > window)
        vis = window;
    if (bucket > 0 && q->new_tokens == 1) {
        vis = ceil(vis / bucket) * bucket;
        g->pairs += q->count * vis;
    } else {
        g->pairs += q->count * causal_pairs(q->past_tokens, q->new_tokens, window);
    }
    g->visible += q->count * vis;
    g->score += q->count * q->new_tokens * vis;
}

static void
rank_add(struct batch_agg *r, const struct roof_seq *q, double bucket)
{
    r->tokens += q->count * q->new_tokens;
    r->seqs += q->count;
    if (q->new_tokens <= 1.0)
        r->decode_seqs += q->count;
    if (q->logits)
        r->logits_rows += q->count;
    agg_add(&r->full, q, 0, bucket);
    if (r->window > 0)
        agg_add(&r->windowed, q, r->window, bucket);
}

/* Data-parallel attention (docs/physics.md#data-parallel-attention): the step's sequences as the
 * attn_dp ranks hold them, each request on the rank it was sent to, requests sent in turn: the
 * decodes dealt evenly in turn, then each prompt (or prompt chunk) to the rank with the fewest
 * rows so far. Every rank waits for the others at the experts' gather, so the attention is that
 * of the rank with the most rows (the most keys among equals). Identical sequences (count > 1)
 * go count / attn_dp to each rank, the whole remainder one by one. */
static void
attn_busiest_rank(const struct roof_config *cfg, const struct roof_seq *seqs, int n,
                  struct batch_agg *out)
{
    int N = cfg->attn_dp < ROOF_ATTN_DP_MAX ? cfg->attn_dp : ROOF_ATTN_DP_MAX;
    struct batch_agg r[ROOF_ATTN_DP_MAX];
    memset(r, 0, sizeof r[0] * (size_t)N);
    double bucket = cfg->tuning.kv_bucket_tokens;
    for (int k = 0; k < N; k++)
        r[k].window = (double)cfg->model->sliding_window;
    int next = 0;
    for (int pass = 0; pass < 2; pass++)
        for (int i = 0; i < n; i++) {
            const struct roof_seq *q = &seqs[i];
            bool decode = q->new_tokens <= 1.0;
            if (decode != (pass == 0) || !(q->count > 0))
                continue;
            double whole = floor(q->count), each = floor(whole / N);
            struct roof_seq part = *q;
            part.count = each + (q->count - whole) / N;
            if (part.count > 0)
                for (int k = 0; k < N; k++)
                    rank_add(&r[k], &part, bucket);
            part.count = 1.0;
            for (double u = each * N; u < whole; u++) {
                int k = next;
                if (decode) {
                    next = (next + 1) % N;
                } else {
                    k = 0;
                    for (int j = 1; j < N; j++)
                        if (r[j].tokens < r[k].tokens)
                            k = j;
                }
                rank_add(&r[k], &part, bucket);
            }
        }
    int busy = 0;
    for (int k = 1; k < N; k++)
        if (r[k].tokens > r[busy].tokens ||
            (r[k].tokens == r[busy].tokens && r[k].full.visible + r[k].windowed.visible >
                                                  r[busy].full.visible + r[busy].windowed.visible))
            busy = k;
    *out = r[busy];
}

/* Layers are grouped into classes (window or not, MoE or not); each class is evaluated once and
 * counted `times` layers, so a pass costs O(sequences + classes), not O(layers). */
int
roof_step(const struct roof_config *cfg, const struct roof_seq *seqs, int n_seqs,
          struct roof_result *out)
{
    return roof_step_ops(cfg, seqs, n_seqs, ROOF_OPS_ALL, out);
}

/* What a time-only pass reads and writes of an operator (add_op, fused decode attention, the
 * step overhead), cleared: a handful of stores, where a memset of the whole result is a
 * `rep stos` that costs more than a decode step's attention (millions of times per plan). */
static void
op_clear_time(struct roof_op_result *r)
{
    r->present = false;
    r->instances = 0;
    r->memory_time_s = r->time_s = r->last_compute_s = r->last_memory_s = 0;
    r->link_time_s = r->link_bytes = 0;
}

double
roof_logits_gather_s(double rows, double vocab_shard, double elem_bytes, int n, double bw,
                     double latency_s)
{
    if (n <= 1)
        return 0.0;
    /* NCCL's ring all-gather: n - 1 steps, each passing one device's rows x vocab / n block */
    return (n - 1) * rows * vocab_shard * elem_bytes / bw + (n - 1) * latency_s;
}

/* vLLM V1's logits path, which runs after the decode step's CUDA graph
 * (vllm/v1/worker/gpu_model_runner.py: compute_logits, then the sampler), charged on the LM head
 * for an engine with sampler_kernels: at tp > 1 LogitsProcessor._gather_logits all-gathers the
 * vocabulary shards (the base Platform.use_all_gather returns True) through NCCL's ring, and the
 * gather along the last dimension copies the gathered rows into place (movedim + reshape); then the
 * greedy sampler's launches on the full rows: the cast to fp32 (reads 2 B, writes 4 B an
 * element), the argmax (reads 4 B), the cast of the token ids. docs/physics.md#logits-and-sampler
 */
static void
logits_after_graph(struct acc_ctx *c, double R, double V)
{
    const struct roof_config *cfg = c->cfg;
    double k = cfg->tuning.sampler_kernels;
    if (!(k > 0) || !want(c, ROOF_OP_LM_HEAD))
        return;
    /* the devices the LM head is split over: all tp, or a rank's with the dense parts on each
     * rank (roof_attn_dp_dense_rank) */
    int tp = cfg->tp > 1 ? cfg->tp : 1;
    if (roof_attn_dp_dense_rank(cfg))
        tp /= cfg->attn_dp;
    double e = roof_hidden_bytes(cfg->act), Vf = V * tp;
    if (tp > 1) {
        double bw =
            hw_link_group_bytes_per_s(cfg->hw, tp, hw_link_bytes_per_s_per_direction(cfg->hw));
        double lat = roof_link_latency_s(cfg);
        if (bw > 0)
            add_link(c, ROOF_OP_LM_HEAD, (tp - 1) * R * V * e,
                     roof_logits_gather_s(R, V, e, tp, bw, lat));
        add_op(c, ROOF_OP_LM_HEAD,
               &(struct op_cost){
                   .compute = DT_FP32, .act_in_bytes = R * Vf * e, .act_out_bytes = R * Vf * e});
    }
    add_op(c, ROOF_OP_LM_HEAD,
           &(struct op_cost){.compute = DT_FP32,
                             .flops = 2.0 * R * Vf,
                             .act_in_bytes = R * Vf * (e + 4.0),
                             .act_out_bytes = R * Vf * 4.0 + R * 4.0,
                             .kernels = k});
}

/* roof_step_ops; `time_only`: of the requested operators' entries of `out` only the times are
 * cleared and filled (the other fields keep whatever they held), and of the totals only time_s:
 * the same sum in the same order, as no other operator is present. For callers that step many
 * batches and read the time alone. */
static int
step_ops(const struct roof_config *cfg, const struct roof_seq *seqs, int n_seqs, unsigned long ops,
         struct roof_result *out, bool time_only)
{
    if (time_only) {
        for (int i = 0; i < ROOF_OP_COUNT; i++)
            if ((ops >> i) & 1ul)
                op_clear_time(&out->ops[i]);
    } else {
        memset(out, 0, sizeof *out);
    }
    if (!cfg->hw || !cfg->model || n_seqs < 0 || !(cfg->hw->memory_bandwidth_bytes_per_s > 0) ||
        cfg->model->num_layers <= 0 || cfg->model->hidden_size <= 0)
        return -1;
    if (!time_only)
        out->cfg = *cfg;
    const struct mdl_profile *m = cfg->model;
    struct batch_agg b;
    memset(&b, 0, sizeof b);
    b.window = (double)m->sliding_window;
    for (int i = 0; i < n_seqs; i++) {
        const struct roof_seq *q = &seqs[i];
        if (!(q->count >= 0) || !(q->new_tokens >= 0) || !(q->past_tokens >= 0))
            return -1;
        b.tokens += q->count * q->new_tokens;
        b.seqs += q->count;
        if (q->new_tokens <= 1.0)
            b.decode_seqs += q->count;
        if (q->logits)
            b.logits_rows += q->count;
        agg_add(&b.full, q, 0, cfg->tuning.kv_bucket_tokens);
        if (b.window > 0)
            agg_add(&b.windowed, q, b.window, cfg->tuning.kv_bucket_tokens);
    }
    if (!(b.tokens > 0))
        return -1;
    struct acc_ctx c;
    acc_init(&c, cfg, out, cfg->hw->memory_bandwidth_bytes_per_s);
    c.mask = ops;
    c.time_only = time_only;
    struct batch_agg rank;
    if (cfg->attn_dp > 1) {
        attn_busiest_rank(cfg, seqs, n_seqs, &rank);
        c.attn = &rank;
    }
    double h = (double)m->hidden_size, V = (double)m->vocab_size;
    double a = dtype_bytes(cfg->act);
    /* the logits: each rank's own with the dense parts on each rank, else every rank's */
    double T = b.tokens,
           R = c.attn && roof_attn_dp_dense_rank(cfg) ? c.attn->logits_rows : b.logits_rows;

    /* embedding: a gather of T rows of the table (no FLOPs); each attention rank its own */
    double Te = c.attn ? c.attn->tokens : T;
    add_op(&c, ROOF_OP_EMBEDDING,
           &(struct op_cost){.compute = DT_FP32,
                             .weight_bytes = Te * h * dtype_bytes(wfmt(cfg, DT_PART_HEAD)),
                             .act_out_bytes = Te * h * a});
    /* count the layers of each class: [mixer][MLP] */
    long classes[MIX_KINDS][FFN_KINDS] = {{0}};
    if (m->sliding_window <= 0 && m->n_experts <= 0 && m->lin_value_heads <= 0 && !m->part_layers)
        classes[MIX_FULL][FFN_DENSE] = m->num_layers; /* the common case */
    else
        for (long l = 0; l < m->num_layers; l++) {
            enum layer_mixer x = !mdl_layer_has_mixer(m, l)   ? MIX_NONE
                                 : mdl_layer_is_linear(m, l)  ? MIX_LINEAR
                                 : mdl_layer_window(m, l) > 0 ? MIX_WINDOW
                                                              : MIX_FULL;
            enum layer_ffn f = !mdl_layer_has_ffn(m, l) ? FFN_NONE
                               : mdl_layer_is_moe(m, l) ? FFN_MOE
                                                        : FFN_DENSE;
            classes[x][f]++;
        }
    for (int x = 0; x < MIX_KINDS; x++)
        for (int f = 0; f < FFN_KINDS; f++) {
            if (classes[x][f] == 0)
                continue;
            c.times = (double)classes[x][f];
            add_layer(&c, &b, (enum layer_mixer)x, (enum layer_ffn)f);
        }
    c.times = 1.0;
    /* logits are needed only where a token is sampled: the last position of each sequence */
    if (R > 0) {
        add_vector(&c, ROOF_OP_FINAL_NORM, 4.0 * R * h, h * a, R * h * a, R * h * a);
        add_gemm(&c, ROOF_OP_LM_HEAD, wfmt(cfg, DT_PART_HEAD), R, V, h, V * h);
        logits_after_graph(&c, R, V);
    }

    /* the engine's host work: a fixed cost per pass, and a cost per sampled token (per
     * sequence that produces a token: its scheduling, sampling and output processing) */
    if ((cfg->tuning.step_overhead_s > 0 || cfg->tuning.token_overhead_s > 0) &&
        want(&c, ROOF_OP_STEP)) {
        struct roof_op_result *o = &out->ops[ROOF_OP_STEP];
        o->present = true;
        o->instances = 1;
        o->time_s = cfg->tuning.step_overhead_s + cfg->tuning.token_overhead_s * R;
    }
    if (time_only) {
        double t = 0;
        for (int i = 0; i < ROOF_OP_COUNT; i++)
            if (((ops >> i) & 1ul) && out->ops[i].present)
                t += out->ops[i].time_s;
        out->time_s = t;
        return 0;
    }
    enum dtype used;
    out->gemm_peak_flops_per_s =
        hw_peak(cfg->hw, dtype_gemm_compute(cfg->weights, cfg->act), &used);
    out->gemm_dtype = used;
    out->tokens = T;
    for (int i = 0; i < ROOF_OP_COUNT; i++) {
        struct roof_op_result *r = &out->ops[i];
        if (!r->present)
            continue;
        out->flops += r->flops;
        out->bytes_weights += r->bytes_weights;
        out->bytes_kv += r->bytes_kv_read + r->bytes_kv_write;
        out->bytes_act += r->bytes_act_in + r->bytes_act_out;
        out->time_s += r->time_s;
        out->compute_time_s += r->compute_time_s;
        out->memory_time_s += r->memory_time_s;
        out->link_time_s += r->link_time_s;
        double roof_t = r->compute_time_s > r->memory_time_s ? r->compute_time_s : r->memory_time_s;
        double ovh = r->time_s - roof_t - r->link_time_s;
        if (r->link_time_s > 0 && r->link_time_s >= roof_t)
            out->time_in_link_bound_s += r->time_s;
        else if (ovh > roof_t)
            out->time_in_overhead_s += r->time_s;
        else if (r->compute_time_s >= r->memory_time_s)
            out->time_in_compute_bound_s += r->time_s;
        else
            out->time_in_memory_bound_s += r->time_s;
    }
    out->bytes = out->bytes_weights + out->bytes_kv + out->bytes_act;
    out->bound = summary_bound(out);
    out->compute_utilisation = out->gemm_peak_flops_per_s > 0
                                   ? out->flops / (out->gemm_peak_flops_per_s * out->time_s)
                                   : 0.0;
    out->devices = 1;
    out->replicas = 1;
    out->microbatches = 1;
    return 0;
}

int
roof_step_ops(const struct roof_config *cfg, const struct roof_seq *seqs, int n_seqs,
              unsigned long ops, struct roof_result *out)
{
    return step_ops(cfg, seqs, n_seqs, ops, out, false);
}

int
roof_step_time(const struct roof_config *cfg, const struct roof_seq *seqs, int n_seqs,
               unsigned long ops, struct roof_result *scratch, double *time_s)
{
    *time_s = -1.0;
    if (step_ops(cfg, seqs, n_seqs, ops, scratch, true) != 0)
        return -1;
    *time_s = scratch->time_s;
    return 0;
}

double
roof_hidden_bytes(enum dtype act)
{
    double a = dtype_bytes(act);
    return a < 2.0 ? 2.0 : a;
}

double
roof_allreduce_time_s(double bytes, int n, double bw, double latency_s)
{
    if (n <= 1)
        return 0.0;
    /* ring: reduce-scatter then all-gather, each n-1 steps of bytes/n (Patarasuk & Yuan 2009) */
    return 2.0 * (n - 1) / n * bytes / bw + 2.0 * (n - 1) * latency_s;
}

double
roof_allreduce_custom_s(double bytes, int n, double bw, double latency_s)
{
    if (n <= 1)
        return 0.0;
    /* csrc/custom_all_reduce.cuh CustomAllreduce::allreduce: cross_device_reduce_1stage at
     * world size 2, or below 512 KiB up to 4 devices and 256 KiB up to 8; else _2stage. Each
     * runs start_sync and end_sync, a flag written to every peer ("latency = 1 p2p write") */
    bool one_stage = n == 2 || (n <= 4 && bytes < 512.0 * 1024) || (n <= 8 && bytes < 256.0 * 1024);
    double data = one_stage ? (n - 1) * bytes : 2.0 * (n - 1) / n * bytes;
    return data / bw + 2.0 * latency_s;
}

double
roof_allreduce_engine_s(const struct hw_profile *hw, const struct roof_tuning *tu, double bytes,
                        int n, double bw, double latency_s)
{
    /* on a full mesh a group of n reaches only its n-1 peers' links (hw_link_group_bytes_per_s) */
    bw = hw_link_group_bytes_per_s(hw, n, bw);
    /* vllm/distributed/device_communicators/custom_all_reduce.py: world sizes 2, 4, 6, 8,
     * fully connected (should_custom_ar), messages under max_size; PCIe cards stay on NCCL */
    bool mesh = !(hw && hw->link_kind && strncmp(hw->link_kind, "pcie", 4) == 0);
    if (tu && tu->custom_allreduce_max_bytes > 0 && bytes < tu->custom_allreduce_max_bytes &&
        mesh && (n == 2 || n == 4 || n == 6 || n == 8))
        return roof_allreduce_custom_s(
            bytes, n, bw,
            tu->custom_allreduce_latency_s > 0 ? tu->custom_allreduce_latency_s : latency_s);
    return roof_allreduce_time_s(bytes, n, bw, latency_s);
}

double
roof_attn_dp_links_s(const struct roof_config *cfg, double rank_rows, double *bytes)
{
    int tp = cfg->tp > 1 ? cfg->tp : 1, dp = cfg->attn_dp > 1 ? cfg->attn_dp : 1;
    double e = roof_hidden_bytes(cfg->act) * (double)cfg->model->hidden_size;
    double bw = hw_link_bytes_per_s_per_direction(cfg->hw), lat = roof_link_latency_s(cfg);
    /* the all-gather before the MLP and the reduce-scatter after it (NCCL's
     * all_gather_into_tensor and reduce_scatter_tensor: rings) of every rank's rows padded to
     * the busiest's: together the two halves of one ring all-reduce (Patarasuk & Yuan 2009) */
    *bytes = rank_rows * (double)dp * e;
    double t = roof_allreduce_time_s(*bytes, tp, hw_link_group_bytes_per_s(cfg->hw, tp, bw), lat);
    /* a rank of several devices sums its attention's output among them (o_proj's split) */
    if (tp / dp > 1)
        t += roof_allreduce_engine_s(cfg->hw, &cfg->tuning, rank_rows * e, tp / dp, bw, lat);
    return t;
}

double
roof_attn_dp_dense_links_s(const struct roof_config *cfg, double rank_rows, double *bytes)
{
    int tp = cfg->tp > 1 ? cfg->tp : 1, dp = cfg->attn_dp > 1 ? cfg->attn_dp : 1;
    double e = roof_hidden_bytes(cfg->act) * (double)cfg->model->hidden_size;
    double bw = hw_link_bytes_per_s_per_direction(cfg->hw), lat = roof_link_latency_s(cfg);
    *bytes = rank_rows * e;
    /* a rank of one device exchanges nothing; of several, it sums the attention's output and
     * the MLP's among them */
    return tp / dp > 1
               ? 2.0 * roof_allreduce_engine_s(cfg->hw, &cfg->tuning, *bytes, tp / dp, bw, lat)
               : 0.0;
}

long
roof_attn_dp_dense_layers(const struct roof_config *cfg)
{
    const struct mdl_profile *m = cfg->model;
    if (!roof_attn_dp_dense_rank(cfg))
        return 0;
    long n = 0;
    for (long l = 0; l < m->num_layers; l++)
        n += !mdl_layer_is_moe(m, l);
    return n;
}

double
roof_attn_busiest_rows(const struct roof_config *cfg, const struct roof_seq *seqs, int n)
{
    if (!(cfg->attn_dp > 1)) {
        double t = 0;
        for (int i = 0; i < n; i++)
            t += seqs[i].count * seqs[i].new_tokens;
        return t;
    }
    struct batch_agg r;
    attn_busiest_rank(cfg, seqs, n, &r);
    return r.tokens;
}

double
roof_link_latency_default_s(const struct hw_profile *hw)
{
    /* docs/physics.md#parallelism: a per-step latency typical of NCCL/RCCL small messages */
    if (hw->link_kind && strncmp(hw->link_kind, "pcie", 4) == 0)
        return 5e-6;
    return 2e-6;
}

double
roof_link_latency_s(const struct roof_config *cfg)
{
    return cfg->link_latency_s >= 0 ? cfg->link_latency_s : roof_link_latency_default_s(cfg->hw);
}

/* ggml-cuda's fused attention puts ncols2 query heads of one KV head in a CTA: the largest of 8,
 * 4 and 2 that divides the GQA ratio, else 1 (ggml/src/ggml-cuda/fattn.cu,
 * ggml_cuda_flash_attn_ext_mma_f16_switch_ncols2, from PR #12014 to build 6918; PR #19092 of
 * 2026-01 pads other ratios up to a power of 2 on Ampere or newer) */
double
roof_fa_head_group(double heads, double kv_heads)
{
    if (!(kv_heads > 0) || !(heads >= kv_heads))
        return 1.0;
    double r = heads / kv_heads;
    if (r != floor(r))
        return 1.0;
    for (double g = 8; g >= 2; g /= 2)
        if (fmod(r, g) == 0)
            return g;
    return 1.0;
}

bool
roof_flash_attention(const struct roof_config *cfg)
{
    return cfg->flash_attention && (cfg->flash_attention_asked || !cfg->tuning.no_flash_attention);
}

const char *
roof_config_problem(const struct roof_config *cfg)
{
    const struct mdl_profile *m = cfg->model;
    int tp = cfg->tp > 0 ? cfg->tp : 1, pp = cfg->pp > 0 ? cfg->pp : 1;
    int dp = cfg->attn_dp > 1 ? cfg->attn_dp : 1;
    if (dp > 1) {
        if (tp % dp != 0)
            return "the data-parallel attention degree must divide the tensor-parallel degree "
                   "(the attention ranks are groups of the tensor-parallel devices)";
        if (dp > ROOF_ATTN_DP_MAX)
            return "more than 64 data-parallel attention ranks";
        if (pp > 1)
            return "data-parallel attention with a pipeline split is not modelled";
        if (cfg->tuning.no_attn_dp)
            return ROOF_ATTN_DP_ENGINE_PROBLEM;
    }
    if (tp / dp > 1 && m->num_heads % (tp / dp) != 0)
        return dp > 1 ? "the attention's tensor-parallel degree (tp / data-parallel attention "
                        "degree) must divide the number of attention heads"
                      : "the tensor-parallel degree must divide the number of attention heads";
    if (pp > m->num_layers)
        return "more pipeline stages than layers";
    if ((tp > 1 || pp > 1) && hw_link_bytes_per_s_per_direction(cfg->hw) <= 0)
        return "the device profile has no interconnect, so it cannot be split across devices";
    if (cfg->gpus > 0 && cfg->gpus < tp * pp)
        return "fewer devices than tensor x pipeline parallelism needs";
    if (cfg->ep > 1) {
        if (m->n_experts <= 0)
            return "expert parallelism needs a model with routed experts";
        if (tp % cfg->ep != 0)
            return "the expert-parallel degree must divide the tensor-parallel degree (the "
                   "experts are dealt over the tensor-parallel group)";
        if (m->n_experts % cfg->ep != 0)
            return "the expert-parallel degree must divide the number of routed experts";
        if (cfg->tuning.mmq_id_above > 0 || cfg->tuning.metal.mm_above > 0)
            return ROOF_EP_MUL_MAT_ID_PROBLEM;
    }
    if (dtype_is_mix(cfg->weights) && m->n_experts <= 0)
        return "a mixture-of-experts weight mix (mxfp4_moe, mxfp4_moe_bf16, nvfp4_attn_bf16, "
               "nvfp4_qkv_bf16: the routed experts in their own format) needs a model with routed "
               "experts";
    return NULL;
}

const char *
roof_parallel_words(int ep, int attn_dp, bool upper, char *buf, size_t n)
{
    int k = 0;
    if (n > 0)
        buf[0] = '\0';
    if (ep > 1 && n > 0)
        k = snprintf(buf, n, ", %s %d", upper ? "EP" : "ep", ep);
    if (attn_dp > 1 && k >= 0 && (size_t)k < n)
        snprintf(buf + k, n - (size_t)k, ", attention %s %d", upper ? "DP" : "dp", attn_dp);
    return buf;
}

const char *
roof_parallel_extras(const struct roof_config *cfg, bool upper, char *buf, size_t n)
{
    return roof_parallel_words(cfg->ep, cfg->attn_dp, upper, buf, n);
}

const char *
roof_config_problem_named(const struct roof_config *cfg, const char *engine, char *buf, size_t n)
{
    const char *p = roof_config_problem(cfg);
    if (!p)
        return NULL;
    if (engine && cfg->tuning.no_attn_dp && strcmp(p, ROOF_ATTN_DP_ENGINE_PROBLEM) == 0)
        snprintf(buf, n,
                 "the engine (%s) has no data-parallel attention; its profile says attn_dp: none",
                 engine);
    else
        snprintf(buf, n, "%s", p);
    return buf;
}

bool
roof_attn_dp_dense_rank(const struct roof_config *cfg)
{
    return cfg->attn_dp > 1 && cfg->tuning.attn_dp_dense_rank;
}

/* One device's share of the model: heads, KV heads (replicated when fewer than tp), MLP
 * columns, vocabulary split tp ways (Megatron-LM, Shoeybi et al. 2019); layers split pp ways. */
static void
shard_view(const struct roof_config *cfg, struct mdl_profile *shard, struct roof_config *out)
{
    const struct mdl_profile *m = cfg->model;
    long tp = cfg->tp > 1 ? cfg->tp : 1, pp = cfg->pp > 1 ? cfg->pp : 1;
    *shard = *m;
    *out = *cfg;
    /* data-parallel attention: the attention's heads split over a rank's tp / attn_dp devices;
     * with the dense parts on each rank (roof_attn_dp_dense_rank) the dense MLP, the shared
     * experts and the LM head too, the routed experts over all tp */
    long atp = cfg->attn_dp > 1 && tp % cfg->attn_dp == 0 ? tp / cfg->attn_dp : tp;
    if (tp > 1) {
        long dtp = roof_attn_dp_dense_rank(cfg) ? atp : tp;
        shard->num_heads = m->num_heads / atp;
        shard->num_kv_heads = m->num_kv_heads >= atp ? m->num_kv_heads / atp : 1;
        /* a linear-attention layer's heads split like the attention's (vLLM's
         * gated_delta_net_state_shape: num_v_heads / tp), its state with them */
        if (m->lin_value_heads > 0) {
            shard->lin_key_heads = m->lin_key_heads >= atp ? m->lin_key_heads / atp : 1;
            shard->lin_value_heads = m->lin_value_heads >= atp ? m->lin_value_heads / atp : 1;
        }
        shard->intermediate_size = (m->intermediate_size + dtp - 1) / dtp;
        if (m->moe_intermediate_size > 0)
            shard->moe_intermediate_size = (m->moe_intermediate_size + tp - 1) / tp;
        /* a shared expert of its own width (Qwen2-MoE's), or under the dense parts on each
         * rank any shared expert: split over the dense parts' devices */
        if (m->n_experts > 0 && (m->shared_intermediate_size > 0 || dtp != tp)) {
            long Ie =
                m->moe_intermediate_size > 0 ? m->moe_intermediate_size : m->intermediate_size;
            long Is = m->shared_intermediate_size > 0 ? m->shared_intermediate_size : Ie;
            shard->moe_intermediate_size = (Ie + tp - 1) / tp;
            shard->shared_intermediate_size = (Is + dtp - 1) / dtp;
        }
        shard->vocab_size = (m->vocab_size + dtp - 1) / dtp;
    }
    if (pp > 1)
        shard->num_layers = (m->num_layers + pp - 1) / pp;
    out->model = shard;
}

/* Accumulate the operators and totals of `b` into `a` (micro-batched passes). */
static void
roof_result_add(struct roof_result *a, const struct roof_result *b)
{
    for (int i = 0; i < ROOF_OP_COUNT; i++) {
        struct roof_op_result *x = &a->ops[i];
        const struct roof_op_result *y = &b->ops[i];
        if (!y->present)
            continue;
        if (!x->present) {
            *x = *y;
            continue;
        }
        x->instances += y->instances;
        x->flops += y->flops;
        x->dequant_flops += y->dequant_flops;
        x->bytes_weights += y->bytes_weights;
        x->bytes_act_in += y->bytes_act_in;
        x->bytes_act_out += y->bytes_act_out;
        x->bytes_kv_read += y->bytes_kv_read;
        x->bytes_kv_write += y->bytes_kv_write;
        x->link_bytes += y->link_bytes;
        x->compute_time_s += y->compute_time_s;
        x->memory_time_s += y->memory_time_s;
        x->link_time_s += y->link_time_s;
        x->time_s += y->time_s;
    }
    a->flops += b->flops;
    a->bytes += b->bytes;
    a->bytes_weights += b->bytes_weights;
    a->bytes_kv += b->bytes_kv;
    a->bytes_act += b->bytes_act;
    a->time_s += b->time_s;
    a->compute_time_s += b->compute_time_s;
    a->memory_time_s += b->memory_time_s;
    a->link_time_s += b->link_time_s;
    a->time_in_compute_bound_s += b->time_in_compute_bound_s;
    a->time_in_memory_bound_s += b->time_in_memory_bound_s;
    a->time_in_overhead_s += b->time_in_overhead_s;
    a->time_in_link_bound_s += b->time_in_link_bound_s;
    a->bound = summary_bound(a);
}

/* The time of g micro-batches through `stages` devices, each micro-batch taking the same time
 * t_i on every device (the layers are split evenly), all of them in flight at once: a
 * proportionate flow shop, whose makespan is sum t_i + (stages - 1) x max t_i (the first
 * micro-batch fills the pipe, the longest sets the drain). One micro-batch: stages x t. */
double
roof_pipeline_group_s(double sum_s, double max_s, int stages)
{
    return sum_s + (double)(stages > 1 ? stages - 1 : 0) * max_s;
}

/* One device's share of the model (shard_view) for callers that keep it (the simulator). */
void
roof_shard_view(const struct roof_config *cfg, struct mdl_profile *shard, struct roof_config *out)
{
    shard_view(cfg, shard, out);
}

int
roof_pass(const struct roof_config *cfg, const struct roof_config *sc, const struct roof_seq *seq,
          double m, struct roof_result *out)
{
    int tp = cfg->tp > 1 ? cfg->tp : 1, pp = cfg->pp > 1 ? cfg->pp : 1;
    struct roof_seq q = *seq;
    double ub = cfg->tuning.ubatch_tokens;
    bool prompt = q.new_tokens > 1;
    double end = q.past_tokens + q.new_tokens;
    /* a layer split whose engine keeps several micro-batches in flight: while device s runs
     * micro-batch i, device s - 1 runs micro-batch i + 1 (docs/physics.md#parallelism) */
    double inflight = cfg->tuning.pipeline_inflight;
    bool pipelined = pp > 1 && inflight >= 2 && prompt;
    double piped = 0, group_sum = 0, group_max = 0, in_group = 0;
    if (prompt && ub >= 1 && q.new_tokens > ub) {
        /* micro-batches of ub tokens (whole sequences' worth of tokens at a time): each one a
         * pass over the weights, attending to the chunks before it */
        double done = q.past_tokens;
        bool first = true;
        while (done < end) {
            double chunk = end - done < ub ? end - done : ub;
            struct roof_seq qc = {q.count, chunk, done, done + chunk >= end && q.logits};
            struct roof_result part;
            if (roof_step(sc, &qc, 1, first ? out : &part) != 0)
                return -1;
            double t = first ? out->time_s : part.time_s;
            if (!first)
                roof_result_add(out, &part);
            first = false;
            done += chunk;
            group_sum += t;
            group_max = t > group_max ? t : group_max;
            if (++in_group >= inflight || done >= end) {
                piped += roof_pipeline_group_s(group_sum, group_max, pp);
                group_sum = group_max = in_group = 0;
            }
        }
    } else {
        if (roof_step(sc, &q, 1, out) != 0)
            return -1;
        pipelined = false; /* one micro-batch: nothing to overlap */
    }
    out->cfg = *cfg;
    double a = roof_hidden_bytes(cfg->act), h = (double)cfg->model->hidden_size;
    double rows = q.count * q.new_tokens;
    double bw_link = hw_link_bytes_per_s_per_direction(cfg->hw);
    double lat = roof_link_latency_s(cfg);
    double stage_time = out->time_s;
    if (tp > 1) {
        /* an all-reduce of rows x h after each attention and each MLP (two a layer,
         * mdl_sublayers); under data-parallel attention the gather and scatter around the MLP
         * (the busiest rank holds ceil(count / attn_dp) of the identical sequences) */
        struct acc_ctx c;
        acc_init(&c, sc, out, cfg->hw->memory_bandwidth_bytes_per_s);
        c.times = (double)mdl_sublayers(sc->model);
        double bytes = rows * h * a;
        double t;
        if (cfg->attn_dp > 1) {
            /* with the dense parts on each rank, a dense layer gathers nothing (its rank's own
             * all-reduces only, roof_attn_dp_dense_links_s) */
            double rr = ceil(q.count / cfg->attn_dp) * q.new_tokens;
            long nd = roof_attn_dp_dense_layers(sc);
            if (nd > 0) {
                c.times = (double)nd;
                t = roof_attn_dp_dense_links_s(cfg, rr, &bytes);
                if (t > 0) {
                    add_link(&c, ROOF_OP_ALLREDUCE, bytes, t);
                    out->link_time_s += c.times * t;
                    out->time_in_link_bound_s += c.times * t;
                    stage_time += c.times * t;
                }
            }
            c.times = (double)(sc->model->num_layers - nd);
            t = roof_attn_dp_links_s(cfg, rr, &bytes);
        } else {
            t = roof_allreduce_engine_s(cfg->hw, &cfg->tuning, bytes, tp, bw_link, lat);
        }
        add_link(&c, ROOF_OP_ALLREDUCE, bytes, t);
        out->link_time_s += c.times * t;
        out->time_in_link_bound_s += c.times * t;
        stage_time += c.times * t;
    }
    double send_t = 0;
    if (pp > 1) {
        struct acc_ctx c;
        acc_init(&c, sc, out, cfg->hw->memory_bandwidth_bytes_per_s);
        c.times = (double)(pp - 1);
        double bytes = rows * h * a;
        /* to the next stage's device: one peer's links on a full mesh */
        send_t = bytes / hw_link_group_bytes_per_s(cfg->hw, 2, bw_link) + lat;
        add_link(&c, ROOF_OP_PP_SEND, bytes, send_t);
        out->link_time_s += c.times * send_t;
        out->time_in_link_bound_s += c.times * send_t;
    }
    /* a token of a microbatch passes every stage in turn; pipelined, the micro-batches of a
     * group overlap (their all-reduces, if any, scale with their stage times) */
    if (pipelined && out->time_s > 0) {
        out->time_s = piped * (stage_time / out->time_s) + (pp - 1) * send_t;
    } else if (pp > 1 && m <= 1.0) {
        /* one microbatch crosses the stages one after another: the embedding, the final norm
         * and LM head and the host's step are one stage's work each, not every stage's
         * (stage_time is the last stage's, which holds them) */
        static const enum roof_op ONCE[] = {ROOF_OP_EMBEDDING, ROOF_OP_FINAL_NORM, ROOF_OP_LM_HEAD,
                                            ROOF_OP_STEP};
        double once = 0;
        for (size_t i = 0; i < sizeof ONCE / sizeof ONCE[0]; i++)
            if (out->ops[ONCE[i]].present)
                once += out->ops[ONCE[i]].time_s;
        out->time_s = pp * stage_time - (pp - 1) * once + (pp - 1) * send_t;
    } else {
        out->time_s = pp * stage_time + (pp - 1) * send_t;
    }
    out->bound = summary_bound(out);
    return 0;
}

int
roof_evaluate(const struct roof_config *cfg, struct roof_result *out)
{
    if (!cfg->hw || !cfg->model || !(cfg->batch >= 1.0) || !(cfg->context >= 0.0) ||
        !(cfg->prefill_past >= 0.0) || (cfg->phase == ROOF_PREFILL && !(cfg->prompt >= 1.0)) ||
        roof_config_problem(cfg)) {
        memset(out, 0, sizeof *out);
        return -1;
    }
    int tp = cfg->tp > 1 ? cfg->tp : 1, pp = cfg->pp > 1 ? cfg->pp : 1;
    struct mdl_profile shard;
    struct roof_config sc;
    shard_view(cfg, &shard, &sc);
    /* pipeline: decode splits the batch into m = min(B, pp) microbatches in flight; a prefill
     * batch goes through as one */
    double B = cfg->batch;
    double m = cfg->phase == ROOF_DECODE ? (B < pp ? B : pp) : 1.0;
    struct roof_seq q;
    q.count = B / m;
    q.logits = true;
    if (cfg->phase == ROOF_PREFILL) {
        q.new_tokens = cfg->prompt;
        q.past_tokens = cfg->prefill_past;
    } else {
        q.new_tokens = 1;
        q.past_tokens = cfg->context;
    }
    if (roof_pass(cfg, &sc, &q, m, out) != 0)
        return -1;
    out->devices = tp * pp;
    out->replicas = cfg->gpus > 0 ? cfg->gpus / (tp * pp) : 1;
    if (out->replicas < 1)
        out->replicas = 1;
    out->microbatches = m;
    out->pp_bubble_fraction = 1.0 - m / pp;
    out->compute_utilisation =
        out->gemm_peak_flops_per_s > 0
            ? out->flops * m * pp / (out->gemm_peak_flops_per_s * out->time_s * pp)
            : 0.0;
    double T = B * q.new_tokens;
    out->tokens = T;
    if (cfg->phase == ROOF_PREFILL) {
        out->ttft_s = out->time_s;
        out->tokens_per_s_total = T / out->time_s;
        out->tokens_per_s_per_seq = cfg->prompt / out->time_s;
    } else {
        out->itl_s = out->time_s;
        out->tokens_per_s_total = B / out->time_s;
        out->tokens_per_s_per_seq = 1.0 / out->time_s;
    }
    out->tokens_per_s_all_replicas = out->tokens_per_s_total * out->replicas;
    roof_memory(cfg, &out->mem);
    return 0;
}

long
roof_max_batch(const struct roof_config *cfg)
{
    struct roof_config c = *cfg;
    struct roof_memory m1, m2;
    /* per rank under data-parallel attention: one and two sequences on every rank */
    double dp = cfg->attn_dp > 1 ? (double)cfg->attn_dp : 1.0;
    c.batch = dp;
    roof_memory(&c, &m1);
    c.batch = 2.0 * dp;
    roof_memory(&c, &m2);
    double per_seq = m2.total_bytes - m1.total_bytes;
    double fixed = m1.total_bytes - per_seq;
    if (m1.total_bytes > m1.capacity_bytes || per_seq <= 0)
        return 0;
    double b = dp * floor((m1.capacity_bytes - fixed) / per_seq);
    return b > 1e9 ? 1000000000L : (long)b;
}

void
roof_nominal(const struct hw_profile *hw, double params, enum dtype weights, enum dtype act,
             double tokens, struct roof_nominal *out)
{
    memset(out, 0, sizeof *out);
    out->params = params;
    out->weight_bytes = params * dtype_bytes(weights);
    out->tokens = tokens;
    out->flops = 2.0 * params * tokens; /* one multiply-add per weight per token */
    out->bandwidth_bytes_per_s = hw->memory_bandwidth_bytes_per_s;
    out->peak_flops_per_s = hw_peak(hw, dtype_gemm_compute(weights, act), &out->roof_dtype);
    out->memory_time_s = out->weight_bytes / out->bandwidth_bytes_per_s;
    out->compute_time_s = out->peak_flops_per_s > 0 ? out->flops / out->peak_flops_per_s : INFINITY;
    out->time_s =
        out->memory_time_s > out->compute_time_s ? out->memory_time_s : out->compute_time_s;
    out->bound = out->compute_time_s >= out->memory_time_s ? ROOF_BOUND_COMPUTE : ROOF_BOUND_MEMORY;
    out->intensity = out->flops / out->weight_bytes;
    out->ridge = out->peak_flops_per_s / out->bandwidth_bytes_per_s;
    out->utilisation = out->flops / (out->peak_flops_per_s * out->time_s);
    out->tokens_per_s = tokens / out->time_s;
}
