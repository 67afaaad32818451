/* Multi-page PDF reports: a document model (title, numbered sections, paragraphs in Pango markup,
 * tables, charts, a contents list) laid out on A4 or Letter pages with Pango on Cairo's PDF
 * surface. Sections get PDF outline entries and link targets, the contents list links to them,
 * tables repeat their header after a page break, charts are drawn as vectors by chart_draw on the
 * report's own cairo_t. Building never prints; rep_write writes the file atomically. */
#ifndef ROOFLINE_RENDER_REPORT_H
#define ROOFLINE_RENDER_REPORT_H

#include "render/chart.h"
#include "util/err.h"

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

enum rep_paper { REP_A4, REP_LETTER };

struct rep_doc;
struct rep_table;

/* Counts from one layout, for tests and benchmarks. */
struct rep_stats {
    int pages;
    int sections;           /* outline entries */
    int table_header_draws; /* header rows drawn, summed over tables */
    int table_rows_drawn;   /* body rows drawn, summed over tables */
    int table_pages;        /* pages each table touches, summed over tables */
    int charts;             /* charts drawn */
    int first_section_page; /* page (1-based) of the first numbered section; 0 when none */
};

/* "a4" or "letter" (any case); 0, or -1 for another name. */
int rep_paper_parse(const char *s, enum rep_paper *out);

/* A new empty document on `paper`; the caller frees it with rep_free. NULL when out of memory.
 * Allocation failures while building make the document fail at rep_write. */
struct rep_doc *rep_new(enum rep_paper paper);
void rep_free(struct rep_doc *d);

/* Metadata: title (also the running footer), subject, keywords (each may be NULL). The creator is
 * "roofline VERSION". `epoch_s` is the creation date in seconds since 1970 (fixed by the caller so
 * that the same input gives the same file). */
void rep_set_meta(struct rep_doc *d, const char *title, const char *subject, const char *keywords,
                  const char *version, long long epoch_s);

/* Escapes text for Pango markup (& < > ' "); returns a string the caller frees (NULL when out of
 * memory). */
char *rep_escape(const char *text);

/* The title block at the top of the current page: a large title and an optional subtitle
 * (markup). */
void rep_title(struct rep_doc *d, const char *title, const char *subtitle_markup);
/* A numbered section (level 1) or subsection (level 2) with an outline entry and a link target;
 * numbered "2" / "2.3". Plain text, not markup. `new_page`: start it on a new page. */
void rep_section(struct rep_doc *d, int level, const char *title, bool new_page);
/* A paragraph of Pango markup, wrapped to the text width; it may break across pages by line. */
void rep_para(struct rep_doc *d, const char *markup);
/* A smaller grey paragraph (notes, captions). */
void rep_note(struct rep_doc *d, const char *markup);
/* A paragraph in a shaded box with a coloured rule on the left (the answer); kept on one page. */
void rep_box(struct rep_doc *d, const char *markup);
/* A formula line (markup), indented from the text column; breaks by line. */
void rep_formula(struct rep_doc *d, const char *markup);
/* A monospaced paragraph (command lines, hashes); breaks by line. Plain text. */
void rep_code(struct rep_doc *d, const char *text);
/* The list of sections with their page numbers, each linked to its section. */
void rep_contents(struct rep_doc *d);
void rep_page_break(struct rep_doc *d);

/* A table of n_cols columns; `headers` (markup, may be NULL for a table without a header row) and
 * `align` ("lrrc": one letter per column, NULL = all left) are copied. Rows are markup. The
 * widths follow the content, shrunk to the text width with wrapping when needed. The header row
 * is drawn again at the top of every page the table continues on. Returns the table to add rows
 * to (owned by the document), or NULL when out of memory. */
struct rep_table *rep_table(struct rep_doc *d, int n_cols, const char *const *headers,
                            const char *align);
void rep_table_row(struct rep_table *t, const char *const *cells);
/* Caption under the table (markup). */
void rep_table_caption(struct rep_table *t, const char *markup);

/* A chart drawn as vectors in a box of the text width x height_pt (kept on one page), with an
 * optional caption (markup). The document takes ownership of `c` (chart_free at rep_free). */
void rep_chart(struct rep_doc *d, struct chart *c, double height_pt, const char *caption);
/* A paragraph (markup) beside a chart: text on the left `text_frac` of the width, the chart on the
 * right, both on one page. Takes ownership of `c` (NULL: the paragraph spans the width). */
void rep_side(struct rep_doc *d, const char *markup, struct chart *c, double height_pt,
              double text_frac);

/* Lays the document out and streams the PDF through `write` (Cairo's stream callback contract:
 * return 0 on success). Fills `stats` (may be NULL). Returns 0, or -1 with the reason in `errs`.
 */
typedef int (*rep_write_fn)(void *closure, const unsigned char *data, unsigned int length);
int rep_render(struct rep_doc *d, rep_write_fn write, void *closure, struct rep_stats *stats,
               struct err_list *errs);
/* rep_render into `path`, written to a temporary name in the same directory and renamed into
 * place: on failure (or if the process dies) `path` is untouched. 0 or -1 (errs). */
int rep_write(struct rep_doc *d, const char *path, struct rep_stats *stats, struct err_list *errs);

#endif
