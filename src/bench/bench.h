/* The host benchmark (roofline bench): timer calibration, the cache/DRAM working-set sweep,
 * STREAM, peak FLOP/s per data type, the arithmetic-intensity sweep with its roofline fit, LLM
 * kernels at transformer shapes and a real small transformer's prefill and decode. Everything
 * measured lands in one struct bench_report; printing and files are the CLI's. */
#ifndef ROOFLINE_BENCH_BENCH_H
#define ROOFLINE_BENCH_BENCH_H

#include "bench/fit.h"
#include "bench/harness.h"
#include "bench/host.h"
#include "bench/llc.h"
#include "core/dtype.h"
#include "core/model.h"
#include "util/err.h"

#include <stdbool.h>

#define BENCH_MAX_SWEEP 48
#define BENCH_MAX_STREAM 12
#define BENCH_MAX_PEAKS 16
#define BENCH_MAX_AI 16
#define BENCH_MAX_CASES 48
#define BENCH_DEFAULT_SEED 20240601UL
#define BENCH_DEFAULT_ROUNDS 3 /* round-robin rounds of the LLM cases */

/* Parts of the run (options.parts). */
enum {
    BENCH_PART_SWEEP = 1 << 0,   /* working-set sweep: cache and DRAM plateaus */
    BENCH_PART_STREAM = 1 << 1,  /* STREAM copy/scale/add/triad (+read), 1 and all threads */
    BENCH_PART_PEAK = 1 << 2,    /* FMA peaks fp64, fp32, bf16 */
    BENCH_PART_AI = 1 << 3,      /* arithmetic-intensity sweep and fit */
    BENCH_PART_KERNELS = 1 << 4, /* GEMV, GEMM, decode attention */
    BENCH_PART_MODEL = 1 << 5,   /* the small transformer */
    BENCH_PART_ALL = (1 << 6) - 1,
};

struct bench_options {
    bool quick;
    int threads; /* 0 = every CPU of the affinity mask */
    bool pin;
    unsigned parts;
    const struct mdl_profile *model; /* for BENCH_PART_MODEL; borrowed */
    unsigned long seed;
    /* round-robin rounds over the LLM cases (docs/bench.md#shared-noisy-hosts); 0 = the default,
     * BENCH_DEFAULT_ROUNDS; at most BENCH_MAX_ROUNDS */
    int rounds;
    /* progress: `stage` ("memory", "compute", ...), `what` one line, done of total steps */
    void (*progress)(void *user, const char *stage, const char *what, int done, int total);
    void *progress_user;
};

enum bench_case_kind {
    BENCH_CASE_STREAM,
    BENCH_CASE_GEMV,
    BENCH_CASE_GEMM,
    BENCH_CASE_ATTN,
    BENCH_CASE_MODEL
};
enum bench_phase { BENCH_PHASE_KERNEL, BENCH_PHASE_PREFILL, BENCH_PHASE_DECODE };

/* One timed case that validate predicts: FLOPs and bytes per repetition are data. */
struct bench_case {
    char id[96];
    enum bench_case_kind kind;
    enum bench_phase phase;
    int threads;
    /* GEMV/GEMM: [rows x inner] x [inner x cols], `copies` distinct weight matrices per
     * repetition (their sum exceeds the last-level cache, as a model's layers do); attention:
     * `copies` KV caches of `context` tokens, heads/kv_heads/head_dim; model: prompt or
     * context */
    long rows, cols, inner, copies;
    long heads, kv_heads, head_dim;
    long prompt, context;
    double flops, bytes;
    struct bench_measure meas;
    /* the all-thread weight stream's best rate in a short probe just before this case was timed
     * (bytes/s; 0 = none): what the DRAM roof was beside it on a shared host. With round-robin
     * rounds, the probe of the round of the median sample (the mean of two rounds' probes when
     * the middle samples come from two) */
    double probe_bandwidth_bytes_per_s;
    /* the rounds the case was measured in: each round's probe, each sample's round (rr.rounds
     * = 0: not measured in rounds) */
    struct bench_rounds_log rr;
    /* fork-joins of the thread pool per repetition (kernels run on more than one thread);
     * validate --host charges each the measured round trip (roofs.launch_s) */
    double launches;
    /* the calibration GEMM: sets the profile's gemm_efficiency; validate --host does not score
     * it (it would predict itself) */
    bool calibration;
};

struct bench_sweep_point {
    double bytes_per_thread;
    int threads;
    double bytes; /* per repetition, all threads */
    struct bench_measure meas;
};

/* A plateau of the working-set sweep: the median bandwidth of the points inside [lo, hi]. */
struct bench_level {
    char name[8];              /* l1, l2, l3, dram */
    double size_bytes;         /* cache size per instance from the OS (0 for dram) */
    double lo_bytes, hi_bytes; /* per-thread working sets used */
    double bandwidth_bytes_per_s;
    int n_points;
};

struct bench_stream {
    char kernel[8]; /* copy, scale, add, triad, read, weights (the decode's GEMV stream) */
    int threads;
    double array_bytes;
    double bytes, flops; /* per repetition */
    struct bench_measure meas;
};

struct bench_peak {
    enum dtype dt;
    int threads;
    int round;    /* 1 at the start of the run, 2 at its end (the roof is the best of both) */
    double flops; /* per repetition */
    struct bench_measure meas;
};

struct bench_ai_point {
    int fmas;
    double intensity_flop_per_byte;
    double flops, bytes; /* per repetition */
    struct bench_measure meas;
};

/* The roofs the measurements establish: what a host hardware profile holds. Rates are the best
 * sample (STREAM and ERT report the best rate as the attainable ceiling). */
struct bench_roofs {
    double dram_bandwidth_bytes_per_s; /* the read kernel, all threads, >= 4x LLC */
    char dram_kernel[8]; /* which one: weights, else read, else the best of the others */
    double triad_bandwidth_bytes_per_s;    /* STREAM triad, all threads (STREAM's headline) */
    double peak_flops_per_s[DT_COUNT];     /* all threads; 0 = not measured */
    double cache_bandwidth_bytes_per_s[4]; /* l1, l2, l3, llc plateaus (all threads) */
    double cache_bytes[4];                 /* per instance, from the OS */
    /* median rate of the calibration GEMM over the best fp32 peak, (0, 1]; 0 = not measured */
    double gemm_efficiency;
    /* best all-thread fp32 FMA peak over the best one-thread peak; 0 = not measured */
    double fp32_thread_scaling;
    /* the bandwidth probes beside the cases (each case's and each of its rounds'): fastest and
     * slowest (bytes/s) and the drift max / min - 1; 0 = fewer than two probes */
    double probe_max_bytes_per_s, probe_min_bytes_per_s, probe_drift;
    /* the pool's fork-join round trip on all threads: an empty parallel kernel, best sample
     * (seconds); 0 = not measured or one thread */
    double launch_s;
    /* the last-level cache a cyclic stream sees: bench_llc_fit over the LLC scan (its size C,
     * the bytes h C of each pass beyond it that it retains, its rate, the fit's DRAM rate, the
     * points at W >= C it used, its resolution); all 0 = not measured. Where h C > 0,
     * dram_bandwidth_bytes_per_s is the roof corrected to B_dram (bench_llc_dram_bandwidth on
     * the roof kernel's array) and dram_roof_bytes_per_s the roof as measured */
    struct bench_llc_fit llc;
    double dram_roof_bytes_per_s, dram_roof_array_bytes;
};

/* One working set of the LLC scan: cyclic passes of the weight stream over the first
 * `matrices` matrices of one stack, `bytes` per pass. */
struct bench_llc_point {
    double bytes;
    long matrices;
    struct bench_measure meas;
};

struct bench_report {
    struct bench_options opt;
    char date[32]; /* UTC, ISO 8601 */
    char version[32];
    struct bench_host host;
    struct bench_timer timer;
    char isa[16], isa_target[64];
    char gemm_impl[128];
    int threads, pinned;
    double array_bytes;  /* STREAM array size */
    bool array_rule_met; /* array_bytes >= 4 x LLC */
    struct bench_sweep_point sweep[BENCH_MAX_SWEEP];
    int n_sweep;
    struct bench_level levels[4];
    int n_levels;
    struct bench_stream stream[BENCH_MAX_STREAM];
    int n_stream;
    struct bench_peak peaks[BENCH_MAX_PEAKS];
    int n_peaks;
    struct bench_ai_point ai[BENCH_MAX_AI];
    int n_ai;
    double ai_array_bytes;
    struct bench_roof_fit fit;
    bool have_fit;
    struct bench_case cases[BENCH_MAX_CASES];
    int n_cases;
    int rounds; /* round-robin rounds over the LLM cases; 0 = none were measured */
    /* the fork-join round trip (an empty kernel on all threads), per repetition; n_samples = 0
     * when not measured (one thread, or no kernels or model) */
    struct bench_measure launch;
    /* the overlap of core time and DRAM stream (docs/bench.md#core-time-and-the-stream): the
     * probe's stack of weight matrices streamed by `overlap_rows` rows and by one row, on all
     * threads, one job per matrix; bytes of the stack and FLOPs of one row per repetition.
     * overlap_rows = 0 when not measured */
    long overlap_rows;
    double overlap_bytes, overlap_flops_row;
    struct bench_measure overlap_gemv, overlap_gemm;
    /* decode attention's core rate: one token over a KV cache of 256 positions per KV head that
     * stays in L2, all threads; bytes of keys and values per repetition (0 = not measured) */
    double attn_core_bytes;
    struct bench_measure attn_core;
    /* the LLC scan (docs/bench.md#the-llc-scan),
     * ascending working sets; n_llc = 0 when not measured */
    struct bench_llc_point llc[BENCH_LLC_MAX_POINTS];
    int n_llc;
    char model_id[48];
    double model_params;
    struct bench_roofs roofs;
    double checksum; /* every kernel's output folded in: results are consumed */
    int validation_failures;
    char validation[256]; /* "ok" or the first failed check */
    double elapsed_s;
};

void bench_options_init(struct bench_options *o);
/* Run the parts asked for. Returns 0 with the report filled, or -1 with a message in errs
 * (allocation, threads, the model cannot be built). A failed result check is not a failure of
 * the run: it is counted in validation_failures. */
int bench_run(const struct bench_options *o, struct bench_report *r, struct err_list *errs);
/* Fill r->roofs from the measurements (bench_run does this at the end). */
void bench_derive_roofs(struct bench_report *r);
/* bench_llc_fit over the report's LLC scan: best times, the OS's LLC as the bound, and the
 * noise the root mean square of (t - best) / best over every sample. -1 without a scan. */
int bench_llc_fit_report(const struct bench_report *r, struct bench_llc_fit *out);
/* Only the probe figures of r->roofs, from the cases' probes and their rounds' (for a report
 * read back). */
void bench_derive_probes(struct bench_report *r);
/* A warning about the run for stderr, or NULL: the threads reached less than 75% of
 * threads x one thread's FMA peak, so they share physical cores (SMT siblings, or a VM's vCPUs
 * scheduled on one core) and the compute roofs are those of fewer cores. */
const char *bench_roofs_warning(const struct bench_report *r, char *buf, size_t n);

/* The DRAM roof moved by more than 10% during the run (the probes beside the cases disagree):
 * a warning for stderr, or NULL. */
const char *bench_drift_warning(const struct bench_report *r, char *buf, size_t n);
/* The DRAM roof a case ran against: `roof` x its probe / the fastest probe of the run (the roof
 * is the best rate, measured when the memory was least shared); `roof` without probes. */
double bench_case_bandwidth(const struct bench_report *r, const struct bench_case *c, double roof);

/* Rates from a measurement: work per repetition over the best (min) or median time. */
double bench_rate_best(double work, const struct bench_measure *m);
double bench_rate_median(double work, const struct bench_measure *m);

const char *bench_case_kind_name(enum bench_case_kind k);
const char *bench_phase_name(enum bench_phase p);
int bench_case_kind_parse(const char *s, enum bench_case_kind *out);
int bench_phase_parse(const char *s, enum bench_phase *out);

/* Plateaus of a working-set sweep (sizes per thread, ascending), given the cache sizes per
 * instance (0 = unknown): a cache level's plateau is the median of the points between twice
 * the previous level and half its own size; DRAM's is the median of the points whose bandwidth
 * is within 10% of the largest working set's. Returns the number of levels written (<= 4). */
int bench_levels_from_sweep(const struct bench_sweep_point *pts, int n, const double cache[3],
                            struct bench_level out[4]);

#endif
