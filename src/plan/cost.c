/* Prices and costs (see cost.h, docs/plan.md#costs). */
#include "plan/cost.h"

#include <math.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>

/* SemiAnalysis InferenceMAX per-GPU hourly cost tiers (owned hyperscaler tier, read from
 * SemiAnalysisAI/InferenceX-app @77ca49a, dated 2026-04-03; docs/plan.md#costs). */
static const struct {
    const char *id;
    double usd_per_hour;
} TIERS[] = {
    {"h100-sxm", 1.30},
    {"h200", 1.41},
    {"b200", 1.95},
    {"gb200", 2.21},
};

int
plan_server_devices(const struct hw_profile *hw)
{
    /* the profile's figure (1 = sold alone); 0 = unknown: the table below */
    if (hw->server_devices > 1)
        return hw->server_devices;
    if (hw->server_devices == 1)
        return 0;
    /* HGX / OAM baseboards carry 8; a GB200 NVL72 compute tray 4 (docs/plan.md#costs) */
    static const char *const EIGHT[] = {"a100-sxm-40gb", "a100-sxm-80gb", "h100-sxm", "h200",
                                        "b200",          "mi250",         "mi250x",   "mi300x",
                                        "mi325x",        "gaudi2",        "v100-sxm2"};
    for (size_t i = 0; i < sizeof EIGHT / sizeof EIGHT[0]; i++)
        if (strcmp(hw->id, EIGHT[i]) == 0)
            return 8;
    if (strcmp(hw->id, "gb200") == 0)
        return 4;
    return 0;
}

static const struct plan_price_override *
override(const struct plan_question *q, const char *id)
{
    for (int i = 0; i < q->n_prices; i++)
        if (strcmp(q->prices[i].hw_id, id) == 0)
            return &q->prices[i];
    return NULL;
}

enum plan_rent_basis
plan_rent_basis_of(const char *basis)
{
    if (!basis)
        return PLAN_BASIS_LIST;
    /* the term first: "3-year ... rental" is reserved even when it says rental */
    static const char *const RESERVED[] = {"3-year", "3-yr",     "3 year",    "1-year",
                                           "1-yr",   "reserved", "committed", "contract"};
    static const char *const SHORT[] = {"capacity block", "spot", "interruptible", "preemptible"};
    for (size_t i = 0; i < sizeof RESERVED / sizeof RESERVED[0]; i++)
        if (strstr(basis, RESERVED[i]))
            return PLAN_BASIS_RESERVED_3Y;
    for (size_t i = 0; i < sizeof SHORT / sizeof SHORT[0]; i++)
        if (strstr(basis, SHORT[i]))
            return PLAN_BASIS_SHORT_TERM;
    if (strstr(basis, "on-demand") || strstr(basis, "on demand"))
        return PLAN_BASIS_ON_DEMAND;
    if (strstr(basis, "tier") || strstr(basis, "owned"))
        return PLAN_BASIS_OWNED;
    return PLAN_BASIS_LIST;
}

const char *
plan_rent_basis_name(enum plan_rent_basis b)
{
    static const char *const N[] = {"on-demand",   "list",       "short-term",
                                    "reserved-3y", "owned-tier", "any"};
    return (unsigned)b < PLAN_BASIS_COUNT ? N[b] : "?";
}

const char *
plan_rent_basis_words(enum plan_rent_basis b)
{
    static const char *const W[] = {"on-demand",
                                    "list rental, commitment not stated",
                                    "short-term reservation",
                                    "3-year reserved tier",
                                    "owner's cost tier, not a rental",
                                    "any basis"};
    return (unsigned)b < PLAN_BASIS_COUNT ? W[b] : "?";
}

/* How far a price of basis `b` is from the basis asked: 0 = the same (any: always 0). */
static int
basis_distance(enum plan_rent_basis want, enum plan_rent_basis b)
{
    static const enum plan_rent_basis OD[] = {PLAN_BASIS_ON_DEMAND, PLAN_BASIS_LIST,
                                              PLAN_BASIS_SHORT_TERM, PLAN_BASIS_RESERVED_3Y,
                                              PLAN_BASIS_OWNED};
    static const enum plan_rent_basis R3[] = {PLAN_BASIS_RESERVED_3Y, PLAN_BASIS_OWNED,
                                              PLAN_BASIS_LIST, PLAN_BASIS_SHORT_TERM,
                                              PLAN_BASIS_ON_DEMAND};
    if (want == PLAN_BASIS_ANY)
        return 0;
    const enum plan_rent_basis *order = want == PLAN_BASIS_RESERVED_3Y ? R3 : OD;
    for (int i = 0; i < 5; i++)
        if (order[i] == b)
            return i;
    return 5;
}

double
plan_rent_per_hour(const struct plan_question *q, const struct hw_profile *hw,
                   enum plan_price_origin *origin, enum plan_rent_basis *cls, char *basis, size_t n)
{
    enum plan_rent_basis want = q->rent_basis, dummy;
    if (!cls)
        cls = &dummy;
    const struct plan_price_override *o = override(q, hw->id);
    if (o && o->rent_per_hour > 0) {
        *origin = PLAN_PRICE_QUESTION;
        *cls = want;
        snprintf(basis, n, "question");
        return o->rent_per_hour;
    }
    /* the dated entry closest to the basis asked; among those the cheapest */
    int best = -1, best_d = 0;
    for (int i = 0; i < hw->n_cloud; i++) {
        const struct hw_price_cloud *c = &hw->cloud[i];
        if (!(c->usd_per_hour > 0) || !c->date)
            continue;
        int d = basis_distance(want, plan_rent_basis_of(c->basis));
        if (best < 0 || d < best_d ||
            (d == best_d && c->usd_per_hour < hw->cloud[best].usd_per_hour)) {
            best = i;
            best_d = d;
        }
    }
    if (best >= 0) {
        const struct hw_price_cloud *c = &hw->cloud[best];
        *origin = PLAN_PRICE_PROFILE;
        *cls = plan_rent_basis_of(c->basis);
        snprintf(basis, n, "%s %s %s, profile", c->provider, c->basis ? c->basis : "basis unstated",
                 c->date);
        return c->usd_per_hour;
    }
    for (size_t i = 0; i < sizeof TIERS / sizeof TIERS[0]; i++)
        if (strcmp(hw->id, TIERS[i].id) == 0) {
            *origin = PLAN_PRICE_TIER;
            *cls = PLAN_BASIS_OWNED;
            snprintf(basis, n, "InferenceMAX tier 2026-04");
            return TIERS[i].usd_per_hour;
        }
    *origin = PLAN_PRICE_NONE;
    *cls = want;
    snprintf(basis, n, "no price");
    return 0;
}

double
plan_purchase_price(const struct plan_question *q, const struct hw_profile *hw,
                    enum plan_price_origin *origin, char *basis, size_t n)
{
    const struct plan_price_override *o = override(q, hw->id);
    if (o && o->purchase_per_device > 0) {
        *origin = PLAN_PRICE_QUESTION;
        snprintf(basis, n, "question");
        return o->purchase_per_device;
    }
    int best = -1;
    for (int i = 0; i < hw->n_purchase; i++) {
        if (!(hw->purchase[i].usd > 0))
            continue;
        const char *d = hw->purchase[i].date ? hw->purchase[i].date : "";
        const char *bd = best >= 0 && hw->purchase[best].date ? hw->purchase[best].date : "";
        if (best < 0 || strcmp(d, bd) > 0)
            best = i;
    }
    if (best >= 0) {
        *origin = PLAN_PRICE_PROFILE;
        snprintf(basis, n, "%s %s, profile",
                 hw->purchase[best].basis ? hw->purchase[best].basis : "purchase",
                 hw->purchase[best].date ? hw->purchase[best].date : "undated");
        return hw->purchase[best].usd;
    }
    *origin = PLAN_PRICE_NONE;
    snprintf(basis, n, "no price");
    return 0;
}

double
plan_capital_per_year(double price, double residual, double rate, double life_years)
{
    if (!(life_years > 0))
        return NAN;
    double resale = residual * price;
    if (rate <= 0)
        return (price - resale) / life_years;
    double disc = pow(1.0 + rate, -life_years);
    return (price - resale * disc) * rate / (1.0 - disc);
}

void
plan_tco_device_year(const struct plan_tco *t, double device_price, double tdp_w,
                     int server_devices, struct plan_tco_parts *out)
{
    memset(out, 0, sizeof *out);
    double share = device_price * (1.0 + t->server_overhead);
    int per = server_devices > 0 ? server_devices : 1;
    out->server_share = share;
    out->capital =
        plan_capital_per_year(share, t->residual_fraction, t->cost_of_capital, t->life_years);
    out->maintenance = t->maintenance_per_year * share;
    out->power_w = (tdp_w * t->device_utilisation + t->host_w_per_server / per) * t->pue;
    out->energy = out->power_w / 1000.0 * t->price_per_kwh * PLAN_HOURS_PER_YEAR;
    out->facility = t->facility_per_server_month * 12.0 / per;
    out->total = out->capital + out->maintenance + out->energy + out->facility;
}

double
plan_cost_per_mtok(double cost_per_hour, double tokens_per_s)
{
    if (!(tokens_per_s > 0) || !isfinite(cost_per_hour))
        return NAN;
    return cost_per_hour / (tokens_per_s * 3600.0 / 1e6);
}
