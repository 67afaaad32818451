/* The roofs derived from a run's measurements: the cache levels read off the working-set sweep,
 * the DRAM and compute roofs, the calibration GEMM's efficiency, the bandwidth probes' drift and
 * the warnings about them. Pure functions over a filled bench_report (no timing), so a report
 * read back from JSON derives the same roofs as the run that measured it. */
#include "bench/bench.h"
#include "bench/harness.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

static double
median_of(double *x, int n)
{
    return bench_quantile(x, n, 0.5);
}

int
bench_levels_from_sweep(const struct bench_sweep_point *pts, int n, const double cache[3],
                        struct bench_level out[4])
{
    if (n < 1)
        return 0;
    double bw[BENCH_MAX_SWEEP], sel[BENCH_MAX_SWEEP];
    if (n > BENCH_MAX_SWEEP)
        n = BENCH_MAX_SWEEP;
    for (int i = 0; i < n; i++)
        bw[i] = bench_rate_median(pts[i].bytes, &pts[i].meas);
    /* DRAM: the run of largest working sets within 10% of the largest one's bandwidth */
    int d0 = n - 1;
    while (d0 > 0 && fabs(bw[d0 - 1] / bw[n - 1] - 1) <= 0.10)
        d0--;
    int k = 0, prev = -1;
    static const char *const NAMES[3] = {"l1", "l2", "l3"};
    for (int l = 0; l < 3; l++) {
        if (!(cache[l] > 0))
            continue;
        double lo = prev >= 0 ? 2 * cache[prev] : 0, hi = cache[l] / 2;
        if (hi > pts[d0].bytes_per_thread / 2)
            hi = pts[d0].bytes_per_thread / 2;
        double mx = 0;
        for (int i = 0; i < d0; i++)
            if (pts[i].bytes_per_thread >= lo && pts[i].bytes_per_thread <= hi && bw[i] > mx)
                mx = bw[i];
        int m = 0;
        double first = 0, last = 0;
        for (int i = 0; i < d0; i++)
            if (pts[i].bytes_per_thread >= lo && pts[i].bytes_per_thread <= hi &&
                bw[i] >= 0.85 * mx) {
                if (m == 0)
                    first = pts[i].bytes_per_thread;
                last = pts[i].bytes_per_thread;
                sel[m++] = bw[i];
            }
        prev = l;
        if (m == 0)
            continue;
        struct bench_level *L = &out[k++];
        memset(L, 0, sizeof *L);
        snprintf(L->name, sizeof L->name, "%s", NAMES[l]);
        L->size_bytes = cache[l];
        L->lo_bytes = first;
        L->hi_bytes = last;
        L->bandwidth_bytes_per_s = median_of(sel, m);
        L->n_points = m;
    }
    struct bench_level *D = &out[k++];
    memset(D, 0, sizeof *D);
    snprintf(D->name, sizeof D->name, "dram");
    D->lo_bytes = pts[d0].bytes_per_thread;
    D->hi_bytes = pts[n - 1].bytes_per_thread;
    int m = 0;
    for (int i = d0; i < n; i++)
        sel[m++] = bw[i];
    D->bandwidth_bytes_per_s = median_of(sel, m);
    D->n_points = m;
    return k;
}

const char *
bench_roofs_warning(const struct bench_report *r, char *buf, size_t n)
{
    double x = r->roofs.fp32_thread_scaling;
    if (r->threads < 2 || !(x > 0) || x >= 0.75 * r->threads)
        return NULL;
    snprintf(buf, n,
             "%d threads reached only %.2f times one thread's fp32 FMA peak: they share "
             "physical cores (SMT siblings, or a VM's vCPUs scheduled on one core), so this "
             "run's compute roofs are those of fewer cores; measure again, or pass --threads",
             r->threads, x);
    return buf;
}

const char *
bench_drift_warning(const struct bench_report *r, char *buf, size_t n)
{
    const struct bench_roofs *R = &r->roofs;
    if (!(R->probe_drift > 0.10))
        return NULL;
    snprintf(buf, n,
             "the DRAM roof moved by %.0f%% during the run (bandwidth probes beside the cases: "
             "%.1f to %.1f GB/s): memory was shared with other jobs; each case is predicted from "
             "the probe beside it",
             R->probe_drift * 100, R->probe_min_bytes_per_s / 1e9, R->probe_max_bytes_per_s / 1e9);
    return buf;
}

double
bench_case_bandwidth(const struct bench_report *r, const struct bench_case *c, double roof)
{
    double top = r->roofs.probe_max_bytes_per_s, p = c->probe_bandwidth_bytes_per_s;
    return top > 0 && p > 0 ? roof * p / top : roof;
}

int
bench_llc_fit_report(const struct bench_report *r, struct bench_llc_fit *out)
{
    double w[BENCH_LLC_MAX_POINTS], t[BENCH_LLC_MAX_POINTS], sum = 0;
    int n = r->n_llc < BENCH_LLC_MAX_POINTS ? r->n_llc : BENCH_LLC_MAX_POINTS, k = 0;
    for (int i = 0; i < n; i++) {
        const struct bench_measure *m = &r->llc[i].meas;
        w[i] = r->llc[i].bytes;
        t[i] = m->s.min;
        for (int j = 0; j < m->n_samples && m->s.min > 0; j++, k++)
            sum +=
                (m->samples_s[j] - m->s.min) * (m->samples_s[j] - m->s.min) / (m->s.min * m->s.min);
    }
    return bench_llc_fit(w, t, n, r->host.llc_bytes, k > 0 ? sqrt(sum / k) : 0, out);
}

void
bench_derive_roofs(struct bench_report *r)
{
    struct bench_roofs *R = &r->roofs;
    memset(R, 0, sizeof *R);
    /* the DRAM roof: what an LLM streams from DRAM is reads (weights, KV cache), so the best
     * all-thread rate of the weight stream (the decode's own pattern), else of the read-only
     * kernel, at >= 4x LLC. Kernels that store are counted as STREAM counts them, without
     * write-allocate traffic, and a mix of reads and write-backs can beat pure reads when the
     * cores' outstanding misses are the limit, so their rates are not a read roof; they are
     * the roof only when nothing reads alone. */
    static const char *const PREF[2] = {"weights", "read"};
    int pick = 2;
    for (int i = 0; i < r->n_stream; i++)
        for (int p = 0; p < pick; p++)
            if (r->stream[i].threads == r->threads && strcmp(r->stream[i].kernel, PREF[p]) == 0)
                pick = p;
    for (int i = 0; i < r->n_stream; i++) {
        const struct bench_stream *s = &r->stream[i];
        double bw = bench_rate_best(s->bytes, &s->meas);
        if (s->threads != r->threads)
            continue;
        if (strcmp(s->kernel, "triad") == 0)
            R->triad_bandwidth_bytes_per_s = bw;
        if (pick < 2 && strcmp(s->kernel, PREF[pick]) != 0)
            continue;
        if (bw > R->dram_bandwidth_bytes_per_s) {
            R->dram_bandwidth_bytes_per_s = bw;
            R->dram_roof_array_bytes = s->array_bytes;
            snprintf(R->dram_kernel, sizeof R->dram_kernel, "%s", s->kernel);
        }
    }
    /* the LLC the stream sees; where it retains part of a pass, the roof measured on an
     * array A within a few times its size is partly cache: B_dram = (A - h C) / (A / roof -
     * h C / B_llc) (docs/bench.md#the-llc-scan) */
    R->dram_roof_bytes_per_s = R->dram_bandwidth_bytes_per_s;
    if (r->n_llc >= 2) {
        bench_llc_fit_report(r, &R->llc);
        R->dram_bandwidth_bytes_per_s =
            bench_llc_dram_bandwidth(R->dram_roof_bytes_per_s, R->dram_roof_array_bytes,
                                     R->llc.retained_bytes, R->llc.llc_bandwidth_bytes_per_s);
    }
    double fp32_one = 0;
    for (int i = 0; i < r->n_peaks; i++) {
        double v = bench_rate_best(r->peaks[i].flops, &r->peaks[i].meas);
        if (r->peaks[i].threads == r->threads && v > R->peak_flops_per_s[r->peaks[i].dt])
            R->peak_flops_per_s[r->peaks[i].dt] = v;
        if (r->peaks[i].threads == 1 && r->peaks[i].dt == DT_FP32 && v > fp32_one)
            fp32_one = v;
    }
    if (fp32_one > 0 && R->peak_flops_per_s[DT_FP32] > 0)
        R->fp32_thread_scaling = R->peak_flops_per_s[DT_FP32] / fp32_one;
    double fp32 = R->peak_flops_per_s[DT_FP32];
    for (int i = 0; i < r->n_cases; i++)
        if (r->cases[i].calibration && fp32 > 0) {
            double e = bench_rate_median(r->cases[i].flops, &r->cases[i].meas) / fp32;
            if (e > 0 && isfinite(e) && (e > 1 ? 1 : e) > R->gemm_efficiency)
                R->gemm_efficiency = e > 1 ? 1 : e;
        }
    for (int i = 0; i < r->n_levels; i++) {
        int l = strcmp(r->levels[i].name, "l1") == 0   ? 0
                : strcmp(r->levels[i].name, "l2") == 0 ? 1
                : strcmp(r->levels[i].name, "l3") == 0 ? 2
                                                       : -1;
        if (l >= 0)
            R->cache_bandwidth_bytes_per_s[l] = r->levels[i].bandwidth_bytes_per_s;
    }
    for (int l = 0; l < 3; l++)
        R->cache_bytes[l] = bench_host_cache(&r->host, l + 1);
    /* the fork-join round trip: its best sample, as the roofs are best samples (a lower bound
     * of what each parallel kernel pays) */
    if (r->launch.n_samples > 0 && r->launch.s.min > 0 && isfinite(r->launch.s.min))
        R->launch_s = r->launch.s.min;
    bench_derive_probes(r);
}

void
bench_derive_probes(struct bench_report *r)
{
    struct bench_roofs *R = &r->roofs;
    R->probe_max_bytes_per_s = R->probe_min_bytes_per_s = R->probe_drift = 0;
    int probes = 0;
    /* every probe of the run: each case's, and each of its rounds' (round-robin rounds) */
    for (int i = 0; i < r->n_cases; i++)
        for (int q = -1; q < BENCH_MAX_ROUNDS; q++) {
            double p = q < 0 ? r->cases[i].probe_bandwidth_bytes_per_s : r->cases[i].rr.probe[q];
            if (!(p > 0) || !isfinite(p))
                continue;
            probes++;
            if (p > R->probe_max_bytes_per_s)
                R->probe_max_bytes_per_s = p;
            if (R->probe_min_bytes_per_s == 0 || p < R->probe_min_bytes_per_s)
                R->probe_min_bytes_per_s = p;
        }
    if (probes >= 2)
        R->probe_drift = R->probe_max_bytes_per_s / R->probe_min_bytes_per_s - 1;
}
