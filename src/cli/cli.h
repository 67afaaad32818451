/* Command-line front end: a table of subcommands, shared option parsing and error printing.
 * Adding a subcommand: write src/cli/cmd_<name>.c with a `const struct cli_cmd`, add one line to
 * COMMANDS in cli.c, document it in README.md, add a CLI test in tests/cli/. */
#ifndef ROOFLINE_CLI_CLI_H
#define ROOFLINE_CLI_CLI_H

#include "core/roof.h"
#include "util/err.h"

#include <stdbool.h>
#include <stdio.h>

#define CLI_MAX_OPTS 48
#define CLI_MAX_POS 8

enum { CLI_OK = 0, CLI_FAIL = 1, CLI_USAGE = 2 };

struct cli_opt {
    const char *name; /* without the leading dashes */
    bool has_value;
};

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
    const char *usage;
    int (*run)(int argc, char **argv);
};

int cli_main(int argc, char **argv);
/* Parse argv (after the command name) against spec; prints a usage error and returns -1. */
int cli_parse(struct cli_args *a, const struct cli_opt *spec, int n_spec, int argc, char **argv,
              const char *usage);
const char *cli_get(const struct cli_args *a, const char *name);
bool cli_has(const struct cli_args *a, const char *name);
/* Typed option readers; on a bad value they print "error: --name: ..." and return -1. */
int cli_long(const struct cli_args *a, const char *name, long def, long min, long *out);
int cli_count(const struct cli_args *a, const char *name, double *out); /* "8B", "70B" */
int cli_dtype(const struct cli_args *a, const char *name, enum dtype *out);
/* Print every diagnostic to stderr; returns the number of errors. */
size_t cli_print_errs(struct err_list *errs);
/* Load profiles by id or path, printing problems; NULL on failure. */
struct hw_profile *cli_load_hw(const char *arg);
struct mdl_profile *cli_load_model(const char *arg);
/* Shared engine options (--phase --batch --prompt --context --weights --act --kv --flash --tp
 * --pp --gpus --reserve; see CLI_ENGINE_OPTS) into
 * cfg (already initialised with roof_config_init). Returns 0 or -1 after printing. */
int cli_engine_opts(const struct cli_args *a, struct roof_config *cfg);
#define CLI_ENGINE_OPTS                                                                            \
    {"batch", true}, {"prompt", true}, {"context", true}, {"weights", true}, {"act", true},       \
        {"kv", true}, {"flash", true}, {"tp", true}, {"pp", true}, {"gpus", true},              \
        {"reserve", true}, {"engine", true}
/* Finish stdout: flush and report write errors (e.g. >/dev/full) as exit 1. */
int cli_finish(int rc);

extern const struct cli_cmd cmd_list, cmd_show, cmd_analyze, cmd_explain, cmd_demo, cmd_sweep, cmd_chart,
    cmd_calibrate, cmd_validate, cmd_bench, cmd_simulate, cmd_plan, cmd_report;
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
