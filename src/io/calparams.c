/* The calibration-parameter files (see calparams.h): device classes with bands, engines. */
#include "io/calparams.h"

#include "io/measure.h"
#include "io/profiles.h"
#include "io/ycheck.h"
#include "util/afile.h"
#include "util/units.h"

#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

int
calparams_load(const char *path, struct dev_params dev[DEV_CLASS_COUNT], struct cal_bands *bands,
               struct err_list *errs)
{
    struct stat st;
    if (stat(path, &st) != 0)
        return 0; /* no file: the documented defaults */
    struct err_list local = {0};
    struct err_list *e = errs ? errs : &local; /* quiet callers still need the count */
    size_t before = err_count(e, ERR_ERROR);
    struct ynode *root = ynode_load(path, e);
    struct ycheck y;
    ycheck_init(&y, path, e);
    if (root && ycheck_map(&y, root, "device classes")) {
        static const char *const TOP[] = {"classes", "bands", "provenance", "sources"};
        ycheck_keys(&y, root, "", TOP, 4);
        const struct ynode *cl = ynode_get(root, "classes");
        if (cl && ycheck_map(&y, cl, "classes"))
            for (size_t i = 0; i + 1 < cl->n; i += 2) {
                int k = -1;
                for (int c = 0; c < DEV_CLASS_COUNT; c++)
                    if (strcmp(cl->items[i]->value, dev_class_name((enum dev_class)c)) == 0)
                        k = c;
                if (k < 0) {
                    ycheck_error(&y, cl->items[i], "unknown device class '%s'",
                                 cl->items[i]->value);
                    continue;
                }
                const struct ynode *v = cl->items[i + 1];
                if (!ycheck_map(&y, v, cl->items[i]->value))
                    continue;
                static const char *const KEYS[] = {"memory_efficiency", "compute_efficiency",
                                                   "memory_latency", "compute_units"};
                ycheck_keys(&y, v, cl->items[i]->value, KEYS, 4);
                struct dev_params *dp = &dev[k];
                ycheck_num(&y, v, cl->items[i]->value, "memory_efficiency", false,
                           &dp->memory_efficiency);
                ycheck_num(&y, v, cl->items[i]->value, "compute_efficiency", false,
                           &dp->compute_efficiency);
                ycheck_qty(&y, v, cl->items[i]->value, "memory_latency", UNIT_SECONDS, false,
                           &dp->memory_latency_s);
                ycheck_num(&y, v, cl->items[i]->value, "compute_units", false, &dp->compute_units);
            }
        const struct ynode *bd = ynode_get(root, "bands");
        if (bd && ycheck_map(&y, bd, "bands")) {
            for (size_t i = 0; i + 1 < bd->n; i += 2) {
                int ph = -1;
                for (int p = 0; p < PRED_PHASE_COUNT; p++)
                    if (strcmp(bd->items[i]->value, pred_phase_name((enum pred_phase)p)) == 0)
                        ph = p;
                const struct ynode *v = bd->items[i + 1];
                if (ph < 0 || v->kind != YNODE_MAP) {
                    ycheck_error(&y, bd->items[i], "bands: unknown phase '%s'",
                                 bd->items[i]->value);
                    continue;
                }
                for (size_t j = 0; j + 1 < v->n; j += 2) {
                    int k = -1;
                    for (int c = 0; c < DEV_CLASS_COUNT; c++)
                        if (strcmp(v->items[j]->value, dev_class_name((enum dev_class)c)) == 0)
                            k = c;
                    const struct ynode *q = v->items[j + 1];
                    double lo, hi;
                    if (k < 0 || q->kind != YNODE_SEQ || q->n != 2 ||
                        ynode_double(q->items[0], &lo) || ynode_double(q->items[1], &hi)) {
                        ycheck_error(&y, v->items[j], "bands: expected 'CLASS: [q10, q90]'");
                        continue;
                    }
                    bands->q[ph][k][0] = lo;
                    bands->q[ph][k][1] = hi;
                    bands->have = true;
                }
            }
        }
    }
    ycheck_release(&y);
    ynode_free(root);
    int rc = !root || err_count(e, ERR_ERROR) > before ? -1 : 0;
    err_list_release(&local);
    return rc;
}

int
calparams_classes_text(const struct dev_params dev[DEV_CLASS_COUNT], const struct cal_bands *bands,
                       const char *provenance, struct strbuf *out)
{
    strbuf_addf(out,
                "# Device-class parameters of the kernel model (docs/physics.md#kernel-model).\n"
                "# Written by roofline calibrate; edit with care.\nclasses:\n");
    for (int c = 0; c < DEV_CLASS_COUNT; c++) {
        const struct dev_params *p = &dev[c];
        strbuf_addf(out,
                    "  %s: {memory_efficiency: %.4f, compute_efficiency: %.4f, memory_latency: "
                    "%.1f ns, compute_units: %.0f}\n",
                    dev_class_name((enum dev_class)c), p->memory_efficiency, p->compute_efficiency,
                    p->memory_latency_s * 1e9, p->compute_units);
    }
    if (bands && bands->have) {
        strbuf_addf(out, "bands: # split-conformal 10th and 90th percentiles of log(measured time "
                         "/ predicted time), held out\n");
        for (int ph = 0; ph < PRED_PHASE_COUNT; ph++) {
            /* a phase without any band is left out: an empty 'phase:' reads back as null */
            bool any = false;
            for (int c = 0; c < DEV_CLASS_COUNT; c++)
                any |= bands->q[ph][c][0] != 0 || bands->q[ph][c][1] != 0;
            if (!any)
                continue;
            strbuf_addf(out, "  %s:\n", pred_phase_name((enum pred_phase)ph));
            for (int c = 0; c < DEV_CLASS_COUNT; c++)
                if (bands->q[ph][c][0] != 0 || bands->q[ph][c][1] != 0)
                    strbuf_addf(out, "    %s: [%.4f, %.4f]\n", dev_class_name((enum dev_class)c),
                                bands->q[ph][c][0], bands->q[ph][c][1]);
        }
    }
    strbuf_addf(out, "provenance:\n  fitted: \"%s\"\nsources:\n  classes: \"%s\"\n", provenance,
                provenance);
    return out->failed ? -1 : 0;
}

int
calparams_engine_text(const struct engine_profile *ep, const char *provenance, struct strbuf *out)
{
    strbuf_addf(
        out, "# Engine profile (docs/calibration.md), written by roofline calibrate.\nname: %s\n",
        ep->name);
    if (ep->kernel_overhead_s > 0)
        strbuf_addf(out, "kernel_overhead: %.3f us\n", ep->kernel_overhead_s * 1e6);
    if (ep->step_overhead_s > 0)
        strbuf_addf(out, "step_overhead: %.1f us\n", ep->step_overhead_s * 1e6);
    if (ep->token_overhead_s > 0)
        strbuf_addf(out, "token_overhead: %.1f us\n", ep->token_overhead_s * 1e6);
    strbuf_addf(out, "memory_efficiency: %.4f\ncompute_efficiency: %.4f\n", ep->memory_efficiency,
                ep->compute_efficiency);
    if (ep->inflight_bytes_per_unit > 0)
        strbuf_addf(out, "bytes_in_flight_per_unit: %.0f B\n", ep->inflight_bytes_per_unit);
    if (ep->dequant_scale > 0 && ep->dequant_scale != 1.0)
        strbuf_addf(out, "dequant_scale: %.4f\n", ep->dequant_scale);
    if (ep->fp16_accumulate)
        strbuf_addf(out, "fp16_accumulate: true\n");
    if (ep->dequant_buffer)
        strbuf_addf(out, "dequant_buffer: true\n");
    if (ep->dequant_buffer_above > 0)
        strbuf_addf(out, "dequant_buffer_above: %.0f\n", ep->dequant_buffer_above);
    if (ep->ubatch_tokens > 0)
        strbuf_addf(out, "ubatch: %.0f\n", ep->ubatch_tokens);
    if (ep->mmq_tile_tokens > 0)
        strbuf_addf(out, "mmq_tile_tokens: %.0f\n", ep->mmq_tile_tokens);
    if (ep->mmq_tile_rows > 0)
        strbuf_addf(out, "mmq_tile_rows: %.0f\n", ep->mmq_tile_rows);
    if (ep->mmq_above > 0)
        strbuf_addf(out, "mmq_above: %.0f\n", ep->mmq_above);
    if (ep->mmq_id_above > 0)
        strbuf_addf(out, "mmq_id_above: %.0f\n", ep->mmq_id_above);
    if (ep->mmq_tile_step > 0)
        strbuf_addf(out, "mmq_tile_step: %.0f\n", ep->mmq_tile_step);
    if (ep->no_flash_attention)
        strbuf_addf(out, "flash_attention: false\n");
    if (ep->score_bytes > 0)
        strbuf_addf(out, "score_bytes: %g\n", ep->score_bytes);
    if (ep->fa_mask_bytes > 0)
        strbuf_addf(out, "fa_mask_bytes: %g\n", ep->fa_mask_bytes);
    if (ep->pipeline_copies > 0)
        strbuf_addf(out, "pipeline_copies: %.0f\n", ep->pipeline_copies);
    if (ep->custom_allreduce_max_bytes > 0)
        strbuf_addf(out, "custom_allreduce_max: %.0f B\n", ep->custom_allreduce_max_bytes);
    if (ep->custom_allreduce_latency_s > 0)
        strbuf_addf(out, "custom_allreduce_latency: %.4g us\n",
                    ep->custom_allreduce_latency_s * 1e6);
    if (ep->kv_bucket > 0)
        strbuf_addf(out, "kv_bucket: %.0f\n", ep->kv_bucket);
    if (ep->triton_moe_kernels > 0)
        strbuf_addf(out, "triton_moe_kernels: %.0f\n", ep->triton_moe_kernels);
    if (ep->moe_block_fp8_vs_bf16 > 0)
        strbuf_addf(out, "moe_block_fp8_vs_bf16: %g\n", ep->moe_block_fp8_vs_bf16);
    if (ep->moe_sum_kernel)
        strbuf_addf(out, "moe_sum_kernel: true\n");
    if (ep->marlin_moe_vs_peak > 0)
        strbuf_addf(out, "marlin_moe_vs_peak: %g\n", ep->marlin_moe_vs_peak);
    if (ep->marlin_moe_kernels > 0)
        strbuf_addf(out, "marlin_moe_kernels: %.0f\n", ep->marlin_moe_kernels);
    if (ep->fused_moe_kernels > 0)
        strbuf_addf(out, "fused_moe_kernels: %.0f\n", ep->fused_moe_kernels);
    if (ep->fused_moe_quant_kernels > 0)
        strbuf_addf(out, "fused_moe_quant_kernels: %.0f\n", ep->fused_moe_quant_kernels);
    if (ep->sampler_kernels > 0)
        strbuf_addf(out, "sampler_kernels: %.0f\n", ep->sampler_kernels);
    if (ep->metal.mm_above > 0) {
        const struct roof_metal *m = &ep->metal;
        strbuf_addf(out, "metal:\n  mm_above: %.0f\n  mm_tile: %.0f\n  mm_tile_rows: %.0f\n",
                    m->mm_above, m->mm_tile, m->mm_tile_rows);
        int last = 0;
        for (int c = 2; c <= ROOF_METAL_EXT_MAX; c++)
            if (m->ext_group[c] > 0)
                last = c;
        if (last > 0) {
            strbuf_addstr(out, "  ext_group: [");
            for (int c = 2; c <= last; c++)
                strbuf_addf(out, "%s%.0f", c > 2 ? ", " : "", m->ext_group[c]);
            strbuf_addstr(out, "]\n");
        }
        if (m->ext_kquant_min > 0)
            strbuf_addf(out, "  ext_kquant_min: %.0f\n", m->ext_kquant_min);
        if (m->mm_id_min > 0)
            strbuf_addf(out, "  mm_id_min: %.0f\n", m->mm_id_min);
        if (m->fa_vec_below > 0)
            strbuf_addf(out, "  fa_vec_below: %.0f\n", m->fa_vec_below);
        if (m->fa_vec_kv_fraction > 0)
            strbuf_addf(out, "  fa_vec_kv_fraction: %.4f\n", m->fa_vec_kv_fraction);
        if (m->occ_n > 0 && m->mm_simdgroups > 0) {
            strbuf_addf(out, "  mm_simdgroups: %.0f\n", m->mm_simdgroups);
            const double *list[2] = {m->core_simds, m->core_cycles};
            const char *name[2] = {"core_simds", "core_cycles"};
            for (int k = 0; k < 2; k++) {
                strbuf_addf(out, "  %s: [", name[k]);
                for (int i = 0; i < m->occ_n; i++)
                    strbuf_addf(out, "%s%g", i ? ", " : "", list[k][i]);
                strbuf_addstr(out, "]\n");
            }
        }
    }
    char serving[1024];
    engine_serving_format(ep, serving, sizeof serving);
    strbuf_addstr(out, serving);
    strbuf_addf(out, "provenance:\n  fitted: \"%s\"\nsources:\n", provenance);
    if (ep->kernel_overhead_s > 0)
        strbuf_addf(out, "  kernel_overhead: \"%s\"\n", provenance);
    if (ep->step_overhead_s > 0)
        strbuf_addf(out, "  step_overhead: \"%s\"\n", provenance);
    strbuf_addf(out, "  memory_efficiency: \"%s\"\n  compute_efficiency: \"%s\"\n", provenance,
                provenance);
    if (ep->inflight_bytes_per_unit > 0)
        strbuf_addf(out, "  bytes_in_flight_per_unit: \"%s\"\n", provenance);
    if (ep->dequant_scale > 0 && ep->dequant_scale != 1.0)
        strbuf_addf(out, "  dequant_scale: \"%s\"\n", provenance);
    /* facts that are not fitted keep their original source */
    for (int k = 0; k < ep->n_sources; k++)
        if (strcmp(ep->source_keys[k], "fp16_accumulate") == 0 ||
            strcmp(ep->source_keys[k], "dequant_buffer") == 0 ||
            strcmp(ep->source_keys[k], "dequant_buffer_above") == 0 ||
            strcmp(ep->source_keys[k], "ubatch") == 0 ||
            strncmp(ep->source_keys[k], "mmq_", 4) == 0 ||
            strcmp(ep->source_keys[k], "token_overhead") == 0 ||
            strcmp(ep->source_keys[k], "flash_attention") == 0 ||
            strcmp(ep->source_keys[k], "score_bytes") == 0 ||
            strcmp(ep->source_keys[k], "fa_mask_bytes") == 0 ||
            strcmp(ep->source_keys[k], "pipeline_copies") == 0 ||
            strcmp(ep->source_keys[k], "custom_allreduce_max") == 0 ||
            strcmp(ep->source_keys[k], "custom_allreduce_latency") == 0 ||
            strcmp(ep->source_keys[k], "kv_bucket") == 0 ||
            strcmp(ep->source_keys[k], "triton_moe_kernels") == 0 ||
            strcmp(ep->source_keys[k], "moe_block_fp8_vs_bf16") == 0 ||
            strcmp(ep->source_keys[k], "moe_sum_kernel") == 0 ||
            strncmp(ep->source_keys[k], "marlin_moe_", 11) == 0 ||
            strncmp(ep->source_keys[k], "fused_moe_", 10) == 0 ||
            strcmp(ep->source_keys[k], "sampler_kernels") == 0 ||
            strncmp(ep->source_keys[k], "metal.", 6) == 0 || engine_serving_key(ep->source_keys[k]))
            strbuf_addf(out, "  %s: \"%s\"\n", ep->source_keys[k], ep->source_texts[k]);
    return out->failed ? -1 : 0;
}

/* mkdir that accepts an existing directory */
static int
make_dir(const char *path, struct err_list *errs)
{
    if (mkdir(path, 0777) != 0 && errno != EEXIST) {
        err_add(errs, path, 0, 0, ERR_ERROR, "cannot create directory: %s", strerror(errno));
        return -1;
    }
    return 0;
}

/* open `path` through util/afile and write `sb` into its temporary file, finished but not yet
 * renamed (calparams_save renames every file only once all are written) */
static int
stage_text(struct afile *af, const char *path, const struct strbuf *sb, int text_rc,
           struct err_list *errs)
{
    if (text_rc != 0) {
        err_add(errs, path, 0, 0, ERR_ERROR, "out of memory");
        return -1;
    }
    if (afile_open(af, path, errs) != 0)
        return -1;
    if (fwrite(sb->buf, 1, sb->len, af->fp) != sb->len) {
        err_add(errs, path, 0, 0, ERR_ERROR, "cannot write '%s': %s", af->tmp ? af->tmp : path,
                strerror(errno));
        afile_rollback(af);
        return -1;
    }
    return afile_finish(af, errs);
}

int
calparams_save(const char *dir, const struct dev_params dev[DEV_CLASS_COUNT],
               const struct cal_bands *bands, const struct engine_profile *engines, int n_engines,
               const char *provenance, struct err_list *errs)
{
    char path[PATH_MAX + 64];
    struct strbuf sb = {0};
    mkdir(dir, 0777);
    snprintf(path, sizeof path, "%s/calibration", dir);
    if (make_dir(path, errs) != 0)
        return -1;
    snprintf(path, sizeof path, "%s/engine_profiles", dir);
    if (make_dir(path, errs) != 0)
        return -1;
    /* write every file to its temporary name first, then rename them all: a full disk leaves
     * the old set whole, never old and new files mixed */
    struct afile *af = calloc((size_t)n_engines + 1, sizeof *af);
    if (!af) {
        err_add(errs, dir, 0, 0, ERR_ERROR, "out of memory");
        return -1;
    }
    int staged = 0, rc = 0;
    snprintf(path, sizeof path, "%s/calibration/device-classes.yaml", dir);
    rc = stage_text(&af[0], path, &sb, calparams_classes_text(dev, bands, provenance, &sb), errs);
    strbuf_release(&sb);
    if (rc == 0)
        staged = 1;
    for (int e = 0; e < n_engines && rc == 0; e++) {
        /* an engine with no profile of its own (the generic kernel model) gets none written:
         * its rows were predicted with the profiled engines' mean, not fitted */
        if (engines[e].generic)
            continue;
        snprintf(path, sizeof path, "%s/engine_profiles/%s.yaml", dir, engines[e].name);
        rc = stage_text(&af[staged], path, &sb, calparams_engine_text(&engines[e], provenance, &sb),
                        errs);
        strbuf_release(&sb);
        if (rc == 0)
            staged++;
    }
    if (rc != 0)
        for (int i = 0; i < staged; i++)
            afile_rollback(&af[i]);
    else
        rc = afile_publish_all(af, staged, errs); /* a failed rename restores the old set */
    free(af);
    return rc;
}

int
calparams_tuning(const struct hw_profile *hw, const char *engine, const char *params_dir,
                 struct roof_tuning *out, double band[PRED_PHASE_COUNT][2], struct err_list *errs)
{
    struct dev_params dev[DEV_CLASS_COUNT];
    struct cal_bands bands;
    memset(&bands, 0, sizeof bands);
    for (int c = 0; c < DEV_CLASS_COUNT; c++)
        dev_params_default((enum dev_class)c, &dev[c]);
    char p[PATH_MAX + 64];
    snprintf(p, sizeof p, "%s/calibration/device-classes.yaml",
             params_dir ? params_dir : prof_data_dir());
    if (calparams_load(p, dev, &bands, errs) != 0)
        return -1;
    struct err_list found = {0};
    struct engine_profile *e = engine_find_in(params_dir, engine, &found);
    /* no file at all (an unknown name) has no path; a file that does not load has one */
    bool unknown = !e && found.n > 0 && !found.items[0].path;
    for (size_t i = 0; i < found.n; i++)
        err_add(errs, found.items[i].path, found.items[i].line, found.items[i].col,
                found.items[i].severity, "%s", found.items[i].msg);
    err_list_release(&found);
    if (!e)
        return unknown ? -2 : -1;
    enum dev_class k = dev_class_of(hw);
    calib_tuning(hw, &dev[k], e, out);
    if (band)
        for (int ph = 0; ph < PRED_PHASE_COUNT; ph++) {
            band[ph][0] = bands.q[ph][k][0];
            band[ph][1] = bands.q[ph][k][1];
        }
    engine_profile_free(e);
    return 0;
}
