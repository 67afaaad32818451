/* Internal to the benchmark run (run.c, run_llm.c): the state of one run and the helpers every
 * part uses to report progress, check results and keep them live. Not part of the bench API. */
#ifndef ROOFLINE_BENCH_RUN_INT_H
#define ROOFLINE_BENCH_RUN_INT_H

#include "bench/bench.h"
#include "bench/kern.h"
#include "bench/linalg.h"
#include "bench/tfm.h"

#define MiB (1024.0 * 1024.0)
#define GiB (1024.0 * MiB)
#define SINK_STRIDE 8 /* doubles between per-thread sinks: one cache line each */
#define MAX_THREADS 256

/* A stack of packed matrices streamed by one row (the weight stream and the probe). */
struct wstream_ctx {
    struct run *s;
    struct bench_linear *w;
    long copies, ldy;
    float *x, *y;
    int active;
    long reps;
};

struct run {
    const struct bench_options *o;
    struct bench_report *r;
    struct err_list *errs;
    const struct bench_kernels *kn;
    struct bench_pool *pool;
    int T;
    struct bench_plan plan, plan_long, plan_sweep;
    double sink[MAX_THREADS * SINK_STRIDE];
    int step, total;
    const char *stage;
    struct wstream_ctx *probe; /* the bandwidth probe beside the LLM cases, or NULL */
    long probe_reps;           /* its repetitions per sample once calibrated (0 before) */
    char round_label[32];
};

/* One step done: counts it and reports `fmt` through the options' progress callback. */
void bench_run_progress(struct run *s, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/* A result check: when !ok, counts a validation failure (the first one's message is kept). */
void bench_run_check(struct run *s, bool ok, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
/* The per-thread sinks' sum, which it resets. */
double bench_run_sink_total(struct run *s);
/* Folds v into the printed checksum (a non-finite v is a failed check). */
void bench_run_consume(struct run *s, double v);
/* Deterministic fill for kernel inputs: a multiplicative hash of i mapped to [-0.5, 0.5). */
float bench_hash01(unsigned long i);
/* Matrices to fill with small deterministic values (bench_hash01), split across the pool:
 * bench_pool_run(pool, T, bench_run_fill_task, &fill). */
struct bench_fill {
    struct bench_linear *w;
    long copies;
};
void bench_run_fill_task(void *ctx, int tid, int n);
/* The next case slot, zeroed, with the run's thread count; -1 when the report is full. */
int bench_run_add_case(struct run *s, struct bench_case **out);

/* Decode attention over `copies` KV caches of `context` cached tokens plus the new one, one
 * query token each (bench/run_llm.c): the buffers, filled, and the kernel loop for
 * bench_measure_run. The attention case and the L2 core-rate measurement (bench/run.c) share
 * them. */
struct bench_attn {
    struct run *s;
    struct bench_kv kv;
    long heads, context;
    float *q, *out, *scratch;
    long per_thread;
};
/* 0, or -1 out of memory (released either way by bench_run_attn_release) */
int bench_run_attn_init(struct run *s, struct bench_attn *c, long heads, long kv_heads, long d,
                        long context, long copies);
void bench_run_attn_fn(void *ctx, long reps);
void bench_run_attn_release(struct bench_attn *c);

/* The bandwidth probe: allocate it (0, or -1 with a message), measure it (the best rate in
 * bytes/s; 0 without a probe), free it. */
int bench_run_probe_init(struct run *s, const struct bench_tfm_shape *sh);
double bench_run_probe(struct run *s);
double bench_run_probe_cb(void *run); /* bench_run_probe for bench_rounds_run */
void bench_run_probe_release(struct run *s);

/* The calibration GEMM of round 1 or 2 (run_llm.c); 0, or -1 with a message in s->errs. */
int bench_run_gemm_calibration(struct run *s, int round);
/* The LLM cases (run_llm.c) in round-robin rounds (bench_rounds_run): the kernels (GEMV, GEMM,
 * decode attention at the shapes of `sh` and of a Llama-3-8B layer) and the small
 * transformer's prefill and decode passes, each case's probe the one beside its median sample.
 * 0, or -1 with a message in s->errs. */
int bench_run_llm(struct run *s, const struct bench_tfm_shape *sh, bool kernels, bool model);
/* Its progress steps (one per visit of a case, one for building the model), with s's plans. */
int bench_run_llm_steps(const struct run *s, bool kernels, bool model);
/* The rounds of a run: options.rounds, or BENCH_DEFAULT_ROUNDS when 0. */
int bench_run_rounds(const struct bench_options *o);
/* "round r/R: " for progress lines (round 0-based), "" with one round; kept in s. */
const char *bench_run_round(struct run *s, int round);

#endif
