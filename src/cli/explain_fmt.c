/* Number formatting for the worked explanations: quantities with units, times in the seeds'
 * style, counts. */
#include "cli/explain.h"

#include "util/units.h"

#include <math.h>
#include <stdio.h>

/* a small ring of buffers so that one printf can format several quantities */
char *
ex_ring(void)
{
    static char bufs[16][64];
    static unsigned next;
    return bufs[next++ % 16];
}

const char *
ex_qty(char *buf, size_t size, double v, const char *unit, int sig)
{
    unit_format_short(v, unit, sig, buf, size);
    return buf;
}

/* parameter counts: "8B", "70B", "8.03B", "780M" */
const char *
ex_count(double n)
{
    char *buf = ex_ring();
    if (n >= 1e9)
        snprintf(buf, 64, "%.3gB", n / 1e9);
    else if (n >= 1e6)
        snprintf(buf, 64, "%.3gM", n / 1e6);
    else
        snprintf(buf, 64, "%.0f", n);
    return buf;
}

/* scientific with a plain exponent: 8e9, 8.03e9 */
const char *
ex_sci(double x)
{
    char *buf = ex_ring();
    int e = x != 0 ? (int)floor(log10(fabs(x))) : 0;
    snprintf(buf, 64, "%.4ge%d", x / pow(10, e), e);
    return buf;
}

/* times: ms with two decimals from 0.05 ms up (the seeds' style), else us/ns */
const char *
ex_time(char *buf, size_t size, double s)
{
    if (s >= 0.05e-3 && s < 1.0)
        snprintf(buf, size, "%.2f ms", s * 1e3);
    else
        unit_format_time(s, 3, buf, size);
    return buf;
}
