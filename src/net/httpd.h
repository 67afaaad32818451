/* The HTTP front of `roofline serve` (libmicrohttpd, one thread per connection): OpenAI
 * POST /v1/completions, llama.cpp POST /completion, POST /tokenize, GET /health, /v1/models and
 * /stats, with Server-Sent Events streaming. Never prints. */
#ifndef ROOFLINE_NET_HTTPD_H
#define ROOFLINE_NET_HTTPD_H

#include "net/engine.h"

struct net_server_config {
    const char *host;       /* IPv4 address to bind, e.g. "127.0.0.1" */
    int port;               /* 0 = ephemeral */
    int max_connections;    /* concurrent connections */
    long max_body_bytes;    /* request bodies larger than this get 413 */
    double token_timeout_s; /* longest wait for one token before the stream is cut */
};

void net_server_config_init(struct net_server_config *c);

struct net_server;

/* Bind and start serving `e` (borrowed; it must outlive the server). Returns 0 with *out and
 * the bound port, or -1 with a reason. */
int net_server_start(const struct net_server_config *c, struct net_engine *e,
                     struct net_server **out, int *bound_port, char *why, size_t why_size);
/* Close the listening socket and every connection, and wait for their threads. Call
 * net_engine_stop first so streams waiting for tokens end. */
void net_server_stop(struct net_server *s);

#endif
