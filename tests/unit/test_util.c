/* util/: the string buffer, atomic file writing, ARRAY_SIZE. */
#include "test.h"
#include "util/afile.h"
#include "util/array.h"
#include "util/strbuf.h"

#include <dirent.h>
#include <stdlib.h>
#include <sys/stat.h>
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
    FILE *f = fopen(path, "r");
    char got[16] = {0};
    CHECK(f && fread(got, 1, sizeof got - 1, f) == 6);
    if (f)
        fclose(f);
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
    f = fopen(path, "r");
    memset(got, 0, sizeof got);
    CHECK(f && fread(got, 1, sizeof got - 1, f) == 6);
    if (f)
        fclose(f);
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
