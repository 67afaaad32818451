/* roofline (no arguments) / roofline demo: the main job on the built-in profiles: a worked
 * decode answer for Llama-3-8B on an H100 SXM, then its per-operator analysis. */
#include "cli/cli.h"

static int
run(int argc, char **argv)
{
    (void)argc;
    (void)argv;
    char *explain[] = {"explain", "decode", "--gpu", "h100-sxm", "--model", "llama-3-8b", NULL};
    printf("== roofline explain decode --gpu h100-sxm --model llama-3-8b\n\n");
    fflush(stdout);
    int rc = cmd_explain.run(6, explain);
    if (rc != CLI_OK)
        return rc;
    char *analyze[] = {"analyze", "--gpu",    "h100-sxm", "--model",   "llama-3-8b", "--batch",
                       "1",       "--prompt", "1024",     "--context", "1024",       NULL};
    printf("\n== roofline analyze --gpu h100-sxm --model llama-3-8b --prompt 1024 --context "
           "1024\n\n");
    fflush(stdout);
    rc = cmd_analyze.run(11, analyze);
    if (rc == CLI_OK)
        printf("\nMore: roofline help; roofline list gpus; roofline explain prefill --params 8B "
               "--prompt 6\n");
    return cli_finish(rc);
}

const struct cli_cmd cmd_demo = {
    "demo", "the worked example (what 'roofline' alone runs)", "roofline [demo]", run, NULL, 0};
