/* ARRAY_SIZE: the element count of a true array (not a pointer), as in git and the Linux kernel. */
#ifndef ROOFLINE_UTIL_ARRAY_H
#define ROOFLINE_UTIL_ARRAY_H

#define ARRAY_SIZE(a) (sizeof(a) / sizeof((a)[0]))

#endif
