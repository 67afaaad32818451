/* roofline sweep: the batching trade-off (and context / prompt lists): per point the step time,
 * tokens/s per sequence and in total, TTFT, memory, bound, and the Pareto-efficient points. */
#include "cli/cli.h"
#include "cli/out.h"
#include "io/profiles.h"
#include "util/array.h"
#include "util/strs.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#define MAX_POINTS 64

static const struct out_field FIELDS[] = {
    {"batch", NULL, OUT_SHOW_NUM, 0, false},
    {"context", NULL, OUT_SHOW_NUM, 0, false},
    {"prompt", NULL, OUT_SHOW_NUM, 0, false},
    {"itl_s", "ITL", OUT_SHOW_TIME, 0, false},
    {"tokens_per_s_per_seq", "tok/s/seq", OUT_SHOW_NUM, 1, false},
    {"tokens_per_s_total", "tok/s total", OUT_SHOW_NUM, 0, false},
    {"ttft_s", "TTFT", OUT_SHOW_TIME, 0, false},
    {"mem_total_bytes", "memory", OUT_SHOW_BYTES, 0, false},
    {"fits", NULL, OUT_SHOW_TEXT, 0, false},
    {"bound", "decode bound", OUT_SHOW_TEXT, 0, false},
    {"compute_utilisation", "util", OUT_SHOW_PCT, 1, false},
    {"pareto", NULL, OUT_SHOW_TEXT, 0, false},
};
#define N_FIELDS ((int)ARRAY_SIZE(FIELDS))

/* "1,2,4" -> values; returns count or -1 */
static int
parse_list(const char *name, const char *s, double *out, int max)
{
    int n = 0;
    const char *p = s;
    while (*p) {
        char tok[32];
        size_t l = strcspn(p, ",");
        if (l == 0 || l >= sizeof tok || n >= max)
            goto bad;
        memcpy(tok, p, l);
        tok[l] = '\0';
        long v;
        if (str_to_long(tok, &v) != 0 || v < (strcmp(name, "context") == 0 ? 0 : 1))
            goto bad;
        out[n++] = (double)v;
        p += l;
        if (*p == ',')
            p++;
    }
    if (n > 0)
        return n;
bad:
    fprintf(stderr, "error: --%s: expected a comma-separated list of whole numbers%s, got '%s'\n",
            name, strcmp(name, "batch") == 0 ? " or 'auto'" : "", s);
    return -1;
}

struct point {
    double batch, context, prompt, itl, tps_seq, tps_total, ttft, mem, util;
    bool fits;
    const char *bound;
    bool pareto;
};

static const struct cli_opt OPTS[] = {
    OPT_VALUE("gpu", "ID|PATH", "the device: a profile id (roofline list gpus) or a YAML file"),
    OPT_VALUE("model", "ID|PATH", "the model: a profile id (roofline list models) or a YAML file"),
    CLI_ENGINE_OPTS,
    CLI_OPT_FORMAT,
};

static int run(int argc, char **argv);

const struct cli_cmd cmd_sweep = {
    "sweep", "the batching trade-off: ITL, tokens/s per sequence and in total, memory, Pareto",
    "roofline sweep --gpu ID|PATH --model ID|PATH [--batch 1,2,4,...|auto] [--context C,...]\n"
    "         [--prompt P,...] [options]",
    run, CLI_OPTS(OPTS)};

static int
run(int argc, char **argv)
{
    struct cli_ctx ctx;
    int rc;
    if (cli_begin(&ctx, &cmd_sweep, CLI_GPU_MODEL, argc, argv, &rc) != 0)
        return rc;
    const struct cli_args a = ctx.a;
    enum out_fmt fmt = ctx.fmt;
    const struct hw_profile *hw = ctx.hw;
    const struct mdl_profile *m = ctx.model;
    double batches[MAX_POINTS], contexts[MAX_POINTS], prompts[MAX_POINTS];
    int nb = 0, nc = 1, np = 1;
    contexts[0] = 1024;
    prompts[0] = 512;
    const char *bs = cli_get(&a, "batch") ? cli_get(&a, "batch") : "auto";
    bool autob = strcmp(bs, "auto") == 0;
    rc = CLI_USAGE;
    if (!autob && (nb = parse_list("batch", bs, batches, MAX_POINTS)) < 0)
        goto out;
    if (cli_has(&a, "context") &&
        (nc = parse_list("context", cli_get(&a, "context"), contexts, MAX_POINTS)) < 0)
        goto out;
    if (cli_has(&a, "prompt") &&
        (np = parse_list("prompt", cli_get(&a, "prompt"), prompts, MAX_POINTS)) < 0)
        goto out;
    /* the engine options other than the lists */
    struct cli_args rest = a;
    for (int j = 0; j < rest.n_spec; j++)
        if (strcmp(rest.spec[j].name, "batch") == 0 || strcmp(rest.spec[j].name, "context") == 0 ||
            strcmp(rest.spec[j].name, "prompt") == 0)
            rest.value[j] = NULL;
    struct roof_config base;
    roof_config_init(&base, hw, m, ROOF_DECODE);
    if ((rc = cli_engine_opts(&rest, &base)) != 0)
        goto out;
    struct out_table *t = out_table_new(fmt, NULL, FIELDS, N_FIELDS);
    rc = CLI_OK;
    if (fmt == OUT_TABLE) {
        char extra[64];
        printf("sweep of %s on %s: weights %s, KV %s, tp %d%s\n", m->id, hw->id,
               dtype_name(base.weights), dtype_name(base.kv), base.tp,
               roof_parallel_extras(&base, false, extra, sizeof extra));
        cli_engine_line(stdout, cli_engine(&a, hw), cli_has(&a, "engine"));
        printf("\n");
    }
    if (fmt == OUT_JSON)
        printf("{\n  \"tool\": \"roofline\",\n  \"gpu\": \"%s\",\n  \"model\": \"%s\",\n  "
               "\"points\": ",
               hw->id, m->id);
    for (int ip = 0; ip < np; ip++)
        for (int ic = 0; ic < nc; ic++) {
            struct roof_config c = base;
            c.context = contexts[ic];
            c.prompt = prompts[ip];
            if (autob) {
                /* powers of two up to the largest batch that fits at this context */
                long maxb = roof_max_batch(&c);
                nb = 0;
                for (long b = 1; b <= (maxb > 0 ? maxb : 1) && nb < MAX_POINTS; b *= 2)
                    batches[nb++] = (double)b;
                if (maxb > 1 && batches[nb - 1] != (double)maxb && nb < MAX_POINTS)
                    batches[nb++] = (double)maxb;
            }
            struct point pts[MAX_POINTS];
            for (int ib = 0; ib < nb; ib++) {
                struct roof_result rd, rp;
                c.batch = batches[ib];
                c.phase = ROOF_DECODE;
                if (roof_evaluate(&c, &rd) != 0) {
                    rc = CLI_FAIL;
                    continue;
                }
                c.phase = ROOF_PREFILL;
                if (roof_evaluate(&c, &rp) != 0) {
                    rc = CLI_FAIL;
                    continue;
                }
                struct point *p = &pts[ib];
                p->batch = c.batch;
                p->context = c.context;
                p->prompt = c.prompt;
                p->itl = rd.itl_s;
                p->tps_seq = rd.tokens_per_s_per_seq;
                p->tps_total = rd.tokens_per_s_total;
                p->ttft = rp.ttft_s;
                p->mem = rd.mem.total_bytes;
                p->fits = rd.mem.fits;
                p->bound = roof_bound_name(rd.bound);
                p->util = rd.compute_utilisation;
            }
            /* Pareto: no other fitting point is at least as good on both axes and better on one */
            for (int i = 0; i < nb; i++) {
                pts[i].pareto = pts[i].fits;
                for (int j = 0; j < nb && pts[i].pareto; j++) {
                    if (j == i || !pts[j].fits)
                        continue;
                    if (pts[j].tps_total >= pts[i].tps_total && pts[j].tps_seq >= pts[i].tps_seq &&
                        (pts[j].tps_total > pts[i].tps_total || pts[j].tps_seq > pts[i].tps_seq))
                        pts[i].pareto = false;
                }
                struct out_value v[N_FIELDS] = {
                    {NULL, pts[i].batch}, {NULL, pts[i].context}, {NULL, pts[i].prompt},
                    {NULL, pts[i].itl},   {NULL, pts[i].tps_seq}, {NULL, pts[i].tps_total},
                    {NULL, pts[i].ttft},  {NULL, pts[i].mem},     {pts[i].fits ? "yes" : "no", 0},
                    {pts[i].bound, 0},    {NULL, pts[i].util},    {pts[i].pareto ? "yes" : "no", 0},
                };
                out_table_row(t, v);
            }
        }
    out_table_end(t, stdout, 2);
    if (fmt == OUT_JSON)
        printf("\n}\n");
    else if (fmt == OUT_TABLE)
        printf("\nPareto: no other point that fits has both more total tokens/s and more tokens/s "
               "per sequence.\nTTFT is the prefill of the whole batch of prompts at once.\n");
out:
    return cli_end(&ctx, rc);
}
