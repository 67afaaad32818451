/* Command-line front end: a table of subcommands, option parsing from per-command option
 * tables, the common start-up of a command, error printing.
 *
 * Adding a subcommand: write src/cli/cmd_<name>.c, add one line to COMMANDS in cli.c, document
 * it in README.md, add a CLI test in tests/cli/. A command declares its options once, each with
 * its help; the usage (`--help`, `roofline help NAME`, usage errors) is generated from them:
 *
 *     static const struct cli_opt OPTS[] = {
 *         OPT_VALUE("gpu", "ID|PATH", "the device: a profile id or a YAML file"),
 *         OPT_FLAG("bands", "add the calibrated error band"),
 *         CLI_OPT_FORMAT, CLI_ENGINE_OPTS,   (shared: -o table|csv|json, --batch ...)
 *     };
 *     static int run(int argc, char **argv);
 *     const struct cli_cmd cmd_x = {"x", "one-line summary",
 *                                   "roofline x --gpu ID|PATH [options]", run, CLI_OPTS(OPTS)};
 *
 *     static int
 *     run(int argc, char **argv)
 *     {
 *         struct cli_ctx c;
 *         int rc;
 *         if (cli_begin(&c, &cmd_x, CLI_GPU_MODEL, argc, argv, &rc) != 0)
 *             return rc;               (--help, usage error or a profile that does not load)
 *         ... c.hw, c.model, c.fmt, cli_get(&c.a, "bands") ...; on failure: rc = CLI_FAIL;
 *         goto out;
 *     out:
 *         return cli_end(&c, rc);      (frees what cli_begin loaded, flushes stdout)
 *     }
 */
#ifndef ROOFLINE_CLI_CLI_H
#define ROOFLINE_CLI_CLI_H

#include "cli/out.h"
#include "core/roof.h"
#include "util/err.h"
#include "util/version.h"

#include <stdbool.h>
#include <stdio.h>

#define CLI_MAX_OPTS 48
#define CLI_MAX_POS 8

enum { CLI_OK = 0, CLI_FAIL = 1, CLI_USAGE = 2 };

/* One option: `--name VALUE` (has_value) or a flag `--name`; "output" also answers to -o. */
struct cli_opt {
    const char *name; /* without the leading dashes */
    bool has_value;
    const char *arg;  /* the value's placeholder in the usage ("N", "FILE") */
    const char *help; /* one line in the usage */
};
/* clang-format off */
#define OPT_VALUE(name, arg, help) {(name), true, (arg), (help)}
#define OPT_FLAG(name, help) {(name), false, NULL, (help)}
/* clang-format on */

struct cli_args {
    const struct cli_opt *spec;
    int n_spec;
    const char *value[CLI_MAX_OPTS]; /* value or "" for flags; NULL = not given */
    const char *pos[CLI_MAX_POS];
    int n_pos;
};

struct cli_cmd {
    const char *name;
    const char *summary;
    const char *usage; /* the synopsis line(s); the options follow from `opts` */
    int (*run)(int argc, char **argv);
    const struct cli_opt *opts; /* CLI_OPTS(table) */
    int n_opts;
};
#define CLI_OPTS(table) (table), (int)(sizeof(table) / sizeof((table)[0]))

/* What cli_begin leaves for a command: the parsed arguments, the output format (-o; table when
 * absent) and, with CLI_GPU_MODEL, the loaded profiles (freed by cli_end). */
struct cli_ctx {
    const struct cli_cmd *cmd;
    struct cli_args a;
    enum out_fmt fmt;
    struct hw_profile *hw;
    struct mdl_profile *model;
};
enum {
    CLI_POSITIONAL = 1 << 0, /* positional arguments allowed (else "unexpected argument") */
    CLI_GPU_MODEL = 1 << 1,  /* --gpu and --model required and loaded */
    CLI_NO_FORMAT = 1 << 2,  /* -o is not table|csv|json: the command reads it itself */
};
/* Parse argv for `cmd` and do the common start-up. Returns 0, or -1 with the exit code in *rc
 * when the command must stop now: --help (0), a usage error (2), a profile that does not load
 * (1); everything is printed and released then. */
int cli_begin(struct cli_ctx *c, const struct cli_cmd *cmd, unsigned flags, int argc, char **argv,
              int *rc);
/* Free what cli_begin loaded; returns cli_finish(rc). */
int cli_end(struct cli_ctx *c, int rc);
/* Print "error: MESSAGE" and the command's usage to stderr; returns CLI_USAGE. */
int cli_usage_error(const struct cli_cmd *cmd, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 2, 3)))
#endif
    ;
/* The usage: "usage: " synopsis, then one line per option with its help. */
void cli_usage(const struct cli_cmd *cmd, FILE *f);

int cli_main(int argc, char **argv);
/* Parse argv (after the command name) against spec; prints a usage error and returns -1, 1 after
 * printing the usage for --help. Lower level than cli_begin (which new commands use). */
int cli_parse(struct cli_args *a, const struct cli_opt *spec, int n_spec, int argc, char **argv,
              const char *usage);
const char *cli_get(const struct cli_args *a, const char *name);
bool cli_has(const struct cli_args *a, const char *name);
/* Typed option readers; on a bad value they print "error: --name: ..." and return -1. */
int cli_long(const struct cli_args *a, const char *name, long def, long min, long *out);
int cli_count(const struct cli_args *a, const char *name, double *out); /* "8B", "70B" */
int cli_dtype(const struct cli_args *a, const char *name, enum dtype *out);
/* Records an allocation failure and prints "error: out of memory (while ...)" with what the
 * command was doing (util/alloc.h's context); cli_main then prints no second line. */
void cli_oom(void);
/* Print every diagnostic to stderr; returns the number of errors. */
size_t cli_print_errs(struct err_list *errs);
/* Load profiles by id or path, printing problems; NULL on failure. */
struct hw_profile *cli_load_hw(const char *arg);
struct mdl_profile *cli_load_model(const char *arg);
/* Shared engine options (--phase --batch --prompt --context --weights --act --kv --flash --tp
 * --ep --attn-dp --pp --gpus --reserve --engine --moe-kernel; see CLI_ENGINE_OPTS) into cfg
 * (already initialised with roof_config_init). Returns 0, CLI_USAGE after a bad value or CLI_FAIL
 * when the engine's data files do not load, after printing. */
int cli_engine_opts(const struct cli_args *a, struct roof_config *cfg);
/* The engine whose calibrated kernel model gives every command's times when --engine is not
 * given (the scenario default too); --engine datasheet gives the pure roofline bound. */
#define CLI_DEFAULT_ENGINE "kernel"
/* The engine the times on `hw` are for: --engine's value, CLI_DEFAULT_ENGINE when absent, NULL
 * for "datasheet" (the bound alone) and, when absent, for a profile written by roofline bench
 * (its roofs are measured: already what its kernels reach). Borrowed from `a` or static. */
const char *cli_engine(const struct cli_args *a, const struct hw_profile *hw);
/* One line saying which engine the times are for ("Times: ..."), for a command's first lines;
 * `named`: --engine was given (NULL and not named: a measured host's roofs). */
void cli_engine_line(FILE *f, const char *engine, bool named);
#define CLI_ENGINE_OPTS                                                                            \
    OPT_VALUE("batch", "B", "concurrent sequences (default 1)"),                                   \
        OPT_VALUE("prompt", "P", "prompt tokens (default 512)"),                                   \
        OPT_VALUE("context", "C", "tokens already in the KV cache (default 512)"),                 \
        OPT_VALUE("weights", "T", "weight format: fp16, bf16, fp8, int8, int4, q4_k_m, ..."),      \
        OPT_VALUE("act", "T", "activation format (default from --weights)"),                       \
        OPT_VALUE("kv", "T", "KV-cache format (default from --weights)"),                          \
        OPT_VALUE("flash", "on|off", "fused attention (FlashAttention)"),                          \
        OPT_VALUE("tp", "N", "tensor-parallel degree"),                                            \
        OPT_VALUE("ep", "N",                                                                       \
                  "expert-parallel degree: routed experts dealt whole over N groups of the tp "    \
                  "devices"),                                                                      \
        OPT_VALUE("attn-dp", "N",                                                                  \
                  "data-parallel attention: N ranks of the tp devices, each attending its own "    \
                  "sequences"),                                                                    \
        OPT_VALUE("pp", "N", "pipeline-parallel degree"),                                          \
        OPT_VALUE("gpus", "N", "devices in total (replicas = N / (tp x pp))"),                     \
        OPT_VALUE("reserve", "SIZE|PCT", "memory held back from the KV cache (8 GB, 10%)"),        \
        OPT_VALUE("engine", "E",                                                                   \
                  "engine: kernel (default), vllm, llama.cpp, ..., datasheet (the bound)"),        \
        OPT_VALUE(                                                                                 \
            "moe-kernel", "auto|marlin",                                                           \
            "MXFP4 experts: the engine's kernel, or vLLM's Marlin (VLLM_MXFP4_USE_MARLIN=1)")
/* calibrate and validate --measurements */
#define CLI_OPT_MEASUREMENTS                                                                       \
    OPT_VALUE("measurements", "FILE", "published measurements (docs/calibration.md)")
#define CLI_OPT_PARAMS                                                                             \
    OPT_VALUE("params", "DIR", "calibrated parameters from calibrate --output-dir")
/* -o table|csv|json */
#define CLI_OPT_FORMAT OPT_VALUE("output", "table|csv|json", "output format (-o; default table)")
/* Finish stdout: flush and report write errors (e.g. >/dev/full) as exit 1. */
int cli_finish(int rc);

/* the commands (one line each) */
extern const struct cli_cmd cmd_list;
extern const struct cli_cmd cmd_show;
extern const struct cli_cmd cmd_analyze;
extern const struct cli_cmd cmd_explain;
extern const struct cli_cmd cmd_demo;
extern const struct cli_cmd cmd_sweep;
extern const struct cli_cmd cmd_chart;
extern const struct cli_cmd cmd_calibrate;
extern const struct cli_cmd cmd_validate;
extern const struct cli_cmd cmd_bench;
extern const struct cli_cmd cmd_simulate;
extern const struct cli_cmd cmd_plan;
extern const struct cli_cmd cmd_report;
extern const struct cli_cmd cmd_serve;
extern const struct cli_cmd cmd_profile;
extern const struct cli_cmd cmd_import;
/* chart profile (chart_profile.c); cmd_chart dispatches to it */
int cli_chart_profile(int argc, char **argv);
/* A scenario and its simulator config: the profiles, formats, engine tuning (its engine
 * profile) and the seed (seed < 0: the scenario's). Errors are printed; NULL on failure. The
 * config borrows from the scenario (scenario_free). cmd_simulate.c */
struct scenario;
struct sim_config;
struct scenario *cli_scenario_load(const char *path, long seed, struct sim_config *cfg);
/* chart plan: answer the question and save its chart to `out` (cmd_plan.c). CLI_OK/CLI_FAIL. */
int cli_plan_chart(const char *question, const char *out, int width, int height);
/* validate --measurements (cmd_calibrate.c); cmd_validate dispatches to it */
int cli_validate_measurements(int argc, char **argv);

#endif
