/* The HTTP client of `roofline profile` (libcurl): one streamed completion request, timed token
 * by token from its Server-Sent Events, and the server's tokenizer. Never prints. */
#ifndef ROOFLINE_NET_CLIENT_H
#define ROOFLINE_NET_CLIENT_H

#include <stdbool.h>
#include <stddef.h>

enum net_api { NET_API_OPENAI, NET_API_LLAMACPP };

struct net_client {
    const char *url;   /* the completion endpoint */
    enum net_api api;  /* request and event format */
    const char *model; /* "model" field of the request (NULL: left out) */
    double timeout_s;  /* whole request */
};

enum net_fail {
    NET_OK,
    NET_CONNECT,   /* connection refused / host unreachable */
    NET_TIMEOUT,   /* --timeout elapsed */
    NET_HTTP,      /* status >= 400 */
    NET_TRUNCATED, /* the stream ended before its end marker */
    NET_BAD_JSON,  /* an event that is not valid JSON or lacks the fields */
    NET_OTHER,     /* anything else libcurl reports, out of memory */
};

#define NET_MAX_GAPS 8192

/* One request as measured. Times in seconds from just before the request is sent. */
struct net_result {
    enum net_fail fail;
    char msg[320]; /* why it failed (lowercase, no final period) */
    int http_status;
    double ttft_s;  /* first token (NaN when none arrived) */
    double e2e_s;   /* the end marker, or the failure */
    long tokens;    /* token events received */
    double *gaps_s; /* tokens - 1 inter-token gaps (owned; net_result_release) */
    long n_gaps;
    long prompt_tokens;     /* from the usage fields; -1 when the server sent none */
    long completion_tokens; /* idem */
};

void net_result_release(struct net_result *r);
const char *net_fail_name(enum net_fail f);

/* Global libcurl setup; call once before threads start (0 or -1). */
int net_client_global_init(void);
void net_client_global_cleanup(void);

/* Stream one completion of `prompt` asking for max_tokens tokens (ignore_eos set, temperature
 * 0) and time it. Returns 0 when it ended properly, -1 with out->fail and out->msg; what was
 * measured before a failure stays in *out. */
int net_stream(const struct net_client *c, const char *prompt, long max_tokens,
               struct net_result *out);

/* Count the tokens of `text` with the server's tokenizer (POST <scheme://host:port>/tokenize,
 * llama.cpp's and vLLM's). Returns 0 and *n, or -1 with a message (no such endpoint...). */
int net_tokenize_remote(const struct net_client *c, const char *text, long *n, char *msg,
                        size_t msg_size);

#endif
