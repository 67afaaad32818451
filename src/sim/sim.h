/* Discrete-event simulation of LLM serving: requests arrive (open or closed loop, or a trace),
 * wait, are batched iteration by iteration by a scheduler (static, continuous, chunked prefill,
 * disaggregated prefill/decode) over a paged KV-cache block pool, and every engine step takes
 * roof_step's time for its exact batch. No printing, no exit. docs/simulate.md */
#ifndef ROOFLINE_SIM_SIM_H
#define ROOFLINE_SIM_SIM_H

#include "core/roof.h"
#include "util/err.h"

#include <stdbool.h>

enum sim_policy { SIM_STATIC, SIM_CONTINUOUS, SIM_CHUNKED, SIM_DISAGGREGATED };
enum sim_preempt { SIM_PREEMPT_RECOMPUTE, SIM_PREEMPT_SWAP };
/* How an instance admits new requests (docs/simulate.md#admission):
 * vllm: admit what fits now; a decode that finds no free block preempts the most recently
 *   admitted sequence (back to the head of the queue), and a step that preempted admits nothing
 *   new (vLLM v1's scheduler; TensorRT-LLM's MAX_UTILIZATION is close to it);
 * no_evict: admit only when prompt + output fit in the blocks not yet promised to the running
 *   requests, so a started request is never preempted (TensorRT-LLM GUARANTEED_NO_EVICT);
 * greedy: admit what fits now, preempt on need, keep admitting (kept for comparison);
 * sglang: SGLang's PrefillAdder: a prompt is admitted when its input plus its remaining output
 *   fit beside the running requests' remaining outputs times an estimated new-token ratio, and
 *   a decode that finds no room retracts the request with the fewest output tokens.
 * The zero value is vllm. */
enum sim_admission {
    SIM_ADMIT_VLLM,
    SIM_ADMIT_NO_EVICT,
    SIM_ADMIT_GREEDY,
    SIM_ADMIT_SGLANG,
    SIM_ADMIT_COUNT
};
/* The names scenarios and engine profiles write, in enum order (sim_admission_name). */
extern const char *const SIM_ADMISSION_NAMES[SIM_ADMIT_COUNT];
enum sim_process { SIM_POISSON, SIM_GAMMA, SIM_CONSTANT, SIM_CLOSED, SIM_TRACE };
enum sim_dist_kind { SIM_DIST_FIXED, SIM_DIST_UNIFORM, SIM_DIST_LOGNORMAL, SIM_DIST_TRACE };

/* A token-length distribution. fixed: `value`; uniform: whole numbers in [min, max];
 * lognormal: the length's own `mean` and `sd` (not the log's), rounded to the nearest whole
 * number and clamped to [min, max] (max 0 = no cap); trace: the trace's column. */
struct sim_dist {
    enum sim_dist_kind kind;
    double value, min, max, mean, sd;
};

struct sim_trace_row {
    double arrival_s;
    long prompt_tokens, output_tokens; /* may be 0: the engine rejects such requests */
};
struct sim_trace {
    struct sim_trace_row *rows; /* arrival_s non-decreasing */
    long n;
};

struct sim_workload {
    enum sim_process process;
    double rate_per_s;   /* poisson, gamma, constant */
    double cv;           /* gamma: coefficient of variation of the inter-arrival time */
    long users;          /* closed loop */
    double think_time_s; /* closed loop: exponential think time with this mean (0 = none) */
    struct sim_dist prompt, output;
    const struct sim_trace *trace; /* borrowed; process trace and/or trace lengths */
    long requests;                 /* arrivals to generate; 0 = until duration_s or the trace end */
    double duration_s;             /* no arrival after this; 0 = no limit */
    long warmup_requests;          /* the first arrivals excluded from the statistics */
    double warmup_s;               /* and every arrival before this time */
};

/* How an engine runs a pass with prompt work (its prefill CUDA graphs): all of it replayed as a
 * graph (the default), attention eager and the rest graphed (vLLM's piecewise graphs), or all of
 * it eager (SGLang's extend batches by default) */
enum sim_prefill_graph {
    SIM_PREFILL_GRAPH_FULL,
    SIM_PREFILL_GRAPH_PIECEWISE,
    SIM_PREFILL_GRAPH_NONE,
    SIM_PREFILL_GRAPH_COUNT
};
/* The names engine profiles write (prefill_graph), in enum order. */
extern const char *const SIM_PREFILL_GRAPH_NAMES[SIM_PREFILL_GRAPH_COUNT];

struct sim_sched {
    enum sim_policy policy;
    long max_batch;           /* sequences in one step (vLLM max_num_seqs) */
    long max_tokens_per_step; /* tokens in one step (vLLM max_num_batched_tokens) */
    long block_tokens;        /* tokens per KV block */
    double kv_fraction;       /* share of (capacity - weights - reserve) given to the KV pool */
    enum sim_preempt preempt;
    enum sim_admission admission;
    double swap_bytes_per_s; /* device <-> host link for swap preemption */
    int prefill_instances;   /* disaggregated: instances that only prefill; the rest decode */
    /* vllm admission: a step that continues or admits a prompt carries no decodes (SGLang's
     * scheduler without --enable-mixed-chunk; docs/simulate.md#engines) */
    bool separate_prefill;
    /* vLLM's asynchronous scheduling (docs/simulate.md#asynchronous-scheduling; continuous and
     * chunked): step k + 1 is planned while step k runs, so it sees neither the arrivals during
     * step k nor the seats and blocks of the requests that finish in it, and the engine's host
     * work per step overlaps the device's step: a step takes max(device, host) */
    bool async_scheduling;
    /* SGLang's --scheduler-recv-interval (docs/simulate.md#receive-interval): a request that
     * arrives while the instance is busy reaches its queue only when the scheduler next polls
     * its input, after decode steps (weight 1 each) or one step with prompt work (weight 1000)
     * reach this count since the last poll; an idle instance polls at once. 1 (or 0) = every
     * step, as every other engine */
    long recv_interval;
    /* sglang admission: the prompt tokens one prefill batch may take (SGLang's
     * --max-prefill-tokens, PrefillAdder.rem_input_tokens): a prompt that does not fit what is
     * left of it waits unless it is the batch's first; 0 = the step's token budget */
    long max_prefill_tokens;
    /* prompt passes run without a CUDA graph (docs/simulate.md#eager-prefill): such a pass
     * cannot end before its host has issued its launches, eager_launch_s each */
    enum sim_prefill_graph prefill_graph;
    double eager_launch_s;
    /* the server tokenises each text prompt before its scheduler sees it
     * (docs/simulate.md#tokenisation): tokenize_per_token_s x the prompt's tokens after its
     * arrival (0 = at once); tokenize_serial: one tokenizer per instance, which takes the
     * prompts routed to it one after another in arrival order (SGLang's TokenizerManager) */
    double tokenize_per_token_s;
    bool tokenize_serial;
    /* vLLM's hybrid KV cache manager (docs/simulate.md#sliding-window-layers-in-the-kv-pool): the
     * layers of a sliding-window model form groups of equal size, a block holds block_tokens of
     * one group, and a sliding-window group frees the blocks whose tokens have all left the
     * window (vllm and greedy admission; sglang admission keeps one block for every layer) */
    bool kv_window_blocks;
    /* vLLM's hybrid allocator (docs/simulate.md#linear-attention-state-in-the-pool): with
     * linear-attention layers a block holds a multiple of this many tokens, the fewest whose
     * page (a KV layer's bytes) holds one layer's state, and the state of a sequence takes whole
     * such pages; 0 = block_tokens as set (sim_block_tokens) */
    long hybrid_block_align;
    /* data-parallel attention ranks that an engine profile's defaults are read for
     * (engine_serving_sched): a profile whose limits are each rank's (attn_dp: per_rank) gives
     * max_batch and max_tokens_per_step times this; 0 or 1 = one rank. Both stay the instance's
     * totals here; the simulator takes its ranks from its engine (roof_config.attn_dp) */
    int attn_dp_ranks;
};

/* Service-level objectives: 0 = no bound. A request meets them when its TTFT, its mean time
 * between tokens (TPOT) and its end-to-end latency are all within the bounds. */
struct sim_slo {
    double ttft_s, itl_s, e2e_s;
    double target; /* attainment target for --max-rate, (0, 1] */
};

struct sim_request;
struct sim_config {
    struct roof_config engine; /* one instance: hw, model, formats, tp, pp, tuning, reserve */
    int instances;             /* engine instances (devices / (tp x pp)) */
    /* Disaggregated serving on two device types: the decode instances' engine (its own device,
     * cost model and KV pool; same model, KV format and tp), NULL = `engine` for all. The KV
     * moves over the prefill device's link. Borrowed; the analytic estimate ignores it. */
    const struct roof_config *decode_engine;
    struct sim_sched sched;
    struct sim_workload work;
    struct sim_slo slo;
    unsigned long seed;
    int timeline_points; /* at most 2x this many timeline samples; 0 = SIM_TIMELINE_POINTS */
    /* Per-request results. By default every request is kept in sim_result.requests (arrival
     * order, about 120 bytes each). discard_requests keeps none: a request's state lives only
     * while it is in flight, so memory does not grow with the run (latency percentiles exact
     * up to SIM_EXACT_CAP samples, then log-binned). on_request, when set, receives each
     * request as it finishes or is rejected (completion order; the pointer is valid during the
     * call only). */
    bool discard_requests;
    long exact_cap; /* exact latency samples per metric before binning; 0 = SIM_EXACT_CAP */
    void (*on_request)(void *ctx, const struct sim_request *q);
    void *on_request_ctx;
};
#define SIM_TIMELINE_POINTS 1000
/* The simulation stops with an error after this many engine steps (a livelock guard: 100 per
 * request at the request limit). */
#define SIM_MAX_STEPS 10000000000L
/* Upper bounds of a workload (docs/simulate.md#limits), so that every count x record size and
 * every sum of lengths stays far from overflow: arrivals per run (also trace rows), tokens of
 * one prompt or one output, the arrival rate and the run's duration. 10^8 requests of 10^7
 * tokens sum to 10^15 tokens, below 2^53, so token counters kept in doubles stay exact; a day
 * of production traffic is about 10^8 requests. */
#define SIM_MAX_REQUESTS 100000000L
#define SIM_MAX_TOKENS 10000000L
#define SIM_MAX_RATE 1e6
#define SIM_MAX_DURATION_S 1e7

/* One data-parallel attention rank's share of an instance's limit (sequences or prompt tokens a
 * step), at least 1: `total / ranks` rounded down, as SGLang divides --max-running-requests and
 * --chunked-prefill-size; an engine whose limits are each rank's has instance limits of ranks
 * times them, so the division is exact (docs/physics.md#data-parallel-attention). */
long sim_rank_share(long total, int ranks);

/* Defaults of a scheduler (vLLM's where it has one): max batch 256, block 16 tokens, KV
 * fraction 0.9, recompute, admission vllm, swap at 25 GB/s; tokens per step 2048 for chunked
 * prefill, else the model's context length (at least 2048). */
void sim_sched_defaults(struct sim_sched *s, enum sim_policy policy,
                        const struct mdl_profile *model);

enum sim_status { SIM_REQ_DONE, SIM_REQ_REJECTED };
/* Why the engine turned a request away (as vLLM does: empty, longer than the context, larger
 * than the whole KV pool, or a prompt over the step budget when prefill is not chunked). */
enum sim_reject {
    SIM_REJ_NONE,
    SIM_REJ_EMPTY,
    SIM_REJ_CONTEXT,
    SIM_REJ_KV,
    SIM_REJ_BUDGET,
    SIM_REJ_COUNT
};
/* Asynchronous scheduling applies: asked for, and a colocated policy (continuous, chunked). */
bool sim_async(const struct sim_sched *s);
const char *sim_reject_name(enum sim_reject r);
const char *sim_policy_name(enum sim_policy p);
const char *sim_admission_name(enum sim_admission a);
const char *sim_process_name(enum sim_process p);
const char *sim_dist_name(enum sim_dist_kind d);
/* The nominal mean of a length distribution: fixed value, uniform midpoint, lognormal mean (its
 * clamp ignored, as the analytic estimate does); 0 for a trace (use sim_dist_moments). */
double sim_dist_mean(const struct sim_dist *d);
/* The longest length a distribution draws: fixed value, uniform max, a trace's longest row
 * (its `max`), lognormal's cap or, without one, mean + 4 sd. */
double sim_dist_max(const struct sim_dist *d);
/* The context an engine serving `max_batch` sequences of the longest request (prompt + output)
 * is launched with: llama-server's -c, slots x per-slot context with at most 64 slots (*slots,
 * may be NULL), the n_ctx that sizes its KV cache and, without flash attention, its compute
 * buffers (engine_reserve_bytes). The planner's launch lines and engine reserves, and a
 * scenario's reserve, take it from here. */
double sim_serving_context(long max_batch, const struct sim_dist *prompt,
                           const struct sim_dist *output, long *slots);

/* One request's outcome (times in seconds from the start of the simulation; NaN when not
 * applicable: a rejected request has no TTFT, a one-token answer no TPOT). */
struct sim_request {
    long id; /* arrival order */
    double arrival_s;
    long prompt_tokens, output_tokens;
    int instance; /* where it was served (disaggregated: the decode instance; -1 rejected) */
    enum sim_status status;
    enum sim_reject reject;
    bool warmup;            /* excluded from the statistics */
    double queue_s;         /* arrival -> first scheduled */
    double ttft_s;          /* arrival -> first token */
    double tpot_s;          /* mean time between output tokens: (e2e - ttft) / (output - 1) */
    double max_itl_s;       /* longest gap between two of its tokens */
    double e2e_s;           /* arrival -> last token */
    double finish_s;        /* absolute time of the last token (rejected: the arrival) */
    long recomputed_tokens; /* prompt tokens computed again after its preemptions */
    int preemptions;
    bool slo_met;
};

/* Latency samples (TTFT, TPOT, E2E, queue) are kept exactly, 8 bytes each, up to this many per
 * metric; beyond it the quantiles come from a log-binned histogram of ratio 1.01 (relative
 * error at most 0.5%; mean and max stay exact). */
#define SIM_EXACT_CAP (1L << 20)

/* mean and quantiles of a sample; all NaN when n = 0 */
struct sim_stat {
    long n;
    double mean, p50, p90, p99, max;
};

/* The state of the whole system sampled at the start of engine steps (at most 2 x
 * timeline_points samples, thinned evenly in step count). */
/* Which kind of engine instance took a timeline step: with the disaggregated policy, prefill
 * instances run prompts only and decode instances stream tokens; every other policy mixes. */
enum sim_step_kind { SIM_STEP_MIXED, SIM_STEP_PREFILL, SIM_STEP_DECODE };

struct sim_timeline_point {
    double time_s;
    double queued;       /* requests waiting (incl. swapped out and awaiting KV transfer) */
    double running;      /* sequences admitted to an engine instance, all instances */
    double batch;        /* sequences in the step that starts */
    double kv_occupancy; /* fraction of all instances' KV blocks in use */
    unsigned char kind;  /* enum sim_step_kind of the instance that took the step */
};

struct sim_result {
    /* every request in arrival order (owned; sim_result_release frees); NULL and 0 with
     * discard_requests */
    struct sim_request *requests;
    long n_requests;
    struct sim_timeline_point *timeline; /* owned */
    int n_timeline;
    /* counts */
    long arrived, completed, rejected, measured; /* measured: completed or rejected after warm-up */
    long rejected_by[SIM_REJ_COUNT];
    long preemptions, steps, swapped_blocks;
    /* measurement window: first measured arrival -> last measured completion */
    double window_start_s, window_end_s, makespan_s;
    /* throughput including drain: everything the engines delivered inside the window (tokens
     * of any request, warm-up ones too, counted when produced; requests when they finish) */
    double throughput_req_per_s, input_tokens_per_s, output_tokens_per_s;
    /* throughput during arrivals: the same from the first to the last measured arrival (the
     * offered load's steady state, without the drain); NaN when that span is empty */
    double arrivals_end_s;
    double arrivals_req_per_s, arrivals_input_tokens_per_s, arrivals_output_tokens_per_s;
    double goodput_req_per_s, slo_attainment; /* NaN when the scenario has no SLO */
    double preemptions_per_request;           /* preemptions / completed requests */
    /* prompt and generated tokens prefilled again after preemptions by recompute (what prefix
     * -cache hits did not save), over the whole run, and per completed request */
    double recomputed_tokens, recomputed_tokens_per_request;
    /* over measured completed requests; itl over every gap between two tokens (log-binned,
     * 0.5% resolution), the rest exact (GSL quantiles of the sorted sample) up to
     * SIM_EXACT_CAP samples, log-binned beyond */
    struct sim_stat ttft, itl, tpot, e2e, queue;
    /* batch (sequences in an instance's step, 0 while idle) and KV occupancy (fraction of an
     * instance's blocks in use) as time-weighted distributions over the instances' time from
     * the first to the last measured arrival (mean, p50, p90, p99, max; 1-sequence and 0.1%
     * bins); step_time per step over the whole run */
    struct sim_stat batch, kv_occupancy, step_time;
    long *batch_hist; /* owned: steps by batch size 0..batch_hist_n-1 */
    long batch_hist_n;
    /* Little's law over the whole run: time-average number in the system vs arrival rate x mean
     * time in the system (equal when the run ends empty) */
    double littles_l, littles_lambda_w;
    /* the pool of one instance (disaggregated: of a decode instance) */
    double kv_blocks, kv_block_bytes, kv_pool_bytes;
    long kv_block_groups; /* a block holds 1 / this of the layers (sched.kv_window_blocks) */
    double busy_fraction; /* engine busy time inside the window / (instances x window) */
};

/* Run the scenario. Returns 0 and fills `out` (release with sim_result_release), or -1 with the
 * problem added to `errs` (the model does not fit, no interconnect for disaggregation, the step
 * guard hit, out of memory). Deterministic: the same config and seed give the same result. */
int sim_run(const struct sim_config *cfg, struct sim_result *out, struct err_list *errs);
void sim_result_release(struct sim_result *r);

/* The KV pool of one instance: blocks = floor(kv_fraction x (capacity - weights - reserve) /
 * bytes per block), per device of the instance. Returns 0, or -1 when nothing is left. */
int sim_kv_pool(const struct sim_config *cfg, double *blocks, double *block_bytes,
                double *pool_bytes);

/* The pool's block as the scheduler counts it. Without kv_window_blocks (or without a sliding
 * window) one block holds block_tokens of every layer: groups = full_groups = 1. With it, vLLM's
 * hybrid KV cache manager: the layers form groups of gcd(sliding, full) layers, a block holds
 * block_tokens of one group, and a sliding-window group holds only the blocks from the one with
 * the first token still in the window (SlidingWindowManager.get_num_skipped_tokens: computed -
 * window + 1 tokens skipped). sim_kv_pool counts blocks of this size. */
struct sim_kv_shape {
    long block_tokens, window;
    long groups, full_groups, window_groups;
    /* blocks a sequence's linear-attention state holds from its admission on, whatever its
     * length: the state's bytes in blocks of the pool's size (0 without linear attention) */
    long state_blocks;
};
void sim_kv_shape_of(const struct sim_config *cfg, struct sim_kv_shape *k);
/* The pool's tokens a block: sched.block_tokens (16 when unset), raised under
 * sched.hybrid_block_align for a model with linear-attention and KV layers to the fewest
 * multiple of the alignment whose page (one KV layer's bytes at that many tokens, on a device)
 * holds one linear layer's state (vLLM's attn_block_size,
 * docs/simulate.md#linear-attention-state-in-the-pool). */
long sim_block_tokens(const struct sim_config *cfg);
/* blocks a sequence holds while a step computes its tokens up to `tokens`, `computed` of them
 * computed before the step (the blocks before the window were freed at the step's allocation) */
long sim_kv_held(const struct sim_kv_shape *k, long computed, long tokens);
/* the most blocks a request of `prompt` + `output` tokens holds at once, its prompt computed
 * in one step */
long sim_kv_peak(const struct sim_kv_shape *k, long prompt, long output);
/* the most tokens a sequence with `computed` tokens may reach within `blocks` blocks */
long sim_kv_room(const struct sim_kv_shape *k, long computed, long blocks);

/* Time of one engine step over `n` groups of sequences on one instance: roof_step on each
 * device's shard (tp, pp), plus the tensor-parallel all-reduces and pipeline sends. `seqs` is
 * scratch (scaled in place by the pipeline microbatching). Negative on an invalid batch. */
struct sim_cost;
struct sim_cost *sim_cost_new(const struct roof_config *cfg);
void sim_cost_free(struct sim_cost *c);
double sim_cost_step(struct sim_cost *c, struct roof_seq *seqs, int n);
/* Asynchronous scheduling: from now on a step takes max(device time, host time) instead of their
 * sum, the host time being roof_step's ROOF_OP_STEP (the engine's step and per-token overheads)
 * and the device time the rest (with the all-reduces and pipeline sends). */
void sim_cost_overlap_host(struct sim_cost *c, bool on);
/* Steps with prompt work run partly or wholly eager (`graph`, docs/simulate.md#eager-prefill): the
 * eager part's launches (sim_cost_launches) are issued by the host, `launch_s` each, while the
 * device runs them, so the step takes the step's host work + max(device, launches x launch_s),
 * or max(device, host work + launches x launch_s) with overlap_host. At pp > 1, and for a prompt
 * split into the engine's micro-batches, it stands as it is. */
void sim_cost_eager_prefill(struct sim_cost *c, enum sim_prefill_graph graph, double launch_s);
/* The launches of one pass over `seqs` that the eager part of `graph` issues: those the operator
 * model charges its kernel overhead for (roof_step over every operator, or over attention alone
 * for piecewise), plus the two all-reduces per layer at tp > 1 when the whole pass is eager;
 * 0 for a full graph, -1 on failure. */
double sim_cost_launches(struct sim_cost *c, enum sim_prefill_graph graph, struct roof_seq *seqs,
                         int n);
/* sim_cost_step, and in `issue` (when not NULL) the host's time to issue that step's eager
 * launches (sim_cost_eager_prefill): its host work + launches x launch_s; 0 for a step without
 * prompt work, a full graph, pp > 1 or a prompt split into micro-batches. Under an overlap
 * scheduler the outputs of the step before are processed only after this issue
 * (docs/simulate.md#sglangs-time-to-first-token). */
double sim_cost_step_issue(struct sim_cost *c, struct roof_seq *seqs, int n, double *issue);

/* A queueing approximation without an event loop (docs/simulate.md#analytic): each instance is
 * a G/G/c queue whose c = max_batch slots are held for a request's service time S = prefill +
 * (output - 1) decode steps at the mean batch b (fixed point b = rate x S, Little's law), with
 * decode slowed by the prefills it waits for; Allen-Cunneen for the mean wait and an
 * exponential tail for p99. Disaggregated: the prefill pool as G/G/c over the prefill
 * instances, transfer, then decode at the decode pool's mean batch. */
struct sim_analytic {
    bool stable;        /* utilisation < 1 */
    double rate_per_s;  /* per instance (disaggregated: per prefill instance) */
    double ca2, cs2;    /* squared coefficients of variation: arrivals, service */
    double prefill_s;   /* prefill pass of a mean prompt */
    double step_s;      /* decode step at the mean batch and mean context */
    double transfer_s;  /* disaggregated KV transfer of a mean prompt */
    double service_s;   /* mean time a request holds a slot */
    double batch;       /* mean sequences in flight per instance */
    double servers;     /* slots per queue */
    double utilisation; /* offered load / slots */
    double wait_prob;   /* P(wait) (Erlang C) */
    double queue_mean_s, queue_p99_s;
    double ttft_mean_s, ttft_p99_s, tpot_mean_s, e2e_mean_s, e2e_p99_s;
    double capacity_req_per_s; /* all instances: the rate at which the fixed point saturates */
};
/* Uses the config's arrival process and length distributions; the rate of a closed loop or a
 * trace is estimated. Returns 0 (unstable: stable = false, latencies infinite) or -1. */
int sim_analytic(const struct sim_config *cfg, struct sim_analytic *out);
/* The same with the mean batch's fixed point started at b0 instead of 1: the batch of an estimate
 * of the same configuration at a lower rate (a fixed point at a higher rate lies above it), which
 * saves steps when the rates are close (the planner's bisection). Ignored for static batching
 * and closed loops (their batch is another quantity); b0 <= 1: no start. */
int sim_analytic_from(const struct sim_config *cfg, double b0, struct sim_analytic *out);

/* --max-rate: the highest Poisson rate whose SLO attainment stays >= target, by bisection on
 * the rate with the same seed (the same uniforms, so arrivals scale exactly with the rate).
 *
 * For a caller such as a capacity planner asking "what rate can one instance carry within
 * these SLOs": build a sim_config with instances = 1 (the engine: hw, model, formats, tp, pp,
 * tuning, reserve), the scheduler (sim_sched_defaults, then the engine profile's admission,
 * max batch, token budget and KV share), the workload's lengths and a number of requests or a
 * duration (rate_per_s is replaced by each probe; warm-up as for a single run), the SLO bounds
 * in cfg->slo, then call sim_max_rate(cfg, target, rel_tol, &out, errs): out.rate_per_s is
 * the answer per instance (0 when even the lowest probe fails), out.probes the evidence. The
 * probes discard per-request results (memory does not grow with the requests), and the same
 * config and seed give the same answer. sim_analytic(cfg).capacity_req_per_s is a cheap
 * upper bound to start from. */
#define SIM_MAX_PROBES 64
struct sim_probe {
    double rate_per_s, slo_attainment, goodput_req_per_s;
    double ttft_p99_s, tpot_p99_s, e2e_p99_s;
    bool meets;
};
struct sim_maxrate {
    double rate_per_s; /* highest passing rate found; 0 when even the lowest probe fails */
    double slo_attainment;
    double target, rel_tol;
    struct sim_probe probes[SIM_MAX_PROBES]; /* in the order run */
    int n_probes;
};
/* Needs at least one SLO bound. rel_tol: stop when (hi - lo) / lo <= rel_tol (0 = 1%).
 * Returns 0, or -1 with errs. */
int sim_max_rate(const struct sim_config *cfg, double target, double rel_tol,
                 struct sim_maxrate *out, struct err_list *errs);

/* Quantile helpers (exposed for tests): q in [0, 1] of sorted data, GSL's definition. */
void sim_stat_from_sorted(const double *sorted, long n, struct sim_stat *out);

#endif
