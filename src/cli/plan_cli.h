/* The parts of `roofline plan` (cmd_plan.c): the answer's printers (plan_print.c) and the
 * exact JSON records of options and rejections that --shard writes and `plan merge` reads back
 * (plan_json.c). */
#ifndef ROOFLINE_CLI_PLAN_CLI_H
#define ROOFLINE_CLI_PLAN_CLI_H

#include "cli/out.h"
#include "plan/plan.h"
#include "util/strbuf.h"

/* The answer to stdout: words first, then the ranked table and the rest (table), the ranked
 * options (csv) or everything (json). */
void cli_plan_print(const struct plan_question *q, const struct plan_result *r, enum out_fmt fmt);
/* Renting, when the chosen price is not on the basis asked or not on the runners-up' basis:
 * appends "price basis: ..., not on-demand as asked; ..." to out (the answer's caveat, in the
 * CLI and on the report's page 1); false, nothing appended, when there is nothing to say. */
bool cli_plan_basis_note(const struct plan_question *q, const struct plan_result *r,
                         struct strbuf *out);

/* A number that reads back exactly: %.17g, null for NaN, "inf"/"-inf". */
void cli_plan_json_number(double x);
/* One option or rejection as a JSON object of every field (the shard and answer records). */
void cli_plan_json_option(const struct plan_option *op);
void cli_plan_json_rejected(const struct plan_rejected *x);
/* The shard's evaluations as JSON for plan merge. */
void cli_plan_json_shard(const struct plan_question *q, const struct plan_result *r, int shard,
                         int n);
/* Read the shards' JSON files (all shards of one run, each once) into r's options, rejections
 * and counts; *question gets the question's path (free it). CLI_OK, or CLI_FAIL after
 * printing `file:line:col: error: ...`. */
int cli_plan_json_read_shards(int n, char **paths, struct plan_result *r, char **question);

#endif
