/* Test runner: runs every registered case, prints failures and the closing count line.
 * Every failed case ends with one line "FAIL name: first message" on stderr, also a case that
 * dies: a fatal signal (a crash, or SIGTERM from a timeout) or exit() inside a case prints
 * "FAIL name: ..." before the process ends, so the run's report always names the case. */
#include "test.h"

#include <gsl/gsl_errno.h>
#include <signal.h>
#include <stdarg.h>
#include <stdlib.h>
#include <unistd.h>

#define MAX_TESTS 1024

static struct {
    const char *name;
    test_fn fn;
} tests[MAX_TESTS];
static int n_tests;
int test_checks_failed;
int test_current_failed;
/* the case running now (NULL between cases) and its first failure message */
static const char *volatile current;
static char first_msg[512];

void
test_register(const char *name, test_fn fn)
{
    if (n_tests < MAX_TESTS) {
        tests[n_tests].name = name;
        tests[n_tests].fn = fn;
        n_tests++;
    }
}

void
test_fail_at(const char *file, int line, const char *fmt, ...)
{
    char msg[sizeof first_msg];
    int n = snprintf(msg, sizeof msg, "%s:%d: ", file, line);
    va_list ap;
    va_start(ap, fmt);
    if (n >= 0 && (size_t)n < sizeof msg)
        vsnprintf(msg + n, sizeof msg - (size_t)n, fmt, ap);
    va_end(ap);
    fprintf(stderr, "%s\n", msg);
    if (!test_current_failed)
        snprintf(first_msg, sizeof first_msg, "%s", msg);
    test_current_failed = 1;
    test_checks_failed++;
}

static int
cmp(const void *a, const void *b)
{
    return strcmp(*(const char *const *)a, *(const char *const *)b);
}

/* async-signal-safe: write(2) only */
static void
put(const char *s)
{
    size_t n = strlen(s);
    while (n > 0) {
        ssize_t w = write(2, s, n);
        if (w <= 0)
            return;
        s += w;
        n -= (size_t)w;
    }
}

static void
on_fatal(int sig)
{
    const char *name = current;
    if (name) {
        char num[16];
        int i = (int)sizeof num - 1;
        num[i] = '\0';
        int v = sig;
        do {
            num[--i] = (char)('0' + v % 10);
            v /= 10;
        } while (v > 0 && i > 0);
        put("FAIL ");
        put(name);
        put(": killed by signal ");
        put(num + i);
        put(sig == SIGTERM ? " (SIGTERM: a timeout?)\n" : "\n");
    }
    signal(sig, SIG_DFL);
    raise(sig);
}

static void
on_exit_mid_case(void)
{
    if (current) {
        fflush(stdout);
        fprintf(stderr, "FAIL %s: exit() called inside the case\n", current);
    }
}

int
main(int argc, char **argv)
{
    gsl_set_error_handler_off();
    qsort(tests, (size_t)n_tests, sizeof tests[0], cmp);
    /* SIGSEGV and SIGBUS are left to the sanitizers when they run (their report names the
     * function); the handler only adds the case's name where the default would say nothing */
    int sigs[] = {SIGABRT, SIGFPE, SIGILL, SIGTERM, SIGINT, SIGHUP, SIGALRM, SIGSEGV, SIGBUS};
    for (size_t i = 0; i < sizeof sigs / sizeof sigs[0]; i++) {
        struct sigaction old;
        if (sigaction(sigs[i], NULL, &old) == 0 && old.sa_handler == SIG_DFL)
            signal(sigs[i], on_fatal);
    }
    atexit(on_exit_mid_case);
    int passed = 0, failed = 0;
    for (int i = 0; i < n_tests; i++) {
        if (argc > 1 && !strstr(tests[i].name, argv[1]))
            continue;
        test_current_failed = 0;
        first_msg[0] = '\0';
        current = tests[i].name;
        tests[i].fn();
        current = NULL;
        if (test_current_failed) {
            fprintf(stderr, "FAIL %s: %s\n", tests[i].name, first_msg);
            failed++;
        } else {
            passed++;
        }
    }
    printf("unit: %d passed, %d failed\n", passed, failed);
    return failed ? 1 : 0;
}
