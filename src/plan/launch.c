/* Launch lines (docs/plan.md): the command that starts the engine a planned option
 * assumes, with its parallelism, batch, token budget and formats, so that a user can try the
 * answer on the real deployment the same afternoon. */
#include "plan/plan_int.h"

#include <stdio.h>
#include <string.h>

void
plan_launch_line(const struct plan_question *q, const struct plan_cand *c,
                 const struct plan_option *op, char *b, size_t n)
{
    const char *eng = q->engine;
    bool apple = c->hw->vendor && strcmp(c->hw->vendor, "apple") == 0;
    bool gguf = dtype_is_weight_only(c->fmt.weights) && c->fmt.weights != DT_INT4;
    if (!eng || strcmp(eng, "kernel") == 0)
        eng = apple || gguf ? "llama.cpp" : "vllm";
    const char *m = q->model->id;
    double ctx = plan_dist_max(&q->prompt) + plan_dist_max(&q->output);
    if (strcmp(eng, "llama.cpp") == 0) {
        long np = op->max_batch < 64 ? op->max_batch : 64;
        snprintf(b, n, "llama-server -m %s-%s.gguf -c %.0f -np %ld -ngl 999%s", m,
                 dtype_name(c->fmt.weights), ctx * (double)np, np,
                 c->tp > 1 ? " --split-mode row" : "");
        return;
    }
    /* the token budget simulated: the question's, else (chunked prefill) the simulator's
     * default, which is not the engine's (vLLM: 8192 on large devices) */
    long budget = c->mtps;
    if (budget <= 0 && c->policy == SIM_CHUNKED) {
        struct sim_sched sd;
        sim_sched_defaults(&sd, c->policy, q->model);
        budget = sd.max_tokens_per_step;
    }
    char tok[48] = "";
    if (budget > 0)
        snprintf(tok, sizeof tok, " %s %ld",
                 strcmp(eng, "vllm") == 0 ? "--max-num-batched-tokens" : "--max_num_tokens",
                 budget);
    if (strcmp(eng, "tensorrt-llm") == 0) {
        snprintf(b, n, "trtllm-serve %s --tp_size %d --pp_size %d --max_batch_size %ld%s", m, c->tp,
                 c->pp, c->max_batch, tok);
        return;
    }
    const char *quant = "";
    if (c->fmt.weights == DT_FP8)
        quant = " --quantization fp8";
    else if (c->fmt.weights == DT_INT4)
        quant = " --quantization awq";
    else if (c->fmt.weights == DT_INT8)
        quant = " --quantization w8a8";
    int w = snprintf(b, n, "vllm serve %s --tensor-parallel-size %d%s --max-num-seqs %ld%s%s%s%s",
                     m, c->tp, c->pp > 1 ? " --pipeline-parallel-size N" : "", c->max_batch, tok,
                     quant, c->fmt.kv == DT_FP8 ? " --kv-cache-dtype fp8" : "",
                     c->policy == SIM_CHUNKED ? " --enable-chunked-prefill" : "");
    if (c->pp > 1 && w > 0) {
        char *s = strstr(b, "--pipeline-parallel-size N");
        if (s)
            s[25] = (char)('0' + (c->pp < 10 ? c->pp : 9));
    }
    if (c->policy == SIM_DISAGGREGATED && w > 0 && (size_t)w < n)
        snprintf(b + w, n - (size_t)w,
                 " (x%d prefill%s%s + x%d decode instances%s%s with --kv-transfer-config)",
                 op->prefill_instances, c->pf_hw ? " on " : "", c->pf_hw ? c->pf_hw->id : "",
                 op->decode_instances, c->pf_hw ? " on " : "", c->pf_hw ? c->hw->id : "");
}
