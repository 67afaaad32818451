/* roofline chart profile: the chart of a `roofline profile -o json` report (measured TTFT against
 * prompt, inter-token gaps against context, the fits; with --gpu/--model the roofline's prediction
 * beside them). cmd_chart dispatches here; the drawing is render/chart_profile.c. */
#include "render/chart_profile.h"
#include "cli/cli.h"
#include "io/json.h"
#include "io/profiles.h"
#include "render/surface.h"
#include "util/rfile.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const struct cli_opt CHART_SPEC[] = {
    OPT_VALUE("measured", "PROFILE.json", "the output of roofline profile -o json"),
    OPT_VALUE("gpu", "G", "hardware profile for the prediction line"),
    OPT_VALUE("model", "M", "model profile for the prediction line"),
    OPT_VALUE("weights", "F", "weight format of the prediction"),
    OPT_VALUE("output", "FILE", "the chart: .png, .svg or .pdf (-o)"),
};

static const struct cli_cmd chart_profile_cmd = {
    "chart", "draw a `roofline profile -o json` report",
    "roofline chart profile --measured PROFILE.json -o FILE.png|svg|pdf [--gpu G --model M\n"
    "         [--weights F]]   (PROFILE.json: the output of roofline profile -o json)",
    NULL, CLI_OPTS(CHART_SPEC)};

/* [[x, y], ...] of `key` into malloc'd arrays; -1 with a message when malformed */
static int
read_pairs(const char *path, const struct json *doc, const char *key, double **x, double **y,
           int *n)
{
    const struct json *a = json_get(doc, key);
    *x = *y = NULL;
    *n = 0;
    if (!a)
        return 0;
    if (a->kind != JSON_ARR) {
        fprintf(stderr, "%s:%d:%d: error: '%s' must be an array of [x, y] pairs\n", path, a->line,
                a->col, key);
        return -1;
    }
    *x = malloc(sizeof(double) * (a->n + 1));
    *y = malloc(sizeof(double) * (a->n + 1));
    if (!*x || !*y)
        return -1;
    for (size_t i = 0; i < a->n; i++) {
        const struct json *p = a->items[i];
        if (p->kind != JSON_ARR || p->n != 2 || p->items[0]->kind != JSON_NUM ||
            p->items[1]->kind != JSON_NUM) {
            fprintf(stderr, "%s:%d:%d: error: '%s' must be an array of [x, y] pairs\n", path,
                    p->line, p->col, key);
            return -1;
        }
        (*x)[*n] = p->items[0]->num;
        (*y)[(*n)++] = p->items[1]->num;
    }
    return 0;
}

int
cli_chart_profile(int argc, char **argv)
{
    struct cli_ctx c;
    int rc;
    if (cli_begin(&c, &chart_profile_cmd, CLI_POSITIONAL | CLI_NO_FORMAT, argc, argv, &rc) != 0)
        return rc;
    const struct cli_args *a = &c.a;
    const char *in = cli_get(a, "measured"), *out = cli_get(a, "output");
    enum chart_format cf;
    if (!in || !out || a->n_pos)
        return cli_usage_error(&chart_profile_cmd,
                               "chart profile needs --measured PROFILE.json and -o FILE");
    if (chart_format_from_path(out, &cf) != 0) {
        fprintf(stderr, "error: -o: '%s' does not end in .png, .svg or .pdf\n", out);
        return CLI_USAGE;
    }
    if (cli_has(a, "gpu") != cli_has(a, "model")) {
        fprintf(stderr, "error: the prediction needs both --gpu and --model\n");
        return CLI_USAGE;
    }
    char *text = NULL;
    size_t len = 0;
    int read_errno;
    if (rfile_read(in, RFILE_MAX_BYTES, &text, &len, &read_errno) != RFILE_OK) {
        fprintf(stderr, "%s: error: cannot read the file\n", in);
        return CLI_FAIL;
    }
    struct json_error je;
    struct json *doc = json_parse(text, len, &je);
    free(text);
    if (!doc) {
        fprintf(stderr, "%s:%d:%d: error: %s\n", in, je.line, je.col, je.msg);
        return CLI_FAIL;
    }
    rc = CLI_FAIL;
    struct chart_profile_data d;
    memset(&d, 0, sizeof d);
    double *px = NULL, *py = NULL, *dx = NULL, *dy = NULL;
    struct roof_config pc;
    if (strcmp(json_string(doc, "command") ? json_string(doc, "command") : "", "profile") != 0) {
        fprintf(stderr, "%s:1:1: error: not a 'roofline profile -o json' report\n", in);
        goto done;
    }
    if (read_pairs(in, doc, "prefill_points", &px, &py, &d.n_prefill) ||
        read_pairs(in, doc, "decode_points", &dx, &dy, &d.n_decode))
        goto done;
    d.url = json_string(doc, "url");
    d.prompt = px;
    d.ttft_s = py;
    d.context = dx;
    d.itl_s = dy;
    const struct json *pf = json_get(doc, "prefill_fit"), *df = json_get(doc, "decode_fit");
    d.prefill_fit = json_number(pf, "intercept_s", &d.prefill_c0) == 0 &&
                    json_number(pf, "slope_s_per_token", &d.prefill_c1) == 0;
    d.decode_fit = json_number(df, "intercept_s", &d.decode_c0) == 0 &&
                   json_number(df, "slope_s_per_token", &d.decode_c1) == 0;
    if (cli_has(a, "gpu")) {
        const struct hw_profile *hw = c.hw = cli_load_hw(cli_get(a, "gpu"));
        const struct mdl_profile *model = c.model = hw ? cli_load_model(cli_get(a, "model")) : NULL;
        if (!model)
            goto done;
        enum dtype w = strcmp(model->id, "bench-small") == 0 ? DT_FP32 : DT_BF16;
        if (cli_dtype(a, "weights", &w) != 0) {
            rc = CLI_USAGE;
            goto done;
        }
        roof_config_init(&pc, hw, model, ROOF_DECODE);
        pc.weights = w;
        pc.act = roof_default_act(w);
        pc.kv = roof_default_kv(w);
        pc.flash_attention = true;
        pc.reserve_bytes = 0;
        d.predict = &pc;
    }
    struct err_list errs = {0};
    struct chart *ch = chart_build_profile(&d, &errs);
    if (ch && chart_save(ch, out, 1600, 800, &errs) == 0) {
        fprintf(stderr, "wrote %s\n", out);
        rc = CLI_OK;
    }
    cli_print_errs(&errs);
    err_list_release(&errs);
    chart_free(ch);
done:
    json_free(doc);
    free(px);
    free(py);
    free(dx);
    free(dy);
    return cli_end(&c, rc);
}
