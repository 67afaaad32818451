/* Numeric formats: storage size of weights, activations and KV cache, and which compute roof a
 * matrix multiply uses. See docs/physics.md#data-types. */
#ifndef ROOFLINE_CORE_DTYPE_H
#define ROOFLINE_CORE_DTYPE_H

#include <stdbool.h>
#include <stddef.h>

enum dtype {
    DT_FP64,
    DT_FP32,
    DT_TF32,
    DT_FP16,
    DT_BF16,
    DT_FP8,
    DT_INT8,
    DT_FP4,
    DT_INT4,
    DT_Q8_0,   /* GGUF: 32 int8 + one fp16 scale per block: 8.5 bits/weight */
    DT_Q4_0,   /* GGUF: 32 4-bit + fp16 scale: 4.5 bits/weight */
    DT_Q4_1,   /* GGUF: 32 4-bit + fp16 scale + fp16 min: 5.0 bits/weight */
    DT_Q4_K_M, /* GGUF k-quant mix, about 4.85 bits/weight on Llama-class models */
    DT_MXFP4,  /* OCP microscaling FP4 (ggml block_mxfp4): 32 E2M1 + one E8M0 scale per block:
                * 4.25 bits/weight */
    /* a mix: each tensor class has its own format (dtype_part_format) */
    DT_MXFP4_MOE,       /* GGUF MXFP4_MOE: routed experts mxfp4, router fp32, all else q8_0 */
    DT_MXFP4_MOE_BF16,  /* gpt-oss's own checkpoint: routed experts mxfp4, all else bf16 */
    DT_NVFP4_ATTN_BF16, /* NVIDIA ModelOpt NVFP4 DeepSeek checkpoint (R1-0528-FP4): every linear
                         * layer fp4 but self_attn, router, embedding and lm_head (bf16) */
    DT_NVFP4_QKV_BF16,  /* its v2 (R1-0528-FP4-v2): o_proj fp4 too, the q/kv projections bf16 */
    DT_COUNT
};

/* Formats a device can have a compute roof for (hardware profile `compute:` keys). */
#define DT_ROOF_FIRST DT_FP64
#define DT_ROOF_LAST DT_INT4

const char *dtype_name(enum dtype dt);
/* The formats a user may name, for an "unknown format" message: every storage format but fp64
 * and tf32, then the mixes ("...; for weights also mxfp4_moe, ...") unless `weights` is false.
 * Writes at most `n` bytes (NUL included) to `buf` and returns it. */
char *dtype_list(char *buf, size_t n, bool weights);
/* Parse a name ("fp16", "bf16", "q4_k_m", also "float16", "bfloat16", "f16", "float32");
 * returns -1 when unknown. */
int dtype_parse(const char *name, enum dtype *out);
/* Storage bits per element (8.5 for q8_0); for a mix, its routed experts' (the bulk of a
 * mixture of experts: mdl_weight_bytes counts each part at its own width). */
double dtype_bits(enum dtype dt);
double dtype_bytes(enum dtype dt);
/* True for a format that has a compute roof of its own (not a GGUF storage format, not tf32
 * as a storage format). */
bool dtype_is_roof(enum dtype dt);
/* The tensor classes a weight format may store at different widths (a quant mix): the routed
 * experts' FFN matrices, the MoE router, the attention input projections (q, k, v; MLA's q_a,
 * q_b, kv_a, kv_b), the attention output projection (o_proj), the embedding and LM head, and
 * every other matrix (dense and shared-expert FFN). docs/physics.md#moe-and-gguf-mixed-precision */
enum dtype_part {
    DT_PART_EXPERTS,
    DT_PART_ROUTER,
    DT_PART_OTHER,
    DT_PART_ATTN_QKV,
    DT_PART_ATTN_O,
    DT_PART_HEAD,
    DT_PART_COUNT
};
/* True for a format that stores tensor classes at different widths (DT_MXFP4_MOE, ...). */
bool dtype_is_mix(enum dtype dt);
/* The storage format of part `p` under weight format `w`: `w` itself for a uniform format, the
 * mix's own choice for a mix (never a mix). */
enum dtype dtype_part_format(enum dtype w, enum dtype_part p);
/* True for formats that only store weights: they are dequantized to the activation type before
 * the multiply (weight-only quantization): int4, fp4, q8_0, q4_0, q4_1, q4_k_m, mxfp4 and the
 * mixes of these. */
bool dtype_is_weight_only(enum dtype dt);
/* The arithmetic format of a GEMM with weights `w` and activations `a`:
 * - weight-only formats are dequantized: the roof is the activation type's;
 * - equal formats use their own roof (int8 x int8 -> int8, fp8 x fp8 -> fp8);
 * - otherwise the wider of the two (fp8 weights with fp16 activations -> fp16). */
enum dtype dtype_gemm_compute(enum dtype w, enum dtype a);

#endif
