/* Quantity parsing and printing: SI vs IEC, every unit family, and the errors. */
#include "test.h"

#include "util/units.h"

static double
parse(const char *s, enum unit_kind k)
{
    double v = -1;
    const char *why;
    if (unit_parse(s, k, &v, &why) != 0)
        return -1;
    return v;
}

TEST(units_si_and_iec_are_distinct)
{
    CHECK_NEAR(parse("80 GB", UNIT_BYTES), 80e9, 1e-12);
    CHECK_NEAR(parse("80 GiB", UNIT_BYTES), 85899345920.0, 1e-12);
    CHECK_NEAR(parse("50 MiB", UNIT_BYTES), 52428800.0, 1e-12);
    CHECK_NEAR(parse("50 MB", UNIT_BYTES), 50e6, 1e-12);
    CHECK_NEAR(parse("1 KiB", UNIT_BYTES), 1024.0, 1e-12);
    CHECK_NEAR(parse("1 kB", UNIT_BYTES), 1000.0, 1e-12);
}

TEST(units_families)
{
    CHECK_NEAR(parse("3.35 TB/s", UNIT_BYTES_PER_S), 3.35e12, 1e-12);
    CHECK_NEAR(parse("936 GB/s", UNIT_BYTES_PER_S), 936e9, 1e-12);
    CHECK_NEAR(parse("989.4 TFLOPS", UNIT_FLOPS_PER_S), 989.4e12, 1e-12);
    CHECK_NEAR(parse("1978.9 TOPS", UNIT_FLOPS_PER_S), 1978.9e12, 1e-12);
    CHECK_NEAR(parse("2.5 PFLOPS", UNIT_FLOPS_PER_S), 2.5e15, 1e-12);
    CHECK_NEAR(parse("183.7 GFLOPS", UNIT_FLOPS_PER_S), 183.7e9, 1e-12);
    CHECK_NEAR(parse("700 W", UNIT_WATTS), 700, 1e-12);
    CHECK_NEAR(parse("1.98 GHz", UNIT_HERTZ), 1.98e9, 1e-12);
    CHECK_NEAR(parse("600 ns", UNIT_SECONDS), 600e-9, 1e-12);
    CHECK_NEAR(parse("8B", UNIT_COUNT_SUFFIX), 8e9, 1e-12);
    CHECK_NEAR(parse("70B", UNIT_COUNT_SUFFIX), 70e9, 1e-12);
    CHECK_NEAR(parse("780M", UNIT_COUNT_SUFFIX), 780e6, 1e-12);
    CHECK_NEAR(parse("8030261248", UNIT_COUNT_SUFFIX), 8030261248.0, 1e-12);
    CHECK_NEAR(parse("  80GB  ", UNIT_BYTES), 80e9, 1e-12);
}

TEST(units_rejects)
{
    CHECK(parse("3.35 TBs", UNIT_BYTES_PER_S) < 0);
    CHECK(parse("80", UNIT_BYTES) < 0);     /* no unit */
    CHECK(parse("GB", UNIT_BYTES) < 0);     /* no number */
    CHECK(parse("nan GB", UNIT_BYTES) < 0); /* not a number */
    CHECK(parse("inf GB", UNIT_BYTES) < 0);
    CHECK(parse("1e999 GB", UNIT_BYTES) < 0);        /* out of range */
    CHECK(parse("0x10 GB", UNIT_BYTES) < 0);         /* hex is not a quantity */
    CHECK(parse("1 TiFLOPS", UNIT_FLOPS_PER_S) < 0); /* IEC only for bytes */
    CHECK(parse("1 mW", UNIT_WATTS) < 0);            /* sub-units only for time */
    CHECK(parse("80 GB/s", UNIT_BYTES) < 0);         /* wrong family */
    CHECK(parse("8Q", UNIT_COUNT_SUFFIX) < 0);
    const char *why = NULL;
    double v;
    CHECK(unit_parse("3.35 TBs", UNIT_BYTES_PER_S, &v, &why) != 0);
    CHECK_STR(why, "unknown unit");
}

TEST(units_format)
{
    char b[64];
    unit_format(3.35e12, "B/s", 3, b, sizeof b);
    CHECK_STR(b, "3.35 TB/s");
    unit_format(16.06e9, "B", 4, b, sizeof b);
    CHECK_STR(b, "16.06 GB");
    unit_format(989.4e12, "FLOP/s", 4, b, sizeof b);
    CHECK_STR(b, "989.4 TFLOP/s");
    unit_format_time(4.776e-3, 3, b, sizeof b);
    CHECK_STR(b, "4.78 ms");
    unit_format_time(97.03e-6, 3, b, sizeof b);
    CHECK_STR(b, "97.0 us");
    unit_format_time(INFINITY, 3, b, sizeof b);
    CHECK_STR(b, "n/a");
    unit_format_time_or(NAN, 3, "-", b, sizeof b);
    CHECK_STR(b, "-");
    unit_format_time_or(2.4, 3, "inf", b, sizeof b);
    CHECK_STR(b, "2.40 s");
}
