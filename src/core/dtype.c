/* Numeric formats and the rule that picks a GEMM's compute roof (docs/physics.md#data-types). */
#include "core/dtype.h"
#include "util/array.h"

#include <stdio.h>
#include <string.h>

static const struct {
    const char *name;
    double bits;
} DT[DT_COUNT] = {
    [DT_FP64] = {"fp64", 64},
    [DT_FP32] = {"fp32", 32},
    [DT_TF32] = {"tf32", 32},
    [DT_FP16] = {"fp16", 16},
    [DT_BF16] = {"bf16", 16},
    [DT_FP8] = {"fp8", 8},
    [DT_INT8] = {"int8", 8},
    /* NVFP4 (the FP4 of Blackwell's tensor cores): 16 E2M1 values share one E4M3 scale, 4 + 8/16
     * = 4.5 bits a weight (the FP32 second-level scale per tensor is negligible): NVIDIA,
     * "Introducing NVFP4 for Efficient and Accurate Low-Precision Inference" (developer blog,
     * 2025-06-24); ModelOpt writes it so, NVFP4QTensor.quantize(weight, 16, ...) with a
     * `weight_scale` tensor beside each weight (TensorRT-Model-Optimizer
     * examples/deepseek/quantize_to_nvfp4.py at 1ef1d72, convert_fp8_ckpt_to_nvfp4) */
    [DT_FP4] = {"fp4", 4.5},
    [DT_INT4] = {"int4", 4},
    [DT_Q8_0] = {"q8_0", 8.5},
    [DT_Q4_0] = {"q4_0", 4.5},
    [DT_Q4_1] = {"q4_1", 5.0},
    [DT_Q4_K_M] = {"q4_k_m", 4.85},
    [DT_MXFP4] = {"mxfp4", 4.25},
    [DT_MXFP4_MOE] = {"mxfp4_moe", 4.25},
    [DT_MXFP4_MOE_BF16] = {"mxfp4_moe_bf16", 4.25},
    [DT_NVFP4_ATTN_BF16] = {"nvfp4_attn_bf16", 4.5},
    [DT_NVFP4_QKV_BF16] = {"nvfp4_qkv_bf16", 4.5},
};

/* Each mix's format per tensor class (docs/physics.md#moe-and-gguf-mixed-precision).
 * MXFP4_MOE: llama.cpp src/llama-quant.cpp, llama_tensor_get_type: "MoE tensors -> MXFP4,
 * other tensors -> Q8_0" (the output tensor Q8_0 too); the router (ffn_gate_inp) is never
 * quantized and convert_hf_to_gguf.py writes it in F32 ("Some tensor types are always in
 * float32": FFN_GATE_INP). */
/* MXFP4_MOE_BF16: openai/gpt-oss-20b and -120b config.json, quantization_config
 * {quant_method: mxfp4, modules_to_not_convert: [model.layers.*.self_attn,
 * model.layers.*.mlp.router, model.embed_tokens, lm_head]}: the routed experts in MXFP4, those
 * modules in BF16 (as vLLM and SGLang load the checkpoint). */
static const struct {
    enum dtype mix;
    enum dtype part[DT_PART_COUNT];
} MIXES[] = {
    {DT_MXFP4_MOE,
     {[DT_PART_EXPERTS] = DT_MXFP4,
      [DT_PART_ROUTER] = DT_FP32,
      [DT_PART_OTHER] = DT_Q8_0,
      [DT_PART_ATTN_QKV] = DT_Q8_0,
      [DT_PART_ATTN_O] = DT_Q8_0,
      [DT_PART_HEAD] = DT_Q8_0}},
    {DT_MXFP4_MOE_BF16,
     {[DT_PART_EXPERTS] = DT_MXFP4,
      [DT_PART_ROUTER] = DT_BF16,
      [DT_PART_OTHER] = DT_BF16,
      [DT_PART_ATTN_QKV] = DT_BF16,
      [DT_PART_ATTN_O] = DT_BF16,
      [DT_PART_HEAD] = DT_BF16}},
    /* NVIDIA's NVFP4 DeepSeek-R1 checkpoints (ModelOpt): hf_quant_config.json of
     * nvidia/DeepSeek-R1-0528-NVFP4 has quant_algo NVFP4, group_size 16, exclude_modules
     * [lm_head, model.layers.*.self_attn*]; quantize_to_nvfp4.py (above) dequantizes every FP8
     * weight to BF16 and writes NVFP4 only where the calibration left an amax, so the excluded
     * modules stay BF16 (the router, MoEGate, is no Linear: BF16). The v2 checkpoint
     * (nvidia/DeepSeek-R1-0528-FP4-v2 model card: "additionally quantizes the wo module in
     * attention layers") has o_proj in NVFP4 too. */
    {DT_NVFP4_ATTN_BF16,
     {[DT_PART_EXPERTS] = DT_FP4,
      [DT_PART_ROUTER] = DT_BF16,
      [DT_PART_OTHER] = DT_FP4,
      [DT_PART_ATTN_QKV] = DT_BF16,
      [DT_PART_ATTN_O] = DT_BF16,
      [DT_PART_HEAD] = DT_BF16}},
    {DT_NVFP4_QKV_BF16,
     {[DT_PART_EXPERTS] = DT_FP4,
      [DT_PART_ROUTER] = DT_BF16,
      [DT_PART_OTHER] = DT_FP4,
      [DT_PART_ATTN_QKV] = DT_BF16,
      [DT_PART_ATTN_O] = DT_FP4,
      [DT_PART_HEAD] = DT_BF16}},
};

static const struct {
    const char *alias;
    enum dtype dt;
} ALIASES[] = {
    {"float64", DT_FP64},  {"float32", DT_FP32},  {"f32", DT_FP32},
    {"float16", DT_FP16},  {"f16", DT_FP16},      {"half", DT_FP16},
    {"bfloat16", DT_BF16}, {"float8", DT_FP8},    {"fp8_e4m3", DT_FP8},
    {"e4m3", DT_FP8},      {"q4_k", DT_Q4_K_M},   {"q4km", DT_Q4_K_M},
    {"nf4", DT_INT4},      {"int4_awq", DT_INT4}, {"mxfp4-moe", DT_MXFP4_MOE},
    {"nvfp4", DT_FP4},
};

const char *
dtype_name(enum dtype dt)
{
    return (dt >= 0 && dt < DT_COUNT) ? DT[dt].name : "?";
}

char *
dtype_list(char *buf, size_t n, bool weights)
{
    size_t at = 0;
    if (n == 0)
        return buf;
    buf[0] = '\0';
    bool mix_seen = false;
    for (int pass = 0; pass < (weights ? 2 : 1); pass++) {
        for (int i = 0; i < DT_COUNT; i++) {
            if (i == DT_FP64 || i == DT_TF32 || dtype_is_mix((enum dtype)i) != (pass == 1))
                continue;
            const char *sep = at == 0 ? "" : pass == 1 && !mix_seen ? "; for weights also " : ", ";
            mix_seen = mix_seen || pass == 1;
            int w = snprintf(buf + at, n - at, "%s%s", sep, DT[i].name);
            if (w < 0 || (size_t)w >= n - at)
                return buf;
            at += (size_t)w;
        }
    }
    return buf;
}

int
dtype_parse(const char *name, enum dtype *out)
{
    if (!name)
        return -1;
    for (int i = 0; i < DT_COUNT; i++) {
        if (strcmp(name, DT[i].name) == 0) {
            *out = (enum dtype)i;
            return 0;
        }
    }
    for (size_t i = 0; i < ARRAY_SIZE(ALIASES); i++) {
        if (strcmp(name, ALIASES[i].alias) == 0) {
            *out = ALIASES[i].dt;
            return 0;
        }
    }
    return -1;
}

double
dtype_bits(enum dtype dt)
{
    return DT[dt].bits;
}

double
dtype_bytes(enum dtype dt)
{
    return DT[dt].bits / 8.0;
}

bool
dtype_is_roof(enum dtype dt)
{
    return dt >= DT_ROOF_FIRST && dt <= DT_ROOF_LAST;
}

bool
dtype_is_mix(enum dtype dt)
{
    for (size_t i = 0; i < ARRAY_SIZE(MIXES); i++)
        if (MIXES[i].mix == dt)
            return true;
    return false;
}

enum dtype
dtype_part_format(enum dtype w, enum dtype_part p)
{
    for (size_t i = 0; i < ARRAY_SIZE(MIXES); i++)
        if (MIXES[i].mix == w && p >= 0 && p < DT_PART_COUNT)
            return MIXES[i].part[p];
    return w;
}

bool
dtype_is_weight_only(enum dtype dt)
{
    return dt == DT_INT4 || dt == DT_FP4 || dt == DT_Q8_0 || dt == DT_Q4_0 || dt == DT_Q4_1 ||
           dt == DT_Q4_K_M || dt == DT_MXFP4 || dtype_is_mix(dt);
}

enum dtype
dtype_gemm_compute(enum dtype w, enum dtype a)
{
    if (dtype_is_weight_only(w) && w != a)
        return a;
    if (w == a)
        return w;
    return dtype_bits(w) >= dtype_bits(a) ? w : a;
}
