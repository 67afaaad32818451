/* Scenario loader (see scenario.h, docs/simulate.md): schema check with positions, did-you-mean
 * hints, every problem of the file in one pass; profiles and the trace resolved relative to the
 * scenario's directory. */
#include "io/scenario.h"

#include "core/fits.h"
#include "core/roof.h"
#include "io/measure.h"
#include "io/profiles.h"
#include "io/ydoc.h"
#include "util/rfile.h"
#include "util/strs.h"
#include "util/units.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define N(a) (sizeof(a) / sizeof((a)[0]))

static const char *const TOP_KEYS[] = {"name",    "model",   "hardware",  "dtypes",
                                       "engine",  "kernels", "scheduler", "arrivals",
                                       "lengths", "run",     "slo"};
static const char *const KERNEL_KEYS[] = {"moe"};
static const char *const MOE_KERNELS[] = {"auto", "marlin"};
static const char *const HW_KEYS[] = {"id", "count", "tp", "ep", "attn_dp", "pp", "reserve"};
static const char *const DTYPE_KEYS[] = {"weights", "act", "kv"};
static const char *const SCHED_KEYS[] = {
    "policy",        "max_batch",          "max_tokens_per_step", "block_size", "kv_fraction",
    "preemption",    "swap_bandwidth",     "prefill_instances",   "admission",  "async_scheduling",
    "recv_interval", "max_prefill_tokens", "kv_window_blocks"};
static const char *const ARR_KEYS[] = {"process", "rate_per_s", "cv",
                                       "users",   "think_time", "trace"};
static const char *const LEN_KEYS[] = {"prompt", "output", "trace"};
static const char *const DIST_KEYS[] = {"dist", "value", "min", "max", "mean", "sd"};
static const char *const RUN_KEYS[] = {"requests", "duration", "warmup_requests", "warmup_time",
                                       "seed"};
static const char *const SLO_KEYS[] = {"ttft", "itl", "e2e", "target"};
static const char *const POLICIES[] = {"static", "continuous", "chunked", "disaggregated"};
static const char *const PREEMPTS[] = {"recompute", "swap"};
static const char *const PROCESSES[] = {"poisson", "gamma", "constant", "closed", "trace"};
static const char *const DISTS[] = {"fixed", "uniform", "lognormal", "trace"};

bool
scenario_read_kernels(struct ycheck *y, const struct ynode *root)
{
    const char *str;
    const struct ynode *kn = ycheck_section(y, root, "kernels", KERNEL_KEYS, N(KERNEL_KEYS));
    if (!kn || !ycheck_str(y, kn, "kernels", "moe", false, &str))
        return false;
    for (size_t i = 0; i < N(MOE_KERNELS); i++)
        if (strcmp(str, MOE_KERNELS[i]) == 0)
            return i == 1;
    ycheck_error(y, ynode_get(kn, "moe"),
                 "'kernels.moe' must be 'auto' (the engine's choice) or 'marlin' (vLLM's Marlin "
                 "MoE for MXFP4 experts), got '%s'",
                 str);
    return false;
}

/* A time that may be zero ("0 s"): true and *out when present and valid. */
static bool
time_nonneg(struct ycheck *y, const struct ynode *map, const char *prefix, const char *key,
            double *out)
{
    const struct ynode *v = ynode_get(map, key);
    if (!v || ynode_is_null(v))
        return false;
    const char *why;
    double x;
    if (v->kind != YNODE_SCALAR || unit_parse(v->value, UNIT_SECONDS, &x, &why) != 0 || x < 0) {
        ycheck_error(y, v, "'%s.%s' must be a time such as '2 s' or '500 ms', got %s%s%s", prefix,
                     key, v->kind == YNODE_SCALAR ? "'" : "",
                     v->kind == YNODE_SCALAR ? v->value : ynode_kind_name(v),
                     v->kind == YNODE_SCALAR ? "'" : "");
        return false;
    }
    *out = x;
    return true;
}

/* An optional whole number in [1, max] at `map`.`key`: above max is an error, never clamped
 * (tp 4294967297 used to run as tp 4096). */
static bool
long_in(struct ycheck *y, const struct ynode *map, const char *prefix, const char *key, long max,
        long *out)
{
    if (!ycheck_long(y, map, prefix, key, false, 1, out))
        return false;
    if (*out <= max)
        return true;
    ycheck_error(y, ynode_get(map, key), "'%s.%s' must be at most %ld, got %ld", prefix, key, max,
                 *out);
    return false;
}

static bool
read_dtype(struct ycheck *y, const struct ynode *map, const char *key, bool weight_only_ok,
           enum dtype *out)
{
    const char *s;
    if (!ycheck_str(y, map, "dtypes", key, false, &s))
        return false;
    enum dtype d;
    if (dtype_parse(s, &d) != 0 || d == DT_TF32 || d == DT_FP64) {
        char list[256];
        ycheck_error(y, ynode_get(map, key), "'dtypes.%s': unknown format '%s' (%s)", key, s,
                     dtype_list(list, sizeof list, weight_only_ok));
        return false;
    }
    if (!weight_only_ok && dtype_is_weight_only(d) && !(strcmp(key, "kv") == 0 && d == DT_INT4)) {
        ycheck_error(y, ynode_get(map, key), "'dtypes.%s': %s is a weight-only format", key,
                     dtype_name(d));
        return false;
    }
    *out = d;
    return true;
}

/* prompt/output: a whole number (fixed), "trace", or a mapping with `dist`. */
/* ycheck_long for a number of tokens: also at most SIM_MAX_TOKENS (docs/simulate.md#limits) */
static bool
tokens_long(struct ycheck *y, const struct ynode *map, const char *pre, const char *key,
            bool required, long min, long *out)
{
    long x;
    if (!ycheck_long(y, map, pre, key, required, min, &x))
        return false;
    if (x > SIM_MAX_TOKENS) {
        ycheck_error(y, ynode_get(map, key), "'%s.%s' must be at most %ld tokens, got %ld", pre,
                     key, SIM_MAX_TOKENS, x);
        return false;
    }
    *out = x;
    return true;
}

/* A number of tokens in [lo, SIM_MAX_TOKENS], required. */
static bool
tokens_num(struct ycheck *y, const struct ynode *map, const char *pre, const char *key, int lo,
           double *out)
{
    double x;
    if (!ycheck_num(y, map, pre, key, true, &x))
        return false;
    if (!(x >= lo && x <= (double)SIM_MAX_TOKENS)) {
        ycheck_error(y, ynode_get(map, key), "'%s.%s' must be in [%d, %ld], got %g", pre, key, lo,
                     SIM_MAX_TOKENS, x);
        return false;
    }
    *out = x;
    return true;
}

/* 'min' and 'max' of a length distribution in tokens, both required or both optional (min 1
 * and max 0, none, when absent) */
static bool
token_bounds(struct ycheck *y, const struct ynode *v, const char *pre, bool required,
             struct sim_dist *d)
{
    long lo = required ? 0 : 1, hi = 0;
    bool ok = true;
    if ((required || ynode_get(v, "min")) && !tokens_long(y, v, pre, "min", required, 1, &lo))
        ok = false;
    if ((required || ynode_get(v, "max")) && !tokens_long(y, v, pre, "max", required, 1, &hi))
        ok = false;
    d->min = (double)lo;
    d->max = (double)hi;
    return ycheck_min_max(y, v, pre, lo, hi) && ok;
}

static const struct ydoc_length_form LENGTH = {.section = "lengths",
                                               .missing_hint = "",
                                               .scalar_forms =
                                                   ", 'trace', or a mapping with 'dist'",
                                               .trace_ok = true,
                                               .max_tokens = SIM_MAX_TOKENS,
                                               .kinds = DISTS,
                                               .n_kinds = N(DISTS),
                                               .keys = DIST_KEYS,
                                               .n_keys = N(DIST_KEYS)};

static bool
read_dist(struct ycheck *y, const struct ynode *parent, const char *key, struct sim_dist *d,
          const struct ynode **uses_trace)
{
    struct ydoc_length len;
    int form = ydoc_length(y, parent, key, &LENGTH, d, &len);
    if (form == 0 && d->kind == SIM_DIST_TRACE)
        *uses_trace = ynode_get(parent, key);
    if (form <= 0)
        return form == 0;
    const struct ynode *v = len.map;
    const char *pre = len.name;
    int k = (int)d->kind;
    const char *s = DISTS[k];
    /* which keys each kind takes */
    static const char *const TAKES[4] = {"value", "min max", "mean sd min max", ""};
    bool ok = true;
    for (size_t i = 1; i < N(DIST_KEYS); i++) {
        const struct ynode *kv = ynode_get(v, DIST_KEYS[i]);
        if (!kv)
            continue;
        const char *t = TAKES[k];
        const char *hit = strstr(t, DIST_KEYS[i]);
        bool takes = hit && (hit == t || hit[-1] == ' ') &&
                     (hit[strlen(DIST_KEYS[i])] == '\0' || hit[strlen(DIST_KEYS[i])] == ' ');
        if (!takes) {
            ycheck_error(y, kv, "'%s.%s' does not apply to dist '%s'", pre, DIST_KEYS[i], s);
            ok = false;
        }
    }
    long x;
    switch (d->kind) {
    case SIM_DIST_FIXED:
        if (tokens_long(y, v, pre, "value", true, 1, &x))
            d->value = (double)x;
        else
            ok = false;
        break;
    case SIM_DIST_UNIFORM:
        ok = token_bounds(y, v, pre, true, d) && ok;
        break;
    case SIM_DIST_LOGNORMAL: {
        bool a = tokens_num(y, v, pre, "mean", 1, &d->mean);
        bool b = tokens_num(y, v, pre, "sd", 0, &d->sd);
        ok = token_bounds(y, v, pre, false, d) && a && b && ok;
        break;
    }
    case SIM_DIST_TRACE:
        *uses_trace = ynode_get(v, "dist");
        break;
    }
    return ok;
}

/* ---- trace CSV ---- */

static int
parse_trace_text(const char *path, const char *text, struct sim_trace *out, struct err_list *errs)
{
    memset(out, 0, sizeof *out);
    size_t before = err_count(errs, ERR_ERROR);
    long cap = 0, line = 0, reported = 0;
    const char *p = text;
    double last = 0;
    bool seen = false;
    while (*p) {
        line++;
        const char *end = strchr(p, '\n');
        size_t len = end ? (size_t)(end - p) : strlen(p);
        char buf[512];
        if (len >= sizeof buf) {
            err_add(errs, path, (int)line, 1, ERR_ERROR, "line too long");
            reported++;
            p = end ? end + 1 : p + len;
            continue;
        }
        memcpy(buf, p, len);
        buf[len] = '\0';
        /* advance before trimming: a last line "...\r" without "\n" looped forever (fuzz_trace) */
        p = end ? end + 1 : p + len;
        if (len && buf[len - 1] == '\r')
            buf[--len] = '\0';
        const char *q = buf;
        while (*q == ' ' || *q == '\t')
            q++;
        if (*q == '\0' || *q == '#')
            continue;
        if (out->n == 0 && strncmp(q, "arrival_s", 9) == 0) {
            char hdr[512];
            size_t k = 0;
            for (const char *c = q; *c && k + 1 < sizeof hdr; c++)
                if (*c != ' ' && *c != '\t')
                    hdr[k++] = *c;
            hdr[k] = '\0';
            if (strcmp(hdr, "arrival_s,prompt,output") != 0) {
                err_add(errs, path, (int)line, 1, ERR_ERROR,
                        "the header must be 'arrival_s,prompt,output'");
                reported++;
            }
            continue;
        }
        /* three comma-separated fields */
        char *fields[3];
        int cols[3];
        int nf = 0;
        char *c = buf;
        while (nf < 3) {
            fields[nf] = c;
            cols[nf] = (int)(c - buf) + 1;
            if (++nf == 3)
                break; /* the rest is the last field: a comma in it is a fourth field */
            char *comma = strchr(c, ',');
            if (!comma)
                break;
            *comma = '\0';
            c = comma + 1;
        }
        if (nf != 3 || strchr(c, ',')) {
            if (reported++ < 50)
                err_add(errs, path, (int)line, 1, ERR_ERROR,
                        "expected 3 fields 'arrival_s,prompt,output'");
            continue;
        }
        for (int f = 0; f < 3; f++) {
            char *s = fields[f];
            while (*s == ' ' || *s == '\t') {
                s++;
                cols[f]++;
            }
            size_t l = strlen(s);
            while (l && (s[l - 1] == ' ' || s[l - 1] == '\t'))
                s[--l] = '\0';
            fields[f] = s;
        }
        double t;
        long pr, ou;
        bool ok = true;
        if (str_to_double(fields[0], &t) != 0 || !(t >= 0) || !isfinite(t)) {
            if (reported++ < 50)
                err_add(errs, path, (int)line, cols[0], ERR_ERROR,
                        "'arrival_s' must be a time in seconds >= 0, got '%s'", fields[0]);
            ok = false;
        } else {
            if (seen && t < last) {
                if (reported++ < 50)
                    err_add(errs, path, (int)line, cols[0], ERR_ERROR,
                            "arrivals must not decrease: %s after %.9g", fields[0], last);
                ok = false;
            }
            last = t;
            seen = true;
        }
        if (str_to_long(fields[1], &pr) != 0 || pr < 0 || pr > SIM_MAX_TOKENS) {
            if (reported++ < 50)
                err_add(errs, path, (int)line, cols[1], ERR_ERROR,
                        "'prompt' must be a whole number of tokens in [0, %ld], got '%s'",
                        SIM_MAX_TOKENS, fields[1]);
            ok = false;
        }
        if (str_to_long(fields[2], &ou) != 0 || ou < 0 || ou > SIM_MAX_TOKENS) {
            if (reported++ < 50)
                err_add(errs, path, (int)line, cols[2], ERR_ERROR,
                        "'output' must be a whole number of tokens in [0, %ld], got '%s'",
                        SIM_MAX_TOKENS, fields[2]);
            ok = false;
        }
        if (!ok)
            continue;
        if (out->n >= SIM_MAX_REQUESTS) {
            err_add(errs, path, (int)line, 1, ERR_ERROR,
                    "the trace has more than %ld rows (the simulator's limit)", SIM_MAX_REQUESTS);
            break;
        }
        if (out->n == cap) {
            cap = cap ? 2 * cap : 256;
            struct sim_trace_row *nr = realloc(out->rows, (size_t)cap * sizeof *nr);
            if (!nr) {
                err_add(errs, path, 0, 0, ERR_ERROR, "out of memory");
                break;
            }
            out->rows = nr;
        }
        struct sim_trace_row r = {t, pr, ou};
        out->rows[out->n++] = r;
    }
    if (reported > 50)
        err_add(errs, path, 0, 0, ERR_ERROR, "%ld more problems not shown", reported - 50);
    if (err_count(errs, ERR_ERROR) == before && out->n == 0)
        err_add(errs, path, 0, 0, ERR_ERROR, "the trace has no requests");
    if (err_count(errs, ERR_ERROR) > before) {
        free(out->rows);
        memset(out, 0, sizeof *out);
        return -1;
    }
    return 0;
}

int
scenario_read_trace(const char *path, struct sim_trace *out, struct err_list *errs)
{
    memset(out, 0, sizeof *out);
    char *text = NULL;
    size_t n = 0;
    int eno = 0;
    int st = rfile_read(path, RFILE_MAX_BYTES, &text, &n, &eno);
    if (st != RFILE_OK) {
        err_add(errs, path, 0, 0, ERR_ERROR, "cannot read the trace: %s", rfile_strerror(st, eno));
        return -1;
    }
    if (memchr(text, '\0', n)) {
        free(text);
        err_add(errs, path, 0, 0, ERR_ERROR, "the trace is not a text file");
        return -1;
    }
    int rc = parse_trace_text(path, text, out, errs);
    free(text);
    return rc;
}

/* ---- sections ---- */

struct ctx {
    struct ycheck *y;
    struct scenario *s;
    const struct ynode *trace_node; /* where the trace was named */
    const struct ynode *uses_trace; /* a length 'trace', or NULL */
    bool hw_ok, model_ok, count_ok;
    const struct ynode *tp_node, *count_node, *policy_node, *pf_node, *hw_node;
};

static void
read_trace_key(struct ctx *c, const struct ynode *map, const char *prefix)
{
    const char *s;
    if (!ycheck_str(c->y, map, prefix, "trace", false, &s))
        return;
    const struct ynode *v = ynode_get(map, "trace");
    if (c->trace_node) {
        ycheck_error(c->y, v, "the trace is already named at line %d: give it once",
                     c->trace_node->line);
        return;
    }
    c->trace_node = v;
    char *p = ydoc_relative(c->y->path, s);
    if (!p)
        return;
    c->s->trace_path = p;
    char *probe = NULL;
    size_t probe_len = 0;
    int eno = 0;
    int st = rfile_read(p, RFILE_MAX_BYTES, &probe, &probe_len, &eno);
    free(probe);
    if (st != RFILE_OK) {
        ycheck_error(c->y, v, "cannot read the trace '%s': %s", p, rfile_strerror(st, eno));
        return;
    }
    struct sim_trace tr;
    if (scenario_read_trace(p, &tr, c->y->errs) == 0)
        c->s->trace = tr;
}

static void
load_hardware(struct ctx *c, const struct ynode *root)
{
    struct scenario *s = c->s;
    const struct ynode *hw = ynode_get(root, "hardware");
    c->hw_node = hw;
    if (!hw || ynode_is_null(hw)) {
        ycheck_error(c->y, root, "missing required key 'hardware'");
        return;
    }
    if (!ycheck_map(c->y, hw, "hardware"))
        return;
    ycheck_keys(c->y, hw, "hardware", HW_KEYS, N(HW_KEYS));
    const char *id;
    if (ycheck_str(c->y, hw, "hardware", "id", true, &id)) {
        char *p = ydoc_profile(c->y, ynode_get(hw, "id"), PROF_HARDWARE);
        if (p) {
            s->hw = hw_load(p, c->y->errs);
            free(p);
        }
    }
    long v;
    c->count_ok = true;
    if (long_in(c->y, hw, "hardware", "count", 1 << 20, &v))
        s->count = (int)v;
    else if (ynode_get(hw, "count"))
        c->count_ok = false;
    if (long_in(c->y, hw, "hardware", "tp", 4096, &v))
        s->tp = (int)v;
    else if (ynode_get(hw, "tp"))
        c->count_ok = false;
    if (long_in(c->y, hw, "hardware", "ep", 4096, &v))
        s->ep = (int)v;
    else if (ynode_get(hw, "ep"))
        c->count_ok = false;
    if (long_in(c->y, hw, "hardware", "attn_dp", 4096, &v))
        s->attn_dp = (int)v;
    else if (ynode_get(hw, "attn_dp"))
        c->count_ok = false;
    if (long_in(c->y, hw, "hardware", "pp", 4096, &v))
        s->pp = (int)v;
    else if (ynode_get(hw, "pp"))
        c->count_ok = false;
    c->count_node = ynode_get(hw, "count");
    c->tp_node = ynode_get(hw, "attn_dp") ? ynode_get(hw, "attn_dp")
                 : ynode_get(hw, "ep")    ? ynode_get(hw, "ep")
                 : ynode_get(hw, "tp")    ? ynode_get(hw, "tp")
                                          : hw;
    double r;
    const struct ynode *rn = ynode_get(hw, "reserve");
    if (rn && !ynode_is_null(rn)) {
        const char *why;
        if (rn->kind == YNODE_SCALAR &&
            (strcmp(rn->value, "0") == 0 ||
             (unit_parse(rn->value, UNIT_BYTES, &r, &why) == 0 && r >= 0)))
            s->reserve_bytes = strcmp(rn->value, "0") == 0 ? 0 : r;
        else
            ycheck_error(c->y, rn, "'hardware.reserve' must be a size such as '8 GB', got '%s'",
                         rn->kind == YNODE_SCALAR ? rn->value : ynode_kind_name(rn));
    }
    c->hw_ok = s->hw != NULL;
}

/* The engine profile's scheduler defaults over the simulator's (docs/simulate.md#engines):
 * admission, max batch, the step's token budget (chunked prefill; without chunking a prompt
 * must fit one step, so the budget stays the context length) and the KV share. */
void
engine_serving_sched(const struct engine_profile *e, const struct hw_profile *hw,
                     struct sim_sched *sched)
{
    if (!e)
        return;
    const struct engine_serving *sv = &e->serving;
    for (int i = 0; i < SIM_ADMIT_COUNT; i++)
        if (strcmp(sv->admission, SIM_ADMISSION_NAMES[i]) == 0)
            sched->admission = (enum sim_admission)i;
    bool small = hw && sv->small_memory_bytes > 0 && hw_memory_bytes(hw) < sv->small_memory_bytes;
    long mb = small && sv->max_batch_small > 0 ? sv->max_batch_small : sv->max_batch;
    long mt = small && sv->max_tokens_per_step_small > 0 ? sv->max_tokens_per_step_small
                                                         : sv->max_tokens_per_step;
    /* limits read per rank under data-parallel attention: the instance's are the ranks' sum */
    long ranks =
        strcmp(sv->attn_dp, "per_rank") == 0 && sched->attn_dp_ranks > 1 ? sched->attn_dp_ranks : 1;
    if (mb > 0)
        sched->max_batch = mb * ranks;
    if (mt > 0 && (sched->policy == SIM_CHUNKED || sched->policy == SIM_DISAGGREGATED))
        sched->max_tokens_per_step = mt * ranks;
    if (sv->kv_fraction > 0)
        sched->kv_fraction = sv->kv_fraction;
    if (sv->max_prefill_tokens > 0)
        sched->max_prefill_tokens = sv->max_prefill_tokens;
    if (sv->separate_prefill)
        sched->separate_prefill = true;
    if (sv->async_scheduling)
        sched->async_scheduling = true;
    if (sv->kv_window_blocks)
        sched->kv_window_blocks = true;
    if (sv->hybrid_block_align > 0)
        sched->hybrid_block_align = sv->hybrid_block_align;
    for (int i = 0; i < SIM_PREFILL_GRAPH_COUNT; i++)
        if (strcmp(sv->prefill_graph, SIM_PREFILL_GRAPH_NAMES[i]) == 0) {
            sched->prefill_graph = (enum sim_prefill_graph)i;
            sched->eager_launch_s = i != SIM_PREFILL_GRAPH_FULL ? sv->eager_launch_s : 0.0;
        }
    if (sv->tokenize_per_token_s > 0) {
        sched->tokenize_per_token_s = sv->tokenize_per_token_s;
        sched->tokenize_serial = sv->tokenize_serial;
    }
}

void
engine_serving_hook(const struct hw_profile *hw, const char *engine, struct roof_config *eng,
                    double context_tokens, struct sim_sched *sched, void *ctx)
{
    (void)engine;
    const struct engine_profile *e = ctx;
    if (!e)
        return;
    engine_serving_sched(e, hw, sched);
    if (eng) {
        double c = context_tokens > 0 ? context_tokens
                   : eng->model       ? (double)eng->model->max_position_embeddings
                                      : 0;
        double r = engine_reserve_bytes(e, eng, c);
        if (r >= 0)
            eng->reserve_bytes = r;
    }
}

static void
load_scheduler(struct ctx *c, const struct ynode *root)
{
    struct scenario *s = c->s;
    const struct ynode *sc = ynode_get(root, "scheduler");
    if (!sc || ynode_is_null(sc)) {
        ycheck_error(c->y, root, "missing required key 'scheduler'");
        sim_sched_defaults(&s->sched, SIM_CONTINUOUS, s->model);
        return;
    }
    if (!ycheck_map(c->y, sc, "scheduler")) {
        sim_sched_defaults(&s->sched, SIM_CONTINUOUS, s->model);
        return;
    }
    ycheck_keys(c->y, sc, "scheduler", SCHED_KEYS, N(SCHED_KEYS));
    const char *p;
    int k = -1;
    if (ycheck_str(c->y, sc, "scheduler", "policy", true, &p))
        k = ycheck_enum(c->y, ynode_get(sc, "policy"), "scheduler.policy", p, POLICIES,
                        N(POLICIES));
    c->policy_node = ynode_get(sc, "policy");
    sim_sched_defaults(&s->sched, k >= 0 ? (enum sim_policy)k : SIM_CONTINUOUS, s->model);
    s->sched.attn_dp_ranks = s->attn_dp;
    engine_serving_sched(s->eng, s->hw, &s->sched);
    long v;
    if (long_in(c->y, sc, "scheduler", "max_batch", 1000000, &v))
        s->sched.max_batch = v;
    if (ycheck_long(c->y, sc, "scheduler", "max_tokens_per_step", false, 1, &v))
        s->sched.max_tokens_per_step = v;
    if (ycheck_long(c->y, sc, "scheduler", "block_size", false, 1, &v))
        s->sched.block_tokens = v;
    ycheck_num_in(c->y, sc, "scheduler", "kv_fraction", 0, true, 1, &s->sched.kv_fraction);
    if (ycheck_str(c->y, sc, "scheduler", "preemption", false, &p)) {
        int e = ycheck_enum(c->y, ynode_get(sc, "preemption"), "scheduler.preemption", p, PREEMPTS,
                            N(PREEMPTS));
        if (e >= 0)
            s->sched.preempt = (enum sim_preempt)e;
    }
    if (ycheck_str(c->y, sc, "scheduler", "admission", false, &p)) {
        int e = ycheck_enum(c->y, ynode_get(sc, "admission"), "scheduler.admission", p,
                            SIM_ADMISSION_NAMES, SIM_ADMIT_COUNT);
        if (e >= 0)
            s->sched.admission = (enum sim_admission)e;
    }
    ycheck_qty(c->y, sc, "scheduler", "swap_bandwidth", UNIT_BYTES_PER_S, false,
               &s->sched.swap_bytes_per_s);
    bool as;
    if (ycheck_bool(c->y, sc, "scheduler", "async_scheduling", &as)) {
        s->sched.async_scheduling = as;
        if (as && k >= 0 && k != SIM_CONTINUOUS && k != SIM_CHUNKED)
            ycheck_error(c->y, ynode_get(sc, "async_scheduling"),
                         "'scheduler.async_scheduling' applies only to policies continuous and "
                         "chunked");
    }
    bool kw;
    if (ycheck_bool(c->y, sc, "scheduler", "kv_window_blocks", &kw))
        s->sched.kv_window_blocks = kw;
    if (long_in(c->y, sc, "scheduler", "recv_interval", 1000000, &v))
        s->sched.recv_interval = v;
    if (ycheck_long(c->y, sc, "scheduler", "max_prefill_tokens", false, 1, &v))
        s->sched.max_prefill_tokens = v;
    if (s->sched.admission == SIM_ADMIT_SGLANG && s->sched.preempt == SIM_PREEMPT_SWAP)
        ycheck_error(c->y, ynode_get(sc, "preemption"),
                     "'scheduler.preemption: swap' does not apply to admission sglang (SGLang "
                     "retracts a request and computes it again)");
    c->pf_node = ynode_get(sc, "prefill_instances");
    if (long_in(c->y, sc, "scheduler", "prefill_instances", 1 << 20, &v)) {
        s->sched.prefill_instances = (int)v;
        if (k >= 0 && k != SIM_DISAGGREGATED)
            ycheck_error(c->y, c->pf_node,
                         "'scheduler.prefill_instances' applies only to policy disaggregated");
    }
}

static void
load_arrivals(struct ctx *c, const struct ynode *root)
{
    struct scenario *s = c->s;
    struct sim_workload *w = &s->work;
    const struct ynode *a = ynode_get(root, "arrivals");
    if (!a || ynode_is_null(a)) {
        ycheck_error(c->y, root, "missing required key 'arrivals'");
        return;
    }
    if (!ycheck_map(c->y, a, "arrivals"))
        return;
    ycheck_keys(c->y, a, "arrivals", ARR_KEYS, N(ARR_KEYS));
    const char *p;
    int k = -1;
    if (ycheck_str(c->y, a, "arrivals", "process", true, &p))
        k = ycheck_enum(c->y, ynode_get(a, "process"), "arrivals.process", p, PROCESSES,
                        N(PROCESSES));
    if (k < 0)
        return;
    w->process = (enum sim_process)k;
    /* which keys each process takes */
    static const char *const KEY_FOR[] = {"rate_per_s", "cv", "users", "think_time", "trace"};
    static const bool TAKES[5][5] = {
        /* poisson */ {true, false, false, false, false},
        /* gamma */ {true, true, false, false, false},
        /* constant */ {true, false, false, false, false},
        /* closed */ {false, false, true, true, false},
        /* trace */ {false, false, false, false, true},
    };
    for (int i = 0; i < 5; i++) {
        const struct ynode *v = ynode_get(a, KEY_FOR[i]);
        if (v && !TAKES[k][i])
            ycheck_error(c->y, v, "'arrivals.%s' does not apply to process '%s'", KEY_FOR[i], p);
        else if (!v && TAKES[k][i] && strcmp(KEY_FOR[i], "think_time") != 0)
            ycheck_error(c->y, a, "missing required key '%s' in 'arrivals' (process '%s')",
                         KEY_FOR[i], p);
    }
    if (TAKES[k][0] && ynode_get(a, "rate_per_s"))
        ycheck_num_in(c->y, a, "arrivals", "rate_per_s", 0, true, SIM_MAX_RATE, &w->rate_per_s);
    if (TAKES[k][1] && ynode_get(a, "cv"))
        ycheck_num_in(c->y, a, "arrivals", "cv", 0, true, INFINITY, &w->cv);
    if (TAKES[k][2] && ynode_get(a, "users"))
        ycheck_long(c->y, a, "arrivals", "users", true, 1, &w->users);
    if (TAKES[k][3])
        time_nonneg(c->y, a, "arrivals", "think_time", &w->think_time_s);
    if (TAKES[k][4] && ynode_get(a, "trace"))
        read_trace_key(c, a, "arrivals");
}

static void
load_lengths(struct ctx *c, const struct ynode *root)
{
    struct sim_workload *w = &c->s->work;
    const struct ynode *l = ynode_get(root, "lengths");
    if (!l || ynode_is_null(l)) {
        if (w->process == SIM_TRACE && ynode_get(ynode_get(root, "arrivals"), "process")) {
            w->prompt.kind = w->output.kind = SIM_DIST_TRACE;
        } else {
            ycheck_error(c->y, root, "missing required key 'lengths'");
        }
        return;
    }
    if (!ycheck_map(c->y, l, "lengths"))
        return;
    ycheck_keys(c->y, l, "lengths", LEN_KEYS, N(LEN_KEYS));
    read_dist(c->y, l, "prompt", &w->prompt, &c->uses_trace);
    read_dist(c->y, l, "output", &w->output, &c->uses_trace);
    if (ynode_get(l, "trace"))
        read_trace_key(c, l, "lengths");
}

static void
load_run(struct ctx *c, const struct ynode *root)
{
    struct scenario *s = c->s;
    struct sim_workload *w = &s->work;
    const struct ynode *r = ycheck_section(c->y, root, "run", RUN_KEYS, N(RUN_KEYS));
    s->seed = 1;
    if (!r) {
        if (w->process != SIM_TRACE && !ynode_get(root, "run"))
            ycheck_error(c->y, root, "missing required key 'run' (say how many requests)");
        return;
    }
    if (ycheck_long(c->y, r, "run", "requests", false, 1, &w->requests) &&
        w->requests > SIM_MAX_REQUESTS) {
        ycheck_error(c->y, ynode_get(r, "requests"), "'run.requests' must be at most %ld, got %ld",
                     SIM_MAX_REQUESTS, w->requests);
        w->requests = 0;
    }
    if (ynode_get(r, "duration") &&
        ycheck_qty(c->y, r, "run", "duration", UNIT_SECONDS, false, &w->duration_s)) {
        if (!(w->duration_s <= SIM_MAX_DURATION_S)) {
            ycheck_error(c->y, ynode_get(r, "duration"),
                         "'run.duration' must be at most %g s, got %g s", SIM_MAX_DURATION_S,
                         w->duration_s);
            w->duration_s = 0;
        } else if (w->requests <= 0 && w->rate_per_s > 0 &&
                   w->rate_per_s * w->duration_s > (double)SIM_MAX_REQUESTS) {
            ycheck_error(c->y, ynode_get(r, "duration"),
                         "'run.duration' (%g s) at %g requests/s makes about %.3g requests, more "
                         "than %ld: set 'run.requests' or a shorter duration",
                         w->duration_s, w->rate_per_s, w->rate_per_s * w->duration_s,
                         SIM_MAX_REQUESTS);
        }
    }
    if (w->process != SIM_TRACE && !ynode_get(r, "requests") && !ynode_get(r, "duration"))
        ycheck_error(c->y, r, "'run' needs 'requests' or 'duration'");
    if (ycheck_long(c->y, r, "run", "warmup_requests", false, 0, &w->warmup_requests) &&
        w->requests > 0 && w->warmup_requests >= w->requests)
        ycheck_error(c->y, ynode_get(r, "warmup_requests"),
                     "'run.warmup_requests' (%ld) leaves nothing to measure of %ld requests",
                     w->warmup_requests, w->requests);
    time_nonneg(c->y, r, "run", "warmup_time", &w->warmup_s);
    long seed;
    if (ycheck_long(c->y, r, "run", "seed", false, 0, &seed))
        s->seed = (unsigned long)seed;
}

static void
load_slo(struct ctx *c, const struct ynode *root)
{
    struct scenario *s = c->s;
    s->slo.target = 0.99;
    const struct ynode *v = ycheck_section(c->y, root, "slo", SLO_KEYS, N(SLO_KEYS));
    if (!v)
        return;
    bool a = ycheck_qty(c->y, v, "slo", "ttft", UNIT_SECONDS, false, &s->slo.ttft_s);
    bool b = ycheck_qty(c->y, v, "slo", "itl", UNIT_SECONDS, false, &s->slo.itl_s);
    bool e = ycheck_qty(c->y, v, "slo", "e2e", UNIT_SECONDS, false, &s->slo.e2e_s);
    ycheck_num_in(c->y, v, "slo", "target", 0, true, 1, &s->slo.target);
    s->has_slo = a || b || e;
    if (!ynode_get(v, "ttft") && !ynode_get(v, "itl") && !ynode_get(v, "e2e"))
        ycheck_error(c->y, v, "'slo' needs at least one of 'ttft', 'itl', 'e2e'");
}

/* Checks across sections, once the parts they need loaded. */
static void
cross_checks(struct ctx *c)
{
    struct scenario *s = c->s;
    if (c->uses_trace && !c->trace_node && s->work.process != SIM_TRACE)
        ycheck_error(c->y, c->uses_trace,
                     "lengths from the trace need a trace: add 'lengths.trace: FILE'");
    if (!s->hw || !s->model || !c->count_ok)
        return;
    int per = s->tp * s->pp;
    if (s->count % per != 0) {
        ycheck_error(c->y, c->count_node ? c->count_node : c->hw_node,
                     "'hardware.count' (%d) is not a multiple of tp x pp (%d)", s->count, per);
        return;
    }
    struct sim_config cfg;
    scenario_sim_config(s, &cfg);
    /* the engine's tuning is applied after loading: whether it has data-parallel attention
     * decides here */
    cfg.engine.tuning.no_attn_dp = s->eng && strcmp(s->eng->serving.attn_dp, "none") == 0;
    char pb[256];
    const char *problem =
        roof_config_problem_named(&cfg.engine, s->eng ? s->eng->name : NULL, pb, sizeof pb);
    if (problem) {
        char epw[64];
        roof_parallel_extras(&cfg.engine, false, epw, sizeof epw);
        ycheck_error(c->y, c->tp_node, "%s (tp %d%s, pp %d, %s on %s)", problem, s->tp, epw, s->pp,
                     s->model->id, s->hw->id);
        return;
    }
    /* the engine's tuning is applied after loading: its MoE kernels decide here */
    if (s->eng && s->eng->mmq_id_above > 0 && s->ep > 1) {
        ycheck_error(c->y, c->tp_node, "%s", ROOF_EP_MUL_MAT_ID_PROBLEM);
        return;
    }
    if (s->sched.policy == SIM_DISAGGREGATED) {
        if (cfg.instances < 2)
            ycheck_error(c->y, c->count_node ? c->count_node : c->hw_node,
                         "policy disaggregated needs at least 2 instances: 'hardware.count' "
                         "(%d) / (tp x pp) is %d",
                         s->count, cfg.instances);
        else if (s->sched.prefill_instances >= cfg.instances)
            ycheck_error(c->y, c->pf_node ? c->pf_node : c->policy_node,
                         "'scheduler.prefill_instances' (%d) leaves no decode instance of %d",
                         s->sched.prefill_instances, cfg.instances);
        if (hw_link_bytes_per_s_per_direction(s->hw) <= 0)
            ycheck_error(c->y, c->policy_node,
                         "policy disaggregated moves the KV cache over the interconnect, and "
                         "'%s' has none",
                         s->hw->id);
    }
    double blocks, bb, pool;
    if (sim_kv_pool(&cfg, &blocks, &bb, &pool) != 0) {
        struct roof_memory mem;
        roof_memory(&cfg.engine, &mem);
        char w[32], cap[32], res[32];
        unit_format_short(mem.weights_bytes, "B", 3, w, sizeof w);
        unit_format_short(mem.capacity_bytes, "B", 3, cap, sizeof cap);
        unit_format_short(cfg.engine.reserve_bytes, "B", 3, res, sizeof res);
        /* what would fit one request of one token (roof_fit_advise) */
        struct roof_config one = cfg.engine;
        one.phase = ROOF_DECODE;
        one.batch = 1;
        one.context = 1;
        struct roof_fit_advice adv;
        char fixes[600] = "";
        if (roof_fit_advise(&one, &adv) == 0)
            for (int i = 0; i < adv.n_fixes; i++)
                if (adv.fixes[i].kind != ROOF_FIX_CONTEXT && adv.fixes[i].kind != ROOF_FIX_BATCH)
                    snprintf(fixes + strlen(fixes), sizeof fixes - strlen(fixes), "%s%s",
                             fixes[0] ? "; " : "; would fit with ", adv.fixes[i].text);
        char over[32];
        unit_format_short(mem.weights_bytes + cfg.engine.reserve_bytes - mem.capacity_bytes, "B", 3,
                          over, sizeof over);
        ycheck_error(c->y, c->hw_node,
                     "no memory left for the KV cache: %s of weights and %s of reserve per "
                     "device in %s on %s (%s over)%s",
                     w, res, cap, s->hw->id, over, fixes);
    }
}

static void
fill(struct ycheck *y, const struct ynode *root, void *obj, const void *arg)
{
    (void)arg;
    struct scenario *s = obj;
    struct ctx c;
    memset(&c, 0, sizeof c);
    c.y = y;
    c.s = s;
    s->path = str_dup(y->path);
    s->count = s->tp = s->pp = 1;
    s->reserve_bytes = -1;
    const char *str;
    if (ycheck_str(y, root, "", "name", false, &str))
        s->name = str_dup(str);
    if (ycheck_str(y, root, "", "model", true, &str)) {
        char *p = ydoc_profile(y, ynode_get(root, "model"), PROF_MODEL);
        if (p) {
            s->model = mdl_load(p, y->errs);
            free(p);
        }
    }
    load_hardware(&c, root);
    /* formats: the engine's defaults for the model, then the file's */
    struct roof_config dflt;
    roof_config_init(&dflt, s->hw, s->model, ROOF_DECODE);
    s->weights = dflt.weights;
    s->act = dflt.act;
    s->kv = dflt.kv;
    const struct ynode *dt = ycheck_section(y, root, "dtypes", DTYPE_KEYS, N(DTYPE_KEYS));
    if (dt) {
        if (read_dtype(y, dt, "weights", true, &s->weights)) {
            s->act = roof_default_act(s->weights);
            s->kv = roof_default_kv(s->weights);
        }
        read_dtype(y, dt, "act", false, &s->act);
        read_dtype(y, dt, "kv", false, &s->kv);
    }
    if (!ynode_get(root, "engine"))
        s->engine = str_dup("kernel");
    if (ycheck_str(y, root, "", "engine", false, &str)) {
        /* the engines with a profile (engine_profiles/) */
        char **names;
        int n = engine_names(false, &names);
        bool known = false;
        for (int i = 0; i < n; i++)
            known = known || strcmp(str, names[i]) == 0;
        if (known) {
            s->engine = str_dup(str);
        } else {
            char list[1024];
            engine_names_join(names, n, list, sizeof list);
            const char *hint = str_closest(str, (const char *const *)names, (size_t)n);
            if (hint)
                ycheck_error(y, ynode_get(root, "engine"),
                             "unknown engine '%s' (did you mean '%s'?); accepted: %s", str, hint,
                             list);
            else
                ycheck_error(y, ynode_get(root, "engine"),
                             "unknown engine '%s'; accepted: %s (left out: kernel)", str, list);
        }
        engine_names_free(names, n);
    }
    s->mxfp4_marlin = scenario_read_kernels(y, root);
    if (s->engine) {
        s->eng = engine_find(s->engine, y->errs);
        if (!s->eng)
            ycheck_error(y, ynode_get(root, "engine") ? ynode_get(root, "engine") : root,
                         "cannot load the engine profile '%s'", s->engine);
    }
    load_scheduler(&c, root);
    load_arrivals(&c, root);
    load_lengths(&c, root);
    load_run(&c, root);
    load_slo(&c, root);
    s->work.trace = s->trace.n > 0 ? &s->trace : NULL;
    if (ycheck_clean(y))
        cross_checks(&c);
}

void
scenario_free(struct scenario *s)
{
    if (!s)
        return;
    free(s->path);
    free(s->name);
    free(s->engine);
    engine_profile_free(s->eng);
    free(s->trace_path);
    free(s->trace.rows);
    mdl_free(s->model);
    hw_free(s->hw);
    free(s);
}

YDOC_MAP_FORMAT(SCENARIO, struct scenario, "a scenario", TOP_KEYS, fill, scenario_free,
                scenario_load, scenario_parse)

void
scenario_sim_config(const struct scenario *s, struct sim_config *cfg)
{
    memset(cfg, 0, sizeof *cfg);
    roof_config_init(&cfg->engine, s->hw, s->model, ROOF_DECODE);
    cfg->engine.weights = s->weights;
    cfg->engine.act = s->act;
    cfg->engine.kv = s->kv;
    cfg->engine.tp = s->tp;
    cfg->engine.pp = s->pp;
    cfg->engine.ep = s->ep;
    cfg->engine.attn_dp = s->attn_dp;
    cfg->engine.mxfp4_marlin = s->mxfp4_marlin;
    if (s->reserve_bytes >= 0) {
        cfg->engine.reserve_bytes = s->reserve_bytes;
    } else if (s->eng) {
        /* a trace's lengths have no max here: the model's maximum context */
        double ctx =
            sim_serving_context(s->sched.max_batch, &s->work.prompt, &s->work.output, NULL);
        if (!(ctx > 0) && s->model)
            ctx = (double)s->model->max_position_embeddings;
        double r = engine_reserve_bytes(s->eng, &cfg->engine, ctx);
        if (r >= 0)
            cfg->engine.reserve_bytes = r;
    }
    int per = s->tp * s->pp > 0 ? s->tp * s->pp : 1;
    cfg->instances = s->count / per > 0 ? s->count / per : 1;
    cfg->sched = s->sched;
    cfg->work = s->work;
    cfg->work.trace = s->trace.n > 0 ? &s->trace : NULL;
    cfg->slo = s->slo;
    cfg->seed = s->seed;
}
