/* An accelerator as the engine sees it: memory, dense peak rates per format, caches, links.
 * Pure data, filled by io/hw_load.c or by tests; SI base units throughout. */
#ifndef ROOFLINE_CORE_HW_H
#define ROOFLINE_CORE_HW_H

#include "core/dtype.h"

#include <stdbool.h>
#include <stddef.h>

enum hw_link_direction { HW_LINK_UNKNOWN, HW_LINK_BIDIRECTIONAL, HW_LINK_PER_DIRECTION };

struct hw_price_purchase {
    double usd;
    char *date, *basis, *source;
};

struct hw_price_cloud {
    char *provider;
    double usd_per_hour; /* per device */
    char *date;          /* YYYY-MM or YYYY-MM-DD: when the price held */
    char *basis;         /* on-demand, capacity block, spot, ...; NULL = not said */
    char *source;
};

struct hw_profile {
    char *id; /* file stem */
    char *path;
    char *name, *vendor, *kind, *memory_type, *notes;
    double memory_capacity_bytes; /* the datasheet's figure, as sold ("141 GB") */
    /* the total the device reports to software, which engines size their memory from (the CUDA
     * total where published, else nvidia-smi, rocm-smi, hl-smi); 0 = not given, the datasheet
     * figure stands for it. Fits, reserves and KV pools use hw_memory_bytes().
     * docs/profiles.md#memory-capacity-datasheet-gigabytes-and-the-bytes-a-device-reports */
    double memory_reported_bytes;
    double memory_bandwidth_bytes_per_s;
    double peak_flops_per_s[DT_COUNT];     /* dense; 0 = not supported */
    double fp16_acc16_flops_per_s;         /* fp16 with fp16 accumulate when faster (GeForce); 0 */
    double compute_units;                  /* 0 = unknown */
    double boost_clock_hz;                 /* 0 = unknown */
    double cache_bytes[4];                 /* l1, l2, l3, llc; 0 = unknown */
    double cache_bandwidth_bytes_per_s[4]; /* measured per level (host profiles); 0 = unknown */
    /* measured fraction of the fp32 peak that a large GEMM reaches (host profiles written by
     * roofline bench); the engine's default compute efficiency; 0 = unknown (1 is used) */
    double gemm_efficiency;
    /* the last-level cache as a cyclic stream sees it (host profiles written by roofline bench,
     * docs/bench.md#the-llc-scan): its size C, the bytes h C
     * of each pass over a larger working set that it retains, and their rate; a pass over W > C
     * takes (W - h C) / memory bandwidth + h C / that rate. 0 = not measured */
    double llc_stream_bytes, llc_retained_bytes, llc_stream_bandwidth_bytes_per_s;
    /* the fraction of its datasheet dense peak that this device's large GEMMs reach, relative
     * to the devices its class was calibrated on (NVIDIA for datacenter-gpu): it multiplies the
     * class's compute efficiency; 0 = not given (1 is used).
     * docs/physics.md#a-devices-own-gemm-fraction */
    double gemm_vs_class;
    /* the same for its memory: the fraction of its datasheet bandwidth that its streaming
     * kernels reach, relative to its class's devices; it multiplies the class's memory
     * efficiency; 0 = not given (1 is used). docs/physics.md#a-devices-own-gemm-fraction */
    double memory_vs_class;
    /* the least time one weight GEMM kernel takes on this device with its vendor's tuned
     * kernels, however few bytes and FLOPs it has (a measured time: split-K reduction, kernel
     * prologue and epilogue over the device's compute units); with an engine every weight GEMM
     * takes at least this before its launch cost; 0 = not given.
     * docs/physics.md#a-devices-own-gemm-fraction */
    double gemm_floor_s;
    /* the rate at which its vendor's tuned GEMMs stream their weights at decode (a few rows),
     * measured: with an engine a weight GEMM's bytes move at no more than this, even where the
     * streaming kernels' fraction (memory_vs_class) gives more; 0 = not given.
     * docs/physics.md#a-devices-own-gemm-fraction */
    double gemm_bandwidth_bytes_per_s;
    /* NVIDIA's compute capability (9.0 for Hopper), which engines read to pick their kernels
     * (vLLM's MXFP4 MoE backend); 0 = not given */
    double cuda_capability;
    /* the vector (non-tensor) units, for a profile whose datasheet gives no fp32 peak: fp32
     * FLOPs per cycle per compute unit (an FMA lane counts 2), or the vector rate as a fraction
     * of the tensor peak of format `vector_fraction_of` (both from architecture facts, cited);
     * 0 = not given. docs/physics.md#vector-rate */
    double vector_flops_per_cycle;
    double vector_fraction;
    enum dtype vector_fraction_of;
    char *link_kind; /* NULL = none */
    double link_bandwidth_bytes_per_s;
    enum hw_link_direction link_direction;
    /* a full mesh inside the server: the bandwidth each device has to each one peer, per
     * direction (Gaudi: 3 of its ports per peer); a group of n devices reaches n-1 times it,
     * at most the total. 0 = not given (a switch: every group gets the total).
     * docs/physics.md#parallelism */
    double link_per_peer_bytes_per_s;
    double tdp_w; /* 0 = unknown */
    struct hw_price_purchase *purchase;
    int n_purchase;
    struct hw_price_cloud *cloud;
    int n_cloud;
    /* devices in the server or baseboard this device is bought or rented with (8 for an HGX
     * board, 1 for a card sold alone); 0 = unknown */
    int server_devices;
    /* provenance (measured profiles): parallel arrays of key and text */
    char **provenance_keys, **provenance_texts;
    int n_provenance;
    /* sources: parallel arrays of key path and text */
    char **source_keys, **source_texts;
    int n_sources;
};

enum hw_cache_level { HW_L1, HW_L2, HW_L3, HW_LLC };

/* The roof a computation in format `want` runs on: `want` itself if the device has it, else the
 * nearest format it falls back to (fp8 -> fp16 -> bf16 -> fp32 ...). Sets *used (may be NULL)
 * and returns the peak in FLOP/s, or 0 when the device has no usable roof. The fp32 roof is
 * hw_vector_peak: derived when the datasheet has none. */
double hw_peak(const struct hw_profile *hw, enum dtype want, enum dtype *used);
/* How the fp32 vector rate of a device is known. */
enum hw_vector_origin {
    HW_VECTOR_NONE,      /* unknown: the profile is refused by the loader */
    HW_VECTOR_DATASHEET, /* compute.fp32 */
    HW_VECTOR_UNITS,     /* compute_units x boost_clock x vector.flops_per_cycle */
    HW_VECTOR_FRACTION   /* vector.fraction x the tensor peak of vector.fraction_of */
};
/* The rate of the vector units (norms, softmax, residuals, activations, dequantization, GEMV)
 * in FLOP/s: the datasheet fp32 peak, else derived (see enum hw_vector_origin); 0 when nothing
 * is known. Sets *origin (may be NULL). */
double hw_vector_peak(const struct hw_profile *hw, enum hw_vector_origin *origin);
/* One line saying how the vector rate was obtained ("the datasheet's fp32 peak", "derived, the
 * datasheet has no fp32 peak: 0.5 x the fp16 tensor peak 70 TFLOP/s = 35 TFLOP/s"), written into
 * buf (NUL-terminated, truncated to n). */
void hw_vector_describe(const struct hw_profile *hw, char *buf, size_t n);
/* The memory an engine sizes its weights, reserve and KV pool from, in bytes: the total the
 * device reports (memory_reported_bytes) where the profile gives it, else the datasheet's. */
double hw_memory_bytes(const struct hw_profile *hw);
/* Ridge point of format `dt` in FLOP/byte: peak / bandwidth (after fallback). */
double hw_ridge(const struct hw_profile *hw, enum dtype dt);
/* Bandwidth of one direction of the scale-up link in bytes/s (half of a bidirectional figure). */
double hw_link_bytes_per_s_per_direction(const struct hw_profile *hw);
/* What each of `n` devices can send to the other n-1 at once, per direction: the total, or on a
 * full mesh (link_per_peer) (n-1) x the per-peer bandwidth when that is less. */
double hw_link_group_bytes_per_s(const struct hw_profile *hw, int n, double total);
/* Frees everything the profile owns and the struct itself; NULL is a no-op. */
void hw_free(struct hw_profile *hw);

#endif
