/* The hardware-profile writer: a struct hw_profile as the YAML that io/hw_load.c reads back
 * (docs/profiles.md). Text into a buffer; the caller writes it. */
#include "io/profiles.h"
#include "util/array.h"
#include "util/strbuf.h"
#include "util/units.h"

#include <math.h>
#include <stdbool.h>

/* An exact size: a whole number of an IEC or SI unit when there is one, else bytes (a rounded
 * "22.3517 GiB" would not read back as the same number). */
static void
yaml_bytes(struct strbuf *t, double b)
{
    static const struct {
        double f;
        const char *u;
    } UNITS[] = {{1099511627776.0, "TiB"}, {1e12, "TB"}, {1073741824.0, "GiB"}, {1e9, "GB"},
                 {1048576.0, "MiB"},       {1e6, "MB"},  {1024.0, "KiB"}};
    for (size_t i = 0; i < ARRAY_SIZE(UNITS); i++)
        if (b >= UNITS[i].f && b / UNITS[i].f == floor(b / UNITS[i].f)) {
            strbuf_addf(t, "%.0f %s", b / UNITS[i].f, UNITS[i].u);
            return;
        }
    strbuf_addf(t, "%.0f B", b);
}

static void
yaml_qty(struct strbuf *t, double v, const char *unit)
{
    char buf[64];
    unit_format_short(v, unit, 5, buf, sizeof buf);
    strbuf_addf(t, "%s", buf);
}

int
hw_profile_text(const struct hw_profile *hw, struct strbuf *t)
{
    static const char *const CL[4] = {"l1", "l2", "l3", "llc"};
    strbuf_addf(t, "# hardware profile written by roofline bench (docs/bench.md)\nname: ");
    strbuf_add_quoted(t, hw->name);
    strbuf_addf(t, "\nvendor: %s\nkind: %s\nmemory:\n  capacity: ", hw->vendor, hw->kind);
    yaml_bytes(t, hw->memory_capacity_bytes);
    if (hw->memory_reported_bytes > 0) {
        strbuf_addf(t, "\n  reported: ");
        yaml_bytes(t, hw->memory_reported_bytes);
    }
    strbuf_addf(t, "\n  bandwidth: ");
    yaml_qty(t, hw->memory_bandwidth_bytes_per_s, "B/s");
    if (hw->memory_type) {
        strbuf_addf(t, "\n  type: ");
        strbuf_add_quoted(t, hw->memory_type);
    }
    strbuf_addf(t, "\ncompute:\n");
    for (int d = DT_ROOF_FIRST; d <= DT_ROOF_LAST; d++)
        if (hw->peak_flops_per_s[d] > 0) {
            strbuf_addf(t, "  %s: ", dtype_name((enum dtype)d));
            yaml_qty(t, hw->peak_flops_per_s[d], d == DT_INT8 || d == DT_INT4 ? "OPS" : "FLOPS");
            strbuf_addf(t, "\n");
        }
    if (hw->compute_units > 0)
        strbuf_addf(t, "compute_units: %.0f\n", hw->compute_units);
    if (hw->gemm_efficiency > 0)
        strbuf_addf(t, "gemm_efficiency: %.4f\n", hw->gemm_efficiency);
    if (hw->gemm_vs_class > 0)
        strbuf_addf(t, "gemm_vs_class: %.4f\n", hw->gemm_vs_class);
    if (hw->memory_vs_class > 0)
        strbuf_addf(t, "memory_vs_class: %.4f\n", hw->memory_vs_class);
    if (hw->gemm_floor_s > 0)
        strbuf_addf(t, "gemm_floor: %.6g us\n", hw->gemm_floor_s * 1e6);
    if (hw->gemm_bandwidth_bytes_per_s > 0) {
        strbuf_addf(t, "gemm_bandwidth: ");
        yaml_qty(t, hw->gemm_bandwidth_bytes_per_s, "B/s");
        strbuf_addf(t, "\n");
    }
    if (hw->cuda_capability > 0)
        strbuf_addf(t, "cuda_capability: %.1f\n", hw->cuda_capability);
    if (hw->boost_clock_hz > 0) {
        strbuf_addf(t, "boost_clock: ");
        yaml_qty(t, hw->boost_clock_hz, "Hz");
        strbuf_addf(t, "\n");
    }
    bool any = false;
    for (int l = 0; l < 4; l++)
        if (hw->cache_bytes[l] > 0) {
            strbuf_addf(t, "%s  %s: ", any ? "" : "cache:\n", CL[l]);
            yaml_bytes(t, hw->cache_bytes[l]);
            strbuf_addf(t, "\n");
            any = true;
        }
    any = false;
    for (int l = 0; l < 4; l++)
        if (hw->cache_bandwidth_bytes_per_s[l] > 0) {
            strbuf_addf(t, "%s  %s: ", any ? "" : "cache_bandwidth:\n", CL[l]);
            yaml_qty(t, hw->cache_bandwidth_bytes_per_s[l], "B/s");
            strbuf_addf(t, "\n");
            any = true;
        }
    if (hw->llc_stream_bytes > 0) {
        strbuf_addf(t, "llc_stream:\n  size: ");
        yaml_bytes(t, hw->llc_stream_bytes);
        strbuf_addf(t, "\n  retained: ");
        yaml_bytes(t, hw->llc_retained_bytes);
        strbuf_addf(t, "\n  bandwidth: ");
        yaml_qty(t, hw->llc_stream_bandwidth_bytes_per_s, "B/s");
        strbuf_addf(t, "\n");
    }
    if (hw->link_kind) {
        strbuf_addf(t, "interconnect:\n  kind: ");
        strbuf_add_quoted(t, hw->link_kind);
        strbuf_addf(t, "\n  bandwidth: ");
        yaml_qty(t, hw->link_bandwidth_bytes_per_s, "B/s");
        strbuf_addf(t, "\n  direction: %s\n",
                    hw->link_direction == HW_LINK_PER_DIRECTION ? "per-direction"
                                                                : "bidirectional");
        if (hw->link_per_peer_bytes_per_s > 0) {
            strbuf_addf(t, "  per_peer: ");
            yaml_qty(t, hw->link_per_peer_bytes_per_s, "B/s");
            strbuf_addf(t, "\n");
        }
    }
    if (hw->tdp_w > 0) {
        strbuf_addf(t, "power:\n  tdp: ");
        yaml_qty(t, hw->tdp_w, "W");
        strbuf_addf(t, "\n");
    }
    if (hw->n_provenance > 0) {
        strbuf_addf(t, "provenance:\n");
        for (int i = 0; i < hw->n_provenance; i++) {
            strbuf_addf(t, "  %s: ", hw->provenance_keys[i]);
            strbuf_add_quoted(t, hw->provenance_texts[i]);
            strbuf_addf(t, "\n");
        }
    }
    if (hw->notes) {
        strbuf_addf(t, "notes: ");
        strbuf_add_quoted(t, hw->notes);
        strbuf_addf(t, "\n");
    }
    strbuf_addf(t, "sources:\n");
    for (int i = 0; i < hw->n_sources; i++) {
        strbuf_addf(t, "  %s: ", hw->source_keys[i]);
        strbuf_add_quoted(t, hw->source_texts[i]);
        strbuf_addf(t, "\n");
    }
    return t->failed ? -1 : 0;
}
