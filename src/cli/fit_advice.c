/* "Does not fit: needs X per device, Y over; would fit: ..." from roof_fit_advise. */
#include "cli/fit_advice.h"

#include "util/units.h"

bool
cli_fit_advice(FILE *f, const struct roof_config *cfg, const char *indent)
{
    struct roof_fit_advice a;
    if (roof_fit_advise(cfg, &a) != 0 || a.fits)
        return true;
    char need[32], over[32], cap[32];
    unit_format_short(a.need_bytes, "B", 3, need, sizeof need);
    unit_format_short(a.over_bytes, "B", 3, over, sizeof over);
    unit_format_short(a.capacity_bytes, "B", 3, cap, sizeof cap);
    fprintf(f, "%sdoes not fit: needs %s per device, %s more than the %s of the %s\n", indent, need,
            over, cap, cfg->hw->id);
    if (a.n_fixes == 0)
        fprintf(f,
                "%s  no single change (format, tp, attention split, context, batch, reserve) "
                "makes it fit\n",
                indent);
    else
        fprintf(f, "%swould fit with any one of:\n", indent);
    for (int i = 0; i < a.n_fixes; i++)
        fprintf(f, "%s  - %s\n", indent, a.fixes[i].text);
    return false;
}
