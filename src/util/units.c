/* Quantity parsing: a number, optional spaces, a prefix and a unit. SI and IEC never mix:
 * "GB" is 1e9, "GiB" is 2^30. */
#include "util/units.h"
#include "util/array.h"

#include <ctype.h>
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

struct prefix {
    const char *text;
    double factor;
};

/* Longest first so "Gi" wins over "G". */
static const struct prefix PREFIXES[] = {
    {"Ki", 1024.0},
    {"Mi", 1048576.0},
    {"Gi", 1073741824.0},
    {"Ti", 1099511627776.0},
    {"Pi", 1125899906842624.0},
    {"k", 1e3},
    {"K", 1e3},
    {"M", 1e6},
    {"G", 1e9},
    {"T", 1e12},
    {"P", 1e15},
    {"m", 1e-3},
    {"u", 1e-6},
    {"n", 1e-9},
    {"", 1.0},
};

static const char *const BYTES_UNITS[] = {"B", NULL};
static const char *const BW_UNITS[] = {"B/s", "Bps", NULL};
static const char *const RATE_UNITS[] = {"FLOPS", "FLOP/s", "OPS", "OP/s", NULL};
static const char *const W_UNITS[] = {"W", NULL};
static const char *const HZ_UNITS[] = {"Hz", NULL};
static const char *const S_UNITS[] = {"s", NULL};

static const char *const *
units_for(enum unit_kind kind)
{
    switch (kind) {
    case UNIT_BYTES:
        return BYTES_UNITS;
    case UNIT_BYTES_PER_S:
        return BW_UNITS;
    case UNIT_FLOPS_PER_S:
        return RATE_UNITS;
    case UNIT_WATTS:
        return W_UNITS;
    case UNIT_HERTZ:
        return HZ_UNITS;
    case UNIT_SECONDS:
        return S_UNITS;
    case UNIT_COUNT_SUFFIX:
        return NULL;
    }
    return NULL;
}

const char *
unit_example(enum unit_kind kind)
{
    switch (kind) {
    case UNIT_BYTES:
        return "a size such as '80 GB' or '50 MiB'";
    case UNIT_BYTES_PER_S:
        return "a bandwidth such as '3.35 TB/s'";
    case UNIT_FLOPS_PER_S:
        return "a rate such as '989.4 TFLOPS' or '1979 TOPS'";
    case UNIT_WATTS:
        return "a power such as '700 W'";
    case UNIT_HERTZ:
        return "a frequency such as '1.98 GHz'";
    case UNIT_SECONDS:
        return "a time such as '600 ns'";
    case UNIT_COUNT_SUFFIX:
        return "a count such as '8B', '780M' or 8030261248";
    }
    return "a quantity";
}

static int
count_suffix(const char *p, double *factor)
{
    if (*p == '\0') {
        *factor = 1.0;
        return 0;
    }
    if (p[1] != '\0')
        return -1;
    switch (*p) {
    case 'k':
    case 'K':
        *factor = 1e3;
        return 0;
    case 'M':
        *factor = 1e6;
        return 0;
    case 'B':
    case 'G':
        *factor = 1e9;
        return 0;
    case 'T':
        *factor = 1e12;
        return 0;
    default:
        return -1;
    }
}

int
unit_parse(const char *text, enum unit_kind kind, double *out, const char **why)
{
    const char *dummy;
    if (!why)
        why = &dummy;
    if (!text) {
        *why = "missing value";
        return -1;
    }
    const char *p = text;
    while (isspace((unsigned char)*p))
        p++;
    if (*p == '\0') {
        *why = "empty value";
        return -1;
    }
    errno = 0;
    char *end;
    double v = strtod(p, &end);
    if (end == p) {
        *why = "no number";
        return -1;
    }
    /* strtod accepts "nan", "inf", hex: only plain decimals are quantities */
    for (const char *q = p; q < end; q++) {
        if (!(isdigit((unsigned char)*q) || *q == '.' || *q == '-' || *q == '+' || *q == 'e' ||
              *q == 'E')) {
            *why = "not a decimal number";
            return -1;
        }
    }
    if (errno == ERANGE || !isfinite(v)) {
        *why = "number out of range";
        return -1;
    }
    p = end;
    while (isspace((unsigned char)*p))
        p++;
    /* trailing spaces */
    size_t len = strlen(p);
    while (len > 0 && isspace((unsigned char)p[len - 1]))
        len--;
    char unit[32];
    if (len >= sizeof unit) {
        *why = "unknown unit";
        return -1;
    }
    memcpy(unit, p, len);
    unit[len] = '\0';

    if (kind == UNIT_COUNT_SUFFIX) {
        double f;
        if (count_suffix(unit, &f) != 0) {
            *why = "unknown suffix (use K, M, B or T)";
            return -1;
        }
        if (!isfinite(v * f)) {
            *why = "number out of range";
            return -1;
        }
        *out = v * f;
        return 0;
    }
    const char *const *units = units_for(kind);
    if (len == 0) {
        *why = "missing unit";
        return -1;
    }
    for (size_t i = 0; i < ARRAY_SIZE(PREFIXES); i++) {
        size_t pl = strlen(PREFIXES[i].text);
        if (strncmp(unit, PREFIXES[i].text, pl) != 0)
            continue;
        const char *rest = unit + pl;
        for (size_t u = 0; units[u]; u++) {
            if (strcmp(rest, units[u]) == 0) {
                /* sub-unit prefixes make sense for time only */
                if (PREFIXES[i].factor < 1.0 && kind != UNIT_SECONDS)
                    continue;
                /* IEC prefixes apply to bytes only */
                if (PREFIXES[i].text[0] && PREFIXES[i].text[1] == 'i' && kind != UNIT_BYTES &&
                    kind != UNIT_BYTES_PER_S)
                    continue;
                /* 1e300 TB overflows to inf after the prefix */
                if (!isfinite(v * PREFIXES[i].factor)) {
                    *why = "number out of range";
                    return -1;
                }
                *out = v * PREFIXES[i].factor;
                return 0;
            }
        }
    }
    *why = "unknown unit";
    return -1;
}

void
unit_format(double value, const char *unit, int sig, char *buf, size_t size)
{
    static const struct {
        double f;
        const char *p;
    } SI[] = {{1e18, "E"}, {1e15, "P"}, {1e12, "T"}, {1e9, "G"}, {1e6, "M"}, {1e3, "k"}, {1, ""}};
    if (!isfinite(value)) {
        snprintf(buf, size, "n/a");
        return;
    }
    double a = fabs(value);
    for (size_t i = 0; i < ARRAY_SIZE(SI); i++) {
        if (a >= SI[i].f * 0.9995 || i + 1 == ARRAY_SIZE(SI)) {
            double x = value / SI[i].f;
            int digits = sig - 1 - (int)floor(log10(fabs(x) > 0 ? fabs(x) : 1));
            if (digits < 0)
                digits = 0;
            snprintf(buf, size, "%.*f %s%s", digits, x, SI[i].p, unit);
            return;
        }
    }
}

void
unit_format_time(double s, int sig, char *buf, size_t size)
{
    unit_format_time_or(s, sig, "n/a", buf, size);
}

void
unit_format_time_or(double s, int sig, const char *nonfinite, char *buf, size_t size)
{
    static const struct {
        double f;
        const char *u;
    } T[] = {{1, "s"}, {1e-3, "ms"}, {1e-6, "us"}, {1e-9, "ns"}};
    if (!isfinite(s)) {
        snprintf(buf, size, "%s", nonfinite);
        return;
    }
    double a = fabs(s);
    for (size_t i = 0; i < 4; i++) {
        if (a >= T[i].f * 0.9995 || i == 3) {
            double x = s / T[i].f;
            int digits = sig - 1 - (int)floor(log10(fabs(x) > 0 ? fabs(x) : 1));
            if (digits < 0)
                digits = 0;
            snprintf(buf, size, "%.*f %s", digits, x, T[i].u);
            return;
        }
    }
}

void
unit_format_short(double value, const char *unit, int sig, char *buf, size_t size)
{
    unit_format(value, unit, sig, buf, size);
    char *sp = strchr(buf, ' ');
    char *dot = strchr(buf, '.');
    if (dot && (!sp || dot < sp)) {
        char *end = sp ? sp : buf + strlen(buf);
        char *z = end;
        while (z > dot + 1 && z[-1] == '0')
            z--;
        if (z == dot + 1)
            z = dot;
        memmove(z, end, strlen(end) + 1);
    }
}
