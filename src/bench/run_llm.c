/* The benchmark run's LLM part: GEMV, GEMM and decode attention at transformer shapes, the
 * calibration GEMM and the small transformer's prefill and decode passes, each timed with the
 * harness, checked against a reference after timing, and freed before the next. The roofs
 * (sweep, STREAM, peaks, intensity) and the run itself are in run.c. */
#include "bench/linalg.h"
#include "bench/run_int.h"
#include "core/roof.h"
#include "util/array.h"

#include <gsl/gsl_rng.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ---- LLM kernels ---- */

struct lin_ctx {
    struct run *s;
    struct bench_linear *w;
    long copies, m;
    float *x, *y, *work;
};

static void
lin_fn(void *ctx, long reps)
{
    struct lin_ctx *c = ctx;
    for (long r = 0; r < reps; r++)
        for (long i = 0; i < c->copies; i++)
            bench_linear_forward(c->s->pool, c->s->kn, &c->w[i], c->x, c->w[i].k, c->m,
                                 c->y + i * c->m * bench_round_nr(c->w[i].n),
                                 bench_round_nr(c->w[i].n), false, c->work);
}

/* y = x W for `copies` distinct k x n matrices (copies > 1 keeps the working set above the
 * last-level cache, as a model's layers do) */
static int
run_linear(struct run *s, long m, long k, long n, long copies)
{
    struct bench_case *bc;
    if (bench_run_add_case(s, &bc) != 0)
        return 0;
    struct lin_ctx c = {
        s, calloc((size_t)copies, sizeof(struct bench_linear)), copies, m, NULL, NULL, NULL};
    long ldy = bench_round_nr(n);
    c.x = bench_alloc((size_t)(m * k) * sizeof(float));
    c.y = bench_alloc((size_t)(copies * m * ldy) * sizeof(float));
    c.work = bench_alloc((size_t)(BENCH_GEMM_WORK_FLOATS * s->T) * sizeof(float));
    int rc = -1;
    if (!c.w || !c.x || !c.y || !c.work)
        goto out;
    for (long i = 0; i < copies; i++)
        if (bench_linear_init(&c.w[i], k, n) != 0)
            goto out;
    struct bench_fill fc = {c.w, copies};
    bench_pool_run(s->pool, s->T, bench_run_fill_task, &fc);
    for (long i = 0; i < m * k; i++)
        c.x[i] = bench_hash01((unsigned long)i + 12345UL);
    *bc = (struct bench_case){.kind = m == 1 ? BENCH_CASE_GEMV : BENCH_CASE_GEMM,
                              .phase = BENCH_PHASE_KERNEL,
                              .threads = s->T,
                              .rows = m,
                              .cols = n,
                              .inner = k,
                              .copies = copies};
    if (copies > 1)
        snprintf(bc->id, sizeof bc->id, "%s_%ldx%ldx%ld_x%ld", m == 1 ? "gemv" : "gemm", m, k, n,
                 copies);
    else
        snprintf(bc->id, sizeof bc->id, "%s_%ldx%ldx%ld", m == 1 ? "gemv" : "gemm", m, k, n);
    bc->flops = 2.0 * (double)m * (double)k * (double)n * (double)copies;
    bc->bytes = (double)copies * 4.0 * ((double)k * n + (double)m * k + (double)m * n);
    bc->launches = s->T > 1 ? (double)copies : 0; /* one bench_linear_forward per matrix */
    const struct bench_plan *plan = bc->flops > 5e9 ? &s->plan_long : &s->plan;
    bc->probe_bandwidth_bytes_per_s = bench_run_probe(s);
    if (bench_measure_run(plan, lin_fn, &c, &bc->meas) != 0)
        goto out;
    s->r->n_cases++;
    bench_run_progress(s, "%s: %.1f GFLOP/s, %.1f GB/s (median)", bc->id,
                       bench_rate_median(bc->flops, &bc->meas) / 1e9,
                       bench_rate_median(bc->bytes, &bc->meas) / 1e9);
    /* check a few outputs of the first and the last matrix against double sums */
    double worst = 0;
    for (long ci = 0; ci<copies; ci += copies - 1> 0 ? copies - 1 : 1) {
        long rows[2] = {0, m - 1}, cols[3] = {0, n / 2, n - 1};
        for (int a = 0; a < 2; a++)
            for (int b = 0; b < 3; b++) {
                double ref = 0, mag = 0;
                for (long j = 0; j < k; j++) {
                    double t = (double)c.x[rows[a] * k + j] *
                               (double)*bench_linear_at(&c.w[ci], j, cols[b]);
                    ref += t;
                    mag += fabs(t);
                }
                double got = c.y[(ci * m + rows[a]) * ldy + cols[b]];
                double e = fabs(got - ref) / (mag > 0 ? mag : 1);
                worst = e > worst ? e : worst;
            }
        if (copies == 1)
            break;
    }
    bench_run_check(s, worst < 1e-4, "%s: output differs from the reference (relative %.2g)",
                    bc->id, worst);
    bench_run_consume(s, c.y[0] + c.y[(copies * m - 1) * ldy + n - 1]);
    rc = 0;
out:
    if (c.w)
        for (long i = 0; i < copies; i++)
            bench_linear_release(&c.w[i]);
    free(c.w);
    free(c.x);
    free(c.y);
    free(c.work);
    if (rc != 0)
        err_add(s->errs, NULL, 0, 0, ERR_ERROR, "out of memory for the %ldx%ldx%ld GEMM case", m, k,
                n);
    return rc;
}

/* The calibration GEMM: a compute-bound shape that no scored case uses (384 x 3072 x 3072, or
 * 256 x 2048 x 2048 with --quick). Its median rate over the fp32 FMA peak is the profile's
 * gemm_efficiency, the fraction of peak this host's GEMMs reach, as a GPU's device class holds
 * the fraction its large GEMMs reach (docs/bench.md#gemm-efficiency). Measured with the peaks,
 * at the start and again at the end of a full run; the better of the two counts. */
int
bench_run_gemm_calibration(struct run *s, int round)
{
    long m = s->o->quick ? 256 : 384, k = s->o->quick ? 2048 : 3072;
    int before = s->r->n_cases;
    if (run_linear(s, m, k, k, 1) != 0)
        return -1;
    if (s->r->n_cases > before) {
        struct bench_case *bc = &s->r->cases[s->r->n_cases - 1];
        bc->calibration = true;
        snprintf(bc->id, sizeof bc->id, "gemm_calibration_%ldx%ldx%ld%s", m, k, k,
                 round > 1 ? "_again" : "");
    }
    return 0;
}

void
bench_run_attn_fn(void *ctx, long reps)
{
    struct bench_attn *c = ctx;
    long hd = c->heads * c->kv.head_dim;
    for (long r = 0; r < reps; r++)
        for (long l = 0; l < c->kv.layers; l++)
            bench_attention(c->s->pool, c->s->kn,
                            &(struct bench_attn_args){.kv = &c->kv,
                                                      .layer = l,
                                                      .heads = c->heads,
                                                      .q = c->q,
                                                      .ldq = hd,
                                                      .n = 1,
                                                      .pos0 = c->context,
                                                      .out = c->out + l * hd,
                                                      .ldo = hd,
                                                      .scratch = c->scratch,
                                                      .scratch_per_thread = c->per_thread});
}

static void
kv_fill_task(void *ctx, int tid, int n)
{
    struct bench_attn *c = ctx;
    size_t len = (size_t)c->kv.layers * (size_t)c->kv.kv_heads * (size_t)c->kv.head_dim *
                 (size_t)c->kv.max_ctx;
    long lo, hi;
    bench_split((long)len, tid, n, 4096, &lo, &hi);
    for (long j = lo; j < hi; j++) {
        c->kv.k[j] = bench_hash01((unsigned long)j);
        c->kv.v[j] = bench_hash01((unsigned long)j + 777UL);
    }
}

int
bench_run_attn_init(struct run *s, struct bench_attn *c, long heads, long kv_heads, long d,
                    long context, long copies)
{
    *c = (struct bench_attn){.s = s, .heads = heads, .context = context};
    if (bench_kv_init(&c->kv, copies, kv_heads, d, context + 1) != 0)
        return -1;
    c->per_thread = bench_attn_scratch_floats(&c->kv, heads);
    c->q = bench_alloc((size_t)(heads * d) * sizeof(float));
    c->out = bench_alloc((size_t)(copies * heads * d) * sizeof(float));
    c->scratch = bench_alloc((size_t)(c->per_thread * s->T) * sizeof(float));
    if (!c->q || !c->out || !c->scratch)
        return -1;
    bench_pool_run(s->pool, s->T, kv_fill_task, c);
    for (long i = 0; i < heads * d; i++)
        c->q[i] = bench_hash01((unsigned long)i + 99UL);
    return 0;
}

void
bench_run_attn_release(struct bench_attn *c)
{
    bench_kv_release(&c->kv);
    free(c->q);
    free(c->out);
    free(c->scratch);
}

/* One decode step of attention (one query token per sequence) over `copies` KV caches of
 * `context` cached tokens plus the new one. */
static int
run_attention(struct run *s, long heads, long kv_heads, long d, long context, long copies)
{
    struct bench_case *bc;
    if (bench_run_add_case(s, &bc) != 0)
        return 0;
    struct bench_attn c;
    int rc = -1;
    if (bench_run_attn_init(s, &c, heads, kv_heads, d, context, copies) != 0)
        goto out;
    *bc = (struct bench_case){.kind = BENCH_CASE_ATTN,
                              .phase = BENCH_PHASE_DECODE,
                              .threads = s->T,
                              .heads = heads,
                              .kv_heads = kv_heads,
                              .head_dim = d,
                              .context = context,
                              .copies = copies};
    snprintf(bc->id, sizeof bc->id, "attn_decode_ctx%ld_x%ld", context, copies);
    double keys = (double)context + 1;
    /* physics.md#operators: score and AV 2 pairs H d each, softmax 5 pairs H; bytes: K and V
     * read, q in, out */
    bc->flops = (double)copies * (4.0 * keys * heads * d + 5.0 * keys * heads);
    bc->bytes = (double)copies * (2.0 * keys * kv_heads * d * 4 + 2.0 * heads * d * 4);
    bc->launches = bench_attention_threads(kv_heads, 1, s->T) > 1 ? (double)copies : 0;
    bc->probe_bandwidth_bytes_per_s = bench_run_probe(s);
    if (bench_measure_run(&s->plan, bench_run_attn_fn, &c, &bc->meas) != 0)
        goto out;
    s->r->n_cases++;
    bench_run_progress(s, "%s: %.1f GB/s (median)", bc->id,
                       bench_rate_median(bc->bytes, &bc->meas) / 1e9);
    /* reference for head 0 of the last cache */
    long l = copies - 1, rep = heads / kv_heads;
    double *sc = malloc((size_t)(context + 1) * sizeof *sc);
    if (sc) {
        double mx = -INFINITY, sum = 0, worst = 0;
        for (long j = 0; j <= context; j++) {
            double dot = 0;
            for (long i = 0; i < d; i++)
                dot += (double)c.q[i] * (double)*bench_kv_key(&c.kv, l, 0, j, i);
            sc[j] = dot / sqrt((double)d);
            mx = sc[j] > mx ? sc[j] : mx;
        }
        for (long j = 0; j <= context; j++) {
            sc[j] = exp(sc[j] - mx);
            sum += sc[j];
        }
        for (long i = 0; i < d; i++) {
            double acc = 0;
            for (long j = 0; j <= context; j++)
                acc += sc[j] * (double)*bench_kv_value(&c.kv, l, 0, j, i);
            double got = c.out[l * heads * d + i];
            worst = fmax(worst, fabs(got - acc / sum));
        }
        bench_run_check(s, worst < 1e-4, "%s: output differs from the reference by %.2g", bc->id,
                        worst);
        free(sc);
    }
    (void)rep;
    bench_run_consume(s, c.out[0] + c.out[copies * heads * d - 1]);
    rc = 0;
out:
    bench_run_attn_release(&c);
    if (rc != 0)
        err_add(s->errs, NULL, 0, 0, ERR_ERROR, "out of memory for the attention case");
    return rc;
}

static long
copies_for(double ws_bytes, double one_bytes, long max)
{
    long c = (long)ceil(ws_bytes / one_bytes);
    return c < 1 ? 1 : c > max ? max : c;
}

int
bench_run_kernels(struct run *s, const struct bench_tfm_shape *sh)
{
    double ws = s->r->array_bytes;
    /* transformer shapes: bench-small's (hidden 1536, MLP 4096) and a Llama-3-8B layer's
     * (hidden 4096, MLP 14336) */
    struct {
        long m, k, n;
        bool stack;
    } lin[] = {
        {1, sh->hidden, sh->intermediate, true},
        {1, 4096, 4096, true},
        {1, 4096, 14336, true},
        {8, 4096, 4096, true},
        {64, 4096, 4096, false},
        {256, 4096, 14336, false},
        {512, sh->hidden, sh->intermediate, false},
    };
    int n_lin = (int)ARRAY_SIZE(lin);
    for (int i = 0; i < n_lin; i++) {
        if (s->o->quick && (i == 1 || i == 6))
            continue;
        double one = 4.0 * (double)lin[i].k * (double)lin[i].n;
        long copies = lin[i].stack ? copies_for(ws, one, 256) : 1;
        if (run_linear(s, lin[i].m, lin[i].k, lin[i].n, copies) != 0)
            return -1;
    }
    long ctxs_full[] = {512, 2048, 8192}, ctxs_quick[] = {2048};
    const long *ctxs = s->o->quick ? ctxs_quick : ctxs_full;
    int nc = s->o->quick ? 1 : 3;
    for (int i = 0; i < nc; i++) {
        double one = 2.0 * (double)(ctxs[i] + 1) * sh->kv_heads * sh->head_dim * 4;
        if (run_attention(s, sh->heads, sh->kv_heads, sh->head_dim, ctxs[i],
                          copies_for(ws, one, 4096)) != 0)
            return -1;
    }
    return 0;
}

/* ---- the model ---- */

struct model_ctx {
    struct run *s;
    struct bench_tfm *m;
    int *tokens;
    long n, pos0;
    int status;
};

static void
model_fn(void *ctx, long reps)
{
    struct model_ctx *c = ctx;
    for (long r = 0; r < reps; r++)
        if (bench_tfm_forward(c->m, c->s->kn, c->s->pool, c->tokens, c->n, c->pos0) != 0)
            c->status = -1;
}

/* FLOPs and bytes of a pass as the engine counts them (docs/physics.md#operators); the device
 * figures do not change them, so any positive ones do. */
static void
engine_counts(const struct mdl_profile *mp, enum bench_phase ph, long prompt, long context,
              double *flops, double *bytes)
{
    struct hw_profile hw;
    memset(&hw, 0, sizeof hw);
    hw.memory_capacity_bytes = 1e15;
    hw.memory_bandwidth_bytes_per_s = 1e12;
    hw.peak_flops_per_s[DT_FP32] = 1e12;
    struct roof_config cfg;
    roof_config_init(&cfg, &hw, mp, ph == BENCH_PHASE_PREFILL ? ROOF_PREFILL : ROOF_DECODE);
    cfg.weights = cfg.act = cfg.kv = DT_FP32;
    cfg.prompt = (double)prompt;
    cfg.context = (double)context;
    cfg.reserve_bytes = 0;
    struct roof_result res;
    *flops = *bytes = 0;
    if (roof_evaluate(&cfg, &res) == 0) {
        *flops = res.flops;
        *bytes = res.bytes;
    }
}

int
bench_run_model(struct run *s, const struct bench_tfm_shape *sh)
{
    struct bench_report *r = s->r;
    long prompts_full[] = {16, 64, 256, 1024}, prompts_quick[] = {16, 256};
    long ctxs_full[] = {128, 512, 1024, 2048}, ctxs_quick[] = {512, 2048};
    const long *prompts = s->o->quick ? prompts_quick : prompts_full;
    const long *ctxs = s->o->quick ? ctxs_quick : ctxs_full;
    int np = s->o->quick ? 2 : 4, nc = s->o->quick ? 2 : 4;
    long max_prompt = prompts[np - 1], max_ctx = ctxs[nc - 1] + 1;
    bench_run_progress(s,
                       "building %s: %.0fM parameters, fp32, random weights (GSL taus2, seed %lu)",
                       r->model_id, r->model_params / 1e6, s->o->seed);
    struct bench_tfm *m = NULL;
    if (bench_tfm_new(sh, max_ctx, max_prompt, s->T, s->o->seed, &m) != 0) {
        err_add(s->errs, NULL, 0, 0, ERR_ERROR,
                "cannot build the benchmark model (out of memory for %.1f GB of weights?)",
                r->model_params * 4 / 1e9);
        return -1;
    }
    gsl_rng *rng = gsl_rng_alloc(gsl_rng_taus2);
    int *tokens = malloc((size_t)max_prompt * sizeof *tokens);
    if (!rng || !tokens) {
        gsl_rng_free(rng);
        free(tokens);
        bench_tfm_free(m);
        err_add(s->errs, NULL, 0, 0, ERR_ERROR, "out of memory");
        return -1;
    }
    gsl_rng_set(rng, s->o->seed + 1);
    for (long i = 0; i < max_prompt; i++)
        tokens[i] = (int)gsl_rng_uniform_int(rng, (unsigned long)sh->vocab);
    struct model_ctx c = {s, m, tokens, 0, 0, 0};
    struct bench_plan prefill_plan = s->plan_long;
    prefill_plan.samples = s->o->quick ? 2 : 3;
    for (int i = 0; i < np + nc; i++) {
        struct bench_case *bc;
        if (bench_run_add_case(s, &bc) != 0)
            break;
        bool pre = i < np;
        bc->kind = BENCH_CASE_MODEL;
        bc->phase = pre ? BENCH_PHASE_PREFILL : BENCH_PHASE_DECODE;
        if (pre) {
            bc->prompt = prompts[i];
            c.n = prompts[i];
            c.pos0 = 0;
            snprintf(bc->id, sizeof bc->id, "%s_prefill_%ld", r->model_id, prompts[i]);
        } else {
            bc->context = ctxs[i - np];
            c.n = 1;
            c.pos0 = ctxs[i - np];
            snprintf(bc->id, sizeof bc->id, "%s_decode_%ld", r->model_id, ctxs[i - np]);
        }
        engine_counts(s->o->model, bc->phase, bc->prompt, bc->context, &bc->flops, &bc->bytes);
        bc->launches = bench_tfm_launches(sh, c.n, s->T);
        bc->probe_bandwidth_bytes_per_s = bench_run_probe(s);
        if (bench_measure_run(pre ? &prefill_plan : &s->plan_long, model_fn, &c, &bc->meas) != 0)
            break;
        r->n_cases++;
        double t = bc->meas.s.median;
        if (pre)
            bench_run_progress(s, "%s: %.3f s, %.0f tokens/s, %.1f GFLOP/s (median)", bc->id, t,
                               (double)bc->prompt / t, bc->flops / t / 1e9);
        else
            bench_run_progress(s, "%s: %.2f ms per token, %.1f GB/s (median)", bc->id, t * 1e3,
                               bc->bytes / t / 1e9);
        double sum = 0;
        long bad = 0;
        for (long v = 0; v < sh->vocab; v++) {
            bad += !isfinite(m->logits[v]);
            sum += m->logits[v];
        }
        bench_run_check(s, bad == 0 && c.status == 0,
                        "%s: the forward pass failed or gave non-finite logits", bc->id);
        bench_run_consume(s, sum);
    }
    gsl_rng_free(rng);
    free(tokens);
    bench_tfm_free(m);
    return 0;
}
