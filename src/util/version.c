/* The version string from the generated version.h (Makefile: written only when `git describe`
 * changes, after git's GIT-VERSION-FILE). */
#include "util/version.h"

#include "version-gen.h"

const char *
roofline_version(void)
{
    return ROOFLINE_VERSION_STRING;
}
