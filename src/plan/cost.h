/* Prices and costs of the planner (docs/plan.md#costs): a device's $/h from the question, the
 * profile or the InferenceMAX tiers; purchase TCO per device-year; fleet power; $/Mtok. Pure
 * functions; no printing. Exposed for the planner and its tests. */
#ifndef ROOFLINE_PLAN_COST_H
#define ROOFLINE_PLAN_COST_H

#include "core/hw.h"
#include "io/question.h"

#include <stddef.h>

/* Hours in a year (365 x 24) and in a month (8760 / 12). */
#define PLAN_HOURS_PER_YEAR 8760.0
#define PLAN_HOURS_PER_MONTH 730.0

/* Devices per server a device is rented or bought by (8 for HGX/OAM boards, 4 for GB200
 * trays, 0 for devices sold singly: PCIe and consumer cards, Apple machines). */
int plan_server_devices(const struct hw_profile *hw);

/* The basis of a profile's cloud entry from its free-text `basis` ("on-demand, 8-GPU instance",
 * "capacity block", "SemiAnalysis cost tier: 3-year neocloud rental, 25% upfront", "neocloud
 * list rental"; NULL or unrecognised: a list rental of unstated commitment). */
enum plan_rent_basis plan_rent_basis_of(const char *basis);
/* Short name ("on-demand", "list", "short-term", "reserved-3y", "owned-tier", "any") and words
 * for the flag ("3-year reserved tier"). */
const char *plan_rent_basis_name(enum plan_rent_basis b);
const char *plan_rent_basis_words(enum plan_rent_basis b);

/* Rental price per device-hour on the question's basis (money.rental_basis): the question's
 * override, else the cheapest dated cloud entry of the profile on the closest basis to the one
 * asked (on-demand: on-demand, list, short-term, reserved-3y; reserved-3y: reserved-3y, list,
 * short-term, on-demand; any: the cheapest entry), else the InferenceMAX owned tier of the
 * device. Writes a basis ("coreweave on-demand 2026-02, profile") to `basis` and the class of
 * the price used to `cls` (may be NULL; a question's price counts as the basis asked). Returns
 * the price, 0 with PLAN_PRICE_NONE when there is none. */
double plan_rent_per_hour(const struct plan_question *q, const struct hw_profile *hw,
                          enum plan_price_origin *origin, enum plan_rent_basis *cls, char *basis,
                          size_t n);
/* Purchase price of one device (its share of a server before the server overhead): the
 * question's override, else the profile's most recent purchase entry. 0 when none. */
double plan_purchase_price(const struct plan_question *q, const struct hw_profile *hw,
                           enum plan_price_origin *origin, char *basis, size_t n);

/* Capital recovery per year of `price` over `life` years at `rate` with a resale value of
 * residual x price at the end: (price - residual x price / (1 + r)^L) x r / (1 - (1 + r)^-L);
 * straight-line (price - residual) / L when r = 0 (the annuity formula, e.g. Brealey-Myers). */
double plan_capital_per_year(double price, double residual, double rate, double life_years);

/* Purchase TCO of one device per year: capital of price x (1 + server overhead), maintenance,
 * power (TDP x utilisation + host watts / devices per server) x PUE x $/kWh x 8760, facility.
 * `server_devices` 0 counts one host per device. */
struct plan_tco_parts {
    double server_share, capital, maintenance, energy, facility, total; /* per year */
    double power_w;                                                     /* at the wall, with PUE */
};
void plan_tco_device_year(const struct plan_tco *t, double device_price, double tdp_w,
                          int server_devices, struct plan_tco_parts *out);

/* Cost per million tokens: cost per hour / (tokens/s x 3600 / 1e6); NaN when tokens/s <= 0. */
double plan_cost_per_mtok(double cost_per_hour, double tokens_per_s);

#endif
