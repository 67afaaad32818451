/* Dense fp32 linear algebra for the host benchmark: weight matrices packed in column panels of
 * BENCH_NR floats (the layout the micro-kernel streams), a blocked GEMM / GEMV driver over a
 * thread pool, a KV cache in panel layout and causal attention over it. */
#ifndef ROOFLINE_BENCH_LINALG_H
#define ROOFLINE_BENCH_LINALG_H

#include "bench/harness.h"
#include "bench/kern.h"

#include <stdbool.h>
#include <stddef.h>

/* Cache blocking of the GEMM driver (Goto and van de Geijn, ACM TOMS 34(3), 2008): a packed
 * MC x KC block of A (512 KiB) stays in L2 while panels of B stream through; KC = 512 measured
 * best on Zen 5 (a longer K loop per C tile amortises the C loads and stores; the 64 KiB B slice
 * comes from L2 at well under its bandwidth). When all of A packs into BENCH_GEMM_WHOLE_FLOATS
 * (a few rows: short prompts), A is packed once and each panel of B is streamed start to end,
 * which keeps DRAM reads sequential. */
#define BENCH_KC 512
#define BENCH_MC 256
#define BENCH_GEMM_WHOLE_FLOATS ((long)BENCH_MC * BENCH_KC)
/* Packing space one thread needs for the GEMM driver (floats): an MC x KC block with its rows
 * padded to any micro-kernel height (<= 16). */
#define BENCH_GEMM_WORK_FLOATS ((long)(BENCH_MC + 16) * BENCH_KC)

/* Allocations of at least this many bytes are made of whole 2 MiB pages, advised as huge
 * pages (MADV_HUGEPAGE). */
#define BENCH_HUGE_BYTES ((size_t)2 << 20)
/* Allocation aligned to 64 bytes (a cache line, an AVX-512 vector), or made of whole 2 MiB pages
 * from BENCH_HUGE_BYTES on; free with free(). NULL on failure or overflow. */
void *bench_alloc(size_t bytes);
/* Rounds n up to a multiple of BENCH_NR. */
long bench_round_nr(long n);

/* y[m x n] = x[m x k] W[k x n] with W packed: panel p holds columns 32p..32p+31 as k rows of 32
 * floats; columns >= n are zero. */
struct bench_linear {
    long k, n, panels;
    float *w; /* panels x k x 32, owned */
};

/* Allocate (zeroed) storage for a k x n matrix. Returns 0 or -1. Release with
 * bench_linear_release. */
int bench_linear_init(struct bench_linear *l, long k, long n);
void bench_linear_release(struct bench_linear *l);
/* Release n matrices of an array from calloc (zeroed entries are skipped) and free the array. */
void bench_linears_free(struct bench_linear *w, long n);
/* The element at logical row r, column c. */
float *bench_linear_at(const struct bench_linear *l, long r, long c);
/* Bytes of the logical matrix (k x n x 4). */
double bench_linear_bytes(const struct bench_linear *l);
/* The result check of the kernels that use it: `got`, a computed output x W[:, col] (x has
 * l->k floats), against the double sum of the same products; returns |got - sum| / sum of
 * |products| (relative to 1 when they are all 0). */
double bench_linear_col_error(const struct bench_linear *l, const float *x, long col, double got);

/* Pack rows [0, m) and columns [k0, k0 + kc) of row-major `a` (leading dimension lda) into
 * micro-panels of mr rows, k-major: element (r, k) of micro-panel t at
 * dst[t mr kc + (k - k0) mr + r]; rows m..round_up(m, mr) are zero. */
void bench_pack_a(float *dst, const float *a, long lda, long m, long k0, long kc, int mr);

/* Columns of panels [p0, p1) of y (+)= x W: x row-major with leading dimension ldx, y with
 * leading dimension ldy >= bench_round_nr(n) (the padded columns are written too). With
 * `accumulate`, y += x W (a fused residual add); otherwise y = x W. One row uses the GEMV
 * kernel, more rows the blocked GEMM, which packs x into `work` (BENCH_GEMM_WORK_FLOATS). */
void bench_linear_part(const struct bench_kernels *kn, const struct bench_linear *l, const float *x,
                       long ldx, long m, float *y, long ldy, bool accumulate, long p0, long p1,
                       float *work);
/* The same over all panels, split across the pool's threads; `work` holds
 * BENCH_GEMM_WORK_FLOATS per thread. */
void bench_linear_forward(struct bench_pool *pool, const struct bench_kernels *kn,
                          const struct bench_linear *l, const float *x, long ldx, long m, float *y,
                          long ldy, bool accumulate, float *work);

/* KV cache of one sequence: per layer and KV head, keys in blocks of 32 positions stored
 * transposed (head_dim rows of 32 positions: a packed panel for the score GEMM) and values in
 * panels of 32 dimensions (max_ctx rows of 32 floats). head_dim must be a multiple of 32. */
struct bench_kv {
    long layers, kv_heads, head_dim, max_ctx; /* max_ctx a multiple of 32 */
    float *k, *v;                             /* owned */
};
int bench_kv_init(struct bench_kv *kv, long layers, long kv_heads, long head_dim, long max_ctx);
void bench_kv_release(struct bench_kv *kv);
float *bench_kv_key(const struct bench_kv *kv, long layer, long head, long pos, long dim);
float *bench_kv_value(const struct bench_kv *kv, long layer, long head, long pos, long dim);
/* Bytes of keys and values per token over all layers (2 x layers x kv_heads x head_dim x 4). */
double bench_kv_bytes_per_token(const struct bench_kv *kv);

/* Causal grouped-query attention of one layer for n query tokens at positions pos0..pos0+n-1
 * whose keys and values are already in the cache: q is n x (heads x head_dim) with leading
 * dimension ldq, out the same shape (ldo). Each query sees positions 0..its own. Scratch per
 * thread: bench_attn_scratch_floats(). Split across the pool by (KV head, block of queries). */
long bench_attn_scratch_floats(const struct bench_kv *kv, long heads);
struct bench_attn_args {
    const struct bench_kv *kv;
    long layer, heads;
    const float *q; /* n x (heads x head_dim), leading dimension ldq */
    long ldq;
    long n, pos0; /* query tokens and the position of the first */
    float *out;   /* the same shape as q, leading dimension ldo */
    long ldo;
    float *scratch; /* scratch_per_thread floats per pool thread */
    long scratch_per_thread;
};
void bench_attention(struct bench_pool *pool, const struct bench_kernels *kn,
                     const struct bench_attn_args *a);
/* Threads bench_attention runs on for n query tokens: one work item per KV head and block of
 * query tokens, at most `threads`. */
int bench_attention_threads(long kv_heads, long n, int threads);

#endif
