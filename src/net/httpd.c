/* libmicrohttpd glue for roofline serve: request bodies are collected (bounded), parsed with
 * io/json.c and handed to the engine; a streaming response is a content-reader callback that
 * blocks (thread per connection) until the engine produces the next token. */
#include "net/httpd.h"

#include "io/json.h"
#include "util/strbuf.h"

#include <arpa/inet.h>
#include <math.h>
#include <microhttpd.h>
#include <netinet/in.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <time.h>

enum api { API_OPENAI, API_LLAMACPP };

struct net_server {
    struct MHD_Daemon *d;
    struct net_engine *e;
    struct net_server_config c;
    long next_id;
};

struct body {
    struct strbuf sb;
    bool too_big;
};

void
net_server_config_init(struct net_server_config *c)
{
    c->host = "127.0.0.1";
    c->port = 8080;
    c->max_connections = 64;
    c->max_body_bytes = 1 << 20;
    c->token_timeout_s = 300;
}

static enum MHD_Result
respond(struct MHD_Connection *conn, unsigned status, struct strbuf *t)
{
    if (t->failed) {
        strbuf_release(t);
        status = MHD_HTTP_INTERNAL_SERVER_ERROR;
        strbuf_addf(t, "{\"error\":{\"message\":\"out of memory\",\"code\":500}}");
    }
    struct MHD_Response *r = MHD_create_response_from_buffer(t->len, t->buf ? t->buf : (char *)"",
                                                             MHD_RESPMEM_MUST_COPY);
    strbuf_release(t);
    if (!r)
        return MHD_NO;
    MHD_add_response_header(r, "Content-Type", "application/json");
    enum MHD_Result ret = MHD_queue_response(conn, status, r);
    MHD_destroy_response(r);
    return ret;
}

static enum MHD_Result respond_error(struct MHD_Connection *conn, unsigned status, const char *fmt,
                                     ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 3, 4)))
#endif
    ;

static enum MHD_Result
respond_error(struct MHD_Connection *conn, unsigned status, const char *fmt, ...)
{
    char msg[512];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    struct strbuf t = {0};
    strbuf_addf(&t, "{\"error\":{\"message\":");
    strbuf_add_quoted(&t, msg);
    strbuf_addf(&t, ",\"type\":\"%s\",\"code\":%u}}",
                status >= 500 ? "server_error" : "invalid_request_error", status);
    return respond(conn, status, &t);
}

/* ---- streaming ---- */

struct stream {
    struct net_server *s;
    struct net_req *r;
    enum api api;
    long id, created, n_out;
    char pend[1024];
    size_t pend_len, pend_off;
    bool done;
};

static void
chunk_token(struct stream *st, int tok)
{
    char word[32];
    net_detokenize(tok, word, sizeof word);
    int n;
    if (st->api == API_OPENAI)
        n = snprintf(st->pend, sizeof st->pend,
                     "data: {\"id\":\"cmpl-%ld\",\"object\":\"text_completion\",\"created\":%ld,"
                     "\"model\":\"%s\",\"choices\":[{\"text\":\"%s\",\"index\":0,\"logprobs\":null,"
                     "\"finish_reason\":null}]}\n\n",
                     st->id, st->created, net_engine_model_id(st->s->e), word);
    else
        n = snprintf(st->pend, sizeof st->pend,
                     "data: {\"content\":\"%s\",\"stop\":false,\"id_slot\":0}\n\n", word);
    st->pend_len = n > 0 && (size_t)n < sizeof st->pend ? (size_t)n : 0;
    st->pend_off = 0;
}

static void
chunk_final(struct stream *st)
{
    long p = net_req_prompt_tokens(st->r);
    int n;
    if (st->api == API_OPENAI)
        n = snprintf(st->pend, sizeof st->pend,
                     "data: {\"id\":\"cmpl-%ld\",\"object\":\"text_completion\",\"created\":%ld,"
                     "\"model\":\"%s\",\"choices\":[{\"text\":\"\",\"index\":0,\"logprobs\":null,"
                     "\"finish_reason\":\"length\"}],\"usage\":{\"prompt_tokens\":%ld,"
                     "\"completion_tokens\":%ld,\"total_tokens\":%ld}}\n\ndata: [DONE]\n\n",
                     st->id, st->created, net_engine_model_id(st->s->e), p, st->n_out,
                     p + st->n_out);
    else
        n = snprintf(
            st->pend, sizeof st->pend,
            "data: {\"content\":\"\",\"stop\":true,\"stopped_limit\":true,\"model\":\"%s\","
            "\"tokens_evaluated\":%ld,\"tokens_predicted\":%ld}\n\n",
            net_engine_model_id(st->s->e), p, st->n_out);
    st->pend_len = n > 0 && (size_t)n < sizeof st->pend ? (size_t)n : 0;
    st->pend_off = 0;
}

static ssize_t
stream_read(void *cls, uint64_t pos, char *buf, size_t max)
{
    (void)pos;
    struct stream *st = cls;
    if (st->pend_off == st->pend_len) {
        if (st->done)
            return MHD_CONTENT_READER_END_OF_STREAM;
        int tok;
        int rc = net_req_next(st->r, st->s->c.token_timeout_s, &tok);
        if (rc < 0)
            return MHD_CONTENT_READER_END_WITH_ERROR; /* shutdown or stuck: cut the stream */
        if (rc == 1) {
            st->n_out++;
            chunk_token(st, tok);
        } else {
            chunk_final(st);
            st->done = true;
        }
    }
    size_t n = st->pend_len - st->pend_off;
    if (n > max)
        n = max;
    memcpy(buf, st->pend + st->pend_off, n);
    st->pend_off += n;
    return (ssize_t)n;
}

static void
stream_free(void *cls)
{
    struct stream *st = cls;
    net_req_release(st->r);
    free(st);
}

/* ---- handlers ---- */

/* The prompt of a request: a string (tokenized) or an array of token ids. Returns the count
 * (ids malloc'd into *ids) or -1 with a message. */
static long
prompt_tokens(struct net_server *s, const struct json *prompt, int **ids, char *msg, size_t n)
{
    *ids = NULL;
    if (!prompt) {
        snprintf(msg, n, "'prompt' is required");
        return -1;
    }
    if (prompt->kind == JSON_STR) {
        long count = net_tokenize(s->e, prompt->str, NULL, 0);
        *ids = malloc((size_t)(count > 0 ? count : 1) * sizeof(int));
        if (!*ids) {
            snprintf(msg, n, "out of memory");
            return -1;
        }
        return net_tokenize(s->e, prompt->str, *ids, count);
    }
    if (prompt->kind == JSON_ARR) {
        *ids = malloc((prompt->n ? prompt->n : 1) * sizeof(int));
        if (!*ids) {
            snprintf(msg, n, "out of memory");
            return -1;
        }
        for (size_t i = 0; i < prompt->n; i++) {
            const struct json *v = prompt->items[i];
            if (v->kind != JSON_NUM || v->num != floor(v->num) || fabs(v->num) > 1e9) {
                snprintf(msg, n, "'prompt' must be a string or an array of token ids");
                free(*ids);
                *ids = NULL;
                return -1;
            }
            (*ids)[i] = (int)v->num;
        }
        return (long)prompt->n;
    }
    snprintf(msg, n, "'prompt' must be a string or an array of token ids, not %s",
             json_kind_name(prompt->kind));
    return -1;
}

static enum MHD_Result
handle_completion(struct net_server *s, struct MHD_Connection *conn, const struct json *req,
                  enum api api)
{
    char msg[256];
    const struct json *prompt = json_get(req, api == API_OPENAI ? "prompt" : "prompt");
    int *ids;
    long n = prompt_tokens(s, prompt, &ids, msg, sizeof msg);
    if (n < 0)
        return respond_error(conn, MHD_HTTP_BAD_REQUEST, "%s", msg);
    double max_tokens = 16;
    const char *key = api == API_OPENAI ? "max_tokens" : "n_predict";
    const struct json *mt = json_get(req, key);
    if (mt && mt->kind != JSON_NULL &&
        (mt->kind != JSON_NUM || mt->num != floor(mt->num) || mt->num < 1 || mt->num > 1e9)) {
        free(ids);
        return respond_error(conn, MHD_HTTP_BAD_REQUEST, "'%s' must be a positive integer", key);
    }
    if (mt && mt->kind == JSON_NUM)
        max_tokens = mt->num;
    const struct json *sv = json_get(req, "stream");
    if (sv && sv->kind != JSON_BOOL && sv->kind != JSON_NULL) {
        free(ids);
        return respond_error(conn, MHD_HTTP_BAD_REQUEST, "'stream' must be true or false");
    }
    bool streaming = sv && sv->kind == JSON_BOOL && sv->b;
    int status;
    struct net_req *r = net_submit(s->e, ids, n, (long)max_tokens, &status, msg, sizeof msg);
    free(ids);
    if (!r)
        return respond_error(conn, (unsigned)status, "%s", msg);
    long id = __atomic_add_fetch(&s->next_id, 1, __ATOMIC_RELAXED);
    long created = (long)time(NULL);
    if (streaming) {
        struct stream *st = calloc(1, sizeof *st);
        if (!st) {
            net_req_release(r);
            return respond_error(conn, MHD_HTTP_SERVICE_UNAVAILABLE, "out of memory");
        }
        st->s = s;
        st->r = r;
        st->api = api;
        st->id = id;
        st->created = created;
        struct MHD_Response *resp =
            MHD_create_response_from_callback(MHD_SIZE_UNKNOWN, 1024, stream_read, st, stream_free);
        if (!resp) {
            stream_free(st);
            return MHD_NO;
        }
        MHD_add_response_header(resp, "Content-Type", "text/event-stream");
        MHD_add_response_header(resp, "Cache-Control", "no-cache");
        enum MHD_Result ret = MHD_queue_response(conn, MHD_HTTP_OK, resp);
        MHD_destroy_response(resp);
        return ret;
    }
    struct strbuf words = {0};
    long out = 0;
    int tok, rc;
    while ((rc = net_req_next(r, s->c.token_timeout_s, &tok)) == 1) {
        char w[32];
        net_detokenize(tok, w, sizeof w);
        strbuf_addf(&words, "%s", w);
        out++;
    }
    long p = net_req_prompt_tokens(r);
    net_req_release(r);
    if (rc < 0) {
        strbuf_release(&words);
        return respond_error(conn, MHD_HTTP_SERVICE_UNAVAILABLE, "the server is shutting down");
    }
    struct strbuf t = {0};
    if (api == API_OPENAI) {
        strbuf_addf(
            &t,
            "{\"id\":\"cmpl-%ld\",\"object\":\"text_completion\",\"created\":%ld,\"model\":", id,
            created);
        strbuf_add_quoted(&t, net_engine_model_id(s->e));
        strbuf_addf(&t, ",\"choices\":[{\"text\":");
        strbuf_add_quoted(&t, words.buf ? words.buf : "");
        strbuf_addf(&t,
                    ",\"index\":0,\"logprobs\":null,\"finish_reason\":\"length\"}],\"usage\":"
                    "{\"prompt_tokens\":%ld,\"completion_tokens\":%ld,\"total_tokens\":%ld}}",
                    p, out, p + out);
    } else {
        strbuf_addf(&t, "{\"content\":");
        strbuf_add_quoted(&t, words.buf ? words.buf : "");
        strbuf_addf(&t, ",\"stop\":true,\"tokens_evaluated\":%ld,\"tokens_predicted\":%ld}", p,
                    out);
    }
    if (words.failed)
        t.failed = true;
    strbuf_release(&words);
    return respond(conn, MHD_HTTP_OK, &t);
}

static enum MHD_Result
handle_tokenize(struct net_server *s, struct MHD_Connection *conn, const struct json *req)
{
    const struct json *c = json_get(req, "content");
    if (!c)
        c = json_get(req, "prompt");
    if (!c || c->kind != JSON_STR)
        return respond_error(conn, MHD_HTTP_BAD_REQUEST,
                             "'content' (or 'prompt') must be a string");
    long n = net_tokenize(s->e, c->str, NULL, 0);
    int *ids = malloc((size_t)(n > 0 ? n : 1) * sizeof(int));
    if (!ids)
        return respond_error(conn, MHD_HTTP_SERVICE_UNAVAILABLE, "out of memory");
    net_tokenize(s->e, c->str, ids, n);
    struct strbuf t = {0};
    strbuf_addf(&t, "{\"tokens\":[");
    for (long i = 0; i < n; i++)
        strbuf_addf(&t, "%s%d", i ? "," : "", ids[i]);
    strbuf_addf(&t, "],\"count\":%ld}", n);
    free(ids);
    return respond(conn, MHD_HTTP_OK, &t);
}

static enum MHD_Result
handle_get(struct net_server *s, struct MHD_Connection *conn, const char *url)
{
    struct strbuf t = {0};
    if (strcmp(url, "/health") == 0) {
        strbuf_addf(&t, "{\"status\":\"ok\"}");
    } else if (strcmp(url, "/v1/models") == 0) {
        strbuf_addf(&t, "{\"object\":\"list\",\"data\":[{\"id\":");
        strbuf_add_quoted(&t, net_engine_model_id(s->e));
        strbuf_addf(&t, ",\"object\":\"model\",\"owned_by\":\"roofline\"}]}");
    } else if (strcmp(url, "/stats") == 0) {
        struct net_stats st;
        net_engine_stats(s->e, &st);
        strbuf_addf(&t,
                    "{\"requests\":%ld,\"finished\":%ld,\"cancelled\":%ld,\"prefill_passes\":%ld,"
                    "\"prefill_tokens\":%ld,\"decode_steps\":%ld,\"decode_tokens\":%ld,"
                    "\"mean_decode_batch\":%.4f,\"max_decode_batch\":%d,\"running\":%d,"
                    "\"waiting\":%d,\"kv_tokens_used\":%ld}",
                    st.requests, st.finished, st.cancelled, st.prefill_passes, st.prefill_tokens,
                    st.decode_steps, st.decode_tokens,
                    st.decode_steps ? (double)st.decode_tokens / (double)st.decode_steps : 0.0,
                    st.max_batch_seen, st.running, st.waiting, st.kv_tokens_used);
    } else {
        return respond_error(conn, MHD_HTTP_NOT_FOUND, "no such endpoint '%s'", url);
    }
    return respond(conn, MHD_HTTP_OK, &t);
}

static enum MHD_Result
access_handler(void *cls, struct MHD_Connection *conn, const char *url, const char *method,
               const char *version, const char *upload_data, size_t *upload_data_size,
               void **con_cls)
{
    (void)version;
    struct net_server *s = cls;
    if (!*con_cls) {
        struct body *b = calloc(1, sizeof *b);
        if (!b)
            return MHD_NO;
        *con_cls = b;
        return MHD_YES;
    }
    struct body *b = *con_cls;
    if (*upload_data_size > 0) {
        size_t n = *upload_data_size;
        if (!b->too_big && b->sb.len + n > (size_t)s->c.max_body_bytes)
            b->too_big = true;
        if (!b->too_big) {
            strbuf_add(&b->sb, upload_data, n);
            if (b->sb.failed)
                return MHD_NO;
        }
        *upload_data_size = 0;
        return MHD_YES;
    }
    if (strcmp(method, "GET") == 0)
        return handle_get(s, conn, url);
    bool completion_openai = strcmp(url, "/v1/completions") == 0;
    bool completion_llama = strcmp(url, "/completion") == 0 || strcmp(url, "/completions") == 0;
    bool tokenize = strcmp(url, "/tokenize") == 0;
    if (!completion_openai && !completion_llama && !tokenize)
        return respond_error(conn, MHD_HTTP_NOT_FOUND, "no such endpoint '%s'", url);
    if (strcmp(method, "POST") != 0)
        return respond_error(conn, MHD_HTTP_METHOD_NOT_ALLOWED, "%s takes POST", url);
    if (b->too_big)
        return respond_error(conn, 413, "the request body exceeds %ld bytes", s->c.max_body_bytes);
    struct json_error je;
    struct json *req = json_parse(b->sb.buf ? b->sb.buf : "", b->sb.len, &je);
    if (!req)
        return respond_error(conn, MHD_HTTP_BAD_REQUEST, "invalid JSON body: %d:%d: %s", je.line,
                             je.col, je.msg);
    enum MHD_Result ret;
    if (req->kind != JSON_OBJ)
        ret = respond_error(conn, MHD_HTTP_BAD_REQUEST, "the request body must be a JSON object");
    else if (tokenize)
        ret = handle_tokenize(s, conn, req);
    else
        ret = handle_completion(s, conn, req, completion_openai ? API_OPENAI : API_LLAMACPP);
    json_free(req);
    return ret;
}

static void
completed(void *cls, struct MHD_Connection *conn, void **con_cls,
          enum MHD_RequestTerminationCode toe)
{
    (void)cls;
    (void)conn;
    (void)toe;
    struct body *b = *con_cls;
    if (b) {
        strbuf_release(&b->sb);
        free(b);
        *con_cls = NULL;
    }
}

int
net_server_start(const struct net_server_config *c, struct net_engine *e, struct net_server **out,
                 int *bound_port, char *why, size_t why_size)
{
    *out = NULL;
    struct sockaddr_in sa;
    memset(&sa, 0, sizeof sa);
    sa.sin_family = AF_INET;
    sa.sin_port = htons((uint16_t)c->port);
    if (c->port < 0 || c->port > 65535 || inet_pton(AF_INET, c->host, &sa.sin_addr) != 1) {
        snprintf(why, why_size,
                 "cannot listen on '%s' port %d: expected an IPv4 address and a "
                 "port 0-65535",
                 c->host, c->port);
        return -1;
    }
    struct net_server *s = calloc(1, sizeof *s);
    if (!s) {
        snprintf(why, why_size, "out of memory");
        return -1;
    }
    s->e = e;
    s->c = *c;
    s->d =
        MHD_start_daemon(MHD_USE_THREAD_PER_CONNECTION | MHD_USE_INTERNAL_POLLING_THREAD, 0, NULL,
                         NULL, access_handler, s, MHD_OPTION_SOCK_ADDR, (struct sockaddr *)&sa,
                         MHD_OPTION_CONNECTION_LIMIT, (unsigned int)c->max_connections,
                         MHD_OPTION_CONNECTION_TIMEOUT, (unsigned int)60,
                         MHD_OPTION_NOTIFY_COMPLETED, completed, NULL, MHD_OPTION_END);
    if (!s->d) {
        snprintf(why, why_size, "cannot listen on %s port %d (in use, or not allowed)", c->host,
                 c->port);
        free(s);
        return -1;
    }
    const union MHD_DaemonInfo *info = MHD_get_daemon_info(s->d, MHD_DAEMON_INFO_BIND_PORT);
    *bound_port = info ? (int)info->port : c->port;
    *out = s;
    return 0;
}

void
net_server_stop(struct net_server *s)
{
    if (!s)
        return;
    MHD_stop_daemon(s->d);
    free(s);
}
