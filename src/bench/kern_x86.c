/* The x86-64 kernel variants: AVX-512 (with AVX512_BF16 dot products) and AVX2+FMA, compiled
 * with target attributes from kern_tmpl.h so the rest of the program needs no -m flags. */
#include "bench/kern.h"

#if defined(__x86_64__) || defined(__i386__)

#include <immintrin.h>
#include <stdbool.h>
#include <stddef.h>

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

#define BK_SFX avx512
#define BK_TARGET __attribute__((target("avx512f,fma")))
#define BK_VB 64
#define BK_NACC 24 /* of 32 zmm registers; 2 FMA pipes x 4 cycles latency need at least 8 */
#define BK_MR 8    /* 8 rows x 2 zmm = 16 accumulators, 2 for B, a broadcast */
#define BK_FMA32(a, b, c) ((vf_avx512)_mm512_fmadd_ps((__m512)(a), (__m512)(b), (__m512)(c)))
#define BK_FMA64(a, b, c) ((vd_avx512)_mm512_fmadd_pd((__m512d)(a), (__m512d)(b), (__m512d)(c)))
#define BK_FMAS(a, b, c) __builtin_fma((a), (b), (c))
#define BK_ISA BENCH_ISA_AVX512
#define BK_NAME "avx512"
#define BK_TARGET_NAME "avx512f,fma"
#define BK_DP_BF16 dp_bf16_avx512
#include "bench/kern_tmpl.h"

#define BK_SFX avx2
#define BK_TARGET __attribute__((target("avx2,fma")))
#define BK_VB 32
#define BK_NACC 12 /* of 16 ymm registers */
#define BK_MR 3    /* 3 rows x 4 ymm = 12 accumulators */
#define BK_FMA32(a, b, c) ((vf_avx2)_mm256_fmadd_ps((__m256)(a), (__m256)(b), (__m256)(c)))
#define BK_FMA64(a, b, c) ((vd_avx2)_mm256_fmadd_pd((__m256d)(a), (__m256d)(b), (__m256d)(c)))
#define BK_FMAS(a, b, c) __builtin_fma((a), (b), (c))
#define BK_ISA BENCH_ISA_AVX2
#define BK_NAME "avx2+fma"
#define BK_TARGET_NAME "avx2,fma"
#define BK_DP_BF16 NULL
#include "bench/kern_tmpl.h"

#endif
