/* Calibration: the kernel model, predictions of measurement rows, error statistics, and the
 * fit recovering known parameters from synthetic rows. */
#include "test.h"

#include "core/calib.h"
#include "core/fit.h"

#include <math.h>
#include <string.h>

TEST(calib_kv_bucket_mean_and_decode)
{
    /* optimum-habana's --bucket_size 128: 128 prompt + 128 new tokens, decode steps k = 1..127
     * attend over 129..255 keys, all padded to 256 (+33% over the mean 192) */
    CHECK_NEAR(calib_mean_bucketed(128, 127, 128), 256, 0);
    CHECK_NEAR(calib_mean_bucketed(128, 127, 0), 192, 0);
    /* 2048 + 2048: keys 2049..4095; bucket 17 (2049..2176) holds 128 keys at 2176, buckets
     * 18..31 hold 128 each at j x 128, bucket 32 holds 127 at 4096:
     * (128 x 2176 + 128 x 128 x (18 + ... + 31) + 127 x 4096) / 2047 = 6418432 / 2047 */
    CHECK_NEAR(calib_mean_bucketed(2048, 2047, 128), 6418432.0 / 2047, 1e-9);
    /* a decode step after 130 cached tokens with the bucket reads what one after 255 does
     * without it (131 keys padded to 256) */
    struct hw_profile *hw = test_hw("gaudi2");
    struct mdl_profile *m = test_model("llama-2-7b");
    struct roof_config c;
    roof_config_init(&c, hw, m, ROOF_DECODE);
    c.batch = 4;
    c.context = 130;
    c.tuning.kv_bucket_tokens = 128;
    struct roof_result a, b;
    CHECK(roof_evaluate(&c, &a) == 0);
    c.context = 255;
    c.tuning.kv_bucket_tokens = 0;
    CHECK(roof_evaluate(&c, &b) == 0);
    CHECK_NEAR(a.ops[ROOF_OP_ATTN_SCORE].bytes_kv_read, b.ops[ROOF_OP_ATTN_SCORE].bytes_kv_read, 0);
    CHECK_NEAR(a.ops[ROOF_OP_ATTN_SCORE].flops, b.ops[ROOF_OP_ATTN_SCORE].flops, 0);
    /* 4 x 256 keys x 32 layers x 4096 (32 KV heads x 128) x 2 B for K (and as much for V) */
    CHECK_NEAR(a.ops[ROOF_OP_ATTN_SCORE].bytes_kv_read + a.ops[ROOF_OP_ATTN_AV].bytes_kv_read,
               4.0 * 256 * 32 * 4096 * 2 * 2, 0);
    hw_free(hw);
    mdl_free(m);
}

TEST(calib_stats_hand_checked)
{
    /* |errors| sorted: 0 5 10 20 40; median 10; P90 (linear, GSL): position 0.9 x 4 = 3.6,
     * 20 + 0.6 x (40 - 20) = 32; mean of the signed errors -25 / 5 = -5 */
    double e[5] = {-10, 5, 20, -40, 0};
    struct fit_stats s;
    fit_stats_of(e, 5, &s);
    CHECK_NEAR(s.median_abs_pct, 10, 1e-12);
    CHECK_NEAR(s.p90_abs_pct, 32, 1e-12);
    CHECK_NEAR(s.mean_pct, -5, 1e-12);
}

TEST(calib_wave_quantization_and_split_k)
{
    /* 108 units, peak 108e12: one 128 x 128 x K tile per unit per wave. A 128 x 13824 output
     * (108 tiles) is one wave: 2 x 128 x 128 x 1024 / 1e12 = 33.55 us */
    double one = roof_gemm_compute_s(128, 13824, 1024, 108e12, 108, 0);
    CHECK_NEAR(one, 2.0 * 128 * 128 * 1024 / 1e12, 1e-12);
    /* 129 rows need a second row of tiles: the libraries' best tiling (64-row tiles) runs
     * 3 x 108 tiles of 64 rows: 3 waves x 2 x 64 x 128 x 1024 / 1e12 = 50.3 us, not 2x */
    double two = roof_gemm_compute_s(129, 13824, 1024, 108e12, 108, 0);
    CHECK_NEAR(two, 3.0 * 2 * 64 * 128 * 1024 / 1e12, 1e-12);
    CHECK(two > one);
    /* 32 tiles on 108 units: split K three ways -> one wave of a third of K */
    double sk = roof_gemm_compute_s(128, 4096, 11008, 108e12, 108, 0);
    CHECK_NEAR(sk, 2.0 * 128 * 128 * (11008.0 / 3) / 1e12, 1e-12);
    /* a single row runs on the vector units: 2 N K / vector peak */
    CHECK_NEAR(roof_gemm_compute_s(1, 4096, 4096, 108e12, 108, 20e12), 2.0 * 4096 * 4096 / 20e12,
               1e-12);
}

/* The wave-quantization model written out directly (every tiling of {tm, tm/2} x {128, 64}
 * divided as the formula reads, splits from K / 512): roof_gemm_compute_s shares the tile
 * counts between tilings and multiplies by the tile sides' exact reciprocals, which must give
 * the same double bit for bit, including at fractional rows (the analytic estimate's mean
 * batch). */
static double
gemm_direct_s(double M, double N, double K, double peak, double units)
{
    double tm = 16;
    while (tm < M && tm < 128)
        tm *= 2;
    double shapes[4][2] = {
        {tm, 128}, {tm, 64}, {tm > 16 ? tm / 2 : tm, 128}, {tm > 16 ? tm / 2 : tm, 64}};
    double best = INFINITY;
    for (int i = 0; i < 4; i++) {
        double tiles = ceil(M / shapes[i][0]) * ceil(N / shapes[i][1]), splits = 1;
        if (tiles < units) {
            splits = floor(units / tiles);
            if (splits > floor(K / 512.0))
                splits = floor(K / 512.0) > 1 ? floor(K / 512.0) : 1;
        }
        double t = ceil(tiles * splits / units) * 2.0 * shapes[i][0] * shapes[i][1] * (K / splits) /
                   (peak / units);
        if (t < best)
            best = t;
    }
    return best;
}

TEST(calib_gemm_tiling_bit_exact)
{
    double Ms[] = {1.5, 2, 7.25, 16, 17, 31.999, 33, 64, 100.5, 128, 129, 1000, 8192.75};
    double NK[][2] = {{13824, 1024}, {4096, 11008}, {1280, 8192}, {100, 300}, {57344, 8192}};
    double units[] = {1, 46, 108, 132, 304};
    int same = 0, n = 0;
    for (size_t i = 0; i < sizeof Ms / sizeof Ms[0]; i++)
        for (size_t j = 0; j < sizeof NK / sizeof NK[0]; j++)
            for (size_t u = 0; u < sizeof units / sizeof units[0]; u++) {
                for (int p = 0; p < 2; p++) { /* an infinite peak takes the other branch */
                    double peak = p ? INFINITY : 989e12;
                    double a = roof_gemm_compute_s(Ms[i], NK[j][0], NK[j][1], peak, units[u], 0);
                    double b = gemm_direct_s(Ms[i], NK[j][0], NK[j][1], peak, units[u]);
                    same += memcmp(&a, &b, sizeof a) == 0;
                    n++;
                }
            }
    CHECK(same == n);
}

TEST(calib_kernel_prediction_by_hand)
{
    struct hw_profile *hw = test_hw("a100-sxm-80gb");
    struct roof_tuning tu;
    memset(&tu, 0, sizeof tu);
    tu.compute_efficiency = tu.memory_efficiency = 1.0;
    tu.memory_latency_s = 1e-6;
    tu.kernel_overhead_s = 1e-6;
    tu.compute_units = 108;
    struct pred_case pc;
    memset(&pc, 0, sizeof pc);
    pc.phase = PRED_KERNEL;
    pc.metric = PRED_TIME_MS;
    pc.weights = pc.kv = DT_FP16;
    pc.op = "matmul";
    pc.m = 13824;
    pc.n = 128;
    pc.k = 4096;
    double pred;
    const char *why;
    CHECK(pred_case_eval(&pc, hw, NULL, &tu, &pred, &why) == 0);
    /* bytes (56,623,104 + 524,288 + 1,769,472) x 2 = 117,833,728 B / 2039 GB/s = 57.79 us,
     * + 1 us latency; compute 2 x 13824 x 128 x 4096 / 312 TFLOPS = 46.5 us in one wave;
     * memory-bound: 58.79 us + 1 us launch = 0.05979 ms */
    CHECK_NEAR(pred, (117833728.0 / 2039e9 + 1e-6 + 1e-6) * 1e3, 1e-9);
    hw_free(hw);
}

/* A device's GEMM fraction against its class (hardware_profiles/mi300x.yaml gemm_vs_class 0.640:
 * MAMF 51.4% / H100's 80.3%) multiplies the class's and the engine's compute efficiency, and only
 * that: 0.75 x 1.272 x 0.640 = 0.61056; the vector units keep the class's, the bandwidth its own
 * fraction (memory_vs_class, below). */
/* The kernel model's tuning on the MI300X and the H100 SXM: the datacenter-gpu class at its
 * defaults (into *dp), the kernel engine with the given multipliers (into *eng) */
static void
mi300x_h100_tuning(double eng_compute, double eng_memory, struct hw_profile **amd,
                   struct hw_profile **nv, struct dev_params *dp, struct engine_profile *eng,
                   struct roof_tuning *ta, struct roof_tuning *tn)
{
    *amd = test_hw("mi300x");
    *nv = test_hw("h100-sxm");
    dev_params_default(DEV_DC_GPU, dp);
    engine_profile_kernel(eng);
    eng->compute_efficiency = eng_compute;
    eng->memory_efficiency = eng_memory;
    calib_tuning(*amd, dp, eng, ta);
    calib_tuning(*nv, dp, eng, tn);
}

TEST(calib_device_gemm_fraction)
{
    struct hw_profile *amd, *nv;
    struct dev_params dp;
    struct engine_profile eng;
    struct roof_tuning ta, tn;
    mi300x_h100_tuning(1.272, 1.0, &amd, &nv, &dp, &eng, &ta, &tn);
    CHECK_NEAR(amd->gemm_vs_class, 0.640, 1e-12);
    CHECK(nv->gemm_vs_class == 0);
    CHECK_NEAR(ta.compute_efficiency, 0.75 * 1.272 * 0.640, 1e-12);
    CHECK_NEAR(tn.compute_efficiency, 0.75 * 1.272, 1e-12);
    CHECK_NEAR(ta.vector_efficiency, 0.75, 1e-12);
    CHECK_NEAR(ta.memory_efficiency, tn.memory_efficiency * 0.895, 1e-15);
    /* the tuned fp16 peak every compute-bound time divides by: 1307.4 TFLOPS x 0.61056 */
    CHECK_NEAR(roof_tuned_peak(amd, &ta, DT_FP16, NULL), 1307.4e12 * 0.75 * 1.272 * 0.640, 1e3);
    hw_free(amd);
    hw_free(nv);
}

/* A device's bandwidth fraction against its class (hardware_profiles/mi300x.yaml memory_vs_class
 * 0.895: 79.2% of 5.3 TB/s measured over the class's 88.52%) multiplies the class's and the
 * engine's memory efficiency, and only that: 0.88 x 0.8795 x 0.895 = 0.6926788; the compute
 * efficiency keeps gemm_vs_class alone. A decode GEMV's bytes take 1/0.6926788 = 1.4437 x the
 * datasheet time. */
TEST(calib_device_memory_fraction)
{
    struct hw_profile *amd, *nv;
    struct dev_params dp;
    struct engine_profile eng;
    struct roof_tuning ta, tn;
    mi300x_h100_tuning(1.0, 0.8795, &amd, &nv, &dp, &eng, &ta, &tn);
    CHECK_NEAR(amd->memory_vs_class, 0.895, 1e-12);
    CHECK(nv->memory_vs_class == 0);
    CHECK_NEAR(ta.memory_efficiency, 0.88 * 0.8795 * 0.895, 1e-12);
    CHECK_NEAR(tn.memory_efficiency, 0.88 * 0.8795, 1e-12);
    CHECK_NEAR(ta.compute_efficiency, 0.75 * 0.640, 1e-12);
    /* a multiplier that would pass 1 is capped at the datasheet */
    amd->memory_vs_class = 1.5;
    eng.memory_efficiency = 1.0;
    calib_tuning(amd, &dp, &eng, &ta);
    CHECK_NEAR(ta.memory_efficiency, 1.0, 1e-15);
    hw_free(amd);
    hw_free(nv);
}

/* The Gaudis' own GEMM fractions (gaudi2.yaml 1.241: MAMF 99.4% / H100's 80.1%; gaudi3.yaml
 * 0.877: 70.2% of 1835 / 80.1%) on the accelerator class's default 0.75: Gaudi 2's fp8 GEMMs on
 * 865 TFLOPS x 0.75 x 1.241 = 805.1 TFLOPS, Gaudi 3's on 1835 x 0.75 x 0.877 = 1207.0 TFLOPS,
 * 1.499x Gaudi 2's (the datasheets' 2.12x); an engine multiplier that would lift the product
 * past 1 is held at the peak: 0.75 x 1.2 x 1.241 = 1.117 -> 1. */
TEST(calib_gaudi_gemm_fractions)
{
    struct hw_profile *g2 = test_hw("gaudi2");
    struct hw_profile *g3 = test_hw("gaudi3");
    CHECK_NEAR(g2->gemm_vs_class, 1.241, 1e-12);
    CHECK_NEAR(g3->gemm_vs_class, 0.877, 1e-12);
    struct dev_params dp;
    dev_params_default(DEV_ACCEL, &dp);
    struct roof_tuning t2, t3;
    calib_tuning(g2, &dp, NULL, &t2);
    calib_tuning(g3, &dp, NULL, &t3);
    double p2 = roof_tuned_peak(g2, &t2, DT_FP8, NULL);
    double p3 = roof_tuned_peak(g3, &t3, DT_FP8, NULL);
    CHECK_NEAR(p2, 865e12 * 0.75 * 1.241, 1e3);
    CHECK_NEAR(p3, 1835e12 * 0.75 * 0.877, 1e3);
    CHECK_NEAR(p3 / p2, (1835.0 * 0.877) / (865.0 * 1.241), 1e-9);
    CHECK_NEAR(t2.vector_efficiency, t3.vector_efficiency, 0);
    struct engine_profile eng;
    engine_profile_kernel(&eng);
    eng.compute_efficiency = 1.2;
    calib_tuning(g2, &dp, &eng, &t2);
    CHECK_NEAR(t2.compute_efficiency, 1.0, 0);
    hw_free(g2);
    hw_free(g3);
}

/* The soc class's GEMM fraction is the Apple GPUs' (Metal FlashAttention's HGEMM, 93.3% of an
 * M1 Max's FP16 peak); the DGX Spark's own (dgx-spark.yaml 0.901: cuBLASLt FP16 84.06% / 93.3%)
 * multiplies it. At the class's default 0.60: the GB10's fp16 GEMMs on 125 TFLOPS x 0.60 x 0.901
 * = 67.575 TFLOPS and its int8 ones (MMQ) on 250 x 0.5406 = 135.15 TOPS; the M2 Ultra (no key:
 * the reference) on 27.2 x 0.60 = 16.32 TFLOPS. A fit of the class on one side's rows carries to
 * the other through the ratio alone: class c fitted on the Spark predicts an M2 Ultra GEMM at
 * 27.2 x c, not 27.2 x 0.901 c. */
TEST(calib_soc_gemm_fractions)
{
    struct hw_profile *spark = test_hw("dgx-spark");
    struct hw_profile *m2u = test_hw("m2-ultra-76c");
    CHECK_NEAR(spark->gemm_vs_class, 0.901, 1e-12);
    CHECK(m2u->gemm_vs_class == 0);
    struct dev_params dp;
    dev_params_default(DEV_SOC, &dp);
    CHECK_NEAR(dp.compute_efficiency, 0.60, 1e-12);
    struct roof_tuning ts, tm;
    calib_tuning(spark, &dp, NULL, &ts);
    calib_tuning(m2u, &dp, NULL, &tm);
    CHECK_NEAR(ts.compute_efficiency, 0.5406, 1e-12);
    CHECK_NEAR(tm.compute_efficiency, 0.60, 1e-12);
    CHECK_NEAR(roof_tuned_peak(spark, &ts, DT_FP16, NULL), 67.575e12, 1e3);
    CHECK_NEAR(roof_tuned_peak(spark, &ts, DT_INT8, NULL), 135.15e12, 1e3);
    CHECK_NEAR(roof_tuned_peak(m2u, &tm, DT_FP16, NULL), 16.32e12, 1e3);
    /* the vector units and the bandwidth keep the class's */
    CHECK_NEAR(ts.vector_efficiency, 0.60, 1e-12);
    CHECK_NEAR(ts.memory_efficiency, tm.memory_efficiency, 0);
    hw_free(spark);
    hw_free(m2u);
}

/* A full mesh inside the server (gaudi3.yaml per_peer 75 GB/s: 3 of its 200 GbE ports to each of
 * the 7 others; gaudi2.yaml 37.5 GB/s, 3 x 100 GbE): a tensor-parallel group of n reaches n-1
 * peers' links, at most the profile's total per direction; a switched fabric (H100's NVLink) gives
 * every group the total. The 2-card Llama 3.1 70B decode all-reduce at batch 3516 (3516 x 8192 x
 * 2 B = 57,606,144 B), a ring of 2 over 75 GB/s: 57606144 / 75e9 + 2 x 2 us = 772.08 us (at the
 * profile's 600 GB/s per direction it would be 100.01 us). */
TEST(allreduce_full_mesh_group)
{
    struct hw_profile *g2 = test_hw("gaudi2");
    struct hw_profile *g3 = test_hw("gaudi3");
    struct hw_profile *h = test_hw("h100-sxm");
    CHECK_NEAR(g3->link_per_peer_bytes_per_s, 75e9, 1e-3);
    CHECK_NEAR(g2->link_per_peer_bytes_per_s, 37.5e9, 1e-3);
    double t3 = hw_link_bytes_per_s_per_direction(g3), t2 = hw_link_bytes_per_s_per_direction(g2);
    CHECK_NEAR(t3, 600e9, 1e-3);
    CHECK_NEAR(hw_link_group_bytes_per_s(g3, 2, t3), 75e9, 1e-3);
    CHECK_NEAR(hw_link_group_bytes_per_s(g3, 8, t3), 525e9, 1e-3);
    CHECK_NEAR(hw_link_group_bytes_per_s(g2, 4, t2), 112.5e9, 1e-3);
    CHECK_NEAR(hw_link_group_bytes_per_s(g2, 8, t2), 262.5e9, 1e-3);
    CHECK_NEAR(hw_link_group_bytes_per_s(h, 2, 450e9), 450e9, 0);
    CHECK_NEAR(hw_link_group_bytes_per_s(g3, 1, t3), t3, 0);
    CHECK_NEAR(roof_allreduce_engine_s(g3, NULL, 57606144.0, 2, t3, 2e-6), 57606144.0 / 75e9 + 4e-6,
               1e-12);
    CHECK_NEAR(roof_allreduce_engine_s(h, NULL, 57606144.0, 2, t3, 2e-6), 57606144.0 / 600e9 + 4e-6,
               1e-12);
    hw_free(g2);
    hw_free(g3);
    hw_free(h);
}

/* the kernel model's tuning on `hw` with the datacenter-gpu class at its defaults, no engine */
static void
dc_default_tuning(const struct hw_profile *hw, struct roof_tuning *tu)
{
    struct dev_params dp;
    dev_params_default(DEV_DC_GPU, &dp);
    calib_tuning(hw, &dp, NULL, tu);
}

TEST(calib_decode_row_equals_engine)
{
    struct hw_profile *hw = test_hw("h100-sxm");
    struct mdl_profile *m = test_model("llama-3-8b");
    struct roof_tuning tu;
    dc_default_tuning(hw, &tu);
    struct pred_case pc;
    memset(&pc, 0, sizeof pc);
    pc.phase = PRED_DECODE;
    pc.metric = PRED_TOKENS_PER_S;
    pc.weights = pc.kv = DT_FP16;
    pc.batch = 4;
    pc.context = 700;
    double pred;
    const char *why;
    CHECK(pred_case_eval(&pc, hw, m, &tu, &pred, &why) == 0);
    struct roof_config c;
    roof_config_init(&c, hw, m, ROOF_DECODE);
    c.weights = c.act = c.kv = DT_FP16;
    c.batch = 4;
    c.context = 700;
    c.tuning = tu;
    struct roof_result r;
    roof_evaluate(&c, &r);
    CHECK_NEAR(pred, 4 / r.time_s, 1e-12);
    /* the tuned step is slower than the datasheet roofline */
    struct roof_config pure = c;
    roof_config_init(&pure, hw, m, ROOF_DECODE);
    pure.weights = pure.act = pure.kv = DT_FP16;
    pure.batch = 4;
    pure.context = 700;
    struct roof_result rp;
    roof_evaluate(&pure, &rp);
    CHECK(r.time_s > rp.time_s);
    /* an e2e batch whose KV does not fit runs in waves: 512 sequences of 1024 + 1024 tokens
     * of Llama-3-8B cannot all sit in 80 GB */
    pc.phase = PRED_E2E;
    pc.metric = PRED_LATENCY_S;
    pc.input = pc.output = 1024;
    pc.batch = 512;
    double lat512, lat256;
    CHECK(pred_case_eval(&pc, hw, m, &tu, &lat512, &why) == 0);
    pc.batch = 256;
    CHECK(pred_case_eval(&pc, hw, m, &tu, &lat256, &why) == 0);
    CHECK(lat512 > 1.5 * lat256);
    hw_free(hw);
    mdl_free(m);
}

/* The generating parameters of the synthetic fit tests: every class at its default but
 * datacenter-gpu (memory 0.80, compute 0.60, latency 1 us), one kernel engine with a 5 us
 * launch */
static void
synthetic_truth(struct calib_params *truth)
{
    memset(truth, 0, sizeof *truth);
    for (int k = 0; k < DEV_CLASS_COUNT; k++)
        dev_params_default((enum dev_class)k, &truth->dev[k]);
    truth->dev[DEV_DC_GPU].memory_efficiency = 0.80;
    truth->dev[DEV_DC_GPU].compute_efficiency = 0.60;
    truth->dev[DEV_DC_GPU].memory_latency_s = 1.0e-6;
    truth->n_engines = 1;
    engine_profile_kernel(&truth->engine[0]);
    truth->engine[0].kernel_overhead_s = 5e-6;
}

/* One fp16 kernel row of `op` with m rows of a 4096 x 4096 weight (attention rows: batch
 * sequences, tokens, kv_len cached), measured as `truth` predicts it */
static void
synthetic_kernel_row(const struct calib_params *truth, struct pred_case *pc, struct fit_case *c,
                     const char *op, double m, const double shape[3], const struct hw_profile *hw,
                     const struct mdl_profile *model)
{
    memset(pc, 0, sizeof *pc);
    pc->batch = shape[0];
    pc->tokens = shape[1];
    pc->kv_len = shape[2];
    pc->phase = PRED_KERNEL;
    pc->metric = PRED_TIME_MS;
    pc->weights = pc->kv = DT_FP16;
    pc->op = op;
    pc->m = m;
    pc->n = pc->k = 4096;
    memset(c, 0, sizeof *c);
    c->pc = pc;
    c->hw = hw;
    c->model = model;
    c->engine = 0;
    double v;
    const char *why;
    CHECK(fit_predict(truth, c, &v, &why) == 0);
    c->measured = v;
}

TEST(calib_fit_recovers_synthetic_parameters)
{
    /* rows generated from known parameters on two devices; the fit starts from the defaults
     * and must find the generating values */
    struct hw_profile *h100 = test_hw("h100-sxm"), *a100 = test_hw("a100-sxm-80gb");
    struct mdl_profile *m = test_model("llama-3-8b");
    struct calib_params truth;
    synthetic_truth(&truth);
    enum { N = 24 };
    struct pred_case pcs[N];
    struct fit_case cases[N];
    int n = 0;
    const char *ops[3] = {"matmul", "mlp_up", "attn_decode"};
    for (int dev = 0; dev < 2; dev++)
        for (int o = 0; o < 3; o++)
            for (int s = 0; s < 4; s++) {
                double sz = (double)(1 << (2 * s)); /* 1, 4, 16, 64 */
                /* the attention rows' shape: batch, tokens and cache grow with the GEMM's rows */
                const double shape[3] = {sz, 16 * sz, 256 * sz};
                synthetic_kernel_row(&truth, &pcs[n], &cases[n], ops[o], 64 * sz, shape,
                                     dev ? a100 : h100, m);
                n++;
            }
    struct calib_params p = truth;
    dev_params_default(DEV_DC_GPU, &p.dev[DEV_DC_GPU]);
    engine_profile_kernel(&p.engine[0]);
    struct fit_report rep;
    CHECK(fit_calibrate(&p, cases, n, &rep) == 0);
    /* the memory latency is weakly identified by these rows and its prior holds it near the
     * default, so the fit is close, not exact */
    if (rep.rms_log_error_after >= 0.05)
        FAIL_AT("rms log error after the fit: %g", rep.rms_log_error_after);
    for (int i = 0; i < rep.n_params; i++)
        if (test_current_failed)
            fprintf(stderr, "  %s = %g\n", rep.names[i], rep.value[i]);
    CHECK_NEAR(p.dev[DEV_DC_GPU].memory_efficiency, 0.80, 0.05);
    CHECK_NEAR(p.dev[DEV_DC_GPU].compute_efficiency * p.engine[0].compute_efficiency, 0.60, 0.05);
    CHECK_NEAR(p.engine[0].kernel_overhead_s, 5e-6, 0.15);
    hw_free(h100);
    hw_free(a100);
    mdl_free(m);
}

TEST(calib_fit_engines_holds_the_classes)
{
    /* calibrate --hold-classes: rows generated with a datacenter-gpu class of memory 0.80,
     * compute 0.60, latency 1 us and an engine with a 5 us kernel overhead and compute
     * multiplier 0.9; the fit starts from the true class but the engine's defaults (kernel
     * overhead 12 us, multiplier 1.0). Holding the classes, the class values stay to the bit and
     * the engine's two parameters are found; a full fit from the same start may move the
     * class. */
    struct hw_profile *h100 = test_hw("h100-sxm"), *a100 = test_hw("a100-sxm-80gb");
    struct mdl_profile *m = test_model("llama-3-8b");
    struct calib_params truth;
    synthetic_truth(&truth);
    truth.engine[0].compute_efficiency = 0.9;
    enum { N = 16 };
    struct pred_case pcs[N];
    struct fit_case cases[N];
    int n = 0;
    for (int dev = 0; dev < 2; dev++)
        for (int s = 0; s < 8; s++) {
            /* 1 to 16384 rows: launch-bound to compute-bound */
            const double none[3] = {0, 0, 0};
            synthetic_kernel_row(&truth, &pcs[n], &cases[n], "matmul", (double)(1 << (2 * s)), none,
                                 dev ? a100 : h100, m);
            n++;
        }
    struct calib_params p = truth;
    engine_profile_kernel(&p.engine[0]);
    p.engine[0].kernel_overhead_s = 12e-6;
    p.engine[0].compute_efficiency = 1.0;
    struct fit_report rep;
    CHECK(fit_calibrate_engines(&p, cases, n, &rep) == 0);
    CHECK(rep.n_params == 2); /* the engine's kernel overhead and compute multiplier */
    CHECK(memcmp(&p.dev, &truth.dev, sizeof p.dev) == 0);
    CHECK_NEAR(p.engine[0].kernel_overhead_s, 5e-6, 0.1);
    CHECK_NEAR(p.engine[0].compute_efficiency, 0.9, 0.05);
    if (rep.rms_log_error_after >= 0.02)
        FAIL_AT("rms log error after the fit: %g", rep.rms_log_error_after);
    hw_free(h100);
    hw_free(a100);
    mdl_free(m);
}

TEST(calib_leave_group_out_hides_the_group)
{
    /* A made-up set of matmul rows on three devices of two vendors: vendor A (Apple, m2-ultra,
     * class soc) measured 2x slower than the generating parameters, vendor B (NVIDIA, h100 and
     * a100, class datacenter-gpu) measured as generated; one row labelled -1 takes no part.
     * Holding vendor A out, its rows must be predicted by a fit that saw only B's rows: the same
     * prediction, to the bit, as a separate fit on B alone, with the soc class untouched (no B
     * row informs it); the in-sample fit on all rows moves soc and predicts A differently. */
    struct hw_profile *mac = test_hw("m2-ultra-76c"), *h100 = test_hw("h100-sxm"),
                      *a100 = test_hw("a100-sxm-80gb");
    struct calib_params p0;
    memset(&p0, 0, sizeof p0);
    for (int k = 0; k < DEV_CLASS_COUNT; k++)
        dev_params_default((enum dev_class)k, &p0.dev[k]);
    p0.n_engines = 1;
    engine_profile_kernel(&p0.engine[0]);
    enum { N = 13 };
    struct pred_case pcs[N];
    struct fit_case cases[N];
    int group[N];
    const struct hw_profile *dev[3] = {mac, h100, a100};
    for (int i = 0; i < N; i++) {
        int d = i < 12 ? i / 4 : 1;
        struct pred_case *pc = &pcs[i];
        memset(pc, 0, sizeof *pc);
        pc->phase = PRED_KERNEL;
        pc->metric = PRED_TIME_MS;
        pc->weights = pc->kv = DT_FP16;
        pc->op = "matmul";
        pc->m = 16.0 * (1 << (2 * (i % 4))); /* 16, 64, 256, 1024 */
        pc->n = pc->k = 4096;
        struct fit_case *c = &cases[i];
        memset(c, 0, sizeof *c);
        c->pc = pc;
        c->hw = dev[d];
        c->engine = 0;
        double v;
        const char *why;
        CHECK(fit_predict(&p0, c, &v, &why) == 0);
        c->measured = d == 0 ? 2.0 * v : v;
        group[i] = i < 12 ? (d == 0 ? 0 : 1) : -1;
    }
    struct fit_heldout out[N];
    CHECK(fit_leave_group_out(&p0, cases, N, group, out) == 2);
    /* the fit on B alone (rows 4-11) */
    struct calib_params pb = p0;
    struct fit_report rep;
    CHECK(fit_calibrate(&pb, cases + 4, 8, &rep) == 0);
    CHECK(memcmp(&pb.dev[DEV_SOC], &p0.dev[DEV_SOC], sizeof pb.dev[DEV_SOC]) == 0);
    /* the in-sample fit on A and B */
    struct calib_params pall = p0;
    CHECK(fit_calibrate(&pall, cases, 12, &rep) == 0);
    for (int i = 0; i < 4; i++) {
        double vb, vall;
        const char *why;
        CHECK(out[i].ok && out[i].fit_ok);
        CHECK(out[i].n_train == 8);
        CHECK(fit_predict(&pb, &cases[i], &vb, &why) == 0);
        CHECK(out[i].pred == vb);
        CHECK(fit_predict(&pall, &cases[i], &vall, &why) == 0);
        /* the fit that saw A's rows predicts them slower (they were measured 2x slow) */
        if (!(vall > 1.1 * out[i].pred))
            FAIL_AT("row %d: in sample %g, held out %g", i, vall, out[i].pred);
    }
    /* vendor B's rows are predicted by a fit on A's four rows */
    for (int i = 4; i < 12; i++)
        CHECK(out[i].ok && out[i].n_train == 4);
    /* the unlabelled row is neither trained on nor predicted */
    CHECK(!out[12].ok && out[12].n_train == 0);
    hw_free(mac);
    hw_free(h100);
    hw_free(a100);
}

/* The llama.cpp physics tests' case: Llama-3-8B prefilling a 1024-token prompt on `hw_id`, its
 * weights in `weights`, activations and KV cache in fp16 (the caller frees *hw and *m). */
static void
llama8b_prompt_1024(const char *hw_id, enum dtype weights, struct hw_profile **hw,
                    struct mdl_profile **m, struct roof_config *c)
{
    *hw = test_hw(hw_id);
    *m = test_model("llama-3-8b");
    roof_config_init(c, *hw, *m, ROOF_PREFILL);
    c->weights = weights;
    c->act = c->kv = DT_FP16;
    c->prompt = 1024;
}

/* Its two 512-token micro-batches: tokens 0-511, then 512-1023 attending to the first 512. */
static const struct roof_seq UBATCH_1 = {1, 512, 0, false}, UBATCH_2 = {1, 512, 512, true};

TEST(calib_ubatch_and_dequant_buffer)
{
    struct hw_profile *hw;
    struct mdl_profile *m;
    struct roof_config c;
    llama8b_prompt_1024("a100-sxm-80gb", DT_Q4_K_M, &hw, &m, &c);
    c.tuning.ubatch_tokens = 512;
    struct roof_result whole, a, b;
    CHECK(roof_evaluate(&c, &whole) == 0);
    roof_step(&c, &UBATCH_1, 1, &a);
    roof_step(&c, &UBATCH_2, 1, &b);
    CHECK_NEAR(whole.time_s, a.time_s + b.time_s, 1e-12);
    /* the weights are read once per micro-batch */
    CHECK_NEAR(whole.ops[ROOF_OP_MLP_UP].bytes_weights, 2 * 32.0 * 4096 * 14336 * 4.85 / 8, 1e-12);
    /* dequantizing into an fp16 buffer: per pass, read 4.85 bits and write 2 B per weight
     * (conversion), then the GEMM reads the 2 B copy */
    c.tuning.ubatch_tokens = 0;
    c.tuning.dequant_buffer = true;
    roof_evaluate(&c, &whole);
    double elems = 32.0 * 4096 * 14336;
    CHECK_NEAR(whole.ops[ROOF_OP_MLP_UP].bytes_weights, elems * (2 + 4.85 / 8), 1e-12);
    /* a single row (decode) reads the packed weights directly */
    c.phase = ROOF_DECODE;
    roof_evaluate(&c, &whole);
    CHECK_NEAR(whole.ops[ROOF_OP_MLP_UP].bytes_weights, elems * 4.85 / 8, 1e-12);
    /* so does every batch up to dequant_buffer_above rows (llama.cpp's MMVQ up to 8, MMQ up to
     * 32), with no fp16 copy written; one row more takes the buffer */
    c.tuning.dequant_buffer_above = 32;
    c.batch = 32;
    roof_evaluate(&c, &whole);
    CHECK_NEAR(whole.ops[ROOF_OP_MLP_UP].bytes_weights, elems * 4.85 / 8, 1e-12);
    CHECK(whole.ops[ROOF_OP_MLP_UP].bytes_act_out < 32 * 2 * 14336 * 32 * 2 + 1);
    c.batch = 33;
    roof_evaluate(&c, &whole);
    CHECK_NEAR(whole.ops[ROOF_OP_MLP_UP].bytes_weights, elems * (2 + 4.85 / 8), 1e-12);
    hw_free(hw);
    mdl_free(m);
}

/* ggml-cuda's MMQ (docs/physics.md#dgx-spark-gb10): the bytes of one GEMM cut into 128 x 128
 * output tiles, by hand */
TEST(calib_mmq_tile_bytes)
{
    double w, ain;
    /* 1024 rows x (4096 -> 14336), 100 B of weights: ceil(1024 / 128) = 8 column tiles read the
     * weights 8 times; the fp16 activations are read once (2 B), written as q8_1 (1.125 B) and
     * read by ceil(14336 / 128) = 112 row tiles: 1024 x 4096 x (2 + 1.125 + 112 x 1.125)
     * = 4,194,304 x 129.125 = 541,589,504 B */
    CHECK_NEAR(roof_mmq_bytes(1024, 14336, 4096, 100, 0, 2, 128, 128, &w, &ain), 8, 0);
    CHECK_NEAR(w, 800, 0);
    CHECK_NEAR(ain, 541589504.0, 1e-3);
    /* MoE: 2048 tokens x 8 experts = 16,384 rows over 128 experts, 128 rows each: one column
     * tile per expert; 768 -> ceil(768 / 128) = 6 row tiles:
     * 16,384 x 2048 x (3.125 + 6 x 1.125) = 33,554,432 x 9.875 = 331,350,016 B */
    CHECK_NEAR(roof_mmq_bytes(16384, 768, 2048, 1000, 128, 2, 128, 128, &w, &ain), 1, 0);
    CHECK_NEAR(w, 1000, 0);
    CHECK_NEAR(ain, 331350016.0, 1e-3);
    /* one row more per expert (129) takes a second column tile */
    CHECK_NEAR(roof_mmq_bytes(16512, 768, 2048, 1000, 128, 2, 128, 128, &w, NULL), 2, 0);
    CHECK_NEAR(w, 2000, 0);
    /* fewer rows than a tile: one tile */
    CHECK_NEAR(roof_mmq_bytes(9, 14336, 4096, 100, 0, 2, 128, 128, &w, NULL), 1, 0);
    CHECK_NEAR(w, 100, 0);
}

/* a run on MMQ (quantized_gemm: mmq): up to mmq_above rows the vector kernel reads the packed
 * weights once; above, the int8 tensor-core GEMM re-reads them per column tile, with no fp16
 * buffer even where the engine's own path has one */
TEST(calib_mmq_path)
{
    struct hw_profile *hw;
    struct mdl_profile *m;
    struct roof_config c;
    llama8b_prompt_1024("a100-sxm-80gb", DT_Q8_0, &hw, &m, &c);
    c.tuning.dequant_buffer = true;
    c.tuning.dequant_buffer_above = 32;
    c.tuning.mmq = true;
    c.tuning.mmq_tile_tokens = 128;
    c.tuning.mmq_tile_rows = 128;
    c.tuning.mmq_above = 8;
    struct roof_result r;
    CHECK(roof_evaluate(&c, &r) == 0);
    /* 32 layers x 4096 x 14336 weights of 8.5 bits, 8 column tiles of 128 of 1024 tokens */
    double elems = 32.0 * 4096 * 14336;
    CHECK_NEAR(r.ops[ROOF_OP_MLP_UP].bytes_weights, elems * 1.0625 * 8, 1e-12);
    /* activations: 32 layers x 541,589,504 B (calib_mmq_tile_bytes) */
    CHECK_NEAR(r.ops[ROOF_OP_MLP_UP].bytes_act_in, 32 * 541589504.0, 1e-12);
    CHECK(r.ops[ROOF_OP_MLP_UP].roof_dtype == DT_INT8);
    CHECK_NEAR(r.ops[ROOF_OP_MLP_UP].flops, 32 * 2.0 * 1024 * 14336 * 4096, 1e-12);
    /* decode, 8 rows: the packed weights once, on the engine's own direct path */
    c.phase = ROOF_DECODE;
    c.batch = 8;
    CHECK(roof_evaluate(&c, &r) == 0);
    CHECK_NEAR(r.ops[ROOF_OP_MLP_UP].bytes_weights, elems * 1.0625, 1e-12);
    CHECK(r.ops[ROOF_OP_MLP_UP].roof_dtype != DT_INT8);
    /* 9 rows: MMQ, one column tile, the weights still once */
    c.batch = 9;
    CHECK(roof_evaluate(&c, &r) == 0);
    CHECK_NEAR(r.ops[ROOF_OP_MLP_UP].bytes_weights, elems * 1.0625, 1e-12);
    CHECK(r.ops[ROOF_OP_MLP_UP].roof_dtype == DT_INT8);
    /* 33 rows: where the engine's own path converts to an fp16 buffer, MMQ does not */
    c.batch = 33;
    CHECK(roof_evaluate(&c, &r) == 0);
    CHECK_NEAR(r.ops[ROOF_OP_MLP_UP].bytes_weights, elems * 1.0625, 1e-12);
    c.tuning.mmq = false;
    CHECK(roof_evaluate(&c, &r) == 0);
    CHECK_NEAR(r.ops[ROOF_OP_MLP_UP].bytes_weights, elems * (2 + 1.0625), 1e-12);
    hw_free(hw);
    mdl_free(m);
}

/* a row that asks for MMQ needs the engine's tile sizes */
TEST(calib_row_mmq_needs_tiles)
{
    struct hw_profile *hw = test_hw("dgx-spark");
    struct mdl_profile *m = test_model("qwen2.5-7b");
    struct roof_tuning tu;
    dc_default_tuning(hw, &tu);
    struct pred_case pc;
    memset(&pc, 0, sizeof pc);
    pc.phase = PRED_PREFILL;
    pc.metric = PRED_TOKENS_PER_S;
    pc.weights = DT_Q8_0;
    pc.kv = DT_FP16;
    pc.batch = 1;
    pc.prompt = 2048;
    pc.quantized_gemm = PRED_QG_MMQ;
    double pred, plain;
    const char *why = NULL;
    CHECK(pred_case_eval(&pc, hw, m, &tu, &pred, &why) == -1);
    CHECK(why && strstr(why, "mmq_tile_tokens"));
    tu.mmq_tile_tokens = tu.mmq_tile_rows = 128;
    tu.mmq_above = 8;
    CHECK(pred_case_eval(&pc, hw, m, &tu, &pred, &why) == 0);
    pc.quantized_gemm = PRED_QG_DEFAULT;
    CHECK(pred_case_eval(&pc, hw, m, &tu, &plain, &why) == 0);
    /* 16 column tiles re-read the weights: slower than one read of them */
    CHECK(pred < plain);
    hw_free(hw);
    mdl_free(m);
}

/* a row's own run settings (docs/calibration.md#the-measurement-format): `depth` (a prompt after
 * a filled cache, llama-bench pp N @ dD), `ubatch` (-ub) and `flash_attention` (-fa) override the
 * engine's defaults */
TEST(calib_row_settings_depth_ubatch_fa)
{
    struct hw_profile *hw = test_hw("a100-sxm-80gb");
    struct mdl_profile *m = test_model("llama-3-8b");
    struct roof_tuning tu;
    dc_default_tuning(hw, &tu);
    struct pred_case pc;
    memset(&pc, 0, sizeof pc);
    pc.phase = PRED_PREFILL;
    pc.metric = PRED_TIME_MS;
    pc.weights = pc.kv = DT_FP16;
    pc.batch = 1;
    pc.prompt = 512;
    pc.depth = 1024;
    double pred;
    const char *why;
    CHECK(pred_case_eval(&pc, hw, m, &tu, &pred, &why) == 0);
    /* the prompt is one pass of 512 new tokens after 1024 cached ones, sampling a token */
    struct roof_config c;
    roof_config_init(&c, hw, m, ROOF_PREFILL);
    c.weights = c.act = c.kv = DT_FP16;
    c.tuning = tu;
    struct roof_seq q = {1, 512, 1024, true};
    struct roof_result r;
    CHECK(roof_step(&c, &q, 1, &r) == 0);
    CHECK_NEAR(pred, r.time_s * 1e3, 1e-12);
    /* by hand: query-key pairs per head 512 x 1024 + 512 x 513 / 2 = 655,616; scores
     * 2 x pairs x 32 heads x 128 x 32 layers = 171,865,800,704 FLOP */
    CHECK_NEAR(r.ops[ROOF_OP_ATTN_SCORE].flops, 171865800704.0, 1e-3);
    /* with no depth the same prompt is cheaper */
    pc.depth = 0;
    double fresh;
    CHECK(pred_case_eval(&pc, hw, m, &tu, &fresh, &why) == 0);
    CHECK(fresh < pred);
    /* ubatch 512 over an engine without one: a 1024-token prompt in two passes, the second
     * attending to the first */
    pc.prompt = 1024;
    pc.ubatch = 512;
    CHECK(pred_case_eval(&pc, hw, m, &tu, &pred, &why) == 0);
    struct roof_result a, b;
    roof_step(&c, &UBATCH_1, 1, &a);
    roof_step(&c, &UBATCH_2, 1, &b);
    CHECK_NEAR(pred, (a.time_s + b.time_s) * 1e3, 1e-12);
    /* flash attention: the row's setting over the engine's (llama.cpp of 2024: off) */
    pc.ubatch = 0;
    tu.no_flash_attention = true;
    tu.score_bytes = 24;
    double unfused, fused;
    CHECK(pred_case_eval(&pc, hw, m, &tu, &unfused, &why) == 0);
    pc.flash_attention = PRED_FA_ON;
    CHECK(pred_case_eval(&pc, hw, m, &tu, &fused, &why) == 0);
    c.flash_attention = true;
    c.flash_attention_asked = true; /* the row's -fa 1 over the engine's default */
    c.tuning = tu;
    c.prompt = 1024;
    CHECK(roof_evaluate(&c, &r) == 0);
    CHECK_NEAR(fused, r.time_s * 1e3, 1e-12);
    CHECK(unfused > fused);
    tu.no_flash_attention = false;
    pc.flash_attention = PRED_FA_OFF;
    CHECK(pred_case_eval(&pc, hw, m, &tu, &pred, &why) == 0);
    CHECK_NEAR(pred, unfused, 1e-12);
    hw_free(hw);
    mdl_free(m);
}

/* ggml-cuda's fused prefill reads the f16 KQ mask once per head group of ncols2 query heads
 * (docs/physics.md#prefill-attention); ggml-metal loads none for all-zero blocks */
TEST(calib_fused_prefill_mask_traffic)
{
    /* ncols2: the largest of 8, 4, 2 dividing the GQA ratio */
    CHECK_NEAR(roof_fa_head_group(64, 8), 8, 0);  /* gpt-oss */
    CHECK_NEAR(roof_fa_head_group(32, 4), 8, 0);  /* qwen3-30b-a3b */
    CHECK_NEAR(roof_fa_head_group(28, 4), 1, 0);  /* qwen2.5-7b: ratio 7 */
    CHECK_NEAR(roof_fa_head_group(24, 4), 2, 0);  /* ratio 6 */
    CHECK_NEAR(roof_fa_head_group(32, 32), 1, 0); /* no GQA */
    CHECK_NEAR(roof_fa_head_group(32, 0), 1, 0);
    struct hw_profile *hw;
    struct mdl_profile *m;
    struct roof_config c;
    llama8b_prompt_1024("rtx-4090", DT_FP16, &hw, &m, &c);
    c.flash_attention = true;
    struct roof_result r0, r1;
    CHECK(roof_evaluate(&c, &r0) == 0);
    c.tuning.fa_mask_bytes = 2;
    CHECK(roof_evaluate(&c, &r1) == 0);
    /* Llama-3-8B: 32 heads over 8 KV heads, ratio 4, so ncols2 4 and 8 head groups; a fresh
     * 1024-token prompt visits 1024 x 1025 / 2 = 524,800 mask elements per group and layer:
     * 32 layers x 8 x 524,800 x 2 B = 268,697,600 B */
    CHECK_NEAR(r1.ops[ROOF_OP_ATTN_SCORE].bytes_act_in - r0.ops[ROOF_OP_ATTN_SCORE].bytes_act_in,
               268697600.0, 1e-12);
    CHECK(r1.time_s >= r0.time_s); /* more bytes: never faster */
    /* after 4096 cached tokens: 1024 x 4096 + 524,800 = 4,719,104 per group and layer */
    c.prefill_past = 4096;
    CHECK(roof_evaluate(&c, &r1) == 0);
    c.tuning.fa_mask_bytes = 0;
    CHECK(roof_evaluate(&c, &r0) == 0);
    CHECK_NEAR(r1.ops[ROOF_OP_ATTN_SCORE].bytes_act_in - r0.ops[ROOF_OP_ATTN_SCORE].bytes_act_in,
               32.0 * 8 * 4719104 * 2, 1e-12);
    /* unfused attention has no mask term of this kind; decode neither */
    c.tuning.fa_mask_bytes = 2;
    c.flash_attention = false;
    c.prefill_past = 0;
    CHECK(roof_evaluate(&c, &r1) == 0);
    c.tuning.fa_mask_bytes = 0;
    CHECK(roof_evaluate(&c, &r0) == 0);
    CHECK_NEAR(r1.time_s, r0.time_s, 0);
    /* the engine's key reaches the tuning on CUDA devices, not on Apple's */
    struct engine_profile ep;
    memset(&ep, 0, sizeof ep);
    ep.fa_mask_bytes = 2;
    struct dev_params dp;
    memset(&dp, 0, sizeof dp);
    dp.memory_efficiency = dp.compute_efficiency = 1.0;
    struct roof_tuning tu;
    calib_tuning(hw, &dp, &ep, &tu);
    CHECK_NEAR(tu.fa_mask_bytes, 2, 0);
    struct hw_profile *m2 = test_hw("m2-ultra-76c");
    calib_tuning(m2, &dp, &ep, &tu);
    CHECK_NEAR(tu.fa_mask_bytes, 0, 0);
    hw_free(m2);
    hw_free(hw);
    mdl_free(m);
}

/* llama.cpp without flash attention (docs/physics.md#unfused-attention): the f32 scores go
 * through memory, 24 B per element over the three kernels on ggml-cuda, and each query head
 * reads its KV head's cache itself */
TEST(calib_unfused_attention_traffic)
{
    struct hw_profile *hw;
    struct mdl_profile *m;
    struct roof_config c;
    llama8b_prompt_1024("rtx-4090", DT_FP16, &hw, &m, &c);
    c.flash_attention = false;
    c.tuning.score_bytes = 24;
    struct roof_result r;
    CHECK(roof_evaluate(&c, &r) == 0);
    /* 32 layers x 32 heads x 1024 x 1024 scores (the whole rectangle, masked): 8 B each in the
     * KQ GEMM (fp16 out, fp16 in, f32 out), 4 + 4 in the softmax, 8 in KQV */
    double elems = 32.0 * 32 * 1024 * 1024;
    CHECK_NEAR(r.ops[ROOF_OP_ATTN_SCORE].bytes_act_out, elems * 8, 1e-12);
    CHECK_NEAR(r.ops[ROOF_OP_SOFTMAX].bytes_act_in + r.ops[ROOF_OP_SOFTMAX].bytes_act_out,
               elems * 8, 1e-12);
    CHECK_NEAR(r.ops[ROOF_OP_ATTN_AV].bytes_act_in, elems * 8, 1e-12);
    /* 2 x 1024 x 1024 x 128 FLOP per head and layer for Q K^T */
    CHECK_NEAR(r.ops[ROOF_OP_ATTN_SCORE].flops, elems * 2 * 128, 1e-12);
    /* decode at 4096 tokens: a layer's keys are 4097 x 8 x 128 x 2 B = 8.39 MB, more than the
     * RTX 3090's 6 MiB L2, so K is read by each of the 32 query heads from memory:
     * 32 layers x 8.39 MB x 4 = 1074.0 MB per pass (4 times the 268.5 MB of K) */
    struct hw_profile *ga102 = test_hw("rtx-3090");
    c.hw = ga102;
    c.phase = ROOF_DECODE;
    c.context = 4096;
    CHECK(roof_evaluate(&c, &r) == 0);
    CHECK_NEAR(r.ops[ROOF_OP_ATTN_SCORE].bytes_kv_read, 32.0 * 4097 * 8 * 128 * 2 * 4, 1e-12);
    CHECK_NEAR(r.ops[ROOF_OP_ATTN_SCORE].bytes_kv_read, 1074003968.0, 1e-12);
    /* at context 2048 (4.2 MB a layer) they fit in its L2: memory sees each key once */
    c.context = 2048;
    CHECK(roof_evaluate(&c, &r) == 0);
    CHECK_NEAR(r.ops[ROOF_OP_ATTN_SCORE].bytes_kv_read, 32.0 * 2049 * 8 * 128 * 2, 1e-12);
    /* the RTX 4090's 72 MiB L2 holds 8.39 MB: once */
    c.hw = hw;
    c.context = 4096;
    CHECK(roof_evaluate(&c, &r) == 0);
    CHECK_NEAR(r.ops[ROOF_OP_ATTN_SCORE].bytes_kv_read, 32.0 * 4097 * 8 * 128 * 2, 1e-12);
    /* fused, the cache is read once anywhere */
    c.hw = ga102;
    c.flash_attention = true;
    CHECK(roof_evaluate(&c, &r) == 0);
    CHECK_NEAR(r.ops[ROOF_OP_ATTN_SCORE].bytes_kv_read, 32.0 * 4097 * 8 * 128 * 2, 1e-12);
    hw_free(ga102);
    hw_free(hw);
    mdl_free(m);
}

/* llama.cpp's layer split pipelines the micro-batches of one batch (GGML_SCHED_MAX_COPIES) */
TEST(calib_layer_split_pipeline)
{
    /* a proportionate flow shop: 10, 10, 10 and 12 ms through 8 devices: 42 + 7 x 12 = 126 ms */
    CHECK_NEAR(roof_pipeline_group_s(0.042, 0.012, 8), 0.126, 1e-12);
    CHECK_NEAR(roof_pipeline_group_s(0.010, 0.010, 1), 0.010, 1e-12);
    struct hw_profile *hw;
    struct mdl_profile *m;
    struct roof_config c;
    llama8b_prompt_1024("rtx-4090", DT_FP16, &hw, &m, &c);
    c.pp = 2;
    c.tuning.ubatch_tokens = 512;
    struct roof_result seq, piped;
    CHECK(roof_evaluate(&c, &seq) == 0);
    c.tuning.pipeline_inflight = 4;
    CHECK(roof_evaluate(&c, &piped) == 0);
    /* each device holds 16 layers: micro-batch 1 (tokens 0-511) takes t1 on each, micro-batch 2
     * (512-1023, attending to 1024 keys) t2 */
    struct mdl_profile half;
    struct roof_config hc;
    roof_shard_view(&c, &half, &hc);
    CHECK(half.num_layers == 16);
    hc.pp = 1;
    struct roof_result a, b;
    CHECK(roof_step(&hc, &UBATCH_1, 1, &a) == 0 && roof_step(&hc, &UBATCH_2, 1, &b) == 0);
    double send =
        1024.0 * 4096 * 2 / hw_link_bytes_per_s_per_direction(hw) + roof_link_latency_default_s(hw);
    /* one after the other: 2 x (t1 + t2), less the work only one device does (embedding on
     * the first, final norm and LM head on the last); pipelined: t1 + t2 + max(t1, t2) (device
     * 1 runs micro-batch 2 while device 2 runs micro-batch 1) */
    double once = a.ops[ROOF_OP_EMBEDDING].time_s + b.ops[ROOF_OP_EMBEDDING].time_s +
                  b.ops[ROOF_OP_FINAL_NORM].time_s + b.ops[ROOF_OP_LM_HEAD].time_s;
    CHECK(once > 0 && !a.ops[ROOF_OP_LM_HEAD].present);
    CHECK_NEAR(seq.time_s, 2 * (a.time_s + b.time_s) - once + send, 1e-9);
    CHECK(b.time_s > a.time_s);
    CHECK_NEAR(piped.time_s, a.time_s + 2 * b.time_s + send, 1e-9);
    /* one micro-batch (a prompt of 512): nothing to overlap */
    c.prompt = 512;
    CHECK(roof_evaluate(&c, &piped) == 0);
    c.tuning.pipeline_inflight = 0;
    CHECK(roof_evaluate(&c, &seq) == 0);
    CHECK_NEAR(piped.time_s, seq.time_s, 1e-15);
    /* decode at batch 1 over 2 devices: the token crosses both, 16 layers each, with the LM
     * head, final norm, embedding and the 100 us host step paid once: 2 x t_stage - those +
     * one send of 4096 x 2 B */
    c.phase = ROOF_DECODE;
    c.context = 512;
    c.tuning.step_overhead_s = 100e-6;
    struct roof_result dec, st;
    CHECK(roof_evaluate(&c, &dec) == 0);
    struct roof_seq d1 = {1, 1, 512, true};
    hc.tuning.step_overhead_s = 100e-6;
    hc.phase = ROOF_DECODE;
    CHECK(roof_step(&hc, &d1, 1, &st) == 0);
    double once_d = st.ops[ROOF_OP_EMBEDDING].time_s + st.ops[ROOF_OP_FINAL_NORM].time_s +
                    st.ops[ROOF_OP_LM_HEAD].time_s + 100e-6;
    double send_d =
        4096.0 * 2 / hw_link_bytes_per_s_per_direction(hw) + roof_link_latency_default_s(hw);
    CHECK_NEAR(dec.time_s, 2 * st.time_s - once_d + send_d, 1e-12);
    /* the LM head reads 128256 x 4096 x 2 B = 1.05 GB: once, not on both devices */
    CHECK_NEAR(st.ops[ROOF_OP_LM_HEAD].bytes_weights, 128256.0 * 4096 * 2, 1e-12);
    hw_free(hw);
    mdl_free(m);
}

/* The memo of roof_gemm_compute_s returns the very double the direct computation gives, on a
 * miss and on a hit, for fractional rows (the analytic estimate's mean batches), a K one ulp
 * off (flops / (2 M N) in add_op), several peaks and unit counts: more keys than the memo
 * holds, so entries are replaced and looked up again. */
TEST(roof_gemm_memo_same_as_direct)
{
    const double NK[][2] = {{8192, 8192}, {28672, 8192}, {8192, 28672}, {16032, 8192}};
    const double peaks[] = {989e12, 1307.4e12 * 0.71}, units[] = {132, 304};
    long n = 0, diff = 0;
    for (int rep = 0; rep < 2; rep++)
        for (double M = 0.25; M < 9000; M = M * 1.013 + 0.37)
            for (int j = 0; j < 4; j++)
                for (int p = 0; p < 2; p++)
                    for (int u = 0; u < 2; u++) {
                        double K = rep ? nextafter(NK[j][1], INFINITY) : NK[j][1];
                        double a = roof_gemm_compute_s(M, NK[j][0], K, peaks[p], units[u], 60e12);
                        double b = roof_gemm_compute_s(M, NK[j][0], K, peaks[p], units[u], 60e12);
                        double d =
                            roof_gemm_compute_direct_s(M, NK[j][0], K, peaks[p], units[u], 60e12);
                        diff += a != d || b != d;
                        n++;
                    }
    CHECK(n > 10000);
    CHECK(diff == 0);
}

/* ggml-metal's kernels as the shipped llama.cpp profile states them (ne11_mm_min 8, mul_mm tiles
 * of 32 columns, mul_mv_ext's r1ptg for 2..8 columns, K-quants from 4 columns) */
static void
metal_of_build_7948(struct roof_metal *m)
{
    static const double GROUP[] = {2, 3, 4, 5, 3, 4, 4};
    memset(m, 0, sizeof *m);
    m->mm_above = 8;
    m->mm_tile = 32;
    m->mm_tile_rows = 64;
    for (int c = 2; c <= 8; c++)
        m->ext_group[c] = GROUP[c - 2];
    m->ext_kquant_min = 4;
}

TEST(calib_metal_kernel_choice_by_hand)
{
    struct roof_metal m;
    metal_of_build_7948(&m);
    struct roof_metal_choice mc;
    /* columns -> kernel, columns paid for, weight reads (Q8_0) */
    static const struct {
        double T;
        enum roof_metal_kernel k;
        double paid, reads;
    } Q8[] = {
        {1, ROOF_METAL_MV, 1, 1},     {2, ROOF_METAL_MV_EXT, 2, 1}, {4, ROOF_METAL_MV_EXT, 4, 1},
        {5, ROOF_METAL_MV_EXT, 5, 1}, {6, ROOF_METAL_MV_EXT, 6, 2}, {8, ROOF_METAL_MV_EXT, 8, 2},
        {9, ROOF_METAL_MM, 32, 1},    {16, ROOF_METAL_MM, 32, 1},   {32, ROOF_METAL_MM, 32, 1},
        {33, ROOF_METAL_MM, 64, 1},   {512, ROOF_METAL_MM, 512, 1}, {100, ROOF_METAL_MM, 128, 1},
    };
    for (size_t i = 0; i < sizeof Q8 / sizeof Q8[0]; i++) {
        roof_metal_choose(&m, DT_Q8_0, Q8[i].T, &mc);
        CHECK(mc.kernel == Q8[i].k);
        CHECK_NEAR(mc.paid_columns, Q8[i].paid, 0);
        CHECK_NEAR(mc.weight_reads, Q8[i].reads, 0);
        /* dequantized once per read, and by mul_mm once per 32-column tile */
        CHECK_NEAR(mc.dequant_passes, Q8[i].k == ROOF_METAL_MM ? Q8[i].paid / 32 : Q8[i].reads, 0);
    }
    /* K-quants: 2 and 3 columns run the plain mat-vec kernel, a sweep per column */
    roof_metal_choose(&m, DT_Q4_K_M, 3, &mc);
    CHECK(mc.kernel == ROOF_METAL_MV);
    CHECK_NEAR(mc.weight_reads, 3, 0);
    roof_metal_choose(&m, DT_Q4_K_M, 4, &mc);
    CHECK(mc.kernel == ROOF_METAL_MV_EXT);
    CHECK_NEAR(mc.weight_reads, 1, 0);
    /* a mean batch of the analytic estimate: whole columns for the choice, 7.6 -> 8 */
    roof_metal_choose(&m, DT_Q8_0, 7.6, &mc);
    CHECK_NEAR(mc.columns, 8, 0);
    CHECK_NEAR(mc.weight_reads, 2, 0);
    /* off: T as given, one read */
    memset(&m, 0, sizeof m);
    roof_metal_choose(&m, DT_Q8_0, 16, &mc);
    CHECK(mc.kernel == ROOF_METAL_NONE);
    CHECK_NEAR(mc.paid_columns, 16, 0);
    CHECK_NEAR(mc.weight_reads, 1, 0);
}

TEST(calib_metal_decode_by_hand)
{
    /* Qwen2.5-7B (28 layers, hidden 3584, MLP 18944) decoding on the M2 Ultra */
    struct hw_profile *hw = test_hw("m2-ultra-76c");
    struct mdl_profile *md = test_model("qwen2.5-7b");
    struct roof_config c;
    roof_config_init(&c, hw, md, ROOF_DECODE);
    c.weights = DT_Q8_0;
    c.act = c.kv = DT_FP16;
    c.context = 512;
    metal_of_build_7948(&c.tuning.metal);
    double elems = 28.0 * 3584 * 18944, q8 = 8.5 / 8;
    struct roof_result r;
    /* batch 4: one mul_mv_ext sweep of 4 columns reads the weights once */
    c.batch = 4;
    CHECK(roof_evaluate(&c, &r) == 0);
    CHECK_NEAR(r.ops[ROOF_OP_MLP_UP].bytes_weights, elems * q8, 1e-12);
    CHECK_NEAR(r.ops[ROOF_OP_MLP_UP].flops, 2 * 4 * elems, 1e-12);
    /* batch 8: groups of 4 columns, two sweeps: the weights are read twice */
    c.batch = 8;
    roof_evaluate(&c, &r);
    CHECK_NEAR(r.ops[ROOF_OP_MLP_UP].bytes_weights, 2 * elems * q8, 1e-12);
    CHECK_NEAR(r.ops[ROOF_OP_QKV].bytes_weights, 2 * 28.0 * 3584 * (3584 + 2 * 512) * q8, 1e-12);
    /* batch 16: mul_mm in tiles of 32 columns pays the arithmetic of 32, reads once */
    c.batch = 16;
    roof_evaluate(&c, &r);
    CHECK_NEAR(r.ops[ROOF_OP_MLP_UP].flops, 2 * 32 * elems, 1e-12);
    CHECK_NEAR(r.ops[ROOF_OP_MLP_UP].bytes_weights, elems * q8, 1e-12);
    CHECK_NEAR(r.ops[ROOF_OP_MLP_UP].dequant_flops, 2 * elems, 1e-12); /* q8_0: 2 ops, once */
    CHECK_NEAR(r.ops[ROOF_OP_QKV].flops, 2 * 32 * 28.0 * 3584 * (3584 + 2 * 512), 1e-12);
    double up16 = r.ops[ROOF_OP_MLP_UP].time_s;
    c.batch = 32;
    roof_evaluate(&c, &r);
    CHECK_NEAR(r.ops[ROOF_OP_MLP_UP].flops, 2 * 32 * elems, 1e-12);
    CHECK(up16 > 0.99 * r.ops[ROOF_OP_MLP_UP].time_s); /* b16 costs about what b32 costs */
    /* batch 8: two sweeps, each dequantizing; batch 100: four 32-column tiles, each
     * threadgroup dequantizing its weight tile, one read from memory */
    c.batch = 8;
    roof_evaluate(&c, &r);
    CHECK_NEAR(r.ops[ROOF_OP_MLP_UP].dequant_flops, 2 * 2 * elems, 1e-12);
    c.batch = 100;
    roof_evaluate(&c, &r);
    CHECK_NEAR(r.ops[ROOF_OP_MLP_UP].dequant_flops, 4 * 2 * elems, 1e-12);
    CHECK_NEAR(r.ops[ROOF_OP_MLP_UP].bytes_weights, elems * q8, 1e-12);
    CHECK_NEAR(r.ops[ROOF_OP_MLP_UP].flops, 2 * 128 * elems, 1e-12);
    hw_free(hw);
    mdl_free(md);
}

/* a row of an older build (metal_mm_above: 1, before llama.cpp PR #10491): a 2-token prompt
 * runs mul_mm and pays one 32-column tile, about what 32 tokens cost on today's kernels, where
 * today's mul_mv_ext reads the weights once for 2 columns at 2 columns' arithmetic */
TEST(calib_row_metal_mm_above)
{
    struct hw_profile *hw = test_hw("m2-ultra-76c");
    struct mdl_profile *m = test_model("qwen2.5-7b");
    struct roof_tuning tu;
    struct dev_params dev;
    dev_params_default(dev_class_of(hw), &dev);
    calib_tuning(hw, &dev, NULL, &tu);
    struct pred_case pc;
    memset(&pc, 0, sizeof pc);
    pc.phase = PRED_PREFILL;
    pc.metric = PRED_TOKENS_PER_S;
    pc.weights = DT_Q4_0;
    pc.kv = DT_FP16;
    pc.batch = 1;
    pc.prompt = 2;
    pc.metal_mm_above = 1;
    double old2, now2, now32;
    const char *why = NULL;
    /* no metal section in the tuning: no prediction, and the reason says why */
    CHECK(pred_case_eval(&pc, hw, m, &tu, &old2, &why) == -1);
    CHECK(why && strstr(why, "metal_mm_above"));
    metal_of_build_7948(&tu.metal);
    CHECK(pred_case_eval(&pc, hw, m, &tu, &old2, &why) == 0);
    pc.metal_mm_above = 0;
    CHECK(pred_case_eval(&pc, hw, m, &tu, &now2, &why) == 0);
    pc.prompt = 32;
    CHECK(pred_case_eval(&pc, hw, m, &tu, &now32, &why) == 0);
    /* tokens/s: 2 tokens in the time of one tile, 32 tokens in about the same time */
    CHECK_NEAR(2.0 / old2, 32.0 / now32, 0.03);
    CHECK(now2 > 1.25 * old2);
    hw_free(hw);
    mdl_free(m);
}

/* a row of a build before PR #4725 (metal_mul_mm_id: false): every expert GEMM runs mul_mv_id,
 * one mat-vec per (token, expert) pair, so a 64-token prompt costs per token what a 16-token
 * one does; with mul_mm_id from 32 tokens each touched expert is read once */
TEST(calib_row_metal_no_mm_id)
{
    struct hw_profile *hw = test_hw("m2-ultra-76c");
    struct mdl_profile *m = test_model("gpt-oss-20b");
    struct roof_tuning tu;
    struct dev_params dev;
    dev_params_default(dev_class_of(hw), &dev);
    calib_tuning(hw, &dev, NULL, &tu);
    metal_of_build_7948(&tu.metal);
    struct pred_case pc;
    memset(&pc, 0, sizeof pc);
    pc.phase = PRED_PREFILL;
    pc.metric = PRED_TOKENS_PER_S;
    pc.weights = DT_MXFP4_MOE;
    pc.kv = DT_FP16;
    pc.batch = 1;
    pc.prompt = 64;
    pc.metal_no_mm_id = true;
    double old64, now64, now16;
    const char *why = NULL;
    /* no mm_id_min in the tuning: no prediction, and the reason says why */
    CHECK(pred_case_eval(&pc, hw, m, &tu, &old64, &why) == -1);
    CHECK(why && strstr(why, "metal_mul_mm_id"));
    tu.metal.mm_id_min = 32;
    CHECK(pred_case_eval(&pc, hw, m, &tu, &old64, &why) == 0);
    pc.metal_no_mm_id = false;
    CHECK(pred_case_eval(&pc, hw, m, &tu, &now64, &why) == 0);
    pc.prompt = 16;
    CHECK(pred_case_eval(&pc, hw, m, &tu, &now16, &why) == 0);
    CHECK(now64 > 1.5 * old64);
    CHECK_NEAR(old64, now16, 0.15);
    hw_free(hw);
    mdl_free(m);
}

TEST(calib_metal_only_on_apple)
{
    /* the llama.cpp profile's metal section applies on Apple devices, with no conversion
     * buffer; on NVIDIA's DGX Spark (also a unified-memory SoC) and a GPU, ggml-cuda's path */
    struct engine_profile e;
    memset(&e, 0, sizeof e);
    e.memory_efficiency = e.compute_efficiency = e.dequant_scale = 1;
    e.dequant_buffer = true;
    e.dequant_buffer_above = 32;
    metal_of_build_7948(&e.metal);
    static const char *const IDS[] = {"m2-ultra-76c", "dgx-spark", "rtx-4090"};
    for (int i = 0; i < 3; i++) {
        struct hw_profile *hw = test_hw(IDS[i]);
        struct dev_params dev;
        dev_params_default(dev_class_of(hw), &dev);
        struct roof_tuning tu;
        calib_tuning(hw, &dev, &e, &tu);
        CHECK_NEAR(tu.metal.mm_above, i == 0 ? 8 : 0, 0);
        CHECK(tu.dequant_buffer == (i != 0));
        hw_free(hw);
    }
}

TEST(calib_metal_mm_fixed_tiles_by_hand)
{
    /* mul_mm: tiles of 32 columns x 64 rows, K whole in each, one tile per core at a time. With
     * 76 cores at 1 TFLOP/s each: 16 columns x 3584 rows = 1 x 56 tiles, one wave of
     * 2 x 32 x 64 x 3584 FLOPs = 14.68 us; 18944 rows = 296 tiles, 4 waves = 58.72 us */
    CHECK_NEAR(roof_gemm_fixed_tiles_s(16, 3584, 3584, 76e12, 76, 32, 64, NULL), 14.680064e-6,
               1e-12);
    CHECK_NEAR(roof_gemm_fixed_tiles_s(16, 18944, 3584, 76e12, 76, 32, 64, NULL), 58.720256e-6,
               1e-12);
    /* 33 columns: two column tiles, 112 tiles, 2 waves */
    CHECK_NEAR(roof_gemm_fixed_tiles_s(33, 3584, 3584, 76e12, 76, 32, 64, NULL), 29.360128e-6,
               1e-12);
}

/* the core occupancy table of engine_profiles/llama.cpp.yaml (metal-benchmarks' FFMA16 at ILP 4:
 * 1.79 cycles at 4 simds/core, 1.29 at 8, 1.02 from 24 on), mul_mm threadgroups of 4 simds */
static void
metal_occupancy(struct roof_metal *m)
{
    memset(m, 0, sizeof *m);
    m->mm_simdgroups = 4;
    m->occ_n = 3;
    memcpy(m->core_simds, (double[]){4, 8, 24}, 3 * sizeof(double));
    memcpy(m->core_cycles, (double[]){1.79, 1.29, 1.02}, 3 * sizeof(double));
}

TEST(calib_metal_core_util_by_hand)
{
    struct roof_metal m;
    metal_occupancy(&m);
    /* the measured points: 1.02 / 1.79, 1.02 / 1.29; full from 24 simdgroups on */
    CHECK_NEAR(roof_metal_core_util(&m, 4), 0.5698324022346368, 1e-15);
    CHECK_NEAR(roof_metal_core_util(&m, 8), 0.7906976744186046, 1e-15);
    CHECK_NEAR(roof_metal_core_util(&m, 24), 1.0, 0);
    CHECK_NEAR(roof_metal_core_util(&m, 40), 1.0, 0);
    /* 16 simdgroups: halfway from 8 to 24, 1.29 - 0.27 / 2 = 1.155 cycles, 1.02 / 1.155 */
    CHECK_NEAR(roof_metal_core_util(&m, 16), 0.8831168831168831, 1e-15);
    /* below the first point: the first point's rate */
    CHECK_NEAR(roof_metal_core_util(&m, 2), 0.5698324022346368, 1e-15);
    /* no table (or no threadgroup size): the full rate */
    m.mm_simdgroups = 0;
    CHECK_NEAR(roof_metal_core_util(&m, 4), 1.0, 0);
    metal_occupancy(&m);
    m.occ_n = 0;
    CHECK_NEAR(roof_metal_core_util(&m, 4), 1.0, 0);
}

TEST(calib_metal_mm_occupancy_by_hand)
{
    struct roof_metal m;
    metal_occupancy(&m);
    /* 56 tiles on 76 cores: one threadgroup (4 simdgroups) on the busiest core, at 1.02 / 1.79
     * of its rate: 14.680064 us x 1.79 / 1.02 = 25.762073 us */
    CHECK_NEAR(roof_gemm_fixed_tiles_s(16, 3584, 3584, 76e12, 76, 32, 64, &m), 25.762073098039e-6,
               1e-14);
    /* 296 tiles: 4 threadgroups (16 simdgroups) at 1.02 / 1.155: 58.720256 x 1.155 / 1.02 */
    CHECK_NEAR(roof_gemm_fixed_tiles_s(16, 18944, 3584, 76e12, 76, 32, 64, &m), 66.492054588235e-6,
               1e-14);
    /* 7 tiles a core (34048 rows = 532 tiles): 28 simdgroups, the full rate, 7 x 14.680064 us */
    CHECK_NEAR(roof_gemm_fixed_tiles_s(32, 34048, 3584, 76e12, 76, 32, 64, &m), 102.760448e-6,
               1e-14);
}

/* The MI300X on its datasheet rates for the GEMM floor and streaming-cap tests: fractions 1, no
 * fill latency, a 1 us launch, its 304 compute units */
static void
mi300x_datasheet_tuning(struct roof_tuning *tu)
{
    memset(tu, 0, sizeof *tu);
    tu->compute_efficiency = tu->memory_efficiency = 1.0;
    tu->kernel_overhead_s = 1e-6;
    tu->compute_units = 304;
}

/* a kernel row: one token through an fp16 k -> n matmul, timed in ms */
static void
fp16_matvec_row(struct pred_case *pc, double n, double k)
{
    memset(pc, 0, sizeof *pc);
    pc->phase = PRED_KERNEL;
    pc->metric = PRED_TIME_MS;
    pc->weights = pc->kv = DT_FP16;
    pc->op = "matmul";
    pc->m = 1;
    pc->n = n;
    pc->k = k;
}

/* Llama-3.1-70B fp8 decode at batch 1, context 1024, tp 8, on the MI300X's datasheet rates */
static void
mi300x_70b_fp8_tp8(struct roof_config *cfg, const struct hw_profile *amd,
                   const struct mdl_profile *m)
{
    roof_config_init(cfg, amd, m, ROOF_DECODE);
    cfg->batch = 1;
    cfg->context = 1024;
    cfg->weights = cfg->act = DT_FP8;
    cfg->kv = DT_FP16;
    cfg->tp = 8;
    mi300x_datasheet_tuning(&cfg->tuning);
}

/* A device's least GEMM time (hardware_profiles/mi300x.yaml gemm_floor 10.7 us: AMD's tuned fp8
 * decode GEMM for Llama-3-70B's qkv at tp 8 takes 10.70 us from 1 to 64 rows, ROCm/aiter PR
 * #1092). On the datasheet rates (fractions 1, no fill latency, a 1 us launch) a 1 x 8192 ->
 * 1280 fp16 GEMM moves 2 x (1280 x 8192 + 8192 + 1280) = 20,990,464 B, 3.9605 us at 5.3 TB/s:
 * with the floor it takes 10.7 + 1 = 11.7 us. An MLP-sized one, 1 x 8192 -> 57344, moves
 * 939,655,168 B, 177.29 us + 1 us, above the floor and unchanged; the H100 has no floor. */
TEST(calib_gemm_floor)
{
    struct hw_profile *amd = test_hw("mi300x");
    struct hw_profile *nv = test_hw("h100-sxm");
    CHECK_NEAR(amd->gemm_floor_s, 10.7e-6, 1e-15);
    CHECK(nv->gemm_floor_s == 0);
    struct dev_params dp;
    dev_params_default(DEV_DC_GPU, &dp);
    struct roof_tuning tu;
    calib_tuning(amd, &dp, NULL, &tu);
    CHECK_NEAR(tu.gemm_floor_s, 10.7e-6, 1e-15);
    mi300x_datasheet_tuning(&tu);
    tu.gemm_floor_s = amd->gemm_floor_s;
    struct pred_case pc;
    fp16_matvec_row(&pc, 1280, 8192);
    double pred;
    const char *why;
    CHECK(pred_case_eval(&pc, amd, NULL, &tu, &pred, &why) == 0);
    CHECK_NEAR(pred, (10.7e-6 + 1e-6) * 1e3, 1e-12);
    tu.gemm_floor_s = 0;
    CHECK(pred_case_eval(&pc, amd, NULL, &tu, &pred, &why) == 0);
    CHECK_NEAR(pred, (20990464.0 / 5.3e12 + 1e-6) * 1e3, 1e-12);
    tu.gemm_floor_s = amd->gemm_floor_s;
    pc.n = 57344;
    CHECK(pred_case_eval(&pc, amd, NULL, &tu, &pred, &why) == 0);
    CHECK_NEAR(pred, (939655168.0 / 5.3e12 + 1e-6) * 1e3, 1e-12);
    hw_free(amd);
    hw_free(nv);
}

/* In a forward pass the floor holds each weight GEMM (qkv, o_proj, the MLP's, the LM head), not
 * attention or the vector kernels. Llama-3.1-70B fp8 decode at batch 1, tp 8, on MI300X
 * (datasheet rates, a 1 us launch, no fill latency): o_proj's shard reads 1024 x 8192 B of
 * weights + 1024 B in + 8192 B out = 8,397,824 B, 1.5845 us at 5.3 TB/s, so each of the 80
 * layers' o_proj takes the floor: 80 x (10.7 + 1) us = 936 us (80 x 2.5845 = 206.8 us without).
 * Attention and the norms take the same time with and without it. */
TEST(roof_gemm_floor_in_a_pass)
{
    struct hw_profile *amd = test_hw("mi300x");
    struct mdl_profile *m = test_model("llama-3.1-70b");
    struct roof_config cfg;
    mi300x_70b_fp8_tp8(&cfg, amd, m);
    struct roof_result no, yes;
    CHECK(roof_evaluate(&cfg, &no) == 0);
    cfg.tuning.gemm_floor_s = 10.7e-6;
    CHECK(roof_evaluate(&cfg, &yes) == 0);
    CHECK_NEAR(yes.ops[ROOF_OP_O_PROJ].time_s, 80 * (10.7e-6 + 1e-6), 1e-12);
    CHECK_NEAR(no.ops[ROOF_OP_O_PROJ].time_s, 80 * (8397824.0 / 5.3e12 + 1e-6), 1e-12);
    CHECK_NEAR(yes.ops[ROOF_OP_ATTN_SCORE].time_s, no.ops[ROOF_OP_ATTN_SCORE].time_s, 0);
    CHECK_NEAR(yes.ops[ROOF_OP_ATTN_NORM].time_s, no.ops[ROOF_OP_ATTN_NORM].time_s, 0);
    hw_free(amd);
    mdl_free(m);
}

/* The MI300X and MI325X platforms are full meshes of one x16 Infinity Fabric link per peer (AMD
 * CDNA 3 white paper: 32 Gb/s x 16 lanes = 64 GB/s each way, 7 links, 896 GB/s both ways): a
 * group of 2 reaches 64 GB/s per direction, of 4 192, of 8 448 (the total). An 8 kB decode
 * all-reduce of Llama-3-70B at tp 2 in vLLM's one-stage kernel: 8192 / 64e9 + 2 x 2 us =
 * 4.128 us (at 448 GB/s it would be 4.018 us). */
TEST(allreduce_mi300x_full_mesh)
{
    struct hw_profile *a = test_hw("mi300x");
    struct hw_profile *b = test_hw("mi325x");
    CHECK_NEAR(a->link_per_peer_bytes_per_s, 64e9, 1e-3);
    CHECK_NEAR(b->link_per_peer_bytes_per_s, 64e9, 1e-3);
    double t = hw_link_bytes_per_s_per_direction(a);
    CHECK_NEAR(t, 448e9, 1e-3);
    CHECK_NEAR(hw_link_group_bytes_per_s(a, 2, t), 64e9, 1e-3);
    CHECK_NEAR(hw_link_group_bytes_per_s(a, 4, t), 192e9, 1e-3);
    CHECK_NEAR(hw_link_group_bytes_per_s(a, 8, t), 448e9, 1e-3);
    hw_free(a);
    hw_free(b);
}

/* A device's measured GEMM streaming rate (hardware_profiles/mi300x.yaml gemm_bandwidth 2.95
 * TB/s: hipBLASLt's fp8 GEMMs for Llama-3.1-405B's tp-8 shards at one row, 364,904,448 B in
 * 123.64 us) caps a weight GEMM's bandwidth, not a vector kernel's. On the datasheet rates
 * (5.3 TB/s, a 1 us launch, no floor) a 1 x 8192 -> 57344 fp16 GEMM moves 939,655,168 B:
 * 318.53 us at 2.95 TB/s + 1 us, where uncapped it takes 177.29 + 1 us; with a tuned bandwidth
 * already below the cap (2 TB/s) the cap changes nothing: 469.83 + 1 us. */
TEST(calib_gemm_bandwidth)
{
    struct hw_profile *amd = test_hw("mi300x");
    struct hw_profile *nv = test_hw("h100-sxm");
    CHECK_NEAR(amd->gemm_bandwidth_bytes_per_s, 2.95e12, 1e-3);
    CHECK(nv->gemm_bandwidth_bytes_per_s == 0);
    struct dev_params dp;
    dev_params_default(DEV_DC_GPU, &dp);
    struct roof_tuning tu;
    calib_tuning(amd, &dp, NULL, &tu);
    CHECK_NEAR(tu.gemm_bandwidth_bytes_per_s, 2.95e12, 1e-3);
    mi300x_datasheet_tuning(&tu);
    struct pred_case pc;
    fp16_matvec_row(&pc, 57344, 8192);
    double pred;
    const char *why;
    CHECK(pred_case_eval(&pc, amd, NULL, &tu, &pred, &why) == 0);
    CHECK_NEAR(pred, (939655168.0 / 5.3e12 + 1e-6) * 1e3, 1e-12);
    tu.gemm_bandwidth_bytes_per_s = amd->gemm_bandwidth_bytes_per_s;
    CHECK(pred_case_eval(&pc, amd, NULL, &tu, &pred, &why) == 0);
    CHECK_NEAR(pred, (939655168.0 / 2.95e12 + 1e-6) * 1e3, 1e-12);
    tu.memory_efficiency = 2.0 / 5.3;
    CHECK(pred_case_eval(&pc, amd, NULL, &tu, &pred, &why) == 0);
    CHECK_NEAR(pred, (939655168.0 / 2e12 + 1e-6) * 1e3, 1e-9);
    hw_free(amd);
    hw_free(nv);
}

/* In a pass the cap holds the weight GEMMs only: Llama-3.1-70B fp8 decode at batch 1, tp 8, on
 * MI300X (datasheet rates, a 1 us launch, no fill latency, no floor): mlp_down's shard reads
 * 3584 x 8192 B of weights + 3584 B in + 8192 B out = 29,371,904 B, 80 x (29371904 / 2.95e12 +
 * 1 us) = 876.53 us with the cap (80 x 6.5419 = 523.35 us without); the norms are unchanged. */
TEST(roof_gemm_bandwidth_in_a_pass)
{
    struct hw_profile *amd = test_hw("mi300x");
    struct mdl_profile *m = test_model("llama-3.1-70b");
    struct roof_config cfg;
    mi300x_70b_fp8_tp8(&cfg, amd, m);
    struct roof_result no, yes;
    CHECK(roof_evaluate(&cfg, &no) == 0);
    cfg.tuning.gemm_bandwidth_bytes_per_s = 2.95e12;
    CHECK(roof_evaluate(&cfg, &yes) == 0);
    CHECK_NEAR(yes.ops[ROOF_OP_MLP_DOWN].time_s, 80 * (29371904.0 / 2.95e12 + 1e-6), 1e-12);
    CHECK_NEAR(no.ops[ROOF_OP_MLP_DOWN].time_s, 80 * (29371904.0 / 5.3e12 + 1e-6), 1e-12);
    CHECK_NEAR(yes.ops[ROOF_OP_MLP_NORM].time_s, no.ops[ROOF_OP_MLP_NORM].time_s, 0);
    CHECK_NEAR(yes.ops[ROOF_OP_ATTN_SCORE].time_s, no.ops[ROOF_OP_ATTN_SCORE].time_s, 0);
    hw_free(amd);
    mdl_free(m);
}

/* FlashAttention-2's flash_attn_with_kvcache with the chunk's K and V passed in: every 64-row
 * query block's CTA copies the new rows of each 128-row KV block up to its causal bound, K and V
 * read and written (docs/physics.md#prefill-attention). Hand counts, head_dim 128, 2-byte
 * elements (1 KB a row copied):
 * - chunk 2560 on an empty cache: CTA m copies ceil((m + 1) / 2) full blocks, m = 0..39:
 *   2 x (1 + ... + 20) = 420 blocks x 128 rows = 53,760 rows a head, x 32 heads x 1024 B
 *   = 1,761,607,680 B; a cache of 1024 tokens (8 whole blocks) before it copies the same rows;
 * - chunk 992, 16 heads: blocks 0-6 full, block 7 96 rows; CTAs 0..15 copy 128, 128, 256, 256,
 *   ..., 896, 896, 992, 992 rows = 2 x 4576 = 9152 a head, x 16 x 1024 B = 149,946,368 B;
 * - chunk 100 after 1000 cached tokens, one head: two CTAs, each copying the 24 new rows of
 *   block 7 and the 76 of block 8: 200 rows x 1024 B = 204,800 B. */
TEST(calib_kvcache_append)
{
    CHECK_NEAR(calib_kvcache_append_bytes(2560, 0, 32, 128, 2), 1761607680.0, 1e-12);
    CHECK_NEAR(calib_kvcache_append_bytes(2560, 1024, 32, 128, 2), 1761607680.0, 1e-12);
    CHECK_NEAR(calib_kvcache_append_bytes(992, 0, 16, 128, 2), 149946368.0, 1e-12);
    CHECK_NEAR(calib_kvcache_append_bytes(100, 1000, 1, 128, 2), 204800.0, 1e-12);
    CHECK(calib_kvcache_append_bytes(0, 0, 32, 128, 2) == 0.0);
    /* head_dim 64: 256-row KV blocks; chunk 512 on an empty cache, one head: CTAs 0..7 copy
     * ceil((m + 1) / 4) blocks of 256 rows = (1 + 1 + 1 + 1 + 2 + 2 + 2 + 2) x 256 = 3072
     * rows x 4 x 64 x 2 B = 1,572,864 B */
    CHECK_NEAR(calib_kvcache_append_bytes(512, 0, 1, 64, 2), 1572864.0, 1e-12);

    /* a kernel row of Llama-2-7B on the A100: the append adds its bytes over the tuned
     * bandwidth to the fused attention's time */
    struct hw_profile *hw = test_hw("a100-sxm-80gb");
    struct mdl_profile *m = test_model("llama-2-7b");
    struct roof_tuning tu;
    dc_default_tuning(hw, &tu);
    struct pred_case pc;
    memset(&pc, 0, sizeof pc);
    pc.phase = PRED_KERNEL;
    pc.metric = PRED_TIME_MS;
    pc.weights = pc.kv = DT_FP16;
    pc.batch = 1;
    pc.tp = 1;
    pc.op = "attn_prefill";
    pc.chunk = 2560;
    pc.kv_len = 0;
    double plain, kvc;
    const char *why = NULL;
    CHECK(pred_case_eval(&pc, hw, m, &tu, &plain, &why) == 0);
    pc.attn_kernel = PRED_AK_FLASH_KVCACHE;
    CHECK(pred_case_eval(&pc, hw, m, &tu, &kvc, &why) == 0);
    double bw = roof_tuned_bandwidth(hw, &tu, hw->memory_bandwidth_bytes_per_s);
    CHECK_NEAR(kvc - plain, 1e3 * 1761607680.0 / bw, 1e-9);
    /* decode through the same call (calib_fa2_decode_s): 8 sequences x 32 heads = 256 CTAs
     * fill 0.8 of 2 x 108 SMs, so one split; each CTA reads its sequence's whole 1025 tokens x
     * 512 B = 524,800 B; ceil(256 / 108) = 3 whole waves at the SM's share of the bandwidth */
    pc.op = "attn_decode";
    pc.chunk = 0;
    pc.kv_len = 1024;
    pc.batch = 8;
    CHECK(pred_case_eval(&pc, hw, m, &tu, &kvc, &why) == 0);
    CHECK(tu.compute_units == 108);
    double per_cta = 524800.0 / (bw / 108);
    CHECK(per_cta > ROOF_ATTN_ROUND_TRIPS * tu.memory_latency_s);
    CHECK_NEAR(kvc, 1e3 * (3 * per_cta + tu.kernel_overhead_s), 1e-9);
    /* PagedAttention's 512-token partitions spread the same bytes evenly: faster */
    pc.attn_kernel = PRED_AK_DEFAULT;
    CHECK(pred_case_eval(&pc, hw, m, &tu, &plain, &why) == 0);
    CHECK(plain < kvc);
    hw_free(hw);
    mdl_free(m);
}

/* FlashAttention-2's num_splits_heuristic (flash_api.cpp), given twice the SMs:
 * - 256 CTAs (8 x 32 heads) >= 0.8 x 216: one split;
 * - 32 CTAs over 25 KV blocks (3073 tokens): waves 32 s / 216; eligible s change
 *   ceil(25 / s): 1-5, 7, 9, 13, 25 (6 gives 5 blocks as 5 does, 14-24 give 2 as 13 does);
 *   efficiency (waves / whole waves) 0.148 s up to s = 6, 7: 1.037 / 2 = 0.519, 9: 0.667,
 *   13: 1.926 / 2 = 0.963 (the best), 25: 3.70 / 4 = 0.926; 0.85 x 0.963 = 0.819: s = 13;
 * - 64 CTAs: 3 splits (192 / 216 = 0.889 >= 0.85 x 0.963); 128 CTAs: 3 (1.78 / 2 = 0.889 >=
 *   0.85 x 0.988, s = 5's 2.96 / 3);
 * - 32 CTAs over 5 blocks (545 tokens): s = 4 not eligible, s = 5 the best (0.741): 5;
 * - one block: one split. */
TEST(calib_fa2_splits)
{
    CHECK(calib_fa2_splits(256, 108, 9) == 1);
    CHECK(calib_fa2_splits(32, 108, 25) == 13);
    CHECK(calib_fa2_splits(64, 108, 25) == 3);
    CHECK(calib_fa2_splits(128, 108, 25) == 3);
    CHECK(calib_fa2_splits(32, 108, 5) == 5);
    CHECK(calib_fa2_splits(32, 108, 1) == 1);
    /* one sequence at 3072 cached tokens: 13 splits of ceil(25 / 13) = 2 blocks (256 tokens x
     * 512 B = 131,072 B), 416 CTAs in ceil(416 / 108) = 4 waves */
    struct hw_profile *hw = test_hw("a100-sxm-80gb");
    struct roof_tuning tu;
    dc_default_tuning(hw, &tu);
    double bw = roof_tuned_bandwidth(hw, &tu, hw->memory_bandwidth_bytes_per_s);
    double per_cta = 131072.0 / (bw / 108);
    CHECK(per_cta > ROOF_ATTN_ROUND_TRIPS * tu.memory_latency_s);
    CHECK_NEAR(calib_fa2_decode_s(hw, &tu, 1, 32, 3073, 128, 512), 4 * per_cta, 1e-12);
    /* 32 cached tokens at batch 64: 2048 CTAs of 33 tokens, each at the latency floor */
    CHECK_NEAR(calib_fa2_decode_s(hw, &tu, 64, 32, 33, 128, 512),
               ceil(2048.0 / 108) * ROOF_ATTN_ROUND_TRIPS * tu.memory_latency_s, 1e-12);
    hw_free(hw);
}

/* The engine's custom all-reduce barrier reaches the tuning on every device (the kernel's own
 * figure); without an engine, or without the key, the tuning carries 0 (the link's latency). */
TEST(calib_custom_allreduce_latency_to_tuning)
{
    struct hw_profile *h100 = test_hw("h100-sxm"), *mi = test_hw("mi300x");
    struct dev_params dp;
    dev_params_default(DEV_DC_GPU, &dp);
    struct engine_profile eng;
    engine_profile_kernel(&eng);
    struct roof_tuning t;
    calib_tuning(h100, &dp, &eng, &t);
    CHECK(t.custom_allreduce_latency_s == 0);
    eng.custom_allreduce_latency_s = 2.92e-6;
    calib_tuning(h100, &dp, &eng, &t);
    CHECK_NEAR(t.custom_allreduce_latency_s, 2.92e-6, 0);
    calib_tuning(mi, &dp, &eng, &t);
    CHECK_NEAR(t.custom_allreduce_latency_s, 2.92e-6, 0);
    eng.sampler_kernels = 3;
    calib_tuning(mi, &dp, &eng, &t);
    CHECK_NEAR(t.sampler_kernels, 3, 0);
    calib_tuning(h100, &dp, NULL, &t);
    CHECK(t.custom_allreduce_latency_s == 0);
    CHECK(t.sampler_kernels == 0);
    hw_free(h100);
    hw_free(mi);
}

/* The engine's triton_moe_kernels reaches the tuning only on a device whose CUDA capability
 * takes vLLM's triton_kernels MoE (the Hopper profiles: 9.0); the B200 (FlashInfer's kernels,
 * no cuda_capability given) and the MI300X (none given) get 0. */
TEST(calib_triton_moe_by_device)
{
    struct hw_profile *h100 = test_hw("h100-sxm"), *gh = test_hw("gh200"), *b200 = test_hw("b200");
    CHECK_NEAR(h100->cuda_capability, 9.0, 0);
    CHECK_NEAR(gh->cuda_capability, 9.0, 0);
    CHECK(b200->cuda_capability == 0);
    struct dev_params dp;
    dev_params_default(DEV_DC_GPU, &dp);
    struct engine_profile eng;
    engine_profile_kernel(&eng);
    eng.triton_moe_kernels = 17;
    struct roof_tuning t;
    calib_tuning(h100, &dp, &eng, &t);
    CHECK_NEAR(t.triton_moe_kernels, 17, 0);
    calib_tuning(gh, &dp, &eng, &t);
    CHECK_NEAR(t.triton_moe_kernels, 17, 0);
    calib_tuning(b200, &dp, &eng, &t);
    CHECK(t.triton_moe_kernels == 0);
    calib_tuning(h100, &dp, NULL, &t);
    CHECK(t.triton_moe_kernels == 0);
    /* Triton's block-scaled fp8 MoE (moe_block_fp8_vs_bf16): Hopper only, like the measurement */
    eng.moe_block_fp8_vs_bf16 = 0.61;
    calib_tuning(h100, &dp, &eng, &t);
    CHECK_NEAR(t.moe_block_fp8_vs_bf16, 0.61, 0);
    calib_tuning(gh, &dp, &eng, &t);
    CHECK_NEAR(t.moe_block_fp8_vs_bf16, 0.61, 0);
    calib_tuning(b200, &dp, &eng, &t);
    CHECK(t.moe_block_fp8_vs_bf16 == 0);
    /* the experts' sum kernel (moe_sum_kernel): Hopper only, like the Triton path it was read in */
    CHECK(!t.moe_sum_kernel);
    eng.moe_sum_kernel = true;
    calib_tuning(h100, &dp, &eng, &t);
    CHECK(t.moe_sum_kernel);
    calib_tuning(gh, &dp, &eng, &t);
    CHECK(t.moe_sum_kernel);
    calib_tuning(b200, &dp, &eng, &t);
    CHECK(!t.moe_sum_kernel);
    calib_tuning(h100, &dp, NULL, &t);
    CHECK(!t.moe_sum_kernel);
    /* vLLM's Marlin MoE (marlin_moe_vs_peak, marlin_moe_kernels): Hopper only, where its rate
     * was measured (the MXFP4 choice is the deployment's: roof_config.mxfp4_marlin, not here) */
    eng.marlin_moe_vs_peak = 0.32;
    eng.marlin_moe_kernels = 9;
    calib_tuning(h100, &dp, &eng, &t);
    CHECK_NEAR(t.marlin_moe_vs_peak, 0.32, 0);
    CHECK_NEAR(t.marlin_moe_kernels, 9, 0);
    calib_tuning(gh, &dp, &eng, &t);
    CHECK_NEAR(t.marlin_moe_vs_peak, 0.32, 0);
    calib_tuning(b200, &dp, &eng, &t);
    CHECK(t.marlin_moe_vs_peak == 0 && t.marlin_moe_kernels == 0);
    calib_tuning(h100, &dp, NULL, &t);
    CHECK(t.marlin_moe_vs_peak == 0);
    /* Triton's fused MoE chain (fused_moe_kernels, fused_moe_quant_kernels): CUDA capability
     * 8.x-9.x and AMD's GPUs (its HIP branches), not the B200 */
    struct hw_profile *mi = test_hw("mi300x");
    eng.fused_moe_kernels = 7;
    eng.fused_moe_quant_kernels = 1;
    struct hw_profile *yes[3] = {h100, gh, mi};
    for (int i = 0; i < 3; i++) {
        calib_tuning(yes[i], &dp, &eng, &t);
        CHECK_NEAR(t.fused_moe_kernels, 7, 0);
        CHECK_NEAR(t.fused_moe_quant_kernels, 1, 0);
    }
    calib_tuning(b200, &dp, &eng, &t);
    CHECK(t.fused_moe_kernels == 0 && t.fused_moe_quant_kernels == 0);
    calib_tuning(h100, &dp, NULL, &t);
    CHECK(t.fused_moe_kernels == 0);
    hw_free(mi);
    hw_free(h100);
    hw_free(gh);
    hw_free(b200);
}
