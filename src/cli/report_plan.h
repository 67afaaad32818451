/* What the plan report's files (report_plan.c, report_sens.c) share; not for other callers. */
#ifndef ROOFLINE_CLI_REPORT_PLAN_H
#define ROOFLINE_CLI_REPORT_PLAN_H

#include "io/question.h"
#include "render/report.h"

struct plan_result;
struct plan_opts;
struct hw_profile;

/* "fp8", or "fp8, KV fp16" when the KV format is not the weights' default (a ring buffer of
 * explain.h: valid for the next few calls). */
const char *rp_format_name(const struct plan_format *f);
/* Section 6: the sensitivity tornado of the chosen option on `hw` (its hardware); nothing when
 * no option was chosen, it is disaggregated, or its base cannot be planned. */
void rp_plan_sensitivity(struct rep_doc *d, const struct plan_question *q,
                         const struct plan_result *r, const struct plan_opts *o,
                         const struct hw_profile *hw);

#endif
