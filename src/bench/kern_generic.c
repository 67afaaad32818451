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
#include "bench/kern_tmpl.h"

const struct bench_kernels bench_kernels_generic = {
    .isa = BENCH_ISA_GENERIC,
    .name = "generic",
    .target = "none (16-byte vectors, separate multiply and add)",
    .vector_bytes = 16,
    .fma_acc = 8,
    .fma_f32 = fma_f32_generic,
    .fma_f64 = fma_f64_generic,
    .dp_bf16 = NULL,
    .copy = copy_generic,
    .scale = scale_generic,
    .add = add_generic,
    .triad = triad_generic,
    .read = read_generic,
    .ert = ert_generic,
    .gemm_mr = 2,
    .gemm_ukr = gemm_ukr_generic,
    .gemm_ukr4 = gemm_ukr4_generic,
    .gemv_panel = gemv_panel_generic,
    .softmax = softmax_generic,
    .silu_mul = silu_mul_generic,
};

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
