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
    [DT_FP4] = {"fp4", 4},
    [DT_INT4] = {"int4", 4},
    [DT_Q8_0] = {"q8_0", 8.5},
    [DT_Q4_0] = {"q4_0", 4.5},
    [DT_Q4_1] = {"q4_1", 5.0},
    [DT_Q4_K_M] = {"q4_k_m", 4.85},
    [DT_MXFP4] = {"mxfp4", 4.25},
    [DT_MXFP4_MOE] = {"mxfp4_moe", 4.25},
    [DT_MXFP4_MOE_BF16] = {"mxfp4_moe_bf16", 4.25},
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
     {[DT_PART_EXPERTS] = DT_MXFP4, [DT_PART_ROUTER] = DT_FP32, [DT_PART_OTHER] = DT_Q8_0}},
    {DT_MXFP4_MOE_BF16,
     {[DT_PART_EXPERTS] = DT_MXFP4, [DT_PART_ROUTER] = DT_BF16, [DT_PART_OTHER] = DT_BF16}},
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
