/* Kernel template: included once per instruction set by kern_x86.c and kern_generic.c with
 *   BK_SFX     name suffix (avx512, avx2, generic)
 *   BK_TARGET  the function attribute selecting the instruction set (may be empty)
 *   BK_VB      vector bytes (64, 32, 16)
 *   BK_NACC    independent accumulators of the peak kernels (hide the FMA latency)
 *   BK_MR      rows of the GEMM micro-kernel
 *   BK_FMA32(a, b, c), BK_FMA64(a, b, c)  a x b + c on vectors (fused where the ISA has it)
 *   BK_FMAS(a, b, c)  the same on scalars
 *   BK_ISA, BK_NAME, BK_TARGET_NAME, BK_DP_BF16  the kernel table's particulars
 * GCC vector extensions carry the arithmetic; under -std=c17 GCC does not contract a * b + c,
 * so fused multiply-adds are written out. No header guard: this file is meant to be included
 * several times; it undefines its parameters at the end. */

#define BK_CAT2(a, b) a##_##b
#define BK_CAT(a, b) BK_CAT2(a, b)
#define BK(name) BK_CAT(name, BK_SFX)

#define VF BK(vf)
#define VD BK(vd)
#define VI BK(vi)
#define VFU BK(vfu)
#define VDU BK(vdu)
typedef float VF __attribute__((vector_size(BK_VB)));
typedef double VD __attribute__((vector_size(BK_VB)));
typedef int VI __attribute__((vector_size(BK_VB)));
/* unaligned, aliasing views for memory access */
typedef float VFU __attribute__((vector_size(BK_VB), aligned(4), may_alias));
typedef double VDU __attribute__((vector_size(BK_VB), aligned(8), may_alias));

#define LF (BK_VB / 4)     /* float lanes */
#define LD (BK_VB / 8)     /* double lanes */
#define NV (BENCH_NR / LF) /* vectors per panel row */
#define LOADF(p) ((VF)(*(const VFU *)(const void *)(p)))
#define STOREF(p, v) (*(VFU *)(void *)(p) = (v))
#define LOADD(p) ((VD)(*(const VDU *)(const void *)(p)))
#define STORED(p, v) (*(VDU *)(void *)(p) = (v))
#define SPLATF(x) (-(VF){0} + (float)(x)) /* x + -0 = x: folds to a broadcast */
#define SPLATD(x) (-(VD){0} + (double)(x))

/* The peak kernels: `iters` rounds of BK_NACC independent vector FMAs x = x * mul + add, one per
 * data type (V vectors of LANES elements of T) */
#define BK_PEAK(NAME, T, V, SPLAT, FMA, LANES)                                                     \
    BK_TARGET static double BK(NAME)(long iters, T mul, T add)                                     \
    {                                                                                              \
        V acc[BK_NACC];                                                                            \
        V m = SPLAT(mul), c = SPLAT(add);                                                          \
        _Pragma("GCC unroll 32") for (int j = 0; j < BK_NACC; j++) acc[j] =                        \
            SPLAT((T)1e-3 * (T)(j + 1));                                                           \
        for (long i = 0; i < iters; i++) {                                                         \
            _Pragma("GCC unroll 32") for (int j = 0; j < BK_NACC; j++) acc[j] = FMA(acc[j], m, c); \
        }                                                                                          \
        V s = acc[0];                                                                              \
        _Pragma("GCC unroll 32") for (int j = 1; j < BK_NACC; j++) s += acc[j];                    \
        double r = 0;                                                                              \
        for (int l = 0; l < (LANES); l++)                                                          \
            r += s[l];                                                                             \
        return r;                                                                                  \
    }
BK_PEAK(fma_f32, float, VF, SPLATF, BK_FMA32, LF)
BK_PEAK(fma_f64, double, VD, SPLATD, BK_FMA64, LD)
#undef BK_PEAK

BK_TARGET static void
BK(copy)(double *restrict c, const double *restrict a, long n)
{
    long i = 0;
    for (; i + 4 * LD <= n; i += 4 * LD) {
        VD x0 = LOADD(a + i), x1 = LOADD(a + i + LD), x2 = LOADD(a + i + 2 * LD),
           x3 = LOADD(a + i + 3 * LD);
        STORED(c + i, x0);
        STORED(c + i + LD, x1);
        STORED(c + i + 2 * LD, x2);
        STORED(c + i + 3 * LD, x3);
    }
    for (; i < n; i++)
        c[i] = a[i];
}

BK_TARGET static void
BK(scale)(double *restrict b, const double *restrict c, double s, long n)
{
    VD vs = SPLATD(s);
    long i = 0;
    for (; i + 4 * LD <= n; i += 4 * LD) {
        VD x0 = LOADD(c + i), x1 = LOADD(c + i + LD), x2 = LOADD(c + i + 2 * LD),
           x3 = LOADD(c + i + 3 * LD);
        STORED(b + i, vs * x0);
        STORED(b + i + LD, vs * x1);
        STORED(b + i + 2 * LD, vs * x2);
        STORED(b + i + 3 * LD, vs * x3);
    }
    for (; i < n; i++)
        b[i] = s * c[i];
}

BK_TARGET static void
BK(add)(double *restrict c, const double *restrict a, const double *restrict b, long n)
{
    long i = 0;
    for (; i + 4 * LD <= n; i += 4 * LD) {
        VD x0 = LOADD(a + i) + LOADD(b + i);
        VD x1 = LOADD(a + i + LD) + LOADD(b + i + LD);
        VD x2 = LOADD(a + i + 2 * LD) + LOADD(b + i + 2 * LD);
        VD x3 = LOADD(a + i + 3 * LD) + LOADD(b + i + 3 * LD);
        STORED(c + i, x0);
        STORED(c + i + LD, x1);
        STORED(c + i + 2 * LD, x2);
        STORED(c + i + 3 * LD, x3);
    }
    for (; i < n; i++)
        c[i] = a[i] + b[i];
}

/* STREAM's triad a = b + s c: one multiply and one add per element, written as STREAM has it
 * (not fused), so every ISA computes bit-identical results */
BK_TARGET static void
BK(triad)(double *restrict a, const double *restrict b, const double *restrict c, double s, long n)
{
    VD vs = SPLATD(s);
    long i = 0;
    for (; i + 4 * LD <= n; i += 4 * LD) {
        VD x0 = LOADD(b + i) + vs * LOADD(c + i);
        VD x1 = LOADD(b + i + LD) + vs * LOADD(c + i + LD);
        VD x2 = LOADD(b + i + 2 * LD) + vs * LOADD(c + i + 2 * LD);
        VD x3 = LOADD(b + i + 3 * LD) + vs * LOADD(c + i + 3 * LD);
        STORED(a + i, x0);
        STORED(a + i + LD, x1);
        STORED(a + i + 2 * LD, x2);
        STORED(a + i + 3 * LD, x3);
    }
    for (; i < n; i++)
        a[i] = b[i] + s * c[i];
}

BK_TARGET static double
BK(read)(const double *restrict a, long n)
{
    VD s0 = SPLATD(0), s1 = s0, s2 = s0, s3 = s0, s4 = s0, s5 = s0, s6 = s0, s7 = s0;
    long i = 0;
    for (; i + 8 * LD <= n; i += 8 * LD) {
        s0 += LOADD(a + i);
        s1 += LOADD(a + i + LD);
        s2 += LOADD(a + i + 2 * LD);
        s3 += LOADD(a + i + 3 * LD);
        s4 += LOADD(a + i + 4 * LD);
        s5 += LOADD(a + i + 5 * LD);
        s6 += LOADD(a + i + 6 * LD);
        s7 += LOADD(a + i + 7 * LD);
    }
    VD s = ((s0 + s1) + (s2 + s3)) + ((s4 + s5) + (s6 + s7));
    double r = 0;
    for (int l = 0; l < LD; l++)
        r += s[l];
    for (; i < n; i++)
        r += a[i];
    return r;
}

#define ERT_V 8 /* independent vectors in flight: 8 chains cover 2 pipes x 4 cycles latency */
BK_TARGET static void
BK(ert)(double *restrict a, long n, int fmas, double alpha, double beta)
{
    VD va = SPLATD(alpha), vb = SPLATD(beta);
    long i = 0;
    for (; i + ERT_V * LD <= n; i += ERT_V * LD) {
        VD x[ERT_V];
#pragma GCC unroll 16
        for (int v = 0; v < ERT_V; v++)
            x[v] = LOADD(a + i + v * LD);
        if (fmas == 0) {
#pragma GCC unroll 16
            for (int v = 0; v < ERT_V; v++)
                x[v] += vb;
        }
        for (int f = 0; f < fmas; f++) {
#pragma GCC unroll 16
            for (int v = 0; v < ERT_V; v++)
                x[v] = BK_FMA64(x[v], va, vb);
        }
#pragma GCC unroll 16
        for (int v = 0; v < ERT_V; v++)
            STORED(a + i + v * LD, x[v]);
    }
    for (; i < n; i++) {
        double x = a[i];
        if (fmas == 0)
            x += beta;
        for (int f = 0; f < fmas; f++)
            x = BK_FMAS(x, alpha, beta);
        a[i] = x;
    }
}
#undef ERT_V

/* The micro-kernel body for ROWS rows of packed A (element (r, k) at a[ROWS k + r]). */
#define BK_UKR_BODY(ROWS)                                                                          \
    VF acc[ROWS][NV];                                                                              \
    _Pragma("GCC unroll 16") for (int r = 0; r < (ROWS); r++)                                      \
        _Pragma("GCC unroll 16") for (int v = 0; v < NV; v++) acc[r][v] = SPLATF(0);               \
    for (long k = 0; k < kc; k++) {                                                                \
        VF bv[NV];                                                                                 \
        _Pragma("GCC unroll 16") for (int v = 0; v < NV; v++) bv[v] =                              \
            LOADF(b + BENCH_NR * k + LF * v);                                                      \
        _Pragma("GCC unroll 16") for (int r = 0; r < (ROWS); r++)                                  \
        {                                                                                          \
            VF ar = SPLATF(a[(ROWS)*k + r]);                                                       \
            _Pragma("GCC unroll 16") for (int v = 0; v < NV; v++) acc[r][v] =                      \
                BK_FMA32(ar, bv[v], acc[r][v]);                                                    \
        }                                                                                          \
    }                                                                                              \
    _Pragma("GCC unroll 16") for (int r = 0; r < (ROWS); r++)                                      \
        _Pragma("GCC unroll 16") for (int v = 0; v < NV; v++)                                      \
    {                                                                                              \
        float *p = c + r * ldc + LF * v;                                                           \
        STOREF(p, accumulate ? LOADF(p) + acc[r][v] : acc[r][v]);                                  \
    }

BK_TARGET static void
BK(gemm_ukr)(long kc, const float *restrict a, const float *restrict b, float *restrict c, long ldc,
             bool accumulate){BK_UKR_BODY(BK_MR)}

/* four rows: decode attention (a few query heads per KV head) and GEMMs of 2-4 rows */
BK_TARGET static void BK(gemm_ukr4)(long kc, const float *restrict a, const float *restrict b,
                                    float *restrict c, long ldc, bool accumulate){BK_UKR_BODY(4)}
#undef BK_UKR_BODY

BK_TARGET static void BK(gemv_panel)(long k, const float *restrict x, const float *restrict b,
                                     float *restrict y, bool accumulate)
{
    VF acc[4][NV];
#pragma GCC unroll 16
    for (int u = 0; u < 4; u++)
#pragma GCC unroll 16
        for (int v = 0; v < NV; v++)
            acc[u][v] = SPLATF(0);
    long i = 0;
    for (; i + 4 <= k; i += 4) {
#pragma GCC unroll 16
        for (int u = 0; u < 4; u++) {
            VF xv = SPLATF(x[i + u]);
#pragma GCC unroll 16
            for (int v = 0; v < NV; v++)
                acc[u][v] = BK_FMA32(xv, LOADF(b + BENCH_NR * (i + u) + LF * v), acc[u][v]);
        }
    }
    for (; i < k; i++) {
        VF xv = SPLATF(x[i]);
#pragma GCC unroll 16
        for (int v = 0; v < NV; v++)
            acc[0][v] = BK_FMA32(xv, LOADF(b + BENCH_NR * i + LF * v), acc[0][v]);
    }
#pragma GCC unroll 16
    for (int v = 0; v < NV; v++) {
        VF s = (acc[0][v] + acc[1][v]) + (acc[2][v] + acc[3][v]);
        STOREF(y + LF * v, accumulate ? LOADF(y + LF * v) + s : s);
    }
}

/* exp on a vector: Cody-Waite range reduction x = n ln2 + r, |r| <= ln2 / 2, then the Cephes
 * expf polynomial (relative error about 2e-7); x clamped to [-87.3, 88.3] so 2^n stays normal */
#define BK_EXP(out, xin)                                                                           \
    do {                                                                                           \
        VF x_ = (xin);                                                                             \
        VF lo_ = SPLATF(-87.3f), hi_ = SPLATF(88.3f);                                              \
        VI below_ = (x_ < lo_);                                                                    \
        VI above_ = (x_ > hi_);                                                                    \
        x_ = (VF)(((VI)x_ & ~below_) | ((VI)lo_ & below_));                                        \
        x_ = (VF)(((VI)x_ & ~above_) | ((VI)hi_ & above_));                                        \
        VF t_ = x_ * SPLATF(1.44269504088896341f);                                                 \
        VI neg_ = t_ < SPLATF(0);                                                                  \
        VF half_ = (VF)(((VI)SPLATF(0.5f) & ~neg_) | ((VI)SPLATF(-0.5f) & neg_));                  \
        VI n_ = __builtin_convertvector(t_ + half_, VI);                                           \
        VF fn_ = __builtin_convertvector(n_, VF);                                                  \
        VF r_ = x_ - fn_ * SPLATF(0.693359375f) - fn_ * SPLATF(-2.12194440e-4f);                   \
        VF p_ = SPLATF(1.9875691500e-4f);                                                          \
        p_ = p_ * r_ + SPLATF(1.3981999507e-3f);                                                   \
        p_ = p_ * r_ + SPLATF(8.3334519073e-3f);                                                   \
        p_ = p_ * r_ + SPLATF(4.1665795894e-2f);                                                   \
        p_ = p_ * r_ + SPLATF(1.6666665459e-1f);                                                   \
        p_ = p_ * r_ + SPLATF(5.0000001201e-1f);                                                   \
        p_ = p_ * r_ * r_ + r_ + SPLATF(1.0f);                                                     \
        VI e_ = (n_ + 127) << 23;                                                                  \
        (out) = p_ * (VF)e_;                                                                       \
    } while (0)

BK_TARGET static void
BK(softmax)(float *restrict s, long n, float scale)
{
    if (n <= 0)
        return;
    float mx = s[0];
    for (long j = 1; j < n; j++)
        mx = s[j] > mx ? s[j] : mx;
    VF vscale = SPLATF(scale), vmx = SPLATF(mx), vsum = SPLATF(0);
    long j = 0;
    for (; j + LF <= n; j += LF) {
        VF e;
        BK_EXP(e, (LOADF(s + j) - vmx) * vscale);
        STOREF(s + j, e);
        vsum += e;
    }
    float sum = 0;
    for (int l = 0; l < LF; l++)
        sum += vsum[l];
    for (; j < n; j++) {
        /* the tail through a vector as well, so every element sees the same exp */
        VF e;
        BK_EXP(e, SPLATF((s[j] - mx) * scale));
        s[j] = e[0];
        sum += e[0];
    }
    float inv = 1.0f / sum;
    VF vinv = SPLATF(inv);
    for (j = 0; j + LF <= n; j += LF)
        STOREF(s + j, LOADF(s + j) * vinv);
    for (; j < n; j++)
        s[j] *= inv;
}

BK_TARGET static void
BK(silu_mul)(float *restrict g, const float *restrict u, long n)
{
    long j = 0;
    for (; j + LF <= n; j += LF) {
        VF x = LOADF(g + j), e;
        BK_EXP(e, -x);
        STOREF(g + j, x / (SPLATF(1.0f) + e) * LOADF(u + j));
    }
    for (; j < n; j++) {
        VF e;
        BK_EXP(e, SPLATF(-g[j]));
        g[j] = g[j] / (1.0f + e[0]) * u[j];
    }
}

/* The kernel table of this instruction set, named bench_kernels_<BK_SFX>; BK_ISA, BK_NAME,
 * BK_TARGET_NAME and BK_DP_BF16 (a function or NULL) say what is particular to it. */
const struct bench_kernels BK(bench_kernels) = {
    .isa = BK_ISA,
    .name = BK_NAME,
    .target = BK_TARGET_NAME,
    .vector_bytes = BK_VB,
    .fma_acc = BK_NACC,
    .fma_f32 = BK(fma_f32),
    .fma_f64 = BK(fma_f64),
    .dp_bf16 = BK_DP_BF16,
    .copy = BK(copy),
    .scale = BK(scale),
    .add = BK(add),
    .triad = BK(triad),
    .read = BK(read),
    .ert = BK(ert),
    .gemm_mr = BK_MR,
    .gemm_ukr = BK(gemm_ukr),
    .gemm_ukr4 = BK(gemm_ukr4),
    .gemv_panel = BK(gemv_panel),
    .softmax = BK(softmax),
    .silu_mul = BK(silu_mul),
};

#undef BK_EXP
#undef SPLATF
#undef SPLATD
#undef LOADF
#undef STOREF
#undef LOADD
#undef STORED
#undef NV
#undef LF
#undef LD
#undef VF
#undef VD
#undef VI
#undef VFU
#undef VDU
#undef BK
#undef BK_CAT
#undef BK_CAT2
/* the parameters, so the next instruction set starts clean */
#undef BK_SFX
#undef BK_TARGET
#undef BK_VB
#undef BK_NACC
#undef BK_MR
#undef BK_FMA32
#undef BK_FMA64
#undef BK_FMAS
#undef BK_ISA
#undef BK_NAME
#undef BK_TARGET_NAME
#undef BK_DP_BF16
