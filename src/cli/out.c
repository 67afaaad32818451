/* Table / CSV / JSON rendering of declared fields (see out.h). */
#include "cli/out.h"

#include "util/alloc.h"
#include "util/strs.h"
#include "util/units.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

struct out_table {
    enum out_fmt fmt;
    char *title;
    const struct out_field *fields;
    int n_fields;
    struct out_value *vals; /* rows x fields; text copied */
    int n_rows, cap_rows;
};

int
out_parse_fmt(const char *s, enum out_fmt *out)
{
    if (strcmp(s, "table") == 0)
        *out = OUT_TABLE;
    else if (strcmp(s, "csv") == 0)
        *out = OUT_CSV;
    else if (strcmp(s, "json") == 0)
        *out = OUT_JSON;
    else
        return -1;
    return 0;
}

struct out_table *
out_table_new(enum out_fmt fmt, const char *title, const struct out_field *fields, int n_fields)
{
    struct out_table *t = calloc(1, sizeof *t);
    if (!t) {
        alloc_note_failure(); /* the rows are then dropped: cli_main reports it */
        return NULL;
    }
    t->fmt = fmt;
    t->title = str_dup(title);
    t->fields = fields;
    t->n_fields = n_fields;
    return t;
}

void
out_table_row(struct out_table *t, const struct out_value *values)
{
    if (!t)
        return;
    if (t->n_rows == t->cap_rows) {
        int cap = t->cap_rows ? t->cap_rows * 2 : 16;
        struct out_value *nv = realloc(t->vals, (size_t)cap * (size_t)t->n_fields * sizeof *nv);
        if (!nv) {
            alloc_note_failure();
            return;
        }
        t->vals = nv;
        t->cap_rows = cap;
    }
    struct out_value *row = &t->vals[(size_t)t->n_rows * (size_t)t->n_fields];
    for (int i = 0; i < t->n_fields; i++) {
        row[i].x = values[i].x;
        row[i].s = values[i].s ? str_dup(values[i].s) : NULL;
    }
    t->n_rows++;
}

void
out_json_string(FILE *f, const char *s)
{
    if (!s) {
        fputs("null", f);
        return;
    }
    fputc('"', f);
    for (const unsigned char *p = (const unsigned char *)s; *p; p++) {
        switch (*p) {
        case '"':
            fputs("\\\"", f);
            break;
        case '\\':
            fputs("\\\\", f);
            break;
        case '\n':
            fputs("\\n", f);
            break;
        case '\t':
            fputs("\\t", f);
            break;
        default:
            if (*p < 0x20)
                fprintf(f, "\\u%04x", *p);
            else
                fputc(*p, f);
        }
    }
    fputc('"', f);
}

void
out_json_number(FILE *f, double x)
{
    if (!isfinite(x))
        fputs("null", f);
    else if (x == floor(x) && fabs(x) < 1e15)
        fprintf(f, "%.0f", x);
    else
        fprintf(f, "%.9g", x);
}

static void
csv_cell(FILE *f, const struct out_field *fld, const struct out_value *v)
{
    if (fld->show == OUT_SHOW_TEXT) {
        const char *s = v->s ? v->s : "";
        if (strpbrk(s, ",\"\n")) {
            fputc('"', f);
            for (const char *p = s; *p; p++) {
                if (*p == '"')
                    fputc('"', f);
                fputc(*p, f);
            }
            fputc('"', f);
        } else {
            fputs(s, f);
        }
    } else if (isfinite(v->x)) {
        if (v->x == floor(v->x) && fabs(v->x) < 1e15)
            fprintf(f, "%.0f", v->x);
        else
            fprintf(f, "%.9g", v->x);
    }
}

void
out_show_value(const struct out_field *fld, const struct out_value *v, char *buf, size_t size)
{
    if (fld->show == OUT_SHOW_TEXT) {
        snprintf(buf, size, "%s", v->s ? v->s : "");
        return;
    }
    if (!isfinite(v->x)) {
        snprintf(buf, size, "-");
        return;
    }
    switch (fld->show) {
    case OUT_SHOW_NUM:
        snprintf(buf, size, "%.*f", fld->precision, v->x);
        break;
    case OUT_SHOW_SIG:
        unit_format(v->x, "", 3, buf, size);
        break;
    case OUT_SHOW_TIME:
        unit_format_time(v->x, 3, buf, size);
        break;
    case OUT_SHOW_BYTES:
        unit_format(v->x, "B", 3, buf, size);
        break;
    case OUT_SHOW_FLOPS:
        unit_format(v->x, "FLOP", 3, buf, size);
        break;
    case OUT_SHOW_RATE:
        unit_format(v->x, "FLOP/s", 3, buf, size);
        break;
    case OUT_SHOW_BW:
        unit_format(v->x, "B/s", 3, buf, size);
        break;
    case OUT_SHOW_PCT:
        snprintf(buf, size, "%.*f%%", fld->precision, 100.0 * v->x);
        break;
    case OUT_SHOW_TEXT:
        break;
    }
    /* trim trailing space of prefix-less units ("12 " -> "12") */
    size_t l = strlen(buf);
    while (l > 0 && buf[l - 1] == ' ')
        buf[--l] = '\0';
}

static void
free_rows(struct out_table *t)
{
    for (int r = 0; r < t->n_rows; r++)
        for (int i = 0; i < t->n_fields; i++)
            free((char *)t->vals[(size_t)r * (size_t)t->n_fields + (size_t)i].s);
    free(t->vals);
    free(t->title);
    free(t);
}

void
out_table_end(struct out_table *t, FILE *f, int indent)
{
    if (!t)
        return;
    int nf = t->n_fields;
    if (t->fmt == OUT_CSV) {
        for (int i = 0; i < nf; i++)
            fprintf(f, "%s%s", t->fields[i].name, i + 1 < nf ? "," : "\n");
        for (int r = 0; r < t->n_rows; r++) {
            for (int i = 0; i < nf; i++) {
                csv_cell(f, &t->fields[i], &t->vals[(size_t)r * (size_t)nf + (size_t)i]);
                fputs(i + 1 < nf ? "," : "\n", f);
            }
        }
    } else if (t->fmt == OUT_JSON) {
        fputs("[", f);
        for (int r = 0; r < t->n_rows; r++) {
            fprintf(f, "%s\n%*s{", r ? "," : "", indent + 2, "");
            for (int i = 0; i < nf; i++) {
                const struct out_value *v = &t->vals[(size_t)r * (size_t)nf + (size_t)i];
                fprintf(f, "%s", i ? ", " : "");
                out_json_string(f, t->fields[i].name);
                fputs(": ", f);
                if (t->fields[i].show == OUT_SHOW_TEXT)
                    out_json_string(f, v->s);
                else
                    out_json_number(f, v->x);
            }
            fputs("}", f);
        }
        fprintf(f, "%s]", t->n_rows ? "\n" : "");
        if (t->n_rows)
            fprintf(f, "%*s", 0, "");
    } else {
        int *w = calloc((size_t)nf, sizeof *w);
        char cell[128];
        if (!w) {
            alloc_note_failure();
            free_rows(t);
            return;
        }
        int last = nf - 1;
        while (last > 0 && t->fields[last].wide)
            last--;
        for (int i = 0; i < nf; i++)
            w[i] = (int)strlen(t->fields[i].header ? t->fields[i].header : t->fields[i].name);
        for (int r = 0; r < t->n_rows; r++)
            for (int i = 0; i < nf; i++) {
                out_show_value(&t->fields[i], &t->vals[(size_t)r * (size_t)nf + (size_t)i], cell,
                               sizeof cell);
                int l = (int)strlen(cell);
                if (l > w[i])
                    w[i] = l;
            }
        if (t->title && *t->title)
            fprintf(f, "%s\n", t->title);
        for (int i = 0; i <= last; i++) {
            if (t->fields[i].wide)
                continue;
            const char *hd = t->fields[i].header ? t->fields[i].header : t->fields[i].name;
            if (t->fields[i].show == OUT_SHOW_TEXT)
                fprintf(f, "%-*s%s", i < last ? w[i] : 0, hd, i < last ? "  " : "\n");
            else
                fprintf(f, "%*s%s", w[i], hd, i < last ? "  " : "\n");
        }
        for (int r = 0; r < t->n_rows; r++) {
            for (int i = 0; i <= last; i++) {
                if (t->fields[i].wide)
                    continue;
                out_show_value(&t->fields[i], &t->vals[(size_t)r * (size_t)nf + (size_t)i], cell,
                               sizeof cell);
                if (t->fields[i].show == OUT_SHOW_TEXT)
                    fprintf(f, "%-*s%s", i < last ? w[i] : 0, cell, i < last ? "  " : "\n");
                else
                    fprintf(f, "%*s%s", w[i], cell, i < last ? "  " : "\n");
            }
        }
        free(w);
    }
    free_rows(t);
}

void
out_record(enum out_fmt fmt, FILE *f, const struct out_field *fields, int n,
           const struct out_value *values, int indent)
{
    char cell[160];
    if (fmt == OUT_JSON) {
        fputs("{", f);
        for (int i = 0; i < n; i++) {
            fprintf(f, "%s\n%*s", i ? "," : "", indent + 2, "");
            out_json_string(f, fields[i].name);
            fputs(": ", f);
            if (fields[i].show == OUT_SHOW_TEXT)
                out_json_string(f, values[i].s);
            else
                out_json_number(f, values[i].x);
        }
        fprintf(f, "\n%*s}", indent, "");
    } else if (fmt == OUT_CSV) {
        for (int i = 0; i < n; i++)
            fprintf(f, "%s%s", fields[i].name, i + 1 < n ? "," : "\n");
        for (int i = 0; i < n; i++) {
            csv_cell(f, &fields[i], &values[i]);
            fputs(i + 1 < n ? "," : "\n", f);
        }
    } else {
        int w = 0;
        for (int i = 0; i < n; i++) {
            const char *hd = fields[i].header ? fields[i].header : fields[i].name;
            if ((int)strlen(hd) > w && !fields[i].wide)
                w = (int)strlen(hd);
        }
        for (int i = 0; i < n; i++) {
            if (fields[i].wide)
                continue;
            out_show_value(&fields[i], &values[i], cell, sizeof cell);
            fprintf(f, "%*s%-*s  %s\n", indent, "", w,
                    fields[i].header ? fields[i].header : fields[i].name, cell);
        }
    }
}
