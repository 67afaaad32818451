/* util/: the string buffer, atomic file writing, ARRAY_SIZE. */
#include "test.h"
#include "util/afile.h"
#include "util/alloc.h"
#include "util/array.h"
#include "util/strbuf.h"

#include <dirent.h>
#include <signal.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

TEST(util_array_size)
{
    static const int A[7] = {0};
    static const char *const B[] = {"a", "b", "c"};
    CHECK(ARRAY_SIZE(A) == 7);
    CHECK(ARRAY_SIZE(B) == 3);
}

TEST(util_strbuf_grows_and_formats)
{
    struct strbuf sb = {0};
    CHECK(sb.buf == NULL && sb.len == 0);
    strbuf_addstr(&sb, "x=");
    strbuf_addf(&sb, "%d,%.2f", 42, 0.5);
    CHECK_STR(sb.buf, "x=42,0.50");
    CHECK(sb.len == 9);
    /* past the first 4096-byte block and past the 256-byte formatting shortcut */
    for (int i = 0; i < 1000; i++)
        strbuf_addf(&sb, "%s", "0123456789");
    char big[300];
    memset(big, 'y', sizeof big - 1);
    big[sizeof big - 1] = '\0';
    strbuf_addf(&sb, "[%s]", big);
    CHECK(sb.len == 9 + 10000 + 301);
    CHECK(sb.buf[sb.len] == '\0' && sb.buf[sb.len - 1] == ']' && sb.buf[9 + 10000 + 1] == 'y');
    CHECK(!sb.failed);
    strbuf_add(&sb, "\0z", 2);
    CHECK(sb.len == 9 + 10000 + 303 && sb.buf[sb.len - 1] == 'z');
    strbuf_release(&sb);
    CHECK(sb.buf == NULL && sb.len == 0 && sb.alloc == 0);
}

/* The first size - 1 bytes of `path` into `buf`, NUL-terminated: their count, -1 without the
 * file. */
static long
read_head(const char *path, char *buf, size_t size)
{
    memset(buf, 0, size);
    FILE *f = fopen(path, "r");
    if (!f)
        return -1;
    size_t n = fread(buf, 1, size - 1, f);
    fclose(f);
    return (long)n;
}

/* Number of entries in dir whose name starts with prefix. */
static int
count_prefixed(const char *dir, const char *prefix)
{
    DIR *d = opendir(dir);
    int n = 0;
    for (struct dirent *e; d && (e = readdir(d));)
        if (strncmp(e->d_name, prefix, strlen(prefix)) == 0)
            n++;
    if (d)
        closedir(d);
    return n;
}

TEST(util_afile_commit_rollback_and_failure)
{
    char dir[] = "/tmp/roofline-test-afile-XXXXXX";
    if (!mkdtemp(dir)) {
        FAIL_AT("mkdtemp failed");
        return;
    }
    char path[128];
    snprintf(path, sizeof path, "%s/out.txt", dir);
    struct err_list errs = {0};

    /* commit: the content lands under the target name, no temporary left */
    CHECK(afile_write(path, "hello\n", 6, &errs) == 0);
    char got[16];
    CHECK(read_head(path, got, sizeof got) == 6);
    CHECK_STR(got, "hello\n");
    CHECK(count_prefixed(dir, "out.txt") == 1);

    /* rollback: the old content stays, the temporary is gone */
    struct afile af;
    CHECK(afile_open(&af, path, &errs) == 0);
    CHECK(af.tmp && strncmp(af.tmp, path, strlen(path)) == 0);
    fputs("half-written", af.fp);
    CHECK(count_prefixed(dir, "out.txt") == 2);
    afile_rollback(&af);
    CHECK(count_prefixed(dir, "out.txt") == 1);
    CHECK(read_head(path, got, sizeof got) == 6);
    CHECK_STR(got, "hello\n");

    /* two open at once get different temporary names */
    struct afile a1, a2;
    CHECK(afile_open(&a1, path, &errs) == 0);
    CHECK(afile_open(&a2, path, &errs) == 0);
    CHECK(a1.tmp && a2.tmp && strcmp(a1.tmp, a2.tmp) != 0);
    afile_rollback(&a1);
    afile_rollback(&a2);
    CHECK(errs.n == 0);

    /* a non-regular target is written directly */
    CHECK(afile_write("/dev/null", "x", 1, &errs) == 0);
    CHECK(errs.n == 0);

    /* a missing directory: -1 with a message naming the target */
    char bad[160];
    snprintf(bad, sizeof bad, "%s/no/such/dir.txt", dir);
    CHECK(afile_write(bad, "x", 1, &errs) == -1);
    CHECK(errs.n == 1);
    if (errs.n == 1) {
        CHECK_STR(errs.items[0].path, bad);
        CHECK_CONTAINS(errs.items[0].msg, "cannot create");
    }
    err_list_release(&errs);
    unlink(path);
    rmdir(dir);
}

static void
raise_sigterm(void)
{
    raise(SIGTERM);
}

/* A publish of a set interrupted (SIGTERM) after the old targets were kept as hard links and
 * before any rename: the signal handler removes the new temporaries and the old copies, so the
 * directory holds the two targets with their old contents and nothing else (before, the two
 * copies `a.txt.tmp<PID>.<N>` and `b.txt.tmp<PID>.<N>` stayed). Run in a child process, whose
 * SIGTERM afile_open finds at its default action and takes. */
TEST(util_afile_publish_all_interrupted_leaves_nothing)
{
    char dir[] = "/tmp/roofline-test-afile-XXXXXX";
    if (!mkdtemp(dir)) {
        FAIL_AT("mkdtemp failed");
        return;
    }
    char a[128], b[128];
    snprintf(a, sizeof a, "%s/a.txt", dir);
    snprintf(b, sizeof b, "%s/b.txt", dir);
    CHECK(afile_write(a, "old a\n", 6, NULL) == 0);
    CHECK(afile_write(b, "old b\n", 6, NULL) == 0);
    fflush(NULL);
    pid_t pid = fork();
    if (pid == 0) {
        signal(SIGTERM, SIG_DFL); /* the test runner's own handler out of the way */
        struct afile af[2];
        if (afile_open(&af[0], a, NULL) != 0 || afile_open(&af[1], b, NULL) != 0)
            _exit(3);
        fputs("new a\n", af[0].fp);
        fputs("new b\n", af[1].fp);
        if (afile_finish(&af[0], NULL) != 0 || afile_finish(&af[1], NULL) != 0)
            _exit(4);
        afile_publish_all_hook = raise_sigterm;
        afile_publish_all(af, 2, NULL);
        _exit(5); /* not reached: the handler dies of the signal */
    }
    int st = 0;
    CHECK(pid > 0 && waitpid(pid, &st, 0) == pid);
    CHECK(WIFSIGNALED(st) && WTERMSIG(st) == SIGTERM);
    CHECK(count_prefixed(dir, "a.txt") == 1);
    CHECK(count_prefixed(dir, "b.txt") == 1);
    char got[16];
    CHECK(read_head(a, got, sizeof got) == 6);
    CHECK_STR(got, "old a\n");
    CHECK(read_head(b, got, sizeof got) == 6);
    CHECK_STR(got, "old b\n");
    DIR *d = opendir(dir);
    struct dirent *e;
    char full[400];
    while (d && (e = readdir(d)) != NULL)
        if (e->d_name[0] != '.') {
            snprintf(full, sizeof full, "%s/%s", dir, e->d_name);
            unlink(full);
        }
    if (d)
        closedir(d);
    rmdir(dir);
}

/* "out of memory" messages say what was being done: the nested phrases innermost first, then the
 * command's; a message with its own "(while X)" gets the context inside its brackets. (This sets
 * the process's sticky failure flag, which no other unit test reads.) */
TEST(util_oom_says_while)
{
    char buf[256];
    alloc_context_command("simulating scenario '%s'", "s.yaml");
    alloc_context_describe(buf, sizeof buf);
    CHECK_STR(buf, "simulating scenario 's.yaml'");
    alloc_context_push("loading '%s'", "a.yaml");
    alloc_context_push("loading '%s'", "a.yaml"); /* a repeat is said once */
    alloc_context_describe(buf, sizeof buf);
    CHECK_STR(buf, "loading 'a.yaml', simulating scenario 's.yaml'");
    alloc_context_pop();
    alloc_context_push("drawing '%s'", "x");
    alloc_context_push("writing '%s'", "y");
    alloc_context_describe(buf, sizeof buf); /* the innermost two and the command's */
    CHECK_STR(buf, "writing 'y', drawing 'x', simulating scenario 's.yaml'");
    alloc_context_pop();
    alloc_context_pop();

    struct err_list errs = {0};
    err_add(&errs, "a.yaml", 3, 1, ERR_ERROR, "out of memory");
    err_add(&errs, "a.yaml", 4, 1, ERR_ERROR, "out of memory (while checking keys)");
    err_add(&errs, NULL, 0, 0, ERR_ERROR, "out of memory while building it");
    err_add(&errs, NULL, 0, 0, ERR_ERROR, "unknown key 'x'");
    /* a message copied from another list keeps the context it has */
    err_add(&errs, NULL, 0, 0, ERR_ERROR, "%s", errs.items[0].msg);
    alloc_context_pop();
    err_add(&errs, NULL, 0, 0, ERR_ERROR, "out of memory");
    CHECK(errs.n == 6);
    if (errs.n == 6) {
        CHECK_STR(errs.items[0].msg, "out of memory (while loading 'a.yaml', simulating scenario "
                                     "'s.yaml')");
        CHECK_STR(errs.items[1].msg, "out of memory (while checking keys, loading 'a.yaml', "
                                     "simulating scenario 's.yaml')");
        CHECK_STR(errs.items[2].msg, "out of memory while building it (while loading 'a.yaml', "
                                     "simulating scenario 's.yaml')");
        CHECK_STR(errs.items[3].msg, "unknown key 'x'");
        CHECK_STR(errs.items[4].msg, errs.items[0].msg);
        CHECK_STR(errs.items[5].msg, "out of memory (while simulating scenario 's.yaml')");
    }
    CHECK(alloc_failed());
    /* the first failure's context is kept for the command's last line */
    CHECK_STR(alloc_failure_context(), "loading 'a.yaml', simulating scenario 's.yaml'");
    err_list_release(&errs);
    alloc_context_command("%s", "");
}

/* err_sort orders by path, line and column and keeps the order of addition among equal positions
 * (a duplicate key before the unknown-key error of the same key); 40k items sort at once (the
 * insertion sort took 11 s on 120k interleaved errors). */
TEST(util_err_sort_stable)
{
    struct err_list errs = {0};
    err_add(&errs, "b.yaml", 2, 1, ERR_ERROR, "b2");
    err_add(&errs, "a.yaml", 5, 3, ERR_ERROR, "a5 first");
    err_add(&errs, NULL, 0, 0, ERR_ERROR, "no path");
    err_add(&errs, "a.yaml", 5, 3, ERR_WARNING, "a5 second");
    err_add(&errs, "a.yaml", 1, 9, ERR_ERROR, "a1");
    err_add(&errs, "a.yaml", 5, 2, ERR_ERROR, "a5 col 2");
    err_sort(&errs);
    const char *want[] = {"no path", "a1", "a5 col 2", "a5 first", "a5 second", "b2"};
    CHECK(errs.n == ARRAY_SIZE(want));
    for (size_t i = 0; i < errs.n && i < ARRAY_SIZE(want); i++)
        CHECK_STR(errs.items[i].msg, want[i]);
    err_list_release(&errs);

    enum { N = 40000 };
    for (int i = 0; i < N; i++) /* two passes over the same lines, as the key checks report */
        err_add(&errs, "k.yaml", (i % (N / 2)) + 1, 3, ERR_ERROR, "%s %d",
                i < N / 2 ? "dup" : "unknown", i % (N / 2));
    err_sort(&errs);
    bool ok = errs.n == N;
    for (size_t i = 0; ok && i < errs.n; i++) {
        char want_msg[32];
        snprintf(want_msg, sizeof want_msg, "%s %zu", i % 2 ? "unknown" : "dup", i / 2);
        ok = errs.items[i].line == (int)(i / 2) + 1 && strcmp(errs.items[i].msg, want_msg) == 0;
    }
    CHECK(ok);
    err_list_release(&errs);
}
