/* Measurement file loader and engine profile loader (strict, positioned, collect-all). */
#include "io/measure.h"

#include "io/profiles.h"
#include "io/ydoc.h"
#include "sim/sim.h"
#include "util/alloc.h"
#include "util/array.h"
#include "util/strs.h"
#include "util/strset.h"

#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#define N(a) (ARRAY_SIZE(a))

static const char *const ROW_KEYS[] = {"id",
                                       "source",
                                       "hardware",
                                       "count",
                                       "parallel",
                                       "model",
                                       "weights",
                                       "kv",
                                       "engine",
                                       "phase",
                                       "batch",
                                       "context",
                                       "prompt",
                                       "input",
                                       "output",
                                       "op",
                                       "m",
                                       "n",
                                       "k",
                                       "tokens",
                                       "tp",
                                       "kv_len",
                                       "quantized_gemm",
                                       "chunk",
                                       "bytes",
                                       "metric",
                                       "value",
                                       "note",
                                       "ubatch",
                                       "depth",
                                       "flash_attention",
                                       "metal_mm_above",
                                       "metal_mul_mm_id",
                                       "attn_kernel"};
static const char *const PHASES[PRED_PHASE_COUNT] = {"decode", "prefill", "e2e", "kernel"};
static const char *const METRICS[] = {"tokens_per_s", "time_ms", "latency_s"};
/* The engines a measurement may name without a profile of their own: the generic kernel model
 * predicts them (engine_generic). With the engine_profiles/ files they are every engine name
 * (engine_names); an engine with a profile needs no line here. */
static const char *const GENERIC_ENGINES[] = {"lmdeploy", "deepspeed-mii", "mlc-llm",
                                              "mlx",      "ollama",        "gpt-fast"};
/* Serving engines whose profile's four kernel-model numbers were fitted on their own rows, which
 * the generic model averages: vLLM V0's 2024 fit, not V1's profile, whose kernel numbers are
 * TensorRT-LLM's (`like`) and would count it twice (docs/calibration.md#vllm-v0-and-v1). */
static const char *const PROFILED[] = {"llama.cpp", "vllm-v0", "tensorrt-llm", "deepspeed"};
/* Engines that run another engine's kernels: the other's profile applies. Ollama serves models
 * through llama.cpp's ggml backend (github.com/ollama/ollama, llama/ and ml/backend/ggml/). */
static const char *const ALIAS[][2] = {{"ollama", "llama.cpp"}};
static const char *const OPS[] = {"matmul",      "mlp_up",       "mlp_down", "qkv",
                                  "attn_decode", "attn_prefill", "allreduce"};

const char *
pred_phase_name(enum pred_phase p)
{
    return p < PRED_PHASE_COUNT ? PHASES[p] : "?";
}

static int
pick(struct ycheck *y, const struct ynode *map, const char *key, const char *v,
     const char *const *allowed, size_t n)
{
    for (size_t i = 0; i < n; i++)
        if (strcmp(v, allowed[i]) == 0)
            return (int)i;
    const char *hint = str_closest(v, allowed, n);
    if (hint)
        ycheck_error(y, ynode_get(map, key), "'%s' is '%s' (did you mean '%s'?)", key, v, hint);
    else
        ycheck_error(y, ynode_get(map, key), "'%s' is '%s', which is not one of the known values",
                     key, v);
    return -1;
}

/* Upper bounds (docs/calibration.md, limits): no published run comes near them; beyond them
 * products of shapes lose meaning. Lengths and shapes in tokens or elements, bytes per collective.
 */
#define MAX_LENGTH 1e9
#define MAX_BYTES 1e15
#define MAX_DEVICES 65536
/* micro-batch tokens, a row's as an engine profile's (engine_profile loader below) */
#define MAX_UBATCH 1000000L

static bool
num(struct ycheck *y, const struct ynode *e, const char *key, double min, double max, double *out)
{
    double v;
    if (!ycheck_num(y, e, "", key, false, &v))
        return false;
    if (v < min) {
        ycheck_error(y, ynode_get(e, key), "'%s' must be at least %g, got %g", key, min, v);
        return false;
    }
    if (v > max) {
        ycheck_error(y, ynode_get(e, key), "'%s' must be at most %g, got %g", key, max, v);
        return false;
    }
    *out = v;
    return true;
}

/* A device count: a whole number in [1, MAX_DEVICES] (3e9 once became count 1 through an int
 * cast). */
static bool
devices(struct ycheck *y, const struct ynode *e, const char *key, int *out)
{
    double v;
    if (!num(y, e, key, 1, MAX_DEVICES, &v))
        return false;
    if (v != (double)(long)v) {
        ycheck_error(y, ynode_get(e, key), "'%s' must be a whole number, got %g", key, v);
        return false;
    }
    *out = (int)v;
    return true;
}

/* the key is there with a value (maybe a bad one, which has its own error) */
static bool
given(const struct ynode *e, const char *key)
{
    const struct ynode *v = ynode_get(e, key);
    return v && !ynode_is_null(v);
}

static void
row_free(struct meas_row *r)
{
    free(r->id);
    free(r->source);
    free(r->hardware);
    free(r->model);
    free(r->engine);
    free(r->note);
    free(r->op_name);
}

void
meas_set_free(struct meas_set *s)
{
    if (!s)
        return;
    for (int i = 0; i < s->n; i++)
        row_free(&s->rows[i]);
    free(s->rows);
    free(s->path);
    free(s);
}

static char *
dup_or_null(const char *s)
{
    return s ? str_dup(s) : NULL;
}

static void
fill_set(struct ycheck *y, const struct ynode *root, void *obj, const void *arg)
{
    (void)arg;
    struct meas_set *set = obj;
    set->path = str_dup(y->path);
    char **engines;
    int n_engines = engine_names(true, &engines);
    struct strset ids; /* borrows from the tree */
    strset_init(&ids);
    set->rows = calloc(root->n ? root->n : 1, sizeof *set->rows);
    if (!set->rows)
        ycheck_error(y, root, "out of memory (while reading %zu rows)", root->n);
    for (size_t i = 0; set->rows && i < root->n; i++) {
        const struct ynode *e = root->items[i];
        if (e->kind != YNODE_MAP) {
            ycheck_error(y, e, "row %zu must be a mapping of keys", i + 1);
            continue;
        }
        ycheck_keys(y, e, "", ROW_KEYS, N(ROW_KEYS));
        size_t errs_before_row = err_count(y->errs, ERR_ERROR);
        struct meas_row r;
        memset(&r, 0, sizeof r);
        r.line = e->line;
        const char *s = NULL;
        const char *id = NULL, *src = NULL, *hw = NULL, *model = NULL, *eng = NULL;
        ycheck_str(y, e, "", "id", true, &id);
        ycheck_str(y, e, "", "source", true, &src);
        ycheck_str(y, e, "", "hardware", true, &hw);
        ycheck_str(y, e, "", "model", false, &model);
        if (ycheck_str(y, e, "", "engine", true, &eng))
            pick(y, e, "engine", eng, (const char *const *)engines, (size_t)n_engines);
        int ph = -1, met = -1;
        if (ycheck_str(y, e, "", "phase", true, &s))
            ph = pick(y, e, "phase", s, PHASES, N(PHASES));
        if (ycheck_str(y, e, "", "metric", true, &s))
            met = pick(y, e, "metric", s, METRICS, N(METRICS));
        if (ycheck_num(y, e, "", "value", true, &r.value) && !(r.value > 0))
            ycheck_error(y, ynode_get(e, "value"), "'value' must be positive, got %g", r.value);
        r.pc.weights = DT_FP16;
        r.pc.kv = DT_FP16;
        char list[256];
        if (ycheck_str(y, e, "", "weights", true, &s) && dtype_parse(s, &r.pc.weights) != 0)
            ycheck_error(y, ynode_get(e, "weights"), "'weights' is '%s', an unknown format (%s)", s,
                         dtype_list(list, sizeof list, true));
        if (ycheck_str(y, e, "", "kv", false, &s) && dtype_parse(s, &r.pc.kv) != 0)
            ycheck_error(y, ynode_get(e, "kv"), "'kv' is '%s', an unknown format (%s)", s,
                         dtype_list(list, sizeof list, false));
        else if (s && given(e, "kv") && dtype_is_mix(r.pc.kv))
            ycheck_error(y, ynode_get(e, "kv"),
                         "'kv' is '%s', a mix of weight formats, not a cache format", s);
        r.pc.count = 1;
        devices(y, e, "count", &r.pc.count);
        if (ycheck_str(y, e, "", "parallel", false, &s)) {
            static const char *const PAR[] = {"tp", "layer"};
            int p = pick(y, e, "parallel", s, PAR, 2);
            r.pc.layer_split = p == 1;
        }
        r.pc.batch = 1;
        r.pc.context = r.pc.prompt = r.pc.input = r.pc.output = -1;
        r.pc.kv_len = -1;
        num(y, e, "batch", 1, MAX_LENGTH, &r.pc.batch);
        num(y, e, "context", 0, MAX_LENGTH, &r.pc.context);
        num(y, e, "prompt", 1, MAX_LENGTH, &r.pc.prompt);
        num(y, e, "input", 1, MAX_LENGTH, &r.pc.input);
        num(y, e, "output", 1, MAX_LENGTH, &r.pc.output);
        num(y, e, "m", 1, MAX_LENGTH, &r.pc.m);
        num(y, e, "n", 1, MAX_LENGTH, &r.pc.n);
        num(y, e, "k", 1, MAX_LENGTH, &r.pc.k);
        num(y, e, "tokens", 1, MAX_LENGTH, &r.pc.tokens);
        devices(y, e, "tp", &r.pc.tp);
        num(y, e, "kv_len", 0, MAX_LENGTH, &r.pc.kv_len);
        num(y, e, "chunk", 1, MAX_LENGTH, &r.pc.chunk);
        num(y, e, "bytes", 1, MAX_BYTES, &r.pc.bytes);
        /* the run's own llama-bench settings: -ub, pp N @ dD, -fa (engine defaults otherwise) */
        if (num(y, e, "ubatch", 1, (double)MAX_UBATCH, &r.pc.ubatch) &&
            r.pc.ubatch != floor(r.pc.ubatch))
            ycheck_error(y, ynode_get(e, "ubatch"), "'ubatch' must be a whole number, got %g",
                         r.pc.ubatch);
        num(y, e, "depth", 0, MAX_LENGTH, &r.pc.depth);
        bool fa;
        if (ycheck_bool(y, e, "", "flash_attention", &fa))
            r.pc.flash_attention = fa ? PRED_FA_ON : PRED_FA_OFF;
        if (num(y, e, "metal_mm_above", 1, ROOF_METAL_EXT_MAX, &r.pc.metal_mm_above) &&
            r.pc.metal_mm_above != floor(r.pc.metal_mm_above))
            ycheck_error(y, ynode_get(e, "metal_mm_above"),
                         "'metal_mm_above' must be a whole number of tokens, got %g",
                         r.pc.metal_mm_above);
        bool mmid;
        if (ycheck_bool(y, e, "", "metal_mul_mm_id", &mmid))
            r.pc.metal_no_mm_id = !mmid;
        static const char *const QGEMM[] = {"engine", "mmq"};
        if (ycheck_str(y, e, "", "quantized_gemm", false, &s)) {
            int q = pick(y, e, "quantized_gemm", s, QGEMM, N(QGEMM));
            r.pc.quantized_gemm = q == 1 ? PRED_QG_MMQ : PRED_QG_DEFAULT;
        }
        static const char *const AKERN[] = {"flash", "flash_kvcache"};
        if (ycheck_str(y, e, "", "attn_kernel", false, &s)) {
            int k = pick(y, e, "attn_kernel", s, AKERN, N(AKERN));
            r.pc.attn_kernel = k == 1 ? PRED_AK_FLASH_KVCACHE : PRED_AK_DEFAULT;
        }
        if (ycheck_str(y, e, "", "op", false, &s) && pick(y, e, "op", s, OPS, N(OPS)) >= 0)
            r.op_name = str_dup(s);
        if (given(e, "attn_kernel") && !(r.op_name && (strcmp(r.op_name, "attn_prefill") == 0 ||
                                                       strcmp(r.op_name, "attn_decode") == 0)))
            ycheck_error(y, ynode_get(e, "attn_kernel"),
                         "'attn_kernel' (the attention call the run timed) is for attn_prefill "
                         "and attn_decode kernel rows");
        if (ycheck_str(y, e, "", "note", false, &s))
            r.note = str_dup(s);
        /* what each phase needs */
        /* (a key given with a bad value has its own error already) */
        if (ph == 0 && !given(e, "context"))
            ycheck_error(y, e, "a decode row needs 'context'");
        if (ph == 1 && !given(e, "prompt"))
            ycheck_error(y, e, "a prefill row needs 'prompt'");
        if (ph == 2 && (!given(e, "input") || !given(e, "output")))
            ycheck_error(y, e, "an e2e row needs 'input' and 'output'");
        if (ph == 3 && !r.op_name)
            ycheck_error(y, e, "a kernel row needs 'op'");
        if (ph >= 0 && ph != 1 && given(e, "depth"))
            ycheck_error(y, ynode_get(e, "depth"),
                         "'depth' (tokens in the cache before the prompt) is for prefill rows; a "
                         "decode row's cache is its 'context'");
        if (ph != 3 && !model)
            ycheck_error(y, e, "a %s row needs 'model'", ph >= 0 ? PHASES[ph] : "");
        /* a hash set: comparing every pair took 36 s for 80,000 rows */
        int first = 0;
        int added = id ? strset_add(&ids, id, e->line, &first) : 1;
        if (added == 0)
            ycheck_error(y, ynode_get(e, "id"), "duplicate id '%s' (first at line %d)", id, first);
        else if (added < 0)
            ycheck_error(y, e, "out of memory (while checking for duplicate ids)");
        if (err_count(y->errs, ERR_ERROR) > errs_before_row) {
            free(r.op_name);
            free(r.note);
            continue;
        }
        r.pc.phase = (enum pred_phase)ph;
        r.pc.metric = (enum pred_metric)met;
        r.id = dup_or_null(id);
        r.source = dup_or_null(src);
        r.hardware = dup_or_null(hw);
        r.model = dup_or_null(model);
        r.engine = dup_or_null(eng);
        r.pc.op = r.op_name;
        set->rows[set->n++] = r;
    }
    strset_release(&ids);
    engine_names_free(engines, n_engines);
}

static void
free_set(void *s)
{
    meas_set_free(s);
}

static const struct ydoc_format MEASUREMENTS = {.what = "a measurement file",
                                                .root = YNODE_SEQ,
                                                .keys = NULL,
                                                .n_keys = 0,
                                                .size = sizeof(struct meas_set),
                                                .fill = fill_set,
                                                .free = free_set};

struct meas_set *
meas_load(const char *path, struct err_list *errs)
{
    return ydoc_load(&MEASUREMENTS, path, NULL, errs);
}

/* The serving keys of an engine profile (load_serving, engine_serving_key) */
#define SERVING_KEYS                                                                               \
    "admission", "max_batch", "max_tokens_per_step", "small_memory", "max_batch_small",            \
        "max_tokens_per_step_small", "max_prefill_tokens", "reserve_fraction", "reserve",          \
        "kv_fraction", "compute_buffers", "separate_prefill", "async_scheduling", "prefill_graph", \
        "eager_launch", "tokenize_per_token", "tokenize_serial", "kv_window_blocks", "attn_dp",    \
        "hybrid_block_align"

static const char *const ENGINE_KEYS[] = {"name",
                                          "kernel_overhead",
                                          "step_overhead",
                                          "token_overhead",
                                          "memory_efficiency",
                                          "compute_efficiency",
                                          "bytes_in_flight_per_unit",
                                          "dequant_scale",
                                          "dequant_buffer",
                                          "dequant_buffer_above",
                                          "ubatch",
                                          "mmq_tile_tokens",
                                          "mmq_tile_rows",
                                          "mmq_above",
                                          "mmq_id_above",
                                          "mmq_tile_step",
                                          "flash_attention",
                                          "score_bytes",
                                          "fa_mask_bytes",
                                          "pipeline_copies",
                                          "allreduce",
                                          "custom_allreduce_max",
                                          "custom_allreduce_latency",
                                          "triton_moe_kernels",
                                          "moe_block_fp8_vs_bf16",
                                          "moe_sum_kernel",
                                          "marlin_moe_vs_peak",
                                          "marlin_moe_kernels",
                                          "fused_moe_kernels",
                                          "fused_moe_quant_kernels",
                                          "sampler_kernels",
                                          "kv_bucket",
                                          "metal",
                                          "fp16_accumulate",
                                          SERVING_KEYS,
                                          "attn_dp_dense",
                                          "like",
                                          "notes",
                                          "sources",
                                          "provenance"};
/* provenance is free text: accepted, not interpreted */

/* the serving keys of an engine profile (docs/simulate.md#engines) */
static void
load_serving(struct ycheck *y, const struct ynode *root, struct engine_serving *sv)
{
    const char *s;
    if (ycheck_str(y, root, "", "admission", false, &s)) {
        if (pick(y, root, "admission", s, SIM_ADMISSION_NAMES, SIM_ADMIT_COUNT) >= 0)
            snprintf(sv->admission, sizeof sv->admission, "%s", s);
    }
    const char *lk[6] = {"max_batch",          "max_tokens_per_step",
                         "max_batch_small",    "max_tokens_per_step_small",
                         "max_prefill_tokens", "hybrid_block_align"};
    long *ld[6] = {&sv->max_batch,          &sv->max_tokens_per_step,
                   &sv->max_batch_small,    &sv->max_tokens_per_step_small,
                   &sv->max_prefill_tokens, &sv->hybrid_block_align};
    for (int i = 0; i < 6; i++)
        ycheck_long(y, root, "", lk[i], false, 1, ld[i]);
    if (sv->hybrid_block_align > 1024)
        ycheck_error(y, ynode_get(root, "hybrid_block_align"),
                     "'hybrid_block_align' is %ld tokens, above 1024 (vLLM aligns to 16)",
                     sv->hybrid_block_align);
    ycheck_qty(y, root, "", "small_memory", UNIT_BYTES, false, &sv->small_memory_bytes);
    ycheck_qty(y, root, "", "reserve", UNIT_BYTES, false, &sv->reserve_bytes);
    const char *fk[2] = {"reserve_fraction", "kv_fraction"};
    double *fd[2] = {&sv->reserve_fraction, &sv->kv_fraction};
    for (int i = 0; i < 2; i++) {
        double v;
        if (ycheck_num(y, root, "", fk[i], false, &v)) {
            if (!(v >= 0 && v <= 1) || (i == 1 && v == 0))
                ycheck_error(y, ynode_get(root, fk[i]), "'%s' must be a fraction in %s, got %g",
                             fk[i], i == 1 ? "(0, 1]" : "[0, 1]", v);
            else
                *fd[i] = v;
        }
    }
    ycheck_bool(y, root, "", "compute_buffers", &sv->compute_buffers);
    ycheck_bool(y, root, "", "separate_prefill", &sv->separate_prefill);
    ycheck_bool(y, root, "", "async_scheduling", &sv->async_scheduling);
    ycheck_bool(y, root, "", "kv_window_blocks", &sv->kv_window_blocks);
    if (ycheck_str(y, root, "", "prefill_graph", false, &s) &&
        pick(y, root, "prefill_graph", s, SIM_PREFILL_GRAPH_NAMES, SIM_PREFILL_GRAPH_COUNT) >= 0)
        snprintf(sv->prefill_graph, sizeof sv->prefill_graph, "%s", s);
    static const char *const DP[] = {"none", "total", "per_rank"};
    if (ycheck_str(y, root, "", "attn_dp", false, &s) &&
        pick(y, root, "attn_dp", s, DP, N(DP)) >= 0)
        snprintf(sv->attn_dp, sizeof sv->attn_dp, "%s", s);
}

bool
engine_serving_key(const char *key)
{
    static const char *const K[] = {SERVING_KEYS};
    for (size_t i = 0; i < sizeof K / sizeof K[0]; i++)
        if (strcmp(key, K[i]) == 0)
            return true;
    return false;
}

size_t
engine_serving_format(const struct engine_profile *e, char *buf, size_t n)
{
    const struct engine_serving *sv = &e->serving;
    size_t k = 0;
#define PUT(...)                                                                                   \
    do {                                                                                           \
        int w = snprintf(buf + (k < n ? k : n), k < n ? n - k : 0, __VA_ARGS__);                   \
        k += w > 0 ? (size_t)w : 0;                                                                \
    } while (0)
    if (n)
        buf[0] = 0;
    if (sv->admission[0])
        PUT("admission: %s\n", sv->admission);
    if (sv->max_batch > 0)
        PUT("max_batch: %ld\n", sv->max_batch);
    if (sv->max_tokens_per_step > 0)
        PUT("max_tokens_per_step: %ld\n", sv->max_tokens_per_step);
    if (sv->small_memory_bytes > 0)
        PUT("small_memory: %.0f B\n", sv->small_memory_bytes);
    if (sv->max_batch_small > 0)
        PUT("max_batch_small: %ld\n", sv->max_batch_small);
    if (sv->max_tokens_per_step_small > 0)
        PUT("max_tokens_per_step_small: %ld\n", sv->max_tokens_per_step_small);
    if (sv->max_prefill_tokens > 0)
        PUT("max_prefill_tokens: %ld\n", sv->max_prefill_tokens);
    if (sv->reserve_fraction >= 0)
        PUT("reserve_fraction: %g\n", sv->reserve_fraction);
    if (sv->reserve_bytes > 0)
        PUT("reserve: %.0f B\n", sv->reserve_bytes);
    if (sv->kv_fraction > 0)
        PUT("kv_fraction: %g\n", sv->kv_fraction);
    if (sv->compute_buffers)
        PUT("compute_buffers: true\n");
    if (sv->separate_prefill)
        PUT("separate_prefill: true\n");
    if (sv->async_scheduling)
        PUT("async_scheduling: true\n");
    if (sv->prefill_graph[0])
        PUT("prefill_graph: %s\n", sv->prefill_graph);
    if (sv->eager_launch_s > 0)
        PUT("eager_launch: %.1f us\n", sv->eager_launch_s * 1e6);
    if (sv->tokenize_per_token_s > 0)
        PUT("tokenize_per_token: %.3g us\n", sv->tokenize_per_token_s * 1e6);
    if (sv->tokenize_serial)
        PUT("tokenize_serial: true\n");
    if (sv->kv_window_blocks)
        PUT("kv_window_blocks: true\n");
    if (sv->hybrid_block_align > 0)
        PUT("hybrid_block_align: %ld\n", sv->hybrid_block_align);
    if (sv->attn_dp[0])
        PUT("attn_dp: %s\n", sv->attn_dp);
#undef PUT
    return k;
}
/* Engine ranges (docs/calibration.md, limits): fitted overheads are microseconds to
 * milliseconds; a second per kernel or per step is already absurd. */
static const struct yrange OVERHEAD_RANGE = {0, 1.0, 0, "s"};
/* a tokenizer's time per prompt token: about a microsecond on a server CPU
 * (docs/simulate.md#tokenisation); a millisecond per token is already absurd */
static const struct yrange TOKENIZE_RANGE = {0, 1e-3, 0, "s"};
static const struct yrange INFLIGHT_RANGE = {1.0, 1e9, 0, "B"};
/* vLLM's buffer is 8 MiB; a terabyte is already absurd */
static const struct yrange ALLREDUCE_RANGE = {1.0, 1e12, 0, "B"};
/* a barrier over NVLink / xGMI: at most a millisecond */
static const struct yrange AR_LATENCY_RANGE = {0, 1e-3, 0, "s"};

/* The kernel-model numbers `like: NAME` takes from engine_profiles/NAME.yaml beside the file
 * when the file does not give them: an engine that runs the same kernel libraries as another
 * (docs/calibration.md#engines-without-a-profile). */
static const char *const LIKE_KEYS[] = {"kernel_overhead", "step_overhead", "memory_efficiency",
                                        "compute_efficiency"};

static struct engine_profile *engine_load_depth(const char *path, struct err_list *errs, int depth);

/* Fill what `root` does not give from the profile named `like` in the directory of `path`.
 * Returns 0, or -1 after adding an error at the key. */
static int
engine_like(struct ycheck *y, const struct ynode *root, const char *path, const char *like,
            struct engine_profile *e, int depth)
{
    const struct ynode *at = ynode_get(root, "like");
    if (depth > 0 || strchr(like, '/') || strcmp(like, e->name ? e->name : "") == 0) {
        ycheck_error(y, at,
                     "'like' names another engine profile in the same directory that has no "
                     "'like' of its own, got '%s'",
                     like);
        return -1;
    }
    char p[PATH_MAX + 128];
    const char *slash = strrchr(path, '/');
    int dl = slash ? (int)(slash - path) : 1;
    snprintf(p, sizeof p, "%.*s/%s.yaml", dl, slash ? path : ".", like);
    struct err_list quiet = {0};
    struct engine_profile *o = engine_load_depth(p, &quiet, depth + 1);
    err_list_release(&quiet);
    if (!o) {
        ycheck_error(y, at,
                     "'like': cannot load the engine profile '%s' (%s), or it has a 'like' of "
                     "its own",
                     like, p);
        return -1;
    }
    double *dst[] = {&e->kernel_overhead_s, &e->step_overhead_s, &e->memory_efficiency,
                     &e->compute_efficiency};
    const double src[] = {o->kernel_overhead_s, o->step_overhead_s, o->memory_efficiency,
                          o->compute_efficiency};
    for (size_t i = 0; i < N(LIKE_KEYS); i++)
        if (!ynode_get(root, LIKE_KEYS[i]))
            *dst[i] = src[i];
    /* the same kernels include the same all-reduce, unless the file says otherwise */
    if (!ynode_get(root, "custom_allreduce_max") && !ynode_get(root, "allreduce"))
        e->custom_allreduce_max_bytes = o->custom_allreduce_max_bytes;
    if (!ynode_get(root, "custom_allreduce_latency") && !ynode_get(root, "allreduce"))
        e->custom_allreduce_latency_s = o->custom_allreduce_latency_s;
    engine_profile_free(o);
    return 0;
}

/* A whole number from 1 to `max` (tokens, rows, copies): `key` of an engine profile, if given */
/* An optional fraction in (0, 1] at root.key, a kernel's rate against `of`; 0 when absent or
 * refused (with its position). */
static void
engine_fraction(struct ycheck *y, const struct ynode *root, const char *key, const char *of,
                double *out)
{
    if (ycheck_num(y, root, "", key, false, out) && !(*out > 0 && *out <= 1)) {
        ycheck_error(y, ynode_get(root, key), "'%s' must be in (0, 1] (a fraction of %s), got %g",
                     key, of, *out);
        *out = 0;
    }
}

static void
engine_count(struct ycheck *y, const struct ynode *root, const char *key, long max, double *out)
{
    long v;
    if (!ycheck_long(y, root, "", key, false, 1, &v))
        return;
    if (v > max)
        ycheck_error(y, ynode_get(root, key), "'%s' must be at most %ld, got %ld", key, max, v);
    else
        *out = (double)v;
}

/* An optional size in bytes per element of an engine profile, in (0, max]; `per` names the
 * element in the message */
static void
engine_bytes_per(struct ycheck *y, const struct ynode *root, const char *key, double max,
                 const char *per, double *out)
{
    double v;
    if (!ycheck_num(y, root, "", key, false, &v))
        return;
    if (!(v > 0 && v <= max))
        ycheck_error(y, ynode_get(root, key), "'%s' must be in (0, %g] bytes per %s, got %g", key,
                     max, per, v);
    else
        *out = v;
}

/* A required whole number from 1 to `max` of the `metal` section (`unit` after the bound in the
 * message); false when missing or out of range */
static bool
metal_count(struct ycheck *y, const struct ynode *sec, const char *key, long max, const char *unit,
            double *out)
{
    long v;
    if (!ycheck_long(y, sec, "metal", key, true, 1, &v))
        return false;
    *out = (double)v;
    if (v <= max)
        return true;
    ycheck_error(y, ynode_get(sec, key), "'metal.%s' must be at most %ld%s, got %ld", key, max,
                 unit, v);
    return false;
}

/* A list `metal.key` of 1..ROOF_METAL_OCC_MAX positive numbers, each above the one before
 * when `ascending`, into out[]: its length, or -1 after an error. */
static int
metal_list(struct ycheck *y, const struct ynode *sec, const char *key, bool ascending, double *out)
{
    const struct ynode *g = ynode_get(sec, key);
    if (g->kind != YNODE_SEQ || g->n < 1 || g->n > ROOF_METAL_OCC_MAX) {
        ycheck_error(y, g, "'metal.%s' must be a list of 1 to %d numbers", key, ROOF_METAL_OCC_MAX);
        return -1;
    }
    char dotted[64];
    snprintf(dotted, sizeof dotted, "metal.%s", key);
    ycheck_note_number(y, dotted, g);
    for (size_t i = 0; i < g->n; i++) {
        double v;
        if (ynode_double(g->items[i], &v) != 0 || !(v > 0 && v < 1e6)) {
            ycheck_error(y, g->items[i], "'metal.%s' item %zu must be a positive number", key,
                         i + 1);
            return -1;
        }
        if (ascending && i > 0 && !(v > out[i - 1])) {
            ycheck_error(y, g->items[i], "'metal.%s' item %zu (%g) must be above item %zu (%g)",
                         key, i + 1, v, i, out[i - 1]);
            return -1;
        }
        out[i] = v;
    }
    return (int)g->n;
}

/* mul_mm's threadgroup (mm_simdgroups) and the core's issue rate by resident simdgroups
 * (core_simds, core_cycles): all three or none */
static bool
load_metal_occupancy(struct ycheck *y, const struct ynode *sec, struct roof_metal *m)
{
    bool has[3] = {ynode_get(sec, "mm_simdgroups") != NULL, ynode_get(sec, "core_simds") != NULL,
                   ynode_get(sec, "core_cycles") != NULL};
    if (!has[0] && !has[1] && !has[2])
        return true;
    if (!(has[0] && has[1] && has[2])) {
        ycheck_error(y, sec,
                     "'metal' needs mm_simdgroups, core_simds and core_cycles together (the "
                     "core's rate by resident simdgroups)");
        return false;
    }
    if (!metal_count(y, sec, "mm_simdgroups", 32, " simdgroups", &m->mm_simdgroups))
        return false;
    int ns = metal_list(y, sec, "core_simds", true, m->core_simds);
    int nc = metal_list(y, sec, "core_cycles", false, m->core_cycles);
    if (ns < 0 || nc < 0)
        return false;
    if (ns != nc) {
        ycheck_error(y, ynode_get(sec, "core_cycles"),
                     "'metal.core_cycles' lists %d numbers and 'metal.core_simds' %d: one a point",
                     nc, ns);
        return false;
    }
    m->occ_n = ns;
    return true;
}

/* The `metal` section (docs/physics.md#metal-kernels): ggml-metal's weight kernels by the
 * number of columns. mm_above and mm_tile are required; ext_group lists the columns per weight
 * read of mul_mv_ext for 2, 3, ... columns, none of them above mm_above. */
static void
load_metal(struct ycheck *y, const struct ynode *root, struct roof_metal *out)
{
    static const char *const KEYS[] = {
        "mm_above",       "mm_tile",    "mm_tile_rows", "ext_group",
        "ext_kquant_min", "mm_id_min",  "fa_vec_below", "fa_vec_kv_fraction",
        "mm_simdgroups",  "core_simds", "core_cycles"};
    const struct ynode *sec = ycheck_section(y, root, "metal", KEYS, N(KEYS));
    if (!sec)
        return;
    struct roof_metal m = {0};
    long v;
    bool ok = true;
    ok &= metal_count(y, sec, "mm_above", MAX_UBATCH, "", &m.mm_above);
    ok &= metal_count(y, sec, "mm_tile", 1024, " columns", &m.mm_tile);
    ok &= metal_count(y, sec, "mm_tile_rows", 1024, " rows", &m.mm_tile_rows);
    if (ynode_get(sec, "mm_id_min")) /* MUL_MAT_ID: mul_mm_id from this many tokens */
        ok &= metal_count(y, sec, "mm_id_min", MAX_UBATCH, "", &m.mm_id_min);
    if (ynode_get(sec,
                  "fa_vec_below")) /* flash attention's vector kernel below this many queries */
        ok &= metal_count(y, sec, "fa_vec_below", MAX_UBATCH, " queries", &m.fa_vec_below);
    double f;
    if (ycheck_num(y, sec, "metal", "fa_vec_kv_fraction", false, &f)) {
        /* the vector kernel's KV stream, a fraction of the memory bandwidth */
        if (!(f > 0 && f <= 1)) {
            ycheck_error(y, ynode_get(sec, "fa_vec_kv_fraction"),
                         "'metal.fa_vec_kv_fraction' must be a fraction in (0, 1], got %g", f);
            ok = false;
        } else
            m.fa_vec_kv_fraction = f;
    }
    if (ynode_get(sec, "ext_kquant_min")) {
        if (ycheck_long(y, sec, "metal", "ext_kquant_min", false, 2, &v))
            m.ext_kquant_min = (double)v;
        else
            ok = false;
    }
    const struct ynode *g = ynode_get(sec, "ext_group");
    if (g && g->kind != YNODE_SEQ) {
        ycheck_error(y, g,
                     "'metal.ext_group' must be a list of whole numbers (columns per weight read "
                     "for 2, 3, ... columns), got %s",
                     ynode_kind_name(g));
        ok = false;
    } else if (g) {
        ycheck_note_number(y, "metal.ext_group", g);
        if (g->n + 1 > ROOF_METAL_EXT_MAX) {
            ycheck_error(y, g, "'metal.ext_group' lists %zu column counts; at most %d", g->n,
                         ROOF_METAL_EXT_MAX - 1);
            ok = false;
        } else if (m.mm_above > 0 && (double)g->n + 1 > m.mm_above) {
            ycheck_error(y, g,
                         "'metal.ext_group' reaches %zu columns, above 'metal.mm_above' (%.0f): a "
                         "column count runs one kernel",
                         g->n + 1, m.mm_above);
            ok = false;
        }
        for (size_t i = 0; ok && i < g->n; i++) {
            long x;
            long cols = (long)i + 2;
            if (ynode_long(g->items[i], &x) != 0 || x < 1 || x > cols) {
                ycheck_error(y, g->items[i],
                             "'metal.ext_group' item %zu (at %ld columns) must be a whole number "
                             "from 1 to %ld",
                             i + 1, cols, cols);
                ok = false;
            } else
                m.ext_group[cols] = (double)x;
        }
    }
    ok &= load_metal_occupancy(y, sec, &m);
    if (ok)
        *out = m;
}

/* `arg` points at the `like` depth (0 for the profile asked for) */
static void
fill_engine(struct ycheck *y, const struct ynode *root, void *obj, const void *arg)
{
    const int depth = arg ? *(const int *)arg : 0;
    struct engine_profile *e = obj;
    e->path = str_dup(y->path);
    e->memory_efficiency = e->compute_efficiency = 1.0;
    e->dequant_scale = 1.0;
    e->serving.reserve_fraction = -1.0;
    const char *s;
    if (ycheck_str(y, root, "", "name", true, &s))
        e->name = str_dup(s);
    double t;
    if (ycheck_qty(y, root, "", "kernel_overhead", UNIT_SECONDS, false, &t) &&
        ycheck_range(y, root, "", "kernel_overhead", t, &OVERHEAD_RANGE))
        e->kernel_overhead_s = t;
    if (ycheck_qty(y, root, "", "step_overhead", UNIT_SECONDS, false, &t) &&
        ycheck_range(y, root, "", "step_overhead", t, &OVERHEAD_RANGE))
        e->step_overhead_s = t;
    if (ycheck_qty(y, root, "", "token_overhead", UNIT_SECONDS, false, &t) &&
        ycheck_range(y, root, "", "token_overhead", t, &OVERHEAD_RANGE))
        e->token_overhead_s = t;
    const char *keys[2] = {"memory_efficiency", "compute_efficiency"};
    double *dst[2] = {&e->memory_efficiency, &e->compute_efficiency};
    for (int i = 0; i < 2; i++) {
        double v;
        if (ycheck_num(y, root, "", keys[i], false, &v)) {
            if (!(v > 0 && v <= 1.5))
                ycheck_error(y, ynode_get(root, keys[i]),
                             "'%s' must be a fraction in (0, 1.5], got %g", keys[i], v);
            else
                *dst[i] = v;
        }
    }
    double b;
    if (ycheck_qty(y, root, "", "bytes_in_flight_per_unit", UNIT_BYTES, false, &b) &&
        ycheck_range(y, root, "", "bytes_in_flight_per_unit", b, &INFLIGHT_RANGE))
        e->inflight_bytes_per_unit = b;
    double ds;
    if (ycheck_num(y, root, "", "dequant_scale", false, &ds)) {
        if (!(ds > 0 && ds < 100))
            ycheck_error(y, ynode_get(root, "dequant_scale"),
                         "'dequant_scale' must be in (0, 100), got %g", ds);
        else
            e->dequant_scale = ds;
    }
    ycheck_bool(y, root, "", "fp16_accumulate", &e->fp16_accumulate);
    ycheck_bool(y, root, "", "moe_sum_kernel", &e->moe_sum_kernel);
    ycheck_bool(y, root, "", "dequant_buffer", &e->dequant_buffer);
    engine_count(y, root, "dequant_buffer_above", MAX_UBATCH, &e->dequant_buffer_above);
    engine_count(y, root, "ubatch", MAX_UBATCH, &e->ubatch_tokens);
    engine_count(y, root, "mmq_tile_tokens", 1024, &e->mmq_tile_tokens);
    engine_count(y, root, "mmq_tile_rows", 1024, &e->mmq_tile_rows);
    engine_count(y, root, "mmq_above", MAX_UBATCH, &e->mmq_above);
    engine_count(y, root, "mmq_id_above", MAX_UBATCH, &e->mmq_id_above);
    engine_count(y, root, "mmq_tile_step", 1024, &e->mmq_tile_step);
    bool fa = true;
    ycheck_bool(y, root, "", "flash_attention", &fa);
    e->no_flash_attention = !fa;
    engine_bytes_per(y, root, "score_bytes", 64, "score element", &e->score_bytes);
    engine_bytes_per(y, root, "fa_mask_bytes", 8, "mask element", &e->fa_mask_bytes);
    engine_count(y, root, "pipeline_copies", 64, &e->pipeline_copies);
    double ar;
    if (ycheck_qty(y, root, "", "custom_allreduce_max", UNIT_BYTES, false, &ar) &&
        ycheck_range(y, root, "", "custom_allreduce_max", ar, &ALLREDUCE_RANGE))
        e->custom_allreduce_max_bytes = ar;
    double arl; /* ycheck_qty refuses zero and negative times */
    if (ycheck_qty(y, root, "", "custom_allreduce_latency", UNIT_SECONDS, false, &arl) &&
        ycheck_range(y, root, "", "custom_allreduce_latency", arl, &AR_LATENCY_RANGE))
        e->custom_allreduce_latency_s = arl;
    if (ycheck_str(y, root, "", "allreduce", false, &s)) {
        static const char *const AR[] = {"ring", "custom"};
        int k = pick(y, root, "allreduce", s, AR, N(AR));
        if (k == 0 && ynode_get(root, "custom_allreduce_max"))
            ycheck_error(y, ynode_get(root, "allreduce"),
                         "'allreduce: ring' contradicts 'custom_allreduce_max'");
        else if (k == 0)
            e->custom_allreduce_max_bytes = 0;
        else if (k == 1 && !ynode_get(root, "custom_allreduce_max"))
            ycheck_error(y, ynode_get(root, "allreduce"),
                         "'allreduce: custom' needs 'custom_allreduce_max' (the largest message "
                         "its kernel reduces)");
    }
    engine_count(y, root, "kv_bucket", MAX_UBATCH, &e->kv_bucket);
    engine_count(y, root, "triton_moe_kernels", 256, &e->triton_moe_kernels);
    engine_fraction(y, root, "moe_block_fp8_vs_bf16", "the bf16 GEMM rate",
                    &e->moe_block_fp8_vs_bf16);
    engine_count(y, root, "marlin_moe_kernels", 256, &e->marlin_moe_kernels);
    engine_count(y, root, "fused_moe_kernels", 256, &e->fused_moe_kernels);
    engine_count(y, root, "fused_moe_quant_kernels", 16, &e->fused_moe_quant_kernels);
    if (ynode_get(root, "fused_moe_quant_kernels") && !ynode_get(root, "fused_moe_kernels"))
        ycheck_error(y, ynode_get(root, "fused_moe_quant_kernels"),
                     "'fused_moe_quant_kernels' needs 'fused_moe_kernels' (the chain it adds to)");
    engine_fraction(y, root, "marlin_moe_vs_peak", "the bf16 datasheet peak",
                    &e->marlin_moe_vs_peak);
    engine_count(y, root, "sampler_kernels", 64, &e->sampler_kernels);
    /* where the dense MLP, shared experts and LM head run under data-parallel attention
     * (docs/physics.md#data-parallel-attention) */
    static const char *const DENSE[] = {"split", "rank"};
    if (ycheck_str(y, root, "", "attn_dp_dense", false, &s))
        e->attn_dp_dense_rank = pick(y, root, "attn_dp_dense", s, DENSE, N(DENSE)) == 1;
    load_metal(y, root, &e->metal);
    load_serving(y, root, &e->serving);
    if (ycheck_qty(y, root, "", "eager_launch", UNIT_SECONDS, false, &t) &&
        ycheck_range(y, root, "", "eager_launch", t, &OVERHEAD_RANGE))
        e->serving.eager_launch_s = t;
    /* an eager part needs its host cost per launch, and that cost needs an eager part */
    bool eager = e->serving.prefill_graph[0] && strcmp(e->serving.prefill_graph, "full") != 0;
    if (eager && !ynode_get(root, "eager_launch"))
        ycheck_error(y, ynode_get(root, "prefill_graph"),
                     "'prefill_graph: %s' needs 'eager_launch' (the host's time per launch of "
                     "an eager pass)",
                     e->serving.prefill_graph);
    else if (!eager && ynode_get(root, "eager_launch"))
        ycheck_error(y, ynode_get(root, "eager_launch"),
                     "'eager_launch' applies only with 'prefill_graph: none' or 'piecewise'");
    if (ycheck_qty(y, root, "", "tokenize_per_token", UNIT_SECONDS, false, &t) &&
        ycheck_range(y, root, "", "tokenize_per_token", t, &TOKENIZE_RANGE))
        e->serving.tokenize_per_token_s = t;
    ycheck_bool(y, root, "", "tokenize_serial", &e->serving.tokenize_serial);
    /* a serial tokenizer needs its time per token */
    if (ynode_get(root, "tokenize_serial") && !ynode_get(root, "tokenize_per_token"))
        ycheck_error(y, ynode_get(root, "tokenize_serial"),
                     "'tokenize_serial' needs 'tokenize_per_token' (the tokenizer's time per "
                     "prompt token)");
    if (ycheck_str(y, root, "", "like", false, &s))
        engine_like(y, root, y->path, s, e, depth);
    const struct ynode *src = ynode_get(root, "sources");
    if (!src)
        ycheck_error(y, root, "missing required key 'sources' (every number needs its origin)");
    else if (ycheck_map(y, src, "sources")) {
        e->source_keys = calloc(src->n / 2 + 1, sizeof(char *));
        e->source_texts = calloc(src->n / 2 + 1, sizeof(char *));
        for (size_t i = 0; i + 1 < src->n && e->source_keys && e->source_texts; i += 2) {
            if (src->items[i + 1]->kind != YNODE_SCALAR)
                continue;
            e->source_keys[e->n_sources] = str_dup(src->items[i]->value);
            e->source_texts[e->n_sources] = str_dup(src->items[i + 1]->value);
            e->n_sources++;
        }
        for (int i = 0; i < y->n_numbers; i++) {
            bool covered = false;
            for (size_t j = 0; j + 1 < src->n && !covered; j += 2)
                covered = strcmp(src->items[j]->value, y->numbers[i]) == 0;
            if (!covered)
                err_add(y->errs, y->path, y->number_line[i], y->number_col[i], ERR_ERROR,
                        "'%s' has no source (add 'sources.%s')", y->numbers[i], y->numbers[i]);
        }
    }
}

static void
free_engine(void *e)
{
    engine_profile_free(e);
}

static const struct ydoc_format ENGINE = {
    "an engine profile",           YNODE_MAP,   ENGINE_KEYS, N(ENGINE_KEYS),
    sizeof(struct engine_profile), fill_engine, free_engine};

static struct engine_profile *
engine_load_depth(const char *path, struct err_list *errs, int depth)
{
    return ydoc_load(&ENGINE, path, &depth, errs);
}

struct engine_profile *
engine_load(const char *path, struct err_list *errs)
{
    return engine_load_depth(path, errs, 0);
}

struct engine_profile *
engine_find(const char *name, struct err_list *errs)
{
    return engine_find_in(NULL, name, errs);
}

struct engine_profile *
engine_find_in(const char *dir, const char *name, struct err_list *errs)
{
    char p[PATH_MAX + 64];
    struct stat st;
    if (strcmp(name, "kernel") == 0) {
        /* the calibrated file when there is one, else the built-in defaults */
        snprintf(p, sizeof p, "%s/engine_profiles/kernel.yaml", dir ? dir : prof_data_dir());
        if (stat(p, &st) == 0)
            return engine_load(p, errs);
        struct engine_profile *e = calloc(1, sizeof *e);
        if (!e) {
            err_add(errs, NULL, 0, 0, ERR_ERROR,
                    "out of memory (while reading the engine profile)");
            return NULL;
        }
        engine_profile_kernel(e);
        e->name = str_dup("kernel");
        return e;
    }
    if (strchr(name, '/')) {
        snprintf(p, sizeof p, "%s", name);
    } else {
        if (strlen(name) > 100) {
            err_add(errs, NULL, 0, 0, ERR_ERROR, "engine name too long");
            return NULL;
        }
        snprintf(p, sizeof p, "%s/engine_profiles/%s.yaml", dir ? dir : prof_data_dir(), name);
    }
    if (stat(p, &st) != 0) {
        for (size_t i = 0; i < N(ALIAS); i++)
            if (strcmp(name, ALIAS[i][0]) == 0) {
                struct engine_profile *e = engine_find_in(dir, ALIAS[i][1], errs);
                if (e) {
                    err_add(errs, NULL, 0, 0, ERR_WARNING,
                            "engine '%s' runs %s's kernels: engine_profiles/%s.yaml is used", name,
                            ALIAS[i][1], ALIAS[i][1]);
                    free(e->name);
                    e->name = str_dup(name);
                }
                return e;
            }
        char **known;
        int n_known = engine_names(true, &known);
        bool generic = false;
        for (int i = 0; i < n_known && !generic; i++)
            generic = strcmp(name, known[i]) == 0;
        engine_names_free(known, n_known);
        if (generic) /* a generic engine, or a profiled one without a file in `dir` */
            return engine_generic(dir, name, errs);
        char list[1024];
        engine_names_text(list, sizeof list);
        err_add(errs, NULL, 0, 0, ERR_ERROR, "unknown engine '%s' (%s)", name, list);
        return NULL;
    }
    return engine_load(p, errs);
}

struct engine_profile *
engine_generic(const char *dir, const char *name, struct err_list *errs)
{
    /* the geometric mean of the profiled serving engines' fixed costs and efficiency
     * multipliers: an engine we know nothing about is assumed typical of those we do, and its
     * band spans all of them (docs/calibration.md#engines-without-a-profile) */
    double log_sum[4] = {0}, lo[4] = {0}, hi[4] = {0};
    int n = 0;
    for (size_t i = 0; i < N(PROFILED); i++) {
        char p[PATH_MAX + 64];
        struct stat st;
        snprintf(p, sizeof p, "%s/engine_profiles/%s.yaml", dir ? dir : prof_data_dir(),
                 PROFILED[i]);
        if (stat(p, &st) != 0)
            continue;
        struct err_list quiet = {0};
        struct engine_profile *k = engine_load(p, &quiet);
        err_list_release(&quiet);
        if (!k)
            continue;
        double v[4] = {k->kernel_overhead_s, k->step_overhead_s, k->memory_efficiency,
                       k->compute_efficiency};
        bool ok = true;
        for (int j = 0; j < 4; j++)
            ok &= v[j] > 0;
        for (int j = 0; ok && j < 4; j++) {
            log_sum[j] += log(v[j]);
            lo[j] = n == 0 || v[j] < lo[j] ? v[j] : lo[j];
            hi[j] = n == 0 || v[j] > hi[j] ? v[j] : hi[j];
        }
        n += ok;
        engine_profile_free(k);
    }
    struct engine_profile *e = calloc(1, sizeof *e);
    if (!e)
        return NULL;
    engine_profile_kernel(e);
    e->name = str_dup(name);
    if (!e->name) { /* str_dup noted the failure: the command ends in "out of memory" */
        engine_profile_free(e);
        err_add(errs, NULL, 0, 0, ERR_ERROR, "out of memory");
        return NULL;
    }
    e->generic = true;
    if (n > 0) {
        e->kernel_overhead_s = exp(log_sum[0] / n);
        e->step_overhead_s = exp(log_sum[1] / n);
        e->memory_efficiency = exp(log_sum[2] / n);
        e->compute_efficiency = exp(log_sum[3] / n);
        memcpy(e->span_min, lo, sizeof lo);
        memcpy(e->span_max, hi, sizeof hi);
    }
    err_add(errs, NULL, 0, 0, ERR_WARNING,
            "no engine profile for '%s': predicted with the generic kernel model (the geometric "
            "mean of %d profiled engines' overheads and efficiencies); validate widens its band "
            "to span their extremes",
            name, n);
    return e;
}

int
engine_names(bool with_generic, char ***out)
{
    char **v;
    int n = prof_list(PROF_ENGINE, &v);
    if (n < 0)
        n = 0;
    for (size_t g = 0; with_generic && g < N(GENERIC_ENGINES); g++) {
        bool have = false;
        for (int i = 0; i < n && !have; i++)
            have = strcmp(v[i], GENERIC_ENGINES[g]) == 0;
        char **nv = have ? v : realloc(v, (size_t)(n + 1) * sizeof *nv);
        if (!nv) {
            alloc_note_failure();
            break;
        }
        v = nv;
        if (!have && (v[n] = str_dup(GENERIC_ENGINES[g])))
            n++;
    }
    *out = v;
    return n;
}

void
engine_names_free(char **names, int n)
{
    prof_list_free(names, n);
}

void
engine_names_join(char *const *names, int n, char *buf, size_t size)
{
    if (size == 0)
        return;
    buf[0] = '\0';
    for (int i = 0; i < n; i++) {
        size_t l = strlen(buf);
        snprintf(buf + l, size - l, "%s%s", i ? ", " : "", names[i]);
    }
}

void
engine_names_text(char *buf, size_t size)
{
    char **prof;
    int n = engine_names(false, &prof);
    engine_names_join(prof, n, buf, size);
    if (size == 0)
        return;
    /* the generic engines that have no profile */
    bool first = true;
    for (size_t g = 0; g < N(GENERIC_ENGINES); g++) {
        bool have = false;
        for (int i = 0; i < n && !have; i++)
            have = strcmp(prof[i], GENERIC_ENGINES[g]) == 0;
        if (have)
            continue;
        size_t l = strlen(buf);
        snprintf(buf + l, size - l, "%s%s",
                 first ? ", or one predicted by the generic model: " : ", ", GENERIC_ENGINES[g]);
        first = false;
    }
    engine_names_free(prof, n);
}
