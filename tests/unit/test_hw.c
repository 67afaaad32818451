/* Data types, compute-roof selection and ridge points. */
#include "test.h"

#include "core/dtype.h"
#include "core/hw.h"
#include "util/array.h"

#include <string.h>

TEST(dtype_sizes)
{
    CHECK_NEAR(dtype_bytes(DT_FP32), 4, 0);
    CHECK_NEAR(dtype_bytes(DT_BF16), 2, 0);
    CHECK_NEAR(dtype_bytes(DT_FP8), 1, 0);
    CHECK_NEAR(dtype_bytes(DT_INT4), 0.5, 0);
    CHECK_NEAR(dtype_bits(DT_Q8_0), 8.5, 0); /* 32 x 8 bit + 16-bit scale per 32 */
    CHECK_NEAR(dtype_bits(DT_Q4_0), 4.5, 0); /* 32 x 4 bit + 16-bit scale */
    CHECK_NEAR(dtype_bits(DT_Q4_1), 5.0, 0); /* + 16-bit min */
    CHECK_NEAR(dtype_bits(DT_Q4_K_M), 4.85, 0);
    enum dtype d;
    CHECK(dtype_parse("bfloat16", &d) == 0 && d == DT_BF16);
    CHECK(dtype_parse("q4_k_m", &d) == 0 && d == DT_Q4_K_M);
    CHECK(dtype_parse("fp12", &d) != 0);
}

/* A GGUF MoE mix: each tensor class in its own format (llama.cpp llama-quant.cpp, MXFP4_MOE);
 * a uniform format stores every class in itself. mxfp4: 16 B of E2M1 nibbles + a 1-byte E8M0
 * scale per 32 weights = 4.25 bits. */
/* The list an "unknown format" message gives: every nameable format in table order, fp64 and
 * tf32 left out, the mixes after "for weights also"; a short buffer is cut, never overrun. */
TEST(dtype_list_names_every_format)
{
    char buf[256];
    CHECK_STR(dtype_list(buf, sizeof buf, false),
              "fp32, fp16, bf16, fp8, int8, fp4, int4, q8_0, q4_0, q4_1, q4_k_m, mxfp4");
    CHECK_STR(dtype_list(buf, sizeof buf, true),
              "fp32, fp16, bf16, fp8, int8, fp4, int4, q8_0, q4_0, q4_1, q4_k_m, mxfp4; for "
              "weights also mxfp4_moe, mxfp4_moe_bf16, nvfp4_attn_bf16, nvfp4_qkv_bf16");
    char small[12];
    memset(small, 'x', sizeof small);
    dtype_list(small, 8, true);
    CHECK(strlen(small) < 8);
    CHECK(small[8] == 'x');
}

TEST(dtype_mix_parts)
{
    CHECK_NEAR(dtype_bits(DT_MXFP4), 4.25, 0);
    enum dtype d;
    CHECK(dtype_parse("mxfp4_moe", &d) == 0 && d == DT_MXFP4_MOE);
    CHECK(dtype_parse("mxfp4-moe", &d) == 0 && d == DT_MXFP4_MOE);
    CHECK(dtype_parse("mxfp4", &d) == 0 && d == DT_MXFP4);
    CHECK(dtype_is_mix(DT_MXFP4_MOE));
    CHECK(!dtype_is_mix(DT_Q4_K_M) && !dtype_is_mix(DT_FP4));
    CHECK(dtype_part_format(DT_MXFP4_MOE, DT_PART_EXPERTS) == DT_MXFP4);
    CHECK(dtype_part_format(DT_MXFP4_MOE, DT_PART_ROUTER) == DT_FP32);
    CHECK(dtype_part_format(DT_MXFP4_MOE, DT_PART_OTHER) == DT_Q8_0);
    CHECK(dtype_part_format(DT_MXFP4_MOE_BF16, DT_PART_EXPERTS) == DT_MXFP4);
    CHECK(dtype_part_format(DT_MXFP4_MOE_BF16, DT_PART_ROUTER) == DT_BF16);
    CHECK(dtype_part_format(DT_MXFP4_MOE_BF16, DT_PART_OTHER) == DT_BF16);
    for (int p = 0; p < DT_PART_COUNT; p++) {
        CHECK(dtype_part_format(DT_Q4_K_M, (enum dtype_part)p) == DT_Q4_K_M);
        CHECK(dtype_part_format(DT_BF16, (enum dtype_part)p) == DT_BF16);
    }
    CHECK(dtype_is_weight_only(DT_MXFP4_MOE) && dtype_is_weight_only(DT_MXFP4));
    CHECK(dtype_gemm_compute(DT_MXFP4_MOE, DT_FP16) == DT_FP16);
    /* the older mixes store attention, o_proj and head as their other tensors */
    CHECK(dtype_part_format(DT_MXFP4_MOE, DT_PART_ATTN_QKV) == DT_Q8_0);
    CHECK(dtype_part_format(DT_MXFP4_MOE, DT_PART_ATTN_O) == DT_Q8_0);
    CHECK(dtype_part_format(DT_MXFP4_MOE, DT_PART_HEAD) == DT_Q8_0);
    CHECK(dtype_part_format(DT_MXFP4_MOE_BF16, DT_PART_ATTN_QKV) == DT_BF16);
    CHECK(dtype_part_format(DT_MXFP4_MOE_BF16, DT_PART_HEAD) == DT_BF16);
}

/* NVFP4: 16 E2M1 values (4 bits) share one E4M3 scale (8 bits): 4 + 8 / 16 = 4.5 bits. NVIDIA's
 * DeepSeek-R1 checkpoints keep self_attn (all of it in R1-0528-FP4, the q/kv projections in
 * its v2), the router, the embedding and lm_head in bf16. */
TEST(dtype_nvfp4_and_its_checkpoint_mixes)
{
    CHECK_NEAR(dtype_bits(DT_FP4), 4.5, 0);
    CHECK_NEAR(dtype_bytes(DT_FP4), 0.5625, 0);
    enum dtype d;
    CHECK(dtype_parse("nvfp4", &d) == 0 && d == DT_FP4);
    CHECK(dtype_parse("nvfp4_attn_bf16", &d) == 0 && d == DT_NVFP4_ATTN_BF16);
    CHECK(dtype_parse("nvfp4_qkv_bf16", &d) == 0 && d == DT_NVFP4_QKV_BF16);
    CHECK(dtype_parse("nvfp4_attn", &d) == -1);
    CHECK(dtype_is_mix(DT_NVFP4_ATTN_BF16) && dtype_is_mix(DT_NVFP4_QKV_BF16));
    CHECK(dtype_is_weight_only(DT_NVFP4_QKV_BF16));
    const enum dtype v1[DT_PART_COUNT] = {
        [DT_PART_EXPERTS] = DT_FP4,   [DT_PART_ROUTER] = DT_BF16, [DT_PART_OTHER] = DT_FP4,
        [DT_PART_ATTN_QKV] = DT_BF16, [DT_PART_ATTN_O] = DT_BF16, [DT_PART_HEAD] = DT_BF16};
    for (int p = 0; p < DT_PART_COUNT; p++) {
        CHECK(dtype_part_format(DT_NVFP4_ATTN_BF16, (enum dtype_part)p) == v1[p]);
        enum dtype v2 = p == DT_PART_ATTN_O ? DT_FP4 : v1[p];
        CHECK(dtype_part_format(DT_NVFP4_QKV_BF16, (enum dtype_part)p) == v2);
    }
    char buf[256];
    CHECK(strstr(dtype_list(buf, sizeof buf, true), "nvfp4_attn_bf16, nvfp4_qkv_bf16") != NULL);
    CHECK(strstr(dtype_list(buf, sizeof buf, false), "nvfp4") == NULL);
}

TEST(dtype_gemm_roof_rule)
{
    /* weight-only formats are dequantized: the activation roof applies */
    CHECK(dtype_gemm_compute(DT_INT4, DT_FP16) == DT_FP16);
    CHECK(dtype_gemm_compute(DT_Q4_K_M, DT_FP16) == DT_FP16);
    /* W8A8 and FP8 x FP8 use their own roofs */
    CHECK(dtype_gemm_compute(DT_INT8, DT_INT8) == DT_INT8);
    CHECK(dtype_gemm_compute(DT_FP8, DT_FP8) == DT_FP8);
    /* W8A16: the wider format */
    CHECK(dtype_gemm_compute(DT_INT8, DT_FP16) == DT_FP16);
    CHECK(dtype_gemm_compute(DT_BF16, DT_BF16) == DT_BF16);
}

static void
fake_hw(struct hw_profile *hw)
{
    memset(hw, 0, sizeof *hw);
    hw->memory_bandwidth_bytes_per_s = 3.35e12;
    hw->memory_capacity_bytes = 80e9;
    hw->peak_flops_per_s[DT_FP32] = 66.9e12;
    hw->peak_flops_per_s[DT_FP16] = 989.4e12;
    hw->peak_flops_per_s[DT_BF16] = 989.4e12;
}

TEST(hw_peak_and_fallback)
{
    struct hw_profile hw;
    fake_hw(&hw);
    enum dtype used;
    CHECK_NEAR(hw_peak(&hw, DT_FP16, &used), 989.4e12, 0);
    CHECK(used == DT_FP16);
    /* no fp8 roof (an A100-like device): fp8 work runs on the fp16 units */
    CHECK_NEAR(hw_peak(&hw, DT_FP8, &used), 989.4e12, 0);
    CHECK(used == DT_FP16);
    /* ridge = 989.4e12 / 3.35e12 = 295.343 FLOP/B */
    CHECK_NEAR(hw_ridge(&hw, DT_FP16), 295.3432836, 1e-9);
    /* a Pascal-like device: fp16 at 1/64 of fp32 computes fp16 work in fp32 */
    struct hw_profile p40;
    fake_hw(&p40);
    p40.peak_flops_per_s[DT_FP16] = 183.7e9;
    p40.peak_flops_per_s[DT_BF16] = 0;
    p40.peak_flops_per_s[DT_FP32] = 11.76e12;
    CHECK_NEAR(hw_peak(&p40, DT_FP16, &used), 11.76e12, 0);
    CHECK(used == DT_FP32);
    /* links: a 900 GB/s bidirectional figure is 450 GB/s per direction */
    hw.link_kind = "nvlink4";
    hw.link_bandwidth_bytes_per_s = 900e9;
    hw.link_direction = HW_LINK_BIDIRECTIONAL;
    CHECK_NEAR(hw_link_bytes_per_s_per_direction(&hw), 450e9, 0);
    hw.link_direction = HW_LINK_PER_DIRECTION;
    CHECK_NEAR(hw_link_bytes_per_s_per_direction(&hw), 900e9, 0);
}

TEST(hw_vector_rate_derived)
{
    struct hw_profile hw;
    fake_hw(&hw);
    enum hw_vector_origin o;
    CHECK_NEAR(hw_vector_peak(&hw, &o), 66.9e12, 0);
    CHECK(o == HW_VECTOR_DATASHEET);
    /* no fp32 peak and nothing to derive it from: 0, the loader refuses such a profile */
    hw.peak_flops_per_s[DT_FP32] = 0;
    CHECK_NEAR(hw_vector_peak(&hw, &o), 0, 0);
    CHECK(o == HW_VECTOR_NONE);
    /* units x clock x FLOP/cycle: an A100 without its fp32 figure, 108 SMs x 1.41 GHz x 64 FMA
     * lanes x 2 = 19.49 TFLOP/s, the datasheet's 19.5 */
    hw.compute_units = 108;
    hw.boost_clock_hz = 1.41e9;
    hw.vector_flops_per_cycle = 128;
    CHECK_NEAR(hw_vector_peak(&hw, &o), 19.49184e12, 1e-12);
    CHECK(o == HW_VECTOR_UNITS);
    /* fp16 work on this device still runs on its tensor roof; fp32 work on the derived rate */
    enum dtype used;
    CHECK_NEAR(hw_peak(&hw, DT_FP32, &used), 19.49184e12, 1e-12);
    CHECK(used == DT_FP32);
    CHECK_NEAR(hw_peak(&hw, DT_FP16, &used), 989.4e12, 0);
    /* a fraction of a tensor peak (A10G: 0.5 x 70 TFLOP/s fp16 = 35 TFLOP/s) when units or clock
     * are unknown */
    hw.compute_units = 0;
    hw.peak_flops_per_s[DT_FP16] = 70e12;
    hw.vector_fraction = 0.5;
    hw.vector_fraction_of = DT_FP16;
    CHECK_NEAR(hw_vector_peak(&hw, &o), 35e12, 0);
    CHECK(o == HW_VECTOR_FRACTION);
    char buf[256];
    hw_vector_describe(&hw, buf, sizeof buf);
    CHECK(strstr(buf, "0.5 x the fp16 tensor peak 70 TFLOP/s = 35 TFLOP/s") != NULL);
}

TEST(hw_shipped_profiles_exist)
{
    static const char *const REQUIRED[] = {"h100-sxm",
                                           "h100-pcie",
                                           "h100-nvl",
                                           "h200",
                                           "gh200",
                                           "b200",
                                           "gb200",
                                           "a100-sxm-80gb",
                                           "a100-sxm-40gb",
                                           "a100-pcie-80gb",
                                           "a100-pcie-40gb",
                                           "a40",
                                           "a10",
                                           "a10g",
                                           "l40s",
                                           "l4",
                                           "t4",
                                           "v100-sxm2",
                                           "tesla-p40",
                                           "rtx-3090",
                                           "rtx-4080",
                                           "rtx-4090",
                                           "rtx-5090",
                                           "rtx-a6000",
                                           "rtx-6000-ada",
                                           "mi250",
                                           "mi250x",
                                           "mi300x",
                                           "mi325x",
                                           "gaudi2",
                                           "tpu-v5e",
                                           "tpu-v6e",
                                           "m1-7c",
                                           "m1-8c",
                                           "m1-max-24c",
                                           "m1-max-32c",
                                           "m2-10c",
                                           "m2-ultra-76c",
                                           "m3-10c",
                                           "m3-max-40c",
                                           "m4-10c",
                                           "m4-max-40c"};
    for (size_t i = 0; i < ARRAY_SIZE(REQUIRED); i++) {
        struct hw_profile *hw = test_hw(REQUIRED[i]);
        CHECK(hw->memory_bandwidth_bytes_per_s > 0);
        CHECK(hw->memory_capacity_bytes > 0);
        CHECK(hw->n_sources > 0);
        hw_free(hw);
    }
}

TEST(hw_seed_figures)
{
    /* the figures the seed documents use */
    struct hw_profile *hw = test_hw("h100-sxm");
    CHECK_NEAR(hw->memory_bandwidth_bytes_per_s, 3.35e12, 0);
    CHECK_NEAR(hw->peak_flops_per_s[DT_FP16], 989.4e12, 0);
    hw_free(hw);
    hw = test_hw("rtx-4090");
    CHECK_NEAR(hw->memory_bandwidth_bytes_per_s, 1008e9, 0);
    CHECK_NEAR(hw->memory_capacity_bytes, 24e9, 0);
    hw_free(hw);
    hw = test_hw("rtx-3090");
    CHECK_NEAR(hw->memory_bandwidth_bytes_per_s, 936e9, 0);
    hw_free(hw);
    hw = test_hw("a100-sxm-80gb");
    CHECK_NEAR(hw->memory_bandwidth_bytes_per_s, 2039e9, 0);
    hw_free(hw);
    hw = test_hw("m2-ultra-76c");
    CHECK_NEAR(hw->memory_bandwidth_bytes_per_s, 800e9, 0);
    hw_free(hw);
}

/* Fits use the memory a device reports (memory.reported) where the profile gives it, else the
 * datasheet's: H200 150,021,734,400 B (139.72 GiB, CUDA's total) beside its 141 GB; the H100
 * 79.11 GiB = 84,943,715,696.64 B; Gaudi 3 gives none, so its 128 GB stands. */
TEST(hw_memory_reported)
{
    struct hw_profile *hw = test_hw("h200");
    CHECK_NEAR(hw->memory_capacity_bytes, 141e9, 0);
    CHECK_NEAR(hw->memory_reported_bytes, 150021734400.0, 0);
    CHECK_NEAR(hw_memory_bytes(hw), 150021734400.0, 0);
    hw_free(hw);
    hw = test_hw("h100-sxm");
    CHECK_NEAR(hw_memory_bytes(hw), 84943715696.64, 1e-12);
    hw_free(hw);
    hw = test_hw("gaudi3");
    CHECK_NEAR(hw->memory_reported_bytes, 0, 0);
    CHECK_NEAR(hw_memory_bytes(hw), 128e9, 0);
    hw_free(hw);
}
