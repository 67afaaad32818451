/* A tiny table-driven test harness: TEST(name) registers a case at load time; CHECK* report
 * "file:line: expected X, got Y" and count; main() runs all and prints "N passed, N failed". */
#ifndef ROOFLINE_TEST_H
#define ROOFLINE_TEST_H

#include <math.h>
#include <stdio.h>
#include <string.h>

typedef void (*test_fn)(void);
void test_register(const char *name, test_fn fn);
extern int test_checks_failed;
extern int test_current_failed;

#define TEST(name)                                                                                 \
    static void test_##name(void);                                                                 \
    __attribute__((constructor)) static void register_##name(void)                                 \
    {                                                                                              \
        test_register(#name, test_##name);                                                         \
    }                                                                                              \
    static void test_##name(void)

/* Prints "file:line: message" on stderr and marks the current case failed; the first message
 * of a case is repeated on its "FAIL name: ..." line (tests/unit/main.c). */
void test_fail_at(const char *file, int line, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
#define FAIL_AT(...) test_fail_at(__FILE__, __LINE__, __VA_ARGS__)

#define CHECK(cond)                                                                                \
    do {                                                                                           \
        if (!(cond))                                                                               \
            FAIL_AT("expected %s", #cond);                                                         \
    } while (0)

/* relative tolerance; exact zero expected compares absolutely */
#define CHECK_NEAR(actual, expected, rel)                                                          \
    do {                                                                                           \
        double a_ = (double)(actual), e_ = (double)(expected);                                     \
        double d_ = fabs(a_ - e_), s_ = fabs(e_) > 0 ? fabs(e_) : 1.0;                             \
        if (!(d_ <= (rel)*s_))                                                                     \
            FAIL_AT("%s: expected %.9g, got %.9g (tolerance %g)", #actual, e_, a_, (double)(rel)); \
    } while (0)

#define CHECK_STR(actual, expected)                                                                \
    do {                                                                                           \
        const char *a_ = (actual), *e_ = (expected);                                               \
        if (!a_ || strcmp(a_, e_) != 0)                                                            \
            FAIL_AT("%s: expected '%s', got '%s'", #actual, e_, a_ ? a_ : "(null)");               \
    } while (0)

#define CHECK_CONTAINS(haystack, needle)                                                           \
    do {                                                                                           \
        const char *h_ = (haystack), *n_ = (needle);                                               \
        if (!h_ || !strstr(h_, n_))                                                                \
            FAIL_AT("%s: expected to contain '%s', got '%s'", #haystack, n_, h_ ? h_ : "(null)");  \
    } while (0)

/* Helpers shared by suites (tests/unit/helpers.c) */
struct hw_profile;
struct mdl_profile;
/* Data directory of the source tree (ROOFLINE_DATA or the current directory). */
const char *test_data_dir(void);
/* Load a shipped profile by id; aborts the test run on failure. */
struct hw_profile *test_hw(const char *id);
struct mdl_profile *test_model(const char *id);

#endif
