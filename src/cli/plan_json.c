/* The JSON records of `roofline plan` (docs/plan.md#method): every field of an option and of a
 * rejection declared once with its name and kind, written so that they read back exactly (the
 * shards of --shard, the options of -o json) and read back by `plan merge`; the writer and the
 * reader side by side. */
#include "cli/cli.h"
#include "cli/plan_cli.h"
#include "io/ytree.h"
#include "plan/cost.h"
#include "util/alloc.h"
#include "util/strs.h"

#include <math.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

enum fkind {
    F_DBL,
    F_INT,
    F_LONG,
    F_STR,
    F_BOOL,
    F_DT,
    F_POLICY,
    F_STATUS,
    F_ORIGIN,
    F_REJ,
    F_BASIS
};
struct fdesc {
    const char *name;
    enum fkind kind;
    size_t off;
};
#define OD(n, k)                                                                                   \
    {                                                                                              \
#n, k, offsetof(struct plan_option, n)                                                     \
    }
static const struct fdesc OPT_F[] = {
    OD(index, F_INT),
    OD(hw_id, F_STR),
    OD(prefill_hw_id, F_STR),
    OD(tp, F_INT),
    OD(attn_dp, F_INT),
    OD(pp, F_INT),
    OD(devices_per_instance, F_INT),
    OD(prefill_instances, F_INT),
    OD(decode_instances, F_INT),
    {"weights", F_DT, offsetof(struct plan_option, format.weights)},
    {"act", F_DT, offsetof(struct plan_option, format.act)},
    {"kv", F_DT, offsetof(struct plan_option, format.kv)},
    {"moe_marlin", F_BOOL, offsetof(struct plan_option, format.moe_marlin)},
    OD(policy, F_POLICY),
    OD(max_batch, F_LONG),
    OD(max_tokens_per_step, F_LONG),
    OD(analytic_rate_per_s, F_DBL),
    OD(rate_per_s, F_DBL),
    OD(simulated, F_BOOL),
    OD(users_per_instance, F_DBL),
    OD(saturation_output_tokens_per_s, F_DBL),
    OD(output_tokens_per_s_per_user, F_DBL),
    OD(instances, F_INT),
    OD(spares, F_INT),
    OD(devices, F_INT),
    OD(server_devices, F_INT),
    OD(servers, F_INT),
    OD(stranded_devices, F_INT),
    OD(planned_rate_per_instance_s, F_DBL),
    OD(device_price_per_hour, F_DBL),
    OD(price_origin, F_ORIGIN),
    OD(price_basis, F_STR),
    OD(rent_basis, F_BASIS),
    OD(basis_flag, F_BOOL),
    OD(cost_per_hour, F_DBL),
    OD(cost_per_mtok_output, F_DBL),
    OD(cost_per_mtok_input, F_DBL),
    OD(cost_per_mtok_blended, F_DBL),
    OD(tco_per_year, F_DBL),
    OD(capex, F_DBL),
    OD(power_w, F_DBL),
    OD(tokens_per_s_per_kw, F_DBL),
    OD(joules_per_token, F_DBL),
    OD(ttft_p99_s, F_DBL),
    OD(itl_p99_s, F_DBL),
    OD(e2e_p99_s, F_DBL),
    OD(attainment, F_DBL),
    OD(ttft_p50_s, F_DBL),
    OD(itl_p50_s, F_DBL),
    OD(e2e_mean_s, F_DBL),
    OD(output_tokens_per_s_planned, F_DBL),
    OD(margin_ttft, F_DBL),
    OD(margin_itl, F_DBL),
    OD(margin_e2e, F_DBL),
    OD(status, F_STATUS),
    OD(miss_factor, F_DBL),
    OD(miss, F_STR),
    OD(exhaust_month, F_INT),
    OD(offline_hours, F_DBL),
    OD(launch, F_STR),
};
#undef OD
#define RD(n, k)                                                                                   \
    {                                                                                              \
#n, k, offsetof(struct plan_rejected, n)                                                   \
    }
static const struct fdesc REJ_F[] = {
    RD(index, F_INT),
    RD(hw_id, F_STR),
    RD(prefill_hw_id, F_STR),
    RD(tp, F_INT),
    RD(attn_dp, F_INT),
    RD(pp, F_INT),
    {"weights", F_DT, offsetof(struct plan_rejected, format.weights)},
    {"act", F_DT, offsetof(struct plan_rejected, format.act)},
    {"kv", F_DT, offsetof(struct plan_rejected, format.kv)},
    {"moe_marlin", F_BOOL, offsetof(struct plan_rejected, format.moe_marlin)},
    RD(policy, F_POLICY),
    RD(kind, F_REJ),
    RD(reason, F_STR),
};
#undef RD
#define N_OPT_F ((int)(sizeof OPT_F / sizeof OPT_F[0]))
#define N_REJ_F ((int)(sizeof REJ_F / sizeof REJ_F[0]))

void
cli_plan_json_number(double x)
{
    if (isnan(x))
        printf("null");
    else if (isinf(x))
        printf(x > 0 ? "\"inf\"" : "\"-inf\"");
    else
        printf("%.17g", x);
}

/* The JSON name of value i of an enumerated field kind. */
static const char *
enum_name(enum fkind k, int i)
{
    switch (k) {
    case F_POLICY:
        return sim_policy_name((enum sim_policy)i);
    case F_STATUS:
        return plan_status_name((enum plan_slo_status)i);
    case F_ORIGIN:
        return plan_price_origin_name((enum plan_price_origin)i);
    case F_REJ:
        return plan_reject_kind_name((enum plan_reject_kind)i);
    case F_BASIS:
        return plan_rent_basis_name((enum plan_rent_basis)i);
    default:
        return "?";
    }
}

static void
write_obj(const struct fdesc *f, int n, const void *base)
{
    const char *b = base;
    printf("{");
    for (int i = 0; i < n; i++) {
        printf("%s\"%s\": ", i ? ", " : "", f[i].name);
        const void *p = b + f[i].off;
        switch (f[i].kind) {
        case F_DBL:
            cli_plan_json_number(*(const double *)p);
            break;
        case F_INT:
            printf("%d", *(const int *)p);
            break;
        case F_LONG:
            printf("%ld", *(const long *)p);
            break;
        case F_STR:
            out_json_string(stdout, (const char *)p);
            break;
        case F_BOOL:
            printf(*(const bool *)p ? "true" : "false");
            break;
        case F_DT:
            out_json_string(stdout, dtype_name(*(const enum dtype *)p));
            break;
        case F_POLICY:
        case F_STATUS:
        case F_ORIGIN:
        case F_REJ:
        case F_BASIS: /* enums are int-compatible (C17 6.7.2.2) */
            out_json_string(stdout, enum_name(f[i].kind, *(const int *)p));
            break;
        }
    }
    printf("}");
}

/* The index of the value named `s` of an enumerated field kind, or -1. */
static int
name_index(const char *s, enum fkind k)
{
    int n = k == F_REJ ? PLAN_REJ_COUNT : k == F_BASIS ? PLAN_BASIS_COUNT : 4;
    for (int i = 0; i < n; i++)
        if (strcmp(s, enum_name(k, i)) == 0)
            return i;
    return -1;
}

/* Read one object written by write_obj; -1 on a missing or bad field. */
static int
read_obj(const struct fdesc *f, int n, const struct ynode *o, void *base)
{
    char *b = base;
    if (!o || o->kind != YNODE_MAP)
        return -1;
    for (int i = 0; i < n; i++) {
        const struct ynode *v = ynode_get(o, f[i].name);
        if (!v || v->kind != YNODE_SCALAR)
            return -1;
        void *p = b + f[i].off;
        long l;
        int k;
        enum dtype d;
        switch (f[i].kind) {
        case F_DBL:
            if (ynode_is_null(v))
                *(double *)p = NAN;
            else if (strcmp(v->value, "inf") == 0)
                *(double *)p = INFINITY;
            else if (strcmp(v->value, "-inf") == 0)
                *(double *)p = -INFINITY;
            else if (str_to_double(v->value, (double *)p) != 0)
                return -1;
            break;
        case F_INT:
        case F_LONG:
            if (ynode_long(v, &l) != 0)
                return -1;
            if (f[i].kind == F_INT)
                *(int *)p = (int)l;
            else
                *(long *)p = l;
            break;
        case F_STR:
            snprintf((char *)p,
                     strcmp(f[i].name, "hw_id") == 0 || strcmp(f[i].name, "prefill_hw_id") == 0
                         ? PLAN_NAME
                         : PLAN_TEXT,
                     "%s", v->value);
            break;
        case F_BOOL:
            *(bool *)p = strcmp(v->value, "true") == 0;
            break;
        case F_DT:
            if (dtype_parse(v->value, &d) != 0)
                return -1;
            *(enum dtype *)p = d;
            break;
        case F_POLICY:
        case F_STATUS:
        case F_ORIGIN:
        case F_REJ:
        case F_BASIS:
            if ((k = name_index(v->value, f[i].kind)) < 0)
                return -1;
            *(int *)p = k;
            break;
        }
    }
    return 0;
}

void
cli_plan_json_option(const struct plan_option *op)
{
    write_obj(OPT_F, N_OPT_F, op);
}

void
cli_plan_json_rejected(const struct plan_rejected *x)
{
    write_obj(REJ_F, N_REJ_F, x);
}

void
cli_plan_json_shard(const struct plan_question *q, const struct plan_result *r, int shard, int n)
{
    printf("{\n  \"tool\": \"roofline\",\n  \"command\": \"plan-shard\",\n  \"version\": ");
    out_json_string(stdout, ROOFLINE_VERSION);
    printf(",\n  \"question\": ");
    out_json_string(stdout, q->path);
    printf(",\n  \"shard\": %d,\n  \"shards\": %d,\n  \"candidates\": %d,\n  \"simulated\": %d,\n"
           "  \"options\": [",
           shard, n, r->n_candidates, r->n_simulated);
    for (int i = 0; i < r->n_options; i++) {
        printf("%s\n    ", i ? "," : "");
        write_obj(OPT_F, N_OPT_F, &r->options[i]);
    }
    printf("\n  ],\n  \"rejected\": [");
    for (int i = 0; i < r->n_rejected; i++) {
        printf("%s\n    ", i ? "," : "");
        write_obj(REJ_F, N_REJ_F, &r->rejected[i]);
    }
    printf("\n  ]\n}\n");
}

/* Append the records of `seq` (objects written by write_obj with the fields f[nf]) to the
 * array *items of *n items of `size` bytes (capacity *cap). -1 after printing the first bad one
 * or running out of memory. */
static int
read_records(const char *path, const struct ynode *seq, const struct fdesc *f, int nf, size_t size,
             void **items, int *n, int *cap, const char *what)
{
    for (size_t k = 0; k < seq->n; k++) {
        if (*n == *cap) {
            int nc = *cap ? 2 * *cap : 64;
            void *g = realloc(*items, (size_t)nc * size);
            if (!g) {
                alloc_note_failure();
                fprintf(stderr, "%s: error: out of memory (while %s)\n", path,
                        alloc_failure_context());
                return -1;
            }
            *items = g;
            *cap = nc;
        }
        char *item = (char *)*items + (size_t)*n * size;
        memset(item, 0, size);
        if (read_obj(f, nf, seq->items[k], item) != 0) {
            fprintf(stderr, "%s:%d:%d: error: bad %s record\n", path, seq->items[k]->line,
                    seq->items[k]->col, what);
            return -1;
        }
        (*n)++;
    }
    return 0;
}

int
cli_plan_json_read_shards(int argc, char **argv, struct plan_result *r, char **question)
{
    int shards = -1, ocap = 0, rcap = 0, rc = CLI_OK;
    bool seen[1024] = {false};
    char *qpath = NULL;
    for (int i = 0; i < argc && rc == CLI_OK; i++) {
        struct err_list errs = {0};
        struct ynode *root = ynode_load(argv[i], &errs);
        cli_print_errs(&errs);
        err_list_release(&errs);
        if (!root) {
            rc = CLI_FAIL;
            break;
        }
        const struct ynode *qp = ynode_get(root, "question"), *sh = ynode_get(root, "shard"),
                           *ns = ynode_get(root, "shards"), *nc = ynode_get(root, "candidates"),
                           *nsim = ynode_get(root, "simulated"), *os = ynode_get(root, "options"),
                           *rs = ynode_get(root, "rejected");
        long s, n, c, m;
        if (!qp || !sh || !ns || !nc || !nsim || !os || !rs || os->kind != YNODE_SEQ ||
            rs->kind != YNODE_SEQ || ynode_long(sh, &s) || ynode_long(ns, &n) ||
            ynode_long(nc, &c) || ynode_long(nsim, &m) || n < 1 || n > 1024 || s < 0 || s >= n) {
            fprintf(stderr, "%s: error: not a 'roofline plan --shard' output\n", argv[i]);
            rc = CLI_FAIL;
        } else if (shards >= 0 && (n != shards || strcmp(qp->value, qpath) != 0)) {
            fprintf(stderr, "%s: error: shard of another run (%s, %ld shards; expected %s, %d)\n",
                    argv[i], qp->value, n, qpath, shards);
            rc = CLI_FAIL;
        } else if (seen[s]) {
            fprintf(stderr, "%s: error: shard %ld/%ld given twice\n", argv[i], s, n);
            rc = CLI_FAIL;
        } else {
            seen[s] = true;
            if (shards < 0) {
                shards = (int)n;
                r->n_candidates = (int)c;
                if (!(qpath = str_dup(qp->value))) {
                    alloc_note_failure();
                    fprintf(stderr, "%s: error: out of memory (while %s)\n", argv[i],
                            alloc_failure_context());
                    rc = CLI_FAIL;
                }
            }
            r->n_simulated += (int)m;
            void *ops = r->options, *rej = r->rejected;
            if (rc != CLI_OK ||
                read_records(argv[i], os, OPT_F, N_OPT_F, sizeof *r->options, &ops, &r->n_options,
                             &ocap, "option") != 0 ||
                read_records(argv[i], rs, REJ_F, N_REJ_F, sizeof *r->rejected, &rej, &r->n_rejected,
                             &rcap, "rejection") != 0)
                rc = CLI_FAIL;
            r->options = ops;
            r->rejected = rej;
        }
        ynode_free(root);
    }
    for (int s = 0; rc == CLI_OK && s < shards; s++)
        if (!seen[s]) {
            fprintf(stderr, "error: shard %d/%d is missing\n", s, shards);
            rc = CLI_FAIL;
        }
    if (rc != CLI_OK) {
        free(qpath);
        qpath = NULL;
    }
    *question = qpath;
    return rc;
}
