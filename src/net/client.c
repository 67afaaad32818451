/* libcurl streaming client: the request body per API, an incremental Server-Sent Events parser
 * (lines, `data:` fields, blank line ends an event), each event's payload through the strict
 * JSON parser, and the failure taxonomy of net_fail with messages the CLI prints as they are. */
#include "net/client.h"

#include "io/json.h"
#include "util/alloc.h"

#include <curl/curl.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

static double
now_s(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + 1e-9 * (double)t.tv_nsec;
}

const char *
net_fail_name(enum net_fail f)
{
    static const char *const N[] = {"ok",        "connect",  "timeout", "http",
                                    "truncated", "bad_json", "other"};
    return f <= NET_OTHER ? N[f] : "?";
}

void
net_result_release(struct net_result *r)
{
    free(r->gaps_s);
    r->gaps_s = NULL;
    r->n_gaps = 0;
}

int
net_client_global_init(void)
{
    return curl_global_init(CURL_GLOBAL_DEFAULT) == CURLE_OK ? 0 : -1;
}

void
net_client_global_cleanup(void)
{
    curl_global_cleanup();
}

/* a JSON string literal appended to a malloc'd buffer */
static char *
json_body(const char *const *keys, const char *const *raw, int n)
{
    size_t len = 2;
    for (int i = 0; i < n; i++)
        len += strlen(keys[i]) + 2 * strlen(raw[i]) + 16;
    char *b = malloc(len), *p = b;
    if (!b)
        return NULL;
    *p++ = '{';
    for (int i = 0; i < n; i++) {
        p += snprintf(p, len - (size_t)(p - b), "%s\"%s\":", i ? "," : "", keys[i]);
        if (raw[i][0] == '\x01') { /* a string value: quote and escape */
            *p++ = '"';
            for (const char *s = raw[i] + 1; *s; s++) {
                unsigned char c = (unsigned char)*s;
                if (c == '"' || c == '\\') {
                    *p++ = '\\';
                    *p++ = (char)c;
                } else if (c < 0x20) {
                    *p++ = ' ';
                } else {
                    *p++ = (char)c;
                }
            }
            *p++ = '"';
        } else {
            p += snprintf(p, len - (size_t)(p - b), "%s", raw[i]);
        }
    }
    *p++ = '}';
    *p = '\0';
    return b;
}

struct ctx {
    const struct net_client *c;
    CURL *h;
    struct net_result *r;
    double t0;
    long status;
    bool done, any_event;
    long events;
    /* current line and event data */
    char *line;
    size_t line_len, line_cap;
    char *data;
    size_t data_len, data_cap;
    bool has_data;
    char errbody[1024];
    size_t errbody_len;
    long gaps_cap;
    double last_token_s;
};

static int
grow(char **buf, size_t *cap, size_t need)
{
    if (need <= *cap)
        return 0;
    size_t nc = *cap ? *cap : 256;
    while (nc < need)
        nc *= 2;
    if (nc > (1u << 24))
        return -1; /* a 16 MiB line or event: not a token stream */
    char *p = realloc(*buf, nc);
    if (!p)
        return -1;
    *buf = p;
    *cap = nc;
    return 0;
}

static void set_fail(struct ctx *x, enum net_fail f, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 3, 4)))
#endif
    ;

static void
set_fail(struct ctx *x, enum net_fail f, const char *fmt, ...)
{
    if (x->r->fail != NET_OK)
        return;
    x->r->fail = f;
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(x->r->msg, sizeof x->r->msg, fmt, ap);
    va_end(ap);
}

static void
token_at(struct ctx *x, double t)
{
    struct net_result *r = x->r;
    if (r->tokens == 0) {
        r->ttft_s = t;
    } else if (r->n_gaps < NET_MAX_GAPS) {
        if (r->n_gaps == x->gaps_cap) {
            long nc = x->gaps_cap ? 2 * x->gaps_cap : 64;
            double *g = realloc(r->gaps_s, (size_t)nc * sizeof *g);
            if (!g)
                return;
            r->gaps_s = g;
            x->gaps_cap = nc;
        }
        r->gaps_s[r->n_gaps++] = t - x->last_token_s;
    }
    x->last_token_s = t;
    r->tokens++;
}

static long
num_or(const struct json *j, const char *key, long def)
{
    double v;
    return json_number(j, key, &v) == 0 && v >= 0 && v < 1e12 ? (long)v : def;
}

/* One event's data. Returns -1 to abort the transfer. */
static int
event(struct ctx *x, const char *data)
{
    double t = now_s() - x->t0;
    x->events++;
    x->any_event = true;
    if (x->done)
        return 0; /* anything after the end marker is ignored */
    if (x->c->api == NET_API_OPENAI && strcmp(data, "[DONE]") == 0) {
        x->done = true;
        return 0;
    }
    struct json_error je;
    struct json *j = json_parse(data, strlen(data), &je);
    char where[64], detail[200];
    snprintf(where, sizeof where, "%ld", x->events);
    if (!j) {
        snprintf(detail, sizeof detail, "%d:%d: %s", je.line, je.col, je.msg);
        set_fail(x, NET_BAD_JSON, "invalid JSON in event %s of the stream: %s", where, detail);
        return -1;
    }
    int rc = 0;
    const struct json *err = json_get(j, "error");
    if (j->kind != JSON_OBJ) {
        set_fail(x, NET_BAD_JSON, "event %s of the stream is not a JSON object", where);
        rc = -1;
    } else if (err) {
        const char *m = err->kind == JSON_STR ? err->str : json_string(err, "message");
        set_fail(x, NET_HTTP, "the server sent an error in event %s: %s", where,
                 m ? m : "(no message)");
        rc = -1;
    } else if (x->c->api == NET_API_OPENAI) {
        const struct json *ch = json_get(j, "choices"), *u = json_get(j, "usage");
        if (u && u->kind == JSON_OBJ) {
            x->r->prompt_tokens = num_or(u, "prompt_tokens", x->r->prompt_tokens);
            x->r->completion_tokens = num_or(u, "completion_tokens", x->r->completion_tokens);
        }
        if ((!ch || ch->kind != JSON_ARR) && !(u && u->kind == JSON_OBJ)) {
            set_fail(x, NET_BAD_JSON, "event %s of the stream has no 'choices' array", where);
            rc = -1;
        } else if (ch && ch->kind == JSON_ARR && ch->n > 0) {
            const char *text = json_string(ch->items[0], "text");
            if (!text) {
                const struct json *d = json_get(ch->items[0], "delta");
                text = json_string(d, "content"); /* a chat endpoint */
            }
            if (text && text[0])
                token_at(x, t);
        }
    } else {
        const char *content = json_string(j, "content");
        const struct json *stop = json_get(j, "stop");
        if (!content && !stop) {
            set_fail(x, NET_BAD_JSON, "event %s of the stream has neither 'content' nor 'stop'",
                     where);
            rc = -1;
        } else {
            if (content && content[0])
                token_at(x, t);
            if (stop && stop->kind == JSON_BOOL && stop->b) {
                x->done = true;
                x->r->prompt_tokens = num_or(j, "tokens_evaluated", x->r->prompt_tokens);
                x->r->completion_tokens = num_or(j, "tokens_predicted", x->r->completion_tokens);
            }
        }
    }
    json_free(j);
    return rc;
}

static int
line_done(struct ctx *x)
{
    char *l = x->line;
    size_t n = x->line_len;
    if (n > 0 && l[n - 1] == '\r')
        n--;
    l[n] = '\0';
    if (n == 0) { /* blank line: dispatch */
        if (!x->has_data)
            return 0;
        x->has_data = false;
        x->data[x->data_len] = '\0';
        x->data_len = 0;
        return event(x, x->data);
    }
    if (l[0] == ':')
        return 0; /* comment */
    if (strncmp(l, "data:", 5) == 0) {
        const char *v = l + 5 + (l[5] == ' ');
        size_t vl = strlen(v);
        if (grow(&x->data, &x->data_cap, x->data_len + vl + 2) != 0) {
            set_fail(x, NET_OTHER, "an event of the stream is too large");
            return -1;
        }
        if (x->has_data)
            x->data[x->data_len++] = '\n';
        memcpy(x->data + x->data_len, v, vl);
        x->data_len += vl;
        x->has_data = true;
        return 0;
    }
    if (strncmp(l, "event:", 6) == 0 || strncmp(l, "id:", 3) == 0 || strncmp(l, "retry:", 6) == 0)
        return 0;
    char excerpt[48];
    snprintf(excerpt, sizeof excerpt, "%.40s", l);
    set_fail(x, NET_BAD_JSON, "the response is not an event stream (a line reads '%s')", excerpt);
    return -1;
}

static size_t
on_data(char *p, size_t size, size_t nmemb, void *user)
{
    struct ctx *x = user;
    size_t n = size * nmemb;
    if (x->status == 0)
        curl_easy_getinfo(x->h, CURLINFO_RESPONSE_CODE, &x->status);
    if (x->status >= 400) {
        size_t room = sizeof x->errbody - 1 - x->errbody_len;
        size_t k = n < room ? n : room;
        memcpy(x->errbody + x->errbody_len, p, k);
        x->errbody_len += k;
        x->errbody[x->errbody_len] = '\0';
        return n;
    }
    for (size_t i = 0; i < n; i++) {
        if (p[i] == '\n') {
            if (grow(&x->line, &x->line_cap, x->line_len + 1) != 0 || line_done(x) != 0)
                return 0;
            x->line_len = 0;
            continue;
        }
        if (grow(&x->line, &x->line_cap, x->line_len + 2) != 0) {
            set_fail(x, NET_BAD_JSON, "a line of the response exceeds 16 MiB");
            return 0;
        }
        x->line[x->line_len++] = p[i];
    }
    return n;
}

static CURL *
new_handle(const struct net_client *c, const char *url, const char *body, struct curl_slist **hd,
           char *errbuf)
{
    CURL *h = curl_easy_init();
    if (!h)
        return NULL;
    *hd = curl_slist_append(NULL, "Content-Type: application/json");
    *hd = curl_slist_append(*hd, "Accept: text/event-stream");
    curl_easy_setopt(h, CURLOPT_URL, url);
    curl_easy_setopt(h, CURLOPT_POSTFIELDS, body);
    curl_easy_setopt(h, CURLOPT_HTTPHEADER, *hd);
    curl_easy_setopt(h, CURLOPT_NOSIGNAL, 1L);
    curl_easy_setopt(h, CURLOPT_NOPROXY, "localhost,127.0.0.1,::1");
    long ms = (long)(c->timeout_s * 1000);
    curl_easy_setopt(h, CURLOPT_TIMEOUT_MS, ms > 0 ? ms : 1L);
    curl_easy_setopt(h, CURLOPT_CONNECTTIMEOUT_MS, ms < 10000 ? (ms > 0 ? ms : 1L) : 10000L);
    curl_easy_setopt(h, CURLOPT_ERRORBUFFER, errbuf);
    errbuf[0] = '\0';
    return h;
}

/* the server's message in an error body: error.message, error (string), message, or the text */
static void
error_text(const char *body, char *out, size_t n)
{
    struct json *j = json_parse(body, strlen(body), NULL);
    const char *m = NULL;
    if (j) {
        const struct json *e = json_get(j, "error");
        m = e && e->kind == JSON_STR ? e->str : json_string(e, "message");
        if (!m)
            m = json_string(j, "message");
        if (!m)
            m = json_string(j, "detail");
    }
    snprintf(out, n, "%.200s", m ? m : body);
    for (char *p = out; *p; p++)
        if (*p == '\n' || *p == '\r')
            *p = ' ';
    json_free(j);
}

int
net_stream(const struct net_client *c, const char *prompt, long max_tokens, struct net_result *out)
{
    memset(out, 0, sizeof *out);
    out->ttft_s = NAN;
    out->prompt_tokens = out->completion_tokens = -1;
    char ntok[32], model[256];
    snprintf(ntok, sizeof ntok, "%ld", max_tokens);
    char *sp = malloc(strlen(prompt) + 2);
    if (!sp) {
        out->fail = NET_OTHER;
        snprintf(out->msg, sizeof out->msg, "out of memory");
        alloc_note_failure();
        return -1;
    }
    sp[0] = '\x01';
    memcpy(sp + 1, prompt, strlen(prompt) + 1);
    snprintf(model, sizeof model, "\x01%s", c->model ? c->model : "");
    char *body;
    if (c->api == NET_API_OPENAI) {
        const char *k[] = {"prompt",     "max_tokens",   "stream",         "temperature",
                           "ignore_eos", "cache_prompt", "stream_options", "model"};
        const char *v[] = {sp,   ntok, "true", "0", "true", "false", "{\"include_usage\":true}",
                           model};
        body = json_body(k, v, c->model ? 8 : 7);
    } else {
        const char *k[] = {"prompt",      "n_predict",  "stream",
                           "temperature", "ignore_eos", "cache_prompt"};
        const char *v[] = {sp, ntok, "true", "0", "true", "false"};
        body = json_body(k, v, 6);
    }
    free(sp);
    struct ctx x;
    memset(&x, 0, sizeof x);
    x.c = c;
    x.r = out;
    char errbuf[CURL_ERROR_SIZE];
    struct curl_slist *hd = NULL;
    CURL *h = body ? new_handle(c, c->url, body, &hd, errbuf) : NULL;
    if (!h) {
        free(body);
        curl_slist_free_all(hd);
        out->fail = NET_OTHER;
        snprintf(out->msg, sizeof out->msg, "cannot set up the request (out of memory)");
        alloc_note_failure();
        return -1;
    }
    x.h = h;
    curl_easy_setopt(h, CURLOPT_WRITEFUNCTION, on_data);
    curl_easy_setopt(h, CURLOPT_WRITEDATA, &x);
    x.t0 = now_s();
    CURLcode cc = curl_easy_perform(h);
    out->e2e_s = now_s() - x.t0;
    curl_easy_getinfo(h, CURLINFO_RESPONSE_CODE, &x.status);
    out->http_status = (int)x.status;
    /* a last event without its blank line still counts when the connection closed cleanly */
    if (cc == CURLE_OK && out->fail == NET_OK && x.status < 400 && x.line_len > 0) {
        if (grow(&x.line, &x.line_cap, x.line_len + 1) == 0)
            line_done(&x);
        x.line_len = 0;
    }
    char toks[32];
    snprintf(toks, sizeof toks, "%ld", out->tokens);
    if (out->fail != NET_OK) {
        /* set by the parser: the transfer was aborted on purpose */
    } else if (cc == CURLE_COULDNT_CONNECT || cc == CURLE_COULDNT_RESOLVE_HOST) {
        set_fail(&x, NET_CONNECT, "cannot connect to %s (%s)", c->url,
                 cc == CURLE_COULDNT_CONNECT ? "is the server running?" : "unknown host");
    } else if (cc == CURLE_OPERATION_TIMEDOUT) {
        char tm[64];
        snprintf(tm, sizeof tm, "%g s (%ld tokens received)", c->timeout_s, out->tokens);
        set_fail(&x, NET_TIMEOUT, "no complete answer from %s within %s", c->url, tm);
    } else if (x.status >= 400) {
        char st[320], m[210];
        error_text(x.errbody, m, sizeof m);
        snprintf(st, sizeof st, "HTTP %ld from %s", x.status, c->url);
        set_fail(&x, NET_HTTP, "%s: %s", st, m);
    } else if (cc != CURLE_OK && (cc == CURLE_PARTIAL_FILE || cc == CURLE_RECV_ERROR ||
                                  cc == CURLE_GOT_NOTHING || cc == CURLE_HTTP2_STREAM)) {
        char st[64];
        snprintf(st, sizeof st, "after %ld tokens (%s)", out->tokens, curl_easy_strerror(cc));
        set_fail(&x, NET_TRUNCATED, "the stream from %s was cut %s", c->url, st);
    } else if (cc != CURLE_OK) {
        set_fail(&x, NET_OTHER, "request to %s failed: %s", c->url,
                 errbuf[0] ? errbuf : curl_easy_strerror(cc));
    } else if (!x.any_event) {
        set_fail(&x, NET_TRUNCATED, "%s answered without any event (empty stream)", c->url);
    } else if (!x.done) {
        set_fail(&x, NET_TRUNCATED,
                 "the stream from %s ended after %s tokens without its end "
                 "marker",
                 c->url, toks);
        if (c->api == NET_API_OPENAI)
            snprintf(out->msg + strlen(out->msg), sizeof out->msg - strlen(out->msg),
                     " ('data: [DONE]')");
        else
            snprintf(out->msg + strlen(out->msg), sizeof out->msg - strlen(out->msg),
                     " ('\"stop\": true')");
    }
    curl_easy_cleanup(h);
    curl_slist_free_all(hd);
    free(body);
    free(x.line);
    free(x.data);
    return out->fail == NET_OK ? 0 : -1;
}

struct sink {
    char buf[1 << 20];
    size_t len;
    bool over;
};

static size_t
on_sink(char *p, size_t size, size_t nmemb, void *user)
{
    struct sink *s = user;
    size_t n = size * nmemb;
    if (s->len + n >= sizeof s->buf) {
        s->over = true;
        return 0;
    }
    memcpy(s->buf + s->len, p, n);
    s->len += n;
    s->buf[s->len] = '\0';
    return n;
}

int
net_tokenize_remote(const struct net_client *c, const char *text, long *n, char *msg,
                    size_t msg_size)
{
    /* scheme://host:port of the completion URL, then /tokenize */
    const char *hs = strstr(c->url, "://");
    const char *slash = hs ? strchr(hs + 3, '/') : NULL;
    size_t base = slash ? (size_t)(slash - c->url) : strlen(c->url);
    char url[1024];
    if (base + 10 >= sizeof url) {
        snprintf(msg, msg_size, "URL too long");
        return -1;
    }
    snprintf(url, sizeof url, "%.*s/tokenize", (int)base, c->url);
    char *st = malloc(strlen(text) + 2);
    if (!st) {
        snprintf(msg, msg_size, "out of memory");
        alloc_note_failure();
        return -1;
    }
    st[0] = '\x01';
    memcpy(st + 1, text, strlen(text) + 1);
    char model[256];
    snprintf(model, sizeof model, "\x01%s", c->model ? c->model : "");
    const char *k[] = {"content", "prompt", "model"};
    const char *v[] = {st, st, model};
    char *body = json_body(k, v, c->model ? 3 : 2);
    free(st);
    struct sink *s = calloc(1, sizeof *s);
    char errbuf[CURL_ERROR_SIZE];
    struct curl_slist *hd = NULL;
    CURL *h = body && s ? new_handle(c, url, body, &hd, errbuf) : NULL;
    int rc = -1;
    if (!h) {
        snprintf(msg, msg_size, "out of memory");
        alloc_note_failure();
        goto out;
    }
    curl_easy_setopt(h, CURLOPT_WRITEFUNCTION, on_sink);
    curl_easy_setopt(h, CURLOPT_WRITEDATA, s);
    CURLcode cc = curl_easy_perform(h);
    long status = 0;
    curl_easy_getinfo(h, CURLINFO_RESPONSE_CODE, &status);
    if (cc != CURLE_OK || status != 200) {
        snprintf(msg, msg_size, "%s: %s", url,
                 cc != CURLE_OK  ? curl_easy_strerror(cc)
                 : status == 404 ? "HTTP 404 (no tokenizer)"
                                 : "HTTP error");
        goto out;
    }
    struct json *j = json_parse(s->buf, s->len, NULL);
    double cnt;
    const struct json *toks = json_get(j, "tokens");
    if (json_number(j, "count", &cnt) == 0 && cnt >= 0) {
        *n = (long)cnt;
        rc = 0;
    } else if (toks && toks->kind == JSON_ARR) {
        *n = (long)toks->n;
        rc = 0;
    } else {
        snprintf(msg, msg_size, "%s: the answer has neither 'count' nor 'tokens'", url);
    }
    json_free(j);
out:
    if (h)
        curl_easy_cleanup(h);
    curl_slist_free_all(hd);
    free(body);
    free(s);
    return rc;
}
