/* The host benchmark's kernels, compiled once per instruction set (AVX-512, AVX2+FMA, a portable
 * fallback) from one template (kern_tmpl.h) and chosen at run time with __builtin_cpu_supports.
 * Each kernel states its FLOPs and bytes per call here, so the harness counts them as data. */
#ifndef ROOFLINE_BENCH_KERN_H
#define ROOFLINE_BENCH_KERN_H

#include <stdbool.h>

enum bench_isa { BENCH_ISA_GENERIC, BENCH_ISA_AVX2, BENCH_ISA_AVX512, BENCH_ISA_COUNT };

/* Width of a packed weight panel in floats: matrices are stored as column panels of 32. */
#define BENCH_NR 32

struct bench_kernels {
    enum bench_isa isa;
    const char *name;   /* "avx512", "avx2+fma", "generic" */
    const char *target; /* the target attribute the kernels were compiled with */
    int vector_bytes;
    /* peak kernels: `iters` rounds of `fma_acc` independent vector FMAs (x = x * mul + add);
     * FLOPs per round = fma_acc x lanes x 2. Return the sum of the accumulators. */
    int fma_acc;
    double (*fma_f32)(long iters, float mul, float add);
    double (*fma_f64)(long iters, double mul, double add);
    /* bf16 dot products accumulating in fp32 (AVX512_BF16 vdpbf16ps), NULL where not compiled;
     * FLOPs per round = fma_acc x lanes(fp32) x 4 */
    double (*dp_bf16)(long iters);
    /* STREAM (McCalpin): bytes counted as STREAM does, without write-allocate traffic:
     * copy 16 B, scale 16 B, add 24 B, triad 24 B per element; scale 1, add 1, triad 2 FLOPs */
    void (*copy)(double *c, const double *a, long n);
    void (*scale)(double *b, const double *c, double s, long n);
    void (*add)(double *c, const double *a, const double *b, long n);
    void (*triad)(double *a, const double *b, const double *c, double s, long n);
    /* sum of a[0..n): 8 B and 1 FLOP per element */
    double (*read)(const double *a, long n);
    /* Empirical Roofline Toolkit kernel, in place: each element is loaded, gets `fmas` fused
     * multiply-adds x = x * alpha + beta (or one add x + beta when fmas = 0), and is stored:
     * 16 B and max(1, 2 fmas) FLOPs per element */
    void (*ert)(double *a, long n, int fmas, double alpha, double beta);
    /* C[mr x 32] (+)= A[mr x kc] B[kc x 32] with mr = gemm_mr: A packed k-major (element (r, k)
     * at a[k x mr + r], see bench_pack_a), B a packed panel (row k at b + 32 k), C with leading
     * dimension ldc */
    int gemm_mr;
    void (*gemm_ukr)(long kc, const float *a, const float *b, float *c, long ldc, bool accumulate);
    /* the same for exactly 4 rows (A packed with mr = 4), for blocks of 4 rows or fewer */
    void (*gemm_ukr4)(long kc, const float *a, const float *b, float *c, long ldc, bool accumulate);
    /* y[0..32) (+)= x[0..k) B[k x 32] (one row against one packed panel) */
    void (*gemv_panel)(long k, const float *x, const float *b, float *y, bool accumulate);
    /* In place: s = exp(scale (s - max s)) / sum, over s[0..n) */
    void (*softmax)(float *s, long n, float scale);
    /* g = silu(g) x u = g / (1 + exp(-g)) x u */
    void (*silu_mul)(float *g, const float *u, long n);
};

/* The best instruction set this CPU runs among those compiled in. */
enum bench_isa bench_isa_best(void);
/* True when the CPU executes `isa` (GENERIC always). */
bool bench_isa_supported(enum bench_isa isa);
/* True when the CPU has AVX512_BF16 (the dp_bf16 kernel may run). */
bool bench_cpu_has_bf16(void);
/* The kernel table for `isa`, or NULL when not compiled for this architecture. */
const struct bench_kernels *bench_kernels_for(enum bench_isa isa);

/* Per-ISA tables (kern_x86.c, kern_generic.c). */
extern const struct bench_kernels bench_kernels_generic;
#if defined(__x86_64__) || defined(__i386__)
extern const struct bench_kernels bench_kernels_avx2;
extern const struct bench_kernels bench_kernels_avx512;
#endif

#endif
