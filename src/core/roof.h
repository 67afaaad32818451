/* The per-operator roofline engine: FLOPs, bytes by kind, intensity, time and bound for every
 * operator of a prefill or decode pass, then the phase summary and the memory footprint.
 * Pure functions over const inputs; results go into caller-provided structs.
 * docs/physics.md#operators explains every count. */
#ifndef ROOFLINE_CORE_ROOF_H
#define ROOFLINE_CORE_ROOF_H

#include "core/dtype.h"
#include "core/hw.h"
#include "core/model.h"

#include <stdbool.h>

enum roof_phase { ROOF_PREFILL, ROOF_DECODE };
enum roof_bound { ROOF_BOUND_COMPUTE, ROOF_BOUND_MEMORY, ROOF_BOUND_OVERHEAD, ROOF_BOUND_LINK };

/* ggml-metal's weight kernels (llama.cpp on Apple GPUs), chosen by the number of columns
 * (tokens) of the activations (docs/physics.md#metal-kernels): one column runs the mat-vec
 * kernel; a few run the small-batch mat-vec family (mul_mv_ext), which reads the weights once
 * per group of columns; more than mm_above run the tiled mat-mat kernel (mul_mm), which pays
 * for whole tiles of mm_tile columns. All zero: not this backend. */
#define ROOF_METAL_EXT_MAX 16
#define ROOF_METAL_OCC_MAX 8 /* points of the core occupancy table */
struct roof_metal {
    double mm_above;     /* more columns than this run mul_mm; 0 = the Metal model is off */
    double mm_tile;      /* mul_mm's tile of columns */
    double mm_tile_rows; /* ... and of weight rows (one threadgroup each, no split of K) */
    /* [c]: the columns mul_mv_ext handles per weight read at c columns; 0 = c columns do not
     * run mul_mv_ext (the plain mat-vec kernel reads the weights once per column) */
    double ext_group[ROOF_METAL_EXT_MAX + 1];
    double ext_kquant_min; /* the K-quant formats run mul_mv_ext only from this many columns */
    /* the routed experts (MUL_MAT_ID): at least this many tokens run mul_mm_id (each touched
     * expert read once, tiles of mm_tile tokens per expert); fewer run mul_mv_id, one mat-vec
     * per (token, expert) pair; 0 = not modelled (the experts read once each) */
    double mm_id_min;
    /* flash attention: fewer queries per sequence than this run the vector kernel
     * (kernel_flash_attn_ext_vec), one threadgroup per query head, each reading its KV head's
     * keys and values itself; 0 = not modelled */
    double fa_vec_below;
    /* ... and streams each KV head's keys and values at this fraction of the device's memory
     * bandwidth (the kernel's own rate, measured: docs/physics.md#metal-kernels); 0 = no such
     * term (the cores' data path alone) */
    double fa_vec_kv_fraction;
    /* a core's arithmetic rate by its resident simdgroups (docs/physics.md#metal-kernels):
     * mul_mm's threadgroup holds mm_simdgroups; a core running n of them at once has
     * n x mm_simdgroups resident and issues at core_cycles[0] / ... cycles per instruction,
     * interpolated in the table (core_simds ascending, core_cycles at each), against the last
     * point's; occ_n 0 (or mm_simdgroups 0): every core at its full rate */
    double mm_simdgroups;
    double core_simds[ROOF_METAL_OCC_MAX], core_cycles[ROOF_METAL_OCC_MAX];
    int occ_n;
};

/* The fraction of a core's full arithmetic rate it reaches with `simds` simdgroups resident:
 * core_cycles at the last point over core_cycles interpolated linearly in core_simds at `simds`
 * (the first point's below it, 1 from the last point on); 1 without a table. */
double roof_metal_core_util(const struct roof_metal *m, double simds);

enum roof_metal_kernel { ROOF_METAL_NONE, ROOF_METAL_MV, ROOF_METAL_MV_EXT, ROOF_METAL_MM };

/* The kernel ggml-metal runs for a weight GEMM of `T` columns of a `w` matrix: the columns
 * whose arithmetic is paid (mul_mm rounds up to its tile) and how many times the weights are
 * read (and dequantized) from memory. T is rounded to whole columns for the choice. With the
 * model off: ROOF_METAL_NONE, T columns, one read. */
struct roof_metal_choice {
    enum roof_metal_kernel kernel;
    double columns;        /* whole columns the choice was made for */
    double group;          /* mul_mv_ext: columns per weight read */
    double paid_columns;   /* columns whose arithmetic is paid */
    double weight_reads;   /* passes over the weights from memory */
    double dequant_passes; /* times each weight is dequantized: once per read, and mul_mm's
                            * threadgroups dequantize their weight tile once per column tile */
};
void roof_metal_choose(const struct roof_metal *m, enum dtype w, double T,
                       struct roof_metal_choice *out);
/* The kernel's name in ggml-metal ("mul_mv", "mul_mv_ext", "mul_mm"; "" when none). */
const char *roof_metal_kernel_name(enum roof_metal_kernel k);

struct roof_tuning;

/* llama.cpp's kernel for the routed experts of one MoE layer (ggml's MUL_MAT_ID; docs/physics.md
 * #moe-kernels): T tokens each on k of E experts, routed uniformly (distinct experts touched:
 * E (1 - (1 - k/E)^T)). ROOF_MOE_READ_ONCE: no engine path modelled, each touched expert read
 * once. */
enum roof_moe_kernel {
    ROOF_MOE_READ_ONCE,
    ROOF_MOE_METAL_MV_ID, /* ggml-metal mul_mv_id: a mat-vec per (token, expert) pair */
    ROOF_MOE_METAL_MM_ID, /* ggml-metal mul_mm_id: per touched expert, tiles of mm_tile tokens */
    ROOF_MOE_MMVQ,        /* ggml-cuda mul_mat_vec_q with ids */
    ROOF_MOE_MMQ          /* ggml-cuda mul_mat_q with ids, column tile from the token count */
};
struct roof_moe_choice {
    enum roof_moe_kernel kernel;
    double distinct;       /* experts touched (uniform routing) */
    double tile;           /* column tile of the tiled kernels (tokens); 0 = none */
    double expert_reads;   /* expert matrices read from memory per GEMM */
    double paid_columns;   /* columns (token-expert pairs) whose arithmetic is paid */
    double dequant_passes; /* expert matrices dequantized per GEMM */
};
void roof_moe_choose(const struct roof_tuning *tu, double E, double k, double T,
                     struct roof_moe_choice *out);
/* Expert parallelism (docs/physics.md#expert-parallelism): the expected largest load of `ep`
 * groups of E / ep experts each, T tokens each routed uniformly to k of E. Touched experts: a
 * group's count is Binomial(E / ep, 1 - (1 - k/E)^T); routed (token, expert) pairs: a group's count
 * taken as Binomial(T k, 1 / ep). The expected maximum of ep independent counts, exact from GSL's
 * binomial CDF while the count's standard deviation is at most 10, else mean + sd x the expected
 * maximum of ep standard normals. ep <= 1: the mean over all devices (E (1 - (1 - k/E)^T) and T k).
 */
double roof_ep_touched_max(double E, double k, double T, int ep);
/* Why an engine whose routed experts run through ggml's MUL_MAT_ID (llama.cpp: an engine profile
 * or tuning with mmq_id_above, or Metal's mm_above) cannot take expert parallelism
 * (roof_config_problem, and a scenario before its tuning is applied) */
#define ROOF_EP_MUL_MAT_ID_PROBLEM                                                                 \
    "expert parallelism is not an option of llama.cpp's MoE kernels (MUL_MAT_ID), which split "    \
    "layers or rows, not experts"
/* Why an engine whose profile says `attn_dp: none` (tuning.no_attn_dp) cannot take
 * data-parallel attention (roof_config_problem; roof_config_problem_named names the engine) */
#define ROOF_ATTN_DP_ENGINE_PROBLEM "the engine has no data-parallel attention"
/* the most data-parallel attention ranks an instance may have (roof_config_problem) */
#define ROOF_ATTN_DP_MAX 64
double roof_ep_pairs_max(double pairs, int ep);
/* The expected maximum of n independent standard normal draws (n >= 1; 0 at n = 1). */
double roof_normal_max_mean(int n);
/* The kernel's name in ggml ("mul_mv_id", "mul_mm_id", "mmvq", "mmq"; "" when none). */
const char *roof_moe_kernel_name(enum roof_moe_kernel k);

/* The kernels of one MoE FFN in llama.cpp's graph (llm_graph_context::build_moe_ffn and the
 * architecture's arguments to it; docs/physics.md#moe-kernels), by part; views and reshapes
 * launch nothing. `add_fuse`: consecutive ADDs the backend runs as one kernel (1 = none). */
struct roof_moe_graph {
    double routing;   /* router GEMM, gating, top-k, get_rows, weight norm and scale */
    double experts;   /* gate, up, activation, down, the experts' bias adds */
    double combine;   /* multiply by the routing weights, the adds of the k experts' outputs */
    double shared;    /* shared-expert FFN and its add to the routed output */
    double total;     /* their sum */
    double uncharged; /* beyond the five operators the layer lists (router, gate, up, act, down) */
};
void roof_moe_graph_kernels(const struct mdl_profile *m, double add_fuse,
                            struct roof_moe_graph *out);

/* vLLM's MXFP4 MoE backend on CUDA (select_mxfp4_moe_backend): FlashInfer's TensorRT-LLM kernels
 * on capability 10.x, triton_kernels from 9.0 up otherwise, Marlin below. True where a device of
 * this capability (the hardware profile's cuda_capability; 0 = not given) takes triton_kernels. */
bool roof_triton_moe_device(double cuda_capability);
/* The MXFP4 MoE launches charged beyond the model's own chain of four (gate, up, activation,
 * down) when an engine runs `launches` per MoE layer through triton_kernels: launches - 4, 0 when
 * fewer or not given (docs/physics.md#moe-kernels). */
double roof_triton_moe_extra(double launches);

/* The launches of Triton's fused MoE charged beyond the model's own gate, up, activation, down
 * (and the sum kernel when `sum_charged`): tu->fused_moe_kernels, plus two activation
 * quantisations of tu->fused_moe_quant_kernels when the GEMMs run in fp8, less those; 0 when
 * the engine does not count them (docs/physics.md#moe-kernels). */
double roof_fused_moe_extra(const struct roof_tuning *tu, bool fp8, bool sum_charged);

/* Departures from the datasheet roofline. The defaults (1, 1, 0) give the pure roofline; later
 * models of kernels and engines set these. */
struct roof_tuning {
    double compute_efficiency; /* achieved fraction of peak FLOP/s, (0, 1] */
    double vector_efficiency;  /* the same for vector-unit work (GEMV, dequant, norms);
                                * 0 = compute_efficiency */
    double memory_efficiency;  /* achieved fraction of peak bandwidth, (0, 1] */
    double kernel_overhead_s;  /* fixed cost per operator instance (launch) */
    /* the cycle-approximate kernel model (docs/physics.md#kernel-model); 0 turns each off */
    double memory_latency_s;        /* time to fill the memory pipe, paid once per kernel */
    double compute_units;           /* SMs / CUs for GEMM wave quantization */
    double step_overhead_s;         /* per forward pass: scheduling, sampling, host work */
    double token_overhead_s;        /* per token sampled in a pass: the host work that grows
                                     * with the batch (scheduling, sampling, output processing) */
    double inflight_bytes_per_unit; /* Little's law: bandwidth <= units x this / latency */
    double dequant_scale;           /* multiplies the dequantization ops per weight (1 = table) */
    bool fp16_accumulate;           /* fp16 GEMMs accumulate in fp16 (full rate on GeForce) */
    bool dequant_buffer;            /* weight-only GEMMs of more than dequant_buffer_above rows
                                     * first convert the weights to an fp16 buffer, then run a
                                     * dense GEMM */
    double dequant_buffer_above;    /* rows up to which the packed weights are read directly
                                     * (GEMV / quantized-GEMM kernels); 0 = one row */
    double ubatch_tokens;           /* prefill runs in micro-batches of this many tokens; 0 */
    /* ggml-cuda's MMQ (docs/physics.md#dgx-spark-gb10): with `mmq`, weight-only GEMMs of more
     * than mmq_above rows run the int8 tensor-core quantized GEMM in output tiles of
     * mmq_tile_rows weight rows x mmq_tile_tokens tokens, each tile streaming its slices of the
     * packed weights and of the q8_1 activations from memory (no fp16 weight buffer) */
    bool mmq;
    double mmq_tile_tokens, mmq_tile_rows, mmq_above;
    /* the routed experts (MUL_MAT_ID) on MMQ: up to mmq_id_above tokens the vector kernel with
     * expert ids (MMVQ), above it MMQ, whose column tile is the least multiple of mmq_tile_step
     * tokens (up to mmq_tile_tokens) that holds the batch's tokens (docs/physics.md#moe-kernels);
     * 0 = the rows rule of mmq_above and full tiles */
    double mmq_id_above, mmq_tile_step;
    /* unfused attention (docs/physics.md#unfused-attention) */
    bool no_flash_attention; /* the engine's default: scores materialised in memory */
    bool no_attn_dp;         /* the engine has no data-parallel attention (its attn_dp: none) */
    /* under data-parallel attention the dense MLP, shared experts and LM head are each rank's,
     * on its own rows (engine profile attn_dp_dense: rank) */
    bool attn_dp_dense_rank;
    double fa_mask_bytes; /* fused prefill attention on CUDA: bytes per KQ-mask element,
                           * read once per head group (docs/physics.md#prefill-attention) */
    double score_bytes;   /* bytes per score element moved by the three unfused kernels
                           * (scores, softmax, probabilities x V) together; 0 = 4 passes of
                           * the activation format */
    /* layer split: micro-batches of one prompt in flight on successive devices at once (the
     * pipeline); 0 or 1 = one after another */
    double pipeline_inflight;
    /* tensor-parallel all-reduces below this many bytes use the engine's own one- or two-stage
     * kernel over a fully connected link instead of NCCL/RCCL's ring (vLLM's custom
     * all-reduce, docs/physics.md#parallelism); 0 = always the ring */
    double custom_allreduce_max_bytes;
    /* the latency of each of the custom all-reduce's two barriers (a flag written to every peer
     * and waited for), seconds, measured on the engine's own kernel; 0 = the link's latency */
    double custom_allreduce_latency_s;
    /* launches of the engine's greedy sampler after the forward pass, on the gathered logits
     * (vLLM V1: cast to fp32, argmax, cast of the ids); with it, at tp > 1, the logits' ring
     * all-gather and its copy into place (docs/physics.md#logits-and-sampler); 0 = none */
    double sampler_kernels;
    /* launches of one MoE layer with MXFP4 experts through triton_kernels' matmul_ogs and
     * routing (vLLM on a device of CUDA capability 9.x, 11.x or 12.x): the model's chain
     * charges its four expert launches, the rest are charged as routing kernels
     * (docs/physics.md#moe-kernels); 0 = not this path */
    double triton_moe_kernels;
    /* the routed experts of a block-scaled FP8 checkpoint through Triton's fused MoE kernel
     * (SGLang on Hopper): their GEMMs run at this fraction of the bf16 rate, the weights stay
     * fp8 (docs/physics.md#moe-kernels); 0 = not this path */
    double moe_block_fp8_vs_bf16;
    /* the routed (and fused shared) experts' outputs are written per (token, expert) pair in
     * 16 bits and summed over each token's pairs by a kernel of their own, a pass over
     * T (k + S) x hidden elements (SGLang's Triton fused MoE on Hopper,
     * docs/physics.md#moe-kernels); false = not charged */
    bool moe_sum_kernel;
    /* the routed experts through vLLM's Marlin MoE (fused_marlin_moe) on a device of CUDA
     * capability 9.x: int4 experts, and MXFP4 ones with mxfp4_marlin, on 16-bit activations. Its
     * arithmetic runs at marlin_moe_vs_peak x the 16-bit datasheet peak (issue-bound: the
     * dequantisation shares the SM's issue slots with the mma.sync instructions) and does not
     * hide the weights' stream: time = bytes / bandwidth + FLOPs / rate; MXFP4 experts (with
     * roof_config.mxfp4_marlin) are padded as vLLM loads them for Marlin (hidden to a multiple of
     * 256, intermediate to 128); marlin_moe_kernels launches a layer (docs/physics.md#moe-kernels);
     * 0 = not this path */
    double marlin_moe_vs_peak, marlin_moe_kernels;
    /* the routed experts through Triton's fused MoE (16-bit or fp8 experts, not Marlin, not
     * MXFP4): fused_moe_kernels launches a MoE layer besides the router GEMM, and
     * fused_moe_quant_kernels more before each of its two GEMMs when they run in fp8 (the
     * activations' quantisation); charged beyond the layer's own gate, up, activation, down and
     * sum (roof_fused_moe_extra, docs/physics.md#moe-kernels); 0 = not modelled */
    double fused_moe_kernels, fused_moe_quant_kernels;
    /* static shapes: a decode step's attention runs over the KV cache padded to the next
     * multiple of this many tokens (optimum-habana's --bucket_size); 0 = the exact length */
    double kv_bucket_tokens;
    /* the least time of one weight GEMM kernel, before its launch cost (the device's
     * gemm_floor, docs/physics.md#a-devices-own-gemm-fraction); 0 = none */
    double gemm_floor_s;
    /* the most a weight GEMM streams, bytes/s (the device's gemm_bandwidth); 0 = no cap */
    double gemm_bandwidth_bytes_per_s;
    /* llama.cpp's Metal backend: its weight kernels by columns (all zero: not this backend) */
    struct roof_metal metal;
};

struct roof_config {
    const struct hw_profile *hw;
    const struct mdl_profile *model;
    enum roof_phase phase;
    double batch;        /* sequences */
    double prompt;       /* prefill: prompt tokens per sequence */
    double context;      /* decode: tokens already in the KV cache per sequence */
    double prefill_past; /* prefill: tokens already in each sequence's KV cache before the
                          * prompt (a prompt after a filled cache, llama-bench pp N @ dD); 0 */
    enum dtype weights, act, kv;
    bool flash_attention;       /* true: the score matrix stays on chip, unless the engine's kernels
                                 * have no fused attention (roof_flash_attention) */
    bool flash_attention_asked; /* fused even where the engine's default is not (--flash on) */
    double reserve_bytes;       /* engine reserve (runtime context, workspace) */
    int tp;                     /* tensor-parallel degree (1 = one device) */
    int pp;                     /* pipeline-parallel stages (1 = none) */
    /* expert parallelism inside the tensor-parallel group: the routed experts are dealt whole
     * to `ep` groups of tp / ep devices each, every expert split tp / ep ways within its group
     * (SGLang --ep-size, vLLM --enable-expert-parallel, TensorRT-LLM moe_expert_parallel_size);
     * 0 or 1: every expert split tp ways like any other matrix (docs/physics.md#expert-parallelism)
     */
    int ep;
    /* data-parallel attention inside the tensor-parallel group: the tp devices form attn_dp
     * ranks of tp / attn_dp devices, each running the attention of its own share of the
     * sequences (its own KV cache) with the attention heads split tp / attn_dp ways; the MLP and
     * the experts run on every rank's tokens as under tp (SGLang --enable-dp-attention --dp,
     * TensorRT-LLM enable_attention_dp, vLLM --data-parallel-size with --enable-expert-parallel);
     * 0 or 1: none (docs/physics.md#data-parallel-attention) */
    int attn_dp;
    int gpus;              /* devices in all; replicas = gpus / (tp x pp); 0 = tp x pp */
    double link_latency_s; /* per ring step / per send; < 0 = default for the link kind */
    /* the deployment's choice, not the engine's calibration (a re-tuned config keeps it): MXFP4
     * experts run vLLM's Marlin MoE (VLLM_MXFP4_USE_MARLIN=1; scenario and question
     * kernels.moe, --moe-kernel), where the tuning has a Marlin rate (roof_moe_marlin) */
    bool mxfp4_marlin;
    struct roof_tuning tuning;
};

enum roof_op {
    ROOF_OP_EMBEDDING,
    ROOF_OP_ATTN_NORM,
    ROOF_OP_QKV,
    ROOF_OP_ATTN_SCORE,
    ROOF_OP_SOFTMAX,
    ROOF_OP_ATTN_AV,
    ROOF_OP_LINEAR_ATTN, /* a linear-attention layer's convolution, recurrence and gated norm */
    ROOF_OP_O_PROJ,
    ROOF_OP_ATTN_RESIDUAL,
    ROOF_OP_MLP_NORM,
    ROOF_OP_ROUTER,
    ROOF_OP_MLP_GATE,
    ROOF_OP_MLP_UP,
    ROOF_OP_MLP_ACT,
    ROOF_OP_MLP_DOWN,
    ROOF_OP_MOE_SUM, /* the routed experts' outputs summed per token (moe_sum_kernel) */
    ROOF_OP_MLP_RESIDUAL,
    ROOF_OP_FINAL_NORM,
    ROOF_OP_LM_HEAD,
    ROOF_OP_ALLREDUCE, /* tensor parallel: two ring all-reduces per layer */
    ROOF_OP_PP_SEND,   /* pipeline parallel: activations to the next stage */
    ROOF_OP_STEP,      /* the engine's fixed cost per forward pass */
    ROOF_OP_COUNT
};

struct roof_op_result {
    bool present;
    bool is_matmul;   /* runs on the matrix units */
    double instances; /* kernel instances summed (layers) */
    double flops;
    double bytes_weights, bytes_act_in, bytes_act_out, bytes_kv_read, bytes_kv_write;
    double dequant_flops; /* weight-only formats: dequantization work on the vector units */
    double link_bytes;    /* bytes over the interconnect (all-reduce, pipeline sends) */
    double compute_time_s, memory_time_s, link_time_s, time_s;
    double last_compute_s, last_memory_s; /* of the last instance added (internal) */
    enum dtype roof_dtype;                /* the compute roof that applied */
    double peak_flops_per_s;
};

struct roof_memory {
    double weights_bytes, kv_bytes, act_bytes, reserve_bytes, total_bytes, capacity_bytes;
    double kv_bytes_per_token;
    double state_bytes; /* of kv_bytes, the linear-attention layers' fixed state a sequence */
    bool fits;
};

struct roof_result {
    struct roof_config cfg;
    struct roof_op_result ops[ROOF_OP_COUNT];
    double tokens; /* tokens processed by the pass */
    double flops, bytes, bytes_weights, bytes_kv, bytes_act;
    double time_s;
    double compute_time_s, memory_time_s; /* sums over operators of each term */
    double time_in_compute_bound_s, time_in_memory_bound_s, time_in_overhead_s;
    double link_time_s, time_in_link_bound_s;
    /* parallelism: devices per replica, replicas, pipeline microbatches and idle fraction */
    int devices, replicas;
    double microbatches, pp_bubble_fraction;
    double tokens_per_s_all_replicas;
    enum roof_bound bound;
    enum dtype gemm_dtype; /* roof used by the weight GEMMs */
    double gemm_peak_flops_per_s;
    double compute_utilisation; /* flops / (gemm peak x time) */
    /* prefill: ttft_s = time_s; decode: itl_s = time_s */
    double ttft_s, itl_s;
    double tokens_per_s_per_seq, tokens_per_s_total;
    struct roof_memory mem;
};

/* Default engine reserve as a fraction of device memory: vLLM leaves 1 - gpu_memory_utilization
 * (default 0.9) for the CUDA context, NCCL buffers and fragmentation. */
#define ROOF_DEFAULT_RESERVE_FRACTION 0.10

void roof_config_init(struct roof_config *cfg, const struct hw_profile *hw,
                      const struct mdl_profile *m, enum roof_phase phase);
/* True when `cfg`'s routed experts run vLLM's Marlin MoE: a model with experts, the tuning's
 * marlin_moe_vs_peak, experts in int4, or in MXFP4 with cfg->mxfp4_marlin, 16-bit activations. */
bool roof_moe_marlin(const struct roof_config *cfg);
/* The formats the Marlin choice (roof_config.mxfp4_marlin) changes: model `m` has experts, they
 * are MXFP4 in `weights`, and the activations `act` are 16-bit. */
bool roof_mxfp4_marlin_format(const struct mdl_profile *m, enum dtype weights, enum dtype act);
/* The expert shapes Marlin runs for format `we`: MXFP4 hidden h padded to a multiple of 256 and
 * intermediate I (per device) to 128, as vLLM's Mxfp4MoEMethod.create_weights allocates them for
 * its Marlin backend; other formats unchanged. */
void roof_marlin_dims(enum dtype we, double h, double I, double *hp, double *Ip);
/* The expert shapes `cfg`'s engine stores for its experts' format (hidden h, intermediate I per
 * device):
 * Marlin's (roof_marlin_dims) where its experts take Marlin, else on vLLM's triton_kernels path
 * for MXFP4 experts (roof_tuning.triton_moe_kernels) the intermediate padded to a multiple of 64
 * (Mxfp4MoEMethod.create_weights: round_up(intermediate_size_per_partition, 64)); else unchanged.
 */
void roof_moe_dims(const struct roof_config *cfg, double h, double I, double *hp, double *Ip);
/* Default activation / KV formats for a weight format: bf16 -> bf16, fp32 -> fp32, fp8 -> fp8
 * activations with bf16 KV... (docs/physics.md#data-types). */
enum dtype roof_default_act(enum dtype weights);
enum dtype roof_default_kv(enum dtype weights);

/* Evaluate one pass of `cfg->batch` identical sequences (prefill of `prompt` tokens, or a decode
 * step after `context` cached tokens). Returns 0, or -1 when the configuration is impossible
 * (batch < 1, ...). Fills the phase summary (TTFT/ITL, tokens/s) and the memory footprint. */
int roof_evaluate(const struct roof_config *cfg, struct roof_result *out);

/* A group of `count` identical sequences in one engine iteration: each processes `new_tokens`
 * after `past_tokens` already cached (decode: new = 1; a prefill chunk: new = chunk length);
 * `logits` when the iteration samples a token for them (decode, the last chunk of a prompt). */
struct roof_seq {
    double count, new_tokens, past_tokens;
    bool logits;
};

/* One engine iteration over a mixed batch (continuous batching, chunked prefill): the per-
 * operator costs of all sequences together. `cfg->phase`, `batch`, `prompt` and `context` are
 * ignored except that the phase selects the MLA form (prefill: naive, decode: absorbed). Fills
 * ops, totals and bound; not the per-phase rates nor the memory footprint. Cost is
 * O(n_seqs + layer classes). Returns 0, or -1 on an empty or invalid batch. */
int roof_step(const struct roof_config *cfg, const struct roof_seq *seqs, int n_seqs,
              struct roof_result *out);
/* roof_step restricted to the operators whose bit (1ul << op) is set in `ops`: the others are
 * neither evaluated nor counted in the totals. The attention operators are the only ones that
 * depend on the past tokens, so a caller that steps the same batch size again and again (the
 * simulator) evaluates the rest once: roof_step = the sum of the two restricted passes (up to
 * rounding). */
#define ROOF_OPS_ALL ((1ul << ROOF_OP_COUNT) - 1ul)
#define ROOF_OPS_ATTENTION                                                                         \
    ((1ul << ROOF_OP_ATTN_SCORE) | (1ul << ROOF_OP_SOFTMAX) | (1ul << ROOF_OP_ATTN_AV))
int roof_step_ops(const struct roof_config *cfg, const struct roof_seq *seqs, int n_seqs,
                  unsigned long ops, struct roof_result *out);
/* roof_step_ops' time_s alone, bit for bit, into *time_s (-1 on failure), for callers that
 * evaluate millions of steps (the simulator, the analytic estimate): of `scratch` only the
 * requested operators' times and time_s are written (its other fields mean nothing after), so
 * it costs less. */
int roof_step_time(const struct roof_config *cfg, const struct roof_seq *seqs, int n_seqs,
                   unsigned long ops, struct roof_result *scratch, double *time_s);
/* One engine pass of the sequences `seq` (one group) through the instance of `cfg` (tp x pp
 * devices), the pass roof_evaluate times: a prompt in the engine's micro-batches
 * (tuning.ubatch_tokens), kept in flight on successive devices where the engine pipelines them
 * (tuning.pipeline_inflight), the all-reduces, the stage-to-stage sends, and, for a single
 * micro-batch (`m` <= 1) through pp > 1 stages, the work one stage does for all (embedding,
 * final norm, LM head, host step) paid once (docs/physics.md#parallelism). `sc` is cfg's
 * one-device view (roof_shard_view); `m` the microbatches the batch is split into (seq->count
 * is one microbatch's). Fills out's operators, totals, bound and time_s; returns 0 or -1. */
int roof_pass(const struct roof_config *cfg, const struct roof_config *sc,
              const struct roof_seq *seq, double m, struct roof_result *out);
/* One device's share of cfg's model: heads, KV heads, MLP columns and vocabulary split tp ways,
 * layers pp ways, into *shard, and *out = cfg with its model pointing at *shard. */
void roof_shard_view(const struct roof_config *cfg, struct mdl_profile *shard,
                     struct roof_config *out);
/* Memory footprint only (cheap). */
void roof_memory(const struct roof_config *cfg, struct roof_memory *out);
const char *roof_op_name(enum roof_op op);
/* Wave-quantized compute time of an M x N x K GEMM at `peak` on `units` compute units with
 * output tiles of tile_m(M) x 128 (docs/physics.md#kernel-model); the ideal 2MNK/peak when
 * units is 0; a one-row GEMM (GEMV) runs on the vector units at `vec_peak`. */
/* A GEMM of M x N outputs over K in fixed tiles of tm x tn, K never split (ggml-metal's
 * mul_mm): the busiest unit runs n = ceil(ceil(M / tm) ceil(N / tn) / units) tiles, each
 * 2 tm tn K FLOPs at peak / units, at the rate roof_metal_core_util gives for n threadgroups
 * of occ->mm_simdgroups resident together (occ NULL: the full rate). */
double roof_gemm_fixed_tiles_s(double M, double N, double K, double peak, double units, double tm,
                               double tn, const struct roof_metal *occ);
double roof_gemm_compute_s(double M, double N, double K, double peak, double units,
                           double vec_peak);
/* The same without the per-thread memo roof_gemm_compute_s keeps (the very same double; for
 * tests). */
double roof_gemm_compute_direct_s(double M, double N, double K, double peak, double units,
                                  double vec_peak);
/* Fused decode attention (PagedAttention / FlashDecoding) under the kernel model: one CTA per
 * sequence, KV head and 512-token partition; each takes the larger of its slice's bytes over
 * its compute unit's share of the bandwidth and ROOF_ATTN_ROUND_TRIPS dependent memory
 * latencies; the CTAs run in waves over the units (docs/physics.md#kernel-model). Returns the
 * memory-side time in seconds (without the launch), or -1 when the kernel model is off. */
#define ROOF_ATTN_ROUND_TRIPS 8.0
#define ROOF_ATTN_PARTITION 512.0
/* g micro-batches of per-device times summing to sum_s (longest max_s) through `stages`
 * pipelined devices: sum_s + (stages - 1) x max_s (docs/physics.md#parallelism). */
double roof_pipeline_group_s(double sum_s, double max_s, int stages);
double roof_attn_decode_s(const struct hw_profile *hw, const struct roof_tuning *tu, double seqs,
                          double kv_heads, double tokens_per_seq, double bytes_per_token_head);
/* The memory side of `ctas` CTAs each reading `slice_bytes`, one per compute unit at a time at its
 * share of the tuned bandwidth, at least ROOF_ATTN_ROUND_TRIPS memory latencies each: waves x the
 * CTA's time, waves = ctas / units (at least 1) or, with whole_waves, rounded up (a last partial
 * wave costs a full one); -1 when the kernel model is off. roof_attn_decode_s's and
 * calib_fa2_decode_s's common part. */
double roof_attn_waves_s(const struct hw_profile *hw, const struct roof_tuning *tu, double ctas,
                         double slice_bytes, bool whole_waves);
/* ggml-metal's decode flash attention (kernel_flash_attn_ext_vec, docs/physics.md#metal-kernels):
 * one threadgroup per query head (and KV split), so a grouped-query cache crosses each core's
 * data path once per query head: seqs x q_heads x tokens_per_seq x bytes_per_token_head over
 * the GPU's L2 bandwidth (hw cache_bandwidth.l2); and the kernel streams the cache itself, each
 * KV head's keys and values once, at tu->metal.fa_vec_kv_fraction of the device's memory
 * bandwidth (seqs x kv_heads x tokens_per_seq x bytes_per_token_head over it, where the fraction
 * is set): the larger of the two. -1 when it does not apply: no tu->metal.fa_vec_below,
 * queries_per_seq not below it, a head size that is no multiple of 32 (the vector kernel's
 * condition), or no L2 bandwidth in the profile. */
double roof_metal_fa_vec_s(const struct hw_profile *hw, const struct roof_tuning *tu, double seqs,
                           double queries_per_seq, double q_heads, double kv_heads, double head_dim,
                           double tokens_per_seq, double bytes_per_token_head);
/* The peak and the bandwidth a tuned kernel achieves: efficiencies, the fp16-accumulate rate
 * where the engine uses it, and the bytes-in-flight (Little's law) cap. */
double roof_tuned_peak(const struct hw_profile *hw, const struct roof_tuning *tu, enum dtype dt,
                       enum dtype *used);
double roof_tuned_bandwidth(const struct hw_profile *hw, const struct roof_tuning *tu, double bw);
/* A weight GEMM on a device with its own measured kernels
 * (docs/physics.md#a-devices-own-gemm-fraction): it streams at no more than
 * tu->gemm_bandwidth_bytes_per_s (roof_weight_gemm_bw of the tuned bandwidth `bw`) and takes at
 * least tu->gemm_floor_s before its launch (roof_weight_gemm_time of the roofline time `t`); both
 * leave other kernels alone. */
double roof_weight_gemm_bw(const struct roof_tuning *tu, double bw);
double roof_weight_gemm_time(const struct roof_tuning *tu, double t);
/* Dequantization work per weight for a weight format computed in `compute` (0 when none). */
double roof_dequant_ops_per_weight(enum dtype weights, enum dtype compute);

/* ggml-cuda's MMQ (docs/physics.md#dgx-spark-gb10): bytes one weight-only GEMM of `rows` rows x
 * (k -> n) moves when its output is cut into tiles of tile_rows x tile_tokens. `experts` > 1:
 * the rows are spread evenly over that many experts (weight_bytes is all of theirs), each with
 * its own column tiles. *weights_read = weight_bytes x the column tiles of one expert (at least
 * one); *act_read = the activations in `act` bytes and written as q8_1 once, then the q8_1 read
 * once per row tile. Returns the column tiles. */
#define ROOF_MMQ_Q8_1_BYTES (144.0 / 128.0) /* block_q8_1_mmq: 128 int8 + 4 half2 */
double roof_mmq_bytes(double rows, double n, double k, double weight_bytes, double experts,
                      double act, double tile_tokens, double tile_rows, double *weights_read,
                      double *act_read);
/* Bytes an element of the residual stream takes between devices (the tensor-parallel
 * all-reduce, the pipeline send): the activation format, but at least the 16-bit model dtype,
 * since a GEMM with 8-bit (or narrower) activations returns its output in the input's dtype
 * (vLLM Fp8LinearOp.apply: out_dtype = input.dtype; RowParallelLinear.forward all-reduces that
 * output). */
double roof_hidden_bytes(enum dtype act);
/* Ring all-reduce of `bytes` over `n` devices: 2 (n-1)/n x bytes / bandwidth + 2 (n-1) latency. */
double roof_allreduce_time_s(double bytes, int n, double bw_per_direction, double latency_s);
/* vLLM's custom all-reduce (csrc/custom_all_reduce.cuh) of `bytes` over `n` fully connected
 * devices: one stage (every device reads the n-1 peers' whole buffers and adds them:
 * (n-1) x bytes / bandwidth) for n = 2, or below 512 KiB at n <= 4 and 256 KiB at n <= 8; else
 * two (reduce-scatter then all-gather: 2 (n-1)/n x bytes / bandwidth); either way two barriers
 * of one link latency each. */
double roof_allreduce_custom_s(double bytes, int n, double bw_per_direction, double latency_s);
/* The all-reduce the tuned engine runs: its custom kernel when the message is below
 * tu->custom_allreduce_max_bytes, n is 2, 4, 6 or 8 and the link is not PCIe (a full NVLink /
 * xGMI mesh), each barrier at tu->custom_allreduce_latency_s when set (else latency_s); else the
 * ring. */
double roof_allreduce_engine_s(const struct hw_profile *hw, const struct roof_tuning *tu,
                               double bytes, int n, double bw_per_direction, double latency_s);
/* NCCL's ring all-gather of the logits, `rows` x `vocab_shard` elements of `elem_bytes` from
 * each of `n` devices: (n - 1) x rows x vocab_shard x elem_bytes / bandwidth + (n - 1) x latency;
 * 0 at n <= 1. */
double roof_logits_gather_s(double rows, double vocab_shard, double elem_bytes, int n,
                            double bw_per_direction, double latency_s);
/* Data-parallel attention's collectives in one layer (docs/physics.md#data-parallel-attention):
 * the all-gather of every rank's rows padded to the busiest rank's `rank_rows` before the MLP
 * and the reduce-scatter after it, and, where a rank has several devices, the all-reduce of its
 * attention's output among them. Seconds; *bytes = the padded rows' bytes. */
double roof_attn_dp_links_s(const struct roof_config *cfg, double rank_rows, double *bytes);
/* Whether the dense MLP, the shared experts and the LM head are each rank's under data-parallel
 * attention (attn_dp > 1 and the engine's attn_dp_dense: rank; vLLM, TensorRT-LLM): split over
 * the rank's tp / attn_dp devices and run on its own rows, the routed experts alone over all tp
 * on every rank's rows (docs/physics.md#data-parallel-attention). */
bool roof_attn_dp_dense_rank(const struct roof_config *cfg);
/* The layers of `cfg`'s model (a shard) that gather nothing under data-parallel attention: its
 * dense-MLP layers when roof_attn_dp_dense_rank, else 0. */
long roof_attn_dp_dense_layers(const struct roof_config *cfg);
/* One such layer's collectives: a rank of several devices all-reduces its attention's output
 * and its MLP's among them (0 for a rank of one device). Seconds; *bytes = one all-reduce's. */
double roof_attn_dp_dense_links_s(const struct roof_config *cfg, double rank_rows, double *bytes);
/* The rows of the busiest data-parallel attention rank in a step of these sequences (all of
 * them without data-parallel attention), as roof_step deals them. */
double roof_attn_busiest_rows(const struct roof_config *cfg, const struct roof_seq *seqs, int n);
/* Default per-step latency of a link kind (docs/physics.md#parallelism). */
double roof_link_latency_default_s(const struct hw_profile *hw);
/* The per-step link latency a configuration runs with: its own (cfg->link_latency_s >= 0), else
 * the default of its device's link kind. */
double roof_link_latency_s(const struct roof_config *cfg);
/* Why a configuration cannot be evaluated (static text), or NULL. */
const char *roof_config_problem(const struct roof_config *cfg);
/* roof_config_problem in `buf` with the engine named where the engine is the problem (`engine`
 * may be NULL); NULL when there is none. */
const char *roof_config_problem_named(const struct roof_config *cfg, const char *engine, char *buf,
                                      size_t n);
/* The parallelism a configuration adds inside its tensor-parallel group, for a label after
 * its tp: ", EP 8, attention DP 8" (upper) or ", ep 8, attention dp 8"; "" for none. Returns buf.
 */
const char *roof_parallel_extras(const struct roof_config *cfg, bool upper, char *buf, size_t n);
/* The same from the degrees (a plan option's: no roof_config) */
const char *roof_parallel_words(int ep, int attn_dp, bool upper, char *buf, size_t n);
/* Whether attention runs fused (FlashAttention: the scores stay on chip): the config asks for it
 * and either the engine's tuning does not say its default kernels are unfused (an engine
 * profile's `flash_attention: false`, llama.cpp's) or the user asked for fused attention
 * (flash_attention_asked, `--flash on`). Every path that costs a step or its memory asks this,
 * so an engine's tuning brings its attention wherever it is copied.
 * docs/physics.md#unfused-attention */
bool roof_flash_attention(const struct roof_config *cfg);
/* query heads per ggml-cuda fused-attention CTA: 8, 4, 2 or 1, the largest dividing the GQA ratio
 */
double roof_fa_head_group(double heads, double kv_heads);
const char *roof_bound_name(enum roof_bound b);
const char *roof_phase_name(enum roof_phase p);
double roof_op_bytes(const struct roof_op_result *r);
/* FLOP per byte; 0 when no bytes move. */
double roof_op_intensity(const struct roof_op_result *r);
/* Attainable FLOP/s at intensity `ai` under `peak` and `bandwidth`: min(peak, bw x ai). */
double roof_attainable(double peak_flops_per_s, double bandwidth_bytes_per_s, double ai);

/* Largest whole batch whose memory fits at the config's phase and lengths; 0 if none. */
long roof_max_batch(const struct roof_config *cfg);

/* Solvers (GSL Brent root finding; see core/solve.c). Each returns 0 and sets *out, 1 when the
 * crossing is outside the searched range (with *out at the nearest end), -1 on failure. */
/* Iteration cap of roof_solve_brent (Brent converges superlinearly: ~50 is already generous). */
#define ROOF_SOLVE_MAX_ITER 200
/* Root of an increasing f on [lo, hi] with GSL's Brent method (at most ROOF_SOLVE_MAX_ITER
 * iterations, relative tolerance tol_rel): 0 and *out; 1 with *out at lo when f(lo) >= 0 or at hi
 * when f(hi) < 0; -1 on a non-finite f or a solver failure. */
int roof_solve_brent(double (*f)(double, void *), void *params, double lo, double hi,
                     double tol_rel, double *out);
/* Decode batch at which the weight GEMMs' compute time equals their memory time. */
int roof_critical_batch(const struct roof_config *cfg, double *out);
/* Prompt length at which a prefill pass's total compute time equals its memory time. */
int roof_prefill_crossover(const struct roof_config *cfg, double *out);

/* A nominal dense model of `params` weights (the seeds' back-of-envelope): bytes = params x
 * bytes/weight, FLOPs = 2 x params x tokens. */
struct roof_nominal {
    double params, weight_bytes, tokens, flops;
    double memory_time_s, compute_time_s, time_s;
    double peak_flops_per_s, bandwidth_bytes_per_s;
    enum dtype roof_dtype;
    double intensity, ridge, utilisation, tokens_per_s;
    enum roof_bound bound;
};
void roof_nominal(const struct hw_profile *hw, double params, enum dtype weights, enum dtype act,
                  double tokens, struct roof_nominal *out);

#endif
