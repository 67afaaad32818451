/* Launch lines (docs/plan.md#launch-lines): the command that starts the engine a planned option
 * assumes, with its parallelism, batch, token budget and formats, so that a user can try the
 * answer on the real deployment the same afternoon. */
#include "plan/plan_int.h"

#include <stdarg.h>
#include <stdio.h>
#include <string.h>

/* The line being written into the caller's buffer (no allocation: a planner that runs out of
 * memory must still print the same answer or say so); cut at the buffer's end. */
struct line {
    char *b;
    size_t n, len;
};

static void add(struct line *l, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 2, 3)))
#endif
    ;

static void
add(struct line *l, const char *fmt, ...)
{
    if (l->len >= l->n)
        return;
    va_list ap;
    va_start(ap, fmt);
    int w = vsnprintf(l->b + l->len, l->n - l->len, fmt, ap);
    va_end(ap);
    if (w > 0)
        l->len += (size_t)w < l->n - l->len ? (size_t)w : l->n - l->len;
}

/* The two pools of a disaggregated unit, after an engine's line. */
static void
pools(struct line *sb, const struct plan_cand *c, const struct plan_option *op, const char *how)
{
    add(sb, " (x%d prefill%s%s + x%d decode instances%s%s %s)", op->prefill_instances,
        c->pf_hw ? " on " : "", c->pf_hw ? c->pf_hw->id : "", op->decode_instances,
        c->pf_hw ? " on " : "", c->pf_hw ? c->hw->id : "", how);
}

/* vLLM (docs.vllm.ai, engine arguments). */
static void
vllm(struct line *sb, const char *m, const struct plan_cand *c, const struct plan_option *op,
     long budget)
{
    /* data-parallel attention: N engine cores of tp / N devices each, their experts one
     * tensor-parallel group of all tp (docs/serving/data_parallel_deployment.md: "By default,
     * expert layers form a tensor parallel group of size DP x TP"); --max-num-seqs is per rank */
    int dp = c->attn_dp > 1 ? c->attn_dp : 1;
    add(sb, "vllm serve %s --tensor-parallel-size %d", m, c->tp / dp);
    if (dp > 1)
        add(sb, " --data-parallel-size %d", dp);
    if (c->pp > 1)
        add(sb, " --pipeline-parallel-size %d", c->pp);
    add(sb, " --max-num-seqs %ld", sim_rank_share(c->max_batch, dp));
    if (budget > 0)
        add(sb, " --max-num-batched-tokens %ld", sim_rank_share(budget, dp));
    if (c->fmt.weights == DT_FP8)
        add(sb, " --quantization fp8");
    else if (c->fmt.weights == DT_INT4)
        add(sb, " --quantization awq");
    else if (c->fmt.weights == DT_INT8)
        add(sb, " --quantization w8a8");
    if (c->fmt.kv == DT_FP8)
        add(sb, " --kv-cache-dtype fp8");
    if (c->policy == SIM_CHUNKED)
        add(sb, " --enable-chunked-prefill");
    else if (c->policy == SIM_CONTINUOUS)
        add(sb, " --no-enable-chunked-prefill"); /* v1 chunks by default */
    if (c->policy == SIM_DISAGGREGATED)
        pools(sb, c, op, "with --kv-transfer-config");
}

/* SGLang (docs.sglang.io, server arguments): chunked prefill is on by default, -1 turns it off;
 * fp8_e5m2 needs no scaling factors (fp8_e4m3 wants --quantization-param-path). */
static void
sglang(struct line *sb, const char *m, const struct plan_cand *c, const struct plan_option *op,
       long budget)
{
    add(sb, "python -m sglang.launch_server --model-path %s --tp %d", m, c->tp);
    /* the batch and the chunk stay totals: SGLang divides them by dp */
    if (c->attn_dp > 1)
        add(sb, " --enable-dp-attention --dp %d", c->attn_dp);
    if (c->pp > 1)
        add(sb, " --pp-size %d", c->pp);
    add(sb, " --max-running-requests %ld", c->max_batch);
    if (c->policy == SIM_CHUNKED || c->policy == SIM_DISAGGREGATED) {
        if (budget > 0)
            add(sb, " --chunked-prefill-size %ld", budget);
    } else {
        add(sb, " --chunked-prefill-size -1");
    }
    if (c->fmt.weights == DT_FP8)
        add(sb, " --quantization fp8");
    else if (c->fmt.weights == DT_INT4)
        add(sb, " --quantization awq");
    else if (c->fmt.weights == DT_INT8)
        add(sb, " --quantization w8a8_int8");
    if (c->fmt.kv == DT_FP8)
        add(sb, " --kv-cache-dtype fp8_e5m2");
    if (c->policy == SIM_DISAGGREGATED)
        pools(sb, c, op, "with --disaggregation-mode prefill / decode");
}

/* Text Generation Inference (huggingface.co/docs/text-generation-inference, launcher
 * arguments): --max-concurrent-requests is the router's limit on requests in flight, the
 * batch the profile models; --max-batch-prefill-tokens the prompt tokens of one prefill. TGI
 * shards by tensor parallelism only and does not disaggregate. */
static void
tgi(struct line *sb, const char *m, const struct plan_cand *c, long budget)
{
    add(sb, "text-generation-launcher --model-id %s --num-shard %d", m, c->tp);
    add(sb, " --max-concurrent-requests %ld", c->max_batch);
    if (budget > 0)
        add(sb, " --max-batch-prefill-tokens %ld", budget);
    if (c->fmt.weights == DT_FP8)
        add(sb, " --quantize fp8");
    else if (c->fmt.weights == DT_INT4)
        add(sb, " --quantize awq");
    else if (c->fmt.weights == DT_INT8)
        add(sb, " --quantize eetq");
    if (c->fmt.kv == DT_FP8)
        add(sb, " --kv-cache-dtype fp8_e5m2");
    if (c->pp > 1)
        add(sb, " (TGI has no pipeline parallelism: pp %d is not available)", c->pp);
    if (c->policy == SIM_DISAGGREGATED)
        add(sb, " (TGI has no disaggregated serving)");
}

void
plan_launch_line(const struct plan_question *q, const struct plan_cand *c,
                 const struct plan_option *op, char *b, size_t n)
{
    const char *eng = q->engine;
    bool apple = c->hw->vendor && strcmp(c->hw->vendor, "apple") == 0;
    /* a weight-only format is a GGUF's, but int4 (AWQ/GPTQ), gpt-oss's own checkpoint
     * (mxfp4 experts, bf16 else) and NVIDIA's NVFP4 checkpoints are served by vLLM */
    bool gguf = dtype_is_weight_only(c->fmt.weights) && c->fmt.weights != DT_INT4 &&
                c->fmt.weights != DT_MXFP4_MOE_BF16 && c->fmt.weights != DT_NVFP4_ATTN_BF16 &&
                c->fmt.weights != DT_NVFP4_QKV_BF16;
    if (!eng || strcmp(eng, "kernel") == 0)
        eng = apple || gguf ? "llama.cpp" : "vllm";
    const char *m = q->model->id;
    /* the token budget simulated: the question's (or the engine profile's), else (chunked
     * prefill) the simulator's default, which is not the engine's (vLLM: 8192 on large
     * devices) */
    long budget = c->mtps;
    if (budget <= 0 && c->policy == SIM_CHUNKED) {
        struct sim_sched sd;
        sim_sched_defaults(&sd, c->policy, q->model);
        budget = sd.max_tokens_per_step;
    }
    struct line sb = {b, n, 0};
    if (n > 0)
        b[0] = '\0';
    if (strcmp(eng, "llama.cpp") == 0) {
        long np;
        double ctx = sim_serving_context(op->max_batch, &q->prompt, &q->output, &np);
        add(&sb, "llama-server -m %s-%s.gguf -c %.0f -np %ld -ngl 999%s", m,
            dtype_name(c->fmt.weights), ctx, np, c->tp > 1 ? " --split-mode row" : "");
    } else if (strcmp(eng, "tensorrt-llm") == 0) {
        /* data-parallel attention: max_batch_size and max_num_tokens are per rank, and the
         * switch goes in the LLM API options file (enable_attention_dp) */
        int dp = c->attn_dp > 1 ? c->attn_dp : 1;
        add(&sb, "trtllm-serve %s --tp_size %d --pp_size %d --max_batch_size %ld", m, c->tp, c->pp,
            sim_rank_share(c->max_batch, dp));
        if (budget > 0)
            add(&sb, " --max_num_tokens %ld", sim_rank_share(budget, dp));
        if (dp > 1)
            add(&sb, " --extra_llm_api_options dp.yaml (enable_attention_dp: true)");
    } else if (strcmp(eng, "sglang") == 0) {
        sglang(&sb, m, c, op, budget);
    } else if (strcmp(eng, "tgi") == 0) {
        tgi(&sb, m, c, budget);
    } else if (strcmp(eng, "deepspeed") == 0) {
        /* DeepSpeed-MII's OpenAI server (mii/entrypoints/openai_api_server.py): batch and
         * token budget are its ragged batching's own, not command-line options */
        add(&sb, "python -m mii.entrypoints.openai_api_server --model %s --tensor-parallel %d", m,
            c->tp);
        if (c->pp > 1)
            add(&sb, " (MII has no pipeline parallelism: pp %d is not available)", c->pp);
        if (c->policy == SIM_DISAGGREGATED)
            add(&sb, " (MII has no disaggregated serving)");
    } else if (strcmp(eng, "optimum-habana") == 0) {
        /* optimum-habana's examples/text-generation: offline generation in static batches (no
         * server); several cards start through gaudi_spawn.py with DeepSpeed; FP8 takes its
         * measured scales through QUANT_CONFIG (the examples' README) */
        if (c->fmt.weights == DT_FP8)
            add(&sb, "QUANT_CONFIG=./quantization_config/maxabs_quant.json ");
        if (c->tp > 1)
            add(&sb, "python ../gaudi_spawn.py --use_deepspeed --world_size %d ", c->tp);
        else
            add(&sb, "python ");
        add(&sb,
            "run_generation.py --model_name_or_path %s --use_hpu_graphs --use_kv_cache "
            "--bucket_size 128 --bucket_internal --batch_size %ld",
            m, c->max_batch);
        add(&sb, " (offline generation: optimum-habana has no server)");
        if (c->pp > 1)
            add(&sb, " (no pipeline parallelism: pp %d is not available)", c->pp);
    } else {
        /* Marlin's MoE (the question's kernels.moe, or the option's twin format) is this
         * environment variable of vLLM's */
        if (c->fmt.moe_marlin)
            add(&sb, "VLLM_MXFP4_USE_MARLIN=1 ");
        vllm(&sb, m, c, op, budget);
    }
}
