/* Host probe: /proc/cpuinfo for the model and vendor, sysfs cache descriptions (sysconf when the
 * kernel does not publish them, as in some virtual machines), sysconf for CPUs and memory. */
#define _GNU_SOURCE
#include "bench/host.h"
#include "util/array.h"

#include <errno.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

const char *
bench_vendor_of(const char *vendor_id)
{
    if (strcmp(vendor_id, "GenuineIntel") == 0)
        return "intel";
    if (strcmp(vendor_id, "AuthenticAMD") == 0)
        return "amd";
    return "other";
}

static void
trim(char *s)
{
    size_t n = strlen(s);
    while (n > 0 && (s[n - 1] == '\n' || s[n - 1] == ' ' || s[n - 1] == '\t'))
        s[--n] = '\0';
    size_t i = 0;
    while (s[i] == ' ' || s[i] == '\t')
        i++;
    if (i)
        memmove(s, s + i, n - i + 1);
}

static void
read_cpuinfo(struct bench_host *h)
{
    FILE *f = fopen("/proc/cpuinfo", "r");
    if (!f)
        return;
    char line[512];
    while (fgets(line, sizeof line, f)) {
        char *colon = strchr(line, ':');
        if (!colon)
            continue;
        *colon = '\0';
        char *key = line, *val = colon + 1;
        trim(key);
        trim(val);
        if (!h->cpu_model[0] && (strcmp(key, "model name") == 0 || strcmp(key, "Model") == 0))
            snprintf(h->cpu_model, sizeof h->cpu_model, "%s", val);
        else if (!h->vendor_id[0] && strcmp(key, "vendor_id") == 0)
            snprintf(h->vendor_id, sizeof h->vendor_id, "%s", val);
        else if (!h->vendor_id[0] && strcmp(key, "CPU implementer") == 0)
            snprintf(h->vendor_id, sizeof h->vendor_id, "implementer %s", val);
    }
    fclose(f);
}

/* "48K", "1024K", "32M" as sysfs writes them */
static double
parse_size(const char *s)
{
    char *end;
    errno = 0;
    double v = strtod(s, &end);
    if (errno || end == s || v < 0)
        return 0;
    if (*end == 'K')
        v *= 1024;
    else if (*end == 'M')
        v *= 1024 * 1024;
    else if (*end == 'G')
        v *= 1024.0 * 1024 * 1024;
    return v;
}

static int
read_line(const char *path, char *buf, size_t size)
{
    FILE *f = fopen(path, "r");
    if (!f)
        return -1;
    char *ok = fgets(buf, (int)size, f);
    fclose(f);
    if (!ok)
        return -1;
    trim(buf);
    return 0;
}

/* CPUs in a list such as "0-3,8-11" */
static int
count_cpu_list(const char *s)
{
    int n = 0;
    while (*s) {
        char *end;
        long a = strtol(s, &end, 10);
        if (end == s)
            break;
        long b = a;
        s = end;
        if (*s == '-') {
            b = strtol(s + 1, &end, 10);
            s = end;
        }
        if (b >= a)
            n += (int)(b - a + 1);
        if (*s == ',')
            s++;
        else
            break;
    }
    return n;
}

static void
read_sysfs_caches(struct bench_host *h)
{
    for (int i = 0; i < 16 && h->n_caches < BENCH_MAX_CACHES; i++) {
        char path[128], level[32], type[32], size[32], shared[256];
        snprintf(path, sizeof path, "/sys/devices/system/cpu/cpu0/cache/index%d/level", i);
        if (read_line(path, level, sizeof level) != 0)
            break;
        snprintf(path, sizeof path, "/sys/devices/system/cpu/cpu0/cache/index%d/type", i);
        if (read_line(path, type, sizeof type) != 0 || strcmp(type, "Instruction") == 0)
            continue;
        snprintf(path, sizeof path, "/sys/devices/system/cpu/cpu0/cache/index%d/size", i);
        if (read_line(path, size, sizeof size) != 0)
            continue;
        struct bench_cache *c = &h->caches[h->n_caches];
        c->level = (int)strtol(level, NULL, 10);
        snprintf(c->type, sizeof c->type, "%s", type);
        c->size_bytes = parse_size(size);
        snprintf(path, sizeof path, "/sys/devices/system/cpu/cpu0/cache/index%d/shared_cpu_list",
                 i);
        if (read_line(path, shared, sizeof shared) == 0)
            c->shared_cpus = count_cpu_list(shared);
        if (c->size_bytes > 0 && c->level > 0)
            h->n_caches++;
    }
    if (h->n_caches > 0)
        snprintf(h->cache_source, sizeof h->cache_source, "sysfs");
}

static void
read_sysconf_caches(struct bench_host *h)
{
    static const struct {
        int name, level;
        const char *type;
    } Q[] = {{_SC_LEVEL1_DCACHE_SIZE, 1, "Data"},
             {_SC_LEVEL2_CACHE_SIZE, 2, "Unified"},
             {_SC_LEVEL3_CACHE_SIZE, 3, "Unified"}};
    for (size_t i = 0; i < ARRAY_SIZE(Q); i++) {
        long v = sysconf(Q[i].name);
        if (v <= 0)
            continue;
        struct bench_cache *c = &h->caches[h->n_caches++];
        c->level = Q[i].level;
        snprintf(c->type, sizeof c->type, "%s", Q[i].type);
        c->size_bytes = (double)v;
    }
    if (h->n_caches > 0)
        snprintf(h->cache_source, sizeof h->cache_source, "sysconf");
}

double
bench_host_cache(const struct bench_host *h, int level)
{
    for (int i = 0; i < h->n_caches; i++)
        if (h->caches[i].level == level)
            return h->caches[i].size_bytes;
    return 0;
}

void
bench_host_probe(struct bench_host *h)
{
    memset(h, 0, sizeof *h);
    read_cpuinfo(h);
    if (!h->cpu_model[0])
        snprintf(h->cpu_model, sizeof h->cpu_model, "unknown");
    if (!h->vendor_id[0])
        snprintf(h->vendor_id, sizeof h->vendor_id, "unknown");
    snprintf(h->vendor, sizeof h->vendor, "%s", bench_vendor_of(h->vendor_id));
    long on = sysconf(_SC_NPROCESSORS_ONLN);
    h->online_cpus = on > 0 ? (int)on : 1;
    cpu_set_t set;
    h->allowed_cpus =
        sched_getaffinity(0, sizeof set, &set) == 0 ? CPU_COUNT(&set) : h->online_cpus;
    long pages = sysconf(_SC_PHYS_PAGES), psize = sysconf(_SC_PAGESIZE);
    if (pages > 0 && psize > 0)
        h->memory_bytes = (double)pages * (double)psize;
    snprintf(h->cache_source, sizeof h->cache_source, "none");
    read_sysfs_caches(h);
    if (h->n_caches == 0)
        read_sysconf_caches(h);
    for (int i = 0; i < h->n_caches; i++)
        if (h->caches[i].size_bytes > h->llc_bytes)
            h->llc_bytes = h->caches[i].size_bytes;
#if defined(__clang__)
    snprintf(h->compiler, sizeof h->compiler, "clang %s", __clang_version__);
#elif defined(__GNUC__)
    snprintf(h->compiler, sizeof h->compiler, "gcc %s", __VERSION__);
#else
    snprintf(h->compiler, sizeof h->compiler, "unknown");
#endif
#if defined(ROOFLINE_CFLAGS)
    snprintf(h->cflags, sizeof h->cflags, "%s", ROOFLINE_CFLAGS);
#else
    /* the Makefile does not pass its flags in; say what the predefined macros tell */
    snprintf(h->cflags, sizeof h->cflags, "-std=c17%s%s%s",
#if defined(__OPTIMIZE__)
             " -O(>0)",
#else
             " -O0",
#endif
#if defined(__SANITIZE_ADDRESS__)
             " -fsanitize=address",
#else
             "",
#endif
             "; kernels: target attributes per ISA");
#endif
}
