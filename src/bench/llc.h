/* The last-level cache as a cyclic stream sees it (docs/bench.md#the-llc-scan): a pass over W
 * bytes larger than the cache C reads the h C bytes the cache retained at the cache's rate and
 * the rest from DRAM. Pure functions: the fit of a scan of working sets, the time of a pass, and
 * the DRAM rate behind a roof measured on an array that the cache partly holds. No timing, no
 * printing. */
#ifndef ROOFLINE_BENCH_LLC_H
#define ROOFLINE_BENCH_LLC_H

#define BENCH_LLC_MAX_POINTS 16

struct bench_llc_fit {
    /* the cache the stream sees: the smallest scanned working set whose rate fell three
     * quarters of the way from the cache's rate (the fastest working set's) to the largest
     * working set's; 0 = the stream sees no cache (no working set runs 10% faster than the
     * largest one) */
    double size_bytes;
    /* h C: the bytes of each pass over W > C that come from the cache; 0 = none measured */
    double retained_bytes;
    double llc_bandwidth_bytes_per_s;  /* B_llc: the fastest working set's rate */
    double dram_bandwidth_bytes_per_s; /* B_dram of the fit: 1 / slope of t(W) over W >= C */
    double intercept_s;                /* the fit's t(0): -h C (1 / B_dram - 1 / B_llc) */
    double intercept_sigma_s;          /* its standard error at the host's noise */
    /* the least h C the fit would have counted: max(2 sigma, 2% of the pass at C) / (1 / B_dram
     * - 1 / B_llc); "none retained" means less than this (0 = the fit cannot say) */
    double resolution_bytes;
    int n_fit; /* points with W >= C in the fit */
};

/* Fit a scan of n cyclic passes (ascending bytes[i], best time per pass time_s[i], 2 <= n <=
 * BENCH_LLC_MAX_POINTS, all positive). B_llc is the fastest pass's rate; C the first working
 * set past the cliff (above), at most the largest one within `bound_bytes` (the LLC the OS
 * reports; 0 = no bound). Over the points with W >= C, GSL's weighted linear least squares
 * (gsl_fit_wlinear, weights 1 / t^2: relative errors) of t = W / B_dram + c0 gives B_dram and,
 * where the fit has at least three points (1x, 2x, 4x C), B_llc > B_dram and c0 < 0 by at least
 * 2% of the pass at C and by more than twice its standard error at the relative noise
 * `noise_rel` of a time (>= 0), h C = -c0 / (1 / B_dram - 1 / B_llc), at most C. Returns 0, or
 * -1 on bad input or when the points cannot say (fewer than two at W >= C, a non-positive
 * slope); retained_bytes is 0 unless retention was measured. */
int bench_llc_fit(const double *bytes, const double *time_s, int n, double bound_bytes,
                  double noise_rel, struct bench_llc_fit *out);

/* Time of one cyclic pass over w bytes: min(w, R) / B_llc + max(w - R, 0) / B_dram with R =
 * retained bytes; w / B_dram when retained <= 0 or b_llc <= 0 (seconds). */
double bench_llc_stream_s(double w, double retained_bytes, double b_llc, double b_dram);

/* The rate a stream of w bytes gets: w / bench_llc_stream_s; exactly b_dram without retention. */
double bench_llc_bandwidth(double w, double retained_bytes, double b_llc, double b_dram);

/* B_dram behind a roof `roof` (bytes/s) measured as cyclic passes over `array_bytes`, of which
 * the cache retained R bytes at b_llc: (A - R) / (A / roof - R / b_llc). `roof` itself without
 * retention or where the figures cannot say (A <= R, a non-positive denominator). */
double bench_llc_dram_bandwidth(double roof, double array_bytes, double retained_bytes,
                                double b_llc);

#endif
