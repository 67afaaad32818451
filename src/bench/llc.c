/* The last-level cache of a cyclic stream: t(W) = (W - h C) / B_dram + h C / B_llc for W > C
 * (a thrash-resistant insertion policy keeps a near-constant h C bytes of a stream larger than
 * the cache: Qureshi et al., ISCA 2007; Jaleel et al., ISCA 2010), fitted to a scan of working
 * sets. docs/bench.md#the-llc-scan */
#include "bench/llc.h"

#include <gsl/gsl_errno.h>
#include <gsl/gsl_fit.h>
#include <math.h>
#include <string.h>

double
bench_llc_stream_s(double w, double retained_bytes, double b_llc, double b_dram)
{
    if (!(retained_bytes > 0) || !(b_llc > 0))
        return w / b_dram;
    double in = w < retained_bytes ? w : retained_bytes;
    return in / b_llc + (w - in) / b_dram;
}

double
bench_llc_bandwidth(double w, double retained_bytes, double b_llc, double b_dram)
{
    if (!(retained_bytes > 0) || !(b_llc > 0) || !(w > 0))
        return b_dram; /* exactly the old roof: no division round trip */
    return w / bench_llc_stream_s(w, retained_bytes, b_llc, b_dram);
}

double
bench_llc_dram_bandwidth(double roof, double array_bytes, double retained_bytes, double b_llc)
{
    if (!(retained_bytes > 0) || !(b_llc > 0) || !(roof > 0) || !(array_bytes > retained_bytes))
        return roof;
    double den = array_bytes / roof - retained_bytes / b_llc;
    double b = den > 0 ? (array_bytes - retained_bytes) / den : 0;
    return b > 0 && isfinite(b) ? b : roof;
}

int
bench_llc_fit(const double *bytes, const double *time_s, int n, double bound_bytes,
              double noise_rel, struct bench_llc_fit *out)
{
    memset(out, 0, sizeof *out);
    if (n < 2 || n > BENCH_LLC_MAX_POINTS || !(noise_rel >= 0) || !isfinite(noise_rel))
        return -1;
    double b_llc = 0;
    for (int i = 0; i < n; i++) {
        if (!(bytes[i] > 0) || !(time_s[i] > 0) || !isfinite(bytes[i]) || !isfinite(time_s[i]) ||
            (i > 0 && !(bytes[i] > bytes[i - 1])))
            return -1;
        if (bytes[i] / time_s[i] > b_llc)
            b_llc = bytes[i] / time_s[i]; /* the cache: the fastest working set */
    }
    double b_last = bytes[n - 1] / time_s[n - 1];
    out->llc_bandwidth_bytes_per_s = b_llc;
    /* the cache: where the rate has fallen three quarters of the way from the cache's to the
     * largest working set's, i.e. past the cliff, and no larger than the cache the OS reports;
     * none when no working set is 10% faster than the largest */
    int c = 0;
    if (b_llc > 1.10 * b_last) {
        double thr = b_last + 0.25 * (b_llc - b_last);
        while (c < n - 1 && (bytes[c] / time_s[c] > thr || bytes[c] / time_s[c] == b_llc) &&
               !(bound_bytes > 0 && bytes[c + 1] > bound_bytes))
            c++;
        out->size_bytes = bytes[c];
    }
    double w[BENCH_LLC_MAX_POINTS];
    int m = n - c;
    for (int i = 0; i < m; i++)
        w[i] = 1.0 / (time_s[c + i] * time_s[c + i]); /* relative errors alike */
    out->n_fit = m;
    if (m < 2)
        return -1;
    double c0, c1, cov00, cov01, cov11, chisq;
    if (gsl_fit_wlinear(bytes + c, 1, w, 1, time_s + c, 1, (size_t)m, &c0, &c1, &cov00, &cov01,
                        &cov11, &chisq) != GSL_SUCCESS ||
        !(c1 > 0) || !isfinite(c0))
        return -1;
    out->dram_bandwidth_bytes_per_s = 1.0 / c1;
    out->intercept_s = c0;
    /* with weights 1 / t^2, cov00 is the intercept's variance at 100% relative error per
     * point: at the host's noise its standard error is noise_rel sqrt(cov00) */
    out->intercept_sigma_s = noise_rel * sqrt(cov00 > 0 ? cov00 : 0);
    double gap = 1.0 / out->dram_bandwidth_bytes_per_s - 1.0 / b_llc;
    if (gap > 0 && out->size_bytes > 0)
        out->resolution_bytes = fmax(2 * out->intercept_sigma_s, 0.02 * time_s[c]) / gap;
    /* retention shortens the pass at C by -c0: counted where that is at least 2% of the pass
     * and twice the intercept's standard error, over the three working sets of 1x, 2x and 4x
     * C the model needs, with a faster cache to retain into */
    if (out->size_bytes > 0 && m >= 3 && gap > 0 && -c0 >= 0.02 * time_s[c] &&
        -c0 > 2 * out->intercept_sigma_s) {
        double r = -c0 / gap;
        out->retained_bytes = r < out->size_bytes ? r : out->size_bytes;
    }
    return 0;
}
