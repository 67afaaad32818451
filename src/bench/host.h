/* What the benchmark knows about the machine it runs on: CPU model and vendor, CPUs, memory,
 * cache sizes (sysfs, else sysconf), the compiler. Reads /proc and /sys; never prints. */
#ifndef ROOFLINE_BENCH_HOST_H
#define ROOFLINE_BENCH_HOST_H

#define BENCH_MAX_CACHES 8

struct bench_cache {
    int level;         /* 1, 2, 3 */
    char type[32];     /* "Data", "Unified" (instruction caches are skipped) */
    double size_bytes; /* one instance */
    int shared_cpus;   /* CPUs sharing one instance (0 = unknown) */
};

struct bench_host {
    char cpu_model[128];
    char vendor_id[32]; /* as /proc/cpuinfo says: GenuineIntel, AuthenticAMD, ... */
    char vendor[16];    /* the profile's vocabulary: intel, amd, other */
    int online_cpus;    /* sysconf(_SC_NPROCESSORS_ONLN) */
    int allowed_cpus;   /* in this process's affinity mask */
    double memory_bytes;
    struct bench_cache caches[BENCH_MAX_CACHES];
    int n_caches;
    char cache_source[32]; /* "sysfs", "sysconf", "none" */
    double llc_bytes;      /* largest data/unified cache instance (0 = unknown) */
    char compiler[96];
    char cflags[256];
};

/* Probe the host. Never fails: unknown fields stay 0 / "unknown". */
void bench_host_probe(struct bench_host *h);
/* Size of the data/unified cache at `level` (one instance), 0 when unknown. */
double bench_host_cache(const struct bench_host *h, int level);
/* Map a /proc/cpuinfo vendor_id to intel / amd / other. */
const char *bench_vendor_of(const char *vendor_id);

#endif
