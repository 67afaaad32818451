/* The report layout: pagination of long tables (the header repeats on every page), sections and
 * their pages, the stream is a PDF. Counts, never bytes. */
#include "render/report.h"
#include "test.h"

#include <stdlib.h>

struct buf {
    unsigned char *p;
    size_t n, cap;
};

static int
to_buf(void *closure, const unsigned char *data, unsigned int length)
{
    struct buf *b = closure;
    if (b->n + length > b->cap) {
        size_t nc = b->cap ? b->cap * 2 : 65536;
        while (nc < b->n + length)
            nc *= 2;
        unsigned char *np = realloc(b->p, nc);
        if (!np)
            return -1;
        b->p = np;
        b->cap = nc;
    }
    memcpy(b->p + b->n, data, length);
    b->n += length;
    return 0;
}

static struct rep_doc *
long_table_doc(enum rep_paper paper, int rows)
{
    struct rep_doc *d = rep_new(paper);
    rep_set_meta(d, "test", "pagination", NULL, "t", 0);
    rep_title(d, "A long table", NULL);
    rep_contents(d);
    rep_section(d, 1, "Table", false);
    static const char *const H[] = {"row", "value", "note"};
    struct rep_table *t = rep_table(d, 3, H, "rrl");
    for (int i = 0; i < rows; i++) {
        char a[16], b[32];
        snprintf(a, sizeof a, "%d", i);
        snprintf(b, sizeof b, "%.3f", i * 1.5);
        const char *cells[] = {a, b, "text &amp; <b>markup</b>"};
        rep_table_row(t, cells);
    }
    rep_section(d, 1, "After", false);
    rep_para(d, "The end.");
    return d;
}

TEST(report_long_table_repeats_header)
{
    struct rep_doc *d = long_table_doc(REP_A4, 200);
    struct buf b = {0};
    struct rep_stats st;
    CHECK(rep_render(d, to_buf, &b, &st, NULL) == 0);
    /* 200 rows of about 13 pt do not fit one A4 page of about 700 pt */
    CHECK(st.pages >= 3);
    CHECK(st.table_pages >= 3);
    CHECK(st.table_header_draws == st.table_pages);
    CHECK(st.table_rows_drawn == 200);
    CHECK(st.sections == 2);
    CHECK(b.n > 1000 && memcmp(b.p, "%PDF-", 5) == 0);
    rep_free(d);
    free(b.p);
}

TEST(report_short_table_one_page)
{
    struct rep_doc *d = long_table_doc(REP_LETTER, 5);
    struct rep_stats st;
    struct buf b = {0};
    CHECK(rep_render(d, to_buf, &b, &st, NULL) == 0);
    CHECK(st.pages == 1);
    CHECK(st.table_header_draws == 1);
    CHECK(st.table_rows_drawn == 5);
    rep_free(d);
    free(b.p);
}

TEST(report_same_input_same_bytes)
{
    struct buf a = {0}, b = {0};
    struct rep_doc *d = long_table_doc(REP_A4, 60);
    CHECK(rep_render(d, to_buf, &a, NULL, NULL) == 0);
    CHECK(rep_render(d, to_buf, &b, NULL, NULL) == 0);
    CHECK(a.n == b.n && a.n > 0 && memcmp(a.p, b.p, a.n) == 0);
    rep_free(d);
    free(a.p);
    free(b.p);
}

TEST(report_section_new_page_and_breaks)
{
    struct rep_doc *d = rep_new(REP_A4);
    rep_section(d, 1, "One", false);
    rep_para(d, "first");
    rep_section(d, 1, "Two", true);
    rep_section(d, 2, "Two point one", false);
    rep_page_break(d);
    rep_page_break(d); /* a break on an empty page adds none */
    rep_para(d, "last");
    struct rep_stats st;
    struct buf b = {0};
    CHECK(rep_render(d, to_buf, &b, &st, NULL) == 0);
    CHECK(st.pages == 3);
    CHECK(st.sections == 3);
    CHECK(st.first_section_page == 1);
    rep_free(d);
    free(b.p);
}

TEST(report_paper)
{
    enum rep_paper p;
    CHECK(rep_paper_parse("A4", &p) == 0 && p == REP_A4);
    CHECK(rep_paper_parse("letter", &p) == 0 && p == REP_LETTER);
    CHECK(rep_paper_parse("a5", &p) == -1);
    char *e = rep_escape("a<b & 'c'");
    CHECK_STR(e, "a&lt;b &amp; &apos;c&apos;");
    free(e);
}
