/* The answer of `roofline plan` (docs/plan.md#output-fields): the recommendation in words first,
 * then the ranked options, verification, launch lines, growth, cost against volume, rejected
 * candidates with reasons, the SLOs and every assumption with its source (table); the ranked
 * options (csv); everything as JSON. */
#include "cli/cli.h"
#include "cli/plan_cli.h"
#include "plan/cost.h"
#include "util/strbuf.h"
#include "util/units.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

static void
t_time(double s, char *b, size_t n)
{
    unit_format_time_or(s, 3, "-", b, n);
}

static const char *
fmt_name(const struct plan_format *f, char *b, size_t n)
{
    const char *mk = f->moe_marlin ? "+marlin" : "";
    if (f->kv == f->weights || (f->kv == roof_default_kv(f->weights)))
        snprintf(b, n, "%s%s", dtype_name(f->weights), mk);
    else
        snprintf(b, n, "%s/kv %s%s", dtype_name(f->weights), dtype_name(f->kv), mk);
    return b;
}

static void
describe(const struct plan_question *q, const struct plan_option *op, char *b, size_t n)
{
    char f[48], d[32], rk[40] = "";
    roof_parallel_words(0, op->attn_dp, false, d, sizeof d);
    if (op->attn_dp > 1) /* each data-parallel attention rank's share */
        snprintf(rk, sizeof rk, ", %ld a rank", sim_rank_share(op->max_batch, op->attn_dp));
    if (op->policy == SIM_DISAGGREGATED)
        snprintf(b, n, "%d x (%d prefill%s%s + %d decode) %s (tp %d%s, pp %d, %s, disaggregated)",
                 op->instances, op->prefill_instances, op->prefill_hw_id[0] ? " on " : "",
                 op->prefill_hw_id, op->decode_instances, op->hw_id, op->tp, d, op->pp,
                 fmt_name(&op->format, f, sizeof f));
    else
        snprintf(b, n, "%d x %s (tp %d%s, pp %d, %s, %s, max batch %ld%s)", op->instances,
                 op->hw_id, op->tp, d, op->pp, fmt_name(&op->format, f, sizeof f),
                 sim_policy_name(op->policy), op->max_batch, rk);
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
    /* in the table only when an option has it (print_table) */
    {"attn_dp", "attn dp", OUT_SHOW_NUM, 0, false},
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
        {NULL, op->attn_dp > 1 ? op->attn_dp : 1},
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
bool
cli_plan_basis_note(const struct plan_question *q, const struct plan_result *r, struct strbuf *out)
{
    if (q->money != PLAN_RENT || r->chosen < 0)
        return false;
    const struct plan_option *op = &r->options[r->chosen];
    int differ = 0, first = -1;
    for (int s = 1; s < r->n_shown; s++)
        if (r->options[r->shown[s]].rent_basis != op->rent_basis) {
            differ++;
            if (first < 0)
                first = s;
        }
    if (!op->basis_flag && differ == 0)
        return false;
    strbuf_addf(out, "price basis: %s", plan_rent_basis_words(op->rent_basis));
    if (op->basis_flag)
        strbuf_addf(out, ", not %s as asked", plan_rent_basis_name(q->rent_basis));
    if (differ > 0)
        strbuf_addf(out, "; %d runner%s up priced %s (runner-up %d, %s)", differ,
                    differ == 1 ? "" : "s",
                    plan_rent_basis_words(r->options[r->shown[first]].rent_basis), first,
                    r->options[r->shown[first]].hw_id);
    strbuf_addf(out, " (%s)", op->price_basis);
    return true;
}

static void
basis_note(const struct plan_question *q, const struct plan_result *r)
{
    struct strbuf note = {0};
    if (cli_plan_basis_note(q, r, &note) && !note.failed)
        printf("  %s\n", note.buf);
    strbuf_release(&note);
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

/* The recommendation in words: the chosen option, its SLO, price basis and runners-up; or the
 * closest options when none meets the SLOs. */
static void
print_answer(const struct plan_question *q, const struct plan_result *r, const char *slo)
{
    char b[256], x[32], y[32];
    const char *money = q->money == PLAN_BUY ? "buy" : "rent";
    if (r->chosen >= 0) {
        const struct plan_option *op = &r->options[r->chosen];
        describe(q, op, b, sizeof b);
        printf("answer: %s %s = %d device%s", money, b, op->devices, op->devices == 1 ? "" : "s");
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
        } else if (q->workload == PLAN_WL_USERS) {
            printf("  no latency SLO: %ld users (%.3g s think time, closed loop) at the knee of "
                   "one instance's closed loop, where it saturates\n",
                   q->users, q->think_time_s);
        } else {
            printf("  no latency SLO: sized at %.4g requests/s per instance (saturation)\n",
                   op->rate_per_s);
        }
        if (op->users_per_instance >= 1 && !r->has_slo)
            printf("  per instance %.3g users saturate it (%.4g requests/s, X_sat (Z + R0)); "
                   "planned at %.0f%% of it, N+%d spares; %s\n",
                   op->users_per_instance, op->rate_per_s, 100 * q->utilisation, q->spares,
                   op->price_basis);
        else if (op->users_per_instance >= 1)
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
            printf("  runner-up %d: %s = %d device%s, %.2f %s/h, %.3f %s/Mtok out\n", s, b,
                   ru->devices, ru->devices == 1 ? "" : "s", ru->cost_per_hour, q->currency,
                   ru->cost_per_mtok_output, q->currency);
        }
    } else {
        printf("answer: no candidate meets %s at %.4g requests/s (%d candidates, %d rejected)\n",
               r->has_slo ? slo : "the question", r->rate_per_s, r->n_candidates, r->n_rejected);
        for (int s = 0; s < r->n_shown; s++) {
            const struct plan_option *op = &r->options[r->shown[s]];
            char f[48], d[32];
            printf("  closest %d: %s tp %d%s %s %s misses by %.2fx: %s\n", s + 1, op->hw_id, op->tp,
                   roof_parallel_words(0, op->attn_dp, false, d, sizeof d),
                   fmt_name(&op->format, f, sizeof f), sim_policy_name(op->policy), op->miss_factor,
                   op->miss[0] ? op->miss : "no price");
        }
    }
}

/* For the chosen plan: how to verify it, its launch lines, growth and cost against volume. */
static void
print_chosen_details(const struct plan_question *q, const struct plan_result *r)
{
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
    printf("  expect TTFT p50 %s, p99 %s; ITL p50 %s, p99 %s; %.4g output tokens/s\n", a, c, d, e,
           v->output_tokens_per_s);
    printf("\nlaunch lines\n");
    for (int s = 0; s < r->n_shown; s++)
        printf("  %s: %s\n", s == 0 ? "chosen" : "runner-up", r->options[r->shown[s]].launch);
    if (q->growth_per_month > 0) {
        printf("\ngrowth %.0f%%/month: ", 100 * q->growth_per_month);
        for (int s = 0; s < r->n_shown; s++) {
            const struct plan_option *op = &r->options[r->shown[s]];
            if (op->exhaust_month > 0)
                printf("%s%s runs out in month %d", s ? "; " : "", op->hw_id, op->exhaust_month);
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
        char f[48], dp[16] = "";
        if (op->attn_dp > 1)
            snprintf(dp, sizeof dp, " dp%d", op->attn_dp);
        snprintf(lab[s], sizeof lab[s], "%s tp%d%s %s %.5s", op->hw_id, op->tp, dp,
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

static void
print_table(const struct plan_question *q, const struct plan_result *r)
{
    char slo[128] = "no latency SLO (offline: maximise throughput)", x[32], y[32];
    if (r->has_slo)
        slo_words(r, slo, sizeof slo);
    printf("plan: %s\n", r->question);
    print_answer(q, r, slo);
    printf("\nranked options (%d evaluated of %d candidates; %d confirmed by simulation; objective "
           "%s)\n",
           r->n_options, r->n_candidates, r->n_simulated, plan_objective_name(q->objective));
    /* the attention column only where an option has data-parallel attention */
    struct out_field fields[N_RANK];
    memcpy(fields, RANK_F, sizeof fields);
    bool any_dp = false;
    for (int i = 0; i < r->n_options; i++)
        any_dp = any_dp || r->options[i].attn_dp > 1;
    for (int i = 0; i < N_RANK; i++)
        if (strcmp(fields[i].name, "attn_dp") == 0)
            fields[i].wide = !any_dp;
    struct out_table *t = out_table_new(OUT_TABLE, NULL, fields, N_RANK);
    int shown = 0;
    for (int i = 0; i < r->n_options && shown < 25; i++, shown++)
        rank_row(t, i + 1, &r->options[i], q->money);
    out_table_end(t, stdout, 0);
    basis_footnote(q, r, shown);
    if (r->n_options > shown)
        printf("  ... %d more (-o csv or -o json lists all)\n", r->n_options - shown);
    if (r->chosen >= 0)
        print_chosen_details(q, r);
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
        char f[48], d[32];
        printf("  %s tp %d%s pp %d %s %s: %s\n", j->hw_id, j->tp,
               roof_parallel_words(0, j->attn_dp, false, d, sizeof d), j->pp,
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

/* `, "key": x` with x exact (the JSON answer's numbers). */
static void
json_field(const char *key, double x)
{
    printf(", \"%s\": ", key);
    cli_plan_json_number(x);
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
    cli_plan_json_number(r->rate_per_s);
    printf(",\n  \"objective\": ");
    out_json_string(stdout, plan_objective_name(q->objective));
    printf(",\n  \"currency\": ");
    out_json_string(stdout, q->currency);
    printf(",\n  \"slo\": {\"ttft_s\": ");
    cli_plan_json_number(r->has_slo ? r->slo.ttft_s : NAN);
    json_field("itl_s", r->has_slo ? r->slo.itl_s : NAN);
    json_field("e2e_s", r->has_slo ? r->slo.e2e_s : NAN);
    json_field("target", r->slo.target);
    printf(", \"preset\": ");
    out_json_string(stdout, r->slo_preset);
    printf(", \"source\": ");
    out_json_string(stdout, r->slo_source);
    printf("},\n  \"candidates\": %d,\n  \"simulated\": %d,\n  \"chosen\": %d,\n  \"shown\": [",
           r->n_candidates, r->n_simulated, r->chosen);
    for (int i = 0; i < r->n_shown; i++)
        printf("%s%d", i ? ", " : "", r->shown[i]);
    printf("],\n  \"verification\": {\"rate_per_instance_s\": ");
    cli_plan_json_number(r->verify.rate_per_instance_s);
    json_field("concurrency", r->verify.concurrency);
    printf(", \"users\": %ld", r->verify.users);
    json_field("think_time_s", r->verify.think_time_s);
    json_field("ttft_p50_s", r->verify.ttft_p50_s);
    json_field("ttft_p99_s", r->verify.ttft_p99_s);
    json_field("itl_p50_s", r->verify.itl_p50_s);
    json_field("itl_p99_s", r->verify.itl_p99_s);
    json_field("output_tokens_per_s", r->verify.output_tokens_per_s);
    printf("},\n  \"sweep\": [");
    for (int k = 0; k < r->n_sweep; k++) {
        printf("%s\n    {\"volume\": ", k ? "," : "");
        cli_plan_json_number(r->sweep[k].volume);
        printf(", \"best\": %d, \"cost_per_hour\": [", r->sweep[k].best);
        for (int s = 0; s < r->n_shown; s++) {
            printf("%s", s ? ", " : "");
            cli_plan_json_number(r->sweep[k].cost_per_hour[s]);
        }
        printf("]}");
    }
    printf("\n  ],\n  \"crossovers\": [");
    for (int k = 0; k < r->n_crossovers; k++) {
        printf("%s{\"volume\": ", k ? ", " : "");
        cli_plan_json_number(r->crossovers[k].volume);
        printf(", \"from\": %d, \"to\": %d}", r->crossovers[k].from, r->crossovers[k].to);
    }
    printf("],\n  \"options\": [");
    for (int i = 0; i < r->n_options; i++) {
        printf("%s\n    ", i ? "," : "");
        cli_plan_json_option(&r->options[i]);
    }
    printf("\n  ],\n  \"rejected\": [");
    for (int i = 0; i < r->n_rejected; i++) {
        printf("%s\n    ", i ? "," : "");
        cli_plan_json_rejected(&r->rejected[i]);
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

void
cli_plan_print(const struct plan_question *q, const struct plan_result *r, enum out_fmt fmt)
{
    if (fmt == OUT_JSON)
        print_json(q, r);
    else if (fmt == OUT_CSV)
        print_csv(q, r);
    else
        print_table(q, r);
}
