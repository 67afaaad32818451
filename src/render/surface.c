/* Surfaces and files: PNG through an image surface, SVG and PDF through vector surfaces streamed to
 * a temporary file that is renamed into place. Every Cairo status is checked. */
#include "render/surface.h"

#include "render/draw.h"
#include "util/afile.h"
#include "util/alloc.h"

#include <cairo-pdf.h>
#include <cairo-svg.h>
#include <cairo.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

/* Fixed so that the same chart gives the same PDF (Cairo 1.16 ignores SOURCE_DATE_EPOCH). */
#define PDF_CREATE_DATE "2024-01-01T00:00:00Z"

int
chart_format_from_path(const char *path, enum chart_format *out)
{
    const char *dot = strrchr(path, '.');
    const char *slash = strrchr(path, '/');
    if (!dot || (slash && dot < slash))
        return -1;
    if (strcasecmp(dot, ".png") == 0)
        *out = CHART_PNG;
    else if (strcasecmp(dot, ".svg") == 0)
        *out = CHART_SVG;
    else if (strcasecmp(dot, ".pdf") == 0)
        *out = CHART_PDF;
    else
        return -1;
    return 0;
}

const char *
chart_format_name(enum chart_format f)
{
    return f == CHART_PNG ? "png" : f == CHART_SVG ? "svg" : "pdf";
}

/* In-memory copy of a vector stream (SVG gets a <title> inserted before it is written). */
struct membuf {
    unsigned char *data;
    size_t n, cap;
    bool failed;
};

static cairo_status_t
to_membuf(void *closure, const unsigned char *data, unsigned int length)
{
    struct membuf *m = closure;
    if (m->n + length > m->cap) {
        size_t nc = m->cap ? m->cap : 65536;
        while (nc < m->n + length)
            nc *= 2;
        unsigned char *nd = realloc(m->data, nc);
        if (!nd) {
            m->failed = true;
            alloc_note_failure();
            return CAIRO_STATUS_NO_MEMORY;
        }
        m->data = nd;
        m->cap = nc;
    }
    memcpy(m->data + m->n, data, length);
    m->n += length;
    return CAIRO_STATUS_SUCCESS;
}

static bool
put(FILE *f, const void *p, size_t n)
{
    return fwrite(p, 1, n, f) == n;
}

/* XML-escaped text. */
static bool
put_escaped(FILE *f, const char *s)
{
    bool ok = true;
    for (; *s && ok; s++) {
        switch (*s) {
        case '&':
            ok = put(f, "&amp;", 5);
            break;
        case '<':
            ok = put(f, "&lt;", 4);
            break;
        case '>':
            ok = put(f, "&gt;", 4);
            break;
        default:
            ok = put(f, s, 1);
        }
    }
    return ok;
}

/* Writes the SVG with a <title> (and <desc>) after the root element's start tag: Cairo draws
 * text as glyph outlines, so this is the document's only searchable text. */
static bool
write_svg(FILE *f, const struct membuf *m, const struct chart *c)
{
    const unsigned char *svg = NULL;
    for (size_t i = 0; i + 4 <= m->n; i++)
        if (memcmp(m->data + i, "<svg", 4) == 0) {
            svg = m->data + i;
            break;
        }
    const unsigned char *end = svg ? memchr(svg, '>', m->n - (size_t)(svg - m->data)) : NULL;
    if (!end)
        return put(f, m->data, m->n);
    size_t head = (size_t)(end + 1 - m->data);
    bool ok = put(f, m->data, head) && put(f, "\n<title>", 8) && put_escaped(f, c->title) &&
              put(f, "</title>\n<desc>", 15) && put_escaped(f, c->subtitle) && put(f, "</desc>", 7);
    return ok && put(f, m->data + head, m->n - head);
}

static cairo_status_t
to_file(void *closure, const unsigned char *data, unsigned int length)
{
    return put(closure, data, length) ? CAIRO_STATUS_SUCCESS : CAIRO_STATUS_WRITE_ERROR;
}

/* Draws c on a new surface of the format and streams it to f. Returns 0 or -1 (message set). */
static int
render(struct chart *c, enum chart_format fmt, int w, int h, FILE *f, const char **why)
{
    cairo_surface_t *s = NULL;
    struct membuf m = {0};
    double scale = fmt == CHART_PNG ? 1.0 : 0.5;
    if (fmt == CHART_PNG) {
        s = cairo_image_surface_create(CAIRO_FORMAT_ARGB32, w, h);
    } else if (fmt == CHART_SVG) {
        s = cairo_svg_surface_create_for_stream(to_membuf, &m, w * scale, h * scale);
        if (cairo_surface_status(s) == CAIRO_STATUS_SUCCESS)
            cairo_svg_surface_restrict_to_version(s, CAIRO_SVG_VERSION_1_1);
    } else {
        s = cairo_pdf_surface_create_for_stream(to_file, f, w * scale, h * scale);
#if CAIRO_VERSION >= CAIRO_VERSION_ENCODE(1, 16, 0)
        if (cairo_surface_status(s) == CAIRO_STATUS_SUCCESS) {
            cairo_pdf_surface_set_metadata(s, CAIRO_PDF_METADATA_CREATE_DATE, PDF_CREATE_DATE);
            cairo_pdf_surface_set_metadata(s, CAIRO_PDF_METADATA_TITLE, c->title);
            cairo_pdf_surface_set_metadata(s, CAIRO_PDF_METADATA_CREATOR, "roofline");
        }
#endif
    }
    int rc = -1;
    *why = "cannot create the drawing surface";
    if (cairo_surface_status(s) == CAIRO_STATUS_SUCCESS) {
        cairo_t *cr = cairo_create(s);
        cairo_scale(cr, scale, scale);
        *why = "cannot draw the chart (canvas too small for its text?)";
        if (chart_draw(c, cr, w, h) == 0) {
            cairo_show_page(cr);
            rc = cairo_status(cr) == CAIRO_STATUS_SUCCESS ? 0 : -1;
        }
        cairo_destroy(cr);
        if (rc == 0) {
            *why = "drawing failed";
            if (fmt == CHART_PNG) {
                cairo_surface_flush(s);
                rc = cairo_surface_write_to_png_stream(s, to_file, f) == CAIRO_STATUS_SUCCESS ? 0
                                                                                              : -1;
            }
            cairo_surface_finish(s);
            if (cairo_surface_status(s) != CAIRO_STATUS_SUCCESS || m.failed)
                rc = -1;
            if (rc == 0 && fmt == CHART_SVG && !write_svg(f, &m, c))
                rc = -1;
        }
    }
    cairo_surface_destroy(s);
    free(m.data);
    return rc;
}

int
chart_save(struct chart *c, const char *path, int width_px, int height_px, struct err_list *errs)
{
    enum chart_format fmt;
    if (chart_format_from_path(path, &fmt) != 0) {
        err_add(errs, path, 0, 0, ERR_ERROR, "unknown chart format (use .png, .svg or .pdf)");
        return -1;
    }
    if (width_px < 200 || height_px < 150 || width_px > 20000 || height_px > 20000) {
        err_add(errs, path, 0, 0, ERR_ERROR, "size %dx%d is outside 200x150 .. 20000x20000",
                width_px, height_px);
        return -1;
    }
    struct afile af;
    if (afile_open(&af, path, errs) != 0)
        return -1;
    const char *why = NULL;
    if (render(c, fmt, width_px, height_px, af.fp, &why) != 0) {
        err_add(errs, path, 0, 0, ERR_ERROR, "%s", why);
        afile_rollback(&af);
        return -1;
    }
    return afile_commit(&af, errs);
}
