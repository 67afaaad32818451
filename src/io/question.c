/* Question loader (see question.h, docs/plan.md): schema check with positions and did-you-mean
 * hints, every problem of the file in one pass; the model and the candidate hardware resolved
 * by id or by path relative to the question's directory. */
#include "io/question.h"

#include "core/roof.h"
#include "io/measure.h"
#include "io/profiles.h"
#include "io/scenario.h"
#include "io/ydoc.h"
#include "util/alloc.h"
#include "util/strs.h"
#include "util/units.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define N(a) (sizeof(a) / sizeof((a)[0]))

static const char *const TOP_KEYS[] = {"name",     "model", "engine",     "kernels", "formats",
                                       "workload", "slo",   "candidates", "money",   "plan"};
static const char *const WL_KEYS[] = {"rate_per_s", "tokens_per_month", "peak_to_mean", "users",
                                      "think_time", "documents",        "deadline",     "arrivals",
                                      "cv",         "prompt",           "output",       "trace"};
static const char *const SLO_KEYS[] = {"preset", "ttft", "itl", "e2e", "percentile"};
static const char *const CAND_KEYS[] = {"hardware",
                                        "vendor",
                                        "kind",
                                        "min_memory",
                                        "max_price_per_hour",
                                        "max_purchase",
                                        "tp",
                                        "attn_dp",
                                        "pp",
                                        "schedulers",
                                        "max_batch",
                                        "max_tokens_per_step",
                                        "prefill_hardware",
                                        "prefill_decode_ratios"};
static const char *const MONEY_KEYS[] = {"mode",         "currency", "rent_per_hour",
                                         "rental_basis", "tco",      "purchase_per_device"};
/* the order of struct plan_tco's fields (bits of tco_given) */
static const char *const TCO_KEYS[] = {"life_years",
                                       "residual",
                                       "cost_of_capital",
                                       "maintenance",
                                       "pue",
                                       "price_per_kwh",
                                       "host_power",
                                       "device_utilisation",
                                       "server_overhead",
                                       "facility_per_server_month"};
static const char *const PLAN_KEYS[] = {
    "objective",    "utilisation", "spares",   "growth_per_month", "horizon_months",
    "power_budget", "volume_max",  "requests", "confirm_top",      "seed"};
static const char *const FMT_KEYS[] = {"weights", "act", "kv"};
static const char *const DIST_KEYS[] = {"dist", "value", "min", "max", "mean", "sd"};
static const char *const DISTS[] = {"fixed", "uniform", "lognormal"};
static const char *const POLICIES[] = {"static", "continuous", "chunked", "disaggregated"};
static const char *const PROCESSES[] = {"poisson", "gamma"};
static const char *const MODES[] = {"rent", "buy"};
/* money.rental_basis and the enum plan_rent_basis it sets */
static const char *const BASES[] = {"on-demand", "reserved-3y", "any"};
static const enum plan_rent_basis BASIS_OF[] = {PLAN_BASIS_ON_DEMAND, PLAN_BASIS_RESERVED_3Y,
                                                PLAN_BASIS_ANY};
static const char *const OBJECTIVES[] = {"min_cost_per_hour", "min_cost_per_mtok", "min_devices",
                                         "max_tokens_per_dollar"};

/* The duration `v` named `name`: "2 s", "500 ms", "30 min", "168 h", "7 days", "1 week"; false
 * when null (nothing given) or after an error. */
static bool
duration(struct ycheck *y, const struct ynode *v, const char *name, double *out)
{
    if (ynode_is_null(v))
        return false;
    if (v->kind == YNODE_SCALAR) {
        char *end;
        double x = strtod(v->value, &end);
        while (*end == ' ')
            end++;
        static const struct {
            const char *u;
            double s;
        } U[] = {{"min", 60},    {"h", 3600},     {"hours", 3600},  {"hour", 3600},   {"d", 86400},
                 {"day", 86400}, {"days", 86400}, {"week", 604800}, {"weeks", 604800}};
        if (end != v->value && isfinite(x) && x > 0)
            for (size_t i = 0; i < N(U); i++)
                if (strcmp(end, U[i].u) == 0) {
                    *out = x * U[i].s;
                    return true;
                }
        const char *why;
        if (unit_parse(v->value, UNIT_SECONDS, &x, &why) == 0 && x > 0) {
            *out = x;
            return true;
        }
    }
    ycheck_error(y, v, "'%s' must be a time such as '2 s', '50 ms', '168 h' or '7 days', got '%s'",
                 name, v->kind == YNODE_SCALAR ? v->value : ynode_kind_name(v));
    return false;
}

/* A scalar or a sequence of scalars: calls `fn` for each item. Returns the count, -1 on error. */
static int
each_item(struct ycheck *y, const struct ynode *v, const char *name, int max,
          bool (*fn)(struct ycheck *, const struct ynode *, const char *, int, void *), void *ctx)
{
    if (!v)
        return 0;
    if (v->kind == YNODE_MAP) {
        ycheck_error(y, v, "'%s' must be a value or a list of values, not a mapping", name);
        return -1;
    }
    if (v->kind == YNODE_SCALAR)
        return fn(y, v, name, 0, ctx) ? 1 : -1;
    if (v->n == 0) {
        ycheck_error(y, v, "'%s' is an empty list", name);
        return -1;
    }
    if ((int)v->n > max) {
        ycheck_error(y, v, "'%s' has %zu items; at most %d", name, v->n, max);
        return -1;
    }
    bool ok = true;
    for (size_t i = 0; i < v->n; i++) {
        if (v->items[i]->kind != YNODE_SCALAR) {
            ycheck_error(y, v->items[i], "'%s' items must be values, not %s", name,
                         ynode_kind_name(v->items[i]));
            ok = false;
            continue;
        }
        ok = fn(y, v->items[i], name, (int)i, ctx) && ok;
    }
    return ok ? (int)v->n : -1;
}

/* The numbers a candidates list may hold: whole numbers or not, the range, and the range as
 * messages say it ("'%s' must be <range>, got '%s'"). */
enum item_type { ITEM_INT, ITEM_LONG, ITEM_DOUBLE };
struct item_num {
    void *out; /* int, long or double array */
    enum item_type type;
    double lo, hi;
    bool lo_open;
    const char *range;
};

static bool
item_num(struct ycheck *y, const struct ynode *v, const char *name, int i, void *ctx)
{
    const struct item_num *t = ctx;
    long l = 0;
    double x = 0;
    bool read = t->type == ITEM_DOUBLE ? ynode_double(v, &x) == 0 : ynode_long(v, &l) == 0;
    if (t->type != ITEM_DOUBLE)
        x = (double)l;
    if (!read || (t->lo_open ? !(x > t->lo) : !(x >= t->lo)) || !(x <= t->hi)) {
        ycheck_error(y, v, "'%s' must be %s, got '%s'", name, t->range, v->value);
        return false;
    }
    if (t->type == ITEM_INT)
        ((int *)t->out)[i] = (int)l;
    else if (t->type == ITEM_LONG)
        ((long *)t->out)[i] = l;
    else
        ((double *)t->out)[i] = x;
    return true;
}

static bool
item_policy(struct ycheck *y, const struct ynode *v, const char *name, int i, void *ctx)
{
    int k = ycheck_enum(y, v, name, v->value, POLICIES, N(POLICIES));
    if (k < 0)
        return false;
    ((enum sim_policy *)ctx)[i] = (enum sim_policy)k;
    return true;
}

static bool
parse_dtype(struct ycheck *y, const struct ynode *v, const char *name, bool weight_ok,
            enum dtype *out)
{
    enum dtype d;
    if (v->kind != YNODE_SCALAR || dtype_parse(v->value, &d) != 0 || d == DT_TF32 || d == DT_FP64) {
        char list[256];
        ycheck_error(y, v, "'%s': unknown format '%s' (%s)", name,
                     v->kind == YNODE_SCALAR ? v->value : ynode_kind_name(v),
                     dtype_list(list, sizeof list, weight_ok));
        return false;
    }
    if (!weight_ok && dtype_is_weight_only(d) && d != DT_INT4) {
        ycheck_error(y, v, "'%s': %s is a weight-only format", name, dtype_name(d));
        return false;
    }
    *out = d;
    return true;
}

static void
load_formats(struct ycheck *y, const struct ynode *root, struct plan_question *q)
{
    const struct ynode *v = ynode_get(root, "formats");
    if (!v || ynode_is_null(v)) {
        struct roof_config d;
        roof_config_init(&d, NULL, q->model, ROOF_DECODE);
        q->formats[0] = (struct plan_format){d.weights, d.act, d.kv, false};
        q->n_formats = 1;
        return;
    }
    const struct ynode *one[1] = {v};
    const struct ynode *const *items =
        v->kind == YNODE_SEQ ? (const struct ynode *const *)v->items : one;
    size_t n = v->kind == YNODE_SEQ ? v->n : 1;
    if (n == 0 || n > PLAN_MAX_FORMATS) {
        ycheck_error(y, v, "'formats' must list 1 to %d formats", PLAN_MAX_FORMATS);
        return;
    }
    for (size_t i = 0; i < n; i++) {
        const struct ynode *it = items[i];
        struct plan_format f = {0};
        if (it->kind == YNODE_SCALAR) {
            if (!parse_dtype(y, it, "formats", true, &f.weights))
                continue;
            f.act = roof_default_act(f.weights);
            f.kv = roof_default_kv(f.weights);
        } else if (it->kind == YNODE_MAP) {
            ycheck_keys(y, it, "formats", FMT_KEYS, N(FMT_KEYS));
            const struct ynode *w = ynode_get(it, "weights");
            if (!w) {
                ycheck_error(y, it, "missing required key 'weights' in 'formats'");
                continue;
            }
            if (!parse_dtype(y, w, "formats.weights", true, &f.weights))
                continue;
            f.act = roof_default_act(f.weights);
            f.kv = roof_default_kv(f.weights);
            const struct ynode *a = ynode_get(it, "act"), *k = ynode_get(it, "kv");
            if (a && !parse_dtype(y, a, "formats.act", false, &f.act))
                continue;
            if (k && !parse_dtype(y, k, "formats.kv", false, &f.kv))
                continue;
        } else {
            ycheck_error(y, it, "'formats' items must be a format or a mapping with 'weights'");
            continue;
        }
        q->formats[q->n_formats++] = f;
    }
}

/* A format Marlin's MoE changes (roof_mxfp4_marlin_format). */
static bool
marlin_format(const struct plan_question *q, const struct plan_format *f)
{
    return roof_mxfp4_marlin_format(q->model, f->weights, f->act);
}

/* The question's MoE kernel on its formats: pinned (kernels.moe: `marlin` true, `auto` false),
 * the formats it changes take it; otherwise each format with MXFP4 experts on 16-bit activations
 * gets a twin through vLLM's Marlin MoE when the engine's profile has Marlin's rate, so the planner
 * compares the two kernels like any other choice (docs/plan.md). */
static void
moe_kernel_formats(struct ycheck *y, const struct ynode *root, struct plan_question *q)
{
    bool marlin_pinned = scenario_read_kernels(y, root);
    const struct ynode *kn = ynode_get(root, "kernels");
    bool pinned = kn && kn->kind == YNODE_MAP && ynode_get(kn, "moe");
    for (int i = 0; i < q->n_formats; i++)
        q->formats[i].moe_marlin = marlin_pinned && marlin_format(q, &q->formats[i]);
    if (pinned || !q->engine)
        return;
    bool any = false;
    for (int i = 0; i < q->n_formats; i++)
        any = any || marlin_format(q, &q->formats[i]);
    if (!any)
        return;
    /* its errors (out of memory, a profile that does not load) are the question's */
    struct engine_profile *e = engine_find(q->engine, y->errs);
    bool marlin = e && e->marlin_moe_vs_peak > 0;
    engine_profile_free(e);
    if (!marlin)
        return;
    int n = q->n_formats;
    for (int i = 0; i < n; i++) {
        struct plan_format f = q->formats[i];
        if (!marlin_format(q, &f))
            continue;
        if (q->n_formats == PLAN_MAX_FORMATS) {
            ycheck_error(y, ynode_get(root, "formats") ? ynode_get(root, "formats") : root,
                         "'formats' leaves no room for the Marlin twin of '%s' (at most %d "
                         "formats with the twins; pin one kernel with 'kernels: {moe: auto}')",
                         dtype_name(f.weights), PLAN_MAX_FORMATS);
            return;
        }
        f.moe_marlin = true;
        q->formats[q->n_formats++] = f;
    }
}

static const struct ydoc_length_form LENGTH = {.section = "workload",
                                               .missing_hint = " (tokens)",
                                               .max_tokens = SIM_MAX_TOKENS,
                                               .scalar_forms = " or a mapping with 'dist'",
                                               .kinds = DISTS,
                                               .n_kinds = N(DISTS),
                                               .keys = DIST_KEYS,
                                               .n_keys = N(DIST_KEYS)};

/* The simulator's length limit (prompt 9223372036854775807 planned as 0 sequences fitting). */
static bool
tokens_at_most(struct ycheck *y, const struct ynode *at, const char *pre, double n)
{
    if (n <= (double)SIM_MAX_TOKENS)
        return true;
    ycheck_error(y, at, "'%s' must be at most %ld tokens, got '%s'", pre, SIM_MAX_TOKENS,
                 at->kind == YNODE_SCALAR ? at->value : "?");
    return false;
}

static bool
read_dist(struct ycheck *y, const struct ynode *wl, const char *key, struct sim_dist *d)
{
    struct ydoc_length len;
    int form = ydoc_length(y, wl, key, &LENGTH, d, &len);
    if (form <= 0)
        return form == 0;
    const struct ynode *v = len.map;
    const char *pre = len.name;
    long x;
    bool ok = true;
    long lo = 1, hi = 0;
    switch (d->kind) {
    case SIM_DIST_FIXED:
        ok = ycheck_long(y, v, pre, "value", true, 1, &x);
        d->value = (double)x;
        break;
    case SIM_DIST_UNIFORM:
        ok = ycheck_long(y, v, pre, "min", true, 1, &lo) &&
             ycheck_long(y, v, pre, "max", true, 1, &hi) && ycheck_min_max(y, v, pre, lo, hi);
        d->min = (double)lo;
        d->max = (double)hi;
        break;
    case SIM_DIST_LOGNORMAL:
        ok = ycheck_num_in(y, v, pre, "mean", 1, false, INFINITY, &d->mean);
        if (!ynode_get(v, "mean")) {
            ycheck_error(y, v, "missing required key 'mean' in '%s'", pre);
            ok = false;
        }
        if (!ynode_get(v, "sd")) {
            ycheck_error(y, v, "missing required key 'sd' in '%s'", pre);
            ok = false;
        } else {
            ok = ycheck_num_in(y, v, pre, "sd", 0, false, INFINITY, &d->sd) && ok;
        }
        if (ynode_get(v, "min") && !ycheck_long(y, v, pre, "min", false, 1, &lo))
            ok = false;
        if (ynode_get(v, "max") && !ycheck_long(y, v, pre, "max", false, 1, &hi))
            ok = false;
        ok = ycheck_min_max(y, v, pre, lo, hi) && ok;
        d->min = (double)lo;
        d->max = (double)hi;
        break;
    default:
        break;
    }
    const char *keys[] = {"value", "max", "mean"};
    const double n[] = {d->value, d->max, d->mean};
    char name[48];
    for (int i = 0; i < 3 && ok; i++)
        if (ynode_get(v, keys[i])) {
            snprintf(name, sizeof name, "%s.%s", pre, keys[i]);
            ok = tokens_at_most(y, ynode_get(v, keys[i]), name, n[i]);
        }
    return ok;
}

/* workload.trace: the trace CSV of scenarios' arrivals.trace (scenario_read_trace), relative
 * to the question's directory. Fills q->trace and, from its rows, q->prompt and q->output (kind
 * trace with the rows' mean and max). Returns the key's node, or NULL (none, or an error). */
static const struct ynode *
read_question_trace(struct ycheck *y, const struct ynode *w, struct plan_question *q)
{
    const char *f;
    if (!ycheck_str(y, w, "workload", "trace", false, &f))
        return NULL;
    const struct ynode *v = ynode_get(w, "trace");
    char *path = ydoc_relative(y->path, f);
    struct sim_trace *t = calloc(1, sizeof *t);
    struct err_list e = {0};
    if (!path || !t || scenario_read_trace(path, t, &e) != 0) {
        for (size_t i = 0; i < e.n; i++)
            ycheck_error(y, v, "%s: %s", e.items[i].path ? e.items[i].path : f, e.items[i].msg);
        if (e.n == 0)
            ycheck_error(y, v, "cannot read the trace '%s'", f);
        err_list_release(&e);
        free(path);
        if (t)
            free(t->rows);
        free(t);
        return NULL;
    }
    err_list_release(&e);
    free(path);
    q->trace = t;
    double sp = 0, so = 0, mp = 0, mo = 0;
    for (long i = 0; i < t->n; i++) {
        const struct sim_trace_row *r = &t->rows[i];
        if (r->prompt_tokens < 1 || r->output_tokens < 1) {
            ycheck_error(y, v,
                         "trace row %ld has a request of 0 tokens: the planner sizes for every "
                         "request served",
                         i + 1);
            return NULL;
        }
        sp += (double)r->prompt_tokens;
        so += (double)r->output_tokens;
        mp = fmax(mp, (double)r->prompt_tokens);
        mo = fmax(mo, (double)r->output_tokens);
    }
    q->prompt = (struct sim_dist){.kind = SIM_DIST_TRACE, .mean = sp / (double)t->n, .max = mp};
    q->output = (struct sim_dist){.kind = SIM_DIST_TRACE, .mean = so / (double)t->n, .max = mo};
    return v;
}

/* A trace without another form of traffic: the rate is its requests over its span, (n - 1) /
 * (last - first arrival), and its burstiness the coefficient of variation of its gaps (gamma
 * arrivals with that cv). The keys that shape other forms' arrivals are errors here. q NULL:
 * the trace failed to load, only check the keys. */
static void
trace_traffic(struct ycheck *y, const struct ynode *w, const struct ynode *tr,
              struct plan_question *q)
{
    static const char *const K[] = {"arrivals", "cv", "peak_to_mean", "think_time", "deadline"};
    for (size_t i = 0; i < N(K); i++)
        if (ynode_get(w, K[i]))
            ycheck_error(y, ynode_get(w, K[i]),
                         "'workload.%s' needs 'rate_per_s', 'tokens_per_month', 'users' or "
                         "'documents'; the trace alone brings its own arrivals",
                         K[i]);
    if (!q)
        return;
    const struct sim_trace *t = q->trace;
    q->workload = PLAN_WL_RATE;
    q->process = SIM_POISSON;
    double span = t->n > 1 ? t->rows[t->n - 1].arrival_s - t->rows[0].arrival_s : 0;
    if (!(span > 0)) {
        ycheck_error(y, tr, "the trace's arrivals span no time: give 'workload.rate_per_s'");
        return;
    }
    q->rate_per_s = (double)(t->n - 1) / span;
    double mean = span / (double)(t->n - 1), ss = 0;
    for (long i = 1; i < t->n; i++) {
        double g = t->rows[i].arrival_s - t->rows[i - 1].arrival_s - mean;
        ss += g * g;
    }
    double cv = t->n > 2 ? sqrt(ss / (double)(t->n - 2)) / mean : 1;
    if (cv > 0 && fabs(cv - 1) > 1e-9) {
        q->process = SIM_GAMMA;
        q->cv = cv < 100 ? cv : 100;
    }
}

static void
load_workload(struct ycheck *y, const struct ynode *root, struct plan_question *q)
{
    const struct ynode *w = ynode_get(root, "workload");
    if (!w || ynode_is_null(w)) {
        ycheck_error(y, root, "missing required key 'workload'");
        return;
    }
    if (!ycheck_map(y, w, "workload"))
        return;
    ycheck_keys(y, w, "workload", WL_KEYS, N(WL_KEYS));
    const struct ynode *tr = read_question_trace(y, w, q), *tk = ynode_get(w, "trace");
    if (!tk || ynode_get(w, "prompt"))
        read_dist(y, w, "prompt", &q->prompt);
    if (!tk || ynode_get(w, "output"))
        read_dist(y, w, "output", &q->output);
    const char *forms[] = {"rate_per_s", "tokens_per_month", "users", "documents"};
    const struct ynode *given = NULL;
    int kind = -1;
    if (tk && !ynode_get(w, "rate_per_s") && !ynode_get(w, "tokens_per_month") &&
        !ynode_get(w, "users") && !ynode_get(w, "documents")) {
        if (tr)
            trace_traffic(y, w, tr, q);
        else
            trace_traffic(y, w, NULL, NULL);
        return;
    }
    for (int i = 0; i < 4; i++) {
        const struct ynode *v = ynode_get(w, forms[i]);
        if (!v)
            continue;
        if (given) {
            ycheck_error(y, v,
                         "'workload.%s' and 'workload.%s' both given: say the traffic one way",
                         forms[kind], forms[i]);
            return;
        }
        given = v;
        kind = i;
    }
    if (!given) {
        ycheck_error(y, w,
                     "'workload' needs one of 'rate_per_s', 'tokens_per_month', 'users' or "
                     "'documents'");
        return;
    }
    q->workload = (enum plan_workload)kind;
    static const char *const ONLY[][2] = {
        {"peak_to_mean", "tokens_per_month"}, {"think_time", "users"}, {"deadline", "documents"}};
    for (size_t i = 0; i < N(ONLY); i++) {
        const struct ynode *v = ynode_get(w, ONLY[i][0]);
        if (v && strcmp(forms[kind], ONLY[i][1]) != 0)
            ycheck_error(y, v, "'workload.%s' goes with 'workload.%s'", ONLY[i][0], ONLY[i][1]);
    }
    q->peak_to_mean = 2;
    double mean_tokens = sim_dist_mean(&q->prompt) + sim_dist_mean(&q->output);
    switch (q->workload) {
    case PLAN_WL_RATE:
        ycheck_num_in(y, w, "workload", "rate_per_s", 0, true, SIM_MAX_RATE, &q->rate_per_s);
        break;
    case PLAN_WL_TOKENS_PER_MONTH:
        ycheck_num_in(y, w, "workload", "tokens_per_month", 0, true, INFINITY,
                      &q->tokens_per_month);
        ycheck_num_in(y, w, "workload", "peak_to_mean", 1, false, 100, &q->peak_to_mean);
        /* a month of 730 hours (8760 / 12) */
        if (mean_tokens > 0)
            q->rate_per_s = q->tokens_per_month / (730.0 * 3600.0) / mean_tokens * q->peak_to_mean;
        break;
    case PLAN_WL_USERS:
        ycheck_long(y, w, "workload", "users", true, 1, &q->users);
        q->think_time_s = 0;
        if (ynode_get(w, "think_time") &&
            !duration(y, ynode_get(w, "think_time"), "workload.think_time", &q->think_time_s))
            q->think_time_s = 0;
        /* planning rate: every user sends once per think time (responses taken as instant,
         * an upper bound on a closed loop's rate); no think time: one request per user-second */
        q->rate_per_s = (double)q->users / (q->think_time_s > 1 ? q->think_time_s : 1);
        break;
    case PLAN_WL_OFFLINE:
        ycheck_num_in(y, w, "workload", "documents", 0, true, INFINITY, &q->offline_requests);
        if (!ynode_get(w, "deadline"))
            ycheck_error(y, w, "missing required key 'deadline' in 'workload' (with 'documents')");
        else if (duration(y, ynode_get(w, "deadline"), "workload.deadline",
                          &q->offline_deadline_s) &&
                 q->offline_requests > 0)
            q->rate_per_s = q->offline_requests / q->offline_deadline_s;
        break;
    }
    /* 1e300 requests/s planned -2147483648 devices */
    if (q->rate_per_s > SIM_MAX_RATE && q->workload != PLAN_WL_RATE)
        ycheck_error(y, w, "the workload comes to %g requests/s, above the limit of %g",
                     q->rate_per_s, SIM_MAX_RATE);
    q->process = SIM_POISSON;
    const char *p;
    if (ycheck_str(y, w, "workload", "arrivals", false, &p)) {
        int k = ycheck_enum(y, ynode_get(w, "arrivals"), "workload.arrivals", p, PROCESSES,
                            N(PROCESSES));
        if (k == 1)
            q->process = SIM_GAMMA;
    }
    if (ynode_get(w, "cv")) {
        if (q->process != SIM_GAMMA)
            ycheck_error(y, ynode_get(w, "cv"), "'workload.cv' goes with 'arrivals: gamma'");
        else
            ycheck_num_in(y, w, "workload", "cv", 0, true, 100, &q->cv);
    } else if (q->process == SIM_GAMMA) {
        ycheck_error(y, w, "missing required key 'cv' in 'workload' (arrivals gamma)");
    }
}

const struct plan_slo_preset PLAN_SLO_PRESETS[] = {
    /* llm-d use-case table (p95); llm-d-incubation/llm-d-planner, read 2026-04 */
    {"chatbot", 0.150, 0.025, 0, 0.95,
     "llm-d planner use-case table (chatbot: TTFT 150 ms, ITL 25 ms, p95)"},
    {"code-completion", 0.100, 0.020, 0, 0.95,
     "llm-d planner use-case table (code completion: TTFT 100 ms, ITL 20 ms, p95)"},
    {"rag", 0.600, 0.030, 0, 0.95,
     "llm-d planner use-case table (RAG: TTFT 600 ms, ITL 30 ms, p95)"},
    {"long-document", 1.0, 0.040, 0, 0.95,
     "llm-d planner use-case table (long document: TTFT 1 s, ITL 40 ms, p95)"},
    {"batch", 2.0, 0.045, 0, 0.95,
     "llm-d planner use-case table (batch: TTFT 2 s, ITL 45 ms, p95)"},
    {"mlperf-server", 2.0, 0.200, 0, 0.99,
     "MLPerf Inference loadgen mlperf.conf: llama2-70b.Server.ttft_latency = 2000, "
     "tpot_latency = 200 (ms), p99"},
    {"mlperf-interactive", 0.450, 0.040, 0, 0.99,
     "MLPerf Inference llama2-70b Interactive: TTFT 450 ms, TPOT 40 ms, p99 (as quoted in "
     "shared/reference/planning-anchors.md; not found in mlperf.conf)"},
    {"relaxed", 2.0, 0.030, 0, 0.99,
     "NVIDIA aiconfigurator defaults (TTFT 2000 ms, TPOT 30 ms; its CLI user guide)"},
};
const int PLAN_N_SLO_PRESETS = (int)N(PLAN_SLO_PRESETS);

static void
load_slo(struct ycheck *y, const struct ynode *root, struct plan_question *q)
{
    q->slo.target = 0.99;
    q->slo_source = "question";
    const struct ynode *v = ycheck_section(y, root, "slo", SLO_KEYS, N(SLO_KEYS));
    if (!v)
        return;
    const char *p;
    if (ycheck_str(y, v, "slo", "preset", false, &p)) {
        const char *names[16];
        for (int i = 0; i < PLAN_N_SLO_PRESETS; i++)
            names[i] = PLAN_SLO_PRESETS[i].name;
        int k = ycheck_enum(y, ynode_get(v, "preset"), "slo.preset", p, names,
                            (size_t)PLAN_N_SLO_PRESETS);
        if (k >= 0) {
            const struct plan_slo_preset *r = &PLAN_SLO_PRESETS[k];
            q->slo.ttft_s = r->ttft_s;
            q->slo.itl_s = r->itl_s;
            q->slo.target = r->target;
            snprintf(q->slo_preset, sizeof q->slo_preset, "%s", r->name);
            q->slo_source = r->source;
            q->has_slo = true;
        }
    }
    double x;
    if (ycheck_qty(y, v, "slo", "ttft", UNIT_SECONDS, false, &x))
        q->slo.ttft_s = x;
    if (ycheck_qty(y, v, "slo", "itl", UNIT_SECONDS, false, &x))
        q->slo.itl_s = x;
    if (ycheck_qty(y, v, "slo", "e2e", UNIT_SECONDS, false, &x))
        q->slo.e2e_s = x;
    if (ycheck_num_in(y, v, "slo", "percentile", 50, false, 100, &x))
        q->slo.target = x / 100;
    if (ynode_get(v, "ttft") || ynode_get(v, "itl") || ynode_get(v, "e2e"))
        q->has_slo = true;
    if (!q->has_slo && !ynode_get(v, "preset"))
        ycheck_error(y, v, "'slo' needs 'preset' or at least one of 'ttft', 'itl', 'e2e'");
}

static int
cmp_hw(const void *a, const void *b)
{
    const struct hw_profile *x = *(const struct hw_profile *const *)a;
    const struct hw_profile *z = *(const struct hw_profile *const *)b;
    return strcmp(x->id, z->id);
}

static bool
push_hw(struct hw_profile ***arr, int *n, struct hw_profile *h)
{
    for (int i = 0; i < *n; i++)
        if (strcmp((*arr)[i]->id, h->id) == 0) {
            hw_free(h);
            return true;
        }
    struct hw_profile **na = realloc(*arr, (size_t)(*n + 1) * sizeof *na);
    if (!na) {
        alloc_note_failure();
        hw_free(h);
        return false;
    }
    na[(*n)++] = h;
    *arr = na;
    return true;
}

/* hardware: `all` or a list of ids/paths. */
static void
load_hw_list(struct ycheck *y, const struct ynode *v, const char *name, struct hw_profile ***arr,
             int *n)
{
    if (v->kind == YNODE_SCALAR && strcmp(v->value, "all") == 0) {
        char **ids;
        int k = prof_list(PROF_HARDWARE, &ids);
        if (k < 0) {
            ycheck_error(y, v, "cannot read the hardware profiles directory");
            return;
        }
        for (int i = 0; i < k; i++) {
            struct hw_profile *h = hw_find(ids[i], y->errs);
            if (h)
                push_hw(arr, n, h);
        }
        prof_list_free(ids, k);
        return;
    }
    const struct ynode *one[1] = {v};
    const struct ynode *const *items =
        v->kind == YNODE_SEQ ? (const struct ynode *const *)v->items : one;
    size_t cnt = v->kind == YNODE_SEQ ? v->n : 1;
    if (v->kind == YNODE_MAP || cnt == 0) {
        ycheck_error(y, v, "'%s' must be 'all' or a list of hardware ids", name);
        return;
    }
    for (size_t i = 0; i < cnt; i++) {
        if (items[i]->kind != YNODE_SCALAR) {
            ycheck_error(y, items[i], "'%s' items must be hardware ids", name);
            continue;
        }
        char *p = ydoc_profile(y, items[i], PROF_HARDWARE);
        if (!p)
            continue;
        struct hw_profile *h = hw_load(p, y->errs);
        free(p);
        if (h)
            push_hw(arr, n, h);
    }
}

static void
load_candidates(struct ycheck *y, const struct ynode *root, struct plan_question *q)
{
    q->tp[0] = 1, q->tp[1] = 2, q->tp[2] = 4, q->tp[3] = 8;
    q->n_tp = 4;
    q->attn_dp[0] = 1;
    q->n_attn_dp = 1;
    q->attn_dp_auto = true;
    q->pp[0] = 1;
    q->n_pp = 1;
    q->policies[0] = SIM_CONTINUOUS;
    q->n_policies = 1;
    q->max_batch[0] = 0; /* the engine's (plan_opts.serving), else the simulator's */
    q->n_max_batch = 1;
    q->max_tokens_per_step[0] = 0;
    q->n_max_tokens_per_step = 1;
    q->pd_ratios[0] = 1;
    q->n_pd_ratios = 1;
    const struct ynode *c = ycheck_section(y, root, "candidates", CAND_KEYS, N(CAND_KEYS));
    const struct ynode *hw = c ? ynode_get(c, "hardware") : NULL;
    if (!hw) {
        ycheck_error(y, c ? c : root,
                     "missing required key 'candidates.hardware' ('all' or a list of ids)");
        return;
    }
    load_hw_list(y, hw, "candidates.hardware", &q->hw, &q->n_hw);
    int k;
    struct item_num tp = {q->tp, ITEM_INT, 1, 64, false, "whole numbers in [1, 64]"};
    if ((k = each_item(y, ynode_get(c, "tp"), "candidates.tp", PLAN_MAX_LIST, item_num, &tp)) > 0)
        q->n_tp = k;
    const struct ynode *adp = ynode_get(c, "attn_dp");
    if (adp && !(adp->kind == YNODE_SCALAR && strcmp(adp->value, "auto") == 0)) {
        struct item_num an = {q->attn_dp, ITEM_INT, 1,
                              64,         false,    "'auto' or whole numbers in [1, 64]"};
        if ((k = each_item(y, adp, "candidates.attn_dp", PLAN_MAX_LIST, item_num, &an)) > 0)
            q->n_attn_dp = k;
        q->attn_dp_auto = false;
        /* a degree is tried at each tp it divides: some pair must exist */
        bool any = k <= 0;
        for (int i = 0; i < q->n_tp && !any; i++)
            for (int j = 0; j < q->n_attn_dp && !any; j++)
                any = q->tp[i] % q->attn_dp[j] == 0;
        if (!any)
            ycheck_error(y, adp,
                         "no degree in 'candidates.attn_dp' divides a degree in 'candidates.tp' "
                         "(data-parallel attention ranks are groups of the tensor-parallel "
                         "devices; 1 = none)");
    }
    struct item_num pp = {q->pp, ITEM_INT, 1, 64, false, "whole numbers in [1, 64]"};
    if ((k = each_item(y, ynode_get(c, "pp"), "candidates.pp", PLAN_MAX_LIST, item_num, &pp)) > 0)
        q->n_pp = k;
    if ((k = each_item(y, ynode_get(c, "schedulers"), "candidates.schedulers", PLAN_MAX_LIST,
                       item_policy, q->policies)) > 0)
        q->n_policies = k;
    struct item_num mb = {q->max_batch, ITEM_LONG, 1, INFINITY, false, "whole numbers >= 1"};
    if ((k = each_item(y, ynode_get(c, "max_batch"), "candidates.max_batch", PLAN_MAX_LIST,
                       item_num, &mb)) > 0)
        q->n_max_batch = k;
    struct item_num mt = {q->max_tokens_per_step, ITEM_LONG, 1, INFINITY, false,
                          "whole numbers >= 1"};
    if ((k = each_item(y, ynode_get(c, "max_tokens_per_step"), "candidates.max_tokens_per_step",
                       PLAN_MAX_LIST, item_num, &mt)) > 0)
        q->n_max_tokens_per_step = k;
    struct item_num pd = {q->pd_ratios, ITEM_DOUBLE, 0, 16, true, "numbers in (0, 16]"};
    if ((k = each_item(y, ynode_get(c, "prefill_decode_ratios"), "candidates.prefill_decode_ratios",
                       PLAN_MAX_LIST, item_num, &pd)) > 0)
        q->n_pd_ratios = k;
    const struct ynode *pf = ynode_get(c, "prefill_hardware");
    if (pf) {
        bool disagg = false;
        for (int i = 0; i < q->n_policies; i++)
            disagg = disagg || q->policies[i] == SIM_DISAGGREGATED;
        if (!disagg)
            ycheck_error(y, pf,
                         "'candidates.prefill_hardware' needs 'disaggregated' in "
                         "'candidates.schedulers'");
        load_hw_list(y, pf, "candidates.prefill_hardware", &q->prefill_hw, &q->n_prefill_hw);
    }
    /* filters */
    const char *vendor = NULL, *kind = NULL;
    double min_mem = 0;
    ycheck_str(y, c, "candidates", "vendor", false, &vendor);
    ycheck_str(y, c, "candidates", "kind", false, &kind);
    ycheck_qty(y, c, "candidates", "min_memory", UNIT_BYTES, false, &min_mem);
    ycheck_num_in(y, c, "candidates", "max_price_per_hour", 0, true, INFINITY,
                  &q->max_price_per_hour);
    ycheck_num_in(y, c, "candidates", "max_purchase", 0, true, INFINITY, &q->max_purchase);
    int kept = 0;
    for (int i = 0; i < q->n_hw; i++) {
        struct hw_profile *h = q->hw[i];
        bool keep = (!vendor || (h->vendor && strcmp(h->vendor, vendor) == 0)) &&
                    (!kind || (h->kind && strcmp(h->kind, kind) == 0)) &&
                    h->memory_capacity_bytes >= min_mem;
        if (keep)
            q->hw[kept++] = h;
        else
            hw_free(h);
    }
    if (q->n_hw > 0 && kept == 0)
        ycheck_error(y, hw, "no hardware is left after the filters (vendor, kind, min_memory)");
    q->n_hw = kept;
    if (q->n_hw > 1)
        qsort(q->hw, (size_t)q->n_hw, sizeof *q->hw, cmp_hw);
    if (q->n_prefill_hw > 1)
        qsort(q->prefill_hw, (size_t)q->n_prefill_hw, sizeof *q->prefill_hw, cmp_hw);
}

/* `rent_per_hour:` / `purchase_per_device:` mappings of hardware id -> price. */
static void
load_prices(struct ycheck *y, const struct ynode *m, const char *key, bool rent,
            struct plan_question *q)
{
    const struct ynode *v = ynode_get(m, key);
    if (!v || ynode_is_null(v))
        return;
    char pre[48];
    snprintf(pre, sizeof pre, "money.%s", key);
    if (!ycheck_map(y, v, pre))
        return;
    for (size_t i = 0; i + 1 < v->n; i += 2) {
        const struct ynode *k = v->items[i];
        double x;
        if (!ycheck_num_in(y, v, pre, k->value, 0, true, INFINITY, &x))
            continue;
        struct plan_price_override *o = NULL;
        for (int j = 0; j < q->n_prices; j++)
            if (strcmp(q->prices[j].hw_id, k->value) == 0)
                o = &q->prices[j];
        if (!o) {
            struct plan_price_override *np =
                realloc(q->prices, (size_t)(q->n_prices + 1) * sizeof *np);
            if (!np)
                return;
            q->prices = np;
            o = &q->prices[q->n_prices++];
            memset(o, 0, sizeof *o);
            snprintf(o->hw_id, sizeof o->hw_id, "%s", k->value);
        }
        if (rent)
            o->rent_per_hour = x;
        else
            o->purchase_per_device = x;
        struct err_list tmp = {0};
        char *p = prof_resolve(PROF_HARDWARE, k->value, &tmp);
        if (!p)
            ycheck_error(y, k, "'%s': unknown hardware '%s'%s", pre, k->value,
                         tmp.n && strstr(tmp.items[0].msg, "did you mean") ? " (see roofline list)"
                                                                           : "");
        free(p);
        err_list_release(&tmp);
    }
}

static void
load_money(struct ycheck *y, const struct ynode *root, struct plan_question *q)
{
    struct plan_tco *t = &q->tco;
    *t = (struct plan_tco){.life_years = 4,
                           .residual_fraction = 0.2,
                           .cost_of_capital = 0.08,
                           .maintenance_per_year = 0.05,
                           .pue = 1.4,
                           .price_per_kwh = 0.12,
                           .host_w_per_server = 450,
                           .device_utilisation = 0.7,
                           .server_overhead = 0.25,
                           .facility_per_server_month = 0};
    snprintf(q->currency, sizeof q->currency, "USD");
    const struct ynode *m = ycheck_section(y, root, "money", MONEY_KEYS, N(MONEY_KEYS));
    if (!m)
        return;
    const char *s;
    if (ycheck_str(y, m, "money", "mode", false, &s)) {
        int k = ycheck_enum(y, ynode_get(m, "mode"), "money.mode", s, MODES, N(MODES));
        if (k >= 0)
            q->money = (enum plan_money)k;
    }
    if (ycheck_str(y, m, "money", "currency", false, &s))
        snprintf(q->currency, sizeof q->currency, "%s", s);
    if (ycheck_str(y, m, "money", "rental_basis", false, &s)) {
        int k =
            ycheck_enum(y, ynode_get(m, "rental_basis"), "money.rental_basis", s, BASES, N(BASES));
        if (k >= 0)
            q->rent_basis = BASIS_OF[k];
    }
    load_prices(y, m, "rent_per_hour", true, q);
    load_prices(y, m, "purchase_per_device", false, q);
    const struct ynode *tc = ynode_get(m, "tco");
    if (!tc || ynode_is_null(tc))
        return;
    if (!ycheck_map(y, tc, "money.tco"))
        return;
    ycheck_keys(y, tc, "money.tco", TCO_KEYS, N(TCO_KEYS));
    double *f[] = {&t->life_years,
                   &t->residual_fraction,
                   &t->cost_of_capital,
                   &t->maintenance_per_year,
                   &t->pue,
                   &t->price_per_kwh,
                   &t->host_w_per_server,
                   &t->device_utilisation,
                   &t->server_overhead,
                   &t->facility_per_server_month};
    const double lo[] = {0, 0, 0, 0, 1, 0, 0, 0, 0, 0};
    const bool open[] = {true, false, false, false, false, false, false, true, false, false};
    const double hi[] = {30, 1, 1, 1, 3, INFINITY, 1e5, 1, 10, INFINITY};
    for (size_t i = 0; i < N(TCO_KEYS); i++) {
        if (!ynode_get(tc, TCO_KEYS[i]))
            continue;
        bool ok;
        if (i == 6)
            ok = ycheck_qty(y, tc, "money.tco", "host_power", UNIT_WATTS, false, f[i]);
        else
            ok = ycheck_num_in(y, tc, "money.tco", TCO_KEYS[i], lo[i], open[i], hi[i], f[i]);
        if (ok)
            q->tco_given |= 1u << i;
    }
}

static void
load_plan(struct ycheck *y, const struct ynode *root, struct plan_question *q)
{
    q->utilisation = 0.9;
    q->horizon_months = 24;
    q->volume_max = 10;
    q->sim_requests = 1500;
    q->confirm_top = 12;
    q->seed = 1;
    q->objective = PLAN_MIN_COST_PER_HOUR;
    const struct ynode *p = ycheck_section(y, root, "plan", PLAN_KEYS, N(PLAN_KEYS));
    if (!p)
        return;
    const char *s;
    if (ycheck_str(y, p, "plan", "objective", false, &s)) {
        int k = ycheck_enum(y, ynode_get(p, "objective"), "plan.objective", s, OBJECTIVES,
                            N(OBJECTIVES));
        if (k >= 0)
            q->objective = (enum plan_objective)k;
    }
    ycheck_num_in(y, p, "plan", "utilisation", 0, true, 1, &q->utilisation);
    long v;
    if (ycheck_long(y, p, "plan", "spares", false, 0, &v))
        q->spares = (int)(v < 64 ? v : 64);
    ycheck_num_in(y, p, "plan", "growth_per_month", 0, false, 10, &q->growth_per_month);
    if (ycheck_long(y, p, "plan", "horizon_months", false, 1, &v))
        q->horizon_months = (int)(v < 240 ? v : 240);
    if (ynode_get(p, "power_budget") &&
        ycheck_qty(y, p, "plan", "power_budget", UNIT_WATTS, false, &q->power_budget_w) &&
        !(q->power_budget_w > 0))
        ycheck_error(y, ynode_get(p, "power_budget"), "'plan.power_budget' must be above 0");
    ycheck_num_in(y, p, "plan", "volume_max", 1, false, 100, &q->volume_max);
    if (ycheck_long(y, p, "plan", "requests", false, 100, &v)) {
        q->sim_requests = v < 1000000 ? v : 1000000;
        if (v > 1000000) /* was clamped silently, then simulated for minutes per candidate */
            ycheck_error(y, ynode_get(p, "requests"),
                         "'plan.requests' must be at most 1000000, got %ld", v);
    }
    if (ycheck_long(y, p, "plan", "confirm_top", false, 0, &v))
        q->confirm_top = (int)(v < 1000 ? v : 1000);
    if (ycheck_long(y, p, "plan", "seed", false, 0, &v))
        q->seed = (unsigned long)v;
}

static void
fill(struct ycheck *y, const struct ynode *root, void *obj, const void *arg)
{
    (void)arg;
    struct plan_question *q = obj;
    q->path = str_dup(y->path);
    const char *s;
    if (ycheck_str(y, root, "", "name", false, &s))
        q->name = str_dup(s);
    if (ycheck_str(y, root, "", "model", true, &s)) {
        char *p = ydoc_profile(y, ynode_get(root, "model"), PROF_MODEL);
        if (p) {
            q->model = mdl_load(p, y->errs);
            free(p);
        }
    }
    char **engines; /* those with a profile (engine_profiles/), as a scenario's */
    int n_engines = engine_names(false, &engines);
    if (ycheck_str(y, root, "", "engine", false, &s) &&
        ycheck_enum(y, ynode_get(root, "engine"), "engine", s, (const char *const *)engines,
                    (size_t)n_engines) >= 0)
        q->engine = str_dup(s);
    else if (!ynode_get(root, "engine"))
        q->engine = str_dup("kernel"); /* every command's default engine (as a scenario's) */
    engine_names_free(engines, n_engines);
    if (q->model) {
        load_formats(y, root, q);
        moe_kernel_formats(y, root, q);
    }
    load_workload(y, root, q);
    load_slo(y, root, q);
    load_candidates(y, root, q);
    load_money(y, root, q);
    load_plan(y, root, q);
    if (q->workload == PLAN_WL_OFFLINE && q->has_slo)
        ycheck_error(y, ynode_get(root, "slo"),
                     "an offline job ('workload.documents') has no latency SLO: leave 'slo' out");
}

void
plan_question_free(struct plan_question *q)
{
    if (!q)
        return;
    free(q->path);
    free(q->name);
    free(q->engine);
    mdl_free(q->model);
    for (int i = 0; i < q->n_hw; i++)
        hw_free(q->hw[i]);
    free(q->hw);
    for (int i = 0; i < q->n_prefill_hw; i++)
        hw_free(q->prefill_hw[i]);
    free(q->prefill_hw);
    free(q->prices);
    if (q->trace)
        free(q->trace->rows);
    free(q->trace);
    free(q);
}

YDOC_MAP_FORMAT(QUESTION, struct plan_question, "a question", TOP_KEYS, fill, plan_question_free,
                plan_question_load, plan_question_parse)
