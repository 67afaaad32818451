/* The report layout: blocks collected in memory, then laid out twice on Cairo's PDF surface, once
 * to learn the page of every section and the page count (nothing drawn), once to draw with the
 * contents list, outline and "page N of M" footers filled in. Text is set with Pango in "DejaVu
 * Sans" with hinting off, so glyph positions do not depend on the machine. One file (about 1,150
 * lines): the block list, paragraphs, tables with repeated headers, charts, outline and the two
 * passes all work on one private layout state (struct lay), which a split would have to export. */
#include "render/report.h"

#include "render/draw.h"

#include <cairo-pdf.h>
#include <cairo.h>
#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <pango/pangocairo.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <time.h>
#include <unistd.h>

#define FONT "DejaVu Sans"
#define MONO "DejaVu Sans Mono"
#define MARGIN_PT 54.0
#define FOOTER_PT 28.0
#define BODY_PT 9.5
#define NOTE_PT 8.0
#define TABLE_PT 8.0
#define CELL_PAD_PT 3.5
#define ACCENT 0x0072B2u
/* A chart that does not fit below the text on its page is set shorter to fill what is left,
 * down to this share of its height, rather than leave that space empty and go whole to the
 * next page (a typesetter's shrink of a float; the width, the fonts and the marks stay). */
#define CHART_MIN_SHARE 0.7

enum blk_kind {
    B_TITLE,
    B_SECTION,
    B_PARA,
    B_NOTE,
    B_BOX,
    B_CODE,
    B_CONTENTS,
    B_BREAK,
    B_TABLE,
    B_CHART,
    B_SIDE,
    B_FORMULA
};

struct rep_table {
    struct rep_doc *doc;
    int n_cols;
    char **headers; /* n_cols or NULL */
    char align[32];
    char **cells; /* n_rows x n_cols */
    size_t n_rows, cap_rows;
    char *caption;
};

struct blk {
    enum blk_kind kind;
    char *text, *text2;
    int level;
    bool new_page;
    int sec; /* B_SECTION: index into secs */
    struct chart *chart;
    double height_pt, frac;
    struct rep_table *table;
};

struct sec {
    char num[32];
    char *title;
    int level;
    int page; /* from the first pass */
};

struct rep_doc {
    double page_w, page_h;
    struct blk *blks;
    size_t n_blks, cap_blks;
    struct sec *secs;
    int n_secs, cap_secs;
    int n1, n2; /* section counters */
    char *title, *subject, *keywords, *version;
    long long epoch_s;
    bool failed;
};

int
rep_paper_parse(const char *s, enum rep_paper *out)
{
    if (strcasecmp(s, "a4") == 0)
        *out = REP_A4;
    else if (strcasecmp(s, "letter") == 0)
        *out = REP_LETTER;
    else
        return -1;
    return 0;
}

static char *
sdup(struct rep_doc *d, const char *s)
{
    if (!s)
        return NULL;
    char *r = strdup(s);
    if (!r)
        d->failed = true;
    return r;
}

struct rep_doc *
rep_new(enum rep_paper paper)
{
    struct rep_doc *d = calloc(1, sizeof *d);
    if (!d)
        return NULL;
    /* ISO 216 A4 is 210 x 297 mm; US Letter 8.5 x 11 in; 72 pt to the inch */
    d->page_w = paper == REP_A4 ? 210.0 / 25.4 * 72.0 : 612.0;
    d->page_h = paper == REP_A4 ? 297.0 / 25.4 * 72.0 : 792.0;
    d->epoch_s = 1704067200; /* 2024-01-01T00:00:00Z */
    return d;
}

static void
table_free(struct rep_table *t)
{
    if (!t)
        return;
    if (t->headers)
        for (int i = 0; i < t->n_cols; i++)
            free(t->headers[i]);
    free(t->headers);
    for (size_t i = 0; i < t->n_rows * (size_t)t->n_cols; i++)
        free(t->cells[i]);
    free(t->cells);
    free(t->caption);
    free(t);
}

void
rep_free(struct rep_doc *d)
{
    if (!d)
        return;
    for (size_t i = 0; i < d->n_blks; i++) {
        free(d->blks[i].text);
        free(d->blks[i].text2);
        chart_free(d->blks[i].chart);
        table_free(d->blks[i].table);
    }
    free(d->blks);
    for (int i = 0; i < d->n_secs; i++)
        free(d->secs[i].title);
    free(d->secs);
    free(d->title);
    free(d->subject);
    free(d->keywords);
    free(d->version);
    free(d);
}

void
rep_set_meta(struct rep_doc *d, const char *title, const char *subject, const char *keywords,
             const char *version, long long epoch_s)
{
    free(d->title);
    free(d->subject);
    free(d->keywords);
    free(d->version);
    d->title = sdup(d, title);
    d->subject = sdup(d, subject);
    d->keywords = sdup(d, keywords);
    d->version = sdup(d, version);
    d->epoch_s = epoch_s;
}

char *
rep_escape(const char *text)
{
    return g_markup_escape_text(text ? text : "", -1);
}

/* Appends a zeroed block; NULL (and the document failed) when out of memory. */
static struct blk *
add(struct rep_doc *d, enum blk_kind kind)
{
    if (d->failed)
        return NULL;
    if (d->n_blks == d->cap_blks) {
        size_t nc = d->cap_blks ? d->cap_blks * 2 : 32;
        struct blk *nb = realloc(d->blks, nc * sizeof *nb);
        if (!nb) {
            d->failed = true;
            return NULL;
        }
        d->blks = nb;
        d->cap_blks = nc;
    }
    struct blk *b = &d->blks[d->n_blks++];
    memset(b, 0, sizeof *b);
    b->kind = kind;
    return b;
}

static void
add_text(struct rep_doc *d, enum blk_kind kind, const char *s)
{
    struct blk *b = add(d, kind);
    if (b)
        b->text = sdup(d, s ? s : "");
}

void
rep_title(struct rep_doc *d, const char *title, const char *subtitle_markup)
{
    struct blk *b = add(d, B_TITLE);
    if (b) {
        b->text = rep_escape(title);
        b->text2 = sdup(d, subtitle_markup);
        if (!b->text)
            d->failed = true;
    }
}

void
rep_section(struct rep_doc *d, int level, const char *title, bool new_page)
{
    struct blk *b = add(d, B_SECTION);
    if (!b)
        return;
    if (d->n_secs == d->cap_secs) {
        int nc = d->cap_secs ? d->cap_secs * 2 : 16;
        struct sec *ns = realloc(d->secs, (size_t)nc * sizeof *ns);
        if (!ns) {
            d->failed = true;
            d->n_blks--;
            return;
        }
        d->secs = ns;
        d->cap_secs = nc;
    }
    struct sec *s = &d->secs[d->n_secs];
    memset(s, 0, sizeof *s);
    s->level = level <= 1 ? 1 : 2;
    if (s->level == 1) {
        d->n1++;
        d->n2 = 0;
        snprintf(s->num, sizeof s->num, "%d", d->n1);
    } else {
        d->n2++;
        snprintf(s->num, sizeof s->num, "%d.%d", d->n1, d->n2);
    }
    s->title = sdup(d, title);
    b->sec = d->n_secs++;
    b->level = s->level;
    b->new_page = new_page;
}

void
rep_para(struct rep_doc *d, const char *markup)
{
    add_text(d, B_PARA, markup);
}

void
rep_note(struct rep_doc *d, const char *markup)
{
    add_text(d, B_NOTE, markup);
}

void
rep_box(struct rep_doc *d, const char *markup)
{
    add_text(d, B_BOX, markup);
}

void
rep_formula(struct rep_doc *d, const char *markup)
{
    add_text(d, B_FORMULA, markup);
}

void
rep_code(struct rep_doc *d, const char *text)
{
    add_text(d, B_CODE, text);
}

void
rep_contents(struct rep_doc *d)
{
    add(d, B_CONTENTS);
}

void
rep_page_break(struct rep_doc *d)
{
    add(d, B_BREAK);
}

struct rep_table *
rep_table(struct rep_doc *d, int n_cols, const char *const *headers, const char *align)
{
    if (n_cols < 1 || n_cols > 30)
        return NULL;
    struct blk *b = add(d, B_TABLE);
    if (!b)
        return NULL;
    struct rep_table *t = calloc(1, sizeof *t);
    if (!t) {
        d->failed = true;
        d->n_blks--;
        return NULL;
    }
    t->doc = d;
    t->n_cols = n_cols;
    for (int i = 0; i < n_cols; i++)
        t->align[i] = align && i < (int)strlen(align) ? align[i] : 'l';
    if (headers) {
        t->headers = calloc((size_t)n_cols, sizeof *t->headers);
        if (!t->headers)
            d->failed = true;
        else
            for (int i = 0; i < n_cols; i++)
                t->headers[i] = sdup(d, headers[i] ? headers[i] : "");
    }
    b->table = t;
    return t;
}

void
rep_table_row(struct rep_table *t, const char *const *cells)
{
    if (!t || t->doc->failed)
        return;
    if (t->n_rows == t->cap_rows) {
        size_t nc = t->cap_rows ? t->cap_rows * 2 : 16;
        char **ncells = realloc(t->cells, nc * (size_t)t->n_cols * sizeof *ncells);
        if (!ncells) {
            t->doc->failed = true;
            return;
        }
        t->cells = ncells;
        t->cap_rows = nc;
    }
    char **row = t->cells + t->n_rows * (size_t)t->n_cols;
    for (int i = 0; i < t->n_cols; i++)
        row[i] = sdup(t->doc, cells[i] ? cells[i] : "");
    t->n_rows++;
}

void
rep_table_caption(struct rep_table *t, const char *markup)
{
    if (!t)
        return;
    free(t->caption);
    t->caption = sdup(t->doc, markup);
}

void
rep_chart(struct rep_doc *d, struct chart *c, double height_pt, const char *caption)
{
    struct blk *b = add(d, B_CHART);
    if (!b) {
        chart_free(c);
        return;
    }
    b->chart = c;
    b->height_pt = height_pt;
    b->text = sdup(d, caption);
    if (!c)
        d->failed = true;
}

void
rep_side(struct rep_doc *d, const char *markup, struct chart *c, double height_pt, double text_frac)
{
    struct blk *b = add(d, B_SIDE);
    if (!b) {
        chart_free(c);
        return;
    }
    b->text = sdup(d, markup);
    b->chart = c;
    b->height_pt = height_pt;
    b->frac = c ? fmin(fmax(text_frac, 0.2), 0.8) : 1.0;
}

/* ---- layout ---- */

struct lay {
    struct rep_doc *d;
    cairo_surface_t *surface;
    cairo_t *cr;
    PangoContext *pc;
    bool draw;    /* second pass */
    int total;    /* pages, from the first pass */
    int page;     /* current, 1-based */
    double y;     /* top of the free space on the page */
    double x0, w; /* text column */
    double top, bottom;
    int outline_parent;
    struct rep_stats st;
    const char *why;
};

static void
rgb(cairo_t *cr, uint32_t c)
{
    cairo_set_source_rgb(cr, ((c >> 16) & 0xff) / 255.0, ((c >> 8) & 0xff) / 255.0,
                         (c & 0xff) / 255.0);
}

/* Markup when it parses, else the same string as plain text (never fails on bad markup). */
static void
set_markup(PangoLayout *l, const char *s)
{
    if (pango_parse_markup(s, -1, 0, NULL, NULL, NULL, NULL))
        pango_layout_set_markup(l, s, -1);
    else
        pango_layout_set_text(l, s, -1);
}

/* A layout of `s` at size_pt, wrapped at width_pt (<= 0: no wrap). The caller unrefs it. */
static PangoLayout *
text_layout(struct lay *L, const char *s, const char *family, double size_pt, bool bold,
            double width_pt, bool markup)
{
    PangoLayout *l = pango_layout_new(L->pc);
    PangoFontDescription *fd = pango_font_description_from_string(family);
    pango_font_description_set_absolute_size(fd, size_pt * PANGO_SCALE);
    if (bold)
        pango_font_description_set_weight(fd, PANGO_WEIGHT_BOLD);
    pango_layout_set_font_description(l, fd);
    pango_font_description_free(fd);
    if (width_pt > 0) {
        pango_layout_set_width(l, (int)(width_pt * PANGO_SCALE));
        pango_layout_set_wrap(l, PANGO_WRAP_WORD_CHAR);
    }
    if (markup)
        set_markup(l, s);
    else
        pango_layout_set_text(l, s, -1);
    return l;
}

static double
layout_h(PangoLayout *l)
{
    PangoRectangle r;
    pango_layout_get_extents(l, NULL, &r);
    return (double)r.height / PANGO_SCALE;
}

static double
layout_w(PangoLayout *l)
{
    PangoRectangle r;
    pango_layout_get_extents(l, NULL, &r);
    return (double)(r.x + r.width) / PANGO_SCALE;
}

static void
show_at(struct lay *L, PangoLayout *l, double x, double y, uint32_t colour)
{
    if (!L->draw)
        return;
    rgb(L->cr, colour);
    cairo_move_to(L->cr, x, y);
    pango_cairo_show_layout(L->cr, l);
}

static void
footer(struct lay *L)
{
    if (!L->draw)
        return;
    char buf[64];
    snprintf(buf, sizeof buf, "page %d of %d", L->page, L->total);
    PangoLayout *l = text_layout(L, buf, FONT, 7.5, false, 0, false);
    double fy = L->d->page_h - MARGIN_PT + 10;
    show_at(L, l, L->x0 + L->w - layout_w(l), fy, 0x666666);
    g_object_unref(l);
    if (L->d->title) {
        l = text_layout(L, L->d->title, FONT, 7.5, false, L->w * 0.75, false);
        pango_layout_set_ellipsize(l, PANGO_ELLIPSIZE_END);
        pango_layout_set_height(l, 0);
        show_at(L, l, L->x0, fy, 0x666666);
        g_object_unref(l);
    }
    cairo_set_line_width(L->cr, 0.4);
    rgb(L->cr, 0xBBBBBB);
    cairo_move_to(L->cr, L->x0, fy - 4);
    cairo_line_to(L->cr, L->x0 + L->w, fy - 4);
    cairo_stroke(L->cr);
}

static void
new_page(struct lay *L)
{
    footer(L);
    if (L->draw) {
        cairo_show_page(L->cr);
        if (cairo_status(L->cr) != CAIRO_STATUS_SUCCESS && !L->why)
            L->why = cairo_status_to_string(cairo_status(L->cr));
    }
    L->page++;
    L->y = L->top;
}

/* Moves to a new page unless `h` fits below y (or the page is still empty). */
static void
need(struct lay *L, double h)
{
    if (L->y + h > L->bottom && L->y > L->top + 0.5)
        new_page(L);
}

/* Places a layout line by line from y, breaking pages between lines. */
static void
flow(struct lay *L, PangoLayout *l, double x, uint32_t colour)
{
    PangoLayoutIter *it = pango_layout_get_iter(l);
    double shift = L->y; /* page y of the layout's y = 0 */
    do {
        PangoRectangle lr;
        pango_layout_iter_get_line_extents(it, NULL, &lr);
        double ly = (double)lr.y / PANGO_SCALE, lh = (double)lr.height / PANGO_SCALE;
        if (shift + ly + lh > L->bottom && shift + ly > L->top + 0.5) {
            new_page(L);
            shift = L->top - ly;
        }
        if (L->draw) {
            double base = (double)pango_layout_iter_get_baseline(it) / PANGO_SCALE;
            rgb(L->cr, colour);
            cairo_move_to(L->cr, x + (double)lr.x / PANGO_SCALE, shift + base);
            pango_cairo_show_layout_line(L->cr, pango_layout_iter_get_line_readonly(it));
        }
        L->y = shift + ly + lh;
    } while (pango_layout_iter_next_line(it));
    pango_layout_iter_free(it);
}

static void
do_title(struct lay *L, const struct blk *b)
{
    PangoLayout *l = text_layout(L, b->text, FONT, 20, true, L->w, true);
    double h = layout_h(l);
    need(L, h + 40);
    show_at(L, l, L->x0, L->y, 0x111111);
    L->y += h + 4;
    g_object_unref(l);
    if (b->text2 && b->text2[0]) {
        l = text_layout(L, b->text2, FONT, 10, false, L->w, true);
        show_at(L, l, L->x0, L->y, 0x444444);
        L->y += layout_h(l) + 6;
        g_object_unref(l);
    }
    if (L->draw) {
        cairo_set_line_width(L->cr, 1.2);
        rgb(L->cr, ACCENT);
        cairo_move_to(L->cr, L->x0, L->y);
        cairo_line_to(L->cr, L->x0 + L->w, L->y);
        cairo_stroke(L->cr);
    }
    L->y += 12;
}

/* Height of the blocks a heading is kept with: the paragraphs after it up to and including the
 * first chart or box (a table: its first rows), at most half a page. */
static double
keep_height(struct lay *L, const struct blk *b)
{
    const struct blk *end = L->d->blks + L->d->n_blks;
    double h = 0;
    for (; b < end; b++) {
        if (b->kind == B_PARA || b->kind == B_NOTE || b->kind == B_BOX || b->kind == B_SIDE) {
            PangoLayout *l = text_layout(L, b->text ? b->text : "", FONT,
                                         b->kind == B_NOTE ? NOTE_PT : BODY_PT, false, L->w, true);
            h += layout_h(l) + 8;
            g_object_unref(l);
            if (b->kind == B_SIDE)
                h = fmax(h, b->height_pt + 8);
            if (b->kind == B_PARA || b->kind == B_NOTE)
                continue;
        } else if (b->kind == B_CHART) {
            h += CHART_MIN_SHARE * b->height_pt + 20;
        } else {
            h += 60;
        }
        break;
    }
    return fmin(fmax(h, 40), (L->bottom - L->top) * 0.5 + 40);
}

static void
do_section(struct lay *L, const struct blk *b)
{
    struct sec *s = &L->d->secs[b->sec];
    char buf[512];
    snprintf(buf, sizeof buf, "%s  %s", s->num, s->title ? s->title : "");
    double size = s->level == 1 ? 14 : 11;
    PangoLayout *l = text_layout(L, buf, FONT, size, true, L->w, false);
    double h = layout_h(l);
    double before = s->level == 1 ? 14 : 8;
    if (b->new_page && L->y > L->top + 0.5)
        new_page(L);
    if (L->y > L->top + 0.5)
        L->y += before;
    need(L, h + keep_height(L, b + 1)); /* keep with what follows */
    s->page = L->page;
    if (L->st.first_section_page == 0)
        L->st.first_section_page = L->page;
    L->st.sections++;
    if (L->draw) {
        char attr[64];
        snprintf(attr, sizeof attr, "name='sec%d'", b->sec);
        cairo_tag_begin(L->cr, CAIRO_TAG_DEST, attr);
        show_at(L, l, L->x0, L->y, s->level == 1 ? 0x0B3D66 : 0x222222);
        cairo_tag_end(L->cr, CAIRO_TAG_DEST);
        snprintf(attr, sizeof attr, "dest='sec%d'", b->sec);
        int id = cairo_pdf_surface_add_outline(
            L->surface, s->level == 1 ? CAIRO_PDF_OUTLINE_ROOT : L->outline_parent, buf, attr,
            s->level == 1 ? CAIRO_PDF_OUTLINE_FLAG_OPEN : 0);
        if (s->level == 1)
            L->outline_parent = id;
    }
    L->y += h + (s->level == 1 ? 6 : 4);
    g_object_unref(l);
}

static void
do_para(struct lay *L, const struct blk *b, double size, uint32_t colour, const char *family,
        bool markup)
{
    PangoLayout *l = text_layout(L, b->text, family, size, false, L->w, markup);
    pango_layout_set_spacing(l, (int)(size * 0.25 * PANGO_SCALE));
    need(L, fmin(layout_h(l), size * 2.6));
    flow(L, l, L->x0, colour);
    L->y += size * 0.7;
    g_object_unref(l);
}

static void
do_formula(struct lay *L, const struct blk *b)
{
    double indent = 18;
    PangoLayout *l = text_layout(L, b->text, FONT, BODY_PT + 0.5, false, L->w - indent, true);
    pango_layout_set_spacing(l, (int)(2 * PANGO_SCALE));
    need(L, fmin(layout_h(l), 30));
    L->y += 1;
    flow(L, l, L->x0 + indent, 0x0B3D66);
    L->y += 5;
    g_object_unref(l);
}

static void
do_box(struct lay *L, const struct blk *b)
{
    double pad = 8;
    PangoLayout *l = text_layout(L, b->text, FONT, 10, false, L->w - 2 * pad - 4, true);
    pango_layout_set_spacing(l, (int)(2.5 * PANGO_SCALE));
    double h = layout_h(l) + 2 * pad;
    need(L, h);
    if (L->draw) {
        rgb(L->cr, 0xEEF4FA);
        cairo_rectangle(L->cr, L->x0, L->y, L->w, h);
        cairo_fill(L->cr);
        rgb(L->cr, ACCENT);
        cairo_rectangle(L->cr, L->x0, L->y, 3, h);
        cairo_fill(L->cr);
    }
    if (h > L->bottom - L->y) { /* taller than a page: let it flow */
        L->y += pad;
        flow(L, l, L->x0 + pad + 4, 0x111111);
        L->y += pad;
    } else {
        show_at(L, l, L->x0 + pad + 4, L->y + pad, 0x111111);
        L->y += h;
    }
    L->y += 8;
    g_object_unref(l);
}

static void
do_contents(struct lay *L)
{
    PangoLayout *hd = text_layout(L, "Contents", FONT, 11, true, 0, false);
    need(L, layout_h(hd) + 40);
    L->y += 6;
    show_at(L, hd, L->x0, L->y, 0x222222);
    L->y += layout_h(hd) + 4;
    g_object_unref(hd);
    /* a long list keeps to the sections (the outline still has every subsection), so that the
     * contents stay on the answer's page */
    bool top_only = L->d->n_secs > 16;
    for (int i = 0; i < L->d->n_secs; i++) {
        const struct sec *s = &L->d->secs[i];
        if (top_only && s->level > 1)
            continue;
        char buf[512], pg[32];
        snprintf(buf, sizeof buf, "%s  %s", s->num, s->title ? s->title : "");
        snprintf(pg, sizeof pg, "%d", s->page);
        double indent = s->level == 1 ? 0 : 18;
        PangoLayout *l = text_layout(L, buf, FONT, s->level == 1 ? 9.5 : 8.5, s->level == 1,
                                     L->w - indent - 40, false);
        PangoLayout *p = text_layout(L, pg, FONT, s->level == 1 ? 9.5 : 8.5, false, 0, false);
        double h = layout_h(l) + 1.5;
        need(L, h);
        if (L->draw) {
            char attr[64];
            snprintf(attr, sizeof attr, "dest='sec%d'", i);
            cairo_tag_begin(L->cr, CAIRO_TAG_LINK, attr);
            show_at(L, l, L->x0 + indent, L->y, 0x0B3D66);
            show_at(L, p, L->x0 + L->w - layout_w(p), L->y, 0x0B3D66);
            cairo_tag_end(L->cr, CAIRO_TAG_LINK);
            /* dotted leader */
            double x1 = L->x0 + indent + layout_w(l) + 6, x2 = L->x0 + L->w - layout_w(p) - 6;
            if (x2 > x1) {
                double dash[] = {0.6, 2.4};
                cairo_set_dash(L->cr, dash, 2, 0);
                cairo_set_line_width(L->cr, 0.6);
                rgb(L->cr, 0x999999);
                cairo_move_to(L->cr, x1, L->y + h * 0.72);
                cairo_line_to(L->cr, x2, L->y + h * 0.72);
                cairo_stroke(L->cr);
                cairo_set_dash(L->cr, NULL, 0, 0);
            }
        }
        L->y += h;
        g_object_unref(l);
        g_object_unref(p);
    }
    L->y += 10;
}

/* Column widths in the manner of HTML's automatic table layout: natural widths when they fit the
 * text width; otherwise every column keeps at least its longest word (a number with its unit
 * in a right-aligned body cell, its whole text) and the rest of the width is shared in proportion
 * to how much more each column would like. */
static void
table_widths(struct lay *L, const struct rep_table *t, double *wd)
{
    double nat[32] = {0}, mn[32] = {0};
    for (int c = 0; c < t->n_cols; c++) {
        for (size_t r = 0; r <= t->n_rows; r++) {
            bool hdr = r == t->n_rows;
            if (hdr && !t->headers)
                continue;
            const char *s = hdr ? t->headers[c] : t->cells[r * (size_t)t->n_cols + (size_t)c];
            PangoLayout *l = text_layout(L, s, FONT, TABLE_PT, hdr, 0, true);
            nat[c] = fmax(nat[c], layout_w(l));
            /* a number with its unit ("232.28 ms": one space at most) in a right-aligned
             * column never breaks: the text columns wrap instead */
            const char *sp = strchr(s, ' ');
            bool number = t->align[c] == 'r' && !hdr && (!sp || !strchr(sp + 1, ' '));
            if (!number) {
                pango_layout_set_width(l, PANGO_SCALE);
                pango_layout_set_wrap(l, PANGO_WRAP_WORD);
            }
            mn[c] = fmax(mn[c], layout_w(l));
            g_object_unref(l);
        }
        nat[c] += 2 * CELL_PAD_PT + 1;
        mn[c] = fmin(mn[c] + 2 * CELL_PAD_PT + 1, nat[c]);
    }
    double total = 0, tmin = 0;
    for (int c = 0; c < t->n_cols; c++) {
        total += nat[c];
        tmin += mn[c];
    }
    if (total <= L->w) {
        /* spread a small surplus so tables read as blocks, not ragged columns */
        double extra = total > 0.6 * L->w ? (L->w - total) / t->n_cols : 0;
        for (int c = 0; c < t->n_cols; c++)
            wd[c] = nat[c] + extra;
        return;
    }
    if (tmin >= L->w) { /* even the longest words do not fit: scale them (they break) */
        for (int c = 0; c < t->n_cols; c++)
            wd[c] = mn[c] * L->w / tmin;
        return;
    }
    double f = (L->w - tmin) / (total - tmin);
    for (int c = 0; c < t->n_cols; c++)
        wd[c] = mn[c] + (nat[c] - mn[c]) * f;
}

/* Lays out one row's cells (header when hdr) and returns its height. */
static double
row_layouts(struct lay *L, const struct rep_table *t, char *const *cells, bool hdr,
            const double *wd, PangoLayout **out)
{
    double h = 0;
    for (int c = 0; c < t->n_cols; c++) {
        out[c] = text_layout(L, cells[c], FONT, TABLE_PT, hdr, wd[c] - 2 * CELL_PAD_PT, true);
        pango_layout_set_alignment(out[c], t->align[c] == 'r'   ? PANGO_ALIGN_RIGHT
                                           : t->align[c] == 'c' ? PANGO_ALIGN_CENTER
                                                                : PANGO_ALIGN_LEFT);
        h = fmax(h, layout_h(out[c]));
    }
    return h + 2 * CELL_PAD_PT * 0.6;
}

static void
draw_row(struct lay *L, const struct rep_table *t, PangoLayout **ls, const double *wd, double h,
         uint32_t fill, bool rule)
{
    if (L->draw) {
        double tw = 0;
        for (int c = 0; c < t->n_cols; c++)
            tw += wd[c];
        if (fill != 0xFFFFFF) {
            rgb(L->cr, fill);
            cairo_rectangle(L->cr, L->x0, L->y, tw, h);
            cairo_fill(L->cr);
        }
        double x = L->x0;
        for (int c = 0; c < t->n_cols; c++) {
            show_at(L, ls[c], x + CELL_PAD_PT, L->y + CELL_PAD_PT * 0.6, 0x111111);
            x += wd[c];
        }
        if (rule) {
            cairo_set_line_width(L->cr, 0.6);
            rgb(L->cr, 0x888888);
            cairo_move_to(L->cr, L->x0, L->y + h);
            cairo_line_to(L->cr, L->x0 + tw, L->y + h);
            cairo_stroke(L->cr);
        }
    }
    L->y += h;
}

static void
do_table(struct lay *L, const struct blk *b)
{
    const struct rep_table *t = b->table;
    double wd[32];
    table_widths(L, t, wd);
    PangoLayout *hl[32] = {0}, *rl[32] = {0};
    double hh = t->headers ? row_layouts(L, t, t->headers, true, wd, hl) : 0;
    L->y += 2;
    int last_page = 0;
    for (size_t r = 0; r < t->n_rows; r++) {
        double rh = row_layouts(L, t, t->cells + r * (size_t)t->n_cols, false, wd, rl);
        bool first = r == 0;
        if (first)
            need(L, hh + rh);
        else if (L->y + rh > L->bottom)
            new_page(L);
        if (L->page != last_page) {
            L->st.table_pages++;
            last_page = L->page;
            if (t->headers) {
                draw_row(L, t, hl, wd, hh, 0xE4E9EF, true);
                L->st.table_header_draws++;
            }
        }
        draw_row(L, t, rl, wd, rh, r % 2 ? 0xF5F7F9 : 0xFFFFFF, false);
        L->st.table_rows_drawn++;
        for (int c = 0; c < t->n_cols; c++)
            g_object_unref(rl[c]);
    }
    if (t->n_rows == 0 && t->headers) {
        need(L, hh);
        draw_row(L, t, hl, wd, hh, 0xE4E9EF, true);
        L->st.table_header_draws++;
        L->st.table_pages++;
    }
    for (int c = 0; c < t->n_cols; c++)
        if (hl[c])
            g_object_unref(hl[c]);
    L->y += 4;
    if (t->caption) {
        struct blk cap = {.kind = B_NOTE, .text = t->caption};
        do_para(L, &cap, NOTE_PT, 0x555555, FONT, true);
    } else {
        L->y += 6;
    }
}

static void
draw_chart(struct lay *L, struct chart *c, double x, double y, double w, double h)
{
    L->st.charts++;
    if (!L->draw)
        return;
    cairo_save(L->cr);
    cairo_translate(L->cr, x, y);
    if (chart_draw(c, L->cr, w, h) != 0 && !L->why)
        L->why = "a chart does not fit its box";
    cairo_restore(L->cr);
}

static void
do_chart(struct lay *L, const struct blk *b)
{
    PangoLayout *cap = b->text ? text_layout(L, b->text, FONT, NOTE_PT, false, L->w, true) : NULL;
    double ch = cap ? layout_h(cap) + 3 : 0;
    double h = b->height_pt, room = L->bottom - L->y - ch - 3;
    if (h > room && L->y > L->top + 0.5 && room >= CHART_MIN_SHARE * h)
        h = room;
    need(L, h + ch);
    draw_chart(L, b->chart, L->x0, L->y, L->w, h);
    L->y += h + 3;
    if (cap) {
        show_at(L, cap, L->x0, L->y, 0x555555);
        L->y += ch;
        g_object_unref(cap);
    }
    L->y += 8;
}

static void
do_side(struct lay *L, const struct blk *b)
{
    double tw = L->w * b->frac - (b->chart ? 10 : 0);
    PangoLayout *l = text_layout(L, b->text ? b->text : "", FONT, BODY_PT, false, tw, true);
    pango_layout_set_spacing(l, (int)(BODY_PT * 0.25 * PANGO_SCALE));
    double h = fmax(layout_h(l), b->chart ? b->height_pt : 0);
    if (h > L->bottom - L->top) { /* too tall for any page: text first, then the chart */
        flow(L, l, L->x0, 0x111111);
        if (b->chart) {
            struct blk cb = {.kind = B_CHART, .chart = b->chart, .height_pt = b->height_pt};
            do_chart(L, &cb);
        }
    } else {
        need(L, h);
        show_at(L, l, L->x0, L->y, 0x111111);
        if (b->chart)
            draw_chart(L, b->chart, L->x0 + L->w * b->frac, L->y, L->w * (1 - b->frac),
                       b->height_pt);
        L->y += h;
    }
    L->y += 8;
    g_object_unref(l);
}

static cairo_status_t
null_write(void *closure, const unsigned char *data, unsigned int length)
{
    (void)closure;
    (void)data;
    (void)length;
    return CAIRO_STATUS_SUCCESS;
}

struct sink {
    rep_write_fn fn;
    void *closure;
};

static cairo_status_t
sink_write(void *closure, const unsigned char *data, unsigned int length)
{
    struct sink *s = closure;
    return s->fn(s->closure, data, length) == 0 ? CAIRO_STATUS_SUCCESS : CAIRO_STATUS_WRITE_ERROR;
}

/* One pass over the blocks; returns 0 or -1 (L->why). */
static int
pass(struct lay *L, struct sink *sink)
{
    struct rep_doc *d = L->d;
    L->surface = cairo_pdf_surface_create_for_stream(sink ? sink_write : null_write, sink,
                                                     d->page_w, d->page_h);
    if (cairo_surface_status(L->surface) != CAIRO_STATUS_SUCCESS) {
        cairo_surface_destroy(L->surface);
        L->why = "cannot create the PDF surface";
        return -1;
    }
    if (L->draw) {
        char date[32], creator[128];
        time_t t = (time_t)d->epoch_s;
        struct tm tm;
        gmtime_r(&t, &tm);
        strftime(date, sizeof date, "%Y-%m-%dT%H:%M:%SZ", &tm);
        snprintf(creator, sizeof creator, "roofline %s", d->version ? d->version : "");
        cairo_pdf_surface_set_metadata(L->surface, CAIRO_PDF_METADATA_CREATE_DATE, date);
        cairo_pdf_surface_set_metadata(L->surface, CAIRO_PDF_METADATA_MOD_DATE, date);
        cairo_pdf_surface_set_metadata(L->surface, CAIRO_PDF_METADATA_CREATOR, creator);
        if (d->title)
            cairo_pdf_surface_set_metadata(L->surface, CAIRO_PDF_METADATA_TITLE, d->title);
        if (d->subject)
            cairo_pdf_surface_set_metadata(L->surface, CAIRO_PDF_METADATA_SUBJECT, d->subject);
        if (d->keywords)
            cairo_pdf_surface_set_metadata(L->surface, CAIRO_PDF_METADATA_KEYWORDS, d->keywords);
    }
    L->cr = cairo_create(L->surface);
    L->pc = pango_cairo_create_context(L->cr);
    cairo_font_options_t *fo = cairo_font_options_create();
    cairo_font_options_set_hint_style(fo, CAIRO_HINT_STYLE_NONE);
    cairo_font_options_set_hint_metrics(fo, CAIRO_HINT_METRICS_OFF);
    pango_cairo_context_set_font_options(L->pc, fo);
    cairo_font_options_destroy(fo);
    L->page = 1;
    L->top = MARGIN_PT;
    L->bottom = d->page_h - MARGIN_PT - FOOTER_PT + 10;
    L->x0 = MARGIN_PT;
    L->w = d->page_w - 2 * MARGIN_PT;
    L->y = L->top;
    L->outline_parent = CAIRO_PDF_OUTLINE_ROOT;
    memset(&L->st, 0, sizeof L->st);
    for (size_t i = 0; i < d->n_blks && !L->why; i++) {
        const struct blk *b = &d->blks[i];
        switch (b->kind) {
        case B_TITLE:
            do_title(L, b);
            break;
        case B_SECTION:
            do_section(L, b);
            break;
        case B_PARA:
            do_para(L, b, BODY_PT, 0x111111, FONT, true);
            break;
        case B_NOTE:
            do_para(L, b, NOTE_PT, 0x555555, FONT, true);
            break;
        case B_CODE:
            do_para(L, b, 7.5, 0x222222, MONO, false);
            break;
        case B_FORMULA:
            do_formula(L, b);
            break;
        case B_BOX:
            do_box(L, b);
            break;
        case B_CONTENTS:
            do_contents(L);
            break;
        case B_BREAK:
            if (L->y > L->top + 0.5)
                new_page(L);
            break;
        case B_TABLE:
            do_table(L, b);
            break;
        case B_CHART:
            do_chart(L, b);
            break;
        case B_SIDE:
            do_side(L, b);
            break;
        }
        if (L->draw && cairo_status(L->cr) != CAIRO_STATUS_SUCCESS && !L->why)
            L->why = cairo_status_to_string(cairo_status(L->cr));
    }
    footer(L);
    L->st.pages = L->page;
    if (L->draw)
        cairo_show_page(L->cr);
    g_object_unref(L->pc);
    if (cairo_status(L->cr) != CAIRO_STATUS_SUCCESS && !L->why)
        L->why = cairo_status_to_string(cairo_status(L->cr));
    cairo_destroy(L->cr);
    cairo_surface_finish(L->surface);
    if (cairo_surface_status(L->surface) != CAIRO_STATUS_SUCCESS && !L->why)
        L->why = cairo_status_to_string(cairo_surface_status(L->surface));
    cairo_surface_destroy(L->surface);
    return L->why ? -1 : 0;
}

int
rep_render(struct rep_doc *d, rep_write_fn write, void *closure, struct rep_stats *stats,
           struct err_list *errs)
{
    if (d->failed) {
        err_add(errs, NULL, 0, 0, ERR_ERROR, "out of memory (while building the report)");
        return -1;
    }
    struct lay L = {.d = d};
    if (pass(&L, NULL) != 0) {
        err_add(errs, NULL, 0, 0, ERR_ERROR, "cannot lay out the report: %s", L.why);
        return -1;
    }
    struct sink sink = {write, closure};
    int pages = L.st.pages;
    memset(&L, 0, sizeof L);
    L.d = d;
    L.draw = true;
    L.total = pages;
    if (pass(&L, &sink) != 0) {
        err_add(errs, NULL, 0, 0, ERR_ERROR, "cannot draw the report: %s", L.why);
        return -1;
    }
    if (stats)
        *stats = L.st;
    return 0;
}

static int
file_write(void *closure, const unsigned char *data, unsigned int length)
{
    return fwrite(data, 1, length, closure) == length ? 0 : -1;
}

int
rep_write(struct rep_doc *d, const char *path, struct rep_stats *stats, struct err_list *errs)
{
    size_t n = strlen(path) + 32;
    char *tmp = malloc(n);
    if (!tmp) {
        err_add(errs, path, 0, 0, ERR_ERROR, "out of memory");
        return -1;
    }
    /* same directory as the target, so the rename cannot cross file systems */
    snprintf(tmp, n, "%s.tmp%ld", path, (long)getpid());
    int fd = open(tmp, O_WRONLY | O_CREAT | O_EXCL, 0666);
    FILE *f = fd >= 0 ? fdopen(fd, "wb") : NULL;
    if (!f) {
        err_add(errs, path, 0, 0, ERR_ERROR, "cannot create '%s': %s", tmp, strerror(errno));
        if (fd >= 0) {
            close(fd);
            unlink(tmp);
        }
        free(tmp);
        return -1;
    }
    struct err_list local = {0};
    int rc = rep_render(d, file_write, f, stats, &local);
    for (size_t i = 0; i < local.n; i++)
        err_add(errs, path, 0, 0, ERR_ERROR, "%s", local.items[i].msg);
    err_list_release(&local);
    if (fflush(f) != 0 || ferror(f) || fsync(fileno(f)) != 0) {
        if (rc == 0)
            err_add(errs, path, 0, 0, ERR_ERROR, "cannot write '%s': %s", tmp, strerror(errno));
        rc = -1;
    }
    if (fclose(f) != 0 && rc == 0) {
        err_add(errs, path, 0, 0, ERR_ERROR, "cannot write '%s': %s", tmp, strerror(errno));
        rc = -1;
    }
    if (rc == 0 && rename(tmp, path) != 0) {
        err_add(errs, path, 0, 0, ERR_ERROR, "cannot rename '%s' into place: %s", tmp,
                strerror(errno));
        rc = -1;
    }
    if (rc != 0)
        unlink(tmp);
    free(tmp);
    return rc;
}
