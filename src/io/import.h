/* Importers of other tools' results into rows of the measurement format
 * (calibration.md#the-measurement-format): llama-bench (-o json, jsonl or csv), vLLM's
 * benchmark_serving.py / `vllm bench serve`
 * (--save-result JSON) and NVIDIA genai-perf (profile_export_genai_perf.json). Never prints. */
#ifndef ROOFLINE_IO_IMPORT_H
#define ROOFLINE_IO_IMPORT_H

#include "util/err.h"

#include <stddef.h>

#define IMP_MAX_ROWS 256

enum imp_tool { IMP_LLAMA_BENCH, IMP_VLLM, IMP_GENAI_PERF };

/* One measurement row; numbers < 0 are absent. */
struct imp_row {
    char id[96];
    char phase[8];   /* prefill, decode, e2e */
    char metric[16]; /* tokens_per_s, time_ms, latency_s */
    double value;
    double batch, prompt, context, input, output;
    char weights[16]; /* a roofline format name, "" when the file does not say */
    char kv[16];
    char note[240];
};

struct imp_result {
    enum imp_tool tool;
    char engine[16];    /* llama.cpp, vllm, tensorrt-llm */
    char hardware[128]; /* the device as the file names it ("" when absent) */
    char model[256];    /* the model as the file names it */
    struct imp_row rows[IMP_MAX_ROWS];
    int n;
};

/* Parse `text` (the contents of `path`, for messages) as `tool`'s output into *out. Returns 0,
 * or -1 with positioned errors in errs (collects every bad record). */
int imp_parse(enum imp_tool tool, const char *path, const char *text, size_t len,
              struct imp_result *out, struct err_list *errs);

/* A roofline id for a device or model name from a file: the longest id in `ids` that the
 * normalised name (lowercase; "nvidia"/"geforce" dropped; spaces to '-'; the last path
 * component) starts with. NULL when none does. */
const char *imp_match_id(const char *name, char *const *ids, int n);

/* llama.cpp's model_type ("qwen2 7B Q4_K - Medium", "llama 7B mostly Q4_0") or cache type
 * ("f16", "q8_0") to a roofline format name; NULL when unknown. */
const char *imp_llama_format(const char *s);

#endif
