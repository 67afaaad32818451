/* roofline plan: answer a capacity-planning question (docs/plan.md): the recommendation in
 * words first, then the ranked options, verification, growth, cost against volume, launch lines,
 * rejected candidates with reasons, the SLOs and every assumption with its source. Also the
 * sharded form (--shard I/N writes one slice as JSON) and `plan merge` of the slices. */
#include "cli/caldata.h"
#include "cli/cli.h"
#include "cli/out.h"
#include "io/measure.h"
#include "io/scenario.h"
#include "io/ytree.h"
#include "plan/cost.h"
#include "plan/plan.h"
#include "render/chart_plan.h"
#include "render/surface.h"
#include "util/array.h"
#include "util/strs.h"
#include "util/units.h"

#include <math.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#ifndef ROOFLINE_VERSION
#define ROOFLINE_VERSION "0.1"
#endif

static const struct cli_opt OPTS[] = {
    OPT_VALUE("question", "FILE", "the question: model, workload, SLOs, candidates, money"),
    OPT_VALUE("output", "table|csv|json", "output format (-o; default table)"),
    OPT_VALUE("jobs", "N", "threads evaluating candidates (the result does not depend on N)"),
    OPT_VALUE("shard", "I/N", "evaluate slice I of N (0-based) for plan merge; needs -o json"),
    OPT_VALUE("power-budget-kw", "KW", "cap the fleet's power"),
};

/* ---- tuning and progress hooks ---- */

static int
tuning_hook(const struct hw_profile *hw, const char *engine, struct roof_tuning *out, void *ctx)
{
    (void)ctx;
    /* engine profiles calibrated so far: kernel (the kernel model), vllm, tensorrt-llm,
     * llama.cpp; caldata prints its own errors */
    return caldata_tuning(hw, engine, NULL, out, NULL);
}

struct progress {
    struct timespec t0;
    double last;
    bool shown, stage2;
};

static void
progress_hook(int done, int total, void *ctx)
{
    struct progress *p = ctx;
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    double dt = (double)(t.tv_sec - p->t0.tv_sec) + 1e-9 * (double)(t.tv_nsec - p->t0.tv_nsec);
    if ((dt < 1.0 || dt - p->last < 0.25) && done != total)
        return;
    if (dt < 1.0 && !p->shown)
        return;
    p->shown = true;
    p->last = dt;
    fprintf(stderr, "\rplan: %d of %d %s (%.1f s)", done, total,
            p->stage2 ? "simulations" : "candidates", dt);
    if (done == total) {
        fprintf(stderr, "\n");
        p->stage2 = true;
    }
}

/* ---- serialisation of options and rejections (JSON, exact round trip) ---- */

enum fkind {
    F_DBL,
    F_INT,
    F_LONG,
    F_STR,
    F_BOOL,
    F_DT,
    F_POLICY,
    F_STATUS,
    F_ORIGIN,
    F_REJ,
    F_BASIS
};
struct fdesc {
    const char *name;
    enum fkind kind;
    size_t off;
};
#define OD(n, k)                                                                                   \
    {                                                                                              \
#n, k, offsetof(struct plan_option, n)                                                     \
    }
static const struct fdesc OPT_F[] = {
    OD(index, F_INT),
    OD(hw_id, F_STR),
    OD(prefill_hw_id, F_STR),
    OD(tp, F_INT),
    OD(pp, F_INT),
    OD(devices_per_instance, F_INT),
    OD(prefill_instances, F_INT),
    OD(decode_instances, F_INT),
    {"weights", F_DT, offsetof(struct plan_option, format.weights)},
    {"act", F_DT, offsetof(struct plan_option, format.act)},
    {"kv", F_DT, offsetof(struct plan_option, format.kv)},
    OD(policy, F_POLICY),
    OD(max_batch, F_LONG),
    OD(max_tokens_per_step, F_LONG),
    OD(analytic_rate_per_s, F_DBL),
    OD(rate_per_s, F_DBL),
    OD(simulated, F_BOOL),
    OD(users_per_instance, F_DBL),
    OD(saturation_output_tokens_per_s, F_DBL),
    OD(output_tokens_per_s_per_user, F_DBL),
    OD(instances, F_INT),
    OD(spares, F_INT),
    OD(devices, F_INT),
    OD(server_devices, F_INT),
    OD(servers, F_INT),
    OD(stranded_devices, F_INT),
    OD(planned_rate_per_instance_s, F_DBL),
    OD(device_price_per_hour, F_DBL),
    OD(price_origin, F_ORIGIN),
    OD(price_basis, F_STR),
    OD(rent_basis, F_BASIS),
    OD(basis_flag, F_BOOL),
    OD(cost_per_hour, F_DBL),
    OD(cost_per_mtok_output, F_DBL),
    OD(cost_per_mtok_input, F_DBL),
    OD(cost_per_mtok_blended, F_DBL),
    OD(tco_per_year, F_DBL),
    OD(capex, F_DBL),
    OD(power_w, F_DBL),
    OD(tokens_per_s_per_kw, F_DBL),
    OD(joules_per_token, F_DBL),
    OD(ttft_p99_s, F_DBL),
    OD(itl_p99_s, F_DBL),
    OD(e2e_p99_s, F_DBL),
    OD(attainment, F_DBL),
    OD(ttft_p50_s, F_DBL),
    OD(itl_p50_s, F_DBL),
    OD(e2e_mean_s, F_DBL),
    OD(output_tokens_per_s_planned, F_DBL),
    OD(margin_ttft, F_DBL),
    OD(margin_itl, F_DBL),
    OD(margin_e2e, F_DBL),
    OD(status, F_STATUS),
    OD(miss_factor, F_DBL),
    OD(miss, F_STR),
    OD(exhaust_month, F_INT),
    OD(offline_hours, F_DBL),
    OD(launch, F_STR),
};
#undef OD
#define RD(n, k)                                                                                   \
    {                                                                                              \
#n, k, offsetof(struct plan_rejected, n)                                                   \
    }
static const struct fdesc REJ_F[] = {
    RD(index, F_INT),
    RD(hw_id, F_STR),
    RD(prefill_hw_id, F_STR),
    RD(tp, F_INT),
    RD(pp, F_INT),
    {"weights", F_DT, offsetof(struct plan_rejected, format.weights)},
    {"act", F_DT, offsetof(struct plan_rejected, format.act)},
    {"kv", F_DT, offsetof(struct plan_rejected, format.kv)},
    RD(policy, F_POLICY),
    RD(kind, F_REJ),
    RD(reason, F_STR),
};
#undef RD
#define N_OPT_F ((int)(sizeof OPT_F / sizeof OPT_F[0]))
#define N_REJ_F ((int)(sizeof REJ_F / sizeof REJ_F[0]))

static void
json_exact(double x)
{
    if (isnan(x))
        printf("null");
    else if (isinf(x))
        printf(x > 0 ? "\"inf\"" : "\"-inf\"");
    else
        printf("%.17g", x);
}

/* The JSON name of value i of an enumerated field kind. */
static const char *
enum_name(enum fkind k, int i)
{
    switch (k) {
    case F_POLICY:
        return sim_policy_name((enum sim_policy)i);
    case F_STATUS:
        return plan_status_name((enum plan_slo_status)i);
    case F_ORIGIN:
        return plan_price_origin_name((enum plan_price_origin)i);
    case F_REJ:
        return plan_reject_kind_name((enum plan_reject_kind)i);
    case F_BASIS:
        return plan_rent_basis_name((enum plan_rent_basis)i);
    default:
        return "?";
    }
}

static void
write_obj(const struct fdesc *f, int n, const void *base)
{
    const char *b = base;
    printf("{");
    for (int i = 0; i < n; i++) {
        printf("%s\"%s\": ", i ? ", " : "", f[i].name);
        const void *p = b + f[i].off;
        switch (f[i].kind) {
        case F_DBL:
            json_exact(*(const double *)p);
            break;
        case F_INT:
            printf("%d", *(const int *)p);
            break;
        case F_LONG:
            printf("%ld", *(const long *)p);
            break;
        case F_STR:
            out_json_string(stdout, (const char *)p);
            break;
        case F_BOOL:
            printf(*(const bool *)p ? "true" : "false");
            break;
        case F_DT:
            out_json_string(stdout, dtype_name(*(const enum dtype *)p));
            break;
        case F_POLICY:
        case F_STATUS:
        case F_ORIGIN:
        case F_REJ:
        case F_BASIS: /* enums are int-compatible (C17 6.7.2.2) */
            out_json_string(stdout, enum_name(f[i].kind, *(const int *)p));
            break;
        }
    }
    printf("}");
}

/* The index of the value named `s` of an enumerated field kind, or -1. */
static int
name_index(const char *s, enum fkind k)
{
    int n = k == F_REJ ? PLAN_REJ_COUNT : k == F_BASIS ? PLAN_BASIS_COUNT : 4;
    for (int i = 0; i < n; i++)
        if (strcmp(s, enum_name(k, i)) == 0)
            return i;
    return -1;
}

/* Read one object written by write_obj; -1 on a missing or bad field. */
static int
read_obj(const struct fdesc *f, int n, const struct ynode *o, void *base)
{
    char *b = base;
    if (!o || o->kind != YNODE_MAP)
        return -1;
    for (int i = 0; i < n; i++) {
        const struct ynode *v = ynode_get(o, f[i].name);
        if (!v || v->kind != YNODE_SCALAR)
            return -1;
        void *p = b + f[i].off;
        long l;
        int k;
        enum dtype d;
        switch (f[i].kind) {
        case F_DBL:
            if (ynode_is_null(v))
                *(double *)p = NAN;
            else if (strcmp(v->value, "inf") == 0)
                *(double *)p = INFINITY;
            else if (strcmp(v->value, "-inf") == 0)
                *(double *)p = -INFINITY;
            else if (str_to_double(v->value, (double *)p) != 0)
                return -1;
            break;
        case F_INT:
        case F_LONG:
            if (ynode_long(v, &l) != 0)
                return -1;
            if (f[i].kind == F_INT)
                *(int *)p = (int)l;
            else
                *(long *)p = l;
            break;
        case F_STR:
            snprintf((char *)p,
                     strcmp(f[i].name, "hw_id") == 0 || strcmp(f[i].name, "prefill_hw_id") == 0
                         ? PLAN_NAME
                         : PLAN_TEXT,
                     "%s", v->value);
            break;
        case F_BOOL:
            *(bool *)p = strcmp(v->value, "true") == 0;
            break;
        case F_DT:
            if (dtype_parse(v->value, &d) != 0)
                return -1;
            *(enum dtype *)p = d;
            break;
        case F_POLICY:
        case F_STATUS:
        case F_ORIGIN:
        case F_REJ:
        case F_BASIS:
            if ((k = name_index(v->value, f[i].kind)) < 0)
                return -1;
            *(int *)p = k;
            break;
        }
    }
    return 0;
}

static void
print_shard(const struct plan_question *q, const struct plan_result *r, int shard, int n)
{
    printf("{\n  \"tool\": \"roofline\",\n  \"command\": \"plan-shard\",\n  \"version\": ");
    out_json_string(stdout, ROOFLINE_VERSION);
    printf(",\n  \"question\": ");
    out_json_string(stdout, q->path);
    printf(",\n  \"shard\": %d,\n  \"shards\": %d,\n  \"candidates\": %d,\n  \"simulated\": %d,\n"
           "  \"options\": [",
           shard, n, r->n_candidates, r->n_simulated);
    for (int i = 0; i < r->n_options; i++) {
        printf("%s\n    ", i ? "," : "");
        write_obj(OPT_F, N_OPT_F, &r->options[i]);
    }
    printf("\n  ],\n  \"rejected\": [");
    for (int i = 0; i < r->n_rejected; i++) {
        printf("%s\n    ", i ? "," : "");
        write_obj(REJ_F, N_REJ_F, &r->rejected[i]);
    }
    printf("\n  ]\n}\n");
}

/* ---- human output ---- */

static void
t_time(double s, char *b, size_t n)
{
    if (!isfinite(s))
        snprintf(b, n, "-");
    else
        unit_format_time(s, 3, b, n);
}

static const char *
fmt_name(const struct plan_format *f, char *b, size_t n)
{
    if (f->kv == f->weights || (f->kv == roof_default_kv(f->weights)))
        snprintf(b, n, "%s", dtype_name(f->weights));
    else
        snprintf(b, n, "%s/kv %s", dtype_name(f->weights), dtype_name(f->kv));
    return b;
}

static void
describe(const struct plan_question *q, const struct plan_option *op, char *b, size_t n)
{
    char f[48];
    if (op->policy == SIM_DISAGGREGATED)
        snprintf(b, n, "%d x (%d prefill%s%s + %d decode) %s (tp %d, pp %d, %s, disaggregated)",
                 op->instances, op->prefill_instances, op->prefill_hw_id[0] ? " on " : "",
                 op->prefill_hw_id, op->decode_instances, op->hw_id, op->tp, op->pp,
                 fmt_name(&op->format, f, sizeof f));
    else
        snprintf(b, n, "%d x %s (tp %d, pp %d, %s, %s, max batch %ld)", op->instances, op->hw_id,
                 op->tp, op->pp, fmt_name(&op->format, f, sizeof f), sim_policy_name(op->policy),
                 op->max_batch);
    (void)q;
}

static void
slo_words(const struct plan_result *r, char *b, size_t n)
{
    char t[32], i[32], e[32];
    t_time(r->slo.ttft_s, t, sizeof t);
    t_time(r->slo.itl_s, i, sizeof i);
    t_time(r->slo.e2e_s, e, sizeof e);
    int w = snprintf(b, n, "p%g", 100 * r->slo.target);
    if (r->slo.ttft_s > 0)
        w += snprintf(b + w, n - (size_t)w, " TTFT %s", t);
    if (r->slo.itl_s > 0)
        w += snprintf(b + w, n - (size_t)w, "%s ITL %s", r->slo.ttft_s > 0 ? "," : "", i);
    if (r->slo.e2e_s > 0)
        snprintf(b + w, n - (size_t)w, ", E2E %s", e);
}

static const struct out_field RANK_F[] = {
    {"rank", "#", OUT_SHOW_NUM, 0, false},
    {"hardware", NULL, OUT_SHOW_TEXT, 0, false},
    {"tp", NULL, OUT_SHOW_NUM, 0, false},
    {"pp", NULL, OUT_SHOW_NUM, 0, false},
    {"format", NULL, OUT_SHOW_TEXT, 0, false},
    {"scheduler", NULL, OUT_SHOW_TEXT, 0, false},
    {"max_batch", "batch", OUT_SHOW_NUM, 0, false},
    {"rate_per_instance", "req/s/inst", OUT_SHOW_SIG, 0, false},
    {"instances", "inst", OUT_SHOW_NUM, 0, false},
    {"devices", "devices", OUT_SHOW_NUM, 0, false},
    {"stranded", "strand", OUT_SHOW_NUM, 0, false},
    {"cost_per_hour", "$/h", OUT_SHOW_NUM, 2, false},
    {"rent_basis", "basis", OUT_SHOW_TEXT, 0, false},
    {"cost_per_mtok_output", "$/Mtok out", OUT_SHOW_NUM, 3, false},
    {"cost_per_mtok_blended", "$/Mtok all", OUT_SHOW_NUM, 3, false},
    {"tco_per_year", "TCO/yr", OUT_SHOW_NUM, 0, false},
    {"power_kw", "kW", OUT_SHOW_NUM, 1, false},
    {"joules_per_token", "J/tok", OUT_SHOW_NUM, 2, false},
    {"ttft_p99_s", "TTFT p99", OUT_SHOW_TIME, 0, false},
    {"itl_p99_s", "ITL p99", OUT_SHOW_TIME, 0, false},
    {"margin_ttft", "TTFT x", OUT_SHOW_NUM, 2, false},
    {"margin_itl", "ITL x", OUT_SHOW_NUM, 2, false},
    {"saturation_output_tokens_per_s", "sat tok/s", OUT_SHOW_SIG, 0, false},
    {"status", NULL, OUT_SHOW_TEXT, 0, false},
    {"source", "by", OUT_SHOW_TEXT, 0, false},
    {"exhaust_month", "runs out", OUT_SHOW_TEXT, 0, false},
    {"price_basis", "price", OUT_SHOW_TEXT, 0, true},
    {"launch", NULL, OUT_SHOW_TEXT, 0, true},
    {"miss", NULL, OUT_SHOW_TEXT, 0, true},
    {"prefill_hardware", NULL, OUT_SHOW_TEXT, 0, true},
};
#define N_RANK ((int)(sizeof RANK_F / sizeof RANK_F[0]))

static void
rank_row(struct out_table *t, int rank, const struct plan_option *op, enum plan_money money)
{
    char fm[48], pol[128], ex[32], bs[32];
    fmt_name(&op->format, fm, sizeof fm);
    /* the basis of a rental price; '*' = not the question's basis (footnote under the table) */
    if (money == PLAN_BUY)
        snprintf(bs, sizeof bs, "purchase");
    else
        snprintf(bs, sizeof bs, "%s%s", plan_rent_basis_name(op->rent_basis),
                 op->basis_flag ? "*" : "");
    if (op->policy == SIM_DISAGGREGATED)
        snprintf(pol, sizeof pol, "disagg %d:%d%s%s", op->prefill_instances, op->decode_instances,
                 op->prefill_hw_id[0] ? ", prefill on " : "", op->prefill_hw_id);
    else
        snprintf(pol, sizeof pol, "%s", sim_policy_name(op->policy));
    if (op->exhaust_month > 0)
        snprintf(ex, sizeof ex, "month %d", op->exhaust_month);
    else
        snprintf(ex, sizeof ex, "-");
    struct out_value v[N_RANK] = {
        {NULL, rank},
        {op->hw_id, 0},
        {NULL, op->tp},
        {NULL, op->pp},
        {fm, 0},
        {pol, 0},
        {NULL, (double)op->max_batch},
        {NULL, op->rate_per_s},
        {NULL, op->instances},
        {NULL, op->devices},
        {NULL, op->stranded_devices},
        {NULL, op->cost_per_hour},
        {bs, 0},
        {NULL, op->cost_per_mtok_output},
        {NULL, op->cost_per_mtok_blended},
        {NULL, op->tco_per_year},
        {NULL, op->power_w / 1000},
        {NULL, op->joules_per_token},
        {NULL, op->ttft_p99_s},
        {NULL, op->itl_p99_s},
        {NULL, op->margin_ttft},
        {NULL, op->margin_itl},
        {NULL, op->saturation_output_tokens_per_s},
        {plan_status_name(op->status), 0},
        {op->simulated ? "sim" : "analytic", 0},
        {ex, 0},
        {op->price_basis, 0},
        {op->launch, 0},
        {op->miss, 0},
        {op->prefill_hw_id, 0},
    };
    out_table_row(t, v);
}

/* Renting: say in the answer when the chosen price is not on the basis asked, or not on the
 * basis of the runners-up' prices (an unlike comparison a buyer would reject). */
static void
basis_note(const struct plan_question *q, const struct plan_result *r)
{
    if (q->money != PLAN_RENT || r->chosen < 0)
        return;
    const struct plan_option *op = &r->options[r->chosen];
    int differ = 0, first = -1;
    for (int s = 1; s < r->n_shown; s++)
        if (r->options[r->shown[s]].rent_basis != op->rent_basis) {
            differ++;
            if (first < 0)
                first = s;
        }
    if (!op->basis_flag && differ == 0)
        return;
    printf("  price basis: %s", plan_rent_basis_words(op->rent_basis));
    if (op->basis_flag)
        printf(", not %s as asked", plan_rent_basis_name(q->rent_basis));
    if (differ > 0)
        printf("; %d runner%s up priced %s (runner-up %d)", differ, differ == 1 ? "" : "s",
               plan_rent_basis_words(r->options[r->shown[first]].rent_basis), first);
    printf(" (%s)\n", op->price_basis);
}

/* Under the ranked table: what each flagged basis is, per device. */
static void
basis_footnote(const struct plan_question *q, const struct plan_result *r, int rows)
{
    if (q->money != PLAN_RENT)
        return;
    char seen[PLAN_MAX_SHOWN * 4][PLAN_NAME];
    int n = 0;
    for (int i = 0; i < rows && n < (int)(sizeof seen / sizeof seen[0]); i++) {
        const struct plan_option *op = &r->options[i];
        if (!op->basis_flag)
            continue;
        bool dup = false;
        for (int k = 0; k < n && !dup; k++)
            dup = strcmp(seen[k], op->hw_id) == 0;
        if (dup)
            continue;
        snprintf(seen[n++], PLAN_NAME, "%s", op->hw_id);
        printf("  * %s price basis: %s, not %s (%s)\n", op->hw_id,
               plan_rent_basis_words(op->rent_basis), plan_rent_basis_name(q->rent_basis),
               op->price_basis);
    }
}

static void
print_table(const struct plan_question *q, const struct plan_result *r)
{
    char slo[128] = "no latency SLO (offline: maximise throughput)", b[256], x[32], y[32];
    if (r->has_slo)
        slo_words(r, slo, sizeof slo);
    const char *money = q->money == PLAN_BUY ? "buy" : "rent";
    printf("plan: %s\n", r->question);
    if (r->chosen >= 0) {
        const struct plan_option *op = &r->options[r->chosen];
        describe(q, op, b, sizeof b);
        printf("answer: %s %s = %d devices", money, b, op->devices);
        if (op->stranded_devices > 0)
            printf(" (%d stranded by whole servers)", op->stranded_devices);
        printf(",\n  %.2f %s/hour, %.3f %s per million output tokens (%.3f blended)",
               op->cost_per_hour, q->currency, op->cost_per_mtok_output, q->currency,
               op->cost_per_mtok_blended);
        if (isfinite(op->tco_per_year))
            printf(", TCO %.0f %s/year", op->tco_per_year, q->currency);
        if (isfinite(op->power_w))
            printf(", %.1f kW", op->power_w / 1000);
        printf("\n");
        basis_note(q, r);
        if (r->has_slo && q->workload == PLAN_WL_USERS) {
            t_time(op->ttft_p99_s, x, sizeof x);
            t_time(op->itl_p99_s, y, sizeof y);
            printf("  meets %s for %ld users (%.3g s think time, closed loop): TTFT p99 %s, ITL "
                   "p99 %s at the planned load (%s)\n",
                   slo, q->users, q->think_time_s, x, y,
                   op->simulated ? "simulated" : "analytic estimate");
        } else if (r->has_slo) {
            t_time(op->ttft_p99_s, x, sizeof x);
            t_time(op->itl_p99_s, y, sizeof y);
            printf("  meets %s at %.4g requests/s: TTFT p99 %s, ITL p99 %s at the planned load "
                   "(%s)\n",
                   slo, r->rate_per_s, x, y, op->simulated ? "simulated" : "analytic estimate");
        } else if (q->workload == PLAN_WL_OFFLINE) {
            printf("  finishes %.4g documents in %.1f hours (deadline %.1f h), %.4g requests/s "
                   "per instance at saturation\n",
                   q->offline_requests, op->offline_hours, q->offline_deadline_s / 3600,
                   op->rate_per_s);
        } else {
            printf("  no latency SLO: sized at %.4g requests/s per instance (saturation)\n",
                   op->rate_per_s);
        }
        if (op->users_per_instance >= 1)
            printf("  per instance up to %.0f users meet the SLO (%.4g requests/s); planned at "
                   "%.0f%% of it, N+%d spares; %s\n",
                   op->users_per_instance, op->rate_per_s, 100 * q->utilisation, q->spares,
                   op->price_basis);
        else
            printf("  per instance %s %.4g requests/s%s; planned at %.0f%% of it, N+%d spares; "
                   "%s\n",
                   r->has_slo ? "up to" : "", op->rate_per_s,
                   r->has_slo ? " meet the SLO" : " at saturation", 100 * q->utilisation, q->spares,
                   op->price_basis);
        /* cheaper options the simulator did not confirm (ranked after the confirmed) */
        int cheaper = 0, first = -1;
        for (int i = 0; i < r->n_options; i++) {
            const struct plan_option *o2 = &r->options[i];
            if (!o2->simulated && o2->status == PLAN_SLO_MET &&
                o2->cost_per_hour < op->cost_per_hour) {
                cheaper++;
                if (first < 0)
                    first = i;
            }
        }
        if (cheaper > 0) {
            describe(q, &r->options[first], b, sizeof b);
            printf("  note: %d option%s estimated only analytically would cost less (rank %d: %s, "
                   "%.2f %s/h); raise plan.confirm_top (%d) to simulate them\n",
                   cheaper, cheaper == 1 ? "" : "s", first + 1, b, r->options[first].cost_per_hour,
                   q->currency, q->confirm_top);
        }
        for (int s = 1; s < r->n_shown; s++) {
            const struct plan_option *ru = &r->options[r->shown[s]];
            describe(q, ru, b, sizeof b);
            printf("  runner-up %d: %s = %d devices, %.2f %s/h, %.3f %s/Mtok out\n", s, b,
                   ru->devices, ru->cost_per_hour, q->currency, ru->cost_per_mtok_output,
                   q->currency);
        }
    } else {
        printf("answer: no candidate meets %s at %.4g requests/s (%d candidates, %d rejected)\n",
               r->has_slo ? slo : "the question", r->rate_per_s, r->n_candidates, r->n_rejected);
        for (int s = 0; s < r->n_shown; s++) {
            const struct plan_option *op = &r->options[r->shown[s]];
            char f[48];
            printf("  closest %d: %s tp %d %s %s misses by %.2fx: %s\n", s + 1, op->hw_id, op->tp,
                   fmt_name(&op->format, f, sizeof f), sim_policy_name(op->policy), op->miss_factor,
                   op->miss[0] ? op->miss : "no price");
        }
    }
    printf("\nranked options (%d evaluated of %d candidates; %d confirmed by simulation; objective "
           "%s)\n",
           r->n_options, r->n_candidates, r->n_simulated, plan_objective_name(q->objective));
    struct out_table *t = out_table_new(OUT_TABLE, NULL, RANK_F, N_RANK);
    int shown = 0;
    for (int i = 0; i < r->n_options && shown < 25; i++, shown++)
        rank_row(t, i + 1, &r->options[i], q->money);
    out_table_end(t, stdout, 0);
    basis_footnote(q, r, shown);
    if (r->n_options > shown)
        printf("  ... %d more (-o csv or -o json lists all)\n", r->n_options - shown);
    if (r->chosen >= 0) {
        const struct plan_verification *v = &r->verify;
        char a[32], c[32], d[32], e[32];
        t_time(v->ttft_p50_s, a, sizeof a);
        t_time(v->ttft_p99_s, c, sizeof c);
        t_time(v->itl_p50_s, d, sizeof d);
        t_time(v->itl_p99_s, e, sizeof e);
        if (v->users > 0)
            printf("\nverify: benchmark one instance with %ld users (closed loop, %.3g s mean "
                   "think time; about %.4g requests/s, %.1f in flight):\n",
                   v->users, v->think_time_s, v->rate_per_instance_s, v->concurrency);
        else
            printf("\nverify: benchmark one instance at %.4g requests/s (Poisson; about %.1f "
                   "requests in flight):\n",
                   v->rate_per_instance_s, v->concurrency);
        printf("  expect TTFT p50 %s, p99 %s; ITL p50 %s, p99 %s; %.4g output tokens/s\n", a, c, d,
               e, v->output_tokens_per_s);
        printf("\nlaunch lines\n");
        for (int s = 0; s < r->n_shown; s++)
            printf("  %s: %s\n", s == 0 ? "chosen" : "runner-up", r->options[r->shown[s]].launch);
        if (q->growth_per_month > 0) {
            printf("\ngrowth %.0f%%/month: ", 100 * q->growth_per_month);
            for (int s = 0; s < r->n_shown; s++) {
                const struct plan_option *op = &r->options[r->shown[s]];
                if (op->exhaust_month > 0)
                    printf("%s%s runs out in month %d", s ? "; " : "", op->hw_id,
                           op->exhaust_month);
                else
                    printf("%s%s lasts the %d-month horizon", s ? "; " : "", op->hw_id,
                           q->horizon_months);
            }
            printf("\n");
        }
        printf("\ncost per hour against volume (x today's %.4g requests/s)", r->rate_per_s);
        char lab[PLAN_MAX_SHOWN][160];
        for (int s = 0; s < r->n_shown; s++) {
            const struct plan_option *op = &r->options[r->shown[s]];
            char f[48];
            snprintf(lab[s], sizeof lab[s], "%s tp%d %s %.5s", op->hw_id, op->tp,
                     fmt_name(&op->format, f, sizeof f), sim_policy_name(op->policy));
        }
        printf("\n");
        for (int s = 0; s < r->n_shown; s++)
            printf("  [%c] %s\n", 'A' + s, lab[s]);
        printf("  volume");
        for (int s = 0; s < r->n_shown; s++)
            printf("  %10c", 'A' + s);
        printf("  best\n");
        for (int k = 0; k < r->n_sweep; k++) {
            const struct plan_volume_point *p = &r->sweep[k];
            printf("  %5.1fx", p->volume);
            for (int s = 0; s < r->n_shown; s++)
                printf("  %10.2f", p->cost_per_hour[s]);
            printf("  %c\n", p->best >= 0 ? 'A' + p->best : '-');
        }
        for (int k = 0; k < r->n_crossovers; k++)
            printf("  crossover at %.1fx: %s becomes cheaper than %s\n", r->crossovers[k].volume,
                   lab[r->crossovers[k].to], lab[r->crossovers[k].from]);
        if (r->n_crossovers == 0)
            printf("  the best option does not change up to %.0fx\n", q->volume_max);
    }
    printf("\nrejected: %d of %d candidates", r->n_rejected, r->n_candidates);
    const char *sep = " (";
    for (int k = 0; k < PLAN_REJ_COUNT; k++)
        if (r->rejected_by[k]) {
            printf("%s%s %ld", sep, plan_reject_kind_name((enum plan_reject_kind)k),
                   r->rejected_by[k]);
            sep = ", ";
        }
    printf("%s\n", r->n_rejected ? ")" : "");
    int lim = r->n_rejected < 30 ? r->n_rejected : 30;
    for (int i = 0; i < lim; i++) {
        const struct plan_rejected *j = &r->rejected[i];
        char f[48];
        printf("  %s tp %d pp %d %s %s: %s\n", j->hw_id, j->tp, j->pp,
               fmt_name(&j->format, f, sizeof f), sim_policy_name(j->policy), j->reason);
    }
    if (r->n_rejected > lim)
        printf("  ... %d more (-o csv or -o json lists every reason)\n", r->n_rejected - lim);
    printf("\nSLO in force: %s%s%s (source: %s)\n", slo, r->slo_preset[0] ? ", preset " : "",
           r->slo_preset, r->slo_source);
    printf("SLO presets (slo.preset):\n");
    for (int i = 0; i < PLAN_N_SLO_PRESETS; i++) {
        const struct plan_slo_preset *p = &PLAN_SLO_PRESETS[i];
        t_time(p->ttft_s, x, sizeof x);
        t_time(p->itl_s, y, sizeof y);
        printf("  %-18s TTFT %-7s ITL %-6s p%-3g %s\n", p->name, x, y, 100 * p->target, p->source);
    }
    printf("\nassumptions (value; source)\n");
    for (int i = 0; i < r->n_assumptions; i++) {
        const struct plan_assumption *a = &r->assumptions[i];
        printf("  %-30s %s; %s%s\n", a->key, a->value, a->is_default ? "default: " : "", a->source);
    }
}

static void
print_csv(const struct plan_question *q, const struct plan_result *r)
{
    struct out_table *t = out_table_new(OUT_CSV, NULL, RANK_F, N_RANK);
    for (int i = 0; i < r->n_options; i++)
        rank_row(t, i + 1, &r->options[i], q->money);
    out_table_end(t, stdout, 0);
}

static void
print_json(const struct plan_question *q, const struct plan_result *r)
{
    printf("{\n  \"tool\": \"roofline\",\n  \"version\": ");
    out_json_string(stdout, ROOFLINE_VERSION);
    printf(",\n  \"command\": \"plan\",\n  \"question\": ");
    out_json_string(stdout, q->path);
    printf(",\n  \"model\": ");
    out_json_string(stdout, r->model_id);
    printf(",\n  \"seed\": %lu,\n  \"rate_per_s\": ", q->seed);
    json_exact(r->rate_per_s);
    printf(",\n  \"objective\": ");
    out_json_string(stdout, plan_objective_name(q->objective));
    printf(",\n  \"currency\": ");
    out_json_string(stdout, q->currency);
    printf(",\n  \"slo\": {\"ttft_s\": ");
    json_exact(r->has_slo ? r->slo.ttft_s : NAN);
    printf(", \"itl_s\": ");
    json_exact(r->has_slo ? r->slo.itl_s : NAN);
    printf(", \"e2e_s\": ");
    json_exact(r->has_slo ? r->slo.e2e_s : NAN);
    printf(", \"target\": ");
    json_exact(r->slo.target);
    printf(", \"preset\": ");
    out_json_string(stdout, r->slo_preset);
    printf(", \"source\": ");
    out_json_string(stdout, r->slo_source);
    printf("},\n  \"candidates\": %d,\n  \"simulated\": %d,\n  \"chosen\": %d,\n  \"shown\": [",
           r->n_candidates, r->n_simulated, r->chosen);
    for (int i = 0; i < r->n_shown; i++)
        printf("%s%d", i ? ", " : "", r->shown[i]);
    printf("],\n  \"verification\": {\"rate_per_instance_s\": ");
    json_exact(r->verify.rate_per_instance_s);
    printf(", \"concurrency\": ");
    json_exact(r->verify.concurrency);
    printf(", \"users\": %ld, \"think_time_s\": ", r->verify.users);
    json_exact(r->verify.think_time_s);
    printf(", \"ttft_p50_s\": ");
    json_exact(r->verify.ttft_p50_s);
    printf(", \"ttft_p99_s\": ");
    json_exact(r->verify.ttft_p99_s);
    printf(", \"itl_p50_s\": ");
    json_exact(r->verify.itl_p50_s);
    printf(", \"itl_p99_s\": ");
    json_exact(r->verify.itl_p99_s);
    printf(", \"output_tokens_per_s\": ");
    json_exact(r->verify.output_tokens_per_s);
    printf("},\n  \"sweep\": [");
    for (int k = 0; k < r->n_sweep; k++) {
        printf("%s\n    {\"volume\": ", k ? "," : "");
        json_exact(r->sweep[k].volume);
        printf(", \"best\": %d, \"cost_per_hour\": [", r->sweep[k].best);
        for (int s = 0; s < r->n_shown; s++) {
            printf("%s", s ? ", " : "");
            json_exact(r->sweep[k].cost_per_hour[s]);
        }
        printf("]}");
    }
    printf("\n  ],\n  \"crossovers\": [");
    for (int k = 0; k < r->n_crossovers; k++) {
        printf("%s{\"volume\": ", k ? ", " : "");
        json_exact(r->crossovers[k].volume);
        printf(", \"from\": %d, \"to\": %d}", r->crossovers[k].from, r->crossovers[k].to);
    }
    printf("],\n  \"options\": [");
    for (int i = 0; i < r->n_options; i++) {
        printf("%s\n    ", i ? "," : "");
        write_obj(OPT_F, N_OPT_F, &r->options[i]);
    }
    printf("\n  ],\n  \"rejected\": [");
    for (int i = 0; i < r->n_rejected; i++) {
        printf("%s\n    ", i ? "," : "");
        write_obj(REJ_F, N_REJ_F, &r->rejected[i]);
    }
    printf("\n  ],\n  \"assumptions\": [");
    for (int i = 0; i < r->n_assumptions; i++) {
        const struct plan_assumption *a = &r->assumptions[i];
        printf("%s\n    {\"key\": ", i ? "," : "");
        out_json_string(stdout, a->key);
        printf(", \"value\": ");
        out_json_string(stdout, a->value);
        printf(", \"source\": ");
        out_json_string(stdout, a->source);
        printf(", \"is_default\": %s}", a->is_default ? "true" : "false");
    }
    printf("\n  ]\n}\n");
}

static void
print_result(const struct plan_question *q, const struct plan_result *r, enum out_fmt fmt)
{
    if (fmt == OUT_JSON)
        print_json(q, r);
    else if (fmt == OUT_CSV)
        print_csv(q, r);
    else
        print_table(q, r);
}

/* ---- commands ---- */

static struct plan_question *
load_question(const char *path, const char *budget_kw)
{
    struct err_list errs = {0};
    struct plan_question *q = plan_question_load(path, &errs);
    cli_print_errs(&errs);
    err_list_release(&errs);
    if (q && budget_kw) {
        double kw;
        if (str_to_double(budget_kw, &kw) != 0 || !(kw > 0)) {
            fprintf(stderr, "error: --power-budget-kw: expected a power in kW above 0, got '%s'\n",
                    budget_kw);
            plan_question_free(q);
            return NULL;
        }
        q->power_budget_w = kw * 1000;
    }
    return q;
}

static int
merge(int argc, char **argv, enum out_fmt fmt)
{
    struct plan_result r;
    memset(&r, 0, sizeof r);
    struct plan_question *q = NULL;
    int shards = -1, ocap = 0, rcap = 0, rc = CLI_OK;
    bool seen[1024] = {false};
    char *qpath = NULL;
    for (int i = 0; i < argc && rc == CLI_OK; i++) {
        struct err_list errs = {0};
        struct ynode *root = ynode_load(argv[i], &errs);
        cli_print_errs(&errs);
        err_list_release(&errs);
        if (!root) {
            rc = CLI_FAIL;
            break;
        }
        const struct ynode *qp = ynode_get(root, "question"), *sh = ynode_get(root, "shard"),
                           *ns = ynode_get(root, "shards"), *nc = ynode_get(root, "candidates"),
                           *nsim = ynode_get(root, "simulated"), *os = ynode_get(root, "options"),
                           *rs = ynode_get(root, "rejected");
        long s, n, c, m;
        if (!qp || !sh || !ns || !nc || !nsim || !os || !rs || os->kind != YNODE_SEQ ||
            rs->kind != YNODE_SEQ || ynode_long(sh, &s) || ynode_long(ns, &n) ||
            ynode_long(nc, &c) || ynode_long(nsim, &m) || n < 1 || n > 1024 || s < 0 || s >= n) {
            fprintf(stderr, "%s: error: not a 'roofline plan --shard' output\n", argv[i]);
            rc = CLI_FAIL;
        } else if (shards >= 0 && (n != shards || strcmp(qp->value, qpath) != 0)) {
            fprintf(stderr, "%s: error: shard of another run (%s, %ld shards; expected %s, %d)\n",
                    argv[i], qp->value, n, qpath, shards);
            rc = CLI_FAIL;
        } else if (seen[s]) {
            fprintf(stderr, "%s: error: shard %ld/%ld given twice\n", argv[i], s, n);
            rc = CLI_FAIL;
        } else {
            seen[s] = true;
            if (shards < 0) {
                shards = (int)n;
                qpath = str_dup(qp->value);
                r.n_candidates = (int)c;
            }
            r.n_simulated += (int)m;
            for (size_t k = 0; k < os->n && rc == CLI_OK; k++) {
                struct plan_option op;
                memset(&op, 0, sizeof op);
                if (read_obj(OPT_F, N_OPT_F, os->items[k], &op) != 0) {
                    fprintf(stderr, "%s:%d:%d: error: bad option record\n", argv[i],
                            os->items[k]->line, os->items[k]->col);
                    rc = CLI_FAIL;
                    break;
                }
                if (r.n_options == ocap) {
                    ocap = ocap ? 2 * ocap : 64;
                    r.options = realloc(r.options, (size_t)ocap * sizeof *r.options);
                }
                r.options[r.n_options++] = op;
            }
            for (size_t k = 0; k < rs->n && rc == CLI_OK; k++) {
                struct plan_rejected x;
                memset(&x, 0, sizeof x);
                if (read_obj(REJ_F, N_REJ_F, rs->items[k], &x) != 0) {
                    fprintf(stderr, "%s:%d:%d: error: bad rejection record\n", argv[i],
                            rs->items[k]->line, rs->items[k]->col);
                    rc = CLI_FAIL;
                    break;
                }
                if (r.n_rejected == rcap) {
                    rcap = rcap ? 2 * rcap : 64;
                    r.rejected = realloc(r.rejected, (size_t)rcap * sizeof *r.rejected);
                }
                r.rejected[r.n_rejected++] = x;
            }
        }
        ynode_free(root);
    }
    for (int s = 0; rc == CLI_OK && s < shards; s++)
        if (!seen[s]) {
            fprintf(stderr, "error: shard %d/%d is missing\n", s, shards);
            rc = CLI_FAIL;
        }
    if (rc == CLI_OK && !(q = load_question(qpath, NULL)))
        rc = CLI_FAIL;
    if (rc == CLI_OK) {
        struct err_list errs = {0};
        if (plan_finish(q, &r, &errs) != 0)
            rc = CLI_FAIL;
        cli_print_errs(&errs);
        err_list_release(&errs);
        if (rc == CLI_OK)
            print_result(q, &r, fmt);
    }
    plan_result_release(&r);
    plan_question_free(q);
    free(qpath);
    return cli_finish(rc);
}

static int
run(int argc, char **argv)
{
    bool is_merge = argc > 1 && strcmp(argv[1], "merge") == 0;
    struct cli_args a;
    int pr = cli_parse(&a, OPTS, (int)ARRAY_SIZE(OPTS), argc - (is_merge ? 1 : 0),
                       argv + (is_merge ? 1 : 0), cmd_plan.usage);
    if (pr != 0)
        return pr > 0 ? cli_finish(CLI_OK) : CLI_USAGE;
    enum out_fmt fmt = OUT_TABLE;
    if (cli_has(&a, "output") && out_parse_fmt(cli_get(&a, "output"), &fmt) != 0) {
        fprintf(stderr, "error: -o: expected table, csv or json\n");
        return CLI_USAGE;
    }
    if (is_merge) {
        if (a.n_pos == 0 || cli_has(&a, "question") || cli_has(&a, "shard")) {
            fprintf(stderr, "error: plan merge takes the shards' JSON files only\nusage: %s\n",
                    cmd_plan.usage);
            return CLI_USAGE;
        }
        return merge(a.n_pos, (char **)a.pos, fmt);
    }
    if (a.n_pos) {
        fprintf(stderr, "error: unexpected argument '%s'\nusage: %s\n", a.pos[0], cmd_plan.usage);
        return CLI_USAGE;
    }
    if (!cli_has(&a, "question")) {
        fprintf(stderr, "error: --question is required\nusage: %s\n", cmd_plan.usage);
        return CLI_USAGE;
    }
    long jobs = 1;
    if (cli_has(&a, "jobs") && cli_long(&a, "jobs", 1, 1, &jobs) != 0)
        return CLI_USAGE;
    int shard = 0, n_shards = 1;
    if (cli_has(&a, "shard")) {
        const char *s = cli_get(&a, "shard");
        char extra;
        if (sscanf(s, "%d/%d%c", &shard, &n_shards, &extra) != 2 || n_shards < 1 ||
            n_shards > 1024 || shard < 0 || shard >= n_shards) {
            fprintf(stderr, "error: --shard: expected I/N with 0 <= I < N <= 1024, got '%s'\n", s);
            return CLI_USAGE;
        }
        if (cli_has(&a, "output") && fmt != OUT_JSON) {
            fprintf(stderr, "error: --shard writes JSON for 'plan merge': use -o json\n");
            return CLI_USAGE;
        }
    }
    struct plan_question *q =
        load_question(cli_get(&a, "question"), cli_get(&a, "power-budget-kw"));
    if (!q)
        return CLI_FAIL;
    struct plan_opts o;
    plan_opts_init(&o);
    o.jobs = (int)jobs;
    o.tuning = tuning_hook;
    struct progress pg = {{0, 0}, 0, false, false};
    clock_gettime(CLOCK_MONOTONIC, &pg.t0);
    o.progress = progress_hook;
    o.progress_ctx = &pg;
    struct plan_result r;
    struct err_list errs = {0};
    int rc = CLI_OK;
    /* the engine's serving defaults, as `roofline simulate` applies them */
    struct engine_profile *ep = q->engine ? engine_find(q->engine, &errs) : NULL;
    o.serving = engine_serving_hook;
    o.serving_ctx = ep;
    if (cli_has(&a, "shard")) {
        o.shard = shard;
        o.n_shards = n_shards;
        if (plan_evaluate(q, &o, &r, &errs) != 0)
            rc = CLI_FAIL;
        else
            print_shard(q, &r, shard, n_shards);
    } else if (plan_run(q, &o, &r, &errs) != 0) {
        rc = CLI_FAIL;
    } else {
        print_result(q, &r, fmt);
    }
    cli_print_errs(&errs);
    err_list_release(&errs);
    plan_result_release(&r);
    engine_profile_free(ep);
    plan_question_free(q);
    return cli_finish(rc);
}

int
cli_plan_chart(const char *question, const char *out, int width, int height)
{
    struct plan_question *q = load_question(question, NULL);
    if (!q)
        return CLI_FAIL;
    struct plan_opts o;
    plan_opts_init(&o);
    o.jobs = 2;
    o.tuning = tuning_hook;
    struct plan_result r;
    struct err_list errs = {0};
    int rc = CLI_FAIL;
    struct engine_profile *ep = q->engine ? engine_find(q->engine, &errs) : NULL;
    o.serving = engine_serving_hook;
    o.serving_ctx = ep;
    if (plan_run(q, &o, &r, &errs) == 0) {
        struct chart *c = chart_build_plan(q, &o, &r, &errs);
        if (c && chart_save(c, out, width, height, &errs) == 0)
            rc = CLI_OK;
        chart_free(c);
        plan_result_release(&r);
    }
    cli_print_errs(&errs);
    err_list_release(&errs);
    engine_profile_free(ep);
    plan_question_free(q);
    return rc;
}

const struct cli_cmd cmd_plan = {
    "plan", "capacity plan: which hardware, how many, cost per hour and per million tokens",
    "roofline plan --question FILE [-o table|csv|json] [--jobs N] [--power-budget-kw KW]\n"
    "       roofline plan --question FILE --shard I/N -o json [--jobs N]\n"
    "       roofline plan merge SHARD.json... [-o table|csv|json]",
    run, CLI_OPTS(OPTS)};
