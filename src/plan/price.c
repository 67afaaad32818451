/* The planner's sizing and money (docs/plan.md#costs): instances for the traffic at the planned
 * utilisation with N+k spares, the fleet in whole servers with what it strands, its cost per
 * hour (rent or purchase TCO), per million tokens and its power; the ranking by the objective
 * and the cost against traffic volume with the volumes at which the best option changes. */
#include "plan/plan_int.h"

#include "plan/cost.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Instances for `volume` x today's traffic given the option's capacity per instance: the rate
 * at the planned utilisation, or (closed loops) the users per instance at the planned
 * utilisation, rounded down to whole users and at least one. */
static int
instances_for(const struct plan_question *q, const struct plan_option *op, double volume)
{
    if (!(op->rate_per_s > 0))
        return 0;
    double n;
    if (plan_closed_sizing(q) && op->users_per_instance >= 1) {
        double per = floor(op->users_per_instance * q->utilisation + 1e-9);
        n = ceil((double)q->users * volume / (per >= 1 ? per : 1) - 1e-9);
    } else {
        n = ceil(q->rate_per_s * volume / (op->rate_per_s * q->utilisation) - 1e-9);
    }
    return (int)(n < 1 ? 1 : n) + q->spares;
}

/* The cost per million tokens, tokens per kW and joules per token of the option's fleet at
 * `req_per_s` requests/s in all. */
void
plan_price_tokens(const struct plan_question *q, struct plan_option *op, double req_per_s)
{
    double out_tok = req_per_s * plan_len_mean(&q->output);
    double in_tok = req_per_s * plan_len_mean(&q->prompt);
    op->cost_per_mtok_output = plan_cost_per_mtok(op->cost_per_hour, out_tok);
    op->cost_per_mtok_input = plan_cost_per_mtok(op->cost_per_hour, in_tok);
    op->cost_per_mtok_blended = plan_cost_per_mtok(op->cost_per_hour, in_tok + out_tok);
    op->tokens_per_s_per_kw = isfinite(op->power_w) ? out_tok / (op->power_w / 1000.0) : NAN;
    op->joules_per_token = isfinite(op->power_w) ? op->power_w / out_tok : NAN;
}

/* One pool of `used` devices of `hw` serving `instances` instances, added to op's fleet. */
static void
pool_cost(const struct plan_question *q, const struct hw_profile *hw, int used, int instances,
          struct plan_option *op)
{
    int sd = plan_server_devices(hw), servers, devices;
    if (sd > 0) {
        servers = (used + sd - 1) / sd;
        devices = servers * sd;
    } else {
        servers = instances; /* one host per instance */
        devices = used;
    }
    op->servers += servers;
    op->devices += devices;
    op->stranded_devices += devices - used;
    enum plan_price_origin org;
    char basis[PLAN_TEXT];
    struct plan_tco_parts parts;
    double price = plan_purchase_price(q, hw, &org, basis, sizeof basis);
    plan_tco_device_year(&q->tco, price, hw->tdp_w, sd, &parts);
    /* wall power: devices at the assumed utilisation plus hosts, with PUE */
    op->power_w += hw->tdp_w > 0 ? (devices * hw->tdp_w * q->tco.device_utilisation +
                                    servers * q->tco.host_w_per_server) *
                                       q->tco.pue
                                 : NAN;
    double tco = price > 0 ? parts.total * devices : NAN;
    double capex = price > 0 ? parts.server_share * devices : NAN;
    op->tco_per_year += tco;
    op->capex += capex;
    if (q->money == PLAN_BUY) {
        op->cost_per_hour += tco / PLAN_HOURS_PER_YEAR;
    } else {
        double rent = plan_rent_per_hour(q, hw, &org, NULL, basis, sizeof basis);
        op->cost_per_hour += rent > 0 ? rent * devices : NAN;
    }
}

/* The fleet of `instances` instances of `op` into op's fleet figures (instances, devices,
 * servers, stranded devices, cost per hour, power, TCO, capex); a disaggregated unit on two
 * device types has both pools, each in whole servers of its own kind. */
static void
fleet_cost(const struct plan_question *q, const struct hw_profile *hw, struct plan_option *op,
           int instances)
{
    op->instances = instances;
    op->devices = op->servers = op->stranded_devices = 0;
    op->cost_per_hour = op->power_w = op->tco_per_year = op->capex = 0;
    const struct hw_profile *pf = op->prefill_hw_id[0] ? plan_find_hw(q, op->prefill_hw_id) : NULL;
    if (pf) {
        int per = op->tp * op->pp;
        pool_cost(q, pf, instances * op->prefill_instances * per, instances * op->prefill_instances,
                  op);
        pool_cost(q, hw, instances * op->decode_instances * per, instances * op->decode_instances,
                  op);
    } else {
        pool_cost(q, hw, instances * op->devices_per_instance, instances, op);
    }
}

double
plan_objective_value(const struct plan_question *q, const struct plan_option *op)
{
    double v;
    switch (q->objective) {
    case PLAN_MIN_COST_PER_HOUR:
        v = op->cost_per_hour;
        break;
    case PLAN_MIN_COST_PER_MTOK:
        v = op->cost_per_mtok_blended;
        break;
    case PLAN_MIN_DEVICES:
        v = op->devices + 1e-9 * (isfinite(op->cost_per_hour) ? op->cost_per_hour : 1e12);
        break;
    case PLAN_MAX_TOKENS_PER_DOLLAR:
        v = op->cost_per_mtok_output; /* fewest dollars per token = most tokens per dollar */
        break;
    default:
        v = op->cost_per_hour;
    }
    return isfinite(v) ? v : INFINITY;
}

/* Price the option's fleet at the question's rate (with offline: finish by the deadline). */
void
plan_price_option(const struct plan_question *q, const struct hw_profile *hw,
                  struct plan_option *op)
{
    op->spares = q->spares;
    op->server_devices = plan_server_devices(hw);
    enum plan_price_origin org;
    if (q->money == PLAN_BUY) {
        op->device_price_per_hour =
            plan_purchase_price(q, hw, &org, op->price_basis, sizeof op->price_basis);
        struct plan_tco_parts parts;
        plan_tco_device_year(&q->tco, op->device_price_per_hour, hw->tdp_w, op->server_devices,
                             &parts);
        op->device_price_per_hour =
            op->device_price_per_hour > 0 ? parts.total / PLAN_HOURS_PER_YEAR : 0;
        op->rent_basis = q->rent_basis;
    } else {
        op->device_price_per_hour = plan_rent_per_hour(q, hw, &org, &op->rent_basis,
                                                       op->price_basis, sizeof op->price_basis);
        op->basis_flag = q->rent_basis != PLAN_BASIS_ANY && op->rent_basis != q->rent_basis;
    }
    op->price_origin = org;
    const struct hw_profile *pf = op->prefill_hw_id[0] ? plan_find_hw(q, op->prefill_hw_id) : NULL;
    if (pf) {
        char pb[PLAN_TEXT], both[2 * PLAN_TEXT + 64];
        enum plan_price_origin o2;
        enum plan_rent_basis b2;
        if (q->money == PLAN_BUY) {
            plan_purchase_price(q, pf, &o2, pb, sizeof pb);
        } else {
            plan_rent_per_hour(q, pf, &o2, &b2, pb, sizeof pb);
            op->basis_flag |= q->rent_basis != PLAN_BASIS_ANY && b2 != q->rent_basis;
        }
        snprintf(both, sizeof both, "decode %s: %s; prefill %s: %s", hw->id, op->price_basis,
                 pf->id, pb);
        snprintf(op->price_basis, sizeof op->price_basis, "%.500s", both);
    }
    if (!(op->rate_per_s > 0)) {
        op->cost_per_hour = op->cost_per_mtok_output = op->cost_per_mtok_input =
            op->cost_per_mtok_blended = op->power_w = op->tokens_per_s_per_kw =
                op->joules_per_token = NAN;
        return;
    }
    int n = instances_for(q, op, 1.0);
    fleet_cost(q, hw, op, n);
    op->planned_rate_per_instance_s = q->rate_per_s / (double)(n - q->spares);
    plan_price_tokens(q, op, q->rate_per_s);
    if (q->workload == PLAN_WL_OFFLINE)
        op->offline_hours = q->offline_requests / ((n - q->spares) * op->rate_per_s) / 3600.0;
    /* growth: the first month whose traffic exceeds the fleet's max SLO-meeting rate */
    op->exhaust_month = -1;
    if (q->growth_per_month > 0) {
        bool users = plan_closed_sizing(q) && op->users_per_instance >= 1;
        double capacity = (n - q->spares) * (users ? op->users_per_instance : op->rate_per_s);
        double today = users ? (double)q->users : q->rate_per_s;
        for (int m = 1; m <= q->horizon_months; m++)
            if (today * pow(1.0 + q->growth_per_month, m) > capacity) {
                op->exhaust_month = m;
                break;
            }
    }
}

/* ---- ranking ---- */

static const struct plan_question *g_rank_q; /* qsort has no context; set by plan_rank */

static int
status_rank(enum plan_slo_status s)
{
    return s == PLAN_SLO_MET || s == PLAN_SLO_NONE ? 0 : s == PLAN_SLO_NEAR_MISS ? 1 : 2;
}

static int
cmp_option(const void *a, const void *b)
{
    const struct plan_option *x = a, *y = b;
    int sx = status_rank(x->status), sy = status_rank(y->status);
    if (sx != sy)
        return sx - sy;
    if (sx == 0 && x->simulated != y->simulated) /* confirmed by the simulator first */
        return x->simulated ? -1 : 1;
    if (sx > 0) { /* not met: the closest first */
        if (x->miss_factor != y->miss_factor)
            return x->miss_factor < y->miss_factor ? -1 : 1;
        return x->index - y->index;
    }
    double vx = plan_objective_value(g_rank_q, x), vy = plan_objective_value(g_rank_q, y);
    if (vx != vy)
        return vx < vy ? -1 : 1;
    /* equal cost (whole servers): the fleet with more SLO-meeting capacity first */
    double cx = (x->instances - x->spares) * x->rate_per_s;
    double cy = (y->instances - y->spares) * y->rate_per_s;
    if (cx != cy)
        return cx > cy ? -1 : 1;
    return x->index - y->index;
}

void
plan_rank(const struct plan_question *q, struct plan_result *r)
{
    g_rank_q = q;
    if (r->n_options > 1)
        qsort(r->options, (size_t)r->n_options, sizeof *r->options, cmp_option);
}

void
plan_sweep(const struct plan_question *q, struct plan_result *r)
{
    r->n_sweep = 0;
    r->n_crossovers = 0;
    if (r->chosen >= 0) {
        int pts = PLAN_MAX_SWEEP;
        for (int k = 0; k < pts; k++) {
            struct plan_volume_point *pt = &r->sweep[r->n_sweep++];
            pt->volume = pts > 1 ? 1.0 + (q->volume_max - 1.0) * k / (pts - 1) : 1.0;
            pt->rate_per_s = q->rate_per_s * pt->volume;
            pt->best = -1;
            double best = INFINITY;
            for (int s = 0; s < r->n_shown; s++) {
                const struct plan_option *op = &r->options[r->shown[s]];
                const struct hw_profile *hw = plan_find_hw(q, op->hw_id);
                pt->cost_per_hour[s] = NAN;
                pt->instances[s] = 0;
                if (!hw)
                    continue;
                int n = instances_for(q, op, pt->volume);
                struct plan_option f = *op;
                fleet_cost(q, hw, &f, n);
                pt->instances[s] = n;
                if (q->power_budget_w > 0 && f.power_w > q->power_budget_w)
                    continue;
                pt->cost_per_hour[s] = f.cost_per_hour;
                if (f.cost_per_hour < best) {
                    best = f.cost_per_hour;
                    pt->best = s;
                }
            }
            int prev = k > 0 ? r->sweep[k - 1].best : -1;
            if (prev >= 0 && pt->best >= 0 && pt->best != prev &&
                !(pt->cost_per_hour[prev] <= pt->cost_per_hour[pt->best]) &&
                r->n_crossovers < PLAN_MAX_CROSSOVERS) {
                struct plan_crossover *c = &r->crossovers[r->n_crossovers++];
                c->volume = pt->volume;
                c->from = r->sweep[k - 1].best;
                c->to = pt->best;
            }
        }
    }
}
