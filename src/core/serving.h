/* Serving-level physics built on the per-operator engine: the KV-cache plan (pool, blocks,
 * concurrency), speculative decoding, prefix caching, disaggregated prefill/decode and the
 * workload crossovers. Pure functions; docs/physics.md gives every formula. */
#ifndef ROOFLINE_CORE_SERVING_H
#define ROOFLINE_CORE_SERVING_H

#include "core/roof.h"

/* docs/physics.md#kv-cache */
struct roof_kv_plan {
    double bytes_per_token;     /* all layers with a KV cache, KV format */
    double bytes_per_seq;       /* at the context, window-capped, rounded up to blocks, with the
                                 * linear-attention layers' state */
    double state_bytes_per_seq; /* the linear-attention layers' fixed state (0 without) */
    double block_tokens;        /* tokens per block */
    double bytes_per_block;     /* one block across all layers */
    double capacity_bytes, weights_bytes, act_bytes_per_seq, reserve_bytes;
    double pool_bytes; /* capacity - weights - reserve (per device) */
    /* data-parallel attention ranks (1 = none), each holding its own sequences' KV cache on its
     * devices: the blocks and the sequences below are every rank's */
    double ranks;
    double pool_blocks;
    double max_seqs; /* concurrent sequences at the context */
};
/* `context` tokens per sequence, `block_tokens` >= 1 (vLLM's default is 16). */
int roof_kv_plan(const struct roof_config *cfg, double context, double block_tokens,
                 struct roof_kv_plan *out);
/* The default engine reserve: 10% of device memory (vLLM gpu_memory_utilization = 0.9). */
double roof_default_reserve_bytes(const struct hw_profile *hw);

/* docs/physics.md#speculative-decoding */
struct roof_spec {
    double k, acceptance;
    double expected_tokens;       /* (1 - a^(k+1)) / (1 - a) per verification */
    double draft_step_s;          /* one draft decode step */
    double verify_s;              /* one target pass over k + 1 tokens */
    double target_step_s;         /* a plain target decode step */
    double cycle_s;               /* k drafts + one verification */
    double time_per_token_s;      /* cycle / expected tokens */
    double speedup;               /* target step / time per token */
    double break_even_acceptance; /* below it speculation slows decode; 1 = never pays */
};
/* Draft model `draft` (NULL: self-drafting whose step costs `self_cost` x a target step, e.g.
 * extra heads). Uses cfg->batch and cfg->context. */
int roof_speculative(const struct roof_config *target, const struct roof_config *draft,
                     double self_cost, double k, double acceptance, struct roof_spec *out);
double roof_spec_expected_tokens(double k, double a);

/* docs/physics.md#prefix-caching: a fraction `hit` of the prompt's tokens already cached */
struct roof_prefix {
    double hit, cached_tokens, new_tokens;
    double ttft_cold_s, ttft_warm_s, speedup;
    double kv_write_cold_bytes, kv_write_warm_bytes;
    double prefill_tokens_per_s_cold, prefill_tokens_per_s_warm; /* prompt tokens served */
};
int roof_prefix_cache(const struct roof_config *cfg, double hit, struct roof_prefix *out);

/* docs/physics.md#disaggregation */
struct roof_disagg {
    double prompt, output;
    double kv_bytes;           /* per request: prompt x KV bytes per token */
    double transfer_s;         /* over one link direction, plus latency */
    double ttft_s;             /* prefill pass (prefill batch) + transfer */
    double itl_s;              /* decode step at the decode batch, mean context */
    double prefill_req_per_s;  /* per prefill device */
    double decode_req_per_s;   /* per decode device */
    double decode_per_prefill; /* decode devices per prefill device that balance the two */
    double prefill_devices, decode_devices; /* for `rate` requests/s */
};
int roof_disaggregate(const struct roof_config *prefill, const struct roof_config *decode,
                      double prompt, double output, double rate_per_s, struct roof_disagg *out);

/* docs/physics.md#crossovers */
/* Context at which a decode step's KV-cache reads equal its weight reads (batch cfg->batch). */
int roof_kv_weight_crossover(const struct roof_config *cfg, double *context);
/* Prompt length at which the prefill pass takes as long as generating `output` tokens. */
int roof_prefill_decode_crossover(const struct roof_config *cfg, double output, double *prompt);

#endif
