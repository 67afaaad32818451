/* pngdiff: compares two PNG images pixel by pixel for the chart golden tests.
 *   pngdiff GOT.png WANT.png [THRESHOLD [MAX_FRACTION]]
 * A pixel differs when any channel (premultiplied ARGB) differs by more than THRESHOLD
 * (0-255, default 64). Prints the fraction of differing pixels and exits 0 when it is at most
 * MAX_FRACTION (default 0.005), 1 when above or when the sizes differ, 2 on bad input.
 * Built by tests/cli/charts.sh: cc tests/tools/pngdiff.c $(pkg-config --cflags --libs cairo) */
#include <cairo.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

static cairo_surface_t *
load(const char *path)
{
    cairo_surface_t *s = cairo_image_surface_create_from_png(path);
    if (cairo_surface_status(s) != CAIRO_STATUS_SUCCESS) {
        fprintf(stderr, "pngdiff: cannot read '%s': %s\n", path,
                cairo_status_to_string(cairo_surface_status(s)));
        cairo_surface_destroy(s);
        return NULL;
    }
    /* compare in one pixel format whatever the file stored */
    int w = cairo_image_surface_get_width(s), h = cairo_image_surface_get_height(s);
    cairo_surface_t *t = cairo_image_surface_create(CAIRO_FORMAT_ARGB32, w, h);
    cairo_t *cr = cairo_create(t);
    cairo_set_source_surface(cr, s, 0, 0);
    cairo_set_operator(cr, CAIRO_OPERATOR_SOURCE);
    cairo_paint(cr);
    cairo_destroy(cr);
    cairo_surface_destroy(s);
    cairo_surface_flush(t);
    return t;
}

static int
parse(const char *s, double lo, double hi, double *out)
{
    char *end;
    double v = strtod(s, &end);
    if (end == s || *end || !(v >= lo && v <= hi))
        return -1;
    *out = v;
    return 0;
}

int
main(int argc, char **argv)
{
    double threshold = 64, max_fraction = 0.005;
    if (argc < 3 || argc > 5 || (argc > 3 && parse(argv[3], 0, 255, &threshold)) ||
        (argc > 4 && parse(argv[4], 0, 1, &max_fraction))) {
        fprintf(stderr, "usage: pngdiff GOT.png WANT.png [THRESHOLD [MAX_FRACTION]]\n");
        return 2;
    }
    cairo_surface_t *a = load(argv[1]), *b = a ? load(argv[2]) : NULL;
    if (!a || !b) {
        cairo_surface_destroy(a);
        return 2;
    }
    int w = cairo_image_surface_get_width(a), h = cairo_image_surface_get_height(a);
    if (w != cairo_image_surface_get_width(b) || h != cairo_image_surface_get_height(b)) {
        printf("size %dx%d, want %dx%d\n", w, h, cairo_image_surface_get_width(b),
               cairo_image_surface_get_height(b));
        cairo_surface_destroy(a);
        cairo_surface_destroy(b);
        return 1;
    }
    const unsigned char *pa = cairo_image_surface_get_data(a),
                        *pb = cairo_image_surface_get_data(b);
    int sa = cairo_image_surface_get_stride(a), sb = cairo_image_surface_get_stride(b);
    long differ = 0;
    for (int y = 0; y < h; y++) {
        const uint32_t *ra = (const uint32_t *)(const void *)(pa + (size_t)y * (size_t)sa);
        const uint32_t *rb = (const uint32_t *)(const void *)(pb + (size_t)y * (size_t)sb);
        for (int x = 0; x < w; x++) {
            int worst = 0;
            for (int sh = 0; sh < 32; sh += 8) {
                int d = abs((int)((ra[x] >> sh) & 0xff) - (int)((rb[x] >> sh) & 0xff));
                if (d > worst)
                    worst = d;
            }
            differ += worst > threshold;
        }
    }
    double fraction = (double)differ / ((double)w * (double)h);
    printf("%dx%d: %.5f of pixels differ (%ld, threshold %g, allowed %g)\n", w, h, fraction, differ,
           threshold, max_fraction);
    cairo_surface_destroy(a);
    cairo_surface_destroy(b);
    return fraction <= max_fraction ? 0 : 1;
}
