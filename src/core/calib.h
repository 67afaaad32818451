/* Calibration: device classes with their achievable fractions of the datasheet, engine
 * profiles with their fixed costs, and the prediction of one published measurement (a decode,
 * prefill or end-to-end run, or one kernel) with them. docs/physics.md#kernel-model. */
#ifndef ROOFLINE_CORE_CALIB_H
#define ROOFLINE_CORE_CALIB_H

#include "core/roof.h"

enum dev_class { DEV_DC_GPU, DEV_CONSUMER_GPU, DEV_SOC, DEV_ACCEL, DEV_CPU, DEV_CLASS_COUNT };

/* Physical parameters of a device class (the defaults are docs/physics.md's table). */
struct dev_params {
    double memory_efficiency;  /* achievable fraction of datasheet bandwidth (streaming) */
    double compute_efficiency; /* achievable fraction of dense peak (large GEMMs) */
    double memory_latency_s;   /* memory-pipe fill per kernel */
    double compute_units;      /* default when the profile has none */
};

/* How an engine serves (docs/simulate.md#engines): its scheduler's defaults and the memory it
 * keeps off the KV cache. Zero / empty = not given (the simulator's defaults apply). */
struct engine_serving {
    char admission[16]; /* "vllm", "no_evict", "greedy" or "sglang" (sim_admission names) */
    long max_batch;     /* sequences per step */
    long max_tokens_per_step;
    double small_memory_bytes; /* devices with less memory use the two values below */
    long max_batch_small, max_tokens_per_step_small;
    long max_prefill_tokens; /* sglang admission: prompt tokens per prefill batch */
    double reserve_fraction; /* of device memory kept off weights and KV; < 0 = not given */
    double reserve_bytes;    /* a fixed reserve per device (added to the fraction) */
    double kv_fraction;      /* of what weights and reserve leave, given to the KV pool */
    bool compute_buffers;    /* the reserve is llama.cpp's compute buffers (engine_reserve) */
    bool separate_prefill;   /* a step with prompt work carries no decodes (SGLang's default) */
    bool async_scheduling;   /* plans step k + 1 while step k runs (vLLM's default since 0.14) */
    /* prompt passes not replayed as a CUDA graph (docs/simulate.md#eager-prefill): "none" (the
     * whole forward eager), "piecewise" (attention eager), "full" or empty (graphed), and the
     * host's time per launch the model counts in an eager part */
    char prefill_graph[16];
    double eager_launch_s;
    /* the server's tokenisation of a text prompt before it reaches the scheduler
     * (docs/simulate.md#tokenisation): time per prompt token (0 = not modelled), and whether
     * one tokenizer per instance takes the prompts one after another */
    double tokenize_per_token_s;
    bool tokenize_serial;
    /* a sliding-window layer keeps KV blocks for its window only (vLLM's hybrid KV cache
     * manager, docs/simulate.md#sliding-window-layers-in-the-kv-pool) */
    bool kv_window_blocks;
    /* a model with linear-attention layers gets KV blocks of a multiple of this many tokens
     * whose page holds one layer's state (vLLM's hybrid allocator,
     * docs/simulate.md#linear-attention-state-in-the-pool); 0 = the scheduler's block size */
    long hybrid_block_align;
    /* data-parallel attention (docs/physics.md#data-parallel-attention): "none" (the engine has
     * none), "total" (its batch and token limits are the instance's, divided among the ranks:
     * SGLang) or "per_rank" (each rank's: vLLM's --max-num-seqs, TensorRT-LLM's
     * max_batch_size); "" = not given, read as "total" */
    char attn_dp[16];
};

/* Engine profile: what a serving engine adds to the kernels (engine_profiles/<name>.yaml). */
struct engine_profile {
    char *name, *path;
    double kernel_overhead_s;       /* per kernel: launch and synchronisation */
    double step_overhead_s;         /* per forward pass: scheduling, sampling, host work */
    double token_overhead_s;        /* per token sampled in a pass: host work per sequence */
    double memory_efficiency;       /* multiplies the device's: the engine's kernels vs the best */
    double compute_efficiency;      /* multiplies the device's */
    double inflight_bytes_per_unit; /* bytes its kernels keep in flight per compute unit; 0 */
    double dequant_scale;           /* dequantization work vs the minimal count (1 = minimal) */
    bool fp16_accumulate;           /* its fp16 GEMMs accumulate in fp16 */
    bool dequant_buffer;            /* weight-only GEMMs convert the weights to fp16 first */
    double dequant_buffer_above;    /* ... only above this many rows (0: above one row) */
    double ubatch_tokens;           /* prefill micro-batch; 0 = the whole prompt in one pass */
    /* ggml-cuda's MMQ tiles (tokens x weight rows) and the rows up to which its vector kernel
     * (MMVQ) runs instead; used by a run that says `quantized_gemm: mmq`; 0 = none */
    double mmq_tile_tokens, mmq_tile_rows, mmq_above;
    /* MUL_MAT_ID on MMQ: the tokens up to which MMVQ with ids runs, and MMQ's column-tile step */
    double mmq_id_above, mmq_tile_step;
    bool no_flash_attention; /* attention unfused by default (flash_attention: false) */
    /* under data-parallel attention the dense MLP, shared experts and LM head stay on each rank,
     * on its own rows (attn_dp_dense: rank; vLLM, TensorRT-LLM), not split over all tp on every
     * rank's rows (split; SGLang) */
    bool attn_dp_dense_rank;
    double score_bytes;                /* unfused: bytes per score element, all three kernels */
    double fa_mask_bytes;              /* fused prefill (CUDA): KQ-mask bytes per element, 0 off */
    double pipeline_copies;            /* layer split: micro-batches in flight (0 = no pipeline) */
    double custom_allreduce_max_bytes; /* its own all-reduce below this size; 0 = NCCL's ring */
    double custom_allreduce_latency_s; /* each of its two barriers; 0 = the link's latency */
    double sampler_kernels;    /* greedy sampler's launches after the graph on the gathered logits
                                * (with the logits' all-gather at tp > 1); 0 = not modelled */
    double triton_moe_kernels; /* launches of an MXFP4 MoE layer through triton_kernels (routing,
                                * two grouped GEMMs, combine; not the router); 0 = not modelled */
    /* the routed experts of a block-scaled FP8 checkpoint (mdl_profile.fp8_weight_block) run
     * through Triton's fused MoE kernel on a device of CUDA capability 9.x, at this fraction of
     * the bf16 GEMM rate (docs/physics.md#moe-kernels); 0 = like any fp8 GEMM */
    double moe_block_fp8_vs_bf16;
    /* the routed experts' outputs are written per (token, expert) pair in 16 bits and summed
     * over the pairs by a kernel of their own (SGLang's Triton fused MoE: intermediate_cache3,
     * moe_sum_reduce), on a device of CUDA capability 9.x (docs/physics.md#moe-kernels) */
    bool moe_sum_kernel;
    /* vLLM's Marlin MoE (fused_marlin_moe) on a device of CUDA capability 9.x: its arithmetic
     * rate as a fraction of the bf16 datasheet peak, and its launches a MoE layer (router GEMM
     * not included); int4 experts take it, MXFP4 ones when asked (docs/physics.md#moe-kernels);
     * 0 = not modelled */
    double marlin_moe_vs_peak, marlin_moe_kernels;
    /* Triton's fused MoE (vLLM, SGLang) on 16-bit or fp8 experts: the launches of one MoE layer's
     * call (routing, alignment, the two grouped GEMMs, activation, sum; router GEMM not
     * included), and those of one activation quantisation before each fp8 GEMM; applied on CUDA
     * capability 8.x-9.x (docs/physics.md#moe-kernels); 0 = not modelled */
    double fused_moe_kernels, fused_moe_quant_kernels;
    double kv_bucket; /* decode attention reads the cache padded to a multiple
                       * of this many tokens (static shapes); 0 = exact */
    /* its Metal backend's weight kernels (the `metal` section), applied on Apple devices;
     * all zero: none */
    struct roof_metal metal;
    struct engine_serving serving;
    /* no profile of its own: the generic kernel model (engine_find_in), predicted with a band
     * that spans the profiled engines' predictions */
    bool generic;
    /* for a generic engine: the smallest and largest kernel overhead, step overhead, memory and
     * compute efficiency multipliers among the profiled engines (the band's extremes) */
    double span_min[4], span_max[4];
    char **source_keys, **source_texts;
    int n_sources;
};

/* The full parameter set that calibration fits: per class, per engine. */
#define CALIB_MAX_ENGINES 16
struct calib_params {
    struct dev_params dev[DEV_CLASS_COUNT];
    int n_engines;
    struct engine_profile engine[CALIB_MAX_ENGINES]; /* names borrowed */
};

const char *dev_class_name(enum dev_class c);
/* Class of a device: kind, vendor and memory type (HBM -> data centre, GDDR -> consumer,
 * unified LPDDR -> SoC; TPU/NPU -> accelerator; CPU). */
enum dev_class dev_class_of(const struct hw_profile *hw);
void dev_params_default(enum dev_class c, struct dev_params *out);
/* The `kernel` engine: no overhead, efficiencies 1 (kernels timed in isolation). */
void engine_profile_kernel(struct engine_profile *out);
/* A device of CUDA capability 9.x (Hopper), where the engine keys measured on it apply
 * (moe_block_fp8_vs_bf16, moe_sum_kernel, Marlin's MoE rate). */
bool calib_hopper(const struct hw_profile *hw);

/* Fill a config's tuning from the device class parameters and an engine. An engine with a
 * `metal` section on an Apple device (vendor apple) gets ggml-metal's weight kernels, which
 * dequantize in the kernel: no conversion buffer (dequant_buffer off). */
void calib_tuning(const struct hw_profile *hw, const struct dev_params *dev,
                  const struct engine_profile *eng, struct roof_tuning *out);
void engine_profile_free(struct engine_profile *e);
/* The memory an engine keeps per device off weights and KV cache for `cfg` (its model,
 * formats, tp, and flash attention: the engine's default, `e`'s flash_attention, unless cfg asks
 * for it, roof_flash_attention): fraction x capacity + fixed bytes, plus, for llama.cpp, its
 * compute buffers: 4 B x ubatch x (max(vocab / tp, 2 x MLP width / tp, heads / tp x context
 * without flash attention) + hidden), the largest f32 tensors of one micro-batch's graph
 * (logits, the MLP's gate and up, the attention scores). `context` in tokens. Negative when
 * the profile names no reserve. docs/simulate.md#engines */
double engine_reserve_bytes(const struct engine_profile *e, const struct roof_config *cfg,
                            double context);

/* One measurement to predict (the fields of the calibration format,
 * docs/calibration.md#the-measurement-format). */
enum pred_phase { PRED_DECODE, PRED_PREFILL, PRED_E2E, PRED_KERNEL, PRED_PHASE_COUNT };
enum pred_metric { PRED_TOKENS_PER_S, PRED_TIME_MS, PRED_LATENCY_S };
struct pred_case {
    enum pred_phase phase;
    enum pred_metric metric;
    enum dtype weights, kv;
    int count, tp;
    bool layer_split; /* parallel: layer (llama.cpp splits layers across devices) */
    double batch, context, prompt, input, output;
    const char *op; /* kernel: matmul, mlp_up, mlp_down, qkv, attn_decode, attn_prefill */
    double m, n, k, tokens, kv_len, chunk, bytes;
    /* a run's own settings where they differ from the engine profile's (llama-bench -ub, -fa,
     * pp N @ dD); zero = the engine's */
    double ubatch;       /* prefill micro-batch in tokens */
    double depth;        /* prefill: tokens already in each sequence's KV cache */
    int flash_attention; /* PRED_FA_DEFAULT, PRED_FA_ON (fused), PRED_FA_OFF (scores in memory) */
    int quantized_gemm;  /* PRED_QG_DEFAULT (the engine's path), PRED_QG_MMQ (ggml-cuda's MMQ at
                          * every batch, llama.cpp builds after PR #8075) */
    /* ggml-metal's mat-mat threshold of an older llama.cpp build (its ne11_mm_min: more tokens
     * than this run mul_mm); those builds had no mul_mv_ext (PR #10581), so 2 tokens up to it
     * run the plain mat-vec kernel. 0 = the engine profile's `metal` section as it is */
    double metal_mm_above;
    /* false: the build had no mul_mm_id (llama.cpp before PR #4725, 2024-01-01), so every
     * routed-expert GEMM ran mul_mv_id, one mat-vec per (token, expert) pair; true (the default):
     * the engine profile's `metal.mm_id_min` */
    bool metal_no_mm_id;
    /* attn_prefill: PRED_AK_DEFAULT (fused attention over a cache already written),
     * PRED_AK_FLASH_KVCACHE (FlashAttention-2's flash_attn_with_kvcache with the chunk's K and V
     * passed in: its split-KV kernel appends them to the cache in every query-row block,
     * calib_kvcache_append_bytes) */
    int attn_kernel;
};
enum { PRED_FA_DEFAULT, PRED_FA_ON, PRED_FA_OFF };
enum { PRED_QG_DEFAULT, PRED_QG_MMQ };
enum { PRED_AK_DEFAULT, PRED_AK_FLASH_KVCACHE };

/* Bytes FlashAttention-2's flash_attn_with_kvcache moves appending a `chunk` of new K and V to a
 * cache that holds `past` tokens, for one sequence and `heads` query heads of head_dim `d` in
 * elements of `elem` bytes (docs/physics.md#prefill-attention): the API always runs the split-KV
 * kernel (flash_api.cpp mha_fwd_kvcache), one CTA per query head and 64-row block of the chunk
 * (kBlockM), and each CTA, before its first tile, copies every new row of the 128-row KV blocks
 * (kBlockN; 256 for d <= 64, 64 for d > 128) up to its causal bound from K/V-new into the cache
 * (flash_fwd_kernel.h, Append_KV: "all threadblocks ... are writing to gmem"): per row copied,
 * K and V read and written, 4 d elem bytes. 0 for no chunk. */
double calib_kvcache_append_bytes(double chunk, double past, double heads, double d, double elem);
/* FlashAttention-2's split count for flash_attn_with_kvcache (flash_api.cpp,
 * num_splits_heuristic(ctas, 2 x sms, n_blocks, 128)): 1 when `ctas` (batch x heads x 64-row
 * query blocks) fill 0.8 of twice the SMs; else the fewest splits, among those that change the KV
 * blocks per split, whose waves (ctas x splits over 2 x sms) reach 0.85 of the best efficiency
 * (waves / whole waves), at most min(128, 2 x sms, n_blocks). */
int calib_fa2_splits(double ctas, double sms, double n_blocks);
/* FlashAttention-2's decode through flash_attn_with_kvcache
 * (docs/physics.md#kv-append-in-flashattention-2): one CTA per sequence, KV head (MHA; GQA swaps
 * the query groups into the rows) and split of ceil(n_blocks / splits) KV blocks of kBlockN tokens
 * (calib_fa2_splits); ceil(CTAs / SMs) whole waves, each CTA taking the larger of its slice over
 * its SM's share of the bandwidth and ROOF_ATTN_ROUND_TRIPS memory latencies (roof_attn_decode_s
 * with FA2's splits for its 512-token partitions, and whole waves). Seconds without the launch, or
 * -1 when the kernel model is off. */
double calib_fa2_decode_s(const struct hw_profile *hw, const struct roof_tuning *tu, double seqs,
                          double kv_heads, double tokens, double d, double bytes_per_token_head);

/* Mean over decode steps k = 1..steps of the keys a step attends over, input + k, padded up to a
 * multiple of `bucket` (static shapes); the unpadded mean when bucket is 0. */
double calib_mean_bucketed(double input, double steps, double bucket);

/* Predict a case on `hw` (and `model` unless a matmul). Returns 0 and the prediction in the
 * case's metric, or -1 with *reason set (static text) when the case cannot be modelled. */
int pred_case_eval(const struct pred_case *pc, const struct hw_profile *hw,
                   const struct mdl_profile *model, const struct roof_tuning *tuning,
                   double *predicted, const char **reason);

#endif
