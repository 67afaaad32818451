/* roofline bench: measure this host's roofs (caches, DRAM, FLOP/s per type, intensity sweep)
 * and LLM kernels, print them, and optionally write a hardware profile and chart points.
 * The measuring is src/bench/; this file prints and writes files. */
#include "bench/bench.h"
#include "bench/predict.h"
#include "bench/report.h"
#include "cli/cli.h"
#include "cli/out.h"
#include "io/profiles.h"
#include "util/afile.h"
#include "util/array.h"
#include "util/units.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static const struct cli_opt OPTS[] = {
    OPT_FLAG("quick", "fewer and shorter samples (about a minute)"),
    OPT_VALUE("threads", "N", "worker threads (default: one per core)"),
    OPT_VALUE("write-profile", "FILE", "write a hardware profile of this host (YAML)"),
    OPT_VALUE("points", "FILE", "write the measured points for chart roofline --measured (JSON)"),
    OPT_VALUE("model", "ID|PATH", "the model of the LLM kernels (default bench-small)"),
    OPT_VALUE("parts", "LIST", "sweep,stream,peak,intensity,kernels,model (default all)"),
    OPT_FLAG("no-pin", "do not pin threads to cores"),
    OPT_VALUE("rounds", "N", "round-robin rounds over the LLM cases, 1 to 8 (default 3)"),
    OPT_VALUE("output", "table|json", "output format (-o; default table)"),
};

static int run(int argc, char **argv);

const struct cli_cmd cmd_bench = {
    "bench", "measure this host's roofs and LLM kernels (hierarchical roofline, STREAM, ERT)",
    "roofline bench [options]", run, CLI_OPTS(OPTS)};

/* --parts sweep,stream,peak,intensity,kernels,model (default: all) */
static int
parse_parts(const char *s, unsigned *out)
{
    static const struct {
        const char *name;
        unsigned bit;
    } P[] = {{"sweep", BENCH_PART_SWEEP},     {"stream", BENCH_PART_STREAM},
             {"peak", BENCH_PART_PEAK},       {"intensity", BENCH_PART_AI},
             {"kernels", BENCH_PART_KERNELS}, {"model", BENCH_PART_MODEL}};
    *out = 0;
    while (*s) {
        size_t n = strcspn(s, ",");
        bool found = false;
        for (size_t i = 0; i < ARRAY_SIZE(P); i++)
            if (strlen(P[i].name) == n && strncmp(s, P[i].name, n) == 0) {
                *out |= P[i].bit;
                found = true;
            }
        if (!found) {
            fprintf(stderr,
                    "error: --parts: unknown part '%.*s' (sweep, stream, peak, intensity, "
                    "kernels, model)\n",
                    (int)n, s);
            return -1;
        }
        s += n;
        if (*s == ',')
            s++;
    }
    return *out ? 0 : -1;
}

static void
progress(void *user, const char *stage, const char *what, int done, int total)
{
    const double *t0 = user;
    fprintf(stderr, "[%2d/%d %6.1fs] %s: %s\n", done, total, bench_now_s() - *t0, stage, what);
}

/* Write the buffer to path atomically (util/afile.h); `verify` (may be NULL) checks the
 * temporary file before the rename. Prints what went wrong. */
static int
write_atomic(const char *path, const struct strbuf *sb, int (*verify)(const char *tmp))
{
    struct err_list errs = {0};
    struct afile af;
    int rc = afile_open(&af, path, &errs);
    if (rc == 0 && (fwrite(sb->buf, 1, sb->len, af.fp) != sb->len || fflush(af.fp) != 0)) {
        err_add(&errs, path, 0, 0, ERR_ERROR, "cannot write '%s': %s", path, strerror(errno));
        rc = -1;
    }
    if (rc == 0 && verify && af.tmp && verify(af.tmp) != 0)
        rc = -1;
    if (rc == 0)
        rc = afile_commit(&af, &errs);
    else
        afile_rollback(&af);
    cli_print_errs(&errs);
    err_list_release(&errs);
    return rc;
}

static int
verify_profile(const char *tmp)
{
    struct err_list errs = {0};
    struct hw_profile *hw = hw_load(tmp, &errs);
    if (!hw) {
        fprintf(stderr, "error: the written profile does not load back:\n");
        cli_print_errs(&errs);
    }
    err_list_release(&errs);
    hw_free(hw);
    return hw ? 0 : -1;
}

static const struct out_field MEM_FIELDS[] = {
    {"kernel", NULL, OUT_SHOW_TEXT, 0, false},
    {"threads", NULL, OUT_SHOW_NUM, 0, false},
    {"best", "best", OUT_SHOW_BW, 0, false},
    {"median", "median", OUT_SHOW_BW, 0, false},
    {"time_min_s", "t min", OUT_SHOW_TIME, 0, false},
    {"time_median_s", "t median", OUT_SHOW_TIME, 0, false},
    {"time_max_s", "t max", OUT_SHOW_TIME, 0, false},
};
static const struct out_field LEVEL_FIELDS[] = {
    {"level", NULL, OUT_SHOW_TEXT, 0, false},
    {"cache_per_thread", "size/thread", OUT_SHOW_BYTES, 0, false},
    {"from", "from", OUT_SHOW_BYTES, 0, false},
    {"to", "to", OUT_SHOW_BYTES, 0, false},
    {"points", NULL, OUT_SHOW_NUM, 0, false},
    {"bandwidth", NULL, OUT_SHOW_BW, 0, false},
};
static const struct out_field PEAK_FIELDS[] = {
    {"dtype", NULL, OUT_SHOW_TEXT, 0, false},  {"threads", NULL, OUT_SHOW_NUM, 0, false},
    {"round", NULL, OUT_SHOW_NUM, 0, false},   {"best", NULL, OUT_SHOW_RATE, 0, false},
    {"median", NULL, OUT_SHOW_RATE, 0, false}, {"spread", "max/min t", OUT_SHOW_NUM, 3, false},
};
static const struct out_field AI_FIELDS[] = {
    {"intensity", "FLOP/B", OUT_SHOW_NUM, 4, false},
    {"fmas", "FMA/elem", OUT_SHOW_NUM, 0, false},
    {"best", NULL, OUT_SHOW_RATE, 0, false},
    {"median", NULL, OUT_SHOW_RATE, 0, false},
    {"fit", "fitted", OUT_SHOW_RATE, 0, false},
    {"residual", "resid %", OUT_SHOW_NUM, 1, false},
};
static const struct out_field CASE_FIELDS[] = {
    {"id", NULL, OUT_SHOW_TEXT, 0, false},         {"phase", NULL, OUT_SHOW_TEXT, 0, false},
    {"flops", "FLOPs", OUT_SHOW_FLOPS, 0, false},  {"bytes", NULL, OUT_SHOW_BYTES, 0, false},
    {"time", "t median", OUT_SHOW_TIME, 0, false}, {"spread", "max/min t", OUT_SHOW_NUM, 3, false},
    {"rate", "FLOP/s", OUT_SHOW_RATE, 0, false},   {"bandwidth", "bytes/s", OUT_SHOW_BW, 0, false},
};
#define NF(a) ((int)(ARRAY_SIZE(a)))

static double
spread(const struct bench_measure *m)
{
    return m->s.min > 0 ? m->s.max / m->s.min : NAN;
}

static void
print_table(const struct bench_report *r)
{
    char a[64], b[64];
    printf("roofline bench (%s): %s, %d thread%s (%d pinned), %s kernels, %s\n",
           r->opt.quick ? "quick" : "full", r->host.cpu_model, r->threads,
           r->threads > 1 ? "s" : "", r->pinned, r->isa, r->host.compiler);
    unit_format_time(r->timer.tick_s, 3, a, sizeof a);
    unit_format_time(r->timer.min_sample_s, 3, b, sizeof b);
    printf("timer: CLOCK_MONOTONIC, tick %s, samples >= %s (>= %d ticks); date %s\n\n", a, b,
           BENCH_MIN_TICKS, r->date);
    if (r->n_sweep > 0) {
        struct out_table *t = out_table_new(
            OUT_TABLE,
            "memory hierarchy (read-kernel working-set sweep, plateau medians):", LEVEL_FIELDS,
            NF(LEVEL_FIELDS));
        for (int i = 0; i < r->n_levels; i++) {
            const struct bench_level *L = &r->levels[i];
            struct out_value v[] = {
                {L->name, 0},        {NULL, L->size_bytes > 0 ? L->size_bytes : NAN},
                {NULL, L->lo_bytes}, {NULL, L->hi_bytes},
                {NULL, L->n_points}, {NULL, L->bandwidth_bytes_per_s}};
            out_table_row(t, v);
        }
        out_table_end(t, stdout, 0);
        printf("\n");
    }
    if (r->n_stream > 0) {
        char title[256];
        unit_format(r->array_bytes, "B", 3, a, sizeof a);
        unit_format(r->host.llc_bytes, "B", 3, b, sizeof b);
        snprintf(title, sizeof title, "STREAM (3 arrays of %s; LLC %s; >= 4x LLC: %s):", a, b,
                 r->array_rule_met ? "yes" : "no");
        struct out_table *t = out_table_new(OUT_TABLE, title, MEM_FIELDS, NF(MEM_FIELDS));
        for (int i = 0; i < r->n_stream; i++) {
            const struct bench_stream *s = &r->stream[i];
            struct out_value v[] = {{s->kernel, 0},
                                    {NULL, s->threads},
                                    {NULL, bench_rate_best(s->bytes, &s->meas)},
                                    {NULL, bench_rate_median(s->bytes, &s->meas)},
                                    {NULL, s->meas.s.min},
                                    {NULL, s->meas.s.median},
                                    {NULL, s->meas.s.max}};
            out_table_row(t, v);
        }
        out_table_end(t, stdout, 0);
        printf("\n");
    }
    if (r->n_peaks > 0) {
        struct out_table *t = out_table_new(
            OUT_TABLE, "peak FLOP/s (register-blocked FMA):", PEAK_FIELDS, NF(PEAK_FIELDS));
        for (int i = 0; i < r->n_peaks; i++) {
            const struct bench_peak *p = &r->peaks[i];
            struct out_value v[] = {{dtype_name(p->dt), 0},
                                    {NULL, p->threads},
                                    {NULL, p->round},
                                    {NULL, bench_rate_best(p->flops, &p->meas)},
                                    {NULL, bench_rate_median(p->flops, &p->meas)},
                                    {NULL, spread(&p->meas)}};
            out_table_row(t, v);
        }
        out_table_end(t, stdout, 0);
        printf("\n");
    }
    if (r->n_ai > 0) {
        struct out_table *t = out_table_new(
            OUT_TABLE, "arithmetic-intensity sweep (ERT kernel, fp64, all threads):", AI_FIELDS,
            NF(AI_FIELDS));
        for (int i = 0; i < r->n_ai; i++) {
            const struct bench_ai_point *p = &r->ai[i];
            double fitted = NAN, res = NAN;
            if (r->have_fit) {
                fitted = fmin(r->fit.peak_flops_per_s,
                              r->fit.bandwidth_bytes_per_s * p->intensity_flop_per_byte);
                res = 100.0 * (exp(r->fit.residual_log[i]) - 1);
            }
            struct out_value v[] = {{NULL, p->intensity_flop_per_byte},
                                    {NULL, p->fmas},
                                    {NULL, bench_rate_best(p->flops, &p->meas)},
                                    {NULL, bench_rate_median(p->flops, &p->meas)},
                                    {NULL, fitted},
                                    {NULL, res}};
            out_table_row(t, v);
        }
        out_table_end(t, stdout, 0);
        if (r->have_fit) {
            unit_format(r->fit.peak_flops_per_s, "FLOP/s", 4, a, sizeof a);
            unit_format(r->fit.bandwidth_bytes_per_s, "B/s", 4, b, sizeof b);
            printf("fit (GSL nonlinear least squares, %d iterations): peak %s, bandwidth %s, "
                   "ridge %.2f FLOP/B, rms residual %.1f%%\n",
                   r->fit.iterations, a, b, r->fit.ridge_flop_per_byte,
                   100.0 * (exp(r->fit.rms_log_residual) - 1));
        }
        printf("\n");
    }
    if (r->n_cases > 0) {
        char title[128] = "kernels and model passes:";
        if (r->rounds > 1) /* docs/bench.md#round-robin-rounds */
            snprintf(
                title, sizeof title,
                "kernels and model passes (samples spread over %d round-robin rounds):", r->rounds);
        struct out_table *t = out_table_new(OUT_TABLE, title, CASE_FIELDS, NF(CASE_FIELDS));
        for (int i = 0; i < r->n_cases; i++) {
            const struct bench_case *c = &r->cases[i];
            struct out_value v[] = {{c->id, 0},
                                    {bench_phase_name(c->phase), 0},
                                    {NULL, c->flops},
                                    {NULL, c->bytes},
                                    {NULL, c->meas.s.median},
                                    {NULL, spread(&c->meas)},
                                    {NULL, bench_rate_median(c->flops, &c->meas)},
                                    {NULL, bench_rate_median(c->bytes, &c->meas)}};
            out_table_row(t, v);
        }
        out_table_end(t, stdout, 0);
        printf("GEMM: %s\n\n", r->gemm_impl);
    }
    const struct bench_roofs *R = &r->roofs;
    printf("roofs of this host (best samples, %d threads):\n", r->threads);
    if (R->dram_bandwidth_bytes_per_s > 0) {
        unit_format(R->dram_bandwidth_bytes_per_s, "B/s", 4, a, sizeof a);
        unit_format(R->triad_bandwidth_bytes_per_s, "B/s", 4, b, sizeof b);
        printf("  DRAM bandwidth  %s (the %s kernel; triad %s)\n", a, R->dram_kernel, b);
    }
    for (int d = DT_ROOF_FIRST; d <= DT_ROOF_LAST; d++)
        if (R->peak_flops_per_s[d] > 0) {
            unit_format(R->peak_flops_per_s[d], "FLOP/s", 4, a, sizeof a);
            printf("  %-5s peak      %s", dtype_name((enum dtype)d), a);
            if (R->dram_bandwidth_bytes_per_s > 0)
                printf("  (ridge %.1f FLOP/B)",
                       R->peak_flops_per_s[d] / R->dram_bandwidth_bytes_per_s);
            printf("\n");
        }
    if (r->overlap_rows > 0 && R->peak_flops_per_s[DT_FP32] > 0) {
        struct hw_profile hw;
        memset(&hw, 0, sizeof hw);
        hw.peak_flops_per_s[DT_FP32] = R->peak_flops_per_s[DT_FP32];
        hw.gemm_efficiency = R->gemm_efficiency;
        printf("  overlap         %.0f%% of core time hidden by the stream (the weight stack by 1 "
               "and by %ld rows: %.1f and %.1f GB/s)\n",
               100 * bench_report_overlap(r, &hw), r->overlap_rows,
               bench_rate_best(r->overlap_bytes, &r->overlap_gemv) / 1e9,
               bench_rate_best(r->overlap_bytes, &r->overlap_gemm) / 1e9);
        if (r->attn_core_bytes > 0)
            printf("  attention core  %.1f GB/s of KV cache in L2 (decode attention, %d threads)\n",
                   bench_rate_best(r->attn_core_bytes, &r->attn_core) / 1e9, r->threads);
    }
    if (r->n_llc > 0) {
        char c[32], k[32];
        unit_format(R->llc.size_bytes, "B", 3, a, sizeof a);
        unit_format(R->llc.retained_bytes, "B", 3, k, sizeof k);
        unit_format(R->llc.llc_bandwidth_bytes_per_s, "B/s", 3, c, sizeof c);
        if (R->llc.size_bytes > 0)
            printf("  LLC stream      %s of cache seen by a cyclic stream (at %s); it retains %s "
                   "of each pass beyond it (%d working sets; resolution %.0f MB)\n",
                   a, c, R->llc.retained_bytes > 0 ? k : "nothing", r->n_llc,
                   R->llc.resolution_bytes / 1e6);
        else
            printf("  LLC stream      no cache seen by a stream of %.0f MB or more\n",
                   r->llc[0].bytes / 1e6);
        if (R->llc.retained_bytes > 0) {
            unit_format(R->dram_roof_bytes_per_s, "B/s", 4, a, sizeof a);
            printf("  DRAM roof       corrected from %s over %.0f MB: the LLC's share removed\n", a,
                   R->dram_roof_array_bytes / 1e6);
        }
    }
    if (R->launch_s > 0) {
        unit_format_time(R->launch_s, 3, a, sizeof a);
        unit_format_time(r->launch.s.median, 3, b, sizeof b);
        printf("  fork-join       %s per parallel kernel (an empty kernel on %d threads; median "
               "%s)\n",
               a, r->threads, b);
    }
    printf("checksum %.6g; result checks: %s; %.1f s\n", r->checksum, r->validation, r->elapsed_s);
}

static int
run(int argc, char **argv)
{
    struct cli_ctx c;
    int rc;
    if (cli_begin(&c, &cmd_bench, CLI_NO_FORMAT, argc, argv, &rc) != 0)
        return rc;
    const struct cli_args a = c.a;
    enum out_fmt fmt = OUT_TABLE;
    if (cli_has(&a, "output") &&
        (out_parse_fmt(cli_get(&a, "output"), &fmt) != 0 || fmt == OUT_CSV)) {
        fprintf(stderr, "error: -o: expected table or json\n");
        return cli_end(&c, CLI_USAGE);
    }
    long threads = 0, rounds = BENCH_DEFAULT_ROUNDS;
    unsigned parts = BENCH_PART_ALL;
    if (cli_long(&a, "rounds", BENCH_DEFAULT_ROUNDS, 1, &rounds) != 0)
        return cli_end(&c, CLI_USAGE);
    if (rounds > BENCH_MAX_ROUNDS) {
        fprintf(stderr, "error: --rounds: must be at most %d, got %ld\n", BENCH_MAX_ROUNDS, rounds);
        return cli_end(&c, CLI_USAGE);
    }
    if (cli_long(&a, "threads", 0, 1, &threads) != 0 ||
        (cli_has(&a, "parts") && parse_parts(cli_get(&a, "parts"), &parts) != 0))
        return cli_end(&c, CLI_USAGE);
    if (cli_has(&a, "write-profile")) {
        /* fail before measuring (14 s), not after */
        struct err_list werr = {0};
        int wrc = afile_check(cli_get(&a, "write-profile"), &werr);
        cli_print_errs(&werr);
        err_list_release(&werr);
        if (wrc != 0)
            return cli_end(&c, CLI_FAIL);
    }
    struct mdl_profile *model = c.model =
        cli_load_model(cli_has(&a, "model") ? cli_get(&a, "model") : "bench-small");
    if (!model)
        return cli_end(&c, CLI_FAIL);
    struct bench_options o;
    bench_options_init(&o);
    o.quick = cli_has(&a, "quick");
    o.threads = (int)threads;
    o.pin = !cli_has(&a, "no-pin");
    o.model = model;
    o.parts = parts;
    o.rounds = (int)rounds;
    double t0 = bench_now_s();
    o.progress = progress;
    o.progress_user = &t0;
    struct bench_report *r = calloc(1, sizeof *r);
    struct err_list errs = {0};
    if (!r) {
        cli_oom();
        return cli_end(&c, CLI_FAIL);
    }
    fprintf(stderr, "roofline bench%s: progress on stderr, results on stdout\n",
            o.quick ? " --quick" : "");
    rc = CLI_OK;
    if (bench_run(&o, r, &errs) != 0) {
        cli_print_errs(&errs);
        rc = CLI_FAIL;
    }
    err_list_release(&errs);
    char why[400];
    if (rc == CLI_OK && bench_roofs_warning(r, why, sizeof why))
        fprintf(stderr, "warning: %s\n", why);
    if (rc == CLI_OK && bench_drift_warning(r, why, sizeof why))
        fprintf(stderr, "warning: %s\n", why);
    if (rc == CLI_OK && fmt == OUT_JSON) {
        struct strbuf t = {0};
        if (bench_render_json(r, &t) != 0) {
            cli_oom();
            rc = CLI_FAIL;
        } else {
            fwrite(t.buf, 1, t.len, stdout);
        }
        strbuf_release(&t);
    } else if (rc == CLI_OK) {
        print_table(r);
    }
    if (rc == CLI_OK && cli_has(&a, "points")) {
        struct strbuf t = {0};
        if (bench_render_points(r, &t) != 0 || write_atomic(cli_get(&a, "points"), &t, NULL) != 0)
            rc = CLI_FAIL;
        else
            fprintf(stderr, "wrote %s\n", cli_get(&a, "points"));
        strbuf_release(&t);
    }
    if (rc == CLI_OK && cli_has(&a, "write-profile")) {
        struct hw_profile *hw = bench_profile_new(r);
        struct strbuf t = {0};
        if (!hw) {
            fprintf(stderr, "error: --write-profile needs the DRAM bandwidth and the fp32 peak\n");
            rc = CLI_FAIL;
        } else if (hw_profile_text(hw, &t) != 0 ||
                   write_atomic(cli_get(&a, "write-profile"), &t, verify_profile) != 0) {
            rc = CLI_FAIL;
        } else {
            fprintf(stderr, "wrote %s (check it with: roofline show gpu %s)\n",
                    cli_get(&a, "write-profile"), cli_get(&a, "write-profile"));
        }
        strbuf_release(&t);
        hw_free(hw);
    }
    if (rc == CLI_OK && r->validation_failures > 0) {
        fprintf(stderr, "error: %d result check%s failed: %s\n", r->validation_failures,
                r->validation_failures > 1 ? "s" : "", r->validation);
        rc = CLI_FAIL;
    }
    free(r);
    return cli_end(&c, rc);
}
