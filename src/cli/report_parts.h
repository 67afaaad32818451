/* The content of the PDF reports, shared by `roofline report` (the analysis and, later, the
 * planner's question) and `explain --pdf`: the answer, the "why" section (roofline, operators,
 * worked example, memory, batching), the validation summary and the provenance. */
#ifndef ROOFLINE_CLI_REPORT_PARTS_H
#define ROOFLINE_CLI_REPORT_PARTS_H

#include "core/roof.h"
#include "render/report.h"

#include <stdbool.h>
#include <stddef.h>

struct rp_ctx {
    const struct hw_profile *const *hws; /* the first is analysed; all are overlaid */
    int n_hws;
    const struct mdl_profile *model;
    struct roof_config base; /* formats, batch, prompt, context, tp/pp, tuning */
    const char *engine;      /* NULL: the datasheet roofline */
    int argc;                /* the command line from the command name on (argv[0] = "report") */
    char **argv;
    const char *command; /* "report" or "explain" */
    char answer[1024];   /* filled: the answer in one or two plain sentences */
    /* --bench FILE: the host bench report, its host profile and the model of its LLM kernels
     * (all NULL without --bench): the trust section gets the host validation table */
    const struct bench_report *bench;
    const struct hw_profile *bench_hw;
    const struct mdl_profile *bench_model;
    const char *bench_path;
};
/* A `roofline bench -o json` report (cmd_validate.c); 0, or -1 after printing file:line:col. */
struct bench_report;
int read_bench_json(const char *path, struct bench_report *r);

/* A growable string (markup is built with it). */
struct sb {
    char *p;
    size_t n, cap;
    int failed;
};
void sb_printf(struct sb *b, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 2, 3)))
#endif
    ;
const char *sb_str(const struct sb *b);
/* A paragraph of markup formatted as printf does. */
void rp_paraf(struct rep_doc *d, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 2, 3)))
#endif
    ;
void sb_reset(struct sb *b);
void sb_release(struct sb *b);
/* Text escaped for Pango markup into a ring of 8 buffers of 512 bytes (truncated beyond). */
const char *rp_esc(const char *s);

/* The whole analysis report. 0, or -1 after printing an error. */
int rp_analysis_report(struct rep_doc *d, struct rp_ctx *ctx);
/* Sections: "why" of the first device at ctx->base; "how far to trust it"; "provenance". Each adds
 * one level-1 section. 0 or -1 after printing. */
int rp_why(struct rep_doc *d, const struct rp_ctx *ctx);
void rp_trust(struct rep_doc *d, const struct rp_ctx *ctx, bool planned);
void rp_provenance(struct rep_doc *d, const struct rp_ctx *ctx, const char *const *extra_files,
                   int n_extra);
/* A teaching handout of `explain TOPIC`: `text` is the command's text output (the first paragraph
 * becomes the subtitle; "Step N." lines bold; indented lines are formulas set with subscripts,
 * superscripts and operator signs), then `chart` (owned; may be NULL) with `caption` (markup;
 * NULL: none), then the provenance of ctx's profiles (ctx->n_hws may be 0). 0 or -1. */
int rp_handout(struct rep_doc *d, const char *topic, const char *text, struct chart *chart,
               const char *caption, const struct rp_ctx *ctx);
/* The report of a planning question from the planner's result (report_plan.c): sets ctx's
 * profiles and base config to the chosen option's; `question_path` is hashed in the provenance.
 * 0 or -1 after printing. */
struct plan_question;
struct plan_result;
struct plan_opts;
int rp_plan_report(struct rep_doc *d, const struct plan_question *q, const struct plan_result *r,
                   const struct plan_opts *o, struct rp_ctx *ctx, const char *question_path);
/* The operators of `r` that take time, longest first: their indices into idx (ROOF_OP_COUNT
 * entries); returns how many. */
int rp_ops_by_time(const struct roof_result *r, int *idx);
/* The mean of a question's length distribution: sim_dist_mean, and for a trace (which it gives
 * as 0) the rows' mean the question loader stored in d->mean (io/question.c). */
struct sim_dist;
double rp_len_mean(const struct sim_dist *d);
/* What bounds one operator: "link", "compute" or "memory". */
const char *rp_op_bound(const struct roof_op_result *o);
/* The SHA-256 of a file as 64 hex digits into out (>= 65 bytes); -1 when it cannot be read. */
int rp_sha256_file(const char *path, char *out, size_t size);
/* SOURCE_DATE_EPOCH when set and valid, else 2024-01-01T00:00:00Z. */
long long rp_epoch(void);

#endif
