/* Shared by the explain topics: formatting into a ring of 16 buffers (so one printf can format
 * several values), and the topic entry points. */
#ifndef ROOFLINE_CLI_EXPLAIN_H
#define ROOFLINE_CLI_EXPLAIN_H

#include "cli/cli.h"
#include "core/roof.h"

char *ex_ring(void);
const char *ex_qty(char *buf, size_t size, double v, const char *unit, int sig);
const char *ex_time(char *buf, size_t size, double s);
const char *ex_count(double n);
const char *ex_sci(double x);

#define Q(v, u, sig) ex_qty(ex_ring(), 64, (v), (u), (sig))
#define T(s) ex_time(ex_ring(), 64, (s))

/* explain kv-cache's context per sequence without --context (its handout's chart uses it too) */
#define EX_KV_CONTEXT 4096

/* Topics other than prefill/decode: each prints a worked example; 0, -1 after an error, or -2
 * after a bad option value (a usage error). */
int ex_kv_cache(const struct roof_config *cfg, const struct cli_args *a);
int ex_batching(const struct roof_config *cfg, const struct cli_args *a);
int ex_quantization(const struct roof_config *cfg, const struct cli_args *a);
int ex_moe(const struct roof_config *cfg, const struct cli_args *a);
int ex_tp(const struct roof_config *cfg, const struct cli_args *a);
int ex_speculative(const struct roof_config *cfg, const struct cli_args *a);
int ex_prefix_cache(const struct roof_config *cfg, const struct cli_args *a);
int ex_disaggregation(const struct roof_config *cfg, const struct cli_args *a);
/* The option values of ex_disaggregation: 0, or -2 after printing the error (before any output). */
int ex_options_check(const struct cli_args *a);

#endif
