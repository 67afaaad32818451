/* libFuzzer harness: the CLI option parser and the typed readers (cli_parse, cli_long,
 * cli_count, cli_engine_opts) on an argv made of the input's NUL-separated words. Usage errors
 * go to stderr: run with -close_fd_mask=2 (tests/fuzz/run.sh does). */
#include "fuzz_common.h"

#include "cli/cli.h"
#include "core/hw.h"
#include "core/model.h"

#include <limits.h>

static const struct cli_opt SPEC[] = {CLI_ENGINE_OPTS,
                                      OPT_VALUE("gpu", "ID", ""),
                                      OPT_VALUE("model", "ID", ""),
                                      OPT_VALUE("seed", "N", ""),
                                      OPT_VALUE("params", "N", ""),
                                      OPT_VALUE("output", "FORMAT", ""),
                                      OPT_FLAG("quick", "")};

static void
check(const char *text, size_t size, struct err_list *errs)
{
    static struct hw_profile *hw;
    static struct mdl_profile *m;
    if (!hw) {
        hw = hw_find("h100-sxm", errs);
        m = mdl_find("llama-3-8b", errs);
        if (!hw || !m)
            abort(); /* run from the repository top or set ROOFLINE_FUZZ_DATA */
    }
    if (size > 4096)
        return;
    char *buf = malloc(size + 1);
    if (!buf)
        return;
    memcpy(buf, text, size);
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
}

FUZZ_TEXT(check)
