/* make perf: how many full per-operator decode evaluations per second the engine does.
 * A benchmark that prints figures, never a test. */
#include "bench/harness.h"
#include "core/roof.h"
#include "io/profiles.h"

#include <stdio.h>
#include <stdlib.h>
#include <time.h>

/* evaluations summed into the checksum */
#define CHECK_EVALS (64L * 1024)

/* the n-th configuration of both loops: batch 1..64, context 512..1535 */
static void
vary(struct roof_config *c, long n)
{
    c->batch = 1 + (double)(n % 64);
    c->context = 512 + (double)((n / 64) % 1024);
}

static void
bench(const char *gpu, const char *model)
{
    struct err_list errs = {0};
    struct hw_profile *hw = hw_find(gpu, &errs);
    struct mdl_profile *m = mdl_find(model, &errs);
    if (!hw || !m) {
        fprintf(stderr, "cannot load %s / %s\n", gpu, model);
        exit(1);
    }
    err_list_release(&errs);
    struct roof_config c;
    roof_config_init(&c, hw, m, ROOF_DECODE);
    struct roof_result r;
    /* the checksum: a fixed set of evaluations (every batch 1..64 at 1,024 contexts), so that
     * the same engine prints the same figure however fast the machine is */
    double checksum = 0;
    for (long n = 0; n < CHECK_EVALS; n++) {
        vary(&c, n);
        roof_evaluate(&c, &r);
        checksum += r.time_s;
    }
    /* the timing: as many evaluations as fit in a second */
    volatile double sink = 0;
    long n = 0;
    double t0 = bench_now_s(), t = t0;
    while (t - t0 < 1.0) {
        for (int i = 0; i < 1000; i++) {
            vary(&c, n);
            roof_evaluate(&c, &r);
            sink += r.time_s;
            n++;
        }
        t = bench_now_s();
    }
    printf("engine: %-14s %-13s %10.0f decode evaluations/s (%ld layers each; checksum of %ld "
           "evaluations %.10g s)\n",
           model, gpu, (double)n / (t - t0), m->num_layers, CHECK_EVALS, checksum);
    hw_free(hw);
    mdl_free(m);
}

int
main(void)
{
    prof_set_data_dir(getenv("ROOFLINE_DATA") ? getenv("ROOFLINE_DATA") : ".");
    bench("h100-sxm", "llama-3-8b");
    bench("h100-sxm", "llama-3-70b");
    bench("mi300x", "deepseek-v3");
    return 0;
}
