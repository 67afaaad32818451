/* The serving simulator's event loop and schedulers (docs/simulate.md). Events (arrivals, the
 * end of an engine step, the end of a KV transfer) come off a heap in time order; an idle
 * instance plans its next step from its queues and block pool, and the step takes roof_step's
 * time for exactly that batch. Everything a step does is O(its batch).
 * One file on purpose: the schedulers, the block pool, admission and the statistics share the
 * private state of `struct sim` and `struct rt` on the hot path (about 100 ns per decoded
 * token), and splitting them would put that state in a header every part could change; the
 * statistics helpers are the part to move out first if it grows. */
#include "sim/heap.h"
#include "sim/sim_int.h"

#include <gsl/gsl_sort.h>
#include <gsl/gsl_statistics_double.h>
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

/* ---- names ---- */

const char *
sim_reject_name(enum sim_reject r)
{
    static const char *const N[SIM_REJ_COUNT] = {"none", "empty", "context", "kv", "budget"};
    return r < SIM_REJ_COUNT ? N[r] : "?";
}

const char *
sim_policy_name(enum sim_policy p)
{
    switch (p) {
    case SIM_STATIC:
        return "static";
    case SIM_CONTINUOUS:
        return "continuous";
    case SIM_CHUNKED:
        return "chunked";
    case SIM_DISAGGREGATED:
        return "disaggregated";
    }
    return "?";
}

const char *const SIM_ADMISSION_NAMES[SIM_ADMIT_COUNT] = {"vllm", "no_evict", "greedy", "sglang"};
const char *const SIM_PREFILL_GRAPH_NAMES[SIM_PREFILL_GRAPH_COUNT] = {"full", "piecewise", "none"};

const char *
sim_admission_name(enum sim_admission a)
{
    return (unsigned)a < SIM_ADMIT_COUNT ? SIM_ADMISSION_NAMES[a] : "?";
}

const char *
sim_process_name(enum sim_process p)
{
    switch (p) {
    case SIM_POISSON:
        return "poisson";
    case SIM_GAMMA:
        return "gamma";
    case SIM_CONSTANT:
        return "constant";
    case SIM_CLOSED:
        return "closed";
    case SIM_TRACE:
        return "trace";
    }
    return "?";
}

const char *
sim_dist_name(enum sim_dist_kind d)
{
    switch (d) {
    case SIM_DIST_FIXED:
        return "fixed";
    case SIM_DIST_UNIFORM:
        return "uniform";
    case SIM_DIST_LOGNORMAL:
        return "lognormal";
    case SIM_DIST_TRACE:
        return "trace";
    }
    return "?";
}

bool
sim_async(const struct sim_sched *s)
{
    return s->async_scheduling && (s->policy == SIM_CONTINUOUS || s->policy == SIM_CHUNKED);
}

long
sim_rank_share(long total, int ranks)
{
    long r = ranks > 1 ? total / ranks : total;
    return r > 0 ? r : 1;
}

void
sim_sched_defaults(struct sim_sched *s, enum sim_policy policy, const struct mdl_profile *model)
{
    memset(s, 0, sizeof *s);
    s->policy = policy;
    s->max_batch = 256;
    long ctx = model && model->max_position_embeddings > 0 ? model->max_position_embeddings : 0;
    s->max_tokens_per_step =
        policy == SIM_CHUNKED || policy == SIM_DISAGGREGATED ? 2048 : (ctx > 2048 ? ctx : 2048);
    s->block_tokens = 16;
    s->kv_fraction = 0.9;
    s->preempt = SIM_PREEMPT_RECOMPUTE;
    s->admission = SIM_ADMIT_VLLM;
    s->swap_bytes_per_s = 25e9; /* PCIe 4.0 x16, about 80% of its 32 GB/s */
    s->prefill_instances = 1;
    s->recv_interval = 1;
}

/* ---- queues ---- */

/* A double-ended queue of request ids (ring buffer). */
struct lq {
    long *v;
    size_t head, n, cap;
};

static int
lq_grow(struct lq *q)
{
    size_t cap = q->cap ? 2 * q->cap : 16;
    long *nv = malloc(cap * sizeof *nv);
    if (!nv)
        return -1;
    for (size_t i = 0; i < q->n; i++)
        nv[i] = q->v[(q->head + i) % q->cap];
    free(q->v);
    q->v = nv;
    q->head = 0;
    q->cap = cap;
    return 0;
}

static int
lq_push_back(struct lq *q, long x)
{
    if (q->n == q->cap && lq_grow(q) != 0)
        return -1;
    q->v[(q->head + q->n++) % q->cap] = x;
    return 0;
}

static int
lq_push_front(struct lq *q, long x)
{
    if (q->n == q->cap && lq_grow(q) != 0)
        return -1;
    q->head = (q->head + q->cap - 1) % q->cap;
    q->v[q->head] = x;
    q->n++;
    return 0;
}

static long
lq_front(const struct lq *q)
{
    return q->v[q->head];
}

static void
lq_pop_front(struct lq *q)
{
    q->head = (q->head + 1) % q->cap;
    q->n--;
}

/* ---- state ---- */

enum rstate { RS_WAITING, RS_RUNNING, RS_SWAPPED, RS_PENDING, RS_TRANSFER, RS_DONE };
enum role { ROLE_ALL, ROLE_PREFILL, ROLE_DECODE };

/* Per-request engine state (parallel to the public sim_request array). */
struct rt {
    long need;      /* tokens to prefill in this admission (prompt, or prompt + generated) */
    long prefilled; /* of `need` done */
    long kv;        /* tokens whose KV is held on the device */
    long kv_high;   /* the most tokens whose KV it has computed (below: recomputed) */
    long generated; /* output tokens produced */
    long blocks;    /* device blocks held */
    long host_blocks;
    long src_blocks; /* disaggregated: blocks still held on the prefill instance */
    long promised;   /* no_evict: blocks promised on its instance (released when it leaves) */
    long cached_at, cached_n; /* vllm: its blocks freed by a preemption, from tail index */
    long src_promised;        /* disaggregated no_evict: still promised on the prefill instance */
    long step_new;            /* tokens in the step now running (0 = not in it) */
    double last_token_s, admit_s, first_token_s;
    double ready_s; /* reached its instance's queue: the arrival, or the end of its tokenising */
    int inst, src, user;
    unsigned char state;
};

struct inst {
    enum role role;
    struct lq waiting, swapped, pending;
    /* sched.recv_interval > 1: arrived while busy, not yet polled (arrival order), and the poll
     * counter (SGLang's SchedulerRecvSkipper._counter) */
    struct lq intake;
    long recv_count;
    long *run; /* admission order */
    long n_run;
    long *step; /* ids in the step now running */
    long n_step;
    long total_blocks, free_blocks;
    /* blocks given back to the free queue so far; with the initial blocks they number the
     * queue's blocks in the order given (vLLM's FIFO free queue: docs/simulate.md#admission) */
    long given;
    /* the free queue's head: the index (in the order given) of the next block to be taken, and
     * the ranges above it that their owners took back as cache hits (sorted), which the head
     * skips */
    long head;
    struct hole {
        long at, end;
    } * holes;
    long n_holes, cap_holes;
    long promised_blocks; /* no_evict: sum of the admitted requests' promises */
    bool preempted_now;   /* vllm: the step being planned preempted */
    /* sglang admission: the estimated share of the running requests' remaining output still to
     * come (Scheduler.new_token_ratio) and the running batch's batch_is_full flag */
    double sg_ratio;
    bool sg_full;
    /* asynchronous scheduling (sched.async_scheduling): the step being planned follows the one
     * that just ended without a pause, so it was planned while that one ran, at cutoff_s (its
     * start): it sees no arrival after cutoff_s, and the requests that finished in that step
     * still hold their seats, blocks and promises (held_*) until it is planned */
    bool lookahead;
    double cutoff_s;
    long held_seats, held_blocks, held_promised;
    long n_xfer; /* disaggregated decode: transfers in flight to it */
    /* sched.tokenize_per_token_s: requests routed here and being tokenised, and (serial) when
     * its tokenizer finishes the last prompt it has taken */
    long n_tokenizing;
    double tokenizer_free_s;
    bool busy, kicked;
    double swap_s; /* swap traffic of the step being planned */
    double link_free_s;
    double busy_s;
    double step_start_s, idle_since_s; /* the running step's start; idle from (busy: unused) */
    /* the instant the last step gave first tokens: under asynchronous scheduling the engine
     * hands them out only after it has issued the next step (deliver_late) */
    double fresh_s;
};

/* Cumulative counters at an instant, for throughput and busy time over a span. */
struct snap {
    double t, tok_out, tok_in, done, busy;
};

/* A time-weighted histogram: weights committed up to the last measured arrival, and pending
 * since (with the bins touched, so a commit costs what was added). */
struct twhist {
    double *w, *pend;
    long *touched;
    long n, n_touched;
};

/* log-binned histogram of durations: bins of ratio 1.01 from 1e-7 s (0.5% resolution) */
#define LH_MIN_S 1e-7
#define LH_RATIO 1.01
#define LH_BINS 2800
struct lhist {
    long *n;
    long total, zeros; /* zeros: values <= 0, below every bin */
    double sum, max;
    double cached_x; /* the last value binned and its bin: most gaps repeat the step time */
    long cached_bin;
};

struct sim {
    const struct sim_config *cfg;
    /* the most prompt tokens one request takes in a step: the step's budget, or under
     * data-parallel attention one rank's share of it (a prompt is one rank's; SGLang divides
     * --chunked-prefill-size by dp, vLLM and TensorRT-LLM give each rank its own budget) */
    long chunk_cap;
    int ranks; /* data-parallel attention ranks (1 = none) */
    struct err_list *errs;
    struct sim_cost *cost;
    struct sim_cost *decode_cost; /* config decode_engine's; NULL = cost */
    struct sim_gen gen;
    struct sim_heap heap;
    struct inst *inst;
    int n_inst;
    /* requests in flight, in slots reused once a request is retired (ids below are slots;
     * sim_request.id is the arrival index) */
    struct sim_request *req;
    struct rt *rt;
    long n_req, cap_req; /* slots used so far, allocated */
    long *free_slots;
    long n_free;
    long n_arrived;
    /* retired requests kept for the result (arrival order), unless discard_requests */
    struct sim_request *kept;
    long cap_kept;
    /* statistics of retired requests */
    struct lat {
        double *v; /* exact samples while n <= SIM_EXACT_CAP */
        long n, cap;
        double sum;
        struct lhist h;
    } lat[4]; /* ttft, tpot, e2e, queue */
    long completed, rejected, measured, met, rejected_by[SIM_REJ_COUNT];
    double sojourn;
    struct roof_seq *seqs;
    long cap_seqs;
    double now;
    long in_system;
    double area, area_t;
    long arrivals, submitted;
    long block_tokens, max_context;
    double block_bytes, kv_token_bytes, link_bytes_per_s, link_latency_s;
    long window_tokens;     /* sliding window of the model (0 = none) */
    struct sim_kv_shape kv; /* what a block holds (sched.kv_window_blocks: one layer group) */
    bool async; /* asynchronous scheduling applies (sched.async_scheduling, colocated) */
    /* statistics */
    long *batch_hist;
    long batch_hist_n;
    struct lhist itl, step_time;
    long steps, preemptions, swapped_blocks;
    double recomputed; /* prompt tokens computed again after a preemption */
    /* what the engines delivered: output and input tokens produced, requests finished, busy
     * time of the steps that ended (docs/simulate.md#metrics) */
    double tok_out, tok_in, n_done, busy_done;
    struct snap w0, a1, w1; /* first and last measured arrival, last measured completion */
    bool have_w0;
    struct twhist tw_batch, tw_kv;
    struct sim_timeline_point *tl;
    int n_tl, cap_tl;
    long tl_stride, tl_count;
    bool failed;
};

/* a length distribution whose values stay within SIM_MAX_TOKENS (no overflow in sums) */
static bool
dist_in_limits(const struct sim_dist *d)
{
    double m = (double)SIM_MAX_TOKENS;
    return d->kind == SIM_DIST_TRACE ||
           (d->value <= m && d->min <= m && d->max <= m && d->mean <= m && d->min >= 0);
}

static void
fail(struct sim *s, const char *msg)
{
    if (!s->failed)
        err_add(s->errs, NULL, 0, 0, ERR_ERROR, "%s", msg);
    s->failed = true;
}

static void
lhist_add(struct lhist *h, double x)
{
    long b;
    if (x == h->cached_x) { /* most gaps repeat the step time: no log, no test of x */
        h->n[h->cached_bin]++;
        h->total++;
        h->sum += x;
        if (x > h->max)
            h->max = x;
        return;
    }
    if (!(x > 0)) {
        h->zeros++;
        h->total++;
        if (h->total == 1 || x > h->max)
            h->max = x;
        return;
    }
    b = x > LH_MIN_S ? (long)(log(x / LH_MIN_S) / log(LH_RATIO)) : 0;
    if (b >= LH_BINS)
        b = LH_BINS - 1;
    h->cached_x = x;
    h->cached_bin = b;
    h->n[b]++;
    h->total++;
    h->sum += x;
    if (x > h->max)
        h->max = x;
}

/* the value of rank q (n - 1) (GSL's definition without interpolation), as the bin's geometric
 * middle */
static double
lhist_quantile(const struct lhist *h, double q)
{
    if (h->total == 0)
        return NAN;
    long rank = (long)floor(q * (double)(h->total - 1)), cum = h->zeros;
    if (cum > rank)
        return 0;
    for (long b = 0; b < LH_BINS; b++) {
        cum += h->n[b];
        if (cum > rank) {
            double v = LH_MIN_S * pow(LH_RATIO, (double)b + 0.5);
            return v < h->max ? v : h->max;
        }
    }
    return h->max;
}

static void
lhist_stat(const struct lhist *h, struct sim_stat *out)
{
    out->n = h->total;
    out->mean = h->total ? h->sum / (double)h->total : NAN;
    out->p50 = lhist_quantile(h, 0.50);
    out->p90 = lhist_quantile(h, 0.90);
    out->p99 = lhist_quantile(h, 0.99);
    out->max = h->total ? h->max : NAN;
}

/* one latency sample: kept exactly while the metric has at most SIM_EXACT_CAP, always binned */
static int
lat_add(struct lat *l, double x, long exact_cap)
{
    lhist_add(&l->h, x);
    l->sum += x;
    if (l->n < exact_cap) {
        if (l->n == l->cap) {
            long cap = l->cap ? 2 * l->cap : 1024;
            double *nv = realloc(l->v, (size_t)cap * sizeof *nv);
            if (!nv)
                return -1;
            l->v = nv;
            l->cap = cap;
        }
        l->v[l->n] = x;
    } else if (l->v) {
        free(l->v);
        l->v = NULL;
        l->cap = 0;
    }
    l->n++;
    return 0;
}

static void stat_of(double *v, long n, struct sim_stat *out);

static void
lat_stat(struct lat *l, struct sim_stat *out, long exact_cap)
{
    if (l->n <= exact_cap) {
        stat_of(l->v, l->n, out);
        return;
    }
    lhist_stat(&l->h, out);
    out->mean = l->sum / (double)l->n;
}

static int
twhist_init(struct twhist *h, long n)
{
    h->n = n;
    h->n_touched = 0;
    h->w = calloc((size_t)n, sizeof *h->w);
    h->pend = calloc((size_t)n, sizeof *h->pend);
    h->touched = malloc((size_t)n * sizeof *h->touched);
    return h->w && h->pend && h->touched ? 0 : -1;
}

static void
twhist_release(struct twhist *h)
{
    free(h->w);
    free(h->pend);
    free(h->touched);
}

static void
twhist_add(struct twhist *h, long bin, double weight)
{
    if (!(weight > 0))
        return;
    bin = bin < 0 ? 0 : bin >= h->n ? h->n - 1 : bin;
    if (h->pend[bin] == 0)
        h->touched[h->n_touched++] = bin;
    h->pend[bin] += weight;
}

static void
twhist_commit(struct twhist *h)
{
    for (long k = 0; k < h->n_touched; k++) {
        long b = h->touched[k];
        h->w[b] += h->pend[b];
        h->pend[b] = 0;
    }
    h->n_touched = 0;
}

/* mean and quantiles of the committed weights, bins scaled by `unit`; the q-quantile is the
 * first bin whose cumulative weight reaches q of the total */
static void
twhist_stat(const struct twhist *h, double unit, struct sim_stat *out)
{
    double total = 0, sum = 0;
    long last = -1;
    for (long b = 0; b < h->n; b++)
        if (h->w[b] > 0) {
            total += h->w[b];
            sum += h->w[b] * (double)b * unit;
            last = b;
        }
    out->n = last >= 0 ? 1 : 0;
    if (!(total > 0)) {
        out->mean = out->p50 = out->p90 = out->p99 = out->max = NAN;
        return;
    }
    out->mean = sum / total;
    double q[3] = {0.50, 0.90, 0.99}, *dst[3] = {&out->p50, &out->p90, &out->p99};
    for (int k = 0; k < 3; k++) {
        double cum = 0;
        *dst[k] = (double)last * unit;
        for (long b = 0; b <= last; b++) {
            cum += h->w[b];
            if (cum >= q[k] * total * (1 - 1e-12)) {
                *dst[k] = (double)b * unit;
                break;
            }
        }
    }
    out->max = (double)last * unit;
}

static void
snapshot(const struct sim *s, struct snap *p)
{
    p->t = s->now;
    p->tok_out = s->tok_out;
    p->tok_in = s->tok_in;
    p->done = s->n_done;
    p->busy = s->busy_done;
    for (int i = 0; i < s->n_inst; i++)
        if (s->inst[i].busy)
            p->busy += s->now - s->inst[i].step_start_s;
}

static double
kv_occ(const struct inst *in)
{
    return (double)(in->total_blocks - in->free_blocks) / (double)in->total_blocks;
}

/* the time-weighted batch and occupancy of instance `in` idle from idle_since_s to now */
static void
tw_idle(struct sim *s, struct inst *in)
{
    double from = in->idle_since_s > s->w0.t ? in->idle_since_s : s->w0.t;
    if (s->have_w0 && s->now > from) {
        twhist_add(&s->tw_batch, 0, s->now - from);
        twhist_add(&s->tw_kv, (long)floor(kv_occ(in) * 1000.0 + 0.5), s->now - from);
    }
    in->idle_since_s = s->now;
}

/* a measured request arrives: the window opens at the first; each moves the end of the
 * arrivals span and commits the time-weighted statistics up to it */
static void
measured_arrival(struct sim *s)
{
    if (!s->have_w0) {
        s->have_w0 = true;
        snapshot(s, &s->w0);
        for (int i = 0; i < s->n_inst; i++)
            s->inst[i].idle_since_s = s->now;
    }
    for (int i = 0; i < s->n_inst; i++)
        if (!s->inst[i].busy)
            tw_idle(s, &s->inst[i]);
    twhist_commit(&s->tw_batch);
    twhist_commit(&s->tw_kv);
    snapshot(s, &s->a1);
}

/* blocks of `tokens` computed in one step (a prompt's, in every layer group) */
static long
nblocks(const struct sim *s, long tokens)
{
    return sim_kv_held(&s->kv, 0, tokens);
}

/* sequences holding a seat of `in`: running, arriving by KV transfer, and (asynchronous
 * scheduling) finished in the step that just ended but not yet removed */
static long
seats(const struct inst *in)
{
    return in->n_run + in->n_xfer + in->held_seats;
}

/* asynchronous scheduling: request `id`, waiting on `in`, arrived after the step being planned
 * was planned (vLLM's AsyncScheduler plans step k + 1 when step k starts) */
static bool
unseen(const struct sim *s, const struct inst *in, long id)
{
    return in->lookahead && s->rt[id].ready_s > in->cutoff_s;
}

/* in-system count for Little's law: the integral of N(t) */
static void
area_to_now(struct sim *s)
{
    s->area += (double)s->in_system * (s->now - s->area_t);
    s->area_t = s->now;
}

/* Take n blocks from the head of the free queue (vLLM's BlockPool.get_new_blocks pops the
 * least recently freed), evicting whatever they cached; ranges taken back as hits are skipped. */
static void
take_head(struct inst *in, long n)
{
    in->free_blocks -= n;
    while (n > 0) {
        long gap = in->n_holes > 0 ? in->holes[0].at - in->head : n;
        if (n < gap || in->n_holes == 0) {
            in->head += n;
            return;
        }
        n -= gap;
        in->head = in->holes[0].end;
        memmove(in->holes, in->holes + 1, (size_t)--in->n_holes * sizeof *in->holes);
    }
    while (in->n_holes > 0 && in->holes[0].at == in->head) { /* a hole right at the head */
        in->head = in->holes[0].end;
        memmove(in->holes, in->holes + 1, (size_t)--in->n_holes * sizeof *in->holes);
    }
}

static bool
grow(struct sim *s, struct inst *in, struct rt *r, long tokens)
{
    long need;
    if (s->kv.window_groups > 0) {
        /* vLLM's KVCacheManager.allocate_slots: the window groups' blocks that the computed
         * tokens have left are freed first (remove_skipped_blocks), then the step's blocks
         * taken */
        need = sim_kv_held(&s->kv, r->kv, tokens) - r->blocks;
        if (need < 0) {
            in->free_blocks -= need;
            in->given -= need;
            r->blocks += need;
            return true;
        }
    } else {
        if (tokens <= (r->blocks - s->kv.state_blocks) * s->block_tokens) /* the usual decode */
            return true;
        need = nblocks(s, tokens) - r->blocks;
    }
    if (need <= 0)
        return true;
    if (in->free_blocks < need)
        return false;
    take_head(in, need);
    r->blocks += need;
    return true;
}

static void
step_add(struct inst *in, struct rt *r, long id, long tokens)
{
    r->step_new = tokens;
    in->step[in->n_step++] = id;
}

/* Blocks a request may come to hold on `in`: its prompt on a prefill-only instance, else
 * prompt + output (what TensorRT-LLM's GUARANTEED_NO_EVICT reserves). */
static long
promise_of(const struct sim *s, const struct inst *in, long id)
{
    const struct sim_request *q = &s->req[id];
    return in->role == ROLE_PREFILL ? nblocks(s, q->prompt_tokens)
                                    : sim_kv_peak(&s->kv, q->prompt_tokens, q->output_tokens);
}

/* May `in` take request `id` from its queue in the step being planned (blocks for the chunk
 * itself are checked by the caller)? docs/simulate.md#admission */
static bool
admissible(const struct sim *s, const struct inst *in, long id)
{
    switch (s->cfg->sched.admission) {
    case SIM_ADMIT_NO_EVICT:
        return s->rt[id].promised > 0 ||
               in->promised_blocks + promise_of(s, in, id) <= in->total_blocks;
    case SIM_ADMIT_VLLM:
        return !in->preempted_now;
    case SIM_ADMIT_GREEDY:
    case SIM_ADMIT_SGLANG: /* plan_sglang's own test */
    case SIM_ADMIT_COUNT:
        break;
    }
    return true;
}

static void
admit(struct sim *s, struct inst *in, long id)
{
    struct rt *r = &s->rt[id];
    if (s->cfg->sched.admission == SIM_ADMIT_NO_EVICT && r->promised == 0) {
        r->promised = promise_of(s, in, id);
        in->promised_blocks += r->promised;
    }
    r->state = RS_RUNNING;
    if (isnan(r->admit_s))
        r->admit_s = s->now;
    in->run[in->n_run++] = id;
}

/* A request whose KV is dropped waits to compute its prompt and the tokens it has made again */
static void
drop_kv(struct sim *s, long id)
{
    struct rt *r = &s->rt[id];
    r->blocks = 0;
    r->kv = 0;
    r->need = s->req[id].prompt_tokens + r->generated;
    r->prefilled = 0;
    r->state = RS_WAITING;
}

/* Preempt the most recently admitted running request (vLLM's victim): recompute drops its KV
 * and puts it back at the head of the queue to prefill prompt + generated tokens again; swap
 * moves its blocks to host memory. */
static long
preempt_last(struct sim *s, struct inst *in)
{
    long id = in->run[--in->n_run];
    struct rt *r = &s->rt[id];
    s->preemptions++;
    s->req[id].preemptions++;
    in->preempted_now = true;
    in->promised_blocks -= r->promised;
    r->promised = 0;
    in->free_blocks += r->blocks;
    /* freed in reverse order (vLLM's free_blocks): the prompt's first block goes last, so the
     * prefix outlives the tail in the free queue */
    r->cached_at = in->total_blocks + in->given;
    r->cached_n = s->cfg->sched.preempt == SIM_PREEMPT_RECOMPUTE ? r->blocks : 0;
    in->given += r->blocks;
    if (s->cfg->sched.preempt == SIM_PREEMPT_SWAP) {
        r->host_blocks = r->blocks;
        in->swap_s += (double)r->blocks * s->block_bytes / s->cfg->sched.swap_bytes_per_s;
        s->swapped_blocks += r->blocks;
        r->blocks = 0;
        r->state = RS_SWAPPED;
        if (lq_push_front(&in->swapped, id) != 0)
            fail(s, "out of memory");
    } else {
        drop_kv(s, id);
        if (lq_push_front(&in->waiting, id) != 0)
            fail(s, "out of memory");
    }
    return id;
}

static void
swap_in(struct sim *s, struct inst *in)
{
    while (in->swapped.n > 0 && seats(in) < s->cfg->sched.max_batch) {
        long id = lq_front(&in->swapped);
        struct rt *r = &s->rt[id];
        if (in->free_blocks < r->host_blocks)
            break;
        lq_pop_front(&in->swapped);
        take_head(in, r->host_blocks);
        r->blocks = r->host_blocks;
        in->swap_s += (double)r->host_blocks * s->block_bytes / s->cfg->sched.swap_bytes_per_s;
        r->host_blocks = 0;
        admit(s, in, id);
    }
}

/* Decode slots for every running sequence past its prefill, preempting from the back when the
 * pool runs out; each takes one token of the budget. */
static void
plan_decodes(struct sim *s, struct inst *in, long *budget)
{
    for (long i = 0; i<in->n_run && * budget> 0; i++) {
        long id = in->run[i];
        struct rt *r = &s->rt[id];
        if (r->prefilled < r->need || r->step_new > 0)
            continue;
        bool self = false;
        while (!grow(s, in, r, r->kv + 1)) {
            if (in->n_run - 1 == i) {
                preempt_last(s, in);
                self = true;
                break;
            }
            preempt_last(s, in);
        }
        if (self)
            break;
        step_add(in, r, id, 1);
        (*budget)--;
    }
}

/* The prompt tokens `r` may take from `budget` in a chunked step. */
static long
chunk_want(const struct sim *s, const struct rt *r, long budget)
{
    long rest = r->need - r->prefilled, cap = budget < s->chunk_cap ? budget : s->chunk_cap;
    return rest < cap ? rest : cap;
}

/* The largest chunk <= want whose blocks fit, allocated. */
static long
fit_chunk(struct sim *s, struct inst *in, struct rt *r, long want)
{
    long room = sim_kv_room(&s->kv, r->kv, r->blocks + in->free_blocks) - r->kv;
    long c = want < room ? want : room;
    if (c <= 0)
        return 0;
    grow(s, in, r, r->kv + c);
    return c;
}

/* static: a batch is formed only when the previous one has drained; its blocks are reserved
 * for prompt + output up front, so it never preempts (FasterTransformer-style). */
static void
plan_static(struct sim *s, struct inst *in)
{
    const struct sim_sched *sc = &s->cfg->sched;
    if (in->n_run > 0) {
        for (long i = 0; i < in->n_run; i++)
            step_add(in, &s->rt[in->run[i]], in->run[i], 1);
        return;
    }
    long budget = sc->max_tokens_per_step;
    while (in->waiting.n > 0 && in->n_step < sc->max_batch) {
        long id = lq_front(&in->waiting);
        struct rt *r = &s->rt[id];
        if (r->need > budget && in->n_step > 0)
            break;
        if (!grow(s, in, r, s->req[id].prompt_tokens + s->req[id].output_tokens))
            break;
        lq_pop_front(&in->waiting);
        admit(s, in, id);
        step_add(in, r, id, r->need);
        budget -= r->need;
    }
}

/* vllm: the blocks of a request preempted by recompute that are still in the free queue, as
 * cache hits (vLLM v1's prefix cache, on by default: KVCacheManager.get_computed_blocks). It
 * freed them in reverse order (KVCacheManager.free), so its first block went last and its
 * prefix outlives its tail; the ones at or above the head have not been reused. At most
 * (tokens - 1) / block_size: the last token is always computed again for its logits. */
static long
cached_hits(const struct sim *s, const struct inst *in, const struct rt *r)
{
    if (s->cfg->sched.admission != SIM_ADMIT_VLLM || r->cached_n <= 0 || r->blocks > 0)
        return 0;
    /* a window group's hits follow other rules, and a linear-attention model's need the state
     * at the prefix's end (vLLM's mamba_cache_mode align): not modelled */
    if (s->kv.window_groups > 0 || s->kv.state_blocks > 0)
        return 0;
    long lo = r->cached_at > in->head ? r->cached_at : in->head;
    long h = r->cached_at + r->cached_n - lo, cap = (r->need - 1) / s->block_tokens;
    h = h < cap ? h : cap;
    return h > 0 ? h : 0;
}

/* take back the h blocks of the prefix found by cached_hits: a hole in the free queue */
static int
take_hits(struct sim *s, struct inst *in, struct rt *r, long h)
{
    if (h <= 0)
        return 0;
    if (in->n_holes == in->cap_holes) {
        long cap = in->cap_holes ? 2 * in->cap_holes : 16;
        struct hole *nh = realloc(in->holes, (size_t)cap * sizeof *nh);
        if (!nh)
            return -1;
        in->holes = nh;
        in->cap_holes = cap;
    }
    struct hole x = {r->cached_at + r->cached_n - h, r->cached_at + r->cached_n};
    long k = in->n_holes;
    while (k > 0 && in->holes[k - 1].at > x.at) {
        in->holes[k] = in->holes[k - 1];
        k--;
    }
    in->holes[k] = x;
    in->n_holes++;
    in->free_blocks -= h;
    r->blocks = h;
    r->kv = r->prefilled = h * s->block_tokens;
    return 0;
}

/* vllm (vLLM v1's Scheduler.schedule, vllm/v1/core/sched/scheduler.py; docs/simulate.md#admission):
 * the running requests first, in admission order, each its decode token or its next prompt
 * chunk; one that finds no blocks preempts the most recently admitted (itself last); then, only
 * when nothing was preempted, the waiting queue in order. A waiting request is admitted only
 * when the blocks of its whole remaining input are free after its prefix-cache hits
 * (scheduler_reserve_full_isl), though only its chunk's blocks are taken. Without chunked prefill
 * (`whole`: the continuous policy) a prompt goes into the step whole or waits, and decodes and
 * prompts share the step as they do in vLLM v1 with --no-enable-chunked-prefill. With
 * `prompts_only` (separate_prefill, plan_v1) the running requests' decodes are left out. */
static void
v1_pass(struct sim *s, struct inst *in, bool whole, bool prompts_only)
{
    const struct sim_sched *sc = &s->cfg->sched;
    long budget = sc->max_tokens_per_step;
    for (long i = 0; i < in->n_run && budget > 0; i++) {
        long id = in->run[i];
        struct rt *r = &s->rt[id];
        if (r->step_new > 0 || (prompts_only && r->prefilled >= r->need))
            continue;
        long want = r->prefilled < r->need ? chunk_want(s, r, budget) : 1;
        bool self = false;
        while (!grow(s, in, r, r->kv + want)) {
            self = in->n_run - 1 == i;
            preempt_last(s, in);
            if (self)
                break;
        }
        if (self)
            break;
        step_add(in, r, id, want);
        budget -= want;
    }
    if (in->preempted_now || in->swapped.n > 0)
        return;
    while (budget > 0 && in->waiting.n > 0 && seats(in) < sc->max_batch) {
        long id = lq_front(&in->waiting);
        struct rt *r = &s->rt[id];
        if (unseen(s, in, id))
            break;
        long h = cached_hits(s, in, r);
        long rest = r->need - h * s->block_tokens;
        /* whole prompts: one over the budget waits, unless alone in an empty step (a
         * recomputed prompt + output may exceed a budget its prompt met) */
        bool fits_budget =
            !whole || rest <= budget || (in->n_step == 0 && budget == sc->max_tokens_per_step);
        long cap = budget < s->chunk_cap ? budget : s->chunk_cap;
        long want = whole || rest < cap ? rest : cap;
        /* the hits are free blocks too: taking them removes them from the queue */
        if (!fits_budget || nblocks(s, r->need) > in->free_blocks)
            break;
        if (r->cached_n > 0 && take_hits(s, in, r, h) != 0) {
            fail(s, "out of memory");
            return;
        }
        if (!grow(s, in, r, r->kv + want)) { /* cannot happen: the whole input fits */
            fail(s, "internal error: a KV allocation the admission checked failed");
            return;
        }
        r->cached_n = 0;
        lq_pop_front(&in->waiting);
        admit(s, in, id);
        step_add(in, r, id, want);
        budget -= want;
    }
}

/* Prompt work for the next step: a running request's prompt in progress, or the head of the
 * waiting queue admissible now (the test of v1_pass's waiting loop). */
static bool
v1_prompt_work(const struct sim *s, const struct inst *in)
{
    for (long i = 0; i < in->n_run; i++) {
        const struct rt *r = &s->rt[in->run[i]];
        if (r->prefilled < r->need)
            return true;
    }
    if (in->swapped.n > 0 || in->waiting.n == 0 || seats(in) >= s->cfg->sched.max_batch ||
        unseen(s, in, lq_front(&in->waiting)))
        return false;
    return nblocks(s, s->rt[lq_front(&in->waiting)].need) <= in->free_blocks;
}

/* vllm admission: one step of vLLM v1's scheduler (v1_pass). With separate_prefill (SGLang:
 * Scheduler.get_next_batch_to_run runs a prefill batch whenever get_new_batch_prefill forms one
 * and decodes otherwise; a prompt chunk shares a step with decodes only with
 * --enable-mixed-chunk, off by default: ServerArgs.enable_mixed_chunk) a step that has prompt
 * work takes only prompts, and the decodes wait for the next step. */
static void
plan_v1(struct sim *s, struct inst *in, bool whole)
{
    swap_in(s, in);
    if (s->cfg->sched.separate_prefill && v1_prompt_work(s, in)) {
        v1_pass(s, in, whole, true);
        if (in->n_step > 0 || in->preempted_now)
            return;
    }
    v1_pass(s, in, whole, false);
}

/* sglang admission (docs/simulate.md#admission): SGLang's scheduler, read in its code
 * (python/sglang/srt/managers/scheduler.py, schedule_policy.py, schedule_batch.py and
 * environ.py; the rules are the same from v0.4 through the v0.5 line that includes 0.5.9).
 * new_token_ratio starts at SGLANG_INIT_NEW_TOKEN_RATIO 0.7 x --schedule-conservativeness (1 by
 * default), falls by (init - min) / SGLANG_NEW_TOKEN_RATIO_DECAY_STEPS (600) each decode step to
 * init x SGLANG_MIN_NEW_TOKEN_RATIO_FACTOR (0.14), and goes back to init when the scheduler is
 * idle (NewTokenRatioTracker); a request's remaining output counts at most
 * SGLANG_CLIP_MAX_NEW_TOKENS_ESTIMATION (4096) tokens; a retraction sets the ratio to
 * (decoded + SGLANG_RETRACT_DECODE_STEPS (20) x requests) / (their max_new_tokens + 1), at most 1,
 * over the requests that stay (estimate_new_token_ratio_after_retract). */
#define SG_INIT_RATIO 0.7
#define SG_MIN_RATIO (SG_INIT_RATIO * 0.14)
#define SG_DECAY ((SG_INIT_RATIO - SG_MIN_RATIO) / 600.0)
#define SG_CLIP 4096L
#define SG_RETRACT_STEPS 20.0

/* a request's output still to come, as PrefillAdder counts it: min(max_new_tokens - its
 * output, the clip); the scenario's output length stands for max_new_tokens (a benchmark
 * client's max_tokens with ignore_eos) */
static long
sg_remaining(const struct sim *s, long id)
{
    long left = s->req[id].output_tokens - s->rt[id].generated;
    left = left > 0 ? left : 0;
    return left < SG_CLIP ? left : SG_CLIP;
}

/* ScheduleBatch.retract_decode: the running request with the fewest output tokens (of those,
 * the longest prompt) goes back to the end of the waiting queue, its KV freed, to be computed
 * again with the tokens it had generated (Scheduler._add_request_to_queue: FCFS, no sort) */
static void
sg_retract(struct sim *s, struct inst *in)
{
    long v = -1;
    for (long i = 0; i < in->n_run; i++) {
        long id = in->run[i];
        const struct rt *r = &s->rt[id];
        if (r->prefilled < r->need)
            continue;
        if (v < 0) {
            v = i;
            continue;
        }
        const struct rt *b = &s->rt[in->run[v]];
        /* sorted by (output tokens, -prompt tokens) descending, stable, and popped from the
         * end: the fewest outputs, then the longest prompt, then the latest in the batch */
        if (r->generated < b->generated ||
            (r->generated == b->generated &&
             s->req[id].prompt_tokens >= s->req[in->run[v]].prompt_tokens))
            v = i;
    }
    if (v < 0)
        return;
    long id = in->run[v];
    memmove(in->run + v, in->run + v + 1, (size_t)(in->n_run - v - 1) * sizeof *in->run);
    in->n_run--;
    struct rt *r = &s->rt[id];
    s->preemptions++;
    s->req[id].preemptions++;
    in->free_blocks += r->blocks;
    in->given += r->blocks;
    drop_kv(s, id);
    if (lq_push_back(&in->waiting, id) != 0)
        fail(s, "out of memory");
}

/* blocks the running requests' next decode takes (ScheduleBatch.check_decode_mem: a token
 * each) */
static long
sg_decode_blocks(const struct sim *s, const struct inst *in, long *decoding)
{
    long need = 0, n = 0;
    for (long i = 0; i < in->n_run; i++) {
        const struct rt *r = &s->rt[in->run[i]];
        if (r->prefilled < r->need)
            continue;
        n++;
        need += nblocks(s, r->kv + 1) - r->blocks;
    }
    *decoding = n;
    return need;
}

/* SGLang's Scheduler.get_next_batch_to_run: a prefill batch whenever get_new_batch_prefill forms
 * one (it runs alone: no decodes without --enable-mixed-chunk), else a decode of the running
 * batch (update_running_batch).
 * The prefill batch (PrefillAdder): the request being chunked continues first
 * (add_chunked_req), then the waiting queue in order (FCFS) while seats last. A waiting request
 * is admitted when its input plus its remaining output (sg_remaining) is below the free tokens
 * less the offset: every running request's sg_remaining x new_token_ratio, and every request of
 * this batch's chunk plus, when the chunk ends its prompt, its sg_remaining in full
 * (add_one_req's NO_TOKEN, which sets batch_is_full: no prefill is tried again until the running
 * batch shrinks, update_running_batch). A prompt that is not below what is left of the batch's
 * input tokens (--max-prefill-tokens, sched.max_prefill_tokens) waits unless it is the batch's
 * first; one larger than what is left of the step's budget (--chunked-prefill-size) is cut to it
 * and ends the batch (chunked prefill). Under data-parallel attention each rank forms its own
 * batch: a prompt is cut at a rank's share of the budget, the input limit is each rank's, and
 * the batch ends at the ranks' count of cut or first prompts.
 * The decode: when the pool cannot take a token for every running request, requests are
 * retracted (sg_retract) until it can, and the ratio is re-estimated; else it decays. */
static void
plan_sglang(struct sim *s, struct inst *in)
{
    const struct sim_sched *sc = &s->cfg->sched;
    long budget = sc->max_tokens_per_step;
    /* --max-prefill-tokens is each rank's (its own PrefillAdder) */
    long input = sc->max_prefill_tokens > 0 ? sc->max_prefill_tokens * s->ranks : budget;
    int cut = 0; /* prompts cut in this batch: one a rank (each rank's chunked request) */
    bool chunk = false;
    for (long i = 0; i < in->n_run; i++)
        chunk |= s->rt[in->run[i]].prefilled < s->rt[in->run[i]].need;
    if (in->n_run == 0)
        in->sg_full = false;
    if (chunk || (!in->sg_full && in->waiting.n > 0)) {
        /* the pool's free tokens when the batch is formed (PrefillAdder allocates nothing
         * until the batch is built: its own tokens count through the offset) */
        double free0 = (double)in->free_blocks * (double)s->block_tokens, offset = 0;
        bool decoding = false;
        for (long i = 0; i < in->n_run; i++) {
            long id = in->run[i];
            const struct rt *r = &s->rt[id];
            if (r->prefilled >= r->need) {
                offset += (double)sg_remaining(s, id) * in->sg_ratio;
                decoding = true;
            }
        }
        for (long i = 0; i < in->n_run && budget > 0; i++) {
            long id = in->run[i];
            struct rt *r = &s->rt[id];
            if (r->prefilled >= r->need)
                continue;
            long want = chunk_want(s, r, budget);
            if (!grow(s, in, r, r->kv + want))
                break;
            step_add(in, r, id, want);
            cut += r->prefilled + want < r->need;
            budget -= want;
            input -= want;
            offset += (double)want + (r->prefilled + want == r->need ? sg_remaining(s, id) : 0);
        }
        while (budget > 0 && input > 0 && in->waiting.n > 0) {
            /* batch_is_full is the running batch's flag: set on an empty one it is lost when
             * this prefill batch becomes the running batch (get_next_batch_to_run) */
            if (seats(in) >= sc->max_batch) {
                in->sg_full = decoding;
                break;
            }
            long id = lq_front(&in->waiting);
            struct rt *r = &s->rt[id];
            if (unseen(s, in, id))
                break;
            long rest = r->need - r->prefilled;
            if ((double)(rest + sg_remaining(s, id)) >= free0 - offset) {
                in->sg_full = decoding;
                break;
            }
            /* each rank's first prompt is taken whatever its size (a batch a rank) */
            if (rest >= input && in->n_step >= s->ranks)
                break;
            if (cut >= s->ranks)
                break;
            long want = chunk_want(s, r, budget);
            if (!grow(s, in, r, r->kv + want))
                break;
            lq_pop_front(&in->waiting);
            admit(s, in, id);
            step_add(in, r, id, want);
            budget -= want;
            input -= want;
            offset += (double)want + (want == rest ? sg_remaining(s, id) : 0);
            if (want < rest && ++cut >= s->ranks)
                break;
        }
        if (in->n_step > 0)
            return;
    }
    long n;
    if (sg_decode_blocks(s, in, &n) > in->free_blocks && n > 0) {
        while (n > 1 && sg_decode_blocks(s, in, &n) > in->free_blocks) {
            sg_retract(s, in);
            n--;
        }
        double out = 0, max_new = 0, k = 0;
        for (long i = 0; i < in->n_run; i++) {
            long id = in->run[i];
            if (s->rt[id].prefilled < s->rt[id].need)
                continue;
            out += (double)s->rt[id].generated;
            max_new += (double)s->req[id].output_tokens;
            k++;
        }
        double est = (out + SG_RETRACT_STEPS * k) / (max_new + 1);
        in->sg_ratio = est < 1 ? est : 1;
        in->sg_full = false;
    } else if (n > 0) {
        in->sg_ratio =
            in->sg_ratio - SG_DECAY > SG_MIN_RATIO ? in->sg_ratio - SG_DECAY : SG_MIN_RATIO;
    }
    for (long i = 0; i < in->n_run; i++) {
        long id = in->run[i];
        struct rt *r = &s->rt[id];
        if (r->prefilled < r->need)
            continue;
        if (!grow(s, in, r, r->kv + 1))
            break; /* the last request alone: it fits (checked at arrival) */
        step_add(in, r, id, 1);
    }
    if (in->n_step == 0)
        in->sg_ratio = SG_INIT_RATIO; /* the scheduler is idle: NewTokenRatioTracker.reset */
}

/* continuous under the no_evict and greedy admissions (Orca's iteration-level batching, vLLM
 * v0's scheduler without chunked prefill; vllm admission mixes as vLLM v1 does: plan_v1):
 * swapped-out requests come back first; otherwise waiting prompts are admitted whole while
 * seats, budget and blocks last, and such a step is prefill only; else every running sequence
 * decodes one token. */
static void
plan_continuous(struct sim *s, struct inst *in)
{
    const struct sim_sched *sc = &s->cfg->sched;
    swap_in(s, in);
    if (in->swapped.n == 0) {
        long budget = sc->max_tokens_per_step;
        while (in->waiting.n > 0 && seats(in) < sc->max_batch) {
            long id = lq_front(&in->waiting);
            struct rt *r = &s->rt[id];
            long tokens = r->need - r->prefilled;
            if (unseen(s, in, id))
                break;
            /* a recomputed request may exceed the budget: it goes alone */
            if (tokens > budget && in->n_step > 0)
                break;
            if (!admissible(s, in, id))
                break;
            if (!grow(s, in, r, r->need))
                break;
            lq_pop_front(&in->waiting);
            admit(s, in, id);
            step_add(in, r, id, tokens);
            budget -= tokens;
        }
        if (in->n_step > 0)
            return;
    }
    long budget = sc->max_batch;
    plan_decodes(s, in, &budget);
}

/* chunked prefill (Sarathi-Serve, vLLM v1): decodes first, then the prompts in progress, then
 * new prompts, in chunks that fill the step's token budget. The prefill instances of a
 * disaggregated system use it with no decodes; the decode instances for their decodes and any
 * prompt recomputed after a preemption. */
static void
plan_chunked(struct sim *s, struct inst *in)
{
    const struct sim_sched *sc = &s->cfg->sched;
    long budget = sc->max_tokens_per_step;
    swap_in(s, in);
    plan_decodes(s, in, &budget);
    for (long i = 0; i < in->n_run && budget > 0; i++) {
        long id = in->run[i];
        struct rt *r = &s->rt[id];
        if (r->prefilled >= r->need || r->step_new > 0)
            continue;
        long c = fit_chunk(s, in, r, chunk_want(s, r, budget));
        if (c <= 0)
            break;
        step_add(in, r, id, c);
        budget -= c;
    }
    if (in->swapped.n > 0)
        return;
    while (budget > 0 && in->waiting.n > 0 && seats(in) < sc->max_batch) {
        long id = lq_front(&in->waiting);
        struct rt *r = &s->rt[id];
        long want = chunk_want(s, r, budget);
        if (unseen(s, in, id))
            break;
        if (!admissible(s, in, id))
            break;
        long c = fit_chunk(s, in, r, want);
        if (c <= 0)
            break;
        lq_pop_front(&in->waiting);
        admit(s, in, id);
        step_add(in, r, id, c);
        budget -= c;
    }
}

/* One step's plan; without `unblock` a plan that finds nothing to run is left empty. */
static void
plan_step(struct sim *s, struct inst *in, bool unblock)
{
    in->n_step = 0;
    in->swap_s = 0;
    in->preempted_now = false;
    enum sim_policy p = s->cfg->sched.policy;
    for (int guard = 0; guard < (unblock ? 1000000 : 1); guard++) {
        long before = s->preemptions;
        if (in->n_run == 0) /* nothing running: the queue may come in (vLLM's next step) */
            in->preempted_now = false;
        if (s->cfg->sched.admission == SIM_ADMIT_SGLANG && p != SIM_STATIC && in->role == ROLE_ALL)
            plan_sglang(s, in);
        else if (s->cfg->sched.admission == SIM_ADMIT_VLLM && p != SIM_STATIC)
            plan_v1(s, in, p == SIM_CONTINUOUS && in->role == ROLE_ALL);
        else if (in->role != ROLE_ALL || p == SIM_CHUNKED)
            plan_chunked(s, in);
        else if (p == SIM_STATIC)
            plan_static(s, in);
        else
            plan_continuous(s, in);
        if (in->n_step > 0 || p == SIM_STATIC)
            return;
        /* nothing could run: sequences that all wait for blocks another holds free the newest
         * and try again; a preemption that emptied the batch lets the queue in */
        if (!unblock)
            return;
        if (in->n_run > 0)
            preempt_last(s, in);
        else if (s->preemptions == before)
            return;
    }
}

/* asynchronous scheduling: the step planned ahead is planned; what the step before it finished
 * is now removed (vLLM's update_from_output frees it after scheduling the next step) */
static void
release_held(struct inst *in)
{
    in->free_blocks += in->held_blocks;
    in->given += in->held_blocks;
    in->promised_blocks -= in->held_promised;
    in->held_blocks = in->held_seats = in->held_promised = 0;
    in->lookahead = false;
}

/* The next step of `in`. Under asynchronous scheduling a step that follows another without a
 * pause is planned as vLLM's AsyncScheduler planned it, while the other ran (struct inst,
 * lookahead); if that plan is empty the engine waits for the step's outputs and plans again
 * with them, as vLLM's engine core does when its scheduler returns no work. */
static void
plan(struct sim *s, struct inst *in)
{
    if (in->lookahead) {
        plan_step(s, in, false);
        release_held(in);
        if (in->n_step > 0)
            return;
    }
    plan_step(s, in, true);
}

/* ---- statistics at step start ---- */

static void
timeline_sample(struct sim *s, const struct inst *step_inst, long batch)
{
    if (s->tl_count++ % s->tl_stride != 0)
        return;
    if (s->n_tl == s->cap_tl) {
        /* keep every other sample and halve the rate: memory stays bounded */
        int k = 0;
        for (int i = 0; i < s->n_tl; i += 2)
            s->tl[k++] = s->tl[i];
        s->n_tl = k;
        s->tl_stride *= 2;
        if ((s->tl_count - 1) % s->tl_stride != 0)
            return;
    }
    double queued = 0, running = 0, used = 0, total = 0;
    for (int i = 0; i < s->n_inst; i++) {
        const struct inst *in = &s->inst[i];
        queued += (double)(in->waiting.n + in->intake.n + in->swapped.n + in->pending.n);
        running += (double)in->n_run;
        used += (double)(in->total_blocks - in->free_blocks);
        total += (double)in->total_blocks;
    }
    unsigned char kind = step_inst->role == ROLE_PREFILL  ? SIM_STEP_PREFILL
                         : step_inst->role == ROLE_DECODE ? SIM_STEP_DECODE
                                                          : SIM_STEP_MIXED;
    struct sim_timeline_point p = {s->now, queued, running, (double)batch, used / total, kind};
    s->tl[s->n_tl++] = p;
}

/* ---- steps ---- */

static int
push(struct sim *s, double t, enum sim_event_kind k, int inst, long subject)
{
    if (sim_heap_push(&s->heap, t, k, inst, subject) != 0) {
        fail(s, "out of memory");
        return -1;
    }
    return 0;
}

static double
step_time(struct sim *s, struct inst *in, double *issue)
{
    /* decodes aggregate exactly into two groups: roof_step is linear in the past tokens
     * except where a sliding window caps them (scalar sums: no store-to-load chain) */
    long dn0 = 0, dn1 = 0, dp0 = 0, dp1 = 0;
    long n = 0;
    for (long k = 0; k < in->n_step; k++) {
        const struct rt *r = &s->rt[in->step[k]];
        if (r->prefilled >= r->need) {
            if (s->window_tokens > 0 && r->kv + 1 >= s->window_tokens) {
                dn1++;
                dp1 += r->kv;
            } else {
                dn0++;
                dp0 += r->kv;
            }
        } else {
            struct roof_seq q = {1, (double)r->step_new, (double)r->prefilled,
                                 r->prefilled + r->step_new == r->need};
            s->seqs[n++] = q;
        }
    }
    double dn[2] = {(double)dn0, (double)dn1}, dp[2] = {(double)dp0, (double)dp1};
    for (int g = 0; g < 2; g++)
        if (dn[g] > 0) {
            struct roof_seq q = {dn[g], 1, dp[g] / dn[g], true};
            s->seqs[n++] = q;
        }
    struct sim_cost *cost = in->role == ROLE_DECODE && s->decode_cost ? s->decode_cost : s->cost;
    double t = sim_cost_step_issue(cost, s->seqs, (int)n, issue);
    if (!(t > 0)) {
        fail(s, "the engine model cannot evaluate a step of this batch");
        return -1;
    }
    return t + in->swap_s;
}

/* sched.recv_interval: the scheduler polls its input; what arrived while it was busy joins the
 * waiting queue in arrival order (SGLang's Scheduler.recv_requests) */
static void
poll_intake(struct sim *s, struct inst *in)
{
    while (in->intake.n > 0) {
        if (lq_push_back(&in->waiting, lq_front(&in->intake)) != 0) {
            fail(s, "out of memory");
            return;
        }
        lq_pop_front(&in->intake);
    }
    in->recv_count = 0;
}

/* SGLang's Scheduler.event_loop_overlap launches the next batch (run_batch) before it processes
 * the result of the one that ended (pop_and_process), so the first tokens of a step reach the
 * client only when the host has issued the next step; with eager prompt work that is
 * the issue time sim_cost_step_issue gives (docs/simulate.md#sglangs-time-to-first-token), with
 * graphs a few microseconds, left out. The client's next token comes when it comes: the first one's
 * time moves, not the stream's. */
static void
deliver_late(struct sim *s, struct inst *in, double issue)
{
    for (long k = 0; k < in->n_run; k++) {
        struct rt *r = &s->rt[in->run[k]];
        if (r->state == RS_RUNNING && r->generated == 1 && r->first_token_s == s->now) {
            r->first_token_s += issue;
            r->last_token_s += issue;
        }
    }
}

static void
try_start(struct sim *s, int i)
{
    struct inst *in = &s->inst[i];
    if (in->busy || s->failed)
        return;
    plan(s, in);
    if (in->n_step == 0 && in->intake.n > 0) {
        /* nothing to run: the idle loop polls at once (its idle passes weigh 1 each and take
         * microseconds) */
        poll_intake(s, in);
        plan(s, in);
    }
    if (in->n_step == 0)
        return;
    /* the step that just ended gave first tokens: planned ahead, this one is launched before
     * they are handed out */
    bool late = s->async && in->fresh_s == s->now;
    double issue = 0;
    double dt = step_time(s, in, late ? &issue : NULL);
    if (dt < 0)
        return;
    if (issue > 0)
        deliver_late(s, in, issue);
    if (++s->steps > SIM_MAX_STEPS) {
        fail(s, "the simulation did not finish within its step limit (10^10 engine steps)");
        return;
    }
    tw_idle(s, in);
    in->busy = true;
    in->busy_s += dt;
    in->step_start_s = s->now;
    long b = in->n_step < s->batch_hist_n ? in->n_step : s->batch_hist_n - 1;
    s->batch_hist[b]++;
    if (s->have_w0) {
        twhist_add(&s->tw_batch, b, dt);
        twhist_add(&s->tw_kv, (long)floor(kv_occ(in) * 1000.0 + 0.5), dt);
    }
    lhist_add(&s->step_time, dt);
    timeline_sample(s, in, in->n_step);
    push(s, s->now + dt, SIM_EV_STEP_DONE, i, 0);
}

/* An instance plans its next step once every event of the current instant has been applied,
 * so requests arriving together are batched together. */
static void
kick(struct sim *s, int i)
{
    s->inst[i].kicked = true;
}

static void schedule_user(struct sim *s, int user);

static bool meets_slo(const struct sim_slo *slo, const struct sim_request *q);

/* A request leaves (finished or rejected): its figures are derived, counted, handed to
 * on_request, kept when asked, and its slot is freed for the next arrival. */
static void
retire(struct sim *s, long id)
{
    const struct sim_slo *slo = &s->cfg->slo;
    struct sim_request *q = &s->req[id];
    const struct rt *r = &s->rt[id];
    if (q->status == SIM_REQ_DONE) {
        q->instance = r->inst;
        q->queue_s = r->admit_s - q->arrival_s;
        q->ttft_s = r->first_token_s - q->arrival_s;
        q->e2e_s = q->finish_s - q->arrival_s;
        q->tpot_s = q->output_tokens > 1
                        ? (q->finish_s - r->first_token_s) / (double)(q->output_tokens - 1)
                        : NAN;
        s->completed++;
        s->sojourn += q->e2e_s;
    } else {
        s->rejected++;
        s->rejected_by[q->reject]++;
    }
    q->slo_met = (slo->ttft_s > 0 || slo->itl_s > 0 || slo->e2e_s > 0) && meets_slo(slo, q);
    if (!q->warmup) {
        s->measured++;
        if (q->slo_met)
            s->met++;
        if (q->status == SIM_REQ_DONE) {
            long cap = s->cfg->exact_cap > 0 ? s->cfg->exact_cap : SIM_EXACT_CAP;
            int bad = lat_add(&s->lat[0], q->ttft_s, cap);
            if (q->output_tokens > 1)
                bad |= lat_add(&s->lat[1], q->tpot_s, cap);
            bad |= lat_add(&s->lat[2], q->e2e_s, cap);
            bad |= lat_add(&s->lat[3], q->queue_s, cap);
            if (bad)
                fail(s, "out of memory");
        }
    }
    if (s->cfg->on_request)
        s->cfg->on_request(s->cfg->on_request_ctx, q);
    if (!s->cfg->discard_requests) {
        if (q->id >= s->cap_kept) {
            long cap = s->cap_kept ? 2 * s->cap_kept : 1024;
            while (cap <= q->id)
                cap *= 2;
            struct sim_request *nk = realloc(s->kept, (size_t)cap * sizeof *nk);
            if (!nk) {
                fail(s, "out of memory");
                return;
            }
            s->kept = nk;
            s->cap_kept = cap;
        }
        s->kept[q->id] = *q;
    }
    s->free_slots[s->n_free++] = id;
}

static void
finish(struct sim *s, long id)
{
    struct rt *r = &s->rt[id];
    struct inst *in = &s->inst[r->inst];
    if (s->async) { /* kept until the step planned ahead is planned (release_held) */
        in->held_blocks += r->blocks;
        in->held_promised += r->promised;
        in->held_seats++;
    } else {
        in->free_blocks += r->blocks;
        in->given += r->blocks;
        in->promised_blocks -= r->promised;
    }
    r->blocks = 0;
    r->promised = 0;
    r->state = RS_DONE;
    s->req[id].status = SIM_REQ_DONE;
    s->req[id].finish_s = s->now;
    s->n_done++;
    if (!s->req[id].warmup)
        snapshot(s, &s->w1);
    area_to_now(s);
    s->in_system--;
    if (s->cfg->work.process == SIM_CLOSED)
        schedule_user(s, r->user);
    retire(s, id);
}

static void
emit_token(struct sim *s, long id)
{
    struct rt *r = &s->rt[id];
    r->generated++;
    s->tok_out++;
    if (r->generated == 1) {
        s->tok_in += (double)s->req[id].prompt_tokens;
        r->first_token_s = s->now;
        s->inst[r->inst].fresh_s = s->now;
    } else {
        double gap = s->now - r->last_token_s;
        if (!s->req[id].warmup)
            lhist_add(&s->itl, gap);
        if (gap > s->req[id].max_itl_s || isnan(s->req[id].max_itl_s))
            s->req[id].max_itl_s = gap;
    }
    r->last_token_s = s->now;
    if (r->generated >= s->req[id].output_tokens)
        finish(s, id);
}

/* disaggregated: decode instance `d` takes prompts whose prefill is done, while it has seats
 * and blocks, and pulls their KV over the sender's link (one transfer at a time per sender) */
static void
disagg_admit(struct sim *s, int d)
{
    struct inst *in = &s->inst[d];
    while (in->pending.n > 0 && in->n_run + in->n_xfer < s->cfg->sched.max_batch) {
        long id = lq_front(&in->pending);
        struct rt *r = &s->rt[id];
        long kv = r->kv;
        long had = r->blocks;
        long had_promise = r->promised;
        r->promised = 0;
        if (!admissible(s, in, id)) {
            r->promised = had_promise;
            break;
        }
        r->blocks = 0;
        if (!grow(s, in, r, kv)) {
            r->blocks = had;
            r->promised = had_promise;
            break;
        }
        lq_pop_front(&in->pending);
        r->src_blocks = had;
        r->src_promised = had_promise;
        if (s->cfg->sched.admission == SIM_ADMIT_NO_EVICT) {
            r->promised = promise_of(s, in, id);
            in->promised_blocks += r->promised;
        }
        r->state = RS_TRANSFER;
        r->inst = d;
        in->n_xfer++;
        struct inst *src = &s->inst[r->src];
        double t0 = s->now > src->link_free_s ? s->now : src->link_free_s;
        double dt = (double)kv * s->kv_token_bytes / s->link_bytes_per_s + s->link_latency_s;
        src->link_free_s = t0 + dt;
        push(s, t0 + dt, SIM_EV_TRANSFER_DONE, d, id);
    }
}

static int
pick_decode(const struct sim *s)
{
    int best = -1;
    long load = 0;
    for (int i = 0; i < s->n_inst; i++) {
        const struct inst *in = &s->inst[i];
        if (in->role != ROLE_DECODE)
            continue;
        long l = in->n_run + in->n_xfer + (long)in->pending.n + (long)in->waiting.n +
                 (long)in->swapped.n;
        if (best < 0 || l < load) {
            best = i;
            load = l;
        }
    }
    return best;
}

static void
step_done(struct sim *s, int i)
{
    struct inst *in = &s->inst[i];
    if (s->async) { /* the next step was planned when this one started */
        in->lookahead = true;
        in->cutoff_s = in->step_start_s;
    }
    in->busy = false;
    in->idle_since_s = s->now;
    s->busy_done += s->now - in->step_start_s;
    bool handed = false, left = false, prompt_work = false;
    for (long k = 0; k < in->n_step; k++) {
        long id = in->step[k];
        struct rt *r = &s->rt[id];
        long n = r->step_new;
        r->step_new = 0;
        if (r->state != RS_RUNNING)
            continue;
        if (r->prefilled < r->need) {
            prompt_work = true;
            if (r->kv < r->kv_high) { /* again, after a preemption */
                long again = (r->kv + n < r->kv_high ? r->kv + n : r->kv_high) - r->kv;
                s->recomputed += (double)again;
                s->req[id].recomputed_tokens += again;
            }
            r->prefilled += n;
            r->kv += n;
            if (r->kv > r->kv_high)
                r->kv_high = r->kv;
            if (r->prefilled < r->need)
                continue;
            if (in->role == ROLE_PREFILL && s->req[id].output_tokens > 1) {
                /* the first token travels with the KV: it is delivered by the decode side */
                r->generated = 1;
                r->state = RS_PENDING;
                r->src = i;
                int d = pick_decode(s);
                if (lq_push_back(&s->inst[d].pending, id) != 0)
                    fail(s, "out of memory");
                handed = left = true;
                continue;
            }
            emit_token(s, id);
        } else {
            r->kv += 1;
            if (r->kv > r->kv_high)
                r->kv_high = r->kv;
            emit_token(s, id);
        }
        left |= r->state != RS_RUNNING;
    }
    in->n_step = 0;
    if (left) {              /* drop the finished and handed-over from the running list, in order */
        in->sg_full = false; /* sglang: update_running_batch resets batch_is_full */
        long w = 0;
        for (long k = 0; k < in->n_run; k++)
            if (s->rt[in->run[k]].state == RS_RUNNING)
                in->run[w++] = in->run[k];
        in->n_run = w;
    }
    /* SGLang's SchedulerRecvSkipper.handle: a decode step weighs 1, any other forward mode
     * (extend, mixed) 1000; the scheduler polls when the sum reaches the interval */
    if (s->cfg->sched.recv_interval > 1) {
        in->recv_count += prompt_work ? 1000 : 1;
        if (in->recv_count >= s->cfg->sched.recv_interval)
            poll_intake(s, in);
    }
    if (handed || s->cfg->sched.policy == SIM_DISAGGREGATED)
        for (int d = 0; d < s->n_inst; d++)
            if (s->inst[d].role == ROLE_DECODE) {
                disagg_admit(s, d);
                kick(s, d);
            }
    kick(s, i);
}

static void
transfer_done(struct sim *s, int d, long id)
{
    struct rt *r = &s->rt[id];
    struct inst *in = &s->inst[d];
    struct inst *src = &s->inst[r->src];
    src->free_blocks += r->src_blocks;
    src->given += r->src_blocks;
    r->src_blocks = 0;
    src->promised_blocks -= r->src_promised;
    r->src_promised = 0;
    in->n_xfer--;
    r->state = RS_RUNNING;
    in->run[in->n_run++] = id;
    r->first_token_s = s->now;
    r->last_token_s = s->now;
    s->tok_out++;
    s->tok_in += (double)s->req[id].prompt_tokens;
    kick(s, r->src);
    kick(s, d);
}

/* ---- arrivals ---- */

/* a free slot for a new request (reused from retired ones first), or -1 */
static long
alloc_slot(struct sim *s)
{
    if (s->n_free > 0)
        return s->free_slots[--s->n_free];
    if (s->n_req == s->cap_req) {
        long cap = s->cap_req ? 2 * s->cap_req : 1024;
        struct sim_request *nr = realloc(s->req, (size_t)cap * sizeof *nr);
        if (!nr)
            return -1;
        s->req = nr;
        struct rt *nt = realloc(s->rt, (size_t)cap * sizeof *nt);
        if (!nt)
            return -1;
        s->rt = nt;
        long *nf = realloc(s->free_slots, (size_t)cap * sizeof *nf);
        if (!nf)
            return -1;
        s->free_slots = nf;
        s->cap_req = cap;
    }
    return s->n_req++;
}

static bool
more_arrivals(const struct sim *s, double t)
{
    const struct sim_workload *w = &s->cfg->work;
    if (w->requests > 0 && s->arrivals >= w->requests)
        return false;
    if (w->duration_s > 0 && t > w->duration_s)
        return false;
    if (w->process == SIM_TRACE && s->arrivals >= w->trace->n)
        return false;
    return true;
}

static void
schedule_user(struct sim *s, int user)
{
    const struct sim_workload *w = &s->cfg->work;
    if (w->requests > 0 && s->submitted >= w->requests)
        return;
    double t = s->now + sim_gen_think(&s->gen);
    if (w->duration_s > 0 && t > w->duration_s)
        return;
    s->submitted++;
    push(s, t, SIM_EV_ARRIVAL, 0, user);
}

static void
next_open_arrival(struct sim *s)
{
    const struct sim_workload *w = &s->cfg->work;
    double t = w->process == SIM_TRACE
                   ? (s->arrivals < w->trace->n ? w->trace->rows[s->arrivals].arrival_s : 0)
                   : s->now + sim_gen_interarrival(&s->gen);
    if (more_arrivals(s, t))
        push(s, t, SIM_EV_ARRIVAL, 0, -1);
}

static enum sim_reject
check_request(const struct sim *s, long prompt, long output)
{
    const struct sim_sched *sc = &s->cfg->sched;
    if (prompt < 1 || output < 1)
        return SIM_REJ_EMPTY;
    if (s->max_context > 0 && prompt + output > s->max_context)
        return SIM_REJ_CONTEXT;
    for (int i = 0; i < s->n_inst; i++)
        if (sim_kv_peak(&s->kv, prompt, output) > s->inst[i].total_blocks)
            return SIM_REJ_KV;
    if ((sc->policy == SIM_STATIC || sc->policy == SIM_CONTINUOUS) &&
        prompt > sc->max_tokens_per_step)
        return SIM_REJ_BUDGET;
    return SIM_REJ_NONE;
}

static int
route(const struct sim *s)
{
    int best = -1;
    long load = 0;
    for (int i = 0; i < s->n_inst; i++) {
        const struct inst *in = &s->inst[i];
        if (in->role == ROLE_DECODE)
            continue;
        long l = in->n_run + (long)in->waiting.n + (long)in->intake.n + (long)in->swapped.n +
                 in->n_tokenizing;
        if (best < 0 || l < load) {
            best = i;
            load = l;
        }
    }
    return best;
}

/* request `id` reaches the queue of its instance r->inst now */
static void
enqueue(struct sim *s, long id)
{
    struct rt *r = &s->rt[id];
    int i = r->inst;
    struct inst *in = &s->inst[i];
    r->ready_s = s->now;
    /* a scheduler with requests running sees it at its next poll (sched.recv_interval), also
     * when it comes at the end of a step: the poll before the next step has passed by the time
     * a finished request's user sends the next one; an idle scheduler takes it at once */
    bool later = s->cfg->sched.recv_interval > 1 && (in->busy || in->n_run > 0 || in->intake.n > 0);
    if (lq_push_back(later ? &in->intake : &in->waiting, id) != 0) {
        fail(s, "out of memory");
        return;
    }
    kick(s, i);
}

static void
arrival(struct sim *s, long subject)
{
    const struct sim_workload *w = &s->cfg->work;
    if (s->n_arrived >= SIM_MAX_REQUESTS) {
        fail(s, "the run goes beyond 100000000 requests (the simulator's limit, SIM_MAX_REQUESTS):"
                " set 'run.requests' or a shorter 'run.duration'");
        return;
    }
    long id = alloc_slot(s);
    if (id < 0) {
        fail(s, "out of memory");
        return;
    }
    s->arrivals++;
    struct sim_request *q = &s->req[id];
    struct rt *r = &s->rt[id];
    memset(q, 0, sizeof *q);
    memset(r, 0, sizeof *r);
    q->id = s->n_arrived++;
    q->arrival_s = s->now;
    sim_gen_lengths(&s->gen, q->id, &q->prompt_tokens, &q->output_tokens);
    q->warmup = q->id < w->warmup_requests || s->now < w->warmup_s;
    q->queue_s = q->ttft_s = q->tpot_s = q->e2e_s = q->max_itl_s = NAN;
    r->admit_s = r->first_token_s = r->last_token_s = NAN;
    r->user = (int)subject;
    r->need = q->prompt_tokens;
    q->reject = check_request(s, q->prompt_tokens, q->output_tokens);
    if (!q->warmup)
        measured_arrival(s);
    if (w->process != SIM_CLOSED)
        next_open_arrival(s);
    if (q->reject != SIM_REJ_NONE) {
        q->status = SIM_REQ_REJECTED;
        q->instance = -1;
        q->finish_s = s->now;
        r->state = RS_DONE;
        if (!q->warmup)
            snapshot(s, &s->w1);
        if (w->process == SIM_CLOSED)
            schedule_user(s, (int)subject);
        retire(s, id);
        return;
    }
    area_to_now(s);
    s->in_system++;
    int i = route(s);
    r->inst = i;
    r->state = RS_WAITING;
    /* the server tokenises the text prompt first (docs/simulate.md#tokenisation): a serial
     * tokenizer starts it when it has finished the prompts routed to it before */
    const struct sim_sched *sc = &s->cfg->sched;
    if (sc->tokenize_per_token_s > 0) {
        struct inst *in = &s->inst[i];
        double start =
            sc->tokenize_serial && in->tokenizer_free_s > s->now ? in->tokenizer_free_s : s->now;
        double done = start + sc->tokenize_per_token_s * (double)q->prompt_tokens;
        if (sc->tokenize_serial)
            in->tokenizer_free_s = done;
        in->n_tokenizing++;
        push(s, done, SIM_EV_TOKENIZED, i, id);
        return;
    }
    enqueue(s, id);
}

/* request `id`, tokenised, reaches the queue of its instance */
static void
tokenized(struct sim *s, int i, long id)
{
    s->inst[i].n_tokenizing--;
    enqueue(s, id);
}

/* ---- results ---- */

void
sim_stat_from_sorted(const double *v, long n, struct sim_stat *out)
{
    out->n = n;
    if (n <= 0) {
        out->mean = out->p50 = out->p90 = out->p99 = out->max = NAN;
        return;
    }
    out->mean = gsl_stats_mean(v, 1, (size_t)n);
    out->p50 = gsl_stats_quantile_from_sorted_data(v, 1, (size_t)n, 0.50);
    out->p90 = gsl_stats_quantile_from_sorted_data(v, 1, (size_t)n, 0.90);
    out->p99 = gsl_stats_quantile_from_sorted_data(v, 1, (size_t)n, 0.99);
    out->max = v[n - 1];
}

/* Sorts n finite doubles ascending: an LSD radix sort, four passes of 16 bits over the IEEE
 * bits mapped to an unsigned order (negative: all bits flipped; else the sign bit set), between
 * v itself and one buffer of n words; about 5x faster than gsl_sort's heapsort at 10^6 samples.
 * Returns -1 (v untouched) when out of memory. */
static int
sort_doubles(double *v, long n)
{
    uint64_t *b = malloc((size_t)n * sizeof *b);
    size_t *count = malloc(65536 * sizeof *count);
    if (!b || !count) {
        free(b);
        free(count);
        return -1;
    }
    uint64_t *a = (uint64_t *)(void *)v, u; /* v's storage, read and written with memcpy */
    for (long i = 0; i < n; i++) {
        memcpy(&u, &v[i], sizeof u);
        u = u >> 63 ? ~u : u | (UINT64_C(1) << 63);
        memcpy(&a[i], &u, sizeof u);
    }
    for (int shift = 0; shift < 64; shift += 16) {
        uint64_t *from = shift % 32 == 0 ? a : b, *to = shift % 32 == 0 ? b : a;
        memset(count, 0, 65536 * sizeof *count);
        for (long i = 0; i < n; i++) {
            memcpy(&u, &from[i], sizeof u);
            count[(u >> shift) & 0xffff]++;
        }
        size_t sum = 0;
        for (long d = 0; d < 65536; d++) {
            size_t c = count[d];
            count[d] = sum;
            sum += c;
        }
        for (long i = 0; i < n; i++) {
            memcpy(&u, &from[i], sizeof u);
            memcpy(&to[count[(u >> shift) & 0xffff]++], &u, sizeof u);
        }
    }
    for (long i = 0; i < n; i++) { /* four passes: back in v */
        memcpy(&u, &a[i], sizeof u);
        u = u >> 63 ? u & ~(UINT64_C(1) << 63) : ~u;
        memcpy(&v[i], &u, sizeof u);
    }
    free(b);
    free(count);
    return 0;
}

static int
cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

/* below this many samples the radix sort's four passes over 65,536 counters cost more than
 * the samples (a plan's 1,500-request runs: 2.1 million instructions a metric, qsort 0.3) */
#define SORT_RADIX_MIN 16384

static bool
all_finite(const double *v, long n)
{
    for (long i = 0; i < n; i++)
        if (!isfinite(v[i]))
            return false;
    return true;
}

static void
stat_of(double *v, long n, struct sim_stat *out)
{
    if (n > 1 && n < SORT_RADIX_MIN && all_finite(v, n))
        qsort(v, (size_t)n, sizeof *v, cmp_double);
    else if (n > 1 && sort_doubles(v, n) != 0)
        gsl_sort(v, 1, (size_t)n);
    sim_stat_from_sorted(v, n, out);
}

static bool
meets_slo(const struct sim_slo *slo, const struct sim_request *q)
{
    if (q->status != SIM_REQ_DONE)
        return false;
    if (slo->ttft_s > 0 && !(q->ttft_s <= slo->ttft_s))
        return false;
    if (slo->itl_s > 0 && q->output_tokens > 1 && !(q->tpot_s <= slo->itl_s))
        return false;
    if (slo->e2e_s > 0 && !(q->e2e_s <= slo->e2e_s))
        return false;
    return true;
}

static int
collect(struct sim *s, struct sim_result *out)
{
    const struct sim_slo *slo = &s->cfg->slo;
    bool has_slo = slo->ttft_s > 0 || slo->itl_s > 0 || slo->e2e_s > 0;
    long n = s->n_arrived;
    out->completed = s->completed;
    out->rejected = s->rejected;
    out->measured = s->measured;
    memcpy(out->rejected_by, s->rejected_by, sizeof out->rejected_by);
    double sojourn = s->sojourn;
    long met = s->met;
    long cap = s->cfg->exact_cap > 0 ? s->cfg->exact_cap : SIM_EXACT_CAP;
    lat_stat(&s->lat[0], &out->ttft, cap);
    lat_stat(&s->lat[1], &out->tpot, cap);
    lat_stat(&s->lat[2], &out->e2e, cap);
    lat_stat(&s->lat[3], &out->queue, cap);
    lhist_stat(&s->itl, &out->itl);
    lhist_stat(&s->step_time, &out->step_time);
    if (s->have_w0 && !(s->a1.t > s->w0.t)) {
        /* every measured request arrived at one instant: the statistics cover the run */
        for (int i = 0; i < s->n_inst; i++)
            if (!s->inst[i].busy)
                tw_idle(s, &s->inst[i]);
        twhist_commit(&s->tw_batch);
        twhist_commit(&s->tw_kv);
    }
    twhist_stat(&s->tw_batch, 1.0, &out->batch);
    twhist_stat(&s->tw_kv, 0.001, &out->kv_occupancy);
    out->arrived = n;
    /* the window: first measured arrival -> last measured completion (docs/simulate.md#metrics) */
    const struct snap *w0 = &s->w0, *w1 = &s->w1, *a1 = &s->a1;
    bool have_w1 = s->have_w0 && w1->t >= w0->t;
    out->window_start_s = s->have_w0 ? w0->t : 0;
    out->window_end_s = have_w1 ? w1->t : out->window_start_s;
    out->arrivals_end_s = s->have_w0 ? a1->t : 0;
    out->makespan_s = s->now;
    double win = out->window_end_s - out->window_start_s;
    out->throughput_req_per_s = win > 0 ? (w1->done - w0->done) / win : NAN;
    out->input_tokens_per_s = win > 0 ? (w1->tok_in - w0->tok_in) / win : NAN;
    out->output_tokens_per_s = win > 0 ? (w1->tok_out - w0->tok_out) / win : NAN;
    double span = s->have_w0 ? a1->t - w0->t : 0;
    out->arrivals_req_per_s = span > 0 ? (a1->done - w0->done) / span : NAN;
    out->arrivals_input_tokens_per_s = span > 0 ? (a1->tok_in - w0->tok_in) / span : NAN;
    out->arrivals_output_tokens_per_s = span > 0 ? (a1->tok_out - w0->tok_out) / span : NAN;
    out->goodput_req_per_s = has_slo && win > 0 ? (double)met / win : NAN;
    out->slo_attainment = has_slo && out->measured > 0 ? (double)met / (double)out->measured : NAN;
    out->preemptions = s->preemptions;
    out->steps = s->steps;
    out->swapped_blocks = s->swapped_blocks;
    /* Little's law over [0, end of run]: L = area / T and lambda W = (N / T) (sum W / N) */
    double T = s->now;
    out->littles_l = T > 0 ? s->area / T : 0;
    out->littles_lambda_w = T > 0 ? sojourn / T : 0;
    out->preemptions_per_request =
        out->completed > 0 ? (double)s->preemptions / (double)out->completed : NAN;
    out->recomputed_tokens = s->recomputed;
    out->recomputed_tokens_per_request =
        out->completed > 0 ? s->recomputed / (double)out->completed : NAN;
    out->busy_fraction = win > 0 ? (w1->busy - w0->busy) / ((double)s->n_inst * win) : NAN;
    out->requests = s->kept;
    out->n_requests = s->kept ? n : 0;
    s->kept = NULL;
    out->batch_hist = s->batch_hist;
    out->batch_hist_n = s->batch_hist_n;
    s->batch_hist = NULL;
    out->timeline = s->tl;
    out->n_timeline = s->n_tl;
    s->tl = NULL;
    return 0;
}

/* ---- setup and loop ---- */

static int
setup(struct sim *s, const struct sim_config *cfg, struct sim_result *out)
{
    const struct sim_sched *sc = &cfg->sched;
    const struct sim_workload *w = &cfg->work;
    if (cfg->instances < 1 || sc->max_batch < 1 || sc->max_tokens_per_step < 1 ||
        sc->block_tokens < 1 || !(sc->kv_fraction > 0 && sc->kv_fraction <= 1)) {
        fail(s, "invalid scheduler settings");
        return -1;
    }
    if ((w->process == SIM_TRACE || w->prompt.kind == SIM_DIST_TRACE ||
         w->output.kind == SIM_DIST_TRACE) &&
        (!w->trace || w->trace->n <= 0)) {
        fail(s, "the workload needs a trace with at least one row");
        return -1;
    }
    if (w->process != SIM_TRACE && w->process != SIM_CLOSED && !(w->rate_per_s > 0)) {
        fail(s, "the arrival rate must be positive");
        return -1;
    }
    if (w->process == SIM_CLOSED && w->users < 1) {
        fail(s, "a closed loop needs at least one user");
        return -1;
    }
    if (w->process != SIM_TRACE && w->requests <= 0 && !(w->duration_s > 0)) {
        fail(s, "set a number of requests or a duration");
        return -1;
    }
    if (w->requests > SIM_MAX_REQUESTS || (w->trace && w->trace->n > SIM_MAX_REQUESTS) ||
        !(w->duration_s <= SIM_MAX_DURATION_S) || !(w->rate_per_s <= SIM_MAX_RATE) ||
        !dist_in_limits(&w->prompt) || !dist_in_limits(&w->output)) {
        fail(s, "the workload is beyond the simulator's limits (requests, trace rows, duration "
                "or rate: docs/simulate.md#limits)");
        return -1;
    }
    if (sc->policy == SIM_DISAGGREGATED && (cfg->instances < 2 || sc->prefill_instances < 1 ||
                                            sc->prefill_instances >= cfg->instances)) {
        fail(s, "disaggregated serving needs at least one prefill and one decode instance");
        return -1;
    }
    s->ranks = cfg->engine.attn_dp > 1 ? cfg->engine.attn_dp : 1;
    s->chunk_cap = sim_rank_share(sc->max_tokens_per_step, s->ranks);
    s->cost = sim_cost_new(&cfg->engine);
    if (!s->cost) {
        fail(s, roof_config_problem(&cfg->engine) ? roof_config_problem(&cfg->engine)
                                                  : "cannot set up the engine model");
        return -1;
    }
    s->async = sim_async(sc);
    sim_cost_overlap_host(s->cost, s->async);
    sim_cost_eager_prefill(s->cost, sc->prefill_graph, sc->eager_launch_s);
    double blocks, block_bytes, pool_bytes;
    if (sim_kv_pool(cfg, &blocks, &block_bytes, &pool_bytes) != 0) {
        fail(s, "the weights and the reserve leave no memory for the KV cache");
        return -1;
    }
    if (blocks > 1e15)
        blocks = 1e15;
    out->kv_blocks = blocks;
    out->kv_block_bytes = block_bytes;
    out->kv_pool_bytes = pool_bytes;
    s->block_bytes = block_bytes;
    sim_kv_shape_of(cfg, &s->kv);
    s->block_tokens = s->kv.block_tokens;
    out->kv_block_groups = s->kv.groups;
    /* a token's KV in every layer (what a disaggregated transfer moves) */
    s->kv_token_bytes = block_bytes * (double)s->kv.groups / (double)s->block_tokens;
    s->link_bytes_per_s = hw_link_bytes_per_s_per_direction(cfg->engine.hw);
    s->link_latency_s = roof_link_latency_s(&cfg->engine);
    if (sc->policy == SIM_DISAGGREGATED && !(s->link_bytes_per_s > 0)) {
        fail(s, "disaggregated serving needs an interconnect: the device profile has none");
        return -1;
    }
    s->max_context = cfg->engine.model->max_position_embeddings;
    s->window_tokens = cfg->engine.model->sliding_window;
    if (sim_gen_init(&s->gen, w, cfg->seed) != 0) {
        fail(s, "out of memory");
        return -1;
    }
    s->n_inst = cfg->instances;
    s->inst = calloc((size_t)s->n_inst, sizeof *s->inst);
    s->seqs = calloc((size_t)sc->max_batch + 4, sizeof *s->seqs);
    s->batch_hist_n = sc->max_batch + 1;
    s->batch_hist = calloc((size_t)s->batch_hist_n, sizeof *s->batch_hist);
    if (twhist_init(&s->tw_batch, s->batch_hist_n) != 0 || twhist_init(&s->tw_kv, 1001) != 0) {
        fail(s, "out of memory");
        return -1;
    }
    s->itl.n = calloc(LH_BINS, sizeof(long));
    s->step_time.n = calloc(LH_BINS, sizeof(long));
    s->itl.cached_x = s->step_time.cached_x = -1;
    s->cap_tl = 2 * (cfg->timeline_points > 0 ? cfg->timeline_points : SIM_TIMELINE_POINTS);
    s->tl = calloc((size_t)s->cap_tl, sizeof *s->tl);
    s->tl_stride = 1;
    if (!s->inst || !s->seqs || !s->batch_hist || !s->itl.n || !s->step_time.n || !s->tl) {
        fail(s, "out of memory");
        return -1;
    }
    for (int i = 0; i < s->n_inst; i++) {
        struct inst *in = &s->inst[i];
        in->role = sc->policy != SIM_DISAGGREGATED ? ROLE_ALL
                   : i < sc->prefill_instances     ? ROLE_PREFILL
                                                   : ROLE_DECODE;
        in->total_blocks = in->free_blocks = (long)blocks;
        in->fresh_s = -1.0;
        in->sg_ratio = SG_INIT_RATIO;
        in->run = malloc((size_t)sc->max_batch * sizeof *in->run);
        in->step = malloc((size_t)sc->max_batch * sizeof *in->step);
        if (!in->run || !in->step) {
            fail(s, "out of memory");
            return -1;
        }
    }
    if (cfg->decode_engine && sc->policy == SIM_DISAGGREGATED) {
        /* decode on another device type: its cost model and its own KV pool */
        struct sim_config dc = *cfg;
        dc.engine = *cfg->decode_engine;
        double dblocks, dbb, dpool;
        s->decode_cost = sim_cost_new(&dc.engine);
        if (!s->decode_cost || sim_kv_pool(&dc, &dblocks, &dbb, &dpool) != 0 ||
            dbb != block_bytes) {
            fail(s, !s->decode_cost ? "cannot set up the decode engine's model"
                    : dbb != block_bytes
                        ? "the decode engine's KV blocks differ from the prefill engine's"
                        : "the decode engine's weights and reserve leave no memory for the KV "
                          "cache");
            return -1;
        }
        for (int i = sc->prefill_instances; i < s->n_inst; i++)
            s->inst[i].total_blocks = s->inst[i].free_blocks = (long)fmin(dblocks, 1e15);
    }
    /* the kept results: the expected number of requests up front (retire doubles beyond) */
    long cap = w->requests > 0 ? w->requests : w->process == SIM_TRACE ? w->trace->n : 1024;
    if (!cfg->discard_requests) {
        s->kept = malloc((size_t)cap * sizeof *s->kept);
        if (!s->kept) {
            fail(s, "out of memory");
            return -1;
        }
        s->cap_kept = cap;
    }
    for (int k = 0; k < 4; k++) {
        s->lat[k].h.n = calloc(LH_BINS, sizeof(long));
        s->lat[k].h.cached_x = -1;
        if (!s->lat[k].h.n) {
            fail(s, "out of memory");
            return -1;
        }
    }
    sim_heap_init(&s->heap);
    /* the first arrivals */
    if (w->process == SIM_CLOSED) {
        for (long u = 0; u < w->users; u++)
            schedule_user(s, (int)u);
    } else {
        next_open_arrival(s);
    }
    return s->failed ? -1 : 0;
}

static void
teardown(struct sim *s)
{
    if (s->inst)
        for (int i = 0; i < s->n_inst; i++) {
            struct inst *in = &s->inst[i];
            free(in->waiting.v);
            free(in->intake.v);
            free(in->swapped.v);
            free(in->pending.v);
            free(in->run);
            free(in->step);
            free(in->holes);
        }
    free(s->inst);
    free(s->req);
    free(s->rt);
    free(s->free_slots);
    free(s->kept);
    for (int k = 0; k < 4; k++) {
        free(s->lat[k].v);
        free(s->lat[k].h.n);
    }
    free(s->seqs);
    free(s->batch_hist);
    twhist_release(&s->tw_batch);
    twhist_release(&s->tw_kv);
    free(s->itl.n);
    free(s->step_time.n);
    free(s->tl);
    sim_heap_release(&s->heap);
    sim_gen_release(&s->gen);
    sim_cost_free(s->cost);
    sim_cost_free(s->decode_cost);
}

int
sim_run(const struct sim_config *cfg, struct sim_result *out, struct err_list *errs)
{
    memset(out, 0, sizeof *out);
    struct sim s;
    memset(&s, 0, sizeof s);
    s.cfg = cfg;
    s.errs = errs;
    if (setup(&s, cfg, out) != 0) {
        teardown(&s);
        return -1;
    }
    struct sim_event ev;
    while (!s.failed && sim_heap_pop(&s.heap, &ev) == 0) {
        s.now = ev.time_s;
        switch (ev.kind) {
        case SIM_EV_ARRIVAL:
            arrival(&s, ev.subject);
            break;
        case SIM_EV_STEP_DONE:
            step_done(&s, ev.instance);
            break;
        case SIM_EV_TRANSFER_DONE:
            transfer_done(&s, ev.instance, ev.subject);
            break;
        case SIM_EV_TOKENIZED:
            tokenized(&s, ev.instance, ev.subject);
            break;
        }
        if (s.heap.n == 0 || s.heap.items[0].time_s > s.now)
            for (int i = 0; i < s.n_inst; i++)
                if (s.inst[i].kicked) {
                    s.inst[i].kicked = false;
                    try_start(&s, i);
                }
    }
    area_to_now(&s);
    if (!s.failed && s.in_system != 0)
        fail(&s, "the simulation ended with requests still in the system (a scheduler bug)");
    if (s.failed || collect(&s, out) != 0) {
        if (!s.failed)
            fail(&s, "out of memory");
        teardown(&s);
        sim_result_release(out);
        return -1;
    }
    teardown(&s);
    return 0;
}

void
sim_result_release(struct sim_result *r)
{
    free(r->requests);
    free(r->batch_hist);
    free(r->timeline);
    r->requests = NULL;
    r->batch_hist = NULL;
    r->timeline = NULL;
    r->n_requests = 0;
    r->n_timeline = 0;
}
