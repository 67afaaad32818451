/* The portable kernel variant (16-byte GCC vectors: SSE2 on x86-64, NEON on AArch64, without
 * fused multiply-adds) and the run-time choice among the compiled variants. */
#include "bench/kern.h"

#include <stddef.h>

#define BK_SFX generic
#define BK_TARGET
#define BK_VB 16
#define BK_NACC 8
#define BK_MR 2
#define BK_FMA32(a, b, c) ((a) * (b) + (c))
#define BK_FMA64(a, b, c) ((a) * (b) + (c))
#define BK_FMAS(a, b, c) ((a) * (b) + (c))
#define BK_ISA BENCH_ISA_GENERIC
#define BK_NAME "generic"
#define BK_TARGET_NAME "none (16-byte vectors, separate multiply and add)"
#define BK_DP_BF16 NULL
#include "bench/kern_tmpl.h"

bool
bench_isa_supported(enum bench_isa isa)
{
    switch (isa) {
    case BENCH_ISA_GENERIC:
        return true;
#if defined(__x86_64__) || defined(__i386__)
    case BENCH_ISA_AVX2:
        __builtin_cpu_init();
        return __builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma");
    case BENCH_ISA_AVX512:
        __builtin_cpu_init();
        return __builtin_cpu_supports("avx512f") && __builtin_cpu_supports("fma");
#endif
    default:
        return false;
    }
}

bool
bench_cpu_has_bf16(void)
{
#if defined(__x86_64__) || defined(__i386__)
    __builtin_cpu_init();
    return __builtin_cpu_supports("avx512f") && __builtin_cpu_supports("avx512bf16");
#else
    return false;
#endif
}

enum bench_isa
bench_isa_best(void)
{
    if (bench_isa_supported(BENCH_ISA_AVX512))
        return BENCH_ISA_AVX512;
    if (bench_isa_supported(BENCH_ISA_AVX2))
        return BENCH_ISA_AVX2;
    return BENCH_ISA_GENERIC;
}

const struct bench_kernels *
bench_kernels_for(enum bench_isa isa)
{
    switch (isa) {
    case BENCH_ISA_GENERIC:
        return &bench_kernels_generic;
#if defined(__x86_64__) || defined(__i386__)
    case BENCH_ISA_AVX2:
        return &bench_kernels_avx2;
    case BENCH_ISA_AVX512:
        return &bench_kernels_avx512;
#endif
    default:
        return NULL;
    }
}
