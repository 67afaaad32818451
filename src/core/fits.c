/* "Does not fit" advice (fits.h): each candidate change is evaluated with roof_memory, the same
 * per-device footprint every command reports. */
#include "core/fits.h"

#include "util/units.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

static double
need_of(const struct roof_config *c)
{
    struct roof_memory m;
    roof_memory(c, &m);
    return m.total_bytes;
}

static void
add_fix(struct roof_fit_advice *a, enum roof_fix_kind k, double value, double need,
        const char *what)
{
    if (a->n_fixes >= ROOF_MAX_FIXES)
        return;
    struct roof_fix *f = &a->fixes[a->n_fixes++];
    f->kind = k;
    f->value = value;
    f->need_bytes = need;
    char b[32];
    unit_format_short(need, "B", 3, b, sizeof b);
    snprintf(f->text, sizeof f->text, "%s: %s per device", what, b);
}

/* the largest whole x in [lo, hi] for which `set(x)` fits, or lo - 1; the footprint grows with
 * x (batch, context) */
static double
largest_fitting(const struct roof_config *cfg, double cap, double lo, double hi, bool batch)
{
    struct roof_config c = *cfg;
    double best = lo - 1;
    for (int i = 0; i < 64 && lo <= hi; i++) {
        double mid = floor((lo + hi) / 2);
        if (batch)
            c.batch = mid;
        else if (c.phase == ROOF_PREFILL)
            c.prompt = mid;
        else
            c.context = mid;
        if (need_of(&c) <= cap) {
            best = mid;
            lo = mid + 1;
        } else {
            hi = mid - 1;
        }
    }
    return best;
}

int
roof_fit_advise(const struct roof_config *cfg, struct roof_fit_advice *out)
{
    memset(out, 0, sizeof *out);
    if (!cfg->hw || !cfg->model)
        return -1;
    struct roof_memory m;
    roof_memory(cfg, &m);
    double cap = m.capacity_bytes;
    out->need_bytes = m.total_bytes;
    out->capacity_bytes = cap;
    out->over_bytes = m.total_bytes - cap;
    out->fits = m.fits;
    if (m.fits)
        return 0;
    char what[96];
    /* a smaller weight format: the first (largest) that fits, KV and activations unchanged */
    static const enum dtype SMALLER[] = {DT_BF16,   DT_FP8,  DT_Q8_0, DT_Q4_1,
                                         DT_Q4_K_M, DT_Q4_0, DT_INT4, DT_FP4};
    for (size_t i = 0; i < sizeof SMALLER / sizeof SMALLER[0]; i++) {
        if (!(dtype_bits(SMALLER[i]) < dtype_bits(cfg->weights)))
            continue;
        struct roof_config c = *cfg;
        c.weights = SMALLER[i];
        double need = need_of(&c);
        if (need <= cap) {
            snprintf(what, sizeof what, "weights in %s", dtype_name(SMALLER[i]));
            add_fix(out, ROOF_FIX_FORMAT, (double)SMALLER[i], need, what);
            break;
        }
    }
    /* more devices: the smallest tensor-parallel degree the heads divide that fits */
    for (int tp = (cfg->tp > 1 ? cfg->tp : 1) * 2; tp <= 64; tp *= 2) {
        struct roof_config c = *cfg;
        c.tp = tp;
        if (c.gpus > 0 && c.gpus < tp * (c.pp > 1 ? c.pp : 1))
            c.gpus = tp * (c.pp > 1 ? c.pp : 1);
        if (roof_config_problem(&c))
            continue;
        double need = need_of(&c);
        if (need <= cap) {
            snprintf(what, sizeof what, "tp %d (%d devices per instance)", tp,
                     tp * (c.pp > 1 ? c.pp : 1));
            add_fix(out, ROOF_FIX_TP, tp, need, what);
            break;
        }
    }
    /* data-parallel attention (docs/physics.md#data-parallel-attention): where tp keeps every
     * sequence's KV cache on every device (one latent vector for all heads, or fewer KV heads
     * than tp), the smallest degree that divides tp and fits */
    int tp = cfg->tp > 1 ? cfg->tp : 1;
    if (tp > 1 && !(cfg->attn_dp > 1) && (mdl_is_mla(cfg->model) || cfg->model->num_kv_heads < tp))
        for (int d = 2; d <= tp; d *= 2) {
            struct roof_config c = *cfg;
            c.attn_dp = d;
            if (tp % d != 0 || roof_config_problem(&c))
                continue;
            double need = need_of(&c);
            if (need <= cap) {
                snprintf(what, sizeof what, "data-parallel attention over %d ranks (--attn-dp %d)",
                         d, d);
                add_fix(out, ROOF_FIX_ATTN_DP, d, need, what);
                break;
            }
        }
    /* a shorter context (or prompt) at this batch */
    bool pre = cfg->phase == ROOF_PREFILL;
    double now = pre ? cfg->prompt : cfg->context;
    if (now > 1) {
        double ctx = largest_fitting(cfg, cap, pre ? 1 : 0, now - 1, false);
        if (ctx >= (pre ? 1 : 0) && ctx >= 1) {
            struct roof_config c = *cfg;
            if (pre)
                c.prompt = ctx;
            else
                c.context = ctx;
            snprintf(what, sizeof what, "%s of at most %.0f tokens", pre ? "a prompt" : "a context",
                     ctx);
            add_fix(out, ROOF_FIX_CONTEXT, ctx, need_of(&c), what);
        }
    }
    /* a smaller batch */
    if (cfg->batch > 1) {
        double b = largest_fitting(cfg, cap, 1, ceil(cfg->batch) - 1, true);
        if (b >= 1) {
            struct roof_config c = *cfg;
            c.batch = b;
            snprintf(what, sizeof what, "a batch of at most %.0f", b);
            add_fix(out, ROOF_FIX_BATCH, b, need_of(&c), what);
        }
    }
    /* a smaller reserve */
    if (cfg->reserve_bytes > 0 && m.total_bytes - m.reserve_bytes <= cap) {
        double r = cap - (m.total_bytes - m.reserve_bytes);
        char rb[32], nb[32];
        unit_format_short(r, "B", 3, rb, sizeof rb);
        unit_format_short(m.reserve_bytes, "B", 3, nb, sizeof nb);
        snprintf(what, sizeof what, "a reserve of at most %s instead of %s", rb, nb);
        add_fix(out, ROOF_FIX_RESERVE, r, cap, what);
    }
    return 0;
}
