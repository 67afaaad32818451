/* Command table, option parsing, shared loaders and exit handling. Only cli/ prints. */
#include "cli/cli.h"

#include "io/calparams.h"
#include "io/measure.h"
#include "io/profiles.h"
#include "util/alloc.h"
#include "util/array.h"
#include "util/strs.h"
#include "util/units.h"
#include "util/version.h"

#include <limits.h>
#include <math.h>
#include <stdarg.h>
#include <string.h>
#include <unistd.h>

static int cmd_help_run(int argc, char **argv);
static int cmd_version_run(int argc, char **argv);
static const struct cli_cmd cmd_help = {
    "help", "show commands or one command's usage", "roofline help [COMMAND]", cmd_help_run, NULL,
    0};
static const struct cli_cmd cmd_version = {
    "version", "print the version", "roofline version", cmd_version_run, NULL, 0};

/* one command per line, so that a new command is a one-line change */
/* clang-format off */
static const struct cli_cmd *const COMMANDS[] = {
    &cmd_demo,
    &cmd_list,
    &cmd_show,
    &cmd_analyze,
    &cmd_explain,
    &cmd_sweep,
    &cmd_calibrate,
    &cmd_validate,
    &cmd_bench,
    &cmd_simulate,
    &cmd_plan,
    &cmd_report,
    &cmd_serve,
    &cmd_profile,
    &cmd_import,
    &cmd_chart,
    &cmd_help,
    &cmd_version,
};
/* clang-format on */
#define N_COMMANDS ARRAY_SIZE(COMMANDS)

static const struct cli_cmd *
find_cmd(const char *name)
{
    for (size_t i = 0; i < N_COMMANDS; i++)
        if (strcmp(COMMANDS[i]->name, name) == 0)
            return COMMANDS[i];
    return NULL;
}

/* "usage: SYNOPSIS", the summary when given, then the options with their help. */
static void
print_usage(const struct cli_cmd *cmd, const char *usage, const char *summary, FILE *f)
{
    fprintf(f, "usage: %s\n", usage);
    if (summary)
        fprintf(f, "\n%s\n", summary);
    if (!cmd || !cmd->opts)
        return;
    int width = 0;
    char left[CLI_MAX_OPTS][64];
    for (int i = 0; i < cmd->n_opts && i < CLI_MAX_OPTS; i++) {
        const struct cli_opt *o = &cmd->opts[i];
        int n = snprintf(left[i], sizeof left[i], "%s--%s%s%s",
                         strcmp(o->name, "output") == 0 ? "-o, " : "", o->name,
                         o->has_value ? " " : "", o->has_value && o->arg ? o->arg : "");
        if (n > width && n < 28)
            width = n;
    }
    fprintf(f, "\noptions:\n");
    for (int i = 0; i < cmd->n_opts && i < CLI_MAX_OPTS; i++) {
        const char *help = cmd->opts[i].help ? cmd->opts[i].help : "";
        if ((int)strlen(left[i]) > width)
            fprintf(f, "  %s\n  %-*s  %s\n", left[i], width, "", help);
        else
            fprintf(f, "  %-*s  %s\n", width, left[i], help);
    }
}

void
cli_usage(const struct cli_cmd *cmd, FILE *f)
{
    print_usage(cmd, cmd->usage, NULL, f);
}

int
cli_usage_error(const struct cli_cmd *cmd, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    fprintf(stderr, "error: ");
    vfprintf(stderr, fmt, ap);
    va_end(ap);
    fputc('\n', stderr);
    cli_usage(cmd, stderr);
    return CLI_USAGE;
}

static void
print_commands(FILE *f)
{
    fprintf(f, "usage: roofline COMMAND [OPTIONS]\n\n"
               "LLM inference performance from datasheets: prefill, decode, memory, and why.\n\n"
               "commands:\n");
    for (size_t i = 0; i < N_COMMANDS; i++)
        fprintf(f, "  %-10s %s\n", COMMANDS[i]->name, COMMANDS[i]->summary);
    fprintf(f, "\nRun 'roofline help COMMAND' for a command's options. With no command, roofline\n"
               "runs 'demo': a worked decode and prefill answer for Llama-3-8B on an H100.\n"
               "Times come from the " CLI_DEFAULT_ENGINE " engine's calibrated kernel model "
               "unless --engine names another\n(--engine datasheet: the pure roofline bound).\n");
}

static int
cmd_help_run(int argc, char **argv)
{
    if (argc >= 2) {
        const struct cli_cmd *c = find_cmd(argv[1]);
        if (!c) {
            fprintf(stderr, "error: unknown command '%s'\n", argv[1]);
            return CLI_USAGE;
        }
        print_usage(c, c->usage, c->summary, stdout);
        return cli_finish(CLI_OK);
    }
    print_commands(stdout);
    return cli_finish(CLI_OK);
}

static int
cmd_version_run(int argc, char **argv)
{
    (void)argc;
    (void)argv;
    printf("roofline %s\n", roofline_version());
    return cli_finish(CLI_OK);
}

int
cli_finish(int rc)
{
    if (fflush(stdout) != 0 || ferror(stdout)) {
        fprintf(stderr, "error: cannot write to standard output\n");
        return CLI_FAIL;
    }
    return rc;
}

/* An "error: out of memory (while ...)" line was printed (cli_print_errs, cli_oom), so that
 * cli_main does not print another. */
static bool oom_printed;

/* An allocation failed that the command may have ignored: exit 1, saying so once. */
static int
oom_end(void)
{
    if (!oom_printed)
        fprintf(stderr, "error: out of memory (while %s)\n", alloc_failure_context());
    return CLI_FAIL;
}

void
cli_oom(void)
{
    alloc_note_failure();
    fprintf(stderr, "error: out of memory (while %s)\n", alloc_failure_context());
    oom_printed = true;
}

/* The value of --name (or --name=V) in argv, or NULL; read before the command parses argv, only
 * to say what the command is doing. */
static const char *
arg_value(int argc, char **argv, const char *name)
{
    size_t n = strlen(name);
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i];
        if (a[0] != '-' || a[1] != '-' || strncmp(a + 2, name, n) != 0)
            continue;
        if (a[2 + n] == '=')
            return a + 3 + n;
        if (a[2 + n] == '\0' && i + 1 < argc)
            return argv[i + 1];
    }
    return NULL;
}

/* What a command is doing, for every "out of memory (while ...)" it may print: its verb and its
 * subject from the command line (alloc_context_command); loaders, drawing and writing add their
 * own phrases on top (alloc_context_push). */
static void
set_context(const char *name, int argc, char **argv)
{
    const char *first = argc > 1 && argv[1][0] != '-' ? argv[1] : NULL;
    const char *gpu = arg_value(argc, argv, "gpu");
    const char *model = arg_value(argc, argv, "model");
    const char *on = gpu && model ? " on " : "";
    if (!gpu || !model)
        gpu = model = "";
    if (strcmp(name, "simulate") == 0 && arg_value(argc, argv, "scenario"))
        alloc_context_command("simulating scenario '%s'", arg_value(argc, argv, "scenario"));
    else if (strcmp(name, "plan") == 0 && first && strcmp(first, "merge") == 0)
        alloc_context_command("merging plans");
    else if (strcmp(name, "plan") == 0 && arg_value(argc, argv, "question"))
        alloc_context_command("planning '%s'", arg_value(argc, argv, "question"));
    else if (strcmp(name, "report") == 0 && first)
        alloc_context_command("writing the report of '%s'", first);
    else if (strcmp(name, "report") == 0)
        alloc_context_command("writing the report of %s%s%s", model, on, gpu);
    else if (strcmp(name, "chart") == 0 && first)
        alloc_context_command("drawing chart '%s'", first);
    else if (strcmp(name, "explain") == 0 && first)
        alloc_context_command("explaining '%s'", first);
    else if (strcmp(name, "analyze") == 0 || strcmp(name, "sweep") == 0)
        alloc_context_command("%s %s%s%s", name[0] == 'a' ? "analyzing" : "sweeping batches of",
                              model, on, gpu);
    else if (strcmp(name, "calibrate") == 0 || strcmp(name, "validate") == 0)
        alloc_context_command("%s", name[0] == 'c' ? "calibrating" : "validating");
    else if ((strcmp(name, "show") == 0 || strcmp(name, "list") == 0) && first)
        alloc_context_command("%s %s", name[0] == 's' ? "showing" : "listing", first);
    else if (strcmp(name, "import") == 0 && first)
        alloc_context_command("importing %s results", first);
    else if (strcmp(name, "bench") == 0)
        alloc_context_command("benchmarking this host");
    else if (strcmp(name, "profile") == 0 && arg_value(argc, argv, "url"))
        alloc_context_command("profiling the server at %s", arg_value(argc, argv, "url"));
    else if (strcmp(name, "serve") == 0)
        alloc_context_command("serving completions");
    else
        alloc_context_command("running 'roofline %s'", name);
}

/* `roofline` alone: the main job. Answer the shipped purchase question (a chat service,
 * reports/chat-service.yaml in the data directory) on the built-in profiles and write its report
 * to reports/chat-service.pdf; the answer's line comes first, then the report's path. */
static int
main_job(void)
{
    char question[4096];
    int n = snprintf(question, sizeof question, "%s/reports/chat-service.yaml", prof_data_dir());
    if (n < 0 || (size_t)n >= sizeof question) {
        fprintf(stderr, "error: data directory path too long\n");
        return CLI_FAIL;
    }
    /* shown relative to the working directory when it is below it (a fresh clone) */
    char cwd[4096];
    const char *shown = question;
    if (getcwd(cwd, sizeof cwd)) {
        size_t cl = strlen(cwd);
        if (strncmp(question, cwd, cl) == 0 && question[cl] == '/')
            shown = question + cl + 1;
    }
    char *av[] = {"report", (char *)shown, NULL};
    set_context("report", 2, av);
    int rc = cmd_report.run(2, av);
    if (alloc_failed())
        return oom_end();
    if (rc == CLI_OK) {
        printf("\nThe question: %s (model, traffic, SLOs, candidates, money).\n", shown);
        printf("More: roofline plan --question %s (every option and why the others lose);\n"
               "      roofline demo (the worked explanation: why decode is bandwidth-bound);\n"
               "      roofline help\n",
               shown);
        rc = cli_finish(CLI_OK);
    }
    return rc;
}

int
cli_main(int argc, char **argv)
{
    if (argc < 2)
        return main_job();
    const char *name = argv[1];
    if (strcmp(name, "--help") == 0 || strcmp(name, "-h") == 0)
        return cmd_help_run(1, argv);
    if (strcmp(name, "--version") == 0)
        return cmd_version_run(1, argv);
    const struct cli_cmd *c = find_cmd(name);
    if (!c) {
        const char *names[N_COMMANDS];
        for (size_t i = 0; i < N_COMMANDS; i++)
            names[i] = COMMANDS[i]->name;
        const char *hint = str_closest(name, names, N_COMMANDS);
        if (hint)
            fprintf(stderr, "error: unknown command '%s' (did you mean '%s'?)\n", name, hint);
        else
            fprintf(stderr, "error: unknown command '%s'\n", name);
        print_commands(stderr);
        return CLI_USAGE;
    }
    set_context(c->name, argc - 1, argv + 1);
    int rc = c->run(argc - 1, argv + 1);
    return alloc_failed() ? oom_end() : rc;
}

static int
parse(struct cli_args *a, const struct cli_opt *spec, int n_spec, int argc, char **argv,
      const struct cli_cmd *cmd, const char *usage)
{
    memset(a, 0, sizeof *a);
    a->spec = spec;
    a->n_spec = n_spec;
    for (int i = 1; i < argc; i++) {
        const char *arg = argv[i];
        if (strcmp(arg, "-h") == 0 || strcmp(arg, "--help") == 0) {
            print_usage(cmd, usage, NULL, stdout);
            return 1;
        }
        if (arg[0] == '-' && arg[1] != '\0' && !(arg[1] >= '0' && arg[1] <= '9')) {
            const char *name = arg + (arg[1] == '-' ? 2 : 1);
            char key[64];
            const char *eq = strchr(name, '=');
            size_t kl = eq ? (size_t)(eq - name) : strlen(name);
            if (kl >= sizeof key)
                kl = sizeof key - 1;
            memcpy(key, name, kl);
            key[kl] = '\0';
            if (strcmp(key, "o") == 0)
                snprintf(key, sizeof key, "output");
            int idx = -1;
            for (int j = 0; j < n_spec; j++)
                if (strcmp(spec[j].name, key) == 0)
                    idx = j;
            if (idx < 0) {
                const char *names[CLI_MAX_OPTS];
                for (int j = 0; j < n_spec; j++)
                    names[j] = spec[j].name;
                const char *hint = str_closest(key, names, (size_t)n_spec);
                if (hint)
                    fprintf(stderr, "error: unknown option '--%s' (did you mean '--%s'?)\n", key,
                            hint);
                else
                    fprintf(stderr, "error: unknown option '--%s'\n", key);
                print_usage(cmd, usage, NULL, stderr);
                return -1;
            }
            if (spec[idx].has_value) {
                if (eq) {
                    a->value[idx] = eq + 1;
                } else if (i + 1 < argc) {
                    a->value[idx] = argv[++i];
                } else {
                    fprintf(stderr, "error: option '--%s' needs a value\n", key);
                    return -1;
                }
            } else {
                if (eq) {
                    fprintf(stderr, "error: option '--%s' takes no value\n", key);
                    return -1;
                }
                a->value[idx] = "";
            }
        } else {
            if (a->n_pos >= CLI_MAX_POS) {
                fprintf(stderr, "error: too many arguments\n");
                print_usage(cmd, usage, NULL, stderr);
                return -1;
            }
            a->pos[a->n_pos++] = arg;
        }
    }
    return 0;
}

int
cli_parse(struct cli_args *a, const struct cli_opt *spec, int n_spec, int argc, char **argv,
          const char *usage)
{
    return parse(a, spec, n_spec, argc, argv, NULL, usage);
}

int
cli_begin(struct cli_ctx *c, const struct cli_cmd *cmd, unsigned flags, int argc, char **argv,
          int *rc)
{
    memset(c, 0, sizeof *c);
    c->cmd = cmd;
    c->fmt = OUT_TABLE;
    int pr = parse(&c->a, cmd->opts, cmd->n_opts, argc, argv, cmd, cmd->usage);
    if (pr != 0) {
        *rc = pr > 0 ? cli_finish(CLI_OK) : CLI_USAGE;
        return -1;
    }
    if (!(flags & CLI_POSITIONAL) && c->a.n_pos) {
        *rc = cli_usage_error(cmd, "unexpected argument '%s'", c->a.pos[0]);
        return -1;
    }
    if (!(flags & CLI_NO_FORMAT) && cli_has(&c->a, "output") &&
        out_parse_fmt(cli_get(&c->a, "output"), &c->fmt) != 0) {
        fprintf(stderr, "error: -o: expected table, csv or json\n");
        *rc = CLI_USAGE;
        return -1;
    }
    if (flags & CLI_GPU_MODEL) {
        if (!cli_has(&c->a, "gpu") || !cli_has(&c->a, "model")) {
            *rc = cli_usage_error(cmd, "--gpu and --model are required");
            return -1;
        }
        c->hw = cli_load_hw(cli_get(&c->a, "gpu"));
        c->model = c->hw ? cli_load_model(cli_get(&c->a, "model")) : NULL;
        if (!c->hw || !c->model) {
            hw_free(c->hw);
            c->hw = NULL;
            *rc = CLI_FAIL;
            return -1;
        }
    }
    return 0;
}

int
cli_end(struct cli_ctx *c, int rc)
{
    hw_free(c->hw);
    mdl_free(c->model);
    c->hw = NULL;
    c->model = NULL;
    return cli_finish(rc);
}

const char *
cli_get(const struct cli_args *a, const char *name)
{
    for (int j = 0; j < a->n_spec; j++)
        if (strcmp(a->spec[j].name, name) == 0)
            return a->value[j];
    return NULL;
}

bool
cli_has(const struct cli_args *a, const char *name)
{
    return cli_get(a, name) != NULL;
}

int
cli_long(const struct cli_args *a, const char *name, long def, long min, long *out)
{
    const char *v = cli_get(a, name);
    if (!v) {
        *out = def;
        return 0;
    }
    double x;
    const char *why;
    /* accept "4k" style counts for lengths; every caller stores an int or a length, so the
     * bound is INT_MAX (4294967297 once ran as tp 1); compare as doubles before converting */
    if (unit_parse(v, UNIT_COUNT_SUFFIX, &x, &why) != 0 || x != floor(x)) {
        fprintf(stderr, "error: --%s: expected a whole number, got '%s'\n", name, v);
        return -1;
    }
    if (x < (double)min) {
        fprintf(stderr, "error: --%s: must be at least %ld, got '%s'\n", name, min, v);
        return -1;
    }
    if (x > (double)INT_MAX) {
        fprintf(stderr, "error: --%s: must be at most %d, got '%s'\n", name, INT_MAX, v);
        return -1;
    }
    *out = (long)x;
    return 0;
}

int
cli_count(const struct cli_args *a, const char *name, double *out)
{
    const char *v = cli_get(a, name);
    const char *why;
    if (!v)
        return 0;
    if (unit_parse(v, UNIT_COUNT_SUFFIX, out, &why) != 0 || !(*out > 0)) {
        fprintf(stderr, "error: --%s: expected a positive count such as '8B' or '70B', got '%s'\n",
                name, v);
        return -1;
    }
    return 0;
}

int
cli_dtype(const struct cli_args *a, const char *name, enum dtype *out)
{
    const char *v = cli_get(a, name);
    if (!v)
        return 0;
    if (dtype_parse(v, out) != 0 || *out == DT_TF32 || *out == DT_FP64) {
        char list[256];
        fprintf(stderr, "error: --%s: unknown format '%s' (%s)\n", name, v,
                dtype_list(list, sizeof list, strcmp(name, "weights") == 0));
        return -1;
    }
    if (dtype_is_mix(*out) && strcmp(name, "weights") != 0) {
        fprintf(stderr,
                "error: --%s: '%s' is a mix of weight formats per tensor class, for --weights "
                "only\n",
                name, v);
        return -1;
    }
    return 0;
}

size_t
cli_print_errs(struct err_list *errs)
{
    err_sort(errs);
    char buf[1400];
    for (size_t i = 0; i < errs->n; i++) {
        err_format(&errs->items[i], buf, sizeof buf);
        fprintf(stderr, "%s\n", buf);
        const char *m = errs->items[i].msg;
        if (errs->items[i].severity == ERR_ERROR && strncmp(m, "out of memory", 13) == 0 &&
            strstr(m, "(while "))
            oom_printed = true;
    }
    return err_count(errs, ERR_ERROR);
}

struct hw_profile *
cli_load_hw(const char *arg)
{
    struct err_list errs = {0};
    struct hw_profile *hw = hw_find(arg, &errs);
    cli_print_errs(&errs);
    err_list_release(&errs);
    return hw;
}

struct mdl_profile *
cli_load_model(const char *arg)
{
    struct err_list errs = {0};
    struct mdl_profile *m = mdl_find(arg, &errs);
    cli_print_errs(&errs);
    err_list_release(&errs);
    return m;
}

const char *
cli_engine(const struct cli_args *a, const struct hw_profile *hw)
{
    const char *eng = cli_get(a, "engine");
    if (!eng) /* a profile written by roofline bench has measured roofs and GEMM efficiency */
        return hw && hw->gemm_efficiency > 0 ? NULL : CLI_DEFAULT_ENGINE;
    return strcmp(eng, "datasheet") == 0 ? NULL : eng;
}

void
cli_engine_line(FILE *f, const char *engine, bool named)
{
    if (engine)
        fprintf(f,
                "Times: the %s engine's calibrated kernel model%s (--engine datasheet for the pure "
                "roofline bound)\n",
                engine, named ? "" : ", the default");
    else if (named)
        fprintf(f, "Times: the datasheet roofline bound, what the physics allows (no engine "
                   "overheads; the default is --engine " CLI_DEFAULT_ENGINE ")\n");
    else
        fprintf(f, "Times: the roofline of this host's measured roofs (a profile written by "
                   "roofline bench: they are what its kernels reach; --engine NAME for a "
                   "calibrated engine)\n");
}

int
cli_engine_opts(const struct cli_args *a, struct roof_config *cfg)
{
    /* absent options keep what the caller set (roof_config_init: batch 1, prompt and context
     * 512) */
    long batch, prompt, context;
    if (cli_long(a, "batch", (long)cfg->batch, 1, &batch) ||
        cli_long(a, "prompt", (long)cfg->prompt, 1, &prompt) ||
        cli_long(a, "context", (long)cfg->context, 0, &context))
        return CLI_USAGE;
    cfg->batch = (double)batch;
    cfg->prompt = (double)prompt;
    cfg->context = (double)context;
    const char *ph = cli_get(a, "phase");
    if (ph) {
        if (strcmp(ph, "prefill") == 0)
            cfg->phase = ROOF_PREFILL;
        else if (strcmp(ph, "decode") == 0)
            cfg->phase = ROOF_DECODE;
        else {
            fprintf(stderr, "error: --phase: expected 'prefill' or 'decode', got '%s'\n", ph);
            return CLI_USAGE;
        }
    }
    bool w_given = cli_has(a, "weights");
    if (cli_dtype(a, "weights", &cfg->weights))
        return CLI_USAGE;
    if (w_given) {
        cfg->act = roof_default_act(cfg->weights);
        cfg->kv = roof_default_kv(cfg->weights);
    }
    if (cli_dtype(a, "act", &cfg->act) || cli_dtype(a, "kv", &cfg->kv))
        return CLI_USAGE;
    if (dtype_is_weight_only(cfg->act) || (dtype_is_weight_only(cfg->kv) && cfg->kv != DT_INT4)) {
        fprintf(stderr, "error: --act/--kv: %s is a weight-only format\n",
                dtype_name(dtype_is_weight_only(cfg->act) ? cfg->act : cfg->kv));
        return CLI_USAGE;
    }
    long tp = 1, pp = 1, gpus = 0, epd = 1, adp = 1;
    if (cli_long(a, "tp", 1, 1, &tp) || cli_long(a, "pp", 1, 1, &pp) ||
        cli_long(a, "gpus", 0, 1, &gpus) || cli_long(a, "ep", 1, 1, &epd) ||
        cli_long(a, "attn-dp", 1, 1, &adp))
        return CLI_USAGE;
    cfg->tp = (int)tp;
    cfg->pp = (int)pp;
    cfg->ep = (int)epd;
    cfg->attn_dp = (int)adp;
    cfg->gpus = (int)gpus;
    const char *rs = cli_get(a, "reserve");
    if (rs) {
        size_t l = strlen(rs);
        double v;
        const char *why;
        if (l > 1 && rs[l - 1] == '%') {
            char num[32];
            snprintf(num, sizeof num, "%.*s", (int)(l - 1), rs);
            if (str_to_double(num, &v) != 0 || v < 0 || v >= 100) {
                fprintf(stderr,
                        "error: --reserve: expected a size such as '8 GB' or a percentage "
                        "such as '10%%', got '%s'\n",
                        rs);
                return CLI_USAGE;
            }
            cfg->reserve_bytes = v / 100.0 * hw_memory_bytes(cfg->hw);
        } else if (strcmp(rs, "0") == 0) {
            cfg->reserve_bytes = 0;
        } else if (unit_parse(rs, UNIT_BYTES, &v, &why) == 0 && v >= 0) {
            cfg->reserve_bytes = v;
        } else {
            fprintf(stderr,
                    "error: --reserve: expected a size such as '8 GB' or a percentage "
                    "such as '10%%', got '%s'\n",
                    rs);
            return CLI_USAGE;
        }
    }
    const char *fl = cli_get(a, "flash");
    if (fl) {
        if (strcmp(fl, "on") == 0)
            cfg->flash_attention = cfg->flash_attention_asked = true;
        else if (strcmp(fl, "off") == 0)
            cfg->flash_attention = false;
        else {
            fprintf(stderr, "error: --flash: expected 'on' or 'off', got '%s'\n", fl);
            return CLI_USAGE;
        }
    }
    const char *eng = cli_engine(a, cfg->hw);
    if (eng) { /* NULL: datasheet, the pure roofline (or a measured host's roofs) */
        struct err_list errs = {0};
        int e = calparams_tuning(cfg->hw, eng, NULL, &cfg->tuning, NULL, &errs);
        cli_print_errs(&errs);
        err_list_release(&errs);
        if (e != 0)
            return e == -2 ? CLI_USAGE : CLI_FAIL;
        if (!rs) { /* the engine's own reserve (vLLM 1 - gpu_memory_utilization, ...) */
            struct engine_profile *ep = engine_find(eng, &errs);
            cli_print_errs(&errs);
            err_list_release(&errs);
            if (!ep)
                return CLI_FAIL;
            double ctx = cfg->model ? (double)cfg->model->max_position_embeddings : 0;
            double r = engine_reserve_bytes(ep, cfg, ctx);
            if (r >= 0)
                cfg->reserve_bytes = r;
            engine_profile_free(ep);
        }
    }
    /* vLLM's Marlin MoE for MXFP4 experts (VLLM_MXFP4_USE_MARLIN=1): its rate is the engine
     * profile's, on Hopper (docs/physics.md#moe-kernels) */
    const char *mk = cli_get(a, "moe-kernel");
    if (mk) {
        if (strcmp(mk, "marlin") == 0) {
            cfg->mxfp4_marlin = true;
        } else if (strcmp(mk, "auto") != 0) {
            fprintf(stderr, "error: --moe-kernel: expected 'auto' or 'marlin', got '%s'\n", mk);
            return CLI_USAGE;
        }
    }
    char pb[256];
    const char *problem = cfg->model ? roof_config_problem_named(cfg, eng, pb, sizeof pb) : NULL;
    if (problem) {
        char epw[64] = "";
        int k = epd > 1 ? snprintf(epw, sizeof epw, ", --ep %ld", epd) : 0;
        if (adp > 1)
            snprintf(epw + k, sizeof epw - (size_t)k, ", --attn-dp %ld", adp);
        fprintf(stderr, "error: %s (--tp %ld%s, --pp %ld, %s on %s)\n", problem, tp, epw, pp,
                cfg->model->id, cfg->hw->id);
        return CLI_USAGE;
    }
    return 0;
}
