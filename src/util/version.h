/* The tool's version (git describe at build time) for `roofline version` and the JSON outputs.
 * Only util/version.c sees the generated header, so a new commit rebuilds one object. */
#ifndef ROOFLINE_UTIL_VERSION_H
#define ROOFLINE_UTIL_VERSION_H

/* "v1.2-3-gabcdef" or "0.1" outside a git checkout; a static string. */
const char *roofline_version(void);
/* for code that still uses the macro */
#define ROOFLINE_VERSION (roofline_version())

#endif
