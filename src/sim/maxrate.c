/* --max-rate: the highest Poisson arrival rate whose SLO attainment stays at or above a
 * target, by bracketing and bisection over the rate. Every probe uses the same seed: the
 * exponential draws are the same uniforms scaled by 1/rate, and lengths come from their own
 * stream, so probes differ only by the rate (common random numbers). */
#include "sim/sim.h"

#include <math.h>
#include <string.h>

static int
probe(const struct sim_config *base, double rate, double target, struct sim_maxrate *out,
      struct err_list *errs, bool *meets)
{
    struct sim_config c = *base;
    c.work.process = SIM_POISSON;
    c.work.rate_per_s = rate;
    struct sim_result r;
    if (sim_run(&c, &r, errs) != 0)
        return -1;
    *meets = r.slo_attainment >= target;
    if (out->n_probes < SIM_MAX_PROBES) {
        struct sim_probe *p = &out->probes[out->n_probes++];
        p->rate_per_s = rate;
        p->slo_attainment = r.slo_attainment;
        p->goodput_req_per_s = r.goodput_req_per_s;
        p->ttft_p99_s = r.ttft.p99;
        p->tpot_p99_s = r.tpot.p99;
        p->e2e_p99_s = r.e2e.p99;
        p->meets = *meets;
    }
    if (*meets && rate > out->rate_per_s) {
        out->rate_per_s = rate;
        out->slo_attainment = r.slo_attainment;
    }
    sim_result_release(&r);
    return 0;
}

int
sim_max_rate(const struct sim_config *cfg, double target, double rel_tol, struct sim_maxrate *out,
             struct err_list *errs)
{
    memset(out, 0, sizeof *out);
    out->target = target;
    out->rel_tol = rel_tol > 0 ? rel_tol : 0.01;
    const struct sim_slo *slo = &cfg->slo;
    if (!(slo->ttft_s > 0 || slo->itl_s > 0 || slo->e2e_s > 0)) {
        err_add(errs, NULL, 0, 0, ERR_ERROR, "--max-rate needs at least one SLO bound");
        return -1;
    }
    if (!(target > 0 && target <= 1)) {
        err_add(errs, NULL, 0, 0, ERR_ERROR, "the attainment target must be in (0, 1]");
        return -1;
    }
    struct sim_config c = *cfg;
    c.work.process = SIM_POISSON;
    c.discard_requests = true; /* a probe needs the summary only */
    c.on_request = NULL;
    if (c.work.requests <= 0 && !(c.work.duration_s > 0))
        c.work.requests = cfg->work.trace ? cfg->work.trace->n : 1000;
    if (c.work.prompt.kind == SIM_DIST_TRACE || c.work.output.kind == SIM_DIST_TRACE)
        c.work.trace = cfg->work.trace;
    /* start from the analytic capacity */
    c.work.rate_per_s = 1.0;
    struct sim_analytic a;
    double r0 = 1.0;
    if (sim_analytic(&c, &a) == 0 && a.capacity_req_per_s > 0 && isfinite(a.capacity_req_per_s))
        r0 = 0.8 * a.capacity_req_per_s;
    double lo = 0, hi = 0;
    bool ok;
    if (probe(&c, r0, target, out, errs, &ok) != 0)
        return -1;
    if (ok) {
        lo = r0;
        for (int i = 0; i < 20; i++) {
            double r = lo * 2.0;
            if (probe(&c, r, target, out, errs, &ok) != 0)
                return -1;
            if (!ok) {
                hi = r;
                break;
            }
            lo = r;
        }
        if (hi == 0)
            return 0; /* passes at every rate tried (2^20 x the estimate) */
    } else {
        hi = r0;
        for (int i = 0; i < 30; i++) {
            double r = hi / 2.0;
            if (probe(&c, r, target, out, errs, &ok) != 0)
                return -1;
            if (ok) {
                lo = r;
                break;
            }
            hi = r;
        }
        if (lo == 0)
            return 0; /* fails even at 2^-30 x the estimate: unattainable */
    }
    for (int i = 0; i < 40 && (hi - lo) > out->rel_tol * lo; i++) {
        double mid = 0.5 * (lo + hi);
        if (probe(&c, mid, target, out, errs, &ok) != 0)
            return -1;
        if (ok)
            lo = mid;
        else
            hi = mid;
    }
    return 0;
}
