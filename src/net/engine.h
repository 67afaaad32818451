/* The serving engine behind `roofline serve`: the bench's small transformer (random weights) run
 * for real on this CPU with continuous batching. One scheduler thread admits waiting requests
 * between steps (bounded batch and KV cache), prefills each new prompt in one pass, then runs one
 * decode pass over the weights for every running sequence. No HTTP here (net/httpd.c). */
#ifndef ROOFLINE_NET_ENGINE_H
#define ROOFLINE_NET_ENGINE_H

#include "core/model.h"

#include <stdbool.h>
#include <stddef.h>

struct net_engine_config {
    const struct mdl_profile *model; /* borrowed during net_engine_new only */
    int max_batch;                   /* sequences decoded together (>= 1) */
    long max_prompt;                 /* tokens of one prompt */
    long max_tokens;                 /* tokens one request may generate */
    long max_kv_tokens;              /* KV cache of all running sequences, tokens */
    int max_waiting;                 /* requests queued for admission */
    int threads;                     /* 0 = every CPU of the affinity mask */
    unsigned long seed;
};

void net_engine_config_init(struct net_engine_config *c);

struct net_engine;
struct net_req;

/* Build the model and start the scheduler thread. Returns 0 and *out, or -1 with a reason in
 * why (the model's shape, memory, threads). Free with net_engine_free, which stops the thread
 * and fails every request still open. */
int net_engine_new(const struct net_engine_config *c, struct net_engine **out, char *why,
                   size_t why_size);
void net_engine_free(struct net_engine *e);
/* Hold (true) or release (false) the admission of waiting requests; running ones go on. Requests
 * queued while held start together at the release, in arrival order (a cohort that must share its
 * first decode steps, as the tests' batching checks need whatever the host's load). */
void net_engine_hold(struct net_engine *e, bool hold);
/* Stop admitting and wake every waiter (shutdown); requests in flight end with an error. */
void net_engine_stop(struct net_engine *e);

/* The toy tokenizer: one token per whitespace-separated word (a hash of the word into the
 * vocabulary, never token 0). Writes at most `max` ids; returns the number of words (which may
 * exceed max). */
long net_tokenize(const struct net_engine *e, const char *text, int *ids, long max);
/* Text of a generated token: a space and a made-up word, written to buf. */
void net_detokenize(int id, char *buf, size_t size);
long net_engine_vocab(const struct net_engine *e);
const char *net_engine_model_id(const struct net_engine *e);

/* Queue a request of n prompt tokens generating max_tokens tokens. Returns the request, or NULL
 * with *status an HTTP status (400 over the bounds, 503 queue full or stopping) and a message. */
struct net_req *net_submit(struct net_engine *e, const int *tokens, long n, long max_tokens,
                           int *status, char *msg, size_t msg_size);
/* Wait for the next generated token (at most timeout_s). Returns 1 and *token, 0 when the
 * request has finished (every token was taken), -1 when the engine stopped or the wait timed
 * out. */
int net_req_next(struct net_req *r, double timeout_s, int *token);
long net_req_prompt_tokens(const struct net_req *r);
long net_req_generated(const struct net_req *r);
/* The decode batch size of the step that made the last token taken (0 for the first token). */
int net_req_batch(const struct net_req *r);
/* The client is done with it (finished or gone): a running request is cancelled and its KV
 * cache freed between steps. Frees the request when the engine has let go of it too. */
void net_req_release(struct net_req *r);

struct net_stats {
    long requests, finished, cancelled;
    long prefill_passes, prefill_tokens, decode_steps, decode_tokens;
    int max_batch_seen, running, waiting;
    long kv_tokens_used;
};
void net_engine_stats(struct net_engine *e, struct net_stats *out);

#endif
