/* Serving-level physics on top of the per-operator engine (docs/physics.md). */
#include "core/serving.h"

#include <gsl/gsl_errno.h>
#include <gsl/gsl_math.h>
#include <math.h>
#include <string.h>

double
roof_default_reserve_bytes(const struct hw_profile *hw)
{
    return ROOF_DEFAULT_RESERVE_FRACTION * hw_memory_bytes(hw);
}

int
roof_kv_plan(const struct roof_config *cfg, double context, double block, struct roof_kv_plan *out)
{
    memset(out, 0, sizeof *out);
    if (!(context >= 1) || !(block >= 1))
        return -1;
    const struct mdl_profile *m = cfg->model;
    struct roof_config c = *cfg;
    c.phase = ROOF_DECODE;
    c.context = context - 1; /* the footprint holds context tokens */
    struct roof_memory m1, m2;
    /* data-parallel attention: every rank's sequences on its own devices (one and two each) */
    double dp = cfg->attn_dp > 1 ? (double)cfg->attn_dp : 1.0;
    c.batch = dp;
    roof_memory(&c, &m1);
    c.batch = 2.0 * dp;
    roof_memory(&c, &m2);
    double kvb = dtype_bytes(cfg->kv);
    int tp = cfg->tp > 1 ? cfg->tp : 1, pp = cfg->pp > 1 ? cfg->pp : 1;
    if (dp > 1 && tp % cfg->attn_dp == 0) /* the attention's heads split a rank's devices */
        tp /= cfg->attn_dp;
    double layers = ceil((double)m->num_layers / pp);
    double kv_layers = ceil((double)mdl_kv_layers(m) / pp);
    double elems = mdl_kv_elems_per_token_layer(m);
    if (tp > 1 && !mdl_is_mla(m)) /* KV heads split across the tensor-parallel group */
        elems = 2.0 * (m->num_kv_heads >= tp ? (double)(m->num_kv_heads / tp) : 1.0) *
                (double)m->head_dim;
    out->block_tokens = block;
    out->bytes_per_token = kv_layers * elems * kvb;
    out->bytes_per_block = block * out->bytes_per_token;
    /* blocks per sequence, layer by layer: windowed layers keep at most the window; the
     * linear-attention layers a fixed state (a device's share of the heads, roof_memory) */
    out->state_bytes_per_seq = m1.state_bytes; /* one sequence a rank */
    double bytes = out->state_bytes_per_seq;
    for (long l = 0; l < (long)layers; l++) {
        if (!mdl_layer_has_kv(m, l))
            continue;
        double w = (double)mdl_layer_window(m, l);
        double t = w > 0 && context > w ? w : context;
        bytes += ceil(t / block) * block * elems * kvb;
    }
    out->bytes_per_seq = bytes;
    out->capacity_bytes = m1.capacity_bytes;
    out->weights_bytes = m1.weights_bytes;
    out->reserve_bytes = cfg->reserve_bytes;
    out->act_bytes_per_seq = m2.act_bytes - m1.act_bytes;
    double fixed_act = m1.act_bytes - out->act_bytes_per_seq;
    out->pool_bytes = out->capacity_bytes - out->weights_bytes - out->reserve_bytes - fixed_act;
    if (out->pool_bytes < 0)
        out->pool_bytes = 0;
    out->ranks = dp;
    out->pool_blocks = dp * floor(out->pool_bytes / out->bytes_per_block);
    double per_seq = out->bytes_per_seq + out->act_bytes_per_seq;
    out->max_seqs = per_seq > 0 ? dp * floor(out->pool_bytes / per_seq) : 0;
    return 0;
}

double
roof_spec_expected_tokens(double k, double a)
{
    /* tokens per verification: the accepted prefix of k proposals plus the target's own token;
     * with i.i.d. acceptance a: sum_{i=0..k} a^i (Leviathan et al. 2023, eq. 1) */
    if (a >= 1.0)
        return k + 1.0;
    return (1.0 - pow(a, k + 1.0)) / (1.0 - a);
}

struct spec_ctx {
    double k, ratio;
};

static double
spec_balance(double a, void *p)
{
    const struct spec_ctx *s = p;
    return roof_spec_expected_tokens(s->k, a) - s->ratio;
}

int
roof_speculative(const struct roof_config *target, const struct roof_config *draft,
                 double self_cost, double k, double a, struct roof_spec *out)
{
    memset(out, 0, sizeof *out);
    if (!(k >= 1) || !(a >= 0 && a <= 1))
        return -1;
    struct roof_config t = *target;
    t.phase = ROOF_DECODE;
    struct roof_result r;
    if (roof_evaluate(&t, &r) != 0)
        return -1;
    out->k = k;
    out->acceptance = a;
    out->target_step_s = r.time_s;
    if (draft) {
        struct roof_config d = *draft;
        d.phase = ROOF_DECODE;
        d.batch = t.batch;
        d.context = t.context;
        if (roof_evaluate(&d, &r) != 0)
            return -1;
        out->draft_step_s = r.time_s;
    } else {
        out->draft_step_s = self_cost * out->target_step_s;
    }
    /* verification: one target pass over k + 1 new tokens per sequence */
    struct roof_seq q = {t.batch, k + 1.0, t.context, true};
    struct roof_result v;
    if (roof_step(&t, &q, 1, &v) != 0)
        return -1;
    out->verify_s = v.time_s;
    out->cycle_s = k * out->draft_step_s + out->verify_s;
    out->expected_tokens = roof_spec_expected_tokens(k, a);
    out->time_per_token_s = out->cycle_s / out->expected_tokens;
    out->speedup = out->target_step_s / out->time_per_token_s;
    /* break-even: E(a) = cycle / target step; E rises from 1 (a = 0) to k + 1 (a = 1) */
    double ratio = out->cycle_s / out->target_step_s;
    if (ratio <= 1.0) {
        out->break_even_acceptance = 0.0;
    } else if (ratio >= k + 1.0) {
        out->break_even_acceptance = 1.0;
    } else {
        struct spec_ctx s = {k, ratio};
        if (roof_solve_brent(spec_balance, &s, 0.0, 1.0 - 1e-12, 1e-10,
                             &out->break_even_acceptance) != 0)
            return -1;
    }
    return 0;
}

static double
kv_write_bytes(const struct roof_result *r)
{
    double b = 0;
    for (int i = 0; i < ROOF_OP_COUNT; i++)
        b += r->ops[i].bytes_kv_write;
    return b;
}

int
roof_prefix_cache(const struct roof_config *cfg, double hit, struct roof_prefix *out)
{
    memset(out, 0, sizeof *out);
    if (!(hit >= 0 && hit < 1) || !(cfg->prompt >= 1))
        return -1;
    struct roof_config c = *cfg;
    c.phase = ROOF_PREFILL;
    struct roof_result cold, warm;
    if (roof_evaluate(&c, &cold) != 0)
        return -1;
    /* the cached prefix is not recomputed: only the rest of the prompt runs, attending to the
     * cached tokens (a chunk after `cached` past tokens) */
    double cached = floor(hit * c.prompt);
    double fresh = c.prompt - cached;
    struct roof_seq q = {c.batch, fresh, cached, true};
    if (roof_step(&c, &q, 1, &warm) != 0)
        return -1;
    out->hit = hit;
    out->cached_tokens = cached;
    out->new_tokens = fresh;
    out->ttft_cold_s = cold.time_s;
    out->ttft_warm_s = warm.time_s;
    out->speedup = cold.time_s / warm.time_s;
    out->kv_write_cold_bytes = kv_write_bytes(&cold);
    out->kv_write_warm_bytes = kv_write_bytes(&warm);
    out->prefill_tokens_per_s_cold = c.batch * c.prompt / cold.time_s;
    out->prefill_tokens_per_s_warm = c.batch * c.prompt / warm.time_s;
    return 0;
}

int
roof_disaggregate(const struct roof_config *prefill, const struct roof_config *decode,
                  double prompt, double output, double rate, struct roof_disagg *out)
{
    memset(out, 0, sizeof *out);
    if (!(prompt >= 1) || !(output >= 1))
        return -1;
    struct roof_config p = *prefill, d = *decode;
    p.phase = ROOF_PREFILL;
    p.prompt = prompt;
    d.phase = ROOF_DECODE;
    d.context = prompt + output / 2.0; /* mean context over the generation */
    struct roof_result rp, rd;
    if (roof_evaluate(&p, &rp) != 0 || roof_evaluate(&d, &rd) != 0)
        return -1;
    out->prompt = prompt;
    out->output = output;
    out->kv_bytes = prompt * mdl_kv_bytes_per_token(p.model, dtype_bytes(p.kv));
    double bw = hw_link_bytes_per_s_per_direction(p.hw);
    double lat = roof_link_latency_s(&p);
    out->transfer_s = bw > 0 ? out->kv_bytes / bw + lat : INFINITY;
    out->ttft_s = rp.time_s + out->transfer_s;
    out->itl_s = rd.time_s;
    out->prefill_req_per_s = p.batch / rp.time_s;
    out->decode_req_per_s = d.batch / (output * rd.time_s);
    out->decode_per_prefill = out->prefill_req_per_s / out->decode_req_per_s;
    if (rate > 0) {
        out->prefill_devices = ceil(rate / out->prefill_req_per_s);
        out->decode_devices = ceil(rate / out->decode_req_per_s);
    }
    return 0;
}

struct cross_ctx {
    struct roof_config cfg;
    double output;
    int which; /* 0: KV vs weights over context; 1: prefill vs decode over prompt */
};

static double
cross_f(double x, void *p)
{
    struct cross_ctx *s = p;
    struct roof_config c = s->cfg;
    struct roof_result r;
    if (s->which == 0) {
        c.phase = ROOF_DECODE;
        c.context = x;
        if (roof_evaluate(&c, &r) != 0)
            return GSL_NAN;
        double kv = 0;
        for (int i = 0; i < ROOF_OP_COUNT; i++)
            kv += r.ops[i].bytes_kv_read;
        return log(kv / r.bytes_weights);
    }
    c.phase = ROOF_PREFILL;
    c.prompt = x;
    if (roof_evaluate(&c, &r) != 0)
        return GSL_NAN;
    double ttft = r.time_s;
    c.phase = ROOF_DECODE;
    c.context = x + s->output / 2.0;
    if (roof_evaluate(&c, &r) != 0)
        return GSL_NAN;
    return log(ttft / (s->output * r.time_s));
}

int
roof_kv_weight_crossover(const struct roof_config *cfg, double *context)
{
    struct cross_ctx s = {*cfg, 0, 0};
    return roof_solve_brent(cross_f, &s, 1.0, 1e9, 1e-9, context);
}

int
roof_prefill_decode_crossover(const struct roof_config *cfg, double output, double *prompt)
{
    if (!(output >= 1))
        return -1;
    struct cross_ctx s = {*cfg, output, 1};
    return roof_solve_brent(cross_f, &s, 1.0, 1e7, 1e-9, prompt);
}
