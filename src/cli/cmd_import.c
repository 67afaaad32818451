/* roofline import: llama-bench, vLLM benchmark_serving.py and genai-perf results as rows of the
 * measurement format (calibration.md#the-measurement-format), so `validate --measurements` and
 * `calibrate` take them. The device and model ids come from the file where a profile matches its
 * names, else from --gpu and --model. docs/profile.md#roofline-import. */
#include "cli/cli.h"
#include "io/import.h"
#include "io/profiles.h"
#include "util/afile.h"
#include "util/rfile.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const struct cli_opt SPEC[] = {
    OPT_VALUE("gpu", "ID", "hardware id for rows whose file does not name it"),
    OPT_VALUE("model", "ID", "model id for rows whose file does not name it"),
    OPT_VALUE("weights", "F", "weight format when the file does not give it"),
    OPT_VALUE("count", "N", "devices per row (default 1)"),
    OPT_VALUE("tp", "N", "tensor parallelism of the measured runs"),
    OPT_VALUE("measurements-out", "FILE", "write the rows to FILE instead of stdout"),
};

static void
yq(FILE *f, const char *s)
{
    fputc('"', f);
    for (; *s; s++) {
        if (*s == '"' || *s == '\\')
            fputc('\\', f);
        fputc((unsigned char)*s < 0x20 ? ' ' : *s, f);
    }
    fputc('"', f);
}

/* an id for the file's name of a device or model: the option, else a profile that matches */
static const char *
resolve(enum prof_kind kind, const char *opt, const char *name, char *buf, size_t n)
{
    if (opt)
        return opt;
    char **ids;
    int k = prof_list(kind, &ids);
    const char *m = k > 0 ? imp_match_id(name, ids, k) : NULL;
    if (m)
        snprintf(buf, n, "%s", m);
    if (k > 0)
        prof_list_free(ids, k);
    return m ? buf : NULL;
}

static void
write_rows(FILE *f, const struct imp_result *r, const char *path, const char *tool, const char *hw,
           const char *model, const char *weights, long count, long tp)
{
    fprintf(f,
            "# imported by roofline import %s from %s: %d rows (docs/profile.md#roofline-import)\n",
            tool, path, r->n);
    for (int i = 0; i < r->n; i++) {
        const struct imp_row *w = &r->rows[i];
        fprintf(f, "- id: %s\n  source: ", w->id);
        char src[600];
        snprintf(src, sizeof src, "%s output %s (imported by roofline import)", tool, path);
        yq(f, src);
        fprintf(f, "\n  hardware: %s\n", hw);
        if (count > 1)
            fprintf(f, "  count: %ld\n", count);
        if (tp > 1)
            fprintf(f, "  tp: %ld\n", tp);
        fprintf(f, "  model: %s\n  weights: %s\n", model,
                weights         ? weights
                : w->weights[0] ? w->weights
                                : "bf16");
        if (w->kv[0])
            fprintf(f, "  kv: %s\n", w->kv);
        fprintf(f, "  engine: %s\n  phase: %s\n", r->engine, w->phase);
        if (w->batch >= 1)
            fprintf(f, "  batch: %.0f\n", w->batch);
        if (w->prompt >= 1)
            fprintf(f, "  prompt: %.0f\n", w->prompt);
        if (w->context >= 0)
            fprintf(f, "  context: %.0f\n", w->context);
        if (w->input >= 1)
            fprintf(f, "  input: %.0f\n", w->input);
        if (w->output >= 1)
            fprintf(f, "  output: %.0f\n", w->output);
        fprintf(f, "  metric: %s\n  value: %.6g\n  note: ", w->metric, w->value);
        char note[400];
        snprintf(note, sizeof note, "%s%s", w->note,
                 !weights && !w->weights[0] ? "; weights assumed bf16 (the file does not say)"
                                            : "");
        yq(f, note);
        fputc('\n', f);
    }
}

static int
run(int argc, char **argv)
{
    struct cli_ctx c;
    int rc;
    if (cli_begin(&c, &cmd_import, CLI_POSITIONAL, argc, argv, &rc) != 0)
        return rc;
    const struct cli_args *a = &c.a;
    char *text = NULL;
    struct imp_result *r = NULL;
    struct err_list errs = {0};
    if (a->n_pos != 2) {
        rc = cli_usage_error(&cmd_import, "expected a tool and a file");
        goto out;
    }
    static const char *const TOOLS[] = {"llama-bench", "vllm", "genai-perf"};
    int t = -1;
    for (int i = 0; i < 3; i++)
        if (strcmp(a->pos[0], TOOLS[i]) == 0)
            t = i;
    if (t < 0) {
        fprintf(stderr, "error: unknown tool '%s' (llama-bench, vllm or genai-perf)\n", a->pos[0]);
        rc = CLI_USAGE;
        goto out;
    }
    long count, tp;
    enum dtype wdt;
    if (cli_long(a, "count", 1, 1, &count) || cli_long(a, "tp", 1, 1, &tp) ||
        cli_dtype(a, "weights", &wdt)) {
        rc = CLI_USAGE;
        goto out;
    }
    const char *path = a->pos[1];
    size_t len = 0;
    int read_errno;
    if (rfile_read(path, RFILE_MAX_BYTES, &text, &len, &read_errno) != RFILE_OK) {
        fprintf(stderr, "%s: error: cannot read the file (missing, unreadable or over 64 MiB)\n",
                path);
        rc = CLI_FAIL;
        goto out;
    }
    r = calloc(1, sizeof *r);
    rc = CLI_OK;
    if (!r || imp_parse((enum imp_tool)t, path, text, len, r, &errs) != 0) {
        if (!r)
            cli_oom();
        cli_print_errs(&errs);
        rc = CLI_FAIL;
        goto out;
    }
    char hwb[128], mb[128];
    const char *hw = resolve(PROF_HARDWARE, cli_get(a, "gpu"), r->hardware, hwb, sizeof hwb);
    const char *model = resolve(PROF_MODEL, cli_get(a, "model"), r->model, mb, sizeof mb);
    if (!hw || !model) {
        if (!hw)
            fprintf(stderr, "%s: error: %s; give --gpu ID (see 'roofline list gpus')\n", path,
                    r->hardware[0] ? "the device it names matches no hardware profile"
                                   : "the file does not name the device");
        if (!hw && r->hardware[0])
            fprintf(stderr, "  the file says: '%s'\n", r->hardware);
        if (!model)
            fprintf(stderr,
                    "%s: error: the model it names ('%s') matches no model profile; give "
                    "--model ID (see 'roofline list models')\n",
                    path, r->model);
        rc = CLI_USAGE;
        goto out;
    }
    const char *weights = cli_get(a, "weights");
    fprintf(stderr, "import: %d rows from %s (%s): hardware %s%s, model %s%s, engine %s\n", r->n,
            path, TOOLS[t], hw, cli_has(a, "gpu") ? "" : " (matched)", model,
            cli_has(a, "model") ? "" : " (matched)", r->engine);
    if (cli_has(a, "measurements-out")) {
        const char *out = cli_get(a, "measurements-out");
        struct afile af;
        if (afile_open(&af, out, &errs) != 0) {
            cli_print_errs(&errs);
            rc = CLI_FAIL;
            goto out;
        }
        write_rows(af.fp, r, path, TOOLS[t], hw, model, weights, count, tp);
        if (afile_commit(&af, &errs) != 0) {
            cli_print_errs(&errs);
            rc = CLI_FAIL;
            goto out;
        }
        fprintf(stderr, "wrote %s (check it with: roofline validate --measurements %s)\n", out,
                out);
    } else {
        write_rows(stdout, r, path, TOOLS[t], hw, model, weights, count, tp);
    }
out:
    err_list_release(&errs);
    free(r);
    free(text);
    return cli_end(&c, rc);
}

const struct cli_cmd cmd_import = {
    "import",
    "llama-bench, vLLM benchmark_serving.py or genai-perf results as measurement rows for "
    "validate and calibrate (docs/profile.md)",
    "roofline import llama-bench|vllm|genai-perf FILE [--gpu ID] [--model ID] [--weights F]\n"
    "         [--count N] [--tp N] [--measurements-out FILE]",
    run, CLI_OPTS(SPEC)};
