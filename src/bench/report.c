/* The bench report: the JSON document (field names are a stable interface, docs/bench.md), its
 * measured points for chart roofline --measured (read by io/points.c), and the host's hardware
 * profile as a struct (io/hw_save.c writes it as YAML). Memory buffers only; the CLI writes. */
#include "bench/report.h"

#include "util/array.h"
#include "util/strbuf.h"
#include "util/strs.h"
#include "util/units.h"

#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ---- JSON ---- */

static void
jnum(struct strbuf *t, double x)
{
    if (isfinite(x))
        strbuf_addf(t, "%.9g", x);
    else
        strbuf_addf(t, "null");
}

/* "key": value pairs; `first` tracks the comma */
static void
jkey(struct strbuf *t, bool *first, const char *key)
{
    strbuf_addf(t, "%s", *first ? "" : ", ");
    *first = false;
    strbuf_add_quoted(t, key);
    strbuf_addf(t, ": ");
}

static void
jkv_num(struct strbuf *t, bool *first, const char *key, double x)
{
    jkey(t, first, key);
    jnum(t, x);
}

static void
jkv_bool(struct strbuf *t, bool *first, const char *key, bool v)
{
    jkey(t, first, key);
    strbuf_addf(t, "%s", v ? "true" : "false");
}

static void
jkv_str(struct strbuf *t, bool *first, const char *key, const char *s)
{
    jkey(t, first, key);
    strbuf_add_quoted(t, s);
}

static void
jmeasure(struct strbuf *t, const struct bench_measure *m)
{
    bool f = true;
    strbuf_addf(t, "{");
    jkv_num(t, &f, "reps", (double)m->reps);
    jkv_num(t, &f, "warmup_runs", (double)m->n_warmup);
    jkv_num(t, &f, "min", m->s.min);
    jkv_num(t, &f, "median", m->s.median);
    jkv_num(t, &f, "max", m->s.max);
    jkv_num(t, &f, "mean", m->s.mean);
    jkey(t, &f, "samples");
    strbuf_addf(t, "[");
    for (int i = 0; i < m->n_samples; i++) {
        strbuf_addf(t, "%s", i ? ", " : "");
        jnum(t, m->samples_s[i]);
    }
    strbuf_addf(t, "]}");
}

static void
render_host(struct strbuf *t, const struct bench_report *r)
{
    const struct bench_host *h = &r->host;
    bool f = true;
    strbuf_addf(t, "  \"host\": {");
    jkv_str(t, &f, "cpu", h->cpu_model);
    jkv_str(t, &f, "vendor_id", h->vendor_id);
    jkv_str(t, &f, "vendor", h->vendor);
    jkv_num(t, &f, "online_cpus", h->online_cpus);
    jkv_num(t, &f, "allowed_cpus", h->allowed_cpus);
    jkv_num(t, &f, "memory_bytes", h->memory_bytes);
    jkv_str(t, &f, "cache_source", h->cache_source);
    jkv_num(t, &f, "llc_bytes", h->llc_bytes);
    jkey(t, &f, "caches");
    strbuf_addf(t, "[");
    for (int i = 0; i < h->n_caches; i++) {
        bool g = true;
        strbuf_addf(t, "%s{", i ? ", " : "");
        jkv_num(t, &g, "level", h->caches[i].level);
        jkv_str(t, &g, "type", h->caches[i].type);
        jkv_num(t, &g, "size_bytes", h->caches[i].size_bytes);
        jkv_num(t, &g, "shared_cpus", h->caches[i].shared_cpus);
        strbuf_addf(t, "}");
    }
    strbuf_addf(t, "]},\n");
    f = true;
    strbuf_addf(t, "  \"build\": {");
    jkv_str(t, &f, "compiler", h->compiler);
    jkv_str(t, &f, "cflags", h->cflags);
    jkv_str(t, &f, "isa", r->isa);
    jkv_str(t, &f, "isa_target", r->isa_target);
    jkv_str(t, &f, "gemm", r->gemm_impl);
    strbuf_addf(t, "},\n");
}

static void
render_cases(struct strbuf *t, const struct bench_report *r)
{
    strbuf_addf(t, "  \"cases\": [");
    for (int i = 0; i < r->n_cases; i++) {
        const struct bench_case *c = &r->cases[i];
        bool f = true;
        strbuf_addf(t, "%s\n    {", i ? "," : "");
        jkv_str(t, &f, "id", c->id);
        jkv_str(t, &f, "kind", bench_case_kind_name(c->kind));
        jkv_str(t, &f, "phase", bench_phase_name(c->phase));
        jkv_num(t, &f, "threads", c->threads);
        jkv_num(t, &f, "rows", (double)c->rows);
        jkv_num(t, &f, "cols", (double)c->cols);
        jkv_num(t, &f, "inner", (double)c->inner);
        jkv_num(t, &f, "copies", (double)c->copies);
        jkv_num(t, &f, "heads", (double)c->heads);
        jkv_num(t, &f, "kv_heads", (double)c->kv_heads);
        jkv_num(t, &f, "head_dim", (double)c->head_dim);
        jkv_num(t, &f, "prompt", (double)c->prompt);
        jkv_num(t, &f, "context", (double)c->context);
        jkv_num(t, &f, "flops", c->flops);
        jkv_num(t, &f, "bytes", c->bytes);
        jkv_num(t, &f, "flops_per_s", bench_rate_median(c->flops, &c->meas));
        jkv_num(t, &f, "bytes_per_s", bench_rate_median(c->bytes, &c->meas));
        if (c->probe_bandwidth_bytes_per_s > 0)
            jkv_num(t, &f, "probe_bandwidth_bytes_per_s", c->probe_bandwidth_bytes_per_s);
        jkv_num(t, &f, "launches", c->launches);
        if (c->calibration)
            jkv_bool(t, &f, "calibration", true);
        if (c->rr.rounds > 0) {
            /* each round's probe (0: the case had no samples due in that round) and the round
             * of each sample in time_s.samples, 1-based */
            int R = 0;
            for (int q = 0; q < c->meas.n_samples; q++)
                if (c->rr.sample_round[q] + 1 > R)
                    R = c->rr.sample_round[q] + 1;
            jkv_num(t, &f, "rounds", c->rr.rounds);
            jkey(t, &f, "round_probes_bytes_per_s");
            strbuf_addf(t, "[");
            for (int q = 0; q < R; q++) {
                strbuf_addf(t, "%s", q ? ", " : "");
                jnum(t, c->rr.probe[q]);
            }
            strbuf_addf(t, "]");
            jkey(t, &f, "sample_rounds");
            strbuf_addf(t, "[");
            for (int q = 0; q < c->meas.n_samples; q++)
                strbuf_addf(t, "%s%d", q ? ", " : "", c->rr.sample_round[q] + 1);
            strbuf_addf(t, "]");
        }
        jkey(t, &f, "time_s");
        jmeasure(t, &c->meas);
        strbuf_addf(t, "}");
    }
    strbuf_addf(t, "\n  ],\n");
}

int
bench_render_json(const struct bench_report *r, struct strbuf *t)
{
    bool f = true;
    strbuf_addf(t, "{\n  ");
    jkv_str(t, &f, "tool", "roofline");
    jkv_str(t, &f, "version", r->version);
    jkv_str(t, &f, "command", "bench");
    jkv_str(t, &f, "date", r->date);
    jkv_str(t, &f, "mode", r->opt.quick ? "quick" : "full");
    jkv_num(t, &f, "threads", r->threads);
    jkv_num(t, &f, "pinned_threads", r->pinned);
    jkv_num(t, &f, "seed", (double)r->opt.seed);
    if (r->rounds > 0)
        jkv_num(t, &f, "rounds", r->rounds);
    jkv_num(t, &f, "elapsed_s", r->elapsed_s);
    strbuf_addf(t, ",\n");
    render_host(t, r);
    f = true;
    strbuf_addf(t, "  \"timer\": {");
    jkv_str(t, &f, "clock", "CLOCK_MONOTONIC");
    jkv_num(t, &f, "resolution_s", r->timer.resolution_s);
    jkv_num(t, &f, "tick_s", r->timer.tick_s);
    jkv_num(t, &f, "call_s", r->timer.call_s);
    jkv_num(t, &f, "min_sample_s", r->timer.min_sample_s);
    jkv_num(t, &f, "min_ticks_per_sample", BENCH_MIN_TICKS);
    strbuf_addf(t, "},\n");
    f = true;
    strbuf_addf(t, "  \"memory\": {");
    jkv_num(t, &f, "array_bytes", r->array_bytes);
    jkv_num(t, &f, "llc_bytes", r->host.llc_bytes);
    jkey(t, &f, "array_at_least_4x_llc");
    strbuf_addf(t, "%s", r->array_rule_met ? "true" : "false");
    jkv_str(t, &f, "sweep_kernel", "read (sum of doubles, 8 B and 1 FLOP per element)");
    jkey(t, &f, "sweep");
    strbuf_addf(t, "[");
    for (int i = 0; i < r->n_sweep; i++) {
        const struct bench_sweep_point *p = &r->sweep[i];
        bool g = true;
        strbuf_addf(t, "%s\n    {", i ? "," : "");
        jkv_num(t, &g, "bytes_per_thread", p->bytes_per_thread);
        jkv_num(t, &g, "threads", p->threads);
        jkv_num(t, &g, "bytes", p->bytes);
        jkv_num(t, &g, "bandwidth_bytes_per_s", bench_rate_median(p->bytes, &p->meas));
        jkey(t, &g, "time_s");
        jmeasure(t, &p->meas);
        strbuf_addf(t, "}");
    }
    strbuf_addf(t, "],\n    \"levels\": [");
    for (int i = 0; i < r->n_levels; i++) {
        const struct bench_level *L = &r->levels[i];
        bool g = true;
        strbuf_addf(t, "%s{", i ? ", " : "");
        jkv_str(t, &g, "level", L->name);
        jkv_num(t, &g, "size_bytes_per_thread", L->size_bytes);
        jkv_num(t, &g, "from_bytes", L->lo_bytes);
        jkv_num(t, &g, "to_bytes", L->hi_bytes);
        jkv_num(t, &g, "points", L->n_points);
        jkv_num(t, &g, "bandwidth_bytes_per_s", L->bandwidth_bytes_per_s);
        strbuf_addf(t, "}");
    }
    strbuf_addf(t, "],\n    \"stream\": [");
    for (int i = 0; i < r->n_stream; i++) {
        const struct bench_stream *s = &r->stream[i];
        bool g = true;
        strbuf_addf(t, "%s\n    {", i ? "," : "");
        jkv_str(t, &g, "kernel", s->kernel);
        jkv_num(t, &g, "threads", s->threads);
        jkv_num(t, &g, "array_bytes", s->array_bytes);
        jkv_num(t, &g, "bytes", s->bytes);
        jkv_num(t, &g, "flops", s->flops);
        jkv_num(t, &g, "bandwidth_bytes_per_s", bench_rate_best(s->bytes, &s->meas));
        jkv_num(t, &g, "bandwidth_median_bytes_per_s", bench_rate_median(s->bytes, &s->meas));
        jkey(t, &g, "time_s");
        jmeasure(t, &s->meas);
        strbuf_addf(t, "}");
    }
    strbuf_addf(t, "]},\n  \"compute\": {\"peaks\": [");
    for (int i = 0; i < r->n_peaks; i++) {
        const struct bench_peak *p = &r->peaks[i];
        bool g = true;
        strbuf_addf(t, "%s\n    {", i ? "," : "");
        jkv_str(t, &g, "dtype", dtype_name(p->dt));
        jkv_num(t, &g, "threads", p->threads);
        jkv_num(t, &g, "round", p->round);
        jkv_num(t, &g, "flops", p->flops);
        jkv_num(t, &g, "flops_per_s", bench_rate_best(p->flops, &p->meas));
        jkv_num(t, &g, "flops_per_s_median", bench_rate_median(p->flops, &p->meas));
        jkey(t, &g, "time_s");
        jmeasure(t, &p->meas);
        strbuf_addf(t, "}");
    }
    strbuf_addf(t, "]},\n");
    f = true;
    strbuf_addf(t, "  \"intensity_sweep\": {");
    jkv_str(t, &f, "kernel", "ert (in place: load, FMAs, store; fp64; 16 B per element)");
    jkv_num(t, &f, "array_bytes", r->ai_array_bytes);
    jkey(t, &f, "points");
    strbuf_addf(t, "[");
    for (int i = 0; i < r->n_ai; i++) {
        const struct bench_ai_point *p = &r->ai[i];
        bool g = true;
        strbuf_addf(t, "%s\n    {", i ? "," : "");
        jkv_num(t, &g, "fmas_per_element", p->fmas);
        jkv_num(t, &g, "intensity_flop_per_byte", p->intensity_flop_per_byte);
        jkv_num(t, &g, "flops", p->flops);
        jkv_num(t, &g, "bytes", p->bytes);
        jkv_num(t, &g, "flops_per_s", bench_rate_best(p->flops, &p->meas));
        jkv_num(t, &g, "flops_per_s_median", bench_rate_median(p->flops, &p->meas));
        jkey(t, &g, "time_s");
        jmeasure(t, &p->meas);
        strbuf_addf(t, "}");
    }
    strbuf_addf(t, "]");
    if (r->have_fit) {
        const struct bench_roof_fit *F = &r->fit;
        bool g = true;
        strbuf_addf(t, ",\n    \"fit\": {");
        jkv_str(t, &g, "model", "min(peak, bandwidth x intensity), least squares on log rates");
        jkv_num(t, &g, "peak_flops_per_s", F->peak_flops_per_s);
        jkv_num(t, &g, "bandwidth_bytes_per_s", F->bandwidth_bytes_per_s);
        jkv_num(t, &g, "ridge_flop_per_byte", F->ridge_flop_per_byte);
        jkv_num(t, &g, "peak_rel_sigma", F->peak_rel_sigma);
        jkv_num(t, &g, "bandwidth_rel_sigma", F->bandwidth_rel_sigma);
        jkv_num(t, &g, "rms_log_residual", F->rms_log_residual);
        jkv_num(t, &g, "iterations", F->iterations);
        jkv_str(t, &g, "status", F->gsl_status == 0 ? "converged" : "iteration cap reached");
        jkey(t, &g, "residuals_log");
        strbuf_addf(t, "[");
        for (int i = 0; i < F->n; i++) {
            strbuf_addf(t, "%s", i ? ", " : "");
            jnum(t, F->residual_log[i]);
        }
        strbuf_addf(t, "]}");
    }
    strbuf_addf(t, "},\n");
    f = true;
    strbuf_addf(t, "  \"model\": {");
    jkv_str(t, &f, "id", r->model_id);
    jkv_num(t, &f, "parameters", r->model_params);
    jkv_str(t, &f, "weights", "fp32, random (GSL taus2)");
    strbuf_addf(t, "},\n");
    render_cases(t, r);
    if (r->launch.n_samples > 0) {
        f = true;
        strbuf_addf(t, "  \"fork_join\": {");
        jkv_num(t, &f, "threads", r->threads);
        jkey(t, &f, "time_s");
        jmeasure(t, &r->launch);
        strbuf_addf(t, "},\n");
    }
    if (r->overlap_rows > 0) {
        f = true;
        strbuf_addf(t, "  \"overlap\": {");
        jkv_num(t, &f, "rows", (double)r->overlap_rows);
        jkv_num(t, &f, "bytes", r->overlap_bytes);
        jkv_num(t, &f, "flops_per_row", r->overlap_flops_row);
        jkey(t, &f, "gemv_time_s");
        jmeasure(t, &r->overlap_gemv);
        jkey(t, &f, "gemm_time_s");
        jmeasure(t, &r->overlap_gemm);
        if (r->attn_core_bytes > 0) {
            jkv_num(t, &f, "attention_bytes", r->attn_core_bytes);
            jkey(t, &f, "attention_time_s");
            jmeasure(t, &r->attn_core);
        }
        strbuf_addf(t, "},\n");
    }
    if (r->n_llc > 0) {
        const struct bench_roofs *L = &r->roofs;
        f = true;
        strbuf_addf(t, "  \"llc\": {");
        jkv_str(t, &f, "kernel", "weights (cyclic passes over the first matrices of one stack)");
        jkv_num(t, &f, "threads", r->threads);
        jkv_num(t, &f, "reported_bytes", r->host.llc_bytes);
        jkey(t, &f, "points");
        strbuf_addf(t, "[");
        for (int i = 0; i < r->n_llc; i++) {
            const struct bench_llc_point *p = &r->llc[i];
            bool g = true;
            strbuf_addf(t, "%s\n    {", i ? "," : "");
            jkv_num(t, &g, "bytes", p->bytes);
            jkv_num(t, &g, "matrices", (double)p->matrices);
            jkv_num(t, &g, "bandwidth_bytes_per_s", bench_rate_best(p->bytes, &p->meas));
            jkey(t, &g, "time_s");
            jmeasure(t, &p->meas);
            strbuf_addf(t, "}");
        }
        strbuf_addf(t, "]");
        bool g = true;
        strbuf_addf(t, ",\n    \"fit\": {");
        jkv_str(t, &g, "model",
                "t(W) = (W - h C) / B_dram + h C / B_llc for W > C; gsl_fit_wlinear on best times, "
                "weights 1 / t^2");
        jkv_num(t, &g, "size_bytes", L->llc.size_bytes);
        jkv_num(t, &g, "retained_bytes", L->llc.retained_bytes);
        jkv_num(t, &g, "llc_bandwidth_bytes_per_s", L->llc.llc_bandwidth_bytes_per_s);
        jkv_num(t, &g, "dram_bandwidth_bytes_per_s", L->llc.dram_bandwidth_bytes_per_s);
        jkv_num(t, &g, "points", L->llc.n_fit);
        jkv_num(t, &g, "resolution_bytes", L->llc.resolution_bytes);
        strbuf_addf(t, "}},\n");
    }
    const struct bench_roofs *R = &r->roofs;
    f = true;
    strbuf_addf(t, "  \"roofs\": {");
    jkv_num(t, &f, "dram_bandwidth_bytes_per_s", R->dram_bandwidth_bytes_per_s);
    jkv_str(t, &f, "dram_kernel", R->dram_kernel);
    jkv_num(t, &f, "triad_bandwidth_bytes_per_s", R->triad_bandwidth_bytes_per_s);
    if (R->probe_max_bytes_per_s > 0) {
        jkv_num(t, &f, "probe_max_bytes_per_s", R->probe_max_bytes_per_s);
        jkv_num(t, &f, "probe_min_bytes_per_s", R->probe_min_bytes_per_s);
        jkv_num(t, &f, "probe_drift", R->probe_drift);
    }
    if (r->n_llc > 0) {
        jkv_num(t, &f, "dram_roof_bytes_per_s", R->dram_roof_bytes_per_s);
        jkv_num(t, &f, "dram_roof_array_bytes", R->dram_roof_array_bytes);
        jkv_num(t, &f, "llc_stream_bytes", R->llc.size_bytes);
        jkv_num(t, &f, "llc_retained_bytes", R->llc.retained_bytes);
        jkv_num(t, &f, "llc_bandwidth_bytes_per_s", R->llc.llc_bandwidth_bytes_per_s);
    }
    if (R->launch_s > 0)
        jkv_num(t, &f, "launch_overhead_s", R->launch_s);
    if (R->gemm_efficiency > 0)
        jkv_num(t, &f, "gemm_efficiency", R->gemm_efficiency);
    if (R->fp32_thread_scaling > 0)
        jkv_num(t, &f, "fp32_thread_scaling", R->fp32_thread_scaling);
    for (int d = DT_ROOF_FIRST; d <= DT_ROOF_LAST; d++)
        if (R->peak_flops_per_s[d] > 0) {
            char key[48];
            snprintf(key, sizeof key, "%s_flops_per_s", dtype_name((enum dtype)d));
            jkv_num(t, &f, key, R->peak_flops_per_s[d]);
        }
    static const char *const LV[3] = {"l1", "l2", "l3"};
    for (int l = 0; l < 3; l++) {
        char key[64];
        snprintf(key, sizeof key, "%s_bandwidth_bytes_per_s", LV[l]);
        jkv_num(t, &f, key, R->cache_bandwidth_bytes_per_s[l]);
        snprintf(key, sizeof key, "%s_bytes", LV[l]);
        jkv_num(t, &f, key, R->cache_bytes[l]);
    }
    strbuf_addf(t, "},\n");
    f = true;
    strbuf_addf(t, "  ");
    jkv_num(t, &f, "checksum", r->checksum);
    jkv_num(t, &f, "validation_failures", r->validation_failures);
    jkv_str(t, &f, "validation", r->validation);
    strbuf_addf(t, "\n}\n");
    return t->failed ? -1 : 0;
}

/* ---- measured points ---- */

static void
point(struct strbuf *t, bool *first, const char *label, double flops, double bytes,
      const struct bench_measure *m)
{
    double rate = bench_rate_median(flops, m);
    if (!(flops > 0) || !(bytes > 0) || !(rate > 0))
        return;
    bool f = true;
    strbuf_addf(t, "%s\n    {", *first ? "" : ",");
    *first = false;
    jkv_str(t, &f, "label", label);
    jkv_num(t, &f, "intensity_flop_per_byte", flops / bytes);
    jkv_num(t, &f, "flops_per_s", rate);
    strbuf_addf(t, "}");
}

int
bench_render_points(const struct bench_report *r, struct strbuf *t)
{
    bool first = true;
    strbuf_addf(t, "{\"points\": [");
    for (int i = 0; i < r->n_ai; i++) {
        char label[64];
        snprintf(label, sizeof label, "ERT %g FLOP/B", r->ai[i].intensity_flop_per_byte);
        point(t, &first, label, r->ai[i].flops, r->ai[i].bytes, &r->ai[i].meas);
    }
    for (int i = 0; i < r->n_cases; i++)
        point(t, &first, r->cases[i].id, r->cases[i].flops, r->cases[i].bytes, &r->cases[i].meas);
    strbuf_addf(t, "\n]}\n");
    return t->failed ? -1 : 0;
}

/* ---- host profile ---- */

static int add_pair(char ***keys, char ***texts, int *n, const char *key, const char *fmt, ...)
    __attribute__((format(printf, 5, 6)));

static int
add_pair(char ***keys, char ***texts, int *n, const char *key, const char *fmt, ...)
{
    char buf[512];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(buf, sizeof buf, fmt, ap);
    va_end(ap);
    char **k = realloc(*keys, (size_t)(*n + 1) * sizeof *k);
    if (!k)
        return -1;
    *keys = k;
    char **v = realloc(*texts, (size_t)(*n + 1) * sizeof *v);
    if (!v)
        return -1;
    *texts = v;
    k[*n] = str_dup(key);
    v[*n] = str_dup(buf);
    if (!k[*n] || !v[*n]) {
        free(k[*n]);
        free(v[*n]);
        return -1;
    }
    (*n)++;
    return 0;
}

static const struct bench_stream *
find_stream(const struct bench_report *r, const char *kernel, int threads)
{
    for (int i = 0; i < r->n_stream; i++)
        if (strcmp(r->stream[i].kernel, kernel) == 0 && r->stream[i].threads == threads)
            return &r->stream[i];
    return NULL;
}

struct hw_profile *
bench_profile_new(const struct bench_report *r)
{
    const struct bench_roofs *R = &r->roofs;
    if (!(R->dram_bandwidth_bytes_per_s > 0) || !(R->peak_flops_per_s[DT_FP32] > 0))
        return NULL;
    struct hw_profile *hw = calloc(1, sizeof *hw);
    if (!hw)
        return NULL;
    char day[16];
    snprintf(day, sizeof day, "%.10s", r->date);
    char name[256];
    snprintf(name, sizeof name, "Host CPU: %s (%d thread%s)", r->host.cpu_model, r->threads,
             r->threads > 1 ? "s" : "");
    hw->id = str_dup("host");
    hw->name = str_dup(name);
    hw->vendor = str_dup(r->host.vendor[0] ? r->host.vendor : "other");
    hw->kind = str_dup("cpu");
    const char *kern = R->dram_kernel[0] ? R->dram_kernel : "triad";
    const struct bench_stream *dk = find_stream(r, kern, r->threads);
    int samples = dk ? dk->meas.n_samples : 0;
    char mt[128];
    snprintf(mt, sizeof mt, "DRAM (%s %s, %d threads)",
             strcmp(kern, "weights") == 0 ? "GEMV" : "STREAM-style", kern, r->threads);
    hw->memory_type = str_dup(mt);
    hw->memory_capacity_bytes = r->host.memory_bytes;
    hw->memory_bandwidth_bytes_per_s = R->dram_bandwidth_bytes_per_s;
    for (int d = 0; d < DT_COUNT; d++)
        hw->peak_flops_per_s[d] = R->peak_flops_per_s[d];
    hw->compute_units = r->threads;
    hw->gemm_efficiency = R->gemm_efficiency;
    hw->llc_stream_bytes = R->llc.size_bytes;
    hw->llc_retained_bytes = R->llc.size_bytes > 0 ? R->llc.retained_bytes : 0;
    hw->llc_stream_bandwidth_bytes_per_s = R->llc.llc_bandwidth_bytes_per_s;
    for (int l = 0; l < 3; l++) {
        hw->cache_bytes[l] = R->cache_bytes[l];
        hw->cache_bandwidth_bytes_per_s[l] = R->cache_bandwidth_bytes_per_s[l];
    }
    char notes[512];
    snprintf(notes, sizeof notes,
             "Measured on this host with roofline bench (docs/bench.md): rates are the best of "
             "%d samples on %d thread%s; peaks are register-blocked FMA kernels (%s), not "
             "datasheet figures; cache sizes are per instance as the OS reports them.",
             samples, r->threads, r->threads > 1 ? "s" : "", r->isa);
    hw->notes = str_dup(notes);
    if (!hw->id || !hw->name || !hw->vendor || !hw->kind || !hw->memory_type || !hw->notes)
        goto fail;
    char ***pk = &hw->provenance_keys, ***pt = &hw->provenance_texts;
    int *pn = &hw->n_provenance;
    if (add_pair(pk, pt, pn, "cpu", "%s", r->host.cpu_model) ||
        add_pair(pk, pt, pn, "vendor_id", "%s", r->host.vendor_id) ||
        add_pair(pk, pt, pn, "cores", "%d online, %d allowed", r->host.online_cpus,
                 r->host.allowed_cpus) ||
        add_pair(pk, pt, pn, "threads", "%d (%d pinned)", r->threads, r->pinned) ||
        add_pair(pk, pt, pn, "isa", "%s (target %s)", r->isa, r->isa_target) ||
        add_pair(pk, pt, pn, "compiler", "%s", r->host.compiler) ||
        add_pair(pk, pt, pn, "flags", "%s", r->host.cflags) ||
        add_pair(pk, pt, pn, "date", "%s", r->date) ||
        add_pair(pk, pt, pn, "tool", "roofline %s bench%s", r->version,
                 r->opt.quick ? " --quick" : "") ||
        add_pair(
            pk, pt, pn, "memory_kernel",
            "weights (the decode's GEMV stream), else STREAM read, else the best STREAM kernel: "
            "%s; triad %.4g GB/s; arrays of %.0f MiB (4x LLC: %s)",
            kern, R->triad_bandwidth_bytes_per_s / 1e9, r->array_bytes / (1024.0 * 1024.0),
            r->array_rule_met ? "yes" : "no") ||
        add_pair(pk, pt, pn, "caches_from", "%s", r->host.cache_source))
        goto fail;
    char corrected[160] = "";
    if (hw->llc_retained_bytes > 0)
        snprintf(corrected, sizeof corrected,
                 "; %.4g GB/s over %.0f MB, of which the LLC retained %.0f MB, so B_dram = "
                 "(A - h C) / (A / roof - h C / B_llc)",
                 R->dram_roof_bytes_per_s / 1e9, R->dram_roof_array_bytes / 1e6,
                 hw->llc_retained_bytes / 1e6);
    char ***sk = &hw->source_keys, ***st = &hw->source_texts;
    int *sn = &hw->n_sources;
    if (add_pair(sk, st, sn, "memory.capacity", "sysconf(_SC_PHYS_PAGES) x page size on %s", day) ||
        add_pair(sk, st, sn, "memory.bandwidth",
                 "measured by roofline bench on %s: %s %s kernel, %d threads, best of %d%s", day,
                 strcmp(kern, "weights") == 0 ? "GEMV" : "STREAM-style", kern, r->threads, samples,
                 corrected) ||
        add_pair(sk, st, sn, "compute",
                 "measured by roofline bench on %s: register-blocked %s FMA kernels, %d threads",
                 day, r->isa, r->threads) ||
        add_pair(sk, st, sn, "compute_units", "threads used by roofline bench on %s", day))
        goto fail;
    const struct bench_case *gc = NULL;
    for (int i = 0; i < r->n_cases; i++) /* the calibration case that set the efficiency */
        if (r->cases[i].calibration &&
            (!gc || bench_rate_median(r->cases[i].flops, &r->cases[i].meas) >
                        bench_rate_median(gc->flops, &gc->meas)))
            gc = &r->cases[i];
    if (hw->gemm_efficiency > 0 && gc &&
        add_pair(sk, st, sn, "gemm_efficiency",
                 "measured by roofline bench on %s: %s, median %.4g GFLOP/s over the fp32 "
                 "peak, %d threads",
                 day, gc->id, bench_rate_median(gc->flops, &gc->meas) / 1e9, r->threads))
        goto fail;
    if (hw->llc_stream_bytes > 0 &&
        add_pair(sk, st, sn, "llc_stream",
                 "measured by roofline bench on %s: cyclic weight-stream passes over %d working "
                 "sets from %.0f MB to %.0f MB, %d threads, best times; size where the rate "
                 "fell 3/4 of the way to the largest set's, retained bytes from a weighted "
                 "linear fit of t(W) over %d sets at W >= size (docs/bench.md)",
                 day, r->n_llc, r->n_llc > 0 ? r->llc[0].bytes / 1e6 : 0,
                 r->n_llc > 0 ? r->llc[r->n_llc - 1].bytes / 1e6 : 0, r->threads, R->llc.n_fit))
        goto fail;
    bool any_cache = false, any_cbw = false;
    for (int l = 0; l < 3; l++) {
        any_cache |= hw->cache_bytes[l] > 0;
        any_cbw |= hw->cache_bandwidth_bytes_per_s[l] > 0;
    }
    if (any_cache &&
        add_pair(sk, st, sn, "cache", "%s on %s (size of one instance)", r->host.cache_source, day))
        goto fail;
    if (any_cbw &&
        add_pair(sk, st, sn, "cache_bandwidth",
                 "measured by roofline bench on %s: read-kernel working-set sweep, plateau "
                 "medians, %d threads",
                 day, r->threads))
        goto fail;
    return hw;
fail:
    hw_free(hw);
    return NULL;
}
