/* Hardware profile loader: schema check with positions, units, the sources rule. */
#include "io/profiles.h"

#include "io/ydoc.h"
#include "util/array.h"
#include "util/strs.h"
#include "util/units.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const char *const TOP_KEYS[] = {"name",
                                       "vendor",
                                       "kind",
                                       "memory",
                                       "compute",
                                       "compute_units",
                                       "boost_clock",
                                       "cache",
                                       "interconnect",
                                       "power",
                                       "price",
                                       "notes",
                                       "sources",
                                       "cache_bandwidth",
                                       "provenance",
                                       "gemm_efficiency",
                                       "server_devices",
                                       "vector",
                                       "gemm_vs_class",
                                       "memory_vs_class",
                                       "gemm_floor",
                                       "gemm_bandwidth",
                                       "cuda_capability",
                                       "llc_stream"};
static const char *const MEMORY_KEYS[] = {"capacity", "reported", "bandwidth", "type"};
static const char *const VECTOR_KEYS[] = {"flops_per_cycle", "fraction", "fraction_of"};
static const char *const CACHE_KEYS[] = {"l1", "l2", "l3", "llc"};
static const char *const LLC_STREAM_KEYS[] = {"size", "retained", "bandwidth"};
static const char *const LINK_KEYS[] = {"kind", "bandwidth", "direction", "per_peer"};
static const char *const POWER_KEYS[] = {"tdp"};
static const char *const PRICE_KEYS[] = {"purchase", "cloud"};
static const char *const PURCHASE_KEYS[] = {"usd", "date", "basis", "source"};
static const char *const CLOUD_KEYS[] = {"provider", "usd_per_hour", "date", "basis", "source"};
/* An hourly rental above this is a typing slip (the dearest 8-GPU instances list near $100/h). */
#define MAX_USD_PER_HOUR 1000.0
#define MAX_SERVER_DEVICES 16
static const char *const VENDORS[] = {"nvidia", "amd", "intel", "google", "apple", "other"};
static const char *const KINDS[] = {"gpu", "tpu", "npu", "soc", "cpu"};

#define N(a) (ARRAY_SIZE(a))

/* Physical ranges of one device (docs/profiles.md#ranges). The largest shipping parts sit far
 * inside them (B200: 192 GB, 8 TB/s, 9 PFLOPS dense fp4; a wafer-scale engine: 44 GB of SRAM at
 * 21 PB/s, 125 PFLOPS); outside them a value is a slip of the unit or of the exponent, and it
 * turned into an infinite max batch or a zero-time GEMM. Above warn_above: a warning. */
static const struct yrange CAPACITY_RANGE = {1e6, 1e15, 1e13, "B"};    /* 1 MB..1 PB */
static const struct yrange BANDWIDTH_RANGE = {1e6, 1e16, 1e14, "B/s"}; /* ..10 PB/s */
static const struct yrange FLOPS_RANGE = {1e6, 1e19, 1e17, "FLOP/s"};  /* ..10 EFLOP/s */
static const struct yrange CACHE_RANGE = {1e3, 1e12, 0, "B"};          /* 1 kB..1 TB */
static const struct yrange RETAINED_RANGE = {0, 1e12, 0, "B"};         /* none..1 TB */
static const struct yrange CACHE_BW_RANGE = {1e6, 1e17, 1e16, "B/s"};  /* ..100 PB/s */
static const struct yrange LINK_RANGE = {1e6, 1e16, 1e14, "B/s"};      /* ..10 PB/s */
static const struct yrange CLOCK_RANGE = {1e6, 1e11, 1e10, "Hz"};      /* 1 MHz..100 GHz */
static const struct yrange TDP_RANGE = {0.1, 1e6, 1e5, "W"};           /* ..1 MW */
/* a GEMM kernel's least time: up to 1 ms; above 100 us it is a slip of the unit */
static const struct yrange GEMM_FLOOR_RANGE = {0, 1e-3, 1e-4, "s"};
#define MAX_COMPUTE_UNITS 10000000L

/* ycheck_qty, then the range check; *out is left alone unless both pass */
static bool
qty_in(struct ycheck *y, const struct ynode *map, const char *prefix, const char *key,
       enum unit_kind kind, bool required, const struct yrange *r, double *out)
{
    double v;
    if (!ycheck_qty(y, map, prefix, key, kind, required, &v))
        return false;
    if (!ycheck_range(y, map, prefix, key, v, r))
        return false;
    *out = v;
    return true;
}

/* memory.reported is the datasheet's memory as the device reports it: HBM and GDDR sold in
 * "GB" report about that many GiB less a driver reserve (1.07 x), ECC on GDDR takes 1/16, a
 * unified-memory GPU sees part of it. Outside half to 1.25 times the datasheet figure it is a
 * slip of units (GB for MiB, a 1024 too many) or the wrong device. */
static void
check_reported(struct ycheck *y, const struct ynode *at, const struct hw_profile *hw)
{
    double cap = hw->memory_capacity_bytes, rep = hw->memory_reported_bytes;
    if (cap <= 0)
        return;
    if (rep > 1.25 * cap || rep < 0.5 * cap)
        ycheck_error(y, at,
                     "'memory.reported' (%.4g GB) must lie between 0.5 and 1.25 times "
                     "'memory.capacity' (%.4g GB): a device reports about its datasheet memory "
                     "(check the unit: MiB, GiB or GB)",
                     rep / 1e9, cap / 1e9);
}

static void
load_compute(struct ycheck *y, const struct ynode *map, struct hw_profile *hw)
{
    const char *names[DT_COUNT + 1];
    size_t n = 0;
    for (int d = DT_ROOF_FIRST; d <= DT_ROOF_LAST; d++)
        names[n++] = dtype_name((enum dtype)d);
    names[n++] = "fp16_acc16";
    qty_in(y, map, "compute", "fp16_acc16", UNIT_FLOPS_PER_S, false, &FLOPS_RANGE,
           &hw->fp16_acc16_flops_per_s);
    ycheck_keys(y, map, "compute", names, n);
    int found = 0;
    for (int d = DT_ROOF_FIRST; d <= DT_ROOF_LAST; d++) {
        double v;
        if (qty_in(y, map, "compute", dtype_name((enum dtype)d), UNIT_FLOPS_PER_S, false,
                   &FLOPS_RANGE, &v)) {
            hw->peak_flops_per_s[d] = v;
            found++;
        }
    }
    if (found == 0 && map->n == 0)
        ycheck_error(y, map, "'compute' needs at least one peak rate (fp32, fp16, ...)");
}

/* The vector units (docs/physics.md#vector-rate): FLOPs per cycle per compute unit, or a fraction
 * of a format's tensor peak. */
static void
load_vector(struct ycheck *y, const struct ynode *map, struct hw_profile *hw)
{
    if (!ycheck_map(y, map, "vector"))
        return;
    ycheck_keys(y, map, "vector", VECTOR_KEYS, N(VECTOR_KEYS));
    double v;
    if (ycheck_num(y, map, "vector", "flops_per_cycle", false, &v)) {
        if (!(v > 0))
            ycheck_error(y, ynode_get(map, "flops_per_cycle"),
                         "'vector.flops_per_cycle' must be positive, got %g", v);
        else
            hw->vector_flops_per_cycle = v;
    }
    bool has_fraction = ycheck_num(y, map, "vector", "fraction", false, &v);
    if (has_fraction && !(v > 0 && v <= 1))
        ycheck_error(y, ynode_get(map, "fraction"),
                     "'vector.fraction' must be a fraction in (0, 1], got %g", v);
    const char *of = NULL;
    bool has_of = ycheck_str(y, map, "vector", "fraction_of", false, &of);
    if (has_fraction != has_of) {
        ycheck_error(y, map, "'vector.fraction' and 'vector.fraction_of' go together");
        return;
    }
    if (!has_fraction || !(v > 0 && v <= 1))
        return;
    enum dtype d;
    if (dtype_parse(of, &d) != 0 || !dtype_is_roof(d) || hw->peak_flops_per_s[d] <= 0) {
        ycheck_error(y, ynode_get(map, "fraction_of"),
                     "'vector.fraction_of' is '%s'; it must name a format with a peak in 'compute'",
                     of);
        return;
    }
    hw->vector_fraction = v;
    hw->vector_fraction_of = d;
}

static char *
dup_opt(const char *s)
{
    return s ? str_dup(s) : NULL;
}

/* A price's date: YYYY-MM or YYYY-MM-DD with a month 01..12 and a day 01..31. */
static bool
valid_date(const char *s)
{
    size_t n = strlen(s);
    if (n != 7 && n != 10)
        return false;
    for (size_t i = 0; i < n; i++) {
        bool dash = i == 4 || i == 7;
        if (dash ? s[i] != '-' : (s[i] < '0' || s[i] > '9'))
            return false;
    }
    int month = (s[5] - '0') * 10 + (s[6] - '0');
    if (month < 1 || month > 12)
        return false;
    if (n == 10) {
        int day = (s[8] - '0') * 10 + (s[9] - '0');
        if (day < 1 || day > 31)
            return false;
    }
    return true;
}

/* Reads the required 'date' of a price entry and checks its form; false when missing or bad. */
static bool
price_date(struct ycheck *y, const struct ynode *e, const char *what, const char **date)
{
    if (!ycheck_str(y, e, what, "date", true, date))
        return false;
    if (!valid_date(*date)) {
        ycheck_error(y, ynode_get(e, "date"),
                     "'%s.date' is '%s'; expected a month or a day as YYYY-MM or YYYY-MM-DD", what,
                     *date);
        return false;
    }
    return true;
}

static void
load_prices(struct ycheck *y, const struct ynode *price, struct hw_profile *hw)
{
    if (!ycheck_map(y, price, "price"))
        return;
    ycheck_keys(y, price, "price", PRICE_KEYS, N(PRICE_KEYS));
    const struct ynode *pur = ynode_get(price, "purchase");
    if (pur && !ynode_is_null(pur)) {
        if (pur->kind != YNODE_SEQ) {
            ycheck_error(y, pur, "'price.purchase' must be a list of {usd, date, source}");
        } else {
            hw->purchase = calloc(pur->n ? pur->n : 1, sizeof *hw->purchase);
            for (size_t i = 0; hw->purchase && i < pur->n; i++) {
                const struct ynode *e = pur->items[i];
                if (!ycheck_map(y, e, "price.purchase[]"))
                    continue;
                ycheck_keys(y, e, "price.purchase[]", PURCHASE_KEYS, N(PURCHASE_KEYS));
                struct hw_price_purchase *p = &hw->purchase[hw->n_purchase];
                const char *date = NULL, *basis = NULL, *src = NULL;
                bool ok = ycheck_num(y, e, "price.purchase[]", "usd", true, &p->usd);
                if (ok && !(p->usd > 0 && isfinite(p->usd))) {
                    ycheck_error(y, ynode_get(e, "usd"),
                                 "'price.purchase[].usd' must be a positive finite number");
                    ok = false;
                }
                ok &= price_date(y, e, "price.purchase[]", &date);
                ok &= ycheck_str(y, e, "price.purchase[]", "source", true, &src);
                ycheck_str(y, e, "price.purchase[]", "basis", false, &basis);
                if (!ok)
                    continue;
                p->date = dup_opt(date);
                p->basis = dup_opt(basis);
                p->source = dup_opt(src);
                hw->n_purchase++;
            }
        }
    }
    const struct ynode *cl = ynode_get(price, "cloud");
    if (cl && !ynode_is_null(cl)) {
        if (cl->kind != YNODE_SEQ) {
            ycheck_error(y, cl,
                         "'price.cloud' must be a list of {provider, usd_per_hour, date, source}");
        } else {
            hw->cloud = calloc(cl->n ? cl->n : 1, sizeof *hw->cloud);
            if (!hw->cloud)
                ycheck_error(y, cl, "out of memory (while reading the prices)");
            for (size_t i = 0; hw->cloud && i < cl->n; i++) {
                const struct ynode *e = cl->items[i];
                if (!ycheck_map(y, e, "price.cloud[]"))
                    continue;
                ycheck_keys(y, e, "price.cloud[]", CLOUD_KEYS, N(CLOUD_KEYS));
                struct hw_price_cloud *p = &hw->cloud[hw->n_cloud];
                const char *prov = NULL, *date = NULL, *basis = NULL, *src = NULL;
                bool ok = ycheck_str(y, e, "price.cloud[]", "provider", true, &prov);
                if (ycheck_num(y, e, "price.cloud[]", "usd_per_hour", true, &p->usd_per_hour)) {
                    if (!(p->usd_per_hour > 0 && isfinite(p->usd_per_hour))) {
                        ycheck_error(
                            y, ynode_get(e, "usd_per_hour"),
                            "'price.cloud[].usd_per_hour' must be a positive finite number");
                        ok = false;
                    } else if (p->usd_per_hour > MAX_USD_PER_HOUR) {
                        ycheck_error(
                            y, ynode_get(e, "usd_per_hour"),
                            "'price.cloud[].usd_per_hour' is %g, above $%.0f per device-hour "
                            "(give the price of one device, not of the instance)",
                            p->usd_per_hour, MAX_USD_PER_HOUR);
                        ok = false;
                    }
                } else {
                    ok = false;
                }
                ok &= price_date(y, e, "price.cloud[]", &date);
                ok &= ycheck_str(y, e, "price.cloud[]", "source", true, &src);
                ycheck_str(y, e, "price.cloud[]", "basis", false, &basis);
                if (!ok)
                    continue;
                p->provider = dup_opt(prov);
                p->basis = dup_opt(basis);
                p->date = dup_opt(date);
                p->source = dup_opt(src);
                hw->n_cloud++;
            }
        }
    }
}

/* Every number outside price (whose entries carry their own source) must be covered by a sources
 * key equal to its dotted path or to a prefix of it. */
static void
check_sources(struct ycheck *y, const struct ynode *root, const struct ynode *src,
              struct hw_profile *hw)
{
    if (!src || ynode_is_null(src)) {
        ycheck_error(y, root, "missing required key 'sources' (every number needs its origin)");
        return;
    }
    if (!ycheck_map(y, src, "sources"))
        return;
    hw->source_keys = calloc(src->n / 2 + 1, sizeof(char *));
    hw->source_texts = calloc(src->n / 2 + 1, sizeof(char *));
    for (size_t i = 0; i + 1 < src->n; i += 2) {
        const struct ynode *k = src->items[i], *v = src->items[i + 1];
        char top[128];
        snprintf(top, sizeof top, "%s", k->value);
        char *dot = strchr(top, '.');
        if (dot)
            *dot = '\0';
        bool known = false;
        for (size_t j = 0; j < N(TOP_KEYS) && !known; j++)
            known = strcmp(top, TOP_KEYS[j]) == 0;
        if (!known) {
            const char *hint = str_closest(top, TOP_KEYS, N(TOP_KEYS));
            if (hint)
                ycheck_error(y, k, "source for unknown field '%s' (did you mean '%s'?)", k->value,
                             hint);
            else
                ycheck_error(y, k, "source for unknown field '%s'", k->value);
        }
        if (v->kind != YNODE_SCALAR || v->value[0] == '\0') {
            ycheck_error(y, v, "'sources.%s' must be a non-empty text", k->value);
            continue;
        }
        if (hw->source_keys && hw->source_texts) {
            hw->source_keys[hw->n_sources] = str_dup(k->value);
            hw->source_texts[hw->n_sources] = str_dup(v->value);
            hw->n_sources++;
        }
    }
    for (int i = 0; i < y->n_numbers; i++) {
        const char *num = y->numbers[i];
        if (strncmp(num, "price.", 6) == 0)
            continue;
        bool covered = false;
        for (size_t j = 0; j + 1 < src->n && !covered; j += 2) {
            const char *key = src->items[j]->value;
            size_t kl = strlen(key);
            covered = strncmp(num, key, kl) == 0 && (num[kl] == '\0' || num[kl] == '.');
        }
        if (!covered)
            err_add(y->errs, y->path, y->number_line[i], y->number_col[i], ERR_ERROR,
                    "'%s' has no source (add 'sources.%s' or a source for a prefix of it)", num,
                    num);
    }
}

/* `arg` is the profile's id */
/* A device's fraction against its class's (gemm_vs_class, memory_vs_class), if given: a ratio
 * in (0, 1.5] */
static void
vs_class(struct ycheck *y, const struct ynode *root, const char *key, double *out)
{
    double v;
    if (!ycheck_num(y, root, "", key, false, &v))
        return;
    if (v > 0 && v <= 1.5)
        *out = v;
    else
        ycheck_error(y, ynode_get(root, key), "'%s' must be a ratio in (0, 1.5], got %g", key, v);
}

/* llc_stream: the LLC a cyclic stream sees, measured by roofline bench (size, retained,
 * bandwidth, all required; retained at most size) */
static void
load_llc_stream(struct ycheck *y, const struct ynode *map, struct hw_profile *hw)
{
    ycheck_keys(y, map, "llc_stream", LLC_STREAM_KEYS, N(LLC_STREAM_KEYS));
    double size = 0, kept = 0, bw = 0;
    bool ok = qty_in(y, map, "llc_stream", "size", UNIT_BYTES, true, &CACHE_RANGE, &size);
    /* none retained is a measurement too: 0 is allowed here, unlike other quantities */
    const struct ynode *rv = ynode_get(map, "retained");
    double zero;
    const char *why;
    if (rv && rv->kind == YNODE_SCALAR && unit_parse(rv->value, UNIT_BYTES, &zero, &why) == 0 &&
        zero == 0)
        ycheck_note_number(y, "llc_stream.retained", rv);
    else
        ok &= qty_in(y, map, "llc_stream", "retained", UNIT_BYTES, true, &RETAINED_RANGE, &kept);
    ok &= qty_in(y, map, "llc_stream", "bandwidth", UNIT_BYTES_PER_S, true, &CACHE_BW_RANGE, &bw);
    if (!ok)
        return;
    if (kept > size) {
        ycheck_error(y, ynode_get(map, "retained"),
                     "'llc_stream.retained' (%g B) must be at most 'llc_stream.size' (%g B)", kept,
                     size);
        return;
    }
    if (kept > 0 && hw->memory_bandwidth_bytes_per_s > 0 &&
        !(bw > hw->memory_bandwidth_bytes_per_s)) {
        ycheck_error(y, ynode_get(map, "bandwidth"),
                     "'llc_stream.bandwidth' must exceed 'memory.bandwidth' where "
                     "'llc_stream.retained' is above 0 (the retained bytes come from the cache)");
        return;
    }
    hw->llc_stream_bytes = size;
    hw->llc_retained_bytes = kept;
    hw->llc_stream_bandwidth_bytes_per_s = bw;
}

static void
fill(struct ycheck *y, const struct ynode *root, void *obj, const void *arg)
{
    struct hw_profile *hw = obj;
    hw->id = str_dup(arg);
    hw->path = str_dup(y->path);
    if (!hw->id || !hw->path) {
        ycheck_error(y, root, "out of memory (while reading the profile)");
        return;
    }
    const char *s;
    if (ycheck_str(y, root, "", "name", true, &s))
        hw->name = str_dup(s);
    if (ycheck_str(y, root, "", "vendor", true, &s)) {
        ycheck_enum(y, ynode_get(root, "vendor"), "vendor", s, VENDORS, N(VENDORS));
        hw->vendor = str_dup(s);
    }
    if (ycheck_str(y, root, "", "kind", true, &s)) {
        ycheck_enum(y, ynode_get(root, "kind"), "kind", s, KINDS, N(KINDS));
        hw->kind = str_dup(s);
    }
    if (ycheck_str(y, root, "", "notes", false, &s))
        hw->notes = str_dup(s);

    const struct ynode *mem = ynode_get(root, "memory");
    if (!mem)
        ycheck_error(y, root, "missing required key 'memory'");
    else if (ycheck_map(y, mem, "memory")) {
        ycheck_keys(y, mem, "memory", MEMORY_KEYS, N(MEMORY_KEYS));
        qty_in(y, mem, "memory", "capacity", UNIT_BYTES, true, &CAPACITY_RANGE,
               &hw->memory_capacity_bytes);
        if (qty_in(y, mem, "memory", "reported", UNIT_BYTES, false, &CAPACITY_RANGE,
                   &hw->memory_reported_bytes))
            check_reported(y, ynode_get(mem, "reported"), hw);
        qty_in(y, mem, "memory", "bandwidth", UNIT_BYTES_PER_S, true, &BANDWIDTH_RANGE,
               &hw->memory_bandwidth_bytes_per_s);
        if (ycheck_str(y, mem, "memory", "type", false, &s))
            hw->memory_type = str_dup(s);
    }
    const struct ynode *comp = ynode_get(root, "compute");
    if (!comp)
        ycheck_error(y, root, "missing required key 'compute'");
    else if (ycheck_map(y, comp, "compute"))
        load_compute(y, comp, hw);

    long units;
    if (ycheck_long(y, root, "", "compute_units", false, 1, &units)) {
        if (units > MAX_COMPUTE_UNITS)
            ycheck_error(y, ynode_get(root, "compute_units"),
                         "'compute_units' must be at most %ld, got %ld", MAX_COMPUTE_UNITS, units);
        else
            hw->compute_units = (double)units;
    }
    qty_in(y, root, "", "boost_clock", UNIT_HERTZ, false, &CLOCK_RANGE, &hw->boost_clock_hz);

    const struct ynode *cache = ynode_get(root, "cache");
    if (cache && !ynode_is_null(cache) && ycheck_map(y, cache, "cache")) {
        ycheck_keys(y, cache, "cache", CACHE_KEYS, N(CACHE_KEYS));
        for (size_t i = 0; i < N(CACHE_KEYS); i++)
            qty_in(y, cache, "cache", CACHE_KEYS[i], UNIT_BYTES, false, &CACHE_RANGE,
                   &hw->cache_bytes[i]);
    }
    const struct ynode *cbw = ynode_get(root, "cache_bandwidth");
    if (cbw && !ynode_is_null(cbw) && ycheck_map(y, cbw, "cache_bandwidth")) {
        ycheck_keys(y, cbw, "cache_bandwidth", CACHE_KEYS, N(CACHE_KEYS));
        for (size_t i = 0; i < N(CACHE_KEYS); i++)
            qty_in(y, cbw, "cache_bandwidth", CACHE_KEYS[i], UNIT_BYTES_PER_S, false,
                   &CACHE_BW_RANGE, &hw->cache_bandwidth_bytes_per_s[i]);
    }
    const struct ynode *ls = ynode_get(root, "llc_stream");
    if (ls && !ynode_is_null(ls) && ycheck_map(y, ls, "llc_stream"))
        load_llc_stream(y, ls, hw);
    double ge;
    if (ycheck_num(y, root, "", "gemm_efficiency", false, &ge)) {
        if (!(ge > 0 && ge <= 1))
            ycheck_error(y, ynode_get(root, "gemm_efficiency"),
                         "'gemm_efficiency' must be a fraction in (0, 1], got %g", ge);
        else
            hw->gemm_efficiency = ge;
    }
    vs_class(y, root, "gemm_vs_class", &hw->gemm_vs_class);
    vs_class(y, root, "memory_vs_class", &hw->memory_vs_class);
    qty_in(y, root, "", "gemm_floor", UNIT_SECONDS, false, &GEMM_FLOOR_RANGE, &hw->gemm_floor_s);
    qty_in(y, root, "", "gemm_bandwidth", UNIT_BYTES_PER_S, false, &BANDWIDTH_RANGE,
           &hw->gemm_bandwidth_bytes_per_s);
    double cc;
    if (ycheck_num(y, root, "", "cuda_capability", false, &cc)) {
        if (!(cc >= 1 && cc < 100))
            ycheck_error(y, ynode_get(root, "cuda_capability"),
                         "'cuda_capability' must be a version such as 9.0 (1 to 99), got %g", cc);
        else
            hw->cuda_capability = cc;
    }
    const struct ynode *vec = ynode_get(root, "vector");
    if (vec && !ynode_is_null(vec))
        load_vector(y, vec, hw);
    const struct ynode *prov = ynode_get(root, "provenance");
    if (prov && !ynode_is_null(prov) && ycheck_map(y, prov, "provenance")) {
        hw->provenance_keys = calloc(prov->n / 2 + 1, sizeof(char *));
        hw->provenance_texts = calloc(prov->n / 2 + 1, sizeof(char *));
        for (size_t i = 0; i + 1 < prov->n && hw->provenance_keys && hw->provenance_texts; i += 2) {
            const struct ynode *v = prov->items[i + 1];
            if (v->kind != YNODE_SCALAR) {
                ycheck_error(y, v, "'provenance.%s' must be text", prov->items[i]->value);
                continue;
            }
            hw->provenance_keys[hw->n_provenance] = str_dup(prov->items[i]->value);
            hw->provenance_texts[hw->n_provenance] = str_dup(v->value);
            hw->n_provenance++;
        }
    }
    const struct ynode *link = ynode_get(root, "interconnect");
    if (link && !ynode_is_null(link) && ycheck_map(y, link, "interconnect")) {
        ycheck_keys(y, link, "interconnect", LINK_KEYS, N(LINK_KEYS));
        if (ycheck_str(y, link, "interconnect", "kind", true, &s))
            hw->link_kind = str_dup(s);
        qty_in(y, link, "interconnect", "bandwidth", UNIT_BYTES_PER_S, true, &LINK_RANGE,
               &hw->link_bandwidth_bytes_per_s);
        if (ycheck_str(y, link, "interconnect", "direction", true, &s)) {
            static const char *const DIRS[] = {"bidirectional", "per-direction"};
            ycheck_enum(y, ynode_get(link, "direction"), "direction", s, DIRS, 2);
            hw->link_direction =
                strcmp(s, "per-direction") == 0 ? HW_LINK_PER_DIRECTION : HW_LINK_BIDIRECTIONAL;
        }
        if (qty_in(y, link, "interconnect", "per_peer", UNIT_BYTES_PER_S, false, &LINK_RANGE,
                   &hw->link_per_peer_bytes_per_s) &&
            hw->link_bandwidth_bytes_per_s > 0 &&
            hw->link_per_peer_bytes_per_s > hw_link_bytes_per_s_per_direction(hw))
            ycheck_error(y, ynode_get(link, "per_peer"),
                         "'per_peer' (one peer, per direction) must be at most the interconnect's "
                         "bandwidth per direction");
    }
    const struct ynode *power = ynode_get(root, "power");
    if (power && !ynode_is_null(power) && ycheck_map(y, power, "power")) {
        ycheck_keys(y, power, "power", POWER_KEYS, N(POWER_KEYS));
        qty_in(y, power, "power", "tdp", UNIT_WATTS, false, &TDP_RANGE, &hw->tdp_w);
    }
    long server;
    if (ycheck_long(y, root, "", "server_devices", false, 1, &server)) {
        if (server > MAX_SERVER_DEVICES)
            ycheck_error(y, ynode_get(root, "server_devices"),
                         "'server_devices' must be at most %d, got %ld", MAX_SERVER_DEVICES,
                         server);
        else
            hw->server_devices = (int)server;
    }
    const struct ynode *price = ynode_get(root, "price");
    if (price && !ynode_is_null(price))
        load_prices(y, price, hw);
    check_sources(y, root, ynode_get(root, "sources"), hw);
    /* norms, softmax, residuals and dequantization run on the vector units: a profile must give
     * their rate or what derives it (checked once the rest of the file is valid, since it
     * depends on the peaks, units and clock read above) */
    if (comp && comp->kind == YNODE_MAP && ycheck_clean(y) && hw_vector_peak(hw, NULL) <= 0)
        ycheck_error(y, comp,
                     "'compute' has no fp32 peak and the vector rate cannot be derived (add "
                     "'compute.fp32', or 'compute_units', 'boost_clock' and "
                     "'vector.flops_per_cycle', or 'vector.fraction' and 'vector.fraction_of')");
}

static void
free_hw(void *hw)
{
    hw_free(hw);
}

static const struct ydoc_format HARDWARE = {.what = "a hardware profile",
                                            .root = YNODE_MAP,
                                            .keys = TOP_KEYS,
                                            .n_keys = N(TOP_KEYS),
                                            .size = sizeof(struct hw_profile),
                                            .fill = fill,
                                            .free = free_hw};

struct hw_profile *
hw_from_tree(const struct ynode *root, const char *path, const char *id, struct err_list *errs)
{
    return ydoc_from_tree(&HARDWARE, root, path, id, errs);
}

static char *
stem_of(const char *path)
{
    const char *base = strrchr(path, '/');
    base = base ? base + 1 : path;
    char *id = str_dup(base);
    if (!id)
        return NULL;
    char *dot = strrchr(id, '.');
    if (dot && dot != id)
        *dot = '\0';
    return id;
}

struct hw_profile *
hw_load(const char *path, struct err_list *errs)
{
    char *id = stem_of(path);
    struct hw_profile *hw = ydoc_load(&HARDWARE, path, id ? id : "?", errs);
    free(id);
    return hw;
}
