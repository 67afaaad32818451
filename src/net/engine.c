/* Continuous batching over the bench transformer: prefill through bench_tfm_forward with the
 * sequence's own KV cache swapped in, decode as one pass whose GEMMs take every running
 * sequence as a row (the weights are read once per step whatever the batch) and whose attention
 * runs per sequence over its own cache. Greedy sampling (argmax). */
#include "net/engine.h"

#include "bench/harness.h"
#include "bench/kern.h"
#include "bench/linalg.h"
#include "bench/tfm.h"

#include <errno.h>
#include <math.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

struct net_req {
    struct net_engine *e;
    int *prompt;
    long n_prompt, max_tokens;
    int *out, *out_batch; /* generated tokens and the decode batch that made each */
    long produced, taken;
    bool finished, cancelled, started;
    int refs; /* the client and the engine */
    pthread_cond_t cv;
    struct net_req *next; /* waiting queue */
    /* scheduler only */
    struct bench_kv kv;
    long kv_tokens, pos;
};

struct net_engine {
    struct bench_tfm *m;
    struct bench_kv own_kv; /* the model's cache, put back before bench_tfm_free */
    const struct bench_kernels *kn;
    struct bench_pool *pool;
    float *logits; /* max_batch x ld_logits */
    long ld_logits, vocab, max_prompt, max_tokens, max_kv_tokens;
    int max_batch, max_waiting;
    char model_id[64];
    pthread_t thread;
    bool thread_started;
    pthread_mutex_t mu;
    pthread_cond_t work;
    bool stop;
    bool hold; /* net_engine_hold: admit nothing until released */
    struct net_req *wait_head, *wait_tail;
    int n_waiting;
    struct net_req **run;
    int n_run;
    long kv_used;
    struct net_stats st;
    /* decode batch scratch */
    int *b_tok;
    long *b_pos;
    struct net_req **b_req;
};

void
net_engine_config_init(struct net_engine_config *c)
{
    memset(c, 0, sizeof *c);
    c->max_batch = 16;
    c->max_prompt = 2048;
    c->max_tokens = 512;
    c->max_kv_tokens = 16384;
    c->max_waiting = 64;
    c->seed = 20240601UL;
}

/* ---- tokenizer ---- */

long
net_tokenize(const struct net_engine *e, const char *text, int *ids, long max)
{
    long n = 0;
    const char *p = text;
    for (;;) {
        while (*p == ' ' || *p == '\t' || *p == '\n' || *p == '\r')
            p++;
        if (!*p)
            break;
        /* FNV-1a of the word, into 1..vocab-1 */
        unsigned long h = 1469598103934665603UL;
        while (*p && *p != ' ' && *p != '\t' && *p != '\n' && *p != '\r') {
            h ^= (unsigned char)*p++;
            h *= 1099511628211UL;
        }
        if (n < max)
            ids[n] = (int)(1 + h % (unsigned long)(e->vocab - 1));
        n++;
    }
    return n;
}

void
net_detokenize(int id, char *buf, size_t size)
{
    static const char *const SYL[16] = {"ka", "lo", "mi", "nu", "pe", "ra", "si", "to",
                                        "ve", "zu", "an", "el", "in", "or", "us", "ey"};
    char w[24] = " ";
    unsigned v = (unsigned)id;
    do {
        strncat(w, SYL[v % 16], sizeof w - strlen(w) - 1);
        v /= 16;
    } while (v > 0);
    snprintf(buf, size, "%s", w);
}

long
net_engine_vocab(const struct net_engine *e)
{
    return e->vocab;
}

const char *
net_engine_model_id(const struct net_engine *e)
{
    return e->model_id;
}

/* ---- the batched decode pass ---- */

static void
rope_store(struct bench_tfm *m, struct bench_kv *kv, long layer, float *row, long pos)
{
    const struct bench_tfm_shape *s = &m->sh;
    long d = s->head_dim, half = d / 2;
    const float *cs = m->rope_cos + pos * half, *sn = m->rope_sin + pos * half;
    for (long hh = 0; hh < s->heads + s->kv_heads; hh++) {
        float *v = row + hh * d;
        for (long i = 0; i < half; i++) {
            float a = v[i], b = v[i + half];
            v[i] = a * cs[i] - b * sn[i];
            v[i + half] = b * cs[i] + a * sn[i];
        }
    }
    const float *k = row + s->heads * d, *vv = k + s->kv_heads * d;
    for (long g = 0; g < s->kv_heads; g++)
        for (long i = 0; i < d; i++) {
            *bench_kv_key(kv, layer, g, pos, i) = k[g * d + i];
            *bench_kv_value(kv, layer, g, pos, i) = vv[g * d + i];
        }
}

/* One decode step of b sequences: token tok[i] at position pos[i] of sequence req[i]'s cache;
 * logits of every row into e->logits. The same operators as bench_tfm_forward (tfm.c), with
 * per-row positions and caches. */
static void
decode_batch(struct net_engine *e, int b)
{
    struct bench_tfm *m = e->m;
    const struct bench_tfm_shape *s = &m->sh;
    long h = s->hidden, qd = s->heads * s->head_dim;
    for (int i = 0; i < b; i++)
        memcpy(m->x + i * m->ld_h, m->embed + (long)e->b_tok[i] * h, (size_t)h * sizeof(float));
    for (long l = 0; l < s->layers; l++) {
        const struct bench_tfm_layer *L = &m->layer[l];
        for (int i = 0; i < b; i++)
            bench_rmsnorm(m->xn + i * m->ld_h, m->x + i * m->ld_h, L->attn_norm, h);
        bench_linear_forward(e->pool, e->kn, &L->qkv, m->xn, m->ld_h, b, m->qkv, m->ld_qkv, false,
                             m->work);
        for (int i = 0; i < b; i++)
            rope_store(m, &e->b_req[i]->kv, l, m->qkv + i * m->ld_qkv, e->b_pos[i]);
        for (int i = 0; i < b; i++)
            bench_attention(e->pool, e->kn,
                            &(struct bench_attn_args){.kv = &e->b_req[i]->kv,
                                                      .layer = l,
                                                      .heads = s->heads,
                                                      .q = m->qkv + i * m->ld_qkv,
                                                      .ldq = m->ld_qkv,
                                                      .n = 1,
                                                      .pos0 = e->b_pos[i],
                                                      .out = m->attn + i * qd,
                                                      .ldo = qd,
                                                      .scratch = m->scratch,
                                                      .scratch_per_thread = m->scratch_per_thread});
        bench_linear_forward(e->pool, e->kn, &L->o, m->attn, qd, b, m->x, m->ld_h, true, m->work);
        for (int i = 0; i < b; i++)
            bench_rmsnorm(m->xn + i * m->ld_h, m->x + i * m->ld_h, L->mlp_norm, h);
        bench_linear_forward(e->pool, e->kn, &L->gate, m->xn, m->ld_h, b, m->gate, m->ld_i, false,
                             m->work);
        bench_linear_forward(e->pool, e->kn, &L->up, m->xn, m->ld_h, b, m->up, m->ld_i, false,
                             m->work);
        for (int i = 0; i < b; i++)
            e->kn->silu_mul(m->gate + i * m->ld_i, m->up + i * m->ld_i, s->intermediate);
        bench_linear_forward(e->pool, e->kn, &L->down, m->gate, m->ld_i, b, m->x, m->ld_h, true,
                             m->work);
    }
    for (int i = 0; i < b; i++)
        bench_rmsnorm(m->xn + i * m->ld_h, m->x + i * m->ld_h, m->final_norm, h);
    bench_linear_forward(e->pool, e->kn, &m->lm_head, m->xn, m->ld_h, b, e->logits, e->ld_logits,
                         false, m->work);
}

static int
argmax(const float *v, long n)
{
    long best = 0;
    for (long i = 1; i < n; i++)
        if (v[i] > v[best])
            best = i;
    return (int)best;
}

/* ---- requests (under e->mu) ---- */

static void
req_unref(struct net_req *r)
{
    if (--r->refs > 0)
        return;
    pthread_cond_destroy(&r->cv);
    bench_kv_release(&r->kv);
    free(r->prompt);
    free(r->out);
    free(r->out_batch);
    free(r);
}

static void
deliver(struct net_engine *e, struct net_req *r, int tok, int batch)
{
    r->out[r->produced] = tok;
    r->out_batch[r->produced] = batch;
    r->produced++;
    if (r->produced >= r->max_tokens) {
        r->finished = true;
        e->st.finished++;
    }
    pthread_cond_broadcast(&r->cv);
}

/* Remove finished and cancelled sequences from the running set. */
static void
reap(struct net_engine *e)
{
    int k = 0;
    for (int i = 0; i < e->n_run; i++) {
        struct net_req *r = e->run[i];
        if (r->finished || r->cancelled) {
            if (r->cancelled && !r->finished)
                e->st.cancelled++;
            e->kv_used -= r->kv_tokens;
            bench_kv_release(&r->kv);
            req_unref(r);
        } else {
            e->run[k++] = r;
        }
    }
    e->n_run = k;
}

static void *
loop(void *arg)
{
    struct net_engine *e = arg;
    pthread_mutex_lock(&e->mu);
    for (;;) {
        reap(e);
        if (e->stop)
            break;
        /* admit in arrival order while the batch and the KV cache have room */
        while (!e->hold && e->wait_head && e->n_run < e->max_batch &&
               e->kv_used + e->wait_head->kv_tokens <= e->max_kv_tokens) {
            struct net_req *r = e->wait_head;
            e->wait_head = r->next;
            if (!e->wait_head)
                e->wait_tail = NULL;
            e->n_waiting--;
            if (r->cancelled) {
                req_unref(r);
                continue;
            }
            if (bench_kv_init(&r->kv, e->m->sh.layers, e->m->sh.kv_heads, e->m->sh.head_dim,
                              r->kv_tokens) != 0) {
                r->finished = true; /* out of memory: end it with what it has (nothing) */
                pthread_cond_broadcast(&r->cv);
                req_unref(r);
                continue;
            }
            /* zeroed: attention reads whole blocks of 32 positions and masks the unwritten
             * ones, and a NaN bit pattern times a zero weight is still NaN */
            size_t kv_floats = (size_t)r->kv.layers * (size_t)r->kv.kv_heads *
                               (size_t)r->kv.head_dim * (size_t)r->kv.max_ctx;
            memset(r->kv.k, 0, kv_floats * sizeof(float));
            memset(r->kv.v, 0, kv_floats * sizeof(float));
            e->kv_used += r->kv_tokens;
            e->run[e->n_run++] = r;
        }
        if (e->n_run == 0) {
            pthread_cond_wait(&e->work, &e->mu);
            continue;
        }
        /* the running set changes only on this thread: the passes run unlocked */
        for (int i = 0; i < e->n_run; i++) {
            struct net_req *r = e->run[i];
            if (r->started || r->cancelled)
                continue;
            r->started = true;
            pthread_mutex_unlock(&e->mu);
            struct bench_kv saved = e->m->kv;
            e->m->kv = r->kv;
            int rc = bench_tfm_forward(e->m, e->kn, e->pool, r->prompt, r->n_prompt, 0);
            e->m->kv = saved;
            int tok = rc == 0 ? argmax(e->m->logits, e->vocab) : 0;
            pthread_mutex_lock(&e->mu);
            e->st.prefill_passes++;
            e->st.prefill_tokens += r->n_prompt;
            r->pos = r->n_prompt;
            if (rc != 0) {
                r->finished = true;
                pthread_cond_broadcast(&r->cv);
            } else {
                deliver(e, r, tok, 0);
            }
        }
        int b = 0;
        for (int i = 0; i < e->n_run; i++) {
            struct net_req *r = e->run[i];
            if (!r->started || r->finished || r->cancelled)
                continue;
            e->b_req[b] = r;
            e->b_tok[b] = r->out[r->produced - 1];
            e->b_pos[b] = r->pos;
            b++;
        }
        if (b == 0)
            continue;
        pthread_mutex_unlock(&e->mu);
        decode_batch(e, b);
        pthread_mutex_lock(&e->mu);
        e->st.decode_steps++;
        e->st.decode_tokens += b;
        if (b > e->st.max_batch_seen)
            e->st.max_batch_seen = b;
        for (int i = 0; i < b; i++) {
            struct net_req *r = e->b_req[i];
            r->pos++;
            if (!r->cancelled)
                deliver(e, r, argmax(e->logits + i * e->ld_logits, e->vocab), b);
        }
    }
    /* stopping: fail what is still open */
    for (struct net_req *r = e->wait_head; r;) {
        struct net_req *nx = r->next;
        pthread_cond_broadcast(&r->cv);
        req_unref(r);
        r = nx;
    }
    e->wait_head = e->wait_tail = NULL;
    e->n_waiting = 0;
    for (int i = 0; i < e->n_run; i++) {
        pthread_cond_broadcast(&e->run[i]->cv);
        e->kv_used -= e->run[i]->kv_tokens;
        bench_kv_release(&e->run[i]->kv);
        req_unref(e->run[i]);
    }
    e->n_run = 0;
    pthread_mutex_unlock(&e->mu);
    return NULL;
}

struct net_req *
net_submit(struct net_engine *e, const int *tokens, long n, long max_tokens, int *status, char *msg,
           size_t msg_size)
{
    *status = 400;
    if (n < 1) {
        snprintf(msg, msg_size, "the prompt is empty");
        return NULL;
    }
    if (n > e->max_prompt) {
        snprintf(msg, msg_size, "the prompt has %ld tokens; this server takes at most %ld", n,
                 e->max_prompt);
        return NULL;
    }
    if (max_tokens < 1 || max_tokens > e->max_tokens) {
        snprintf(msg, msg_size, "max_tokens must be between 1 and %ld, got %ld", e->max_tokens,
                 max_tokens);
        return NULL;
    }
    long need = bench_round_nr(n + max_tokens);
    if (need > e->max_kv_tokens || n + max_tokens > e->m->max_ctx) {
        snprintf(msg, msg_size,
                 "prompt (%ld) plus max_tokens (%ld) exceeds the KV cache (%ld tokens)", n,
                 max_tokens, e->max_kv_tokens < e->m->max_ctx ? e->max_kv_tokens : e->m->max_ctx);
        return NULL;
    }
    for (long i = 0; i < n; i++)
        if (tokens[i] < 0 || tokens[i] >= e->vocab) {
            snprintf(msg, msg_size, "token %d is outside the vocabulary (0..%ld)", tokens[i],
                     e->vocab - 1);
            return NULL;
        }
    struct net_req *r = calloc(1, sizeof *r);
    if (r) {
        r->prompt = malloc((size_t)n * sizeof(int));
        r->out = malloc((size_t)max_tokens * sizeof(int));
        r->out_batch = malloc((size_t)max_tokens * sizeof(int));
    }
    if (!r || !r->prompt || !r->out || !r->out_batch) {
        if (r) {
            free(r->prompt);
            free(r->out);
            free(r->out_batch);
        }
        free(r);
        *status = 503;
        snprintf(msg, msg_size, "out of memory");
        return NULL;
    }
    memcpy(r->prompt, tokens, (size_t)n * sizeof(int));
    r->e = e;
    r->n_prompt = n;
    r->max_tokens = max_tokens;
    r->kv_tokens = need;
    r->refs = 2;
    pthread_cond_init(&r->cv, NULL);
    pthread_mutex_lock(&e->mu);
    if (e->stop || e->n_waiting >= e->max_waiting) {
        bool stopping = e->stop;
        pthread_mutex_unlock(&e->mu);
        r->refs = 1;
        req_unref(r);
        *status = 503;
        snprintf(msg, msg_size, "%s",
                 stopping ? "the server is shutting down"
                          : "too many requests waiting; try again later");
        return NULL;
    }
    if (e->wait_tail)
        e->wait_tail->next = r;
    else
        e->wait_head = r;
    e->wait_tail = r;
    e->n_waiting++;
    e->st.requests++;
    pthread_cond_signal(&e->work);
    pthread_mutex_unlock(&e->mu);
    *status = 200;
    return r;
}

int
net_req_next(struct net_req *r, double timeout_s, int *token)
{
    struct net_engine *e = r->e;
    struct timespec until;
    clock_gettime(CLOCK_REALTIME, &until);
    double whole = floor(timeout_s);
    until.tv_sec += (time_t)whole;
    until.tv_nsec += (long)((timeout_s - whole) * 1e9);
    if (until.tv_nsec >= 1000000000L) {
        until.tv_sec++;
        until.tv_nsec -= 1000000000L;
    }
    pthread_mutex_lock(&e->mu);
    int rc = 0;
    while (r->taken == r->produced && !r->finished && !e->stop && rc != ETIMEDOUT)
        rc = pthread_cond_timedwait(&r->cv, &e->mu, &until);
    int out;
    if (r->taken < r->produced) {
        *token = r->out[r->taken++];
        out = 1;
    } else if (r->finished) {
        out = 0;
    } else {
        out = -1;
    }
    pthread_mutex_unlock(&e->mu);
    return out;
}

long
net_req_prompt_tokens(const struct net_req *r)
{
    return r->n_prompt;
}

long
net_req_generated(const struct net_req *r)
{
    pthread_mutex_lock(&r->e->mu);
    long n = r->taken;
    pthread_mutex_unlock(&r->e->mu);
    return n;
}

int
net_req_batch(const struct net_req *r)
{
    pthread_mutex_lock(&r->e->mu);
    int b = r->taken > 0 ? r->out_batch[r->taken - 1] : 0;
    pthread_mutex_unlock(&r->e->mu);
    return b;
}

void
net_req_release(struct net_req *r)
{
    if (!r)
        return;
    struct net_engine *e = r->e;
    pthread_mutex_lock(&e->mu);
    if (!r->finished)
        r->cancelled = true;
    pthread_cond_signal(&e->work);
    req_unref(r);
    pthread_mutex_unlock(&e->mu);
}

void
net_engine_stats(struct net_engine *e, struct net_stats *out)
{
    pthread_mutex_lock(&e->mu);
    *out = e->st;
    out->running = e->n_run;
    out->waiting = e->n_waiting;
    out->kv_tokens_used = e->kv_used;
    pthread_mutex_unlock(&e->mu);
}

void
net_engine_hold(struct net_engine *e, bool hold)
{
    pthread_mutex_lock(&e->mu);
    e->hold = hold;
    pthread_cond_broadcast(&e->work);
    pthread_mutex_unlock(&e->mu);
}

void
net_engine_stop(struct net_engine *e)
{
    pthread_mutex_lock(&e->mu);
    e->stop = true;
    pthread_cond_broadcast(&e->work);
    for (struct net_req *r = e->wait_head; r; r = r->next)
        pthread_cond_broadcast(&r->cv);
    for (int i = 0; i < e->n_run; i++)
        pthread_cond_broadcast(&e->run[i]->cv);
    pthread_mutex_unlock(&e->mu);
}

void
net_engine_free(struct net_engine *e)
{
    if (!e)
        return;
    if (e->thread_started) {
        net_engine_stop(e);
        pthread_join(e->thread, NULL);
    }
    if (e->m) {
        e->m->kv = e->own_kv;
        bench_tfm_free(e->m);
    }
    bench_pool_free(e->pool);
    free(e->logits);
    free(e->run);
    free(e->b_tok);
    free(e->b_pos);
    free(e->b_req);
    pthread_mutex_destroy(&e->mu);
    pthread_cond_destroy(&e->work);
    free(e);
}

int
net_engine_new(const struct net_engine_config *c, struct net_engine **out, char *why,
               size_t why_size)
{
    *out = NULL;
    struct bench_tfm_shape sh;
    const char *reason;
    if (bench_tfm_shape_of(c->model, &sh, &reason) != 0) {
        snprintf(why, why_size, "model '%s': %s", c->model->id, reason);
        return -1;
    }
    if (c->max_batch < 1 || c->max_prompt < 1 || c->max_tokens < 1 || c->max_waiting < 1 ||
        c->max_kv_tokens < bench_round_nr(c->max_prompt + 1)) {
        snprintf(why, why_size, "the KV cache (%ld tokens) must hold one longest prompt (%ld)",
                 c->max_kv_tokens, c->max_prompt);
        return -1;
    }
    struct net_engine *e = calloc(1, sizeof *e);
    if (!e) {
        snprintf(why, why_size, "out of memory");
        return -1;
    }
    pthread_mutex_init(&e->mu, NULL);
    pthread_cond_init(&e->work, NULL);
    e->max_batch = c->max_batch;
    e->max_prompt = c->max_prompt;
    e->max_tokens = c->max_tokens;
    e->max_kv_tokens = c->max_kv_tokens;
    e->max_waiting = c->max_waiting;
    e->vocab = sh.vocab;
    snprintf(e->model_id, sizeof e->model_id, "%s", c->model->id);
    int threads = c->threads;
    if (threads < 1) {
        long n = sysconf(_SC_NPROCESSORS_ONLN);
        threads = n > 0 && n < 256 ? (int)n : 1;
    }
    e->kn = bench_kernels_for(bench_isa_best());
    long max_ctx = c->max_prompt + c->max_tokens;
    long pass = c->max_prompt > c->max_batch ? c->max_prompt : c->max_batch;
    e->ld_logits = bench_round_nr(sh.vocab);
    e->logits = bench_alloc((size_t)c->max_batch * (size_t)e->ld_logits * sizeof(float));
    e->run = calloc((size_t)c->max_batch, sizeof *e->run);
    e->b_req = calloc((size_t)c->max_batch, sizeof *e->b_req);
    e->b_tok = calloc((size_t)c->max_batch, sizeof *e->b_tok);
    e->b_pos = calloc((size_t)c->max_batch, sizeof *e->b_pos);
    if (!e->kn || !e->logits || !e->run || !e->b_req || !e->b_tok || !e->b_pos ||
        bench_tfm_new(&sh, max_ctx, pass, threads, c->seed, &e->m) != 0) {
        snprintf(why, why_size, "cannot build the model (%ld-token contexts): out of memory",
                 max_ctx);
        net_engine_free(e);
        return -1;
    }
    e->own_kv = e->m->kv;
    if (!(e->pool = bench_pool_new(threads, false))) {
        snprintf(why, why_size, "cannot start %d threads", threads);
        net_engine_free(e);
        return -1;
    }
    if (pthread_create(&e->thread, NULL, loop, e) != 0) {
        snprintf(why, why_size, "cannot start the scheduler thread");
        net_engine_free(e);
        return -1;
    }
    e->thread_started = true;
    *out = e;
    return 0;
}
