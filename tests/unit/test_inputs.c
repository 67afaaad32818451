/* Hostile input (issue 17): the hash set behind duplicate checks, whole-file reads that refuse
 * non-regular files and oversize ones, unit overflow, engine profile ranges. */
#include "test.h"

#include "core/calib.h"
#include "io/measure.h"
#include "io/scenario.h"
#include "sim/sim.h"
#include "util/err.h"
#include "util/rfile.h"
#include "util/strset.h"
#include "util/units.h"

#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

TEST(strset_finds_every_duplicate)
{
    enum { N = 20000 };
    static char keys[N][16];
    struct strset s;
    strset_init(&s);
    for (int i = 0; i < N; i++) {
        snprintf(keys[i], sizeof keys[i], "k%d", i % (N / 2));
        int first = -1;
        int rc = strset_add(&s, keys[i], i, &first);
        if (i < N / 2) {
            CHECK(rc == 1);
        } else {
            CHECK(rc == 0);
            CHECK(first == i - N / 2);
        }
    }
    CHECK(s.n == N / 2);
    CHECK(s.cap >= 2 * s.n);
    strset_release(&s);
    CHECK(s.keys == NULL && s.n == 0);
}

static void
write_file(const char *path, const char *text, size_t len)
{
    FILE *f = fopen(path, "wb");
    CHECK(f != NULL);
    if (f) {
        CHECK(fwrite(text, 1, len, f) == len);
        fclose(f);
    }
}

/* `text` written to `path` is refused by engine_load with a first error containing `want` */
static void
check_engine_refused(const char *path, const char *text, const char *want)
{
    write_file(path, text, strlen(text));
    struct err_list errs = {0};
    struct engine_profile *e = engine_load(path, &errs);
    CHECK(e == NULL);
    CHECK(errs.n >= 1);
    if (errs.n >= 1) {
        char buf[600];
        err_format(&errs.items[0], buf, sizeof buf);
        CHECK_CONTAINS(buf, want);
    }
    engine_profile_free(e);
    err_list_release(&errs);
}

/* The engine profile that `text`, written to `path`, loads to (NULL and a failed check when it is
 * refused); free it with engine_profile_free. */
static struct engine_profile *
engine_accepted(const char *path, const char *text)
{
    write_file(path, text, strlen(text));
    struct err_list errs = {0};
    struct engine_profile *e = engine_load(path, &errs);
    CHECK(e != NULL);
    err_list_release(&errs);
    return e;
}

/* A shipped engine profile, engine_profiles/NAME.yaml (NULL and a failed check when it does not
 * load); free it with engine_profile_free. */
static struct engine_profile *
engine_shipped(const char *name)
{
    char path[1024];
    snprintf(path, sizeof path, "%s/engine_profiles/%s.yaml", test_data_dir(), name);
    struct err_list errs = {0};
    struct engine_profile *e = engine_load(path, &errs);
    CHECK(e != NULL);
    err_list_release(&errs);
    return e;
}

/* Makes `path`, a char array holding "/tmp/...XXXXXX", a new temporary file for the profiles a
 * test writes (mkstemp); the test unlinks it. */
static void
engine_tmp(char *path)
{
    int fd = mkstemp(path);
    CHECK(fd >= 0);
    if (fd >= 0)
        close(fd);
}

/* A profile text and the error it must be refused with. */
struct refusal {
    const char *text, *want;
};

/* Each of the `n` texts, written to `path`, is refused with its error (check_engine_refused). */
static void
check_engine_refusals(const char *path, const struct refusal *bad, size_t n)
{
    for (size_t i = 0; i < n; i++)
        check_engine_refused(path, bad[i].text, bad[i].want);
}

TEST(rfile_regular_only_and_bounded)
{
    char dir[] = "/tmp/roofline-rfile-XXXXXX";
    CHECK(mkdtemp(dir) != NULL);
    char path[256], fifo[256];
    snprintf(path, sizeof path, "%s/a.yaml", dir);
    snprintf(fifo, sizeof fifo, "%s/fifo", dir);
    write_file(path, "name: x\n", 8);
    char *buf;
    size_t len;
    int e;
    CHECK(rfile_read(path, 100, &buf, &len, &e) == RFILE_OK);
    CHECK(len == 8 && buf && buf[8] == '\0' && strcmp(buf, "name: x\n") == 0);
    free(buf);
    /* exactly at the limit is fine, one byte more is not */
    CHECK(rfile_read(path, 8, &buf, &len, &e) == RFILE_OK);
    free(buf);
    CHECK(rfile_read(path, 7, &buf, &len, &e) == RFILE_TOO_LARGE && buf == NULL);
    CHECK(rfile_read(dir, 100, &buf, &len, &e) == RFILE_NOT_REGULAR);
    CHECK(rfile_read("/dev/zero", 100, &buf, &len, &e) == RFILE_NOT_REGULAR);
    CHECK(mkfifo(fifo, 0600) == 0);
    CHECK(rfile_read(fifo, 100, &buf, &len, &e) == RFILE_NOT_REGULAR); /* without blocking */
    snprintf(path, sizeof path, "%s/none", dir);
    CHECK(rfile_read(path, 100, &buf, &len, &e) == RFILE_OPEN && e != 0);
    CHECK_STR(rfile_strerror(RFILE_NOT_REGULAR, 0), "not a regular file");
    CHECK_STR(rfile_strerror(RFILE_TOO_LARGE, 0), "file larger than 64 MiB");
    CHECK(RFILE_MAX_BYTES == 64u * 1024 * 1024);
    unlink(fifo);
    snprintf(path, sizeof path, "%s/a.yaml", dir);
    unlink(path);
    rmdir(dir);
}

TEST(units_overflow_after_prefix_is_refused)
{
    double v = -1;
    const char *why = NULL;
    CHECK(unit_parse("1e300 TB", UNIT_BYTES, &v, &why) != 0);
    CHECK_STR(why, "number out of range");
    CHECK(unit_parse("1e300 PFLOPS", UNIT_FLOPS_PER_S, &v, &why) != 0);
    CHECK(unit_parse("1e300T", UNIT_COUNT_SUFFIX, &v, &why) != 0);
    CHECK_STR(why, "number out of range");
    CHECK(unit_parse("1e290 TB", UNIT_BYTES, &v, &why) == 0);
    CHECK_NEAR(v, 1e302, 1e-12);
}

TEST(engine_profile_ranges)
{
    char path[] = "/tmp/roofline-engine-XXXXXX";
    engine_tmp(path);
    const char *text = "name: x\nkernel_overhead: 2 s\nstep_overhead: 1e300 s\n"
                       "bytes_in_flight_per_unit: 2 GB\nubatch: 10000000\ntoken_overhead: -1 us\n"
                       "score_bytes: 0\npipeline_copies: 65\nfa_mask_bytes: 9\n"
                       "sources: {kernel_overhead: a, step_overhead: b, "
                       "bytes_in_flight_per_unit: c, ubatch: d, token_overhead: e, score_bytes: f, "
                       "pipeline_copies: g, fa_mask_bytes: h}\n";
    write_file(path, text, strlen(text));
    struct err_list errs = {0};
    struct engine_profile *e = engine_load(path, &errs);
    CHECK(e == NULL);
    CHECK(err_count(&errs, ERR_ERROR) == 8);
    char buf[600];
    err_format(&errs.items[0], buf, sizeof buf);
    CHECK(
        strstr(buf,
               ":2:18: error: 'kernel_overhead' is '2 s', outside the physical range 0 s to 1 s") !=
        NULL);
    bool mask = false;
    for (size_t i = 0; i < errs.n; i++) {
        err_format(&errs.items[i], buf, sizeof buf);
        mask |= strstr(buf, ":9:16: error: 'fa_mask_bytes' must be in (0, 8] bytes per mask "
                            "element, got 9") != NULL;
    }
    CHECK(mask);
    engine_profile_free(e);
    err_list_release(&errs);
    unlink(path);
}

TEST(engine_profile_metal_section)
{
    char path[] = "/tmp/roofline-engine-XXXXXX";
    engine_tmp(path);
    /* a good section loads; ext_group lists the columns per weight read for 2, 3, ... */
    const char *good =
        "name: x\nmetal: {mm_above: 8, mm_tile: 32, mm_tile_rows: 64, ext_group: [2, 3, 4], "
        "ext_kquant_min: 4, fa_vec_kv_fraction: 0.4187}\nsources: {metal.mm_above: a, "
        "metal.mm_tile: b, metal.mm_tile_rows: e, metal.ext_group: c, metal.ext_kquant_min: d, "
        "metal.fa_vec_kv_fraction: f}\n";
    struct engine_profile *e = engine_accepted(path, good);
    if (e) {
        CHECK_NEAR(e->metal.mm_above, 8, 0);
        CHECK_NEAR(e->metal.mm_tile, 32, 0);
        CHECK_NEAR(e->metal.ext_group[2], 2, 0);
        CHECK_NEAR(e->metal.ext_group[4], 4, 0);
        CHECK_NEAR(e->metal.ext_group[5], 0, 0);
        CHECK_NEAR(e->metal.ext_kquant_min, 4, 0);
        CHECK_NEAR(e->metal.fa_vec_kv_fraction, 0.4187, 0);
        CHECK(e->metal.occ_n == 0); /* no occupancy table: the full rate */
    }
    engine_profile_free(e);
    /* bad ones: a group above its columns, a list past mm_above, no mm_tile, an unknown key,
     * a number without a source */
    static const struct refusal BAD[] = {
        {"name: x\nmetal: {mm_above: 8, mm_tile: 32, mm_tile_rows: 64, ext_group: [3]}\n"
         "sources: {metal.mm_above: a, metal.mm_tile: b, metal.mm_tile_rows: e, metal.ext_group: "
         "c}\n",
         ":2:65: error: 'metal.ext_group' item 1 (at 2 columns) must be a whole number from 1 to "
         "2"},
        {"name: x\nmetal: {mm_above: 2, mm_tile: 32, mm_tile_rows: 64, ext_group: [2, 3]}\n"
         "sources: {metal.mm_above: a, metal.mm_tile: b, metal.mm_tile_rows: e, metal.ext_group: "
         "c}\n",
         "error: 'metal.ext_group' reaches 3 columns, above 'metal.mm_above' (2)"},
        {"name: x\nmetal: {mm_above: 8}\nsources: {metal.mm_above: a}\n",
         ":2:8: error: missing required key 'mm_tile' in 'metal'"},
        {"name: x\nmetal: {mm_above: 8, mm_tile: 32, mm_tile_rows: 64, tile: 2}\n"
         "sources: {metal.mm_above: a, metal.mm_tile: b}\n",
         "unknown key 'metal.tile'"},
        {"name: x\nmetal: {mm_above: 8, mm_tile: 32, mm_tile_rows: 64}\nsources: {metal.mm_above: "
         "a, metal.mm_tile_rows: e}\n",
         "'metal.mm_tile' has no source"},
        /* the vector kernel's KV stream: a fraction of the memory bandwidth */
        {"name: x\nmetal: {mm_above: 8, mm_tile: 32, mm_tile_rows: 64, fa_vec_kv_fraction: 1.5}\n"
         "sources: {metal.mm_above: a, metal.mm_tile: b, metal.mm_tile_rows: e, "
         "metal.fa_vec_kv_fraction: f}\n",
         ":2:73: error: 'metal.fa_vec_kv_fraction' must be a fraction in (0, 1], got 1.5"},
        /* the occupancy table: all three keys, ascending simdgroups, one cycle count a point */
        {"name: x\nmetal: {mm_above: 8, mm_tile: 32, mm_tile_rows: 64, mm_simdgroups: 4}\n"
         "sources: {metal.mm_above: a, metal.mm_tile: b, metal.mm_tile_rows: e, "
         "metal.mm_simdgroups: f}\n",
         "error: 'metal' needs mm_simdgroups, core_simds and core_cycles together"},
        {"name: x\nmetal: {mm_above: 8, mm_tile: 32, mm_tile_rows: 64, mm_simdgroups: 4, "
         "core_simds: [8, 4], core_cycles: [1.3, 1.8]}\n"
         "sources: {metal.mm_above: a, metal.mm_tile: b, metal.mm_tile_rows: e, "
         "metal.mm_simdgroups: f, metal.core_simds: g, metal.core_cycles: h}\n",
         "error: 'metal.core_simds' item 2 (4) must be above item 1 (8)"},
        {"name: x\nmetal: {mm_above: 8, mm_tile: 32, mm_tile_rows: 64, mm_simdgroups: 4, "
         "core_simds: [4, 8], core_cycles: [1.8]}\n"
         "sources: {metal.mm_above: a, metal.mm_tile: b, metal.mm_tile_rows: e, "
         "metal.mm_simdgroups: f, metal.core_simds: g, metal.core_cycles: h}\n",
         "error: 'metal.core_cycles' lists 1 numbers and 'metal.core_simds' 2: one a point"},
        {"name: x\nmetal: {mm_above: 8, mm_tile: 32, mm_tile_rows: 64, mm_simdgroups: 4, "
         "core_simds: [4, 8], core_cycles: [1.8, -1]}\n"
         "sources: {metal.mm_above: a, metal.mm_tile: b, metal.mm_tile_rows: e, "
         "metal.mm_simdgroups: f, metal.core_simds: g, metal.core_cycles: h}\n",
         "error: 'metal.core_cycles' item 2 must be a positive number"},
        {"name: x\nmetal: {mm_above: 8, mm_tile: 32, mm_tile_rows: 64, mm_simdgroups: 4, "
         "core_simds: [4, 8], core_cycles: [1.8, 1.3]}\n"
         "sources: {metal.mm_above: a, metal.mm_tile: b, metal.mm_tile_rows: e, "
         "metal.mm_simdgroups: f, metal.core_simds: g}\n",
         "'metal.core_cycles' has no source"},
    };
    check_engine_refusals(path, BAD, sizeof BAD / sizeof BAD[0]);
    unlink(path);
}

/* custom_allreduce_latency: a time up to 1 ms with its source, inherited through `like` with
 * custom_allreduce_max; the shipped vLLM and SGLang profiles carry 2.92 us (vLLM PR #24111,
 * docs/physics.md#custom-all-reduce) */
TEST(engine_profile_custom_allreduce_latency)
{
    char path[] = "/tmp/roofline_eng_XXXXXX";
    engine_tmp(path);
    const char *good = "name: x\ncustom_allreduce_max: 8 MiB\ncustom_allreduce_latency: 2.92 us\n"
                       "sources: {custom_allreduce_max: a, custom_allreduce_latency: b}\n";
    struct engine_profile *e = engine_accepted(path, good);
    if (e)
        CHECK_NEAR(e->custom_allreduce_latency_s, 2.92e-6, 1e-15);
    engine_profile_free(e);
    static const struct refusal BAD[] = {
        {"name: x\ncustom_allreduce_latency: 0 us\nsources: {custom_allreduce_latency: b}\n",
         ":2:27: error: 'custom_allreduce_latency' must be positive, got '0 us'"},
        {"name: x\ncustom_allreduce_latency: 2 ms\nsources: {custom_allreduce_latency: b}\n",
         ":2:27: error: 'custom_allreduce_latency' is '2 ms', outside the physical range"},
        {"name: x\ncustom_allreduce_latency: 3\nsources: {custom_allreduce_latency: b}\n",
         ":2:27: error: 'custom_allreduce_latency': cannot read '3' as a time"},
        {"name: x\ncustom_allreduce_latency: 3 us\nsources: {other: b}\n",
         ":2:27: error: 'custom_allreduce_latency' has no source"},
    };
    check_engine_refusals(path, BAD, sizeof BAD / sizeof BAD[0]);
    unlink(path);
    const char *shipped[] = {"vllm", "sglang"};
    for (size_t i = 0; i < 2; i++) {
        e = engine_shipped(shipped[i]);
        if (e)
            CHECK_NEAR(e->custom_allreduce_latency_s, 2.92e-6, 1e-15);
        engine_profile_free(e);
    }
}

/* sampler_kernels: a whole number of launches from 1 to 64 with its source; the shipped vLLM
 * profile carries the greedy path's 3 (docs/physics.md#logits-and-sampler) */
TEST(engine_profile_sampler_kernels)
{
    char path[] = "/tmp/roofline_eng_XXXXXX";
    engine_tmp(path);
    static const struct refusal BAD[] = {
        {"name: x\nsampler_kernels: 0\nsources: {sampler_kernels: a}\n",
         ":2:18: error: 'sampler_kernels' must be at least 1, got 0"},
        {"name: x\nsampler_kernels: 65\nsources: {sampler_kernels: a}\n",
         ":2:18: error: 'sampler_kernels' must be at most 64, got 65"},
        {"name: x\nsampler_kernels: 2.5\nsources: {sampler_kernels: a}\n",
         ":2:18: error: 'sampler_kernels' must be a whole number, got '2.5'"},
    };
    check_engine_refusals(path, BAD, sizeof BAD / sizeof BAD[0]);
    unlink(path);
    struct engine_profile *e = engine_shipped("vllm");
    if (e)
        CHECK_NEAR(e->sampler_kernels, 3, 0);
    engine_profile_free(e);
}

/* triton_moe_kernels: a whole number of launches from 1 to 256 with its source; the shipped vLLM
 * profile carries its hand count (17, docs/physics.md#moe-kernels) */
TEST(engine_profile_triton_moe_kernels)
{
    char path[] = "/tmp/roofline_eng_XXXXXX";
    engine_tmp(path);
    const char *good = "name: x\ntriton_moe_kernels: 17\nsources: {triton_moe_kernels: a}\n";
    struct engine_profile *e = engine_accepted(path, good);
    if (e)
        CHECK_NEAR(e->triton_moe_kernels, 17, 0);
    engine_profile_free(e);
    check_engine_refused(path,
                         "name: x\ntriton_moe_kernels: 300\nsources: {triton_moe_kernels: a}\n",
                         ":2:21: error: 'triton_moe_kernels' must be at most 256, got 300");
    unlink(path);
    e = engine_shipped("vllm");
    if (e)
        CHECK_NEAR(e->triton_moe_kernels, 17, 0);
    engine_profile_free(e);
}

/* Two numeric fields of struct engine_profile (at byte offsets `oa` and `ob`) of the profile
 * `text` written to `path` (NULL: the shipped profile `name`), equal to a and b. */
static void
check_engine_pair(const char *path, const char *text, size_t oa, double a, size_t ob, double b)
{
    struct engine_profile *e = path ? engine_accepted(path, text) : engine_shipped(text);
    if (e) {
        CHECK_NEAR(*(const double *)((const char *)e + oa), a, 0);
        CHECK_NEAR(*(const double *)((const char *)e + ob), b, 0);
    }
    engine_profile_free(e);
}

/* marlin_moe_vs_peak (a fraction of the bf16 datasheet peak, in (0, 1]) and marlin_moe_kernels
 * (launches, 1 to 256), each with its source; the shipped vLLM profile carries 0.32 and 9
 * (docs/physics.md#moe-kernels), SGLang's neither */
TEST(engine_profile_marlin_moe)
{
    char path[] = "/tmp/roofline_eng_XXXXXX";
    engine_tmp(path);
    const size_t rate = offsetof(struct engine_profile, marlin_moe_vs_peak),
                 kernels = offsetof(struct engine_profile, marlin_moe_kernels);
    check_engine_pair(path,
                      "name: x\nmarlin_moe_vs_peak: 0.32\nmarlin_moe_kernels: 9\n"
                      "sources: {marlin_moe_vs_peak: a, marlin_moe_kernels: b}\n",
                      rate, 0.32, kernels, 9);
    check_engine_refused(path,
                         "name: x\nmarlin_moe_vs_peak: 1.5\nsources: {marlin_moe_vs_peak: a}\n",
                         ":2:21: error: 'marlin_moe_vs_peak' must be in (0, 1] (a fraction of the "
                         "bf16 datasheet peak), got 1.5");
    check_engine_refused(path, "name: x\nmarlin_moe_vs_peak: 0\nsources: {marlin_moe_vs_peak: a}\n",
                         ":2:21: error: 'marlin_moe_vs_peak' must be in (0, 1]");
    check_engine_refused(path, "name: x\nmarlin_moe_kernels: 0\nsources: {marlin_moe_kernels: a}\n",
                         ":2:21: error: 'marlin_moe_kernels' must be at least 1, got 0");
    unlink(path);
    check_engine_pair(NULL, "vllm", rate, 0.32, kernels, 9);
    check_engine_pair(NULL, "sglang", rate, 0, kernels, 0);
}

/* fused_moe_kernels (launches, 1 to 256) and fused_moe_quant_kernels (1 to 16, only beside
 * fused_moe_kernels), each with its source; the shipped vLLM and SGLang profiles count 7 and 1
 * (docs/physics.md#moe-kernels), TensorRT-LLM's neither */
TEST(engine_profile_fused_moe)
{
    char path[] = "/tmp/roofline_eng_XXXXXX";
    engine_tmp(path);
    const size_t chain = offsetof(struct engine_profile, fused_moe_kernels),
                 quant = offsetof(struct engine_profile, fused_moe_quant_kernels);
    check_engine_pair(path,
                      "name: x\nfused_moe_kernels: 7\nfused_moe_quant_kernels: 3\n"
                      "sources: {fused_moe_kernels: a, fused_moe_quant_kernels: b}\n",
                      chain, 7, quant, 3);
    check_engine_refused(path, "name: x\nfused_moe_kernels: 0\nsources: {fused_moe_kernels: a}\n",
                         ":2:20: error: 'fused_moe_kernels' must be at least 1, got 0");
    check_engine_refused(path,
                         "name: x\nfused_moe_kernels: 7\nfused_moe_quant_kernels: 17\n"
                         "sources: {fused_moe_kernels: a, fused_moe_quant_kernels: b}\n",
                         ":3:26: error: 'fused_moe_quant_kernels' must be at most 16, got 17");
    check_engine_refused(path,
                         "name: x\nfused_moe_quant_kernels: 1\n"
                         "sources: {fused_moe_quant_kernels: a}\n",
                         ":2:26: error: 'fused_moe_quant_kernels' needs 'fused_moe_kernels' (the "
                         "chain it adds to)");
    unlink(path);
    const char *const shipped[] = {"vllm", "sglang", "tensorrt-llm"};
    for (int i = 0; i < 3; i++)
        check_engine_pair(NULL, shipped[i], chain, i < 2 ? 7 : 0, quant, i < 2 ? 1 : 0);
}

/* A boolean engine-profile key (the field at byte `off` of struct engine_profile): true is taken,
 * a number is refused at its position, the shipped profiles `yes` set it and `no` does not. */
static void
check_engine_bool(const char *key, size_t off, const char *const *yes, int n_yes, const char *no)
{
    char path[] = "/tmp/roofline_eng_XXXXXX", text[160], want[96];
    engine_tmp(path);
    snprintf(text, sizeof text, "name: x\n%s: true\nsources: {%s: a}\n", key, key);
    struct engine_profile *e = engine_accepted(path, text);
    if (e)
        CHECK(*(const bool *)((const char *)e + off));
    engine_profile_free(e);
    snprintf(text, sizeof text, "name: x\n%s: 2\nsources: {%s: a}\n", key, key);
    snprintf(want, sizeof want, ":2:%zu: error: '%s' must be true or false", strlen(key) + 3, key);
    check_engine_refused(path, text, want);
    unlink(path);
    for (int i = 0; i <= n_yes; i++) {
        e = engine_shipped(i < n_yes ? yes[i] : no);
        if (e)
            CHECK(*(const bool *)((const char *)e + off) == (i < n_yes));
        engine_profile_free(e);
    }
}

/* moe_sum_kernel: the shipped SGLang and vLLM profiles sum their experts' rows in a kernel of
 * their own (docs/physics.md#moe-kernels), TensorRT-LLM's does not say */
TEST(engine_profile_moe_sum_kernel)
{
    const char *const yes[] = {"sglang", "vllm"};
    check_engine_bool("moe_sum_kernel", offsetof(struct engine_profile, moe_sum_kernel), yes, 2,
                      "tensorrt-llm");
}

/* kv_window_blocks (docs/simulate.md#sliding-window-layers-in-the-kv-pool): the shipped vLLM
 * profile frees its sliding-window layers' blocks (the hybrid KV cache manager), SGLang's does
 * not say */
TEST(engine_profile_kv_window_blocks)
{
    const char *const yes[] = {"vllm"};
    check_engine_bool("kv_window_blocks", offsetof(struct engine_profile, serving.kv_window_blocks),
                      yes, 1, "sglang");
}

/* attn_dp (docs/physics.md#data-parallel-attention): none, total or per_rank; an engine with
 * none refuses data-parallel attention through its tuning; attn_dp_dense rank (vLLM,
 * TensorRT-LLM) or split; per-rank limits are the instance's
 * times the ranks (engine_serving_sched: vLLM 1024 sequences and 8192 tokens a rank, 8192 and
 * 65536 for 8 ranks), totals are not (SGLang 4096 and 8192 at any ranks); the shipped profiles
 * say which */
TEST(engine_profile_attn_dp)
{
    static const struct {
        const char *name, *mode;
    } SHIPPED[] = {{"vllm", "per_rank"}, {"tensorrt-llm", "per_rank"}, {"sglang", "total"},
                   {"kernel", "total"},  {"llama.cpp", "none"},        {"deepspeed", "none"},
                   {"tgi", "none"},      {"vllm-v0", "none"},          {"optimum-habana", "none"}};
    for (size_t i = 0; i < sizeof SHIPPED / sizeof SHIPPED[0]; i++) {
        struct engine_profile *e = engine_shipped(SHIPPED[i].name);
        if (!e)
            continue;
        CHECK(strcmp(e->serving.attn_dp, SHIPPED[i].mode) == 0);
        struct hw_profile hw;
        struct dev_params dev;
        struct roof_tuning t;
        memset(&hw, 0, sizeof hw);
        memset(&dev, 0, sizeof dev);
        calib_tuning(&hw, &dev, e, &t);
        CHECK(t.no_attn_dp == (strcmp(SHIPPED[i].mode, "none") == 0));
        /* the dense parts each rank's where the limits are (vLLM, TensorRT-LLM) */
        CHECK(t.attn_dp_dense_rank == (strcmp(SHIPPED[i].mode, "per_rank") == 0));
        engine_profile_free(e);
    }
    struct engine_profile *v = engine_shipped("vllm"), *g = engine_shipped("sglang");
    if (v && g) {
        struct sim_sched s;
        for (int ranks = 0; ranks <= 8; ranks += 8) {
            sim_sched_defaults(&s, SIM_CHUNKED, NULL);
            s.attn_dp_ranks = ranks;
            engine_serving_sched(v, NULL, &s);
            CHECK(s.max_batch == (ranks ? 8192 : 1024));
            CHECK(s.max_tokens_per_step == (ranks ? 65536 : 8192));
            sim_sched_defaults(&s, SIM_CHUNKED, NULL);
            s.attn_dp_ranks = ranks;
            engine_serving_sched(g, NULL, &s);
            CHECK(s.max_batch == 4096);
            CHECK(s.max_tokens_per_step == 8192);
        }
    }
    engine_profile_free(v);
    engine_profile_free(g);
    char path[] = "/tmp/roofline_eng_XXXXXX";
    engine_tmp(path);
    static const struct refusal BAD[] = {
        {"name: x\nattn_dp: per_ranks\nsources: {attn_dp: a}\n",
         ":2:10: error: 'attn_dp' is 'per_ranks' (did you mean 'per_rank'?)"},
        {"name: x\nattn_dp: 8\nsources: {attn_dp: a}\n", ":2:10: error: 'attn_dp'"},
        {"name: x\nattn_dp_dense: ranks\nsources: {attn_dp_dense: a}\n",
         ":2:16: error: 'attn_dp_dense' is 'ranks' (did you mean 'rank'?)"},
    };
    check_engine_refusals(path, BAD, sizeof BAD / sizeof BAD[0]);
    unlink(path);
}

/* prefill_graph and eager_launch (docs/simulate.md#eager-prefill): a known mode, an eager mode
 * needs its host cost per launch and that cost an eager mode, the cost in the overhead range
 * with its source; the shipped SGLang profile runs its prefill eager at 65.3 us a launch */
TEST(engine_profile_prefill_graph)
{
    char path[] = "/tmp/roofline_eng_XXXXXX";
    engine_tmp(path);
    const char *good = "name: x\nprefill_graph: none\neager_launch: 80 us\n"
                       "sources: {prefill_graph: a, eager_launch: b}\n";
    struct engine_profile *e = engine_accepted(path, good);
    if (e) {
        CHECK(strcmp(e->serving.prefill_graph, "none") == 0);
        CHECK_NEAR(e->serving.eager_launch_s, 80e-6, 1e-15);
        struct sim_sched s;
        memset(&s, 0, sizeof s);
        engine_serving_sched(e, NULL, &s);
        CHECK(s.prefill_graph == SIM_PREFILL_GRAPH_NONE);
        CHECK_NEAR(s.eager_launch_s, 80e-6, 1e-15);
    }
    engine_profile_free(e);
    static const struct refusal BAD[] = {
        {"name: x\nprefill_graph: piecewize\neager_launch: 80 us\n"
         "sources: {prefill_graph: a, eager_launch: b}\n",
         ":2:16: error: 'prefill_graph' is 'piecewize' (did you mean 'piecewise'?)"},
        {"name: x\nprefill_graph: none\nsources: {prefill_graph: a}\n",
         ":2:16: error: 'prefill_graph: none' needs 'eager_launch'"},
        {"name: x\neager_launch: 80 us\nsources: {eager_launch: b}\n",
         ":2:15: error: 'eager_launch' applies only with 'prefill_graph: none' or 'piecewise'"},
        {"name: x\nprefill_graph: full\neager_launch: 80 us\n"
         "sources: {prefill_graph: a, eager_launch: b}\n",
         ":3:15: error: 'eager_launch' applies only with 'prefill_graph: none' or 'piecewise'"},
        {"name: x\nprefill_graph: piecewise\neager_launch: 2 s\n"
         "sources: {prefill_graph: a, eager_launch: b}\n",
         ":3:15: error: 'eager_launch'"},
        {"name: x\nprefill_graph: piecewise\neager_launch: -3 us\n"
         "sources: {prefill_graph: a, eager_launch: b}\n",
         ":3:15: error: 'eager_launch'"},
        {"name: x\nprefill_graph: none\neager_launch: 80 us\nsources: {prefill_graph: a}\n",
         "'eager_launch' has no source"},
    };
    check_engine_refusals(path, BAD, sizeof BAD / sizeof BAD[0]);
    unlink(path);
    e = engine_shipped("sglang");
    if (e) {
        CHECK(strcmp(e->serving.prefill_graph, "none") == 0);
        CHECK_NEAR(e->serving.eager_launch_s, 65.3e-6, 1e-12);
        /* the overlap scheduler (Scheduler.event_loop_overlap) */
        CHECK(e->serving.async_scheduling);
    }
    engine_profile_free(e);
}

/* hybrid_block_align (docs/simulate.md#linear-attention-state-in-the-pool): a whole number of
 * tokens in [1, 1024] with its source; the scheduler gets it; the shipped vLLM profile aligns to
 * 16, the others do not raise the block. */
TEST(engine_profile_hybrid_block_align)
{
    char path[] = "/tmp/roofline_eng_XXXXXX";
    engine_tmp(path);
    struct engine_profile *e = engine_accepted(
        path, "name: x\nhybrid_block_align: 16\nsources: {hybrid_block_align: a}\n");
    if (e) {
        CHECK(e->serving.hybrid_block_align == 16);
        struct sim_sched s;
        memset(&s, 0, sizeof s);
        engine_serving_sched(e, NULL, &s);
        CHECK(s.hybrid_block_align == 16);
        char buf[512];
        engine_serving_format(e, buf, sizeof buf);
        CHECK(strstr(buf, "hybrid_block_align: 16\n") != NULL);
    }
    engine_profile_free(e);
    static const struct refusal BAD[] = {
        {"name: x\nhybrid_block_align: 0\nsources: {hybrid_block_align: a}\n",
         ":2:21: error: 'hybrid_block_align'"},
        {"name: x\nhybrid_block_align: 2048\nsources: {hybrid_block_align: a}\n",
         ":2:21: error: 'hybrid_block_align' is 2048 tokens, above 1024"},
        {"name: x\nhybrid_block_align: 16 tokens\nsources: {hybrid_block_align: a}\n",
         ":2:21: error: 'hybrid_block_align'"},
        {"name: x\nhybrid_block_align: 16\nsources: {prefill_graph: a}\n",
         "'hybrid_block_align' has no source"},
    };
    check_engine_refusals(path, BAD, sizeof BAD / sizeof BAD[0]);
    unlink(path);
    const char *const NAMES[] = {"vllm", "sglang", "tensorrt-llm", "vllm-v0", "llama.cpp"};
    for (size_t i = 0; i < sizeof NAMES / sizeof NAMES[0]; i++) {
        e = engine_shipped(NAMES[i]);
        CHECK(e != NULL);
        if (e)
            CHECK(e->serving.hybrid_block_align == (i == 0 ? 16 : 0));
        engine_profile_free(e);
    }
}

/* tokenize_per_token and tokenize_serial (docs/simulate.md#tokenisation): a time per prompt token
 * within (0, 1 ms] with its source, serial only with that time; the scheduler gets both. The
 * shipped SGLang, TensorRT-LLM and vLLM profiles (V0 and V1: one tokenizer thread) tokenise
 * serially at 1.93 us a token (27 ms over 14,002 tokens). */
TEST(engine_profile_tokenize)
{
    char path[] = "/tmp/roofline_eng_XXXXXX";
    engine_tmp(path);
    const char *good = "name: x\ntokenize_per_token: 1.93 us\ntokenize_serial: true\n"
                       "sources: {tokenize_per_token: a, tokenize_serial: b}\n";
    struct engine_profile *e = engine_accepted(path, good);
    if (e) {
        CHECK_NEAR(e->serving.tokenize_per_token_s, 1.93e-6, 1e-15);
        CHECK(e->serving.tokenize_serial);
        struct sim_sched s;
        memset(&s, 0, sizeof s);
        engine_serving_sched(e, NULL, &s);
        CHECK_NEAR(s.tokenize_per_token_s, 1.93e-6, 1e-15);
        CHECK(s.tokenize_serial);
        char buf[512];
        engine_serving_format(e, buf, sizeof buf);
        CHECK(strstr(buf, "tokenize_per_token: 1.93 us\ntokenize_serial: true\n") != NULL);
    }
    engine_profile_free(e);
    static const struct refusal BAD[] = {
        {"name: x\ntokenize_serial: true\nsources: {tokenize_serial: b}\n",
         ":2:18: error: 'tokenize_serial' needs 'tokenize_per_token'"},
        {"name: x\ntokenize_per_token: 2 ms\nsources: {tokenize_per_token: a}\n",
         ":2:21: error: 'tokenize_per_token' is '2 ms', outside the physical range"},
        {"name: x\ntokenize_per_token: -1 us\nsources: {tokenize_per_token: a}\n",
         ":2:21: error: 'tokenize_per_token'"},
        {"name: x\ntokenize_per_token: 2\nsources: {tokenize_per_token: a}\n",
         ":2:21: error: 'tokenize_per_token'"},
        {"name: x\ntokenize_per_token: 1 us\ntokenize_serial: yes please\n"
         "sources: {tokenize_per_token: a}\n",
         ":3:18: error: 'tokenize_serial'"},
        {"name: x\ntokenize_per_token: 1 us\nsources: {prefill_graph: a}\n",
         "'tokenize_per_token' has no source"},
    };
    check_engine_refusals(path, BAD, sizeof BAD / sizeof BAD[0]);
    unlink(path);
    const char *const SERIAL[] = {"sglang", "tensorrt-llm", "vllm-v0", "vllm"};
    for (size_t i = 0; i < sizeof SERIAL / sizeof SERIAL[0]; i++) {
        e = engine_shipped(SERIAL[i]);
        CHECK(e != NULL);
        if (e) {
            /* rounded to 3 digits */
            CHECK_NEAR(e->serving.tokenize_per_token_s, 27e-3 / 14002, 3e-3);
            CHECK(e->serving.tokenize_serial);
        }
        engine_profile_free(e);
    }
}
