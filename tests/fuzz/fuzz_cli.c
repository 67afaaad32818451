/* libFuzzer harness: the CLI option parser and the typed readers (cli_parse, cli_long,
 * cli_count, cli_dtype, cli_engine_opts) on an argv made of the input's NUL-separated words.
 * Usage errors go to stderr: run with -close_fd_mask=2 (tests/fuzz/run.sh does). */
#include "fuzz_common.h"

#include "cli/cli.h"
#include "core/hw.h"
#include "core/model.h"

#include <limits.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static const struct cli_opt SPEC[] = {CLI_ENGINE_OPTS, {"gpu", true},    {"model", true},
                                      {"seed", true},  {"params", true}, {"o", true},
                                      {"quick", false}};

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    static struct hw_profile *hw;
    static struct mdl_profile *m;
    if (!hw) {
        fuzz_setup();
        struct err_list errs = {0};
        hw = hw_find("h100-sxm", &errs);
        m = mdl_find("llama-3-8b", &errs);
        err_list_release(&errs);
        if (!hw || !m)
            abort(); /* run from the repository top or set ROOFLINE_FUZZ_DATA */
    }
    if (size > 4096)
        return 0;
    char *buf = malloc(size + 1);
    if (!buf)
        return 0;
    memcpy(buf, data, size);
    buf[size] = '\0';
    char *argv[64];
    int argc = 0;
    for (size_t i = 0; i <= size && argc < 64;) {
        argv[argc++] = buf + i;
        i += strlen(buf + i) + 1;
    }
    struct cli_args a;
    if (cli_parse(&a, SPEC, (int)(sizeof SPEC / sizeof SPEC[0]), argc, argv, "fuzz") == 0) {
        long v;
        if (cli_long(&a, "seed", 1, 0, &v) == 0 && (v < 0 || v > INT_MAX))
            abort();
        double c;
        (void)cli_count(&a, "params", &c);
        struct roof_config cfg;
        roof_config_init(&cfg, hw, m, ROOF_DECODE);
        if (cli_engine_opts(&a, &cfg) == 0 && (cfg.tp < 1 || cfg.pp < 1 || cfg.gpus < 0))
            abort();
    }
    free(buf);
    return 0;
}
