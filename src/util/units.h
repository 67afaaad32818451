/* Parsing and printing of physical quantities with SI (powers of 1000) and IEC (powers of 1024)
 * prefixes. Values are returned in SI base units: bytes, bytes/s, FLOP/s, W, Hz, s. */
#ifndef ROOFLINE_UTIL_UNITS_H
#define ROOFLINE_UTIL_UNITS_H

#include <stddef.h>

/* bytes in a GiB (2^30): the unit devices report their memory in */
#define UNIT_GIB 1073741824.0

enum unit_kind {
    UNIT_BYTES,
    UNIT_BYTES_PER_S,
    UNIT_FLOPS_PER_S, /* FLOPS, TFLOPS, TOPS ... */
    UNIT_WATTS,
    UNIT_HERTZ,
    UNIT_SECONDS,
    UNIT_COUNT_SUFFIX, /* a plain count with optional K/M/B/T suffix: "8B", "70B", "780M" */
};

/* Parse `text` as a quantity of `kind`. Returns 0 and sets *out, or -1 and sets *why to a static
 * explanation. Rejects NaN, infinities and trailing garbage. */
int unit_parse(const char *text, enum unit_kind kind, double *out, const char **why);

/* Name of the unit family for messages, e.g. "a bandwidth such as '3.35 TB/s'". */
const char *unit_example(enum unit_kind kind);

/* Format `value` with an SI prefix and `unit` ("B", "B/s", "FLOP/s", "FLOP") using `sig`
 * significant digits: 3.35e12, "B/s" -> "3.35 TB/s". */
void unit_format(double value, const char *unit, int sig, char *buf, size_t size);

/* As unit_format, with trailing zeros of the mantissa removed: "450 GB/s", "3.35 TB/s". */
void unit_format_short(double value, const char *unit, int sig, char *buf, size_t size);

/* Format a duration choosing s, ms, us or ns ("n/a" when not finite). */
void unit_format_time(double seconds, int sig, char *buf, size_t size);
/* The same with `nonfinite` written for an infinite or NaN duration ("-", "inf"). */
void unit_format_time_or(double seconds, int sig, const char *nonfinite, char *buf, size_t size);

#endif
