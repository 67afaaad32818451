/* The x86-64 kernel variants: AVX-512 (with AVX512_BF16 dot products) and AVX2+FMA, compiled
 * with target attributes from kern_tmpl.h so the rest of the program needs no -m flags. */
#include "bench/kern.h"

#if defined(__x86_64__) || defined(__i386__)

#include <immintrin.h>
#include <stdbool.h>

#define BK_SFX avx512
#define BK_TARGET __attribute__((target("avx512f,fma")))
#define BK_VB 64
#define BK_NACC 24 /* of 32 zmm registers; 2 FMA pipes x 4 cycles latency need at least 8 */
#define BK_MR 8    /* 8 rows x 2 zmm = 16 accumulators, 2 for B, a broadcast */
#define BK_FMA32(a, b, c) ((vf_avx512)_mm512_fmadd_ps((__m512)(a), (__m512)(b), (__m512)(c)))
#define BK_FMA64(a, b, c) ((vd_avx512)_mm512_fmadd_pd((__m512d)(a), (__m512d)(b), (__m512d)(c)))
#define BK_FMAS(a, b, c) __builtin_fma((a), (b), (c))
#include "bench/kern_tmpl.h"
#undef BK_SFX
#undef BK_TARGET
#undef BK_VB
#undef BK_NACC
#undef BK_MR
#undef BK_FMA32
#undef BK_FMA64
#undef BK_FMAS

#define BK_SFX avx2
#define BK_TARGET __attribute__((target("avx2,fma")))
#define BK_VB 32
#define BK_NACC 12 /* of 16 ymm registers */
#define BK_MR 3    /* 3 rows x 4 ymm = 12 accumulators */
#define BK_FMA32(a, b, c) ((vf_avx2)_mm256_fmadd_ps((__m256)(a), (__m256)(b), (__m256)(c)))
#define BK_FMA64(a, b, c) ((vd_avx2)_mm256_fmadd_pd((__m256d)(a), (__m256d)(b), (__m256d)(c)))
#define BK_FMAS(a, b, c) __builtin_fma((a), (b), (c))
#include "bench/kern_tmpl.h"
#undef BK_SFX
#undef BK_TARGET
#undef BK_VB
#undef BK_NACC
#undef BK_MR
#undef BK_FMA32
#undef BK_FMA64
#undef BK_FMAS

/* vdpbf16ps: per fp32 lane, two bf16 products added to the accumulator (4 FLOPs); inputs 1.0
 * and 2^-20 keep the sums exact and far from overflow */
__attribute__((target("avx512f,avx512bf16"))) static double
dp_bf16_avx512(long iters)
{
    __m512 acc[24];
    for (int j = 0; j < 24; j++)
        acc[j] = _mm512_setzero_ps();
    __m512bh one = (__m512bh)_mm512_set1_epi16(0x3f80);  /* 1.0 */
    __m512bh tiny = (__m512bh)_mm512_set1_epi16(0x3580); /* 2^-20 */
    for (long i = 0; i < iters; i++) {
#pragma GCC unroll 24
        for (int j = 0; j < 24; j++)
            acc[j] = _mm512_dpbf16_ps(acc[j], one, tiny);
    }
    __m512 s = acc[0];
    for (int j = 1; j < 24; j++)
        s = _mm512_add_ps(s, acc[j]);
    return (double)_mm512_reduce_add_ps(s);
}

const struct bench_kernels bench_kernels_avx512 = {
    .isa = BENCH_ISA_AVX512,
    .name = "avx512",
    .target = "avx512f,fma",
    .vector_bytes = 64,
    .fma_acc = 24,
    .fma_f32 = fma_f32_avx512,
    .fma_f64 = fma_f64_avx512,
    .dp_bf16 = dp_bf16_avx512,
    .copy = copy_avx512,
    .scale = scale_avx512,
    .add = add_avx512,
    .triad = triad_avx512,
    .read = read_avx512,
    .ert = ert_avx512,
    .gemm_mr = 8,
    .gemm_ukr = gemm_ukr_avx512,
    .gemm_ukr4 = gemm_ukr4_avx512,
    .gemv_panel = gemv_panel_avx512,
    .softmax = softmax_avx512,
    .silu_mul = silu_mul_avx512,
};

const struct bench_kernels bench_kernels_avx2 = {
    .isa = BENCH_ISA_AVX2,
    .name = "avx2+fma",
    .target = "avx2,fma",
    .vector_bytes = 32,
    .fma_acc = 12,
    .fma_f32 = fma_f32_avx2,
    .fma_f64 = fma_f64_avx2,
    .dp_bf16 = NULL,
    .copy = copy_avx2,
    .scale = scale_avx2,
    .add = add_avx2,
    .triad = triad_avx2,
    .read = read_avx2,
    .ert = ert_avx2,
    .gemm_mr = 3,
    .gemm_ukr = gemm_ukr_avx2,
    .gemm_ukr4 = gemm_ukr4_avx2,
    .gemv_panel = gemv_panel_avx2,
    .softmax = softmax_avx2,
    .silu_mul = silu_mul_avx2,
};

#endif
