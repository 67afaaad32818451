/* The engine as the simulator sees it: the time of one iteration over a mixed batch on one
 * instance (tp x pp devices), and the size of its KV block pool. The per-device view (heads,
 * KV heads, MLP columns and vocabulary split tp ways, layers pp ways) is the one roof_evaluate
 * uses (Megatron-LM, Shoeybi et al. 2019; docs/physics.md#parallelism). */
#include "core/serving.h"
#include "sim/sim.h"
#include "util/alloc.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#define SIM_COST_BASE_N 1024
#define SIM_COST_PROMPT_N 8192

struct sim_cost {
    struct roof_config whole; /* the instance: tp x pp devices of the whole model */
    struct roof_config cfg;   /* per device: cfg.model points at `shard` */
    struct mdl_profile shard;
    int tp, pp;
    long dense_layers; /* layers that gather nothing under data-parallel attention */
    long sublayers;    /* mixers and MLPs, each closed by an all-reduce (mdl_sublayers) */
    double link_bytes_per_s, link_latency_s;
    double act_bytes, hidden;
    struct roof_result res; /* scratch */
    /* decode-only passes of n sequences: everything but attention costs the same at every
     * context (roof_step_ops), so it is evaluated once per n */
    double base_s[SIM_COST_BASE_N];
    /* one whole prompt of n tokens alone in a step (continuous batching's usual prefill step):
     * the step's time by n, filled on first use (a pure function of n: same bytes), and the
     * host's issue of its eager launches (0 without them) */
    double prompt_s[SIM_COST_PROMPT_N], prompt_issue_s[SIM_COST_PROMPT_N];
    /* asynchronous scheduling: a step takes max(device, host) (sim_cost_overlap_host); the host
     * time is host0 + host_row x (sequences that sample a token), from roof_step on first use */
    bool overlap, have_host;
    double host0, host_row;
    /* steps with prompt work run partly or wholly eager (sim_cost_eager_prefill) */
    enum sim_prefill_graph eager;
    double eager_launch_s;
};

struct sim_cost *
sim_cost_new(const struct roof_config *cfg)
{
    if (!cfg->hw || !cfg->model || roof_config_problem(cfg))
        return NULL;
    struct sim_cost *c = calloc(1, sizeof *c);
    if (!c) {
        alloc_note_failure();
        return NULL;
    }
    const struct mdl_profile *m = cfg->model;
    long tp = cfg->tp > 1 ? cfg->tp : 1, pp = cfg->pp > 1 ? cfg->pp : 1;
    c->whole = *cfg;
    roof_shard_view(cfg, &c->shard, &c->cfg);
    c->dense_layers = roof_attn_dp_dense_layers(&c->cfg);
    c->sublayers = mdl_sublayers(&c->shard);
    /* the shard keeps its tensor-parallel degree: roof_step reads it for the logits' gather
     * (docs/physics.md#logits-and-sampler); the all-reduces are added below */
    c->cfg.pp = 1;
    c->tp = (int)tp;
    c->pp = (int)pp;
    c->link_bytes_per_s = hw_link_bytes_per_s_per_direction(cfg->hw);
    c->link_latency_s = roof_link_latency_s(cfg);
    c->act_bytes = roof_hidden_bytes(cfg->act); /* 16-bit under fp8: the residual stream */
    c->hidden = (double)m->hidden_size;
    for (int i = 0; i < SIM_COST_BASE_N; i++)
        c->base_s[i] = -1.0;
    for (int i = 0; i < SIM_COST_PROMPT_N; i++)
        c->prompt_s[i] = -1.0;
    return c;
}

void
sim_cost_overlap_host(struct sim_cost *c, bool on)
{
    /* with pp > 1 vLLM keeps pp steps in flight anyway (its batch queue); the pipeline model
     * below stands as it is */
    bool o = on && c->pp == 1;
    if (o != c->overlap)
        for (int i = 0; i < SIM_COST_PROMPT_N; i++)
            c->prompt_s[i] = -1.0;
    c->overlap = o;
}

void
sim_cost_eager_prefill(struct sim_cost *c, enum sim_prefill_graph graph, double launch_s)
{
    if (!(launch_s > 0))
        graph = SIM_PREFILL_GRAPH_FULL;
    if (graph != c->eager || launch_s != c->eager_launch_s)
        for (int i = 0; i < SIM_COST_PROMPT_N; i++)
            c->prompt_s[i] = -1.0;
    c->eager = graph;
    c->eager_launch_s = graph == SIM_PREFILL_GRAPH_FULL ? 0.0 : launch_s;
}

double
sim_cost_launches(struct sim_cost *c, enum sim_prefill_graph graph, struct roof_seq *seqs, int n)
{
    if (graph == SIM_PREFILL_GRAPH_FULL)
        return 0.0;
    /* vLLM's piecewise graphs split at its attention ops (CompilationConfig._attention_ops),
     * the gated DeltaNet's core (vllm::gdn_attention_core) among them */
    unsigned long ops = graph == SIM_PREFILL_GRAPH_PIECEWISE
                            ? ROOF_OPS_ATTENTION | (1ul << ROOF_OP_LINEAR_ATTN)
                            : ROOF_OPS_ALL & ~(1ul << ROOF_OP_STEP);
    /* the operator model adds kernel_overhead_s once per launch and nothing else depends on
     * it: the time's change per second of that overhead is the count */
    struct roof_config k = c->cfg;
    double t0, t1;
    k.tuning.kernel_overhead_s = 0.0;
    if (roof_step_time(&k, seqs, n, ops, &c->res, &t0) != 0)
        return -1.0;
    k.tuning.kernel_overhead_s = 1.0;
    if (roof_step_time(&k, seqs, n, ops, &c->res, &t1) != 0)
        return -1.0;
    double launches = t1 - t0;
    /* the custom all-reduce after attention and after the MLP: one kernel each */
    if (graph == SIM_PREFILL_GRAPH_NONE && c->tp > 1)
        launches += (double)c->sublayers;
    return launches;
}

/* The engine's host work in a step of these sequences: roof_step's ROOF_OP_STEP alone, a fixed
 * cost per pass and one per sequence that samples a token (docs/physics.md), so linear in those
 * sequences: taken from roof_step at none and at one sampling sequence, once. */
static double
host_time(struct sim_cost *c, const struct roof_seq *seqs, int n)
{
    if (!c->have_host) {
        struct roof_seq none = {1, 1, 0, false}, one = {1, 1, 0, true};
        double h0, h1;
        if (roof_step_time(&c->cfg, &none, 1, 1ul << ROOF_OP_STEP, &c->res, &h0) != 0 ||
            roof_step_time(&c->cfg, &one, 1, 1ul << ROOF_OP_STEP, &c->res, &h1) != 0)
            return -1.0;
        c->host0 = h0;
        c->host_row = h1 - h0;
        c->have_host = true;
    }
    double rows = 0;
    for (int i = 0; i < n; i++)
        if (seqs[i].logits)
            rows += seqs[i].count;
    return c->host0 + c->host_row * rows;
}

/* A step of `total` seconds of which `host` is the engine's host work, with that work beside the
 * device's (asynchronous scheduling): max(device, host). */
static double
hide_host(double total, double host)
{
    return total - host > host ? total - host : host;
}

void
sim_cost_free(struct sim_cost *c)
{
    free(c);
}

static double cost_step(struct sim_cost *c, struct roof_seq *seqs, int n, double *issue);

double
sim_cost_step_issue(struct sim_cost *c, struct roof_seq *seqs, int n, double *issue)
{
    double scratch;
    if (!issue)
        issue = &scratch;
    if (n == 1 && seqs[0].count == 1.0 && seqs[0].past_tokens == 0.0 && seqs[0].logits) {
        double t = seqs[0].new_tokens;
        long key = (long)t;
        if ((double)key == t && key > 0 && key < SIM_COST_PROMPT_N) {
            if (c->prompt_s[key] < 0)
                c->prompt_s[key] = cost_step(c, seqs, n, &c->prompt_issue_s[key]);
            *issue = c->prompt_issue_s[key];
            return c->prompt_s[key];
        }
    }
    return cost_step(c, seqs, n, issue);
}

double
sim_cost_step(struct sim_cost *c, struct roof_seq *seqs, int n)
{
    return sim_cost_step_issue(c, seqs, n, NULL);
}

static double
cost_step(struct sim_cost *c, struct roof_seq *seqs, int n, double *issue)
{
    *issue = 0.0;
    /* one sequence alone (a prompt, or a lone decode) where the engine splits a prompt into
     * micro-batches or the instance is a layer split: the pass `analyze` times (roof_pass: the
     * micro-batches, their pipeline, the once-only work of a single micro-batch) */
    double ub = c->whole.tuning.ubatch_tokens;
    if (n == 1 && seqs[0].count == 1.0 &&
        (c->pp > 1 || (ub >= 1 && seqs[0].new_tokens > ub && seqs[0].new_tokens > 1))) {
        c->cfg.phase = seqs[0].new_tokens != 1.0 ? ROOF_PREFILL : ROOF_DECODE;
        if (roof_pass(&c->whole, &c->cfg, seqs, 1.0, &c->res) != 0)
            return -1.0;
        double t = c->res.time_s;
        if (c->overlap && c->res.ops[ROOF_OP_STEP].present)
            t = hide_host(t, c->res.ops[ROOF_OP_STEP].time_s);
        return t;
    }
    double total = 0, rows = 0;
    bool prefill = false, logits = true;
    for (int i = 0; i < n; i++) {
        total += seqs[i].count;
        rows += seqs[i].count * seqs[i].new_tokens;
        if (seqs[i].new_tokens != 1.0)
            prefill = true;
        logits &= seqs[i].logits;
    }
    if (!(total > 0))
        return -1.0;
    /* a step with any prompt work runs attention in its prefill form (MLA: naive) */
    c->cfg.phase = prefill ? ROOF_PREFILL : ROOF_DECODE;
    /* pipeline: the step's sequences go through in m = min(seqs, pp) microbatches; in steady
     * state each stage works on one microbatch at a time, so a token takes pp stage times of a
     * microbatch (as roof_evaluate's decode) */
    double m = c->pp > 1 ? (total < c->pp ? total : (double)c->pp) : 1.0;
    if (m > 1)
        for (int i = 0; i < n; i++)
            seqs[i].count /= m;
    double stage;
    long key = (long)total;
    if (!prefill && logits && m == 1 && (double)key == total && key > 0 && key < SIM_COST_BASE_N) {
        if (c->base_s[key] < 0 &&
            roof_step_time(&c->cfg, seqs, n, ROOF_OPS_ALL & ~ROOF_OPS_ATTENTION, &c->res,
                           &c->base_s[key]) != 0)
            return -1.0;
        double attn;
        if (roof_step_time(&c->cfg, seqs, n, ROOF_OPS_ATTENTION, &c->res, &attn) != 0)
            return -1.0;
        stage = c->base_s[key] + attn;
    } else if (roof_step_time(&c->cfg, seqs, n, ROOF_OPS_ALL, &c->res, &stage) != 0) {
        return -1.0;
    }
    double bytes = rows / m * c->hidden * c->act_bytes;
    if (c->tp > 1 && c->cfg.attn_dp > 1) { /* the gather and scatter around the MLP */
        double padded, rr = roof_attn_busiest_rows(&c->cfg, seqs, n);
        /* a dense layer whose MLP is each rank's gathers nothing */
        long nd = c->dense_layers;
        stage += (double)(c->shard.num_layers - nd) * roof_attn_dp_links_s(&c->cfg, rr, &padded);
        if (nd > 0)
            stage += (double)nd * roof_attn_dp_dense_links_s(&c->cfg, rr, &padded);
    } else if (c->tp > 1) { /* an all-reduce after each attention and each MLP */
        stage +=
            (double)c->sublayers * roof_allreduce_engine_s(c->cfg.hw, &c->cfg.tuning, bytes, c->tp,
                                                           c->link_bytes_per_s, c->link_latency_s);
    }
    if (prefill && c->eager != SIM_PREFILL_GRAPH_FULL && c->pp == 1) {
        /* the eager part's launches go out from the host while the device runs them
         * (docs/simulate.md#eager-prefill): the device part D = stage - h cannot end before
         * they are all issued. m == 1 here: the seqs are as given */
        double h = host_time(c, seqs, n), l = sim_cost_launches(c, c->eager, seqs, n);
        if (h < 0 || l < 0)
            return -1.0;
        double launch = l * c->eager_launch_s;
        *issue = h + launch;
        if (c->overlap) /* the step's host work runs beside the device as well */
            return hide_host(stage + launch, h + launch);
        return h + hide_host(stage - h + launch, launch);
    }
    if (c->overlap) { /* pp == 1: the host work runs beside the device's step */
        double h = host_time(c, seqs, n);
        if (h < 0)
            return -1.0;
        return hide_host(stage, h);
    }
    double send = c->pp > 1 ? bytes / hw_link_group_bytes_per_s(c->cfg.hw, 2, c->link_bytes_per_s) +
                                  c->link_latency_s
                            : 0.0;
    return (double)c->pp * stage + (double)(c->pp - 1) * send;
}

static long
gcd_long(long a, long b)
{
    while (b > 0) {
        long t = a % b;
        a = b;
        b = t;
    }
    return a;
}

/* One linear-attention layer's state and one KV layer's bytes a token, on a device (the
 * plan's totals over its layers), under sched.hybrid_block_align; 0 without it or when the
 * model has not both kinds. */
static void
hybrid_pages(const struct sim_config *cfg, double *state_page, double *kv_token)
{
    const struct mdl_profile *m = cfg->engine.model;
    *state_page = *kv_token = 0.0;
    struct roof_kv_plan plan;
    if (cfg->sched.hybrid_block_align < 1 || !m)
        return;
    long lin = mdl_linear_layers(m), kv = mdl_kv_layers(m);
    if (lin < 1 || kv < 1 || roof_kv_plan(&cfg->engine, 1.0, 1.0, &plan) != 0 ||
        !(plan.bytes_per_token > 0) || !(plan.state_bytes_per_seq > 0))
        return;
    *state_page = plan.state_bytes_per_seq / (double)lin;
    *kv_token = plan.bytes_per_token / (double)kv;
}

/* The block for a state page `page` and a KV layer's `tok` bytes a token (hybrid_pages): vLLM's
 * attn_block_size = align x cdiv(mamba_page_size, align x attn_page_size_1_token), used when the
 * block size set is smaller */
static long
block_tokens_for(const struct sim_config *cfg, double page, double tok)
{
    long bt = cfg->sched.block_tokens > 0 ? cfg->sched.block_tokens : 16;
    long a = cfg->sched.hybrid_block_align;
    if (a < 1 || !(page > 0) || !(tok > 0))
        return bt;
    double need = (double)a * ceil(page / ((double)a * tok));
    return need > (double)bt && need < 1e9 ? (long)need : bt;
}

long
sim_block_tokens(const struct sim_config *cfg)
{
    double page, tok;
    hybrid_pages(cfg, &page, &tok);
    return block_tokens_for(cfg, page, tok);
}

void
sim_kv_shape_of(const struct sim_config *cfg, struct sim_kv_shape *k)
{
    const struct mdl_profile *m = cfg->engine.model;
    double page, tok;
    hybrid_pages(cfg, &page, &tok);
    k->block_tokens = block_tokens_for(cfg, page, tok);
    k->window = 0;
    k->groups = k->full_groups = 1;
    k->window_groups = 0;
    k->state_blocks = 0;
    /* the linear-attention layers' state, in blocks of every KV layer's block_tokens tokens
     * (a block of all the layer groups: the state is one page a group in vLLM's hybrid
     * allocator, so it takes the same bytes from the pool); under hybrid_block_align each
     * layer's state is padded to a whole page, a KV layer's block */
    struct roof_kv_plan plan;
    if (m && m->lin_value_heads > 0 &&
        roof_kv_plan(&cfg->engine, 1.0, (double)k->block_tokens, &plan) == 0 &&
        plan.bytes_per_block > 0) {
        double state = plan.state_bytes_per_seq, padded = (double)k->block_tokens * tok;
        if (page > 0 && padded > page)
            state *= padded / page;
        k->state_blocks = (long)ceil(state / plan.bytes_per_block);
    }
    if (!cfg->sched.kv_window_blocks || cfg->sched.admission == SIM_ADMIT_SGLANG || !m ||
        m->sliding_window <= 0 || m->num_layers < 1)
        return;
    long sw = 0;
    for (long l = 0; l < m->num_layers; l++)
        sw += mdl_layer_window(m, l) > 0;
    long full = mdl_kv_layers(m) - sw; /* the layers with a KV cache and no window */
    if (sw == 0)
        return;
    /* vLLM groups the layers of each kind in groups of one size (the hybrid KV cache manager
     * design: gpt-oss's 18 + 18 layers are two groups of 18) */
    long g = full > 0 ? gcd_long(sw, full) : sw;
    k->window = m->sliding_window;
    k->window_groups = sw / g;
    k->full_groups = full / g;
    k->groups = k->window_groups + k->full_groups;
    k->state_blocks *= k->groups;
}

static long
ceil_div(long a, long b)
{
    return a > 0 ? (a + b - 1) / b : 0;
}

/* blocks of a window group before the one holding the first token still in the window */
static long
skipped_blocks(const struct sim_kv_shape *k, long computed)
{
    long skip = computed - k->window + 1;
    return skip > 0 ? skip / k->block_tokens : 0;
}

long
sim_kv_held(const struct sim_kv_shape *k, long computed, long tokens)
{
    long c = ceil_div(tokens, k->block_tokens);
    long st = tokens > 0 ? k->state_blocks : 0;
    if (k->window_groups == 0)
        return k->groups * c + st;
    long sb = skipped_blocks(k, computed);
    return k->full_groups * c + k->window_groups * (c - (sb < c ? sb : c)) + st;
}

long
sim_kv_peak(const struct sim_kv_shape *k, long prompt, long output)
{
    long first = k->groups * ceil_div(prompt, k->block_tokens);
    if (k->window_groups == 0)
        return k->groups * ceil_div(prompt + output, k->block_tokens) + k->state_blocks;
    long c = ceil_div(prompt + output, k->block_tokens);
    long wmax = ceil_div(k->window, k->block_tokens) + 1;
    long last = k->full_groups * c + k->window_groups * (c < wmax ? c : wmax);
    return (first > last ? first : last) + k->state_blocks;
}

long
sim_kv_room(const struct sim_kv_shape *k, long computed, long blocks)
{
    long sb = k->window_groups > 0 ? skipped_blocks(k, computed) : 0;
    blocks -= k->state_blocks;
    if (blocks <= 0)
        return 0;
    return k->block_tokens * ((blocks + k->window_groups * sb) / k->groups);
}

int
sim_kv_pool(const struct sim_config *cfg, double *blocks, double *block_bytes, double *pool_bytes)
{
    struct roof_kv_plan plan;
    *blocks = *block_bytes = *pool_bytes = 0;
    struct sim_kv_shape k;
    sim_kv_shape_of(cfg, &k);
    if (roof_kv_plan(&cfg->engine, 1.0, (double)k.block_tokens, &plan) != 0)
        return -1;
    double free_bytes = plan.capacity_bytes - plan.weights_bytes - plan.reserve_bytes;
    /* a block of one layer group (every layer without kv_window_blocks) */
    *block_bytes = plan.bytes_per_block / (double)k.groups;
    if (!(free_bytes > 0) || !(plan.bytes_per_block > 0))
        return -1;
    *pool_bytes = cfg->sched.kv_fraction * free_bytes;
    /* data-parallel attention: every rank's devices hold a pool of their own sequences */
    *blocks = plan.ranks * floor(*pool_bytes / *block_bytes);
    return *blocks >= 1 ? 0 : -1;
}
