/* The three importers. llama-bench rows map one to one (pp -> prefill, tg -> decode at the mean
 * context of the generated tokens, pg -> e2e); serving benchmarks become a prefill row (TTFT at
 * the mean input length) and a decode row (TPOT/ITL at the mean context, the batch from the
 * concurrency: genai-perf's closed-loop users, or Little's law for vLLM's open loop). */
#include "io/import.h"

#include "io/json.h"

#include <ctype.h>
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ---- helpers ---- */

/* a number from a JSON number or a numeric string (CSV cells, old genai-perf); NaN if absent */
static double
num(const struct json *j, const char *key)
{
    const struct json *v = json_get(j, key);
    if (!v)
        return NAN;
    if (v->kind == JSON_NUM)
        return v->num;
    if (v->kind == JSON_STR && v->str[0]) {
        char *end;
        errno = 0;
        double x = strtod(v->str, &end);
        if (*end == '\0' && errno == 0)
            return x;
    }
    return NAN;
}

static const char *
str(const struct json *j, const char *key)
{
    const char *s = json_string(j, key);
    return s ? s : "";
}

static void
lower(char *dst, size_t n, const char *src)
{
    size_t i = 0;
    for (; src[i] && i + 1 < n; i++)
        dst[i] = (char)tolower((unsigned char)src[i]);
    dst[i] = '\0';
}

const char *
imp_llama_format(const char *s)
{
    char l[128];
    lower(l, sizeof l, s);
    /* the quantisation is the last word group of model_type */
    static const struct {
        const char *tag, *name;
    } T[] = {{"q4_k - medium", "q4_k_m"},
             {"q4_k_m", "q4_k_m"},
             {"q4_0", "q4_0"},
             {"q4_1", "q4_1"},
             {"q8_0", "q8_0"},
             {"bf16", "bf16"},
             {"f16", "fp16"},
             {"f32", "fp32"},
             {"all f32", "fp32"}};
    for (size_t i = 0; i < sizeof T / sizeof T[0]; i++) {
        size_t tl = strlen(T[i].tag), ll = strlen(l);
        if (ll >= tl && strcmp(l + ll - tl, T[i].tag) == 0)
            return T[i].name;
    }
    return NULL;
}

static const char *
kv_format(const char *s)
{
    static const char *const IN[] = {"f16", "bf16", "f32", "q8_0", "q4_0"};
    static const char *const OUT[] = {"fp16", "bf16", "fp32", "int8", "int4"};
    for (int i = 0; i < 5; i++)
        if (strcmp(s, IN[i]) == 0)
            return OUT[i];
    return NULL;
}

const char *
imp_match_id(const char *name, char *const *ids, int n)
{
    char l[256], norm[256];
    const char *base = strrchr(name, '/');
    lower(l, sizeof l, base ? base + 1 : name);
    size_t k = 0;
    for (const char *p = l; *p && k + 1 < sizeof norm;) {
        if (strncmp(p, "nvidia ", 7) == 0) {
            p += 7;
            continue;
        }
        if (strncmp(p, "geforce ", 8) == 0) {
            p += 8;
            continue;
        }
        norm[k++] = *p == ' ' ? '-' : *p;
        p++;
    }
    norm[k] = '\0';
    const char *best = NULL;
    size_t best_len = 0;
    for (int i = 0; i < n; i++) {
        size_t il = strlen(ids[i]);
        /* a whole-word prefix: "llama-3.3-70b" in "llama-3.3-70b-instruct", not "llama-3" */
        if (il > best_len && strncmp(norm, ids[i], il) == 0 &&
            (norm[il] == '\0' || norm[il] == '-' || norm[il] == '_' || norm[il] == '.')) {
            best = ids[i];
            best_len = il;
        }
    }
    return best;
}

static struct imp_row *
add_row(struct imp_result *out)
{
    if (out->n >= IMP_MAX_ROWS)
        return NULL;
    struct imp_row *r = &out->rows[out->n++];
    memset(r, 0, sizeof *r);
    r->batch = r->prompt = r->context = r->input = r->output = -1;
    return r;
}

/* ---- CSV (llama-bench -o csv) into an array of objects with string cells ---- */

static char *
csv_cell(const char **pp, const char *end, int *ok)
{
    const char *p = *pp;
    size_t cap = 64, n = 0;
    char *c = malloc(cap);
    if (!c) {
        *ok = 0;
        return NULL;
    }
    bool quoted = p < end && *p == '"';
    if (quoted)
        p++;
    while (p < end) {
        if (quoted && *p == '"') {
            if (p + 1 < end && p[1] == '"') {
                p++;
            } else {
                p++;
                quoted = false;
                continue;
            }
        } else if (!quoted && (*p == ',' || *p == '\n' || *p == '\r')) {
            break;
        }
        if (n + 2 > cap) {
            char *g = realloc(c, cap *= 2);
            if (!g) {
                free(c);
                *ok = 0;
                return NULL;
            }
            c = g;
        }
        c[n++] = *p++;
    }
    if (quoted)
        *ok = 0; /* unterminated quote */
    c[n] = '\0';
    *pp = p;
    return c;
}

/* n rows of nc[i] cells each, and the two arrays */
static void
rows_free(char ***rows, int *nc, int n)
{
    for (int i = 0; i < n; i++) {
        for (int j = 0; j < nc[i]; j++)
            free(rows[i][j]);
        free(rows[i]);
    }
    free(rows);
    free(nc);
}

/* rows of cells; returns the number of rows (header included) or -1 */
static int
csv_parse(const char *s, size_t len, char ****rows_out, int **ncells_out)
{
    const char *p = s, *end = s + len;
    char ***rows = NULL;
    int *nc = NULL, n = 0;
    while (p < end) {
        if (*p == '\n' || *p == '\r') {
            p++;
            continue;
        }
        char **cells = NULL;
        int k = 0, ok = 1;
        for (;;) {
            char *c = csv_cell(&p, end, &ok);
            char **g = realloc(cells, (size_t)(k + 1) * sizeof *g);
            if (!c || !g || !ok) {
                free(c);
                free(g ? g : cells);
                rows_free(rows, nc, n);
                return -1;
            }
            cells = g;
            cells[k++] = c;
            if (p < end && *p == ',') {
                p++;
                continue;
            }
            break;
        }
        char ***gr = realloc(rows, (size_t)(n + 1) * sizeof *gr);
        int *gn = realloc(nc, (size_t)(n + 1) * sizeof *gn);
        if (gr)
            rows = gr;
        if (gn)
            nc = gn;
        if (!gr || !gn)
            return -1;
        rows[n] = cells;
        nc[n] = k;
        n++;
    }
    *rows_out = rows;
    *ncells_out = nc;
    return n;
}

static struct json *
csv_to_json(const char *path, const char *s, size_t len, struct err_list *errs)
{
    char ***rows;
    int *nc;
    int n = csv_parse(s, len, &rows, &nc);
    if (n < 0) {
        err_add(errs, path, 0, 0, ERR_ERROR, "not a CSV file (an unterminated quote?)");
        return NULL;
    }
    struct json *arr = calloc(1, sizeof *arr);
    if (arr) {
        arr->kind = JSON_ARR;
        arr->items = calloc((size_t)(n > 1 ? n - 1 : 1), sizeof *arr->items);
    }
    for (int i = 1; arr && arr->items && i < n; i++) {
        if (nc[i] != nc[0]) {
            err_add(errs, path, i + 1, 1, ERR_ERROR, "%d cells, but the header has %d", nc[i],
                    nc[0]);
            continue;
        }
        struct json *o = calloc(1, sizeof *o);
        if (!o)
            break;
        o->kind = JSON_OBJ;
        o->line = i + 1;
        o->col = 1;
        o->items = calloc((size_t)nc[i], sizeof *o->items);
        o->keys = calloc((size_t)nc[i], sizeof *o->keys);
        for (int j = 0; o->items && o->keys && j < nc[i]; j++) {
            struct json *v = calloc(1, sizeof *v);
            if (!v)
                break;
            v->kind = JSON_STR;
            v->str = rows[i][j];
            rows[i][j] = NULL;
            o->keys[j] = strdup(rows[0][j]);
            o->items[j] = v;
            o->n++;
        }
        arr->items[arr->n++] = o;
    }
    rows_free(rows, nc, n);
    return arr;
}

/* JSON, or JSON lines (llama-bench -o jsonl): an array of objects either way */
static struct json *
load_json_records(const char *path, const char *s, size_t len, struct err_list *errs)
{
    struct json_error je;
    struct json *j = json_parse(s, len, &je);
    if (j)
        return j;
    /* JSON lines? only when the first line parses on its own */
    const char *nl = memchr(s, '\n', len);
    struct json *first = nl ? json_parse(s, (size_t)(nl - s), NULL) : NULL;
    if (!first) {
        err_add(errs, path, je.line, je.col, ERR_ERROR, "%s", je.msg);
        return NULL;
    }
    json_free(first);
    struct json *arr = calloc(1, sizeof *arr);
    if (!arr)
        return NULL;
    arr->kind = JSON_ARR;
    size_t cap = 0;
    int line = 1;
    for (const char *p = s; p < s + len; line++) {
        const char *e = memchr(p, '\n', (size_t)(s + len - p));
        size_t l = e ? (size_t)(e - p) : (size_t)(s + len - p);
        bool blank = true;
        for (size_t i = 0; i < l; i++)
            blank &= isspace((unsigned char)p[i]) != 0;
        if (!blank) {
            struct json *o = json_parse(p, l, &je);
            if (!o) {
                err_add(errs, path, line, je.col, ERR_ERROR, "%s", je.msg);
            } else {
                if (arr->n == cap) {
                    cap = cap ? cap * 2 : 16;
                    struct json **g = realloc(arr->items, cap * sizeof *g);
                    if (!g) {
                        json_free(o);
                        break;
                    }
                    arr->items = g;
                }
                o->line = line;
                arr->items[arr->n++] = o;
            }
        }
        p += l + 1;
    }
    return arr;
}

/* ---- llama-bench ---- */

static int
llama_bench(const char *path, const struct json *recs, struct imp_result *out,
            struct err_list *errs)
{
    size_t before = err_count(errs, ERR_ERROR);
    snprintf(out->engine, sizeof out->engine, "llama.cpp");
    for (size_t i = 0; i < recs->n; i++) {
        const struct json *r = recs->items[i];
        if (r->kind != JSON_OBJ) {
            err_add(errs, path, r->line, r->col, ERR_ERROR, "record %zu is not an object", i + 1);
            continue;
        }
        double np = num(r, "n_prompt"), ng = num(r, "n_gen"), depth = num(r, "n_depth");
        double ts = num(r, "avg_ts"), ns = num(r, "avg_ns");
        if (!(np >= 0) || !(ng >= 0) || !(ts > 0) || !(ns > 0) || (np == 0 && ng == 0)) {
            err_add(errs, path, r->line, r->col, ERR_ERROR,
                    "record %zu needs n_prompt, n_gen (not both 0), avg_ts and avg_ns", i + 1);
            continue;
        }
        if (!(depth >= 0))
            depth = 0;
        if (!out->hardware[0]) {
            const char *g = str(r, "gpu_info"), *c = str(r, "cpu_info");
            snprintf(out->hardware, sizeof out->hardware, "%s", g[0] ? g : c);
            snprintf(out->model, sizeof out->model, "%s", str(r, "model_filename"));
        }
        struct imp_row *row = add_row(out);
        if (!row) {
            err_add(errs, path, r->line, r->col, ERR_ERROR, "more than %d records", IMP_MAX_ROWS);
            break;
        }
        const char *w = imp_llama_format(str(r, "model_type"));
        const char *kv = kv_format(str(r, "type_k"));
        snprintf(row->weights, sizeof row->weights, "%s", w ? w : "");
        snprintf(row->kv, sizeof row->kv, "%s", kv ? kv : "");
        if (np > 0 && ng == 0) {
            snprintf(row->phase, sizeof row->phase, "prefill");
            row->prompt = np;
            snprintf(row->id, sizeof row->id, "llama-bench-pp%.0f%s", np, depth > 0 ? "-d" : "");
        } else if (np == 0) {
            snprintf(row->phase, sizeof row->phase, "decode");
            row->batch = 1;
            row->context = depth + ng / 2; /* the mean context of the generated tokens */
            snprintf(row->id, sizeof row->id, "llama-bench-tg%.0f", ng);
        } else {
            snprintf(row->phase, sizeof row->phase, "e2e");
            row->batch = 1;
            row->input = np;
            row->output = ng;
            snprintf(row->id, sizeof row->id, "llama-bench-pp%.0f-tg%.0f", np, ng);
        }
        if (depth > 0)
            snprintf(row->id + strlen(row->id), sizeof row->id - strlen(row->id), "%.0f", depth);
        if (strcmp(row->phase, "e2e") == 0) {
            snprintf(row->metric, sizeof row->metric, "latency_s");
            row->value = ns * 1e-9;
        } else {
            snprintf(row->metric, sizeof row->metric, "tokens_per_s");
            row->value = ts;
        }
        snprintf(row->note, sizeof row->note,
                 "llama-bench %s (build %s), %s, %.0f threads, %.0f GPU layers, %s +- %.3g t/s",
                 str(r, "model_type"), str(r, "build_commit"), str(r, "backends"),
                 num(r, "n_threads"), num(r, "n_gpu_layers"), str(r, "test_time"),
                 num(r, "stddev_ts"));
    }
    return err_count(errs, ERR_ERROR) > before ? -1 : 0;
}

/* ---- vLLM benchmark_serving.py ---- */

static int
vllm(const char *path, const struct json *d, struct imp_result *out, struct err_list *errs)
{
    snprintf(out->engine, sizeof out->engine, "vllm");
    snprintf(out->model, sizeof out->model, "%s", str(d, "model_id"));
    static const char *const NEED[] = {
        "completed",      "total_input_tokens", "total_output_tokens", "request_throughput",
        "median_ttft_ms", "median_tpot_ms",     "mean_ttft_ms",        "mean_tpot_ms"};
    int missing = 0;
    for (size_t i = 0; i < sizeof NEED / sizeof NEED[0]; i++)
        if (!(num(d, NEED[i]) >= 0)) {
            err_add(errs, path, d->line, d->col, ERR_ERROR,
                    "not a benchmark_serving.py result: '%s' is missing or not a number", NEED[i]);
            missing++;
        }
    if (missing)
        return -1;
    double n = num(d, "completed"), in = num(d, "total_input_tokens") / n,
           outl = num(d, "total_output_tokens") / n, thr = num(d, "request_throughput");
    if (!(n >= 1)) {
        err_add(errs, path, d->line, d->col, ERR_ERROR, "'completed' is 0: no request finished");
        return -1;
    }
    double mean_e2e_s = (num(d, "mean_ttft_ms") + num(d, "mean_tpot_ms") * (outl - 1)) * 1e-3;
    double conc = thr * mean_e2e_s; /* Little's law: requests in the system */
    double rate = num(d, "request_rate");
    const struct json *rr = json_get(d, "request_rate");
    char rate_s[32];
    if (rr && rr->kind == JSON_STR)
        snprintf(rate_s, sizeof rate_s, "%s", rr->str);
    else
        snprintf(rate_s, sizeof rate_s, "%g", rate);
    struct imp_row *p = add_row(out), *q = add_row(out);
    snprintf(p->id, sizeof p->id, "vllm-%.24s-rate%.16s-prefill", str(d, "date"), rate_s);
    snprintf(p->phase, sizeof p->phase, "prefill");
    snprintf(p->metric, sizeof p->metric, "time_ms");
    p->value = num(d, "median_ttft_ms");
    p->prompt = round(in);
    snprintf(p->note, sizeof p->note,
             "benchmark_serving.py %s: median TTFT of %.0f requests at %s req/s (mean input %.1f "
             "tokens; queueing included)",
             str(d, "date"), n, rate_s, in);
    snprintf(q->id, sizeof q->id, "vllm-%.24s-rate%.16s-decode", str(d, "date"), rate_s);
    snprintf(q->phase, sizeof q->phase, "decode");
    snprintf(q->metric, sizeof q->metric, "time_ms");
    q->value = num(d, "median_tpot_ms");
    q->batch = conc >= 1 ? round(conc) : 1;
    q->context = round(in + outl / 2);
    snprintf(q->note, sizeof q->note,
             "benchmark_serving.py %s: median TPOT; batch %.2f from Little's law (%.3g req/s x "
             "mean latency %.3g s); mean input %.1f, output %.1f tokens",
             str(d, "date"), conc, thr, mean_e2e_s, in, outl);
    return 0;
}

/* ---- genai-perf ---- */

static double
stat_ms(const char *path, const struct json *d, const char *key, const char *which,
        struct err_list *errs)
{
    const struct json *m = json_get(d, key);
    double v = num(m, which);
    const char *unit = str(m, "unit");
    if (!m || !(v >= 0)) {
        err_add(errs, path, m ? m->line : d->line, m ? m->col : d->col, ERR_ERROR,
                "not a genai-perf profile export: '%s.%s' is missing", key, which);
        return NAN;
    }
    if (strcmp(unit, "ms") == 0)
        return v;
    if (strcmp(unit, "ns") == 0)
        return v * 1e-6;
    if (strcmp(unit, "s") == 0 || strcmp(unit, "sec") == 0)
        return v * 1e3;
    if (strcmp(unit, "tokens") == 0)
        return v;
    err_add(errs, path, m->line, m->col, ERR_ERROR, "'%s' has unit '%s' (expected ms, ns or s)",
            key, unit);
    return NAN;
}

static int
genai_perf(const char *path, const struct json *d, struct imp_result *out, struct err_list *errs)
{
    size_t before = err_count(errs, ERR_ERROR);
    const struct json *cfg = json_get(d, "input_config");
    const char *backend = str(cfg, "backend");
    snprintf(out->engine, sizeof out->engine, "%s",
             strcmp(backend, "vllm") == 0 ? "vllm" : "tensorrt-llm");
    const struct json *m = json_get(cfg, "model");
    const char *model = m && m->kind == JSON_ARR && m->n > 0 && m->items[0]->kind == JSON_STR
                            ? m->items[0]->str
                            : str(cfg, "model");
    snprintf(out->model, sizeof out->model, "%s", model);
    double ttft = stat_ms(path, d, "time_to_first_token", "p50", errs);
    double itl = stat_ms(path, d, "inter_token_latency", "p50", errs);
    double isl = stat_ms(path, d, "input_sequence_length", "avg", errs);
    double osl = stat_ms(path, d, "output_sequence_length", "avg", errs);
    if (err_count(errs, ERR_ERROR) > before)
        return -1;
    double conc = num(cfg, "concurrency");
    double rate = num(cfg, "request_rate");
    struct imp_row *p = add_row(out), *q = add_row(out);
    char load[48];
    if (conc >= 1)
        snprintf(load, sizeof load, "concurrency %.0f", conc);
    else if (rate > 0)
        snprintf(load, sizeof load, "rate %g req/s", rate);
    else
        snprintf(load, sizeof load, "unknown load");
    snprintf(p->id, sizeof p->id, "genai-perf-%.48s-c%.0f-prefill", out->model,
             conc >= 1 ? conc : 0);
    snprintf(p->phase, sizeof p->phase, "prefill");
    snprintf(p->metric, sizeof p->metric, "time_ms");
    p->value = ttft;
    p->prompt = round(isl);
    snprintf(p->note, sizeof p->note,
             "genai-perf: median TTFT at %s (mean input %.1f tokens; queueing included)", load,
             isl);
    snprintf(q->id, sizeof q->id, "genai-perf-%.48s-c%.0f-decode", out->model,
             conc >= 1 ? conc : 0);
    snprintf(q->phase, sizeof q->phase, "decode");
    snprintf(q->metric, sizeof q->metric, "time_ms");
    q->value = itl;
    q->batch = conc >= 1 ? conc : 1;
    q->context = round(isl + osl / 2);
    snprintf(q->note, sizeof q->note,
             "genai-perf: median inter-token latency at %s (batch = the concurrency); mean input "
             "%.1f, output %.1f tokens",
             load, isl, osl);
    return 0;
}

int
imp_parse(enum imp_tool tool, const char *path, const char *text, size_t len,
          struct imp_result *out, struct err_list *errs)
{
    memset(out, 0, sizeof *out);
    out->tool = tool;
    size_t i = 0;
    while (i < len && isspace((unsigned char)text[i]))
        i++;
    if (i == len) {
        err_add(errs, path, 0, 0, ERR_ERROR, "the file is empty");
        return -1;
    }
    bool json_like = text[i] == '[' || text[i] == '{';
    struct json *doc = NULL;
    if (tool == IMP_LLAMA_BENCH)
        doc = json_like ? load_json_records(path, text, len, errs)
                        : csv_to_json(path, text, len, errs);
    else {
        struct json_error je;
        doc = json_parse(text, len, &je);
        if (!doc)
            err_add(errs, path, je.line, je.col, ERR_ERROR, "%s", je.msg);
    }
    if (!doc)
        return -1;
    int rc = -1;
    if (tool == IMP_LLAMA_BENCH) {
        if (doc->kind == JSON_OBJ) { /* a single record */
            struct json wrap = {.kind = JSON_ARR, .n = 1, .items = &doc};
            rc = llama_bench(path, &wrap, out, errs);
        } else if (doc->kind == JSON_ARR && doc->n > 0) {
            rc = llama_bench(path, doc, out, errs);
        } else {
            err_add(errs, path, doc->line, doc->col, ERR_ERROR,
                    "expected llama-bench records (an array of objects), got %s",
                    doc->kind == JSON_ARR ? "an empty array" : json_kind_name(doc->kind));
        }
    } else if (doc->kind != JSON_OBJ) {
        err_add(errs, path, doc->line, doc->col, ERR_ERROR, "expected a JSON object, got %s",
                json_kind_name(doc->kind));
    } else {
        rc = tool == IMP_VLLM ? vllm(path, doc, out, errs) : genai_perf(path, doc, out, errs);
    }
    json_free(doc);
    return rc;
}
