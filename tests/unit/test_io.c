/* io/: every file format's writer read back by its reader (round trips). */
#include "core/calib.h"
#include "io/calparams.h"
#include "io/measure.h"
#include "io/profiles.h"
#include "io/scenario.h"
#include "io/ydoc.h"
#include "test.h"
#include "util/afile.h"
#include "util/strbuf.h"

#include <stdlib.h>
#include <sys/stat.h>
#include <unistd.h>

/* A fresh directory under /tmp (caller removes it with rm_tree). */
static char *
tmp_dir(void)
{
    static char dir[64];
    snprintf(dir, sizeof dir, "/tmp/roofline-test-io-XXXXXX");
    return mkdtemp(dir);
}

static void
rm_tree(const char *dir)
{
    char cmd[256];
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", dir);
    if (system(cmd) != 0)
        fprintf(stderr, "cannot remove %s\n", dir);
}

static void
print_errs(const struct err_list *errs)
{
    char buf[512];
    for (size_t i = 0; i < errs->n; i++) {
        err_format(&errs->items[i], buf, sizeof buf);
        FAIL_AT("%s", buf);
    }
}

TEST(io_calparams_round_trip)
{
    char *dir = tmp_dir();
    if (!dir) {
        FAIL_AT("mkdtemp failed");
        return;
    }
    /* values at the writer's precision, so that the read-back is exact */
    struct dev_params dev[DEV_CLASS_COUNT];
    for (int c = 0; c < DEV_CLASS_COUNT; c++)
        dev[c] = (struct dev_params){.memory_efficiency = 0.8125 - 0.01 * c,
                                     .compute_efficiency = 0.625 + 0.01 * c,
                                     .memory_latency_s = (600.0 + 10 * c) * 1e-9,
                                     .compute_units = 100 + c};
    struct cal_bands bands = {{{{0}}}, false};
    bands.have = true;
    bands.q[PRED_DECODE][DEV_DC_GPU][0] = -0.125;
    bands.q[PRED_DECODE][DEV_DC_GPU][1] = 0.25;
    bands.q[PRED_KERNEL][DEV_CPU][0] = -0.5;
    bands.q[PRED_KERNEL][DEV_CPU][1] = 0.0625;
    struct engine_profile ep = {0};
    ep.name = "testengine";
    ep.kernel_overhead_s = 4.5e-6;
    ep.step_overhead_s = 120e-6;
    ep.memory_efficiency = 0.875;
    ep.compute_efficiency = 0.75;
    ep.inflight_bytes_per_unit = 32768;
    ep.dequant_scale = 1.5;
    ep.ubatch_tokens = 512;
    ep.dequant_buffer = true;
    ep.dequant_buffer_above = 32;
    ep.no_flash_attention = true;
    ep.score_bytes = 24;
    ep.fa_mask_bytes = 2;
    ep.pipeline_copies = 4;
    ep.custom_allreduce_max_bytes = 8388608;
    ep.custom_allreduce_latency_s = 2.92e-6;
    ep.sampler_kernels = 3;
    ep.kv_bucket = 128;
    ep.metal.mm_above = 8;
    ep.metal.mm_tile = 32;
    ep.metal.mm_tile_rows = 64;
    ep.metal.ext_group[2] = 2;
    ep.metal.ext_group[3] = 3;
    ep.metal.ext_kquant_min = 4;
    ep.metal.mm_id_min = 32;
    ep.metal.fa_vec_below = 20;
    ep.metal.fa_vec_kv_fraction = 0.4187;
    ep.metal.mm_simdgroups = 4;
    ep.metal.occ_n = 3;
    memcpy(ep.metal.core_simds, (double[]){4, 8, 24}, 3 * sizeof(double));
    memcpy(ep.metal.core_cycles, (double[]){1.79, 1.29, 1.02}, 3 * sizeof(double));
    ep.mmq_id_above = 1;
    ep.mmq_tile_step = 8;
    ep.mmq_tile_tokens = 128;
    ep.mmq_tile_rows = 64;
    ep.mmq_above = 8;
    ep.serving.reserve_fraction = -1; /* not given (engine_serving convention) */
    /* a fact that is not fitted keeps its own source */
    char *keys[] = {"ubatch",
                    "dequant_buffer",
                    "dequant_buffer_above",
                    "flash_attention",
                    "score_bytes",
                    "pipeline_copies",
                    "custom_allreduce_max",
                    "kv_bucket",
                    "metal.mm_above",
                    "metal.mm_tile",
                    "metal.ext_group",
                    "metal.ext_kquant_min",
                    "metal.mm_tile_rows",

                    "mmq_tile_tokens",
                    "mmq_tile_rows",
                    "mmq_above",
                    "metal.mm_id_min",
                    "mmq_id_above",
                    "mmq_tile_step",
                    "fa_mask_bytes",
                    "metal.fa_vec_below",
                    "metal.mm_simdgroups",
                    "metal.core_simds",
                    "metal.core_cycles",
                    "metal.fa_vec_kv_fraction",
                    "custom_allreduce_latency",
                    "sampler_kernels"},
         *texts[] = {"llama.cpp default -ub 512",
                     "cuBLAS path",
                     "MMQ_MAX_BATCH_SIZE 32",
                     "llama-bench -fa 0",
                     "24 B",
                     "GGML_SCHED_MAX_COPIES",
                     "custom_all_reduce.py max_size",
                     "--bucket_size 128",
                     "ne11_mm_min",
                     "mul_mm dispatch",
                     "r1ptg",
                     "K-quants",
                     "64 rows",
                     "mmq.cuh get_mmq_x_max_host",
                     "mmq.cuh get_mmq_y_host",
                     "MMVQ_MAX_BATCH_SIZE 8",
                     "ne21_mm_id_min",
                     "ne2 == 1",
                     "mmq_x += 8",
                     "flash_attn_ext_f16_load_mask",
                     "ne01 < 20",
                     "128 threads",
                     "4 simds/core",
                     "FFMA16 ILP 4",
                     "PR #26570 master",
                     "vLLM PR #24111 ca_1stage",
                     "sampler.py greedy path"};
    ep.source_keys = keys;
    ep.source_texts = texts;
    ep.n_sources = 27;
    struct err_list errs = {0};
    CHECK(calparams_save(dir, dev, &bands, &ep, 1, "test on 2026-01-01", &errs) == 0);
    print_errs(&errs);

    char path[256];
    snprintf(path, sizeof path, "%s/calibration/device-classes.yaml", dir);
    struct dev_params back[DEV_CLASS_COUNT];
    struct cal_bands bback;
    memset(back, 0, sizeof back);
    memset(&bback, 0, sizeof bback);
    CHECK(calparams_load(path, back, &bback, &errs) == 0);
    print_errs(&errs);
    for (int c = 0; c < DEV_CLASS_COUNT; c++) {
        CHECK_NEAR(back[c].memory_efficiency, dev[c].memory_efficiency, 1e-12);
        CHECK_NEAR(back[c].compute_efficiency, dev[c].compute_efficiency, 1e-12);
        CHECK_NEAR(back[c].memory_latency_s, dev[c].memory_latency_s, 1e-12);
        CHECK_NEAR(back[c].compute_units, dev[c].compute_units, 0);
    }
    CHECK(bback.have);
    CHECK(memcmp(bback.q, bands.q, sizeof bands.q) == 0);

    snprintf(path, sizeof path, "%s/engine_profiles/testengine.yaml", dir);
    struct engine_profile *e = engine_load(path, &errs);
    print_errs(&errs);
    CHECK(e != NULL);
    if (e) {
        CHECK_STR(e->name, "testengine");
        CHECK_NEAR(e->kernel_overhead_s, 4.5e-6, 1e-12);
        CHECK_NEAR(e->step_overhead_s, 120e-6, 1e-12);
        CHECK_NEAR(e->memory_efficiency, 0.875, 0);
        CHECK_NEAR(e->compute_efficiency, 0.75, 0);
        CHECK_NEAR(e->inflight_bytes_per_unit, 32768, 0);
        CHECK_NEAR(e->dequant_scale, 1.5, 0);
        CHECK_NEAR(e->ubatch_tokens, 512, 0);
        CHECK(e->dequant_buffer);
        CHECK_NEAR(e->dequant_buffer_above, 32, 0);
        CHECK(e->no_flash_attention);
        CHECK_NEAR(e->score_bytes, 24, 0);
        CHECK_NEAR(e->fa_mask_bytes, 2, 0);
        CHECK_NEAR(e->pipeline_copies, 4, 0);
        CHECK_NEAR(e->custom_allreduce_max_bytes, 8388608, 0);
        CHECK_NEAR(e->custom_allreduce_latency_s, 2.92e-6, 1e-15);
        CHECK_NEAR(e->sampler_kernels, 3, 0);
        bool ar_kept = false; /* a measured figure keeps its own source */
        for (int j = 0; j < e->n_sources; j++)
            ar_kept |= strcmp(e->source_keys[j], "custom_allreduce_latency") == 0 &&
                       strcmp(e->source_texts[j], "vLLM PR #24111 ca_1stage") == 0;
        CHECK(ar_kept);
        CHECK_NEAR(e->kv_bucket, 128, 0);
        CHECK(memcmp(&e->metal, &ep.metal, sizeof ep.metal) == 0);
        for (int k = 8; k < 13; k++) {
            bool kept = false;
            for (int j = 0; j < e->n_sources; j++)
                kept |= strcmp(e->source_keys[j], keys[k]) == 0 &&
                        strcmp(e->source_texts[j], texts[k]) == 0;
            CHECK(kept);
        }
        CHECK_NEAR(e->mmq_tile_tokens, 128, 0);
        CHECK_NEAR(e->mmq_tile_rows, 64, 0);
        CHECK_NEAR(e->mmq_above, 8, 0);
        CHECK_NEAR(e->mmq_id_above, 1, 0);
        CHECK_NEAR(e->mmq_tile_step, 8, 0);
        CHECK_NEAR(e->metal.mm_id_min, 32, 0);
        CHECK_NEAR(e->metal.fa_vec_below, 20, 0);
        CHECK_NEAR(e->metal.fa_vec_kv_fraction, 0.4187, 1e-12);
        for (int k = 16; k < 21; k++) {
            bool kept = false;
            for (int j = 0; j < e->n_sources; j++)
                kept |= strcmp(e->source_keys[j], keys[k]) == 0 &&
                        strcmp(e->source_texts[j], texts[k]) == 0;
            CHECK(kept);
        }
        engine_profile_free(e);
    }
    /* a missing file keeps the defaults; a bad one fails with a positioned error */
    CHECK(calparams_load("/nonexistent/device-classes.yaml", back, &bback, &errs) == 0);
    err_list_release(&errs);
    snprintf(path, sizeof path, "%s/bad.yaml", dir);
    FILE *f = fopen(path, "w");
    if (f) {
        fputs("classes:\n  cpu: {memory_efficiency: 0.8, bogus: 1}\n", f);
        fclose(f);
    }
    CHECK(errs.n == 0);
    CHECK(calparams_load(path, back, &bback, &errs) == -1);
    CHECK(errs.n >= 1);
    if (errs.n >= 1) {
        CHECK(errs.items[0].line == 2);
        CHECK_CONTAINS(errs.items[0].msg, "bogus");
    }
    err_list_release(&errs);
    rm_tree(dir);
}

TEST(io_hw_profile_round_trip)
{
    /* every field the writer knows survives hw_profile_text -> hw_load; a datasheet profile
     * (interconnect, power, memory type) as well as the host profiles bench writes */
    char *dir = tmp_dir();
    if (!dir) {
        FAIL_AT("mkdtemp failed");
        return;
    }
    static const char *const IDS[] = {"h100-sxm", "mi300x", "rtx-4090"};
    for (size_t i = 0; i < sizeof IDS / sizeof IDS[0]; i++) {
        struct hw_profile *hw = test_hw(IDS[i]);
        struct strbuf t = {0};
        CHECK(hw_profile_text(hw, &t) == 0);
        char path[256];
        snprintf(path, sizeof path, "%s/%s.yaml", dir, IDS[i]);
        struct err_list errs = {0};
        CHECK(afile_write(path, t.buf, t.len, &errs) == 0);
        struct hw_profile *back = hw_load(path, &errs);
        print_errs(&errs);
        CHECK(back != NULL);
        if (back) {
            CHECK_STR(back->name, hw->name);
            CHECK_STR(back->vendor, hw->vendor);
            CHECK_STR(back->kind, hw->kind);
            CHECK_NEAR(back->memory_capacity_bytes, hw->memory_capacity_bytes, 1e-6);
            CHECK_NEAR(back->memory_reported_bytes, hw->memory_reported_bytes, 1e-6);
            CHECK_NEAR(back->memory_bandwidth_bytes_per_s, hw->memory_bandwidth_bytes_per_s, 1e-4);
            for (int d = DT_ROOF_FIRST; d <= DT_ROOF_LAST; d++)
                CHECK_NEAR(back->peak_flops_per_s[d], hw->peak_flops_per_s[d], 1e-4);
            CHECK_NEAR(back->compute_units, hw->compute_units, 0);
            CHECK_NEAR(back->boost_clock_hz, hw->boost_clock_hz, 1e-4);
            for (int l = 0; l < 4; l++)
                CHECK_NEAR(back->cache_bytes[l], hw->cache_bytes[l], 1e-6);
            CHECK((back->link_kind == NULL) == (hw->link_kind == NULL));
            CHECK_NEAR(back->link_bandwidth_bytes_per_s, hw->link_bandwidth_bytes_per_s, 1e-4);
            CHECK(back->link_direction == hw->link_direction);
            CHECK_NEAR(back->tdp_w, hw->tdp_w, 1e-4);
            CHECK_NEAR(back->cuda_capability, hw->cuda_capability, 0);
            hw_free(back);
        }
        err_list_release(&errs);
        strbuf_release(&t);
        hw_free(hw);
    }
    rm_tree(dir);
}

/* ---- the document frame (io/ydoc.c) and the shared checks (io/ycheck.c) ---- */

struct tdoc {
    char *name;
    long n;
};
static int tdoc_frees;

static void
tdoc_fill(struct ycheck *y, const struct ynode *root, void *obj, const void *arg)
{
    struct tdoc *d = obj;
    d->n = *(const long *)arg;
    const char *s;
    if (ycheck_str(y, root, "", "name", true, &s))
        d->name = strdup(s);
    ycheck_long(y, root, "", "n", false, 1, &d->n);
}

static void
tdoc_free(void *obj)
{
    struct tdoc *d = obj;
    tdoc_frees++;
    free(d->name);
    free(d);
}

static const char *const TDOC_KEYS[] = {"name", "n"};
static const struct ydoc_format TDOC = {.what = "a test document",
                                        .root = YNODE_MAP,
                                        .keys = TDOC_KEYS,
                                        .n_keys = 2,
                                        .size = sizeof(struct tdoc),
                                        .fill = tdoc_fill,
                                        .free = tdoc_free};

/* the one error of `errs` as text, "" when there is not exactly one */
static const char *
only_error(const struct err_list *errs)
{
    static char buf[512];
    buf[0] = '\0';
    if (errs->n == 1)
        err_format(&errs->items[0], buf, sizeof buf);
    return buf;
}

TEST(io_ydoc_frame)
{
    long dflt = 7;
    struct err_list errs = {0};
    const char *ok = "name: a\n";
    struct tdoc *d = ydoc_parse(&TDOC, "t.yaml", ok, strlen(ok), &dflt, &errs);
    CHECK(d != NULL && errs.n == 0);
    if (d) {
        CHECK_STR(d->name, "a");
        CHECK(d->n == 7); /* arg reaches fill */
        tdoc_free(d);
    }
    /* the wrong root: one error at it, and fill never runs */
    tdoc_frees = 0;
    const char *list = "- a\n";
    CHECK(ydoc_parse(&TDOC, "t.yaml", list, strlen(list), &dflt, &errs) == NULL);
    CHECK_STR(only_error(&errs),
              "t.yaml:1:1: error: a test document must be a mapping of keys, not a list");
    CHECK(tdoc_frees == 1);
    err_list_release(&errs);
    /* the top-level keys are checked before fill; any error frees the object */
    const char *typo = "name: a\nm: 3\n";
    CHECK(ydoc_parse(&TDOC, "t.yaml", typo, strlen(typo), &dflt, &errs) == NULL);
    CHECK_STR(only_error(&errs), "t.yaml:2:1: error: unknown key 'm' (did you mean 'n'?)");
    CHECK(tdoc_frees == 2);
    err_list_release(&errs);
    /* errors before the document do not count against it */
    err_add(&errs, "other.yaml", 1, 1, ERR_ERROR, "an earlier problem");
    d = ydoc_parse(&TDOC, "t.yaml", ok, strlen(ok), &dflt, &errs);
    CHECK(d != NULL && errs.n == 1);
    if (d)
        tdoc_free(d);
    err_list_release(&errs);
    /* a quiet list: the document loads with its problems, the wrong root does not */
    d = ydoc_parse(&TDOC, "t.yaml", typo, strlen(typo), &dflt, NULL);
    CHECK(d != NULL);
    if (d)
        tdoc_free(d);
    CHECK(ydoc_parse(&TDOC, "t.yaml", list, strlen(list), &dflt, NULL) == NULL);
    /* a file that is not there: the reader's error */
    CHECK(ydoc_load(&TDOC, "/nonexistent/t.yaml", &dflt, &errs) == NULL);
    CHECK(errs.n == 1);
    err_list_release(&errs);
}

TEST(io_ydoc_relative)
{
    char *p = ydoc_relative("reports/q.yaml", "../hw/x.yaml");
    CHECK_STR(p, "reports/../hw/x.yaml");
    free(p);
    p = ydoc_relative("q.yaml", "x.yaml");
    CHECK_STR(p, "x.yaml");
    free(p);
    p = ydoc_relative("a/b/q.yaml", "/abs/x.yaml");
    CHECK_STR(p, "/abs/x.yaml");
    free(p);
}

TEST(io_ycheck_shared)
{
    static const char *const POL[] = {"static", "continuous", "chunked"};
    const char *text = "p: continuous\nq: contnuous\nr: zzz\n"
                       "s: {min: 5, max: 3}\nt: {dist: lognormal, x: 1}\nu: {x: 0.5}\n";
    struct err_list errs = {0};
    struct ynode *root = ynode_parse("c.yaml", text, strlen(text), &errs);
    CHECK(root != NULL);
    if (!root)
        return;
    struct ycheck y;
    ycheck_init(&y, "c.yaml", &errs);
    CHECK(ycheck_enum(&y, ynode_get(root, "p"), "p", "continuous", POL, 3) == 1);
    CHECK(ycheck_clean(&y));
    CHECK(ycheck_enum(&y, ynode_get(root, "q"), "q", "contnuous", POL, 3) == -1);
    CHECK_STR(only_error(&errs),
              "c.yaml:2:4: error: 'q' is 'contnuous' (did you mean 'continuous'?)");
    CHECK(!ycheck_clean(&y));
    err_list_release(&errs);
    ycheck_init(&y, "c.yaml", &errs);
    CHECK(ycheck_enum(&y, ynode_get(root, "r"), "r", "zzz", POL, 3) == -1);
    CHECK_STR(only_error(&errs),
              "c.yaml:3:4: error: 'r' is 'zzz'; expected one of: static, continuous, chunked");
    err_list_release(&errs);
    const struct ynode *s = ynode_get(root, "s");
    CHECK(ycheck_min_max(&y, s, "s", 1, 0)); /* no max */
    CHECK(ycheck_min_max(&y, s, "s", 3, 3)); /* equal is fine */
    CHECK(!ycheck_min_max(&y, s, "s", 5, 3));
    CHECK_STR(only_error(&errs), "c.yaml:4:18: error: 's.max' (3) is below 's.min' (5)");
    err_list_release(&errs);
    static const char *const DKEYS[] = {"dist", "x"};
    static const char *const KINDS[] = {"fixed", "uniform", "lognormal"};
    CHECK(ycheck_tagged(&y, ynode_get(root, "t"), "t", DKEYS, 2, "dist", KINDS, 3) == 2);
    CHECK(errs.n == 0);
    CHECK(ycheck_tagged(&y, ynode_get(root, "u"), "u", DKEYS, 2, "dist", KINDS, 3) == -1);
    CHECK_STR(only_error(&errs), "c.yaml:6:4: error: missing required key 'dist' in 'u'");
    err_list_release(&errs);
    double x = -1;
    const struct ynode *u = ynode_get(root, "u");
    CHECK(ycheck_num_in(&y, u, "u", "x", 0, true, 1, &x) && x == 0.5);
    CHECK(!ycheck_num_in(&y, u, "u", "x", 0.5, true, 1, &x)); /* lo excluded */
    CHECK_STR(only_error(&errs), "c.yaml:6:8: error: 'u.x' must be in (0.5, 1], got 0.5");
    err_list_release(&errs);
    CHECK(!ycheck_num_in(&y, u, "u", "x", 1, false, INFINITY, &x));
    CHECK_STR(only_error(&errs), "c.yaml:6:8: error: 'u.x' must be at least 1, got 0.5");
    CHECK(!ycheck_num_in(&y, u, "u", "absent", 0, false, 1, &x)); /* optional: no error */
    CHECK(errs.n == 1);
    err_list_release(&errs);
    ycheck_release(&y);
    ynode_free(root);
}

/* the loader reads a row's run settings; absent, they leave the engine's defaults */
TEST(io_measurement_row_settings)
{
    char path[] = "/tmp/roofline-meas-XXXXXX";
    int fd = mkstemp(path);
    CHECK(fd >= 0);
    FILE *f = fdopen(fd, "w");
    fputs("- {id: a, source: s, hardware: dgx-spark, model: qwen2.5-7b, weights: q8_0, engine: "
          "llama.cpp, phase: prefill, batch: 1, prompt: 2048, depth: 32768, ubatch: 2048, "
          "flash_attention: true, metric: tokens_per_s, value: 1283.36}\n"
          "- {id: b, source: s, hardware: dgx-spark, model: qwen2.5-7b, weights: q8_0, engine: "
          "llama.cpp, phase: decode, batch: 1, context: 16, flash_attention: false, metric: "
          "tokens_per_s, value: 29.3}\n"
          "- {id: c, source: s, hardware: dgx-spark, model: qwen2.5-7b, weights: q8_0, engine: "
          "llama.cpp, phase: decode, batch: 1, context: 16, metric: tokens_per_s, value: 29.3}\n"
          "- {id: d, source: s, hardware: dgx-spark, model: qwen2.5-7b, weights: q8_0, engine: "
          "llama.cpp, quantized_gemm: mmq, phase: decode, batch: 16, context: 528, metric: "
          "tokens_per_s, value: 335}\n"
          "- {id: e, source: s, hardware: a100-sxm-80gb, model: llama-2-7b, weights: fp16, "
          "engine: kernel, phase: kernel, batch: 1, op: attn_prefill, attn_kernel: flash_kvcache, "
          "tp: 1, kv_len: 0, chunk: 2560, metric: time_ms, value: 1.142}\n",
          f);
    fclose(f);
    struct err_list errs = {0};
    struct meas_set *s = meas_load(path, &errs);
    remove(path);
    CHECK(s != NULL);
    if (s) {
        CHECK(s->n == 5);
        CHECK_NEAR(s->rows[0].pc.depth, 32768, 0);
        CHECK_NEAR(s->rows[0].pc.ubatch, 2048, 0);
        CHECK(s->rows[0].pc.flash_attention == PRED_FA_ON);
        CHECK(s->rows[1].pc.flash_attention == PRED_FA_OFF);
        CHECK(s->rows[2].pc.flash_attention == PRED_FA_DEFAULT);
        CHECK(s->rows[2].pc.ubatch == 0 && s->rows[2].pc.depth == 0);
        CHECK(s->rows[2].pc.quantized_gemm == PRED_QG_DEFAULT);
        CHECK(s->rows[3].pc.quantized_gemm == PRED_QG_MMQ);
        CHECK(s->rows[3].pc.attn_kernel == PRED_AK_DEFAULT);
        CHECK(s->rows[4].pc.attn_kernel == PRED_AK_FLASH_KVCACHE);
    }
    meas_set_free(s);
    print_errs(&errs);
    err_list_release(&errs);
}

/* One list of engine names: the files of engine_profiles/ (what scenarios, questions and
 * --engine take) and, for measurements, the generic model's engines; every unknown-engine
 * message is built from it, so adding an engine is adding its file */
static bool
has_name(char *const *v, int n, const char *name)
{
    for (int i = 0; i < n; i++)
        if (strcmp(v[i], name) == 0)
            return true;
    return false;
}

static const char *
first_msg(const struct err_list *e)
{
    for (size_t i = 0; i < e->n; i++)
        if (e->items[i].severity == ERR_ERROR)
            return e->items[i].msg;
    return "";
}

TEST(io_engine_names_one_list)
{
    char **prof, **all;
    int np = engine_names(false, &prof), na = engine_names(true, &all);
    CHECK(np >= 9 && na == np + 6);
    for (int i = 0; i < np; i++) {
        char p[512];
        struct stat st;
        snprintf(p, sizeof p, "%s/engine_profiles/%s.yaml", prof_data_dir(), prof[i]);
        CHECK(stat(p, &st) == 0);
        CHECK(i == 0 || strcmp(prof[i - 1], prof[i]) < 0);
        CHECK(has_name(all, na, prof[i]));
    }
    CHECK(has_name(prof, np, "kernel") && has_name(prof, np, "llama.cpp") &&
          has_name(prof, np, "vllm-v0") && !has_name(prof, np, "ollama"));
    CHECK(has_name(all, na, "ollama") && has_name(all, na, "optimum-habana"));
    /* the unknown engine's message names them all: the profiled, then the generic ones */
    struct err_list e = {0};
    CHECK(engine_find("vlm", &e) == NULL);
    const char *msg = first_msg(&e);
    CHECK(strstr(msg, "unknown engine 'vlm' (deepspeed, kernel, llama.cpp, ") == msg);
    for (int i = 0; i < na; i++)
        CHECK(strstr(msg, all[i]) != NULL);
    CHECK(strstr(msg, "vllm-v0, or one predicted by the generic model: lmdeploy, ") != NULL);
    err_list_release(&e);
    /* a scenario takes the profiled ones and says which */
    const char *st = "name: t\nmodel: llama-3-8b\nengine: vlm\n"
                     "hardware: {id: h100-sxm}\n"
                     "scheduler: {policy: continuous}\n"
                     "arrivals: {process: poisson, rate_per_s: 1}\n"
                     "lengths: {prompt: 100, output: 10}\n"
                     "run: {requests: 10}\n";
    struct scenario *s = scenario_parse("s.yaml", st, strlen(st), &e);
    CHECK(s == NULL);
    msg = first_msg(&e);
    CHECK(strstr(msg, "unknown engine 'vlm' (did you mean 'vllm'?); accepted: deepspeed, ") == msg);
    for (int i = 0; i < np; i++)
        CHECK(strstr(msg, prof[i]) != NULL);
    CHECK(strstr(msg, "ollama") == NULL);
    err_list_release(&e);
    /* a new engine is a file: a data directory with one more profile accepts it everywhere */
    char *dir = tmp_dir();
    char old[4096], p[4200];
    snprintf(old, sizeof old, "%s", prof_data_dir());
    /* the links need an absolute target: the data directory may be "." (no ROOFLINE_DATA) */
    char abs_old[2048], cwd[1024];
    if (old[0] == '/' || !getcwd(cwd, sizeof cwd))
        snprintf(abs_old, sizeof abs_old, "%.2000s", old);
    else
        snprintf(abs_old, sizeof abs_old, "%.1000s/%.1000s", cwd, old);
    const char *sub[] = {"hardware_profiles", "model_profiles", "calibration"};
    for (int i = 0; i < 3; i++) {
        char from[4200];
        snprintf(from, sizeof from, "%s/%s", abs_old, sub[i]);
        snprintf(p, sizeof p, "%s/%s", dir, sub[i]);
        CHECK(symlink(from, p) == 0);
    }
    snprintf(p, sizeof p, "%s/engine_profiles", dir);
    CHECK(mkdir(p, 0700) == 0);
    snprintf(p, sizeof p, "%s/engine_profiles/new-engine.yaml", dir);
    const char *yaml = "name: new-engine\nkernel_overhead: 10 us\nmemory_efficiency: 1\n"
                       "compute_efficiency: 1\nsources: {kernel_overhead: t, "
                       "memory_efficiency: t, compute_efficiency: t}\n";
    CHECK(afile_write(p, yaml, strlen(yaml), NULL) == 0);
    prof_set_data_dir(dir);
    char **now;
    int nn = engine_names(false, &now);
    CHECK(nn == 1 && has_name(now, nn, "new-engine"));
    engine_names_free(now, nn);
    const char *st2 = "name: t\nmodel: llama-3-8b\nengine: new-engine\n"
                      "hardware: {id: h100-sxm}\n"
                      "scheduler: {policy: continuous}\n"
                      "arrivals: {process: poisson, rate_per_s: 1}\n"
                      "lengths: {prompt: 100, output: 10}\n"
                      "run: {requests: 10}\n";
    s = scenario_parse("s.yaml", st2, strlen(st2), &e);
    for (size_t i = 0; i < e.n; i++)
        if (e.items[i].severity == ERR_ERROR)
            fprintf(stderr, "%s\n", e.items[i].msg);
    CHECK(s != NULL && s->eng != NULL);
    scenario_free(s);
    err_list_release(&e);
    prof_set_data_dir(old);
    rm_tree(dir);
    engine_names_free(prof, np);
    engine_names_free(all, na);
}
