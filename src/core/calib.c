/* Device classes, engine tuning and the prediction of one measurement (docs/physics.md). */
#include "core/calib.h"
#include "util/array.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

const char *
dev_class_name(enum dev_class c)
{
    static const char *const N[DEV_CLASS_COUNT] = {"datacenter-gpu", "consumer-gpu", "soc",
                                                   "accelerator", "cpu"};
    return c < DEV_CLASS_COUNT ? N[c] : "?";
}

enum dev_class
dev_class_of(const struct hw_profile *hw)
{
    if (hw->kind && strcmp(hw->kind, "cpu") == 0)
        return DEV_CPU;
    if (hw->kind && (strcmp(hw->kind, "tpu") == 0 || strcmp(hw->kind, "npu") == 0))
        return DEV_ACCEL;
    if (hw->kind && strcmp(hw->kind, "soc") == 0)
        return DEV_SOC;
    if (hw->memory_type && (strstr(hw->memory_type, "GDDR") || strstr(hw->memory_type, "gddr")))
        return DEV_CONSUMER_GPU;
    return DEV_DC_GPU;
}

/* Defaults: streaming kernels reach ~85-92% of HBM datasheet bandwidth (STREAM-like copies on
 * A100/H100), large fp16 GEMMs ~70-80% of dense tensor peak (cuBLAS at clocks below boost);
 * HBM latency ~600-800 ns, GDDR slightly higher; Apple unified memory reaches ~80% of its
 * figure. Calibration replaces these; docs/physics.md#kernel-model gives the reasons. */
void
dev_params_default(enum dev_class c, struct dev_params *out)
{
    static const struct dev_params D[DEV_CLASS_COUNT] = {
        [DEV_DC_GPU] = {0.88, 0.75, 0.7e-6, 108}, [DEV_CONSUMER_GPU] = {0.85, 0.70, 0.8e-6, 82},
        [DEV_SOC] = {0.80, 0.60, 1.0e-6, 32},     [DEV_ACCEL] = {0.85, 0.75, 0.7e-6, 0},
        [DEV_CPU] = {0.90, 0.85, 0.1e-6, 0},
    };
    *out = D[c < DEV_CLASS_COUNT ? c : DEV_DC_GPU];
}

void
engine_profile_kernel(struct engine_profile *out)
{
    memset(out, 0, sizeof *out);
    out->name = "kernel";
    /* a kernel timed in isolation pays its launch: a few microseconds (CUDA Best Practices
     * Guide), fitted by calibrate */
    out->kernel_overhead_s = 4e-6;
    out->memory_efficiency = 1.0;
    out->compute_efficiency = 1.0;
    out->dequant_scale = 1.0;
    out->serving.reserve_fraction = -1.0;
}

void
calib_tuning(const struct hw_profile *hw, const struct dev_params *dev,
             const struct engine_profile *eng, struct roof_tuning *out)
{
    memset(out, 0, sizeof *out);
    /* the device's own bandwidth and GEMM fractions against its class's (a vendor's memory
     * system and BLAS on its silicon; docs/physics.md#a-devices-own-gemm-fraction) */
    double mv = hw->memory_vs_class > 0 ? hw->memory_vs_class : 1.0;
    double me = dev->memory_efficiency * (eng ? eng->memory_efficiency : 1.0) * mv;
    double gv = hw->gemm_vs_class > 0 ? hw->gemm_vs_class : 1.0;
    double ce = dev->compute_efficiency * (eng ? eng->compute_efficiency : 1.0) * gv;
    out->memory_efficiency = me > 1.0 ? 1.0 : me;
    out->compute_efficiency = ce > 1.0 ? 1.0 : ce;
    out->memory_latency_s = dev->memory_latency_s;
    out->vector_efficiency = dev->compute_efficiency; /* the engine factor is for its GEMMs */
    out->compute_units = hw->compute_units > 0 ? hw->compute_units : dev->compute_units;
    out->kernel_overhead_s = eng ? eng->kernel_overhead_s : 0.0;
    out->step_overhead_s = eng ? eng->step_overhead_s : 0.0;
    out->token_overhead_s = eng ? eng->token_overhead_s : 0.0;
    out->inflight_bytes_per_unit = eng ? eng->inflight_bytes_per_unit : 0.0;
    out->dequant_scale = eng && eng->dequant_scale > 0 ? eng->dequant_scale : 1.0;
    out->fp16_accumulate = eng ? eng->fp16_accumulate : false;
    out->dequant_buffer = eng ? eng->dequant_buffer : false;
    out->dequant_buffer_above = eng ? eng->dequant_buffer_above : 0.0;
    out->ubatch_tokens = eng ? eng->ubatch_tokens : 0.0;
    out->mmq_tile_tokens = eng ? eng->mmq_tile_tokens : 0.0;
    out->mmq_tile_rows = eng ? eng->mmq_tile_rows : 0.0;
    out->mmq_above = eng ? eng->mmq_above : 0.0;
    out->mmq_id_above = eng ? eng->mmq_id_above : 0.0;
    out->mmq_tile_step = eng ? eng->mmq_tile_step : 0.0;
    out->no_flash_attention = eng ? eng->no_flash_attention : false;
    out->no_attn_dp = eng && strcmp(eng->serving.attn_dp, "none") == 0;
    out->attn_dp_dense_rank = eng && eng->attn_dp_dense_rank;
    out->score_bytes = eng ? eng->score_bytes : 0.0;
    /* the KQ mask of ggml-cuda's fused kernel; ggml-metal loads none for all-zero blocks */
    bool apple = hw->vendor && strcmp(hw->vendor, "apple") == 0;
    out->fa_mask_bytes = eng && !apple ? eng->fa_mask_bytes : 0.0;
    /* in flight: the scheduler's copies, and no more micro-batches than one logical batch
     * (n_batch, max_tokens_per_step) holds: the pipeline drains at the end of each batch */
    double inflight = eng ? eng->pipeline_copies : 0.0;
    if (inflight > 1 && eng->ubatch_tokens > 0 && eng->serving.max_tokens_per_step > 0) {
        double per_batch = floor((double)eng->serving.max_tokens_per_step / eng->ubatch_tokens);
        if (per_batch < inflight)
            inflight = per_batch > 1 ? per_batch : 1;
    }
    out->pipeline_inflight = inflight;
    out->custom_allreduce_max_bytes = eng ? eng->custom_allreduce_max_bytes : 0.0;
    out->custom_allreduce_latency_s = eng ? eng->custom_allreduce_latency_s : 0.0;
    out->sampler_kernels = eng ? eng->sampler_kernels : 0.0;
    out->triton_moe_kernels =
        eng && roof_triton_moe_device(hw->cuda_capability) ? eng->triton_moe_kernels : 0.0;
    out->kv_bucket_tokens = eng ? eng->kv_bucket : 0.0;
    /* Triton's block-scaled fused MoE is the Hopper path (SGLang's Fp8MoEMethod picks it unless
     * DeepEP runs the experts); measured on an H100 */
    bool hopper = calib_hopper(hw);
    out->moe_block_fp8_vs_bf16 = eng && hopper ? eng->moe_block_fp8_vs_bf16 : 0.0;
    /* the experts' sum kernel: read in SGLang's Triton path, timed on an H200 */
    out->moe_sum_kernel = eng && hopper && eng->moe_sum_kernel;
    /* vLLM's Marlin MoE: its rate measured on Hopper (FlagGems PR #4350, sglang PR #38884) */
    out->marlin_moe_vs_peak = eng && hopper ? eng->marlin_moe_vs_peak : 0.0;
    out->marlin_moe_kernels = eng && hopper ? eng->marlin_moe_kernels : 0.0;
    /* Triton's fused MoE: the path of 16-bit and fp8 experts from Ampere to Hopper and on AMD's
     * GPUs (the same function, its HIP branches; Blackwell takes other MoE kernels in both
     * engines) */
    bool amd_gpu =
        hw->vendor && strcmp(hw->vendor, "amd") == 0 && hw->kind && strcmp(hw->kind, "gpu") == 0;
    bool triton_moe = (hw->cuda_capability >= 8.0 && hw->cuda_capability < 10.0) || amd_gpu;
    out->fused_moe_kernels = eng && triton_moe ? eng->fused_moe_kernels : 0.0;
    out->fused_moe_quant_kernels = eng && triton_moe ? eng->fused_moe_quant_kernels : 0.0;
    out->gemm_floor_s = hw->gemm_floor_s > 0 ? hw->gemm_floor_s : 0.0;
    out->gemm_bandwidth_bytes_per_s =
        hw->gemm_bandwidth_bytes_per_s > 0 ? hw->gemm_bandwidth_bytes_per_s : 0.0;
    if (eng && eng->metal.mm_above > 0 && apple) {
        out->metal = eng->metal;
        out->dequant_buffer = false; /* mul_mm dequantizes its tiles in threadgroup memory */
        out->dequant_buffer_above = 0.0;
    }
}

bool
calib_hopper(const struct hw_profile *hw)
{
    return hw && hw->cuda_capability >= 9.0 && hw->cuda_capability < 10.0;
}

void
engine_profile_free(struct engine_profile *e)
{
    if (!e)
        return;
    free(e->name);
    free(e->path);
    for (int i = 0; i < e->n_sources; i++) {
        free(e->source_keys[i]);
        free(e->source_texts[i]);
    }
    free(e->source_keys);
    free(e->source_texts);
    free(e);
}

double
engine_reserve_bytes(const struct engine_profile *e, const struct roof_config *cfg, double context)
{
    const struct engine_serving *sv = &e->serving;
    if (!(sv->reserve_fraction >= 0) && !(sv->reserve_bytes > 0) && !sv->compute_buffers)
        return -1.0;
    double cap = cfg->hw ? hw_memory_bytes(cfg->hw) : 0;
    double r = (sv->reserve_fraction > 0 ? sv->reserve_fraction * cap : 0) +
               (sv->reserve_bytes > 0 ? sv->reserve_bytes : 0);
    if (sv->compute_buffers && cfg->model) {
        const struct mdl_profile *m = cfg->model;
        double tp = cfg->tp > 1 ? cfg->tp : 1;
        double ub = e->ubatch_tokens > 0 ? e->ubatch_tokens : 512;
        double widest = (double)m->vocab_size / tp;
        double mlp = 2.0 * (double)m->intermediate_size / tp;
        widest = mlp > widest ? mlp : widest;
        /* the engine's attention, whether or not cfg carries its tuning yet */
        struct roof_config fa = *cfg;
        fa.tuning.no_flash_attention |= e->no_flash_attention;
        double scores = roof_flash_attention(&fa) ? 0 : (double)m->num_heads / tp * context;
        widest = scores > widest ? scores : widest;
        r += 4.0 * ub * (widest + (double)m->hidden_size);
    }
    return r;
}

/* One kernel in isolation, through the same per-kernel rule as the engine: a weight GEMM
 * (gemm_m > 0) takes at least the device's least GEMM time. */
static double
kernel_time(const struct hw_profile *hw, const struct roof_tuning *tu, enum dtype compute,
            double flops, double bytes, double gemm_m, double gemm_n)
{
    double peak = roof_tuned_peak(hw, tu, compute, NULL);
    double vec_peak = hw_peak(hw, DT_FP32, NULL) *
                      (tu->vector_efficiency > 0 ? tu->vector_efficiency : tu->compute_efficiency);
    double bw = roof_tuned_bandwidth(hw, tu, hw->memory_bandwidth_bytes_per_s);
    if (gemm_m > 0)
        bw = roof_weight_gemm_bw(tu, bw);
    double tc = gemm_m > 0 && tu->compute_units > 0
                    ? roof_gemm_compute_s(gemm_m, gemm_n, flops / (2 * gemm_m * gemm_n), peak,
                                          tu->compute_units, vec_peak)
                    : flops / peak;
    double tm = bytes / bw + (bytes > 0 ? tu->memory_latency_s : 0.0);
    double t = tc > tm ? tc : tm;
    if (gemm_m > 0)
        t = roof_weight_gemm_time(tu, t);
    return t + tu->kernel_overhead_s;
}

/* FlashAttention-2's KV block (kBlockN) by head dimension, the forward kernels' choice */
static double
fa2_block_n(double d)
{
    return d <= 64 ? 256 : d <= 128 ? 128 : 64;
}

double
calib_kvcache_append_bytes(double chunk, double past, double heads, double d, double elem)
{
    if (!(chunk >= 1) || !(heads > 0) || !(d > 0) || !(elem > 0))
        return 0.0;
    if (!(past >= 0))
        past = 0;
    const double block_m = 64, block_n = fa2_block_n(d);
    double total = past + chunk, first = floor(past / block_n), rows = 0;
    double m_blocks = ceil(chunk / block_m);
    for (double m = 0; m < m_blocks; m++) {
        /* n_block_max: the CTA's causal bound, (m + 1) kBlockM rows of the chunk past the cache */
        double end = past + (m + 1) * block_m;
        double n_max = ceil((end < total ? end : total) / block_n);
        for (double n = first; n < n_max; n++) {
            double hi = total - n * block_n, lo = past - n * block_n;
            hi = hi < block_n ? hi : block_n;
            lo = lo > 0 ? lo : 0;
            if (hi > lo)
                rows += hi - lo;
        }
    }
    return rows * heads * 4 * d * elem;
}

int
calib_fa2_splits(double ctas, double sms, double n_blocks)
{
    double slots = 2 * sms;
    if (!(ctas > 0) || !(slots > 0) || ctas >= 0.8 * slots)
        return 1;
    double max_splits = 128;
    if (slots < max_splits)
        max_splits = slots;
    if (n_blocks < max_splits)
        max_splits = n_blocks;
    double eff[129] = {0}, best = 0;
    for (int s = 1; s <= (int)max_splits; s++) {
        bool eligible = s == 1 || ceil(n_blocks / s) != ceil(n_blocks / (s - 1));
        if (!eligible)
            continue;
        double waves = ctas * s / slots;
        eff[s] = waves / ceil(waves);
        if (eff[s] > best)
            best = eff[s];
    }
    for (int s = 1; s <= (int)max_splits; s++)
        if (eff[s] > 0 && eff[s] >= 0.85 * best)
            return s;
    return 1;
}

double
calib_fa2_decode_s(const struct hw_profile *hw, const struct roof_tuning *tu, double seqs,
                   double kv_heads, double tokens, double d, double bytes_per_token_head)
{
    double units = tu->compute_units;
    if (!(units > 0) || !(tu->memory_latency_s > 0))
        return -1.0;
    double block_n = fa2_block_n(d);
    double n_blocks = ceil(tokens / block_n);
    if (n_blocks < 1)
        n_blocks = 1;
    double base = seqs * kv_heads;
    double splits = calib_fa2_splits(base, units, n_blocks);
    double span = ceil(n_blocks / splits) * block_n;
    /* whole waves: every CTA reads its whole slice, so a last partial wave costs a full one */
    return roof_attn_waves_s(hw, tu, base * splits,
                             (span < tokens ? span : tokens) * bytes_per_token_head, true);
}

static int
kernel_case(const struct pred_case *pc, const struct hw_profile *hw, const struct mdl_profile *m,
            const struct roof_tuning *tu, double *out, const char **reason)
{
    double a = dtype_bytes(pc->weights), w = dtype_bytes(pc->weights);
    enum dtype comp = dtype_gemm_compute(pc->weights, pc->weights);
    int tp = pc->tp > 0 ? pc->tp : 1;
    const char *op = pc->op ? pc->op : "";
    if (strcmp(op, "matmul") == 0) {
        double M = pc->m, N = pc->n, K = pc->k;
        if (!(M > 0 && N > 0 && K > 0)) {
            *reason = "matmul needs m, n and k";
            return -1;
        }
        *out = kernel_time(hw, tu, comp, 2 * M * N * K, (M * K + K * N + M * N) * a, M, N);
        return 0;
    }
    static const char *const KNOWN[] = {"mlp_up", "mlp_down", "qkv", "attn_decode", "attn_prefill"};
    bool known = false;
    for (size_t i = 0; i < ARRAY_SIZE(KNOWN); i++)
        known |= strcmp(op, KNOWN[i]) == 0;
    if (!known) {
        *reason = "unsupported kernel op";
        return -1;
    }
    if (!m) {
        *reason = "no model profile";
        return -1;
    }
    double h = (double)m->hidden_size, I = (double)m->intermediate_size / tp;
    double H = (double)m->num_heads / tp;
    double Hkv = m->num_kv_heads >= tp ? (double)m->num_kv_heads / tp : 1.0;
    double d = (double)m->head_dim;
    if (strcmp(op, "mlp_up") == 0 || strcmp(op, "mlp_down") == 0 || strcmp(op, "qkv") == 0) {
        double T = pc->tokens;
        if (!(T >= 1)) {
            *reason = "needs tokens";
            return -1;
        }
        double n, k;
        if (strcmp(op, "mlp_up") == 0) { /* fused gate + up */
            n = 2 * I;
            k = h;
        } else if (strcmp(op, "mlp_down") == 0) {
            n = h;
            k = I;
        } else {
            n = (H + 2 * Hkv) * d;
            k = h;
        }
        *out = kernel_time(hw, tu, comp, 2 * T * n * k, n * k * w + T * (n + k) * a, T, n);
        return 0;
    }
    if (strcmp(op, "attn_decode") == 0 || strcmp(op, "attn_prefill") == 0) {
        bool dec = strcmp(op, "attn_decode") == 0;
        double B = pc->batch >= 1 ? pc->batch : 1;
        double past = pc->kv_len >= 0 ? pc->kv_len : 0;
        double fresh = dec ? 1.0 : pc->chunk;
        if (!(fresh >= 1)) {
            *reason = "attn_prefill needs chunk";
            return -1;
        }
        /* one layer's fused attention (FlashAttention / paged attention): Q in, K and V read
         * once, O out; scores and softmax on chip */
        double pairs = B * (fresh * past + fresh * (fresh + 1) / 2);
        double keys = B * (past + fresh);
        double flops = 4 * pairs * H * d + 5 * pairs * H;
        double bytes = 2 * B * fresh * H * d * a + 2 * keys * Hkv * d * a;
        *out = kernel_time(hw, tu, comp, flops, bytes, 0, 0);
        /* the in-kernel append runs before each CTA's first tile, a synchronous copy through
         * registers: it adds to the attention instead of overlapping it */
        if (!dec && pc->attn_kernel == PRED_AK_FLASH_KVCACHE)
            *out += B * calib_kvcache_append_bytes(fresh, past, H, d, a) /
                    roof_tuned_bandwidth(hw, tu, hw->memory_bandwidth_bytes_per_s);
        if (dec) {
            double tm = pc->attn_kernel == PRED_AK_FLASH_KVCACHE
                            ? calib_fa2_decode_s(hw, tu, B, Hkv, past + 1, d, 2 * d * a)
                            : roof_attn_decode_s(hw, tu, B, Hkv, past + 1, 2 * d * a);
            if (tm >= 0) {
                double tc = flops / roof_tuned_peak(hw, tu, comp, NULL);
                *out = (tc > tm ? tc : tm) + tu->kernel_overhead_s;
            }
        }
        return 0;
    }
    *reason = "unsupported kernel op";
    return -1;
}

/* A decode or prefill row's metric from one step's result: tokens/s or the step time in ms;
 * -1 with `wrong` as the reason for any other metric. */
static int
step_metric(const struct pred_case *pc, const struct roof_result *r, const char *wrong,
            double *predicted, const char **reason)
{
    if (pc->metric == PRED_TOKENS_PER_S)
        *predicted = r->tokens_per_s_total;
    else if (pc->metric == PRED_TIME_MS)
        *predicted = r->time_s * 1e3;
    else {
        *reason = wrong;
        return -1;
    }
    return 0;
}

double
calib_mean_bucketed(double input, double steps, double bucket)
{
    /* sum over k = 1..steps of ceil((input + k) / bucket) x bucket, by whole buckets: the keys
     * input+1 .. input+steps fall in buckets j = ceil((input+1)/B) .. ceil((input+steps)/B) */
    if (!(steps >= 1) || !(bucket > 0))
        return input + (steps + 1) / 2.0;
    double first = input + 1, last = input + steps, b = bucket;
    double j1 = ceil(first / b), j2 = ceil(last / b);
    if (j1 == j2)
        return j1 * b;
    double n = j2 - j1 - 1; /* whole buckets between the first and the last */
    double sum = (j1 * b - first + 1) * j1 * b + (last - (j2 - 1) * b) * j2 * b +
                 b * b * n * (j1 + j2) / 2.0;
    return sum / steps;
}

int
pred_case_eval(const struct pred_case *pc, const struct hw_profile *hw,
               const struct mdl_profile *model, const struct roof_tuning *tuning, double *predicted,
               const char **reason)
{
    static const char *dummy;
    if (!reason)
        reason = &dummy;
    *reason = NULL;
    if (pc->phase == PRED_KERNEL) {
        double t;
        if (kernel_case(pc, hw, model, tuning, &t, reason) != 0)
            return -1;
        if (pc->metric != PRED_TIME_MS) {
            *reason = "kernel rows are measured in time_ms";
            return -1;
        }
        *predicted = t * 1e3;
        return 0;
    }
    if (!model) {
        *reason = "no model profile";
        return -1;
    }
    struct roof_config c;
    roof_config_init(&c, hw, model, ROOF_DECODE);
    c.weights = pc->weights;
    c.act = roof_default_act(pc->weights);
    c.kv = pc->kv;
    c.batch = pc->batch >= 1 ? pc->batch : 1;
    c.tuning = *tuning;
    /* the run's own settings (llama-bench -ub, -fa) over the engine's defaults */
    if (pc->ubatch > 0)
        c.tuning.ubatch_tokens = pc->ubatch;
    if (pc->flash_attention == PRED_FA_ON)
        c.flash_attention_asked = true;
    else if (pc->flash_attention == PRED_FA_OFF)
        c.tuning.no_flash_attention = true;
    if (pc->quantized_gemm == PRED_QG_MMQ) {
        if (!(c.tuning.mmq_tile_tokens > 0 && c.tuning.mmq_tile_rows > 0)) {
            *reason = "the row asks for MMQ and the engine profile has no mmq_tile_tokens / "
                      "mmq_tile_rows";
            return -1;
        }
        c.tuning.mmq = true;
    }
    if (pc->metal_mm_above > 0) {
        if (!(c.tuning.metal.mm_above > 0)) {
            *reason = "the row sets metal_mm_above and the engine profile has no metal section";
            return -1;
        }
        /* an older build: its own mat-mat threshold, and no mul_mv_ext below it */
        c.tuning.metal.mm_above = pc->metal_mm_above;
        memset(c.tuning.metal.ext_group, 0, sizeof c.tuning.metal.ext_group);
    }
    if (pc->metal_no_mm_id) {
        if (!(c.tuning.metal.mm_above > 0 && c.tuning.metal.mm_id_min > 0)) {
            *reason = "the row sets metal_mul_mm_id and the engine profile has no metal.mm_id_min";
            return -1;
        }
        /* no mat-mat kernel for the experts: mul_mv_id at every token count */
        c.tuning.metal.mm_id_min = HUGE_VAL;
    }
    int count = pc->count > 0 ? pc->count : 1;
    if (count > 1) {
        if (pc->layer_split)
            c.pp = count; /* layers on successive devices: a token crosses each in turn */
        else
            c.tp = count;
        if (roof_config_problem(&c)) {
            *reason = roof_config_problem(&c);
            return -1;
        }
    }
    struct roof_result r;
    if (pc->phase == PRED_DECODE) {
        c.context = pc->context >= 0 ? pc->context : 0;
        if (roof_evaluate(&c, &r) != 0) {
            *reason = "the engine cannot evaluate this configuration";
            return -1;
        }
        return step_metric(pc, &r, "decode rows are measured in tokens_per_s or time_ms", predicted,
                           reason);
    }
    if (pc->phase == PRED_PREFILL) {
        c.phase = ROOF_PREFILL;
        c.prompt = pc->prompt;
        c.prefill_past = pc->depth > 0 ? pc->depth : 0;
        if (!(c.prompt >= 1) || roof_evaluate(&c, &r) != 0) {
            *reason = "prefill needs a prompt length";
            return -1;
        }
        return step_metric(pc, &r, "prefill rows are measured in tokens_per_s or time_ms",
                           predicted, reason);
    }
    /* end to end: prefill of the batch, then output - 1 decode steps at the mean context; a
     * batch whose KV cache does not fit runs in waves of the largest batch that does (the
     * engine admits what fits and queues the rest) */
    if (!(pc->input >= 1) || !(pc->output >= 1)) {
        *reason = "e2e needs input and output";
        return -1;
    }
    double waves = 1.0;
    {
        struct roof_config m = c;
        m.phase = ROOF_DECODE;
        m.context = pc->input + pc->output - 1;
        long bmax = roof_max_batch(&m);
        if (bmax < 1) {
            *reason = "the model does not fit in memory";
            return -1;
        }
        if ((double)bmax < c.batch) {
            waves = c.batch / (double)bmax;
            c.batch = (double)bmax;
        }
    }
    c.phase = ROOF_PREFILL;
    c.prompt = pc->input;
    if (roof_evaluate(&c, &r) != 0) {
        *reason = "the engine cannot evaluate this configuration";
        return -1;
    }
    double total = r.time_s;
    c.phase = ROOF_DECODE;
    c.context = pc->input + pc->output / 2.0;
    if (c.tuning.kv_bucket_tokens > 0 && pc->output > 1) {
        /* static shapes: step k (1..output-1) attends over input + k keys padded to the bucket;
         * the attention is linear in them, so the mean padded length stands for all steps */
        c.context = calib_mean_bucketed(pc->input, pc->output - 1, c.tuning.kv_bucket_tokens) - 1;
        c.tuning.kv_bucket_tokens = 0;
    }
    if (roof_evaluate(&c, &r) != 0) {
        *reason = "the engine cannot evaluate this configuration";
        return -1;
    }
    total += (pc->output - 1) * r.time_s;
    total *= waves;
    if (pc->metric == PRED_LATENCY_S)
        *predicted = total;
    else if (pc->metric == PRED_TIME_MS)
        *predicted = total * 1e3;
    else if (pc->metric == PRED_TOKENS_PER_S)
        *predicted = c.batch * waves * pc->output / total;
    else {
        *reason = "unsupported metric";
        return -1;
    }
    return 0;
}
