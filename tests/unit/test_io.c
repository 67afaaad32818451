/* io/: every file format's writer read back by its reader (round trips). */
#include "core/calib.h"
#include "io/calparams.h"
#include "io/measure.h"
#include "io/profiles.h"
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
    ep.serving.reserve_fraction = -1; /* not given (engine_serving convention) */
    /* a fact that is not fitted keeps its own source */
    char *keys[] = {"ubatch"}, *texts[] = {"llama.cpp default -ub 512"};
    ep.source_keys = keys;
    ep.source_texts = texts;
    ep.n_sources = 1;
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
            hw_free(back);
        }
        err_list_release(&errs);
        strbuf_release(&t);
        hw_free(hw);
    }
    rm_tree(dir);
}
