/* Surfaces and files: PNG through an image surface, SVG and PDF through vector surfaces streamed to
 * a temporary file that is renamed into place. Every Cairo status is checked. */
#include "render/surface.h"

#include "render/draw.h"
#include "util/afile.h"
#include "util/strbuf.h"

#include <cairo-pdf.h>
#include <cairo-svg.h>
#include <cairo.h>
#include <errno.h>
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

/* SVG is kept in memory (a strbuf) to insert a <title> before it is written. */
static cairo_status_t
to_strbuf(void *closure, const unsigned char *data, unsigned int length)
{
    struct strbuf *m = closure;
    strbuf_add(m, data, length);
    return m->failed ? CAIRO_STATUS_NO_MEMORY : CAIRO_STATUS_SUCCESS;
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
write_svg(FILE *f, const struct strbuf *m, const struct chart *c)
{
    const char *svg = m->len >= 4 ? strstr(m->buf, "<svg") : NULL;
    const char *end = svg ? strchr(svg, '>') : NULL;
    if (!end)
        return put(f, m->buf, m->len);
    size_t head = (size_t)(end + 1 - m->buf);
    bool ok = put(f, m->buf, head) && put(f, "\n<title>", 8) && put_escaped(f, c->title) &&
              put(f, "</title>\n<desc>", 15) && put_escaped(f, c->subtitle) && put(f, "</desc>", 7);
    return ok && put(f, m->buf + head, m->len - head);
}

/* The file a PNG or PDF stream goes to, and the system error of its first failed write. */
struct sink {
    FILE *f;
    int eno;
};

static cairo_status_t
to_file(void *closure, const unsigned char *data, unsigned int length)
{
    struct sink *k = closure;
    if (put(k->f, data, length))
        return CAIRO_STATUS_SUCCESS;
    if (!k->eno)
        k->eno = errno ? errno : EIO;
    return CAIRO_STATUS_WRITE_ERROR;
}

/* Says why Cairo stopped: the system error of a failed write, "out of memory", or Cairo's own
 * words. */
static void
cairo_why(char *why, size_t size, const char *doing, cairo_status_t st, int eno)
{
    if (st == CAIRO_STATUS_WRITE_ERROR && eno)
        snprintf(why, size, "cannot write the chart: %s", strerror(eno));
    else if (st == CAIRO_STATUS_NO_MEMORY)
        snprintf(why, size, "out of memory");
    else
        snprintf(why, size, "%s: %s", doing, cairo_status_to_string(st));
}

/* Draws c on a new surface of the format and streams it to f. Returns 0 or -1 with the cause in
 * `why`: the system error of a failed write, out of memory, Cairo's status, or a canvas too small
 * for the chart's text. */
static int
render(struct chart *c, enum chart_format fmt, int w, int h, FILE *f, char *why, size_t why_size)
{
    cairo_surface_t *s = NULL;
    struct strbuf m = {0};
    struct sink k = {f, 0};
    double scale = fmt == CHART_PNG ? 1.0 : 0.5;
    if (fmt == CHART_PNG) {
        s = cairo_image_surface_create(CAIRO_FORMAT_ARGB32, w, h);
    } else if (fmt == CHART_SVG) {
        s = cairo_svg_surface_create_for_stream(to_strbuf, &m, w * scale, h * scale);
        if (cairo_surface_status(s) == CAIRO_STATUS_SUCCESS)
            cairo_svg_surface_restrict_to_version(s, CAIRO_SVG_VERSION_1_1);
    } else {
        s = cairo_pdf_surface_create_for_stream(to_file, &k, w * scale, h * scale);
#if CAIRO_VERSION >= CAIRO_VERSION_ENCODE(1, 16, 0)
        if (cairo_surface_status(s) == CAIRO_STATUS_SUCCESS) {
            cairo_pdf_surface_set_metadata(s, CAIRO_PDF_METADATA_CREATE_DATE, PDF_CREATE_DATE);
            cairo_pdf_surface_set_metadata(s, CAIRO_PDF_METADATA_TITLE, c->title);
            cairo_pdf_surface_set_metadata(s, CAIRO_PDF_METADATA_CREATOR, "roofline");
        }
#endif
    }
    int rc = -1;
    cairo_status_t st = cairo_surface_status(s);
    if (st != CAIRO_STATUS_SUCCESS) {
        cairo_why(why, why_size, "cannot create the drawing surface", st, k.eno);
    } else {
        cairo_t *cr = cairo_create(s);
        cairo_scale(cr, scale, scale);
        int drawn = chart_draw(c, cr, w, h);
        if (drawn == 0)
            cairo_show_page(cr);
        st = cairo_status(cr);
        if (st != CAIRO_STATUS_SUCCESS)
            cairo_why(why, why_size, "cannot draw the chart", st, k.eno);
        else if (c->failed || m.failed)
            snprintf(why, why_size, "out of memory");
        else if (drawn != 0)
            snprintf(why, why_size, "cannot lay the chart out on %dx%d px (too small for its text)",
                     w, h);
        else
            rc = 0;
        cairo_destroy(cr);
        if (rc == 0) {
            if (fmt == CHART_PNG) {
                cairo_surface_flush(s);
                st = cairo_surface_write_to_png_stream(s, to_file, &k);
                if (st != CAIRO_STATUS_SUCCESS) {
                    cairo_why(why, why_size, "cannot encode the PNG", st, k.eno);
                    rc = -1;
                }
            }
            cairo_surface_finish(s);
            st = cairo_surface_status(s);
            if (rc == 0 && st != CAIRO_STATUS_SUCCESS) {
                cairo_why(why, why_size, "cannot finish the drawing", st, k.eno);
                rc = -1;
            } else if (rc == 0 && m.failed) {
                snprintf(why, why_size, "out of memory");
                rc = -1;
            }
            errno = 0;
            if (rc == 0 && fmt == CHART_SVG && !write_svg(f, &m, c)) {
                snprintf(why, why_size, "cannot write the chart: %s",
                         strerror(errno ? errno : EIO));
                rc = -1;
            }
        }
    }
    cairo_surface_destroy(s);
    strbuf_release(&m);
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
    char why[256];
    if (render(c, fmt, width_px, height_px, af.fp, why, sizeof why) != 0) {
        err_add(errs, path, 0, 0, ERR_ERROR, "%s", why);
        afile_rollback(&af);
        return -1;
    }
    return afile_commit(&af, errs);
}
