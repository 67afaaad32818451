/* roofline serve: a real OpenAI-compatible streaming completion server running the bench's small
 * transformer on this CPU (random weights, continuous batching), for `roofline profile` and for
 * watching the bandwidth bound on a laptop. docs/profile.md. */
#include "cli/cli.h"
#include "io/profiles.h"
#include "net/engine.h"
#include "net/httpd.h"

#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>

static const struct cli_opt SPEC[] = {
    OPT_VALUE("port", "P", "TCP port (0 = ephemeral; the bound port is printed first)"),
    OPT_VALUE("host", "ADDR", "address to listen on (default 127.0.0.1)"),
    OPT_VALUE("model", "NAME", "the served model (bench-small)"),
    OPT_VALUE("max-batch", "N", "sequences decoded together"),
    OPT_VALUE("max-prompt", "N", "longest prompt in tokens"),
    OPT_VALUE("max-tokens", "N", "largest max_tokens a request may ask"),
    OPT_VALUE("max-kv-tokens", "N", "KV-cache tokens over all sequences"),
    OPT_VALUE("max-connections", "N", "connections served at once"),
    OPT_VALUE("threads", "N", "compute threads"),
    OPT_VALUE("seed", "S", "seed of the random weights"),
};

static int
run(int argc, char **argv)
{
    struct cli_ctx c;
    int rc;
    if (cli_begin(&c, &cmd_serve, 0, argc, argv, &rc) != 0)
        return rc;
    const struct cli_args *a = &c.a;
    struct net_engine_config ec;
    net_engine_config_init(&ec);
    struct net_server_config sc;
    net_server_config_init(&sc);
    long port, batch, prompt, tokens, kv, conns, threads, seed;
    if (cli_long(a, "port", sc.port, 0, &port) ||
        cli_long(a, "max-batch", ec.max_batch, 1, &batch) ||
        cli_long(a, "max-prompt", ec.max_prompt, 1, &prompt) ||
        cli_long(a, "max-tokens", ec.max_tokens, 1, &tokens) ||
        cli_long(a, "max-kv-tokens", ec.max_kv_tokens, 32, &kv) ||
        cli_long(a, "max-connections", sc.max_connections, 1, &conns) ||
        cli_long(a, "threads", 0, 1, &threads) || cli_long(a, "seed", (long)ec.seed, 0, &seed)) {
        rc = CLI_USAGE;
        goto out;
    }
    if (port > 65535 || batch > 256 || prompt > 32768 || tokens > 32768 || conns > 1024 ||
        threads > 256 || kv > 1048576) {
        fprintf(stderr, "error: a bound is too large (port <= 65535, --max-batch <= 256, "
                        "--max-prompt and --max-tokens <= 32768, --max-kv-tokens <= 1048576, "
                        "--max-connections <= 1024, --threads <= 256)\n");
        rc = CLI_USAGE;
        goto out;
    }
    if (cli_has(a, "host"))
        sc.host = cli_get(a, "host");
    sc.port = (int)port;
    sc.max_connections = (int)conns;
    const struct mdl_profile *model = c.model =
        cli_load_model(cli_has(a, "model") ? cli_get(a, "model") : "bench-small");
    rc = CLI_FAIL;
    if (!model)
        goto out;
    ec.model = model;
    ec.max_batch = (int)batch;
    ec.max_prompt = prompt;
    ec.max_tokens = tokens;
    ec.max_kv_tokens = kv;
    ec.max_waiting = (int)conns;
    ec.threads = (int)threads;
    ec.seed = (unsigned long)seed;
    /* every thread started from here on inherits the mask: the signals come to sigwait */
    sigset_t set;
    sigemptyset(&set);
    sigaddset(&set, SIGINT);
    sigaddset(&set, SIGTERM);
    pthread_sigmask(SIG_BLOCK, &set, NULL);
    signal(SIGPIPE, SIG_IGN);
    fprintf(stderr, "roofline serve: building %s (random weights, fp32)...\n", model->id);
    char why[256];
    struct net_engine *e;
    if (net_engine_new(&ec, &e, why, sizeof why) != 0) {
        fprintf(stderr, "error: %s\n", why);
        goto out;
    }
    struct net_server *s;
    int bound;
    if (net_server_start(&sc, e, &s, &bound, why, sizeof why) != 0) {
        fprintf(stderr, "error: %s\n", why);
        net_engine_free(e);
        goto out;
    }
    printf("listening on http://%s:%d\n", sc.host, bound);
    fflush(stdout);
    fprintf(stderr,
            "roofline serve: %s on http://%s:%d (POST /v1/completions, /completion, /tokenize; "
            "GET /health, /v1/models, /stats); max batch %d, prompts <= %ld tokens, outputs <= "
            "%ld, KV cache %ld tokens, %ld connections; Ctrl-C stops\n",
            model->id, sc.host, bound, ec.max_batch, ec.max_prompt, ec.max_tokens, ec.max_kv_tokens,
            (long)sc.max_connections);
    int sig = 0;
    sigwait(&set, &sig);
    fprintf(stderr, "roofline serve: %s, stopping\n", sig == SIGINT ? "SIGINT" : "SIGTERM");
    struct net_stats st;
    net_engine_stats(e, &st);
    net_engine_stop(e);
    net_server_stop(s);
    net_engine_free(e);
    fprintf(stderr,
            "roofline serve: %ld requests (%ld finished, %ld cancelled), %ld prefill passes, %ld "
            "decode steps (mean batch %.2f, max %d)\n",
            st.requests, st.finished, st.cancelled, st.prefill_passes, st.decode_steps,
            st.decode_steps ? (double)st.decode_tokens / (double)st.decode_steps : 0.0,
            st.max_batch_seen);
    rc = CLI_OK;
out:
    return cli_end(&c, rc);
}

const struct cli_cmd cmd_serve = {
    "serve",
    "a real streaming completion server (OpenAI /v1/completions, llama.cpp /completion) running "
    "bench-small on this CPU with continuous batching (docs/profile.md)",
    "roofline serve [--port P] [--host 127.0.0.1] [--model bench-small] [--max-batch N]\n"
    "         [--max-prompt N] [--max-tokens N] [--max-kv-tokens N] [--max-connections N]\n"
    "         [--threads N] [--seed S]",
    run, CLI_OPTS(SPEC)};
