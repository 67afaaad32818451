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

/* One GEMV/GEMM case: its shape, and between open and close its buffers. */
struct lin_ctx {
    struct run *s;
    struct bench_case *bc;
    long m, k, n, copies;
    bool keep; /* buffers kept from the first visit to the last (else made in every visit) */
    struct bench_linear *w;
    float *x, *y, *work;
};

static void
lin_fn(void *ctx, long reps)
{
    struct lin_ctx *c = ctx;
    long ldy = bench_round_nr(c->n);
    for (long r = 0; r < reps; r++)
        for (long i = 0; i < c->copies; i++)
            bench_linear_forward(c->s->pool, c->s->kn, &c->w[i], c->x, c->w[i].k, c->m,
                                 c->y + i * c->m * ldy, ldy, false, c->work);
}

static void
lin_free(struct lin_ctx *c)
{
    bench_linears_free(c->w, c->copies);
    free(c->x);
    free(c->y);
    free(c->work);
    c->w = NULL;
    c->x = c->y = c->work = NULL;
}

/* Allocates and fills the case's buffers: once when they are kept, else in every visit (each
 * stack is the STREAM array size; all of them at once may not fit, see keep_buffers). */
static int
lin_open(void *ctx, int round)
{
    (void)round;
    struct lin_ctx *c = ctx;
    struct run *s = c->s;
    s->stage = "kernels";
    if (c->w)
        return 0;
    long m = c->m, k = c->k, ldy = bench_round_nr(c->n);
    c->w = calloc((size_t)c->copies, sizeof(struct bench_linear));
    c->x = bench_alloc((size_t)(m * k) * sizeof(float));
    c->y = bench_alloc((size_t)(c->copies * m * ldy) * sizeof(float));
    c->work = bench_alloc((size_t)(BENCH_GEMM_WORK_FLOATS * s->T) * sizeof(float));
    bool ok = c->w && c->x && c->y && c->work;
    for (long i = 0; ok && i < c->copies; i++)
        if (bench_linear_init(&c->w[i], k, c->n) != 0)
            ok = false; /* lin_free releases the ones made (the rest are zeroed) */
    if (!ok) {
        lin_free(c);
        err_add(s->errs, NULL, 0, 0, ERR_ERROR, "out of memory for the %ldx%ldx%ld GEMM case", m, k,
                c->n);
        return -1;
    }
    struct bench_fill fc = {c->w, c->copies};
    bench_pool_run(s->pool, s->T, bench_run_fill_task, &fc);
    for (long i = 0; i < m * k; i++)
        c->x[i] = bench_hash01((unsigned long)i + 12345UL);
    return 0;
}

/* Progress; on the last visit the check of a few outputs of the first and the last matrix
 * against double sums; frees the buffers. */
static int
lin_close(void *ctx, int round, bool last)
{
    struct lin_ctx *c = ctx;
    struct run *s = c->s;
    struct bench_case *bc = c->bc;
    long m = c->m, k = c->k, n = c->n, copies = c->copies, ldy = bench_round_nr(n);
    bench_run_progress(s, "%s%s: %.1f GFLOP/s, %.1f GB/s (median)",
                       bc->calibration ? "" : bench_run_round(s, round), bc->id,
                       bench_rate_median(bc->flops, &bc->meas) / 1e9,
                       bench_rate_median(bc->bytes, &bc->meas) / 1e9);
    if (last && bc->meas.n_samples > 0) {
        double worst = 0;
        for (long ci = 0; ci<copies; ci += copies - 1> 0 ? copies - 1 : 1) {
            long rows[2] = {0, m - 1}, cols[3] = {0, n / 2, n - 1};
            for (int a = 0; a < 2; a++)
                for (int b = 0; b < 3; b++) {
                    double e = bench_linear_col_error(&c->w[ci], c->x + rows[a] * k, cols[b],
                                                      c->y[(ci * m + rows[a]) * ldy + cols[b]]);
                    worst = e > worst ? e : worst;
                }
            if (copies == 1)
                break;
        }
        bench_run_check(s, worst < 1e-4, "%s: output differs from the reference (relative %.2g)",
                        bc->id, worst);
        bench_run_consume(s, c->y[0] + c->y[(copies * m - 1) * ldy + n - 1]);
    }
    if (last || !c->keep)
        lin_free(c);
    return 0;
}

/* y = x W for `copies` distinct k x n matrices (copies > 1 keeps the working set above the
 * last-level cache, as a model's layers do): the case's record in the next slot of the report
 * and its round-robin item. -1 when the report is full. */
static int
lin_case(struct run *s, long m, long k, long n, long copies, struct lin_ctx *c,
         struct bench_rr_item *it)
{
    struct bench_case *bc;
    if (bench_run_add_case(s, &bc) != 0)
        return -1;
    s->r->n_cases++;
    *c = (struct lin_ctx){.s = s, .bc = bc, .m = m, .k = k, .n = n, .copies = copies};
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
    *it = (struct bench_rr_item){.plan = bc->flops > 5e9 ? &s->plan_long : &s->plan,
                                 .fn = lin_fn,
                                 .ctx = c,
                                 .open = lin_open,
                                 .close = lin_close,
                                 .meas = &bc->meas,
                                 .log = &bc->rr};
    return 0;
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
    struct lin_ctx c;
    struct bench_rr_item it;
    if (lin_case(s, m, k, k, 1, &c, &it) != 0)
        return 0;
    struct bench_case *bc = c.bc;
    bc->calibration = true;
    snprintf(bc->id, sizeof bc->id, "gemm_calibration_%ldx%ldx%ld%s", m, k, k,
             round > 1 ? "_again" : "");
    if (bench_rounds_run(&it, 1, 1, bench_run_probe_cb, s) != 0) {
        s->r->n_cases--;
        return -1;
    }
    bc->probe_bandwidth_bytes_per_s = bench_rounds_median_probe(&bc->meas, &bc->rr);
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
 * `context` cached tokens plus the new one; the buffers between open and close. */
struct attn_ctx {
    struct run *s;
    struct bench_case *bc;
    bool keep, open; /* buffers kept from the first visit to the last; allocated now */
    struct bench_attn a;
};

static void
attn_fn(void *ctx, long reps)
{
    bench_run_attn_fn(&((struct attn_ctx *)ctx)->a, reps);
}

static int
attn_open(void *ctx, int round)
{
    (void)round;
    struct attn_ctx *c = ctx;
    struct bench_case *bc = c->bc;
    c->s->stage = "kernels";
    if (c->open)
        return 0;
    c->open = true;
    if (bench_run_attn_init(c->s, &c->a, bc->heads, bc->kv_heads, bc->head_dim, bc->context,
                            bc->copies) != 0) {
        bench_run_attn_release(&c->a);
        c->open = false;
        err_add(c->s->errs, NULL, 0, 0, ERR_ERROR, "out of memory for the attention case");
        return -1;
    }
    return 0;
}

/* Progress; on the last visit the reference for head 0 of the last cache; frees the buffers. */
static int
attn_close(void *ctx, int round, bool last)
{
    struct attn_ctx *c = ctx;
    struct run *s = c->s;
    struct bench_case *bc = c->bc;
    long d = bc->head_dim, context = bc->context, heads = bc->heads, copies = bc->copies;
    bench_run_progress(s, "%s%s: %.1f GB/s (median)", bench_run_round(s, round), bc->id,
                       bench_rate_median(bc->bytes, &bc->meas) / 1e9);
    double *sc = last && bc->meas.n_samples > 0 ? malloc((size_t)(context + 1) * sizeof *sc) : NULL;
    if (sc) {
        long l = copies - 1;
        double mx = -INFINITY, sum = 0, worst = 0;
        for (long j = 0; j <= context; j++) {
            double dot = 0;
            for (long i = 0; i < d; i++)
                dot += (double)c->a.q[i] * (double)*bench_kv_key(&c->a.kv, l, 0, j, i);
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
                acc += sc[j] * (double)*bench_kv_value(&c->a.kv, l, 0, j, i);
            double got = c->a.out[l * heads * d + i];
            worst = fmax(worst, fabs(got - acc / sum));
        }
        bench_run_check(s, worst < 1e-4, "%s: output differs from the reference by %.2g", bc->id,
                        worst);
        free(sc);
        bench_run_consume(s, c->a.out[0] + c->a.out[copies * heads * d - 1]);
    }
    if (last || !c->keep) {
        bench_run_attn_release(&c->a);
        c->open = false;
    }
    return 0;
}

static int
attn_case(struct run *s, long heads, long kv_heads, long d, long context, long copies,
          struct attn_ctx *c, struct bench_rr_item *it)
{
    struct bench_case *bc;
    if (bench_run_add_case(s, &bc) != 0)
        return -1;
    s->r->n_cases++;
    *c = (struct attn_ctx){.s = s, .bc = bc};
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
    *it = (struct bench_rr_item){.plan = &s->plan,
                                 .fn = attn_fn,
                                 .ctx = c,
                                 .open = attn_open,
                                 .close = attn_close,
                                 .meas = &bc->meas,
                                 .log = &bc->rr};
    return 0;
}

static long
copies_for(double ws_bytes, double one_bytes, long max)
{
    long c = (long)ceil(ws_bytes / one_bytes);
    return c < 1 ? 1 : c > max ? max : c;
}

/* The kernel cases (GEMV, GEMM, attention) of the run: their records in the report and their
 * round-robin items; the number of items. */
#define MAX_LIN 7
#define MAX_ATTN 3
struct llm_items {
    struct lin_ctx lin[MAX_LIN];
    struct attn_ctx attn[MAX_ATTN];
    int n_lin, n_attn;
};

static int
kernel_items(struct run *s, const struct bench_tfm_shape *sh, struct llm_items *L,
             struct bench_rr_item *items)
{
    int n = 0;
    double ws = s->r->array_bytes;
    /* transformer shapes: bench-small's (hidden 1536, MLP 4096) and a Llama-3-8B layer's
     * (hidden 4096, MLP 14336) */
    struct {
        long m, k, n;
        bool stack;
    } lin[MAX_LIN] = {
        {1, sh->hidden, sh->intermediate, true},
        {1, 4096, 4096, true},
        {1, 4096, 14336, true},
        {8, 4096, 4096, true},
        {64, 4096, 4096, false},
        {256, 4096, 14336, false},
        {512, sh->hidden, sh->intermediate, false},
    };
    for (int i = 0; i < MAX_LIN; i++) {
        if (s->o->quick && (i == 1 || i == 6))
            continue;
        double one = 4.0 * (double)lin[i].k * (double)lin[i].n;
        long copies = lin[i].stack ? copies_for(ws, one, 256) : 1;
        if (lin_case(s, lin[i].m, lin[i].k, lin[i].n, copies, &L->lin[L->n_lin], &items[n]) != 0)
            return n;
        L->n_lin++;
        n++;
    }
    long ctxs_full[] = {512, 2048, 8192}, ctxs_quick[] = {2048};
    const long *ctxs = s->o->quick ? ctxs_quick : ctxs_full;
    int nc = s->o->quick ? 1 : 3;
    for (int i = 0; i < nc; i++) {
        double one = 2.0 * (double)(ctxs[i] + 1) * sh->kv_heads * sh->head_dim * 4;
        if (attn_case(s, sh->heads, sh->kv_heads, sh->head_dim, ctxs[i], copies_for(ws, one, 4096),
                      &L->attn[L->n_attn], &items[n]) != 0)
            return n;
        L->n_attn++;
        n++;
    }
    /* the buffers of every kernel case stay allocated over the rounds when together they take at
     * most a quarter of memory (--quick on most hosts); else each visit allocates and fills its
     * case again (a full run's stacks are the STREAM array size each, up to 2 GiB) */
    double sum = 0;
    for (int i = 0; i < L->n_lin; i++)
        sum += L->lin[i].bc->bytes;
    for (int i = 0; i < L->n_attn; i++)
        sum += L->attn[i].bc->bytes;
    bool keep = s->r->host.memory_bytes > 0 && sum <= s->r->host.memory_bytes / 4;
    for (int i = 0; i < L->n_lin; i++)
        L->lin[i].keep = keep;
    for (int i = 0; i < L->n_attn; i++)
        L->attn[i].keep = keep;
    return n;
}

/* ---- the model ---- */

struct model_ctx {
    struct run *s;
    struct bench_case *bc;
    struct bench_tfm *m;
    const int *tokens;
    long n, pos0, vocab;
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

static int
model_open(void *ctx, int round)
{
    (void)round;
    ((struct model_ctx *)ctx)->s->stage = "model";
    return 0;
}

/* Progress, and the logits of the visit's last pass checked (on the case's last visit). */
static int
model_close(void *ctx, int round, bool last)
{
    struct model_ctx *c = ctx;
    struct run *s = c->s;
    struct bench_case *bc = c->bc;
    double t = bc->meas.s.median;
    if (bc->phase == BENCH_PHASE_PREFILL)
        bench_run_progress(s, "%s%s: %.3f s, %.0f tokens/s, %.1f GFLOP/s (median)",
                           bench_run_round(s, round), bc->id, t, (double)bc->prompt / t,
                           bc->flops / t / 1e9);
    else
        bench_run_progress(s, "%s%s: %.2f ms per token, %.1f GB/s (median)",
                           bench_run_round(s, round), bc->id, t * 1e3, bc->bytes / t / 1e9);
    if (last && bc->meas.n_samples > 0) {
        double sum = 0;
        long bad = 0;
        for (long v = 0; v < c->vocab; v++) {
            bad += !isfinite(c->m->logits[v]);
            sum += c->m->logits[v];
        }
        bench_run_check(s, bad == 0 && c->status == 0,
                        "%s: the forward pass failed or gave non-finite logits", bc->id);
        bench_run_consume(s, sum);
    }
    return 0;
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

#define MAX_MODEL_CASES 8

/* Prompts of the prefill cases and contexts of the decode cases (--quick: 2 + 2, else 4 + 4). */
static void
model_sizes(const struct run *s, const long **prompts, int *np, const long **ctxs, int *nc)
{
    static const long prompts_full[] = {16, 64, 256, 1024}, prompts_quick[] = {16, 256};
    static const long ctxs_full[] = {128, 512, 1024, 2048}, ctxs_quick[] = {512, 2048};
    *prompts = s->o->quick ? prompts_quick : prompts_full;
    *ctxs = s->o->quick ? ctxs_quick : ctxs_full;
    *np = *nc = s->o->quick ? 2 : 4;
}

/* Visits of a case whose plan takes `samples` samples in R rounds. */
static int
visits(int samples, int R)
{
    int v = 0;
    for (int r = 0; r < R; r++)
        v += bench_round_samples(samples, R, r) > 0;
    return v;
}

int
bench_run_rounds(const struct bench_options *o)
{
    return o->rounds > 0 ? (o->rounds < BENCH_MAX_ROUNDS ? o->rounds : BENCH_MAX_ROUNDS)
                         : BENCH_DEFAULT_ROUNDS;
}

const char *
bench_run_round(struct run *s, int round)
{
    int R = bench_run_rounds(s->o);
    if (R <= 1)
        s->round_label[0] = 0;
    else
        snprintf(s->round_label, sizeof s->round_label, "round %d/%d: ", round + 1, R);
    return s->round_label;
}

int
bench_run_llm(struct run *s, const struct bench_tfm_shape *sh, bool kernels, bool model)
{
    struct bench_report *r = s->r;
    struct llm_items *L = calloc(1, sizeof *L);
    struct model_ctx *mc = calloc(MAX_MODEL_CASES, sizeof *mc);
    struct bench_rr_item items[MAX_LIN + MAX_ATTN + MAX_MODEL_CASES];
    struct bench_tfm *m = NULL;
    int *tokens = NULL;
    int rc = -1, n = 0;
    if (!L || !mc) {
        err_add(s->errs, NULL, 0, 0, ERR_ERROR, "out of memory");
        goto out;
    }
    int first = r->n_cases;
    if (kernels)
        n = kernel_items(s, sh, L, items);
    const long *prompts, *ctxs;
    int np, nc;
    model_sizes(s, &prompts, &np, &ctxs, &nc);
    struct bench_plan prefill_plan = s->plan_long;
    prefill_plan.samples = s->o->quick ? 2 : 3;
    if (model) {
        long max_prompt = prompts[np - 1], max_ctx = ctxs[nc - 1] + 1;
        s->stage = "model";
        bench_run_progress(
            s, "building %s: %.0fM parameters, fp32, random weights (GSL taus2, seed %lu)",
            r->model_id, r->model_params / 1e6, s->o->seed);
        if (bench_tfm_new(sh, max_ctx, max_prompt, s->T, s->o->seed, &m) != 0) {
            err_add(s->errs, NULL, 0, 0, ERR_ERROR,
                    "cannot build the benchmark model (out of memory for %.1f GB of weights?)",
                    r->model_params * 4 / 1e9);
            goto out;
        }
        gsl_rng *rng = gsl_rng_alloc(gsl_rng_taus2);
        tokens = malloc((size_t)max_prompt * sizeof *tokens);
        if (!rng || !tokens) {
            gsl_rng_free(rng);
            err_add(s->errs, NULL, 0, 0, ERR_ERROR, "out of memory");
            goto out;
        }
        gsl_rng_set(rng, s->o->seed + 1);
        for (long i = 0; i < max_prompt; i++)
            tokens[i] = (int)gsl_rng_uniform_int(rng, (unsigned long)sh->vocab);
        gsl_rng_free(rng);
        for (int i = 0; i < np + nc; i++) {
            struct bench_case *bc;
            if (bench_run_add_case(s, &bc) != 0)
                break;
            r->n_cases++;
            bool pre = i < np;
            bc->kind = BENCH_CASE_MODEL;
            bc->phase = pre ? BENCH_PHASE_PREFILL : BENCH_PHASE_DECODE;
            mc[i] =
                (struct model_ctx){.s = s, .bc = bc, .m = m, .tokens = tokens, .vocab = sh->vocab};
            if (pre) {
                bc->prompt = prompts[i];
                mc[i].n = prompts[i];
                snprintf(bc->id, sizeof bc->id, "%s_prefill_%ld", r->model_id, prompts[i]);
            } else {
                bc->context = ctxs[i - np];
                mc[i].n = 1;
                mc[i].pos0 = ctxs[i - np];
                snprintf(bc->id, sizeof bc->id, "%s_decode_%ld", r->model_id, ctxs[i - np]);
            }
            engine_counts(s->o->model, bc->phase, bc->prompt, bc->context, &bc->flops, &bc->bytes);
            bc->launches = bench_tfm_launches(sh, mc[i].n, s->T);
            items[n++] = (struct bench_rr_item){.plan = pre ? &prefill_plan : &s->plan_long,
                                                .fn = model_fn,
                                                .ctx = &mc[i],
                                                .open = model_open,
                                                .close = model_close,
                                                .meas = &bc->meas,
                                                .log = &bc->rr};
        }
    }
    r->rounds = bench_run_rounds(s->o);
    int steps = model ? 1 : 0; /* the progress total, exact now that the items are known */
    for (int i = 0; i < n; i++)
        steps += visits(items[i].plan->samples, r->rounds);
    s->total += steps - bench_run_llm_steps(s, kernels, model);
    if (bench_rounds_run(items, n, r->rounds, bench_run_probe_cb, s) != 0) {
        if (err_count(s->errs, ERR_ERROR) == 0)
            err_add(s->errs, NULL, 0, 0, ERR_ERROR, "a benchmark case could not be measured");
        r->n_cases = first;
        goto out;
    }
    for (int i = first; i < r->n_cases; i++)
        r->cases[i].probe_bandwidth_bytes_per_s =
            bench_rounds_median_probe(&r->cases[i].meas, &r->cases[i].rr);
    rc = 0;
out:
    free(tokens);
    bench_tfm_free(m);
    free(L);
    free(mc);
    return rc;
}

int
bench_run_llm_steps(const struct run *s, bool kernels, bool model)
{
    int R = bench_run_rounds(s->o), steps = 0;
    if (kernels) /* GEMV/GEMM on plan or plan_long, attention on plan */
        steps +=
            (s->o->quick ? 6 : 10) *
            visits(s->plan.samples < s->plan_long.samples ? s->plan.samples : s->plan_long.samples,
                   R);
    if (model) /* the build, prefill (2 or 3 samples), decode (plan_long) */
        steps += 1 + (s->o->quick ? 2 : 4) *
                         (visits(s->o->quick ? 2 : 3, R) + visits(s->plan_long.samples, R));
    return steps;
}
