/* Result printers: a result kind declares its fields once (name, type, display); the printers
 * render rows as a human table, CSV or JSON. Field names are a stable interface (docs/output.md).
 */
#ifndef ROOFLINE_CLI_OUT_H
#define ROOFLINE_CLI_OUT_H

#include <stdbool.h>
#include <stdio.h>

enum out_fmt { OUT_TABLE, OUT_CSV, OUT_JSON };

/* How a number is shown in the human table; CSV and JSON always carry the raw SI value. */
enum out_show {
    OUT_SHOW_TEXT,  /* string */
    OUT_SHOW_NUM,   /* plain number with `precision` decimals */
    OUT_SHOW_SIG,   /* 3 significant digits */
    OUT_SHOW_TIME,  /* seconds -> s/ms/us/ns */
    OUT_SHOW_BYTES, /* bytes -> kB/MB/GB */
    OUT_SHOW_FLOPS, /* FLOP -> GFLOP ... */
    OUT_SHOW_RATE,  /* FLOP/s */
    OUT_SHOW_BW,    /* B/s */
    OUT_SHOW_PCT,   /* fraction -> percent */
};

struct out_field {
    const char *name;   /* CSV/JSON key */
    const char *header; /* table header; NULL = name */
    enum out_show show;
    int precision;
    bool wide; /* CSV/JSON only: left out of the human table to keep it narrow */
};

struct out_value {
    const char *s; /* for text fields (NULL prints empty / null) */
    double x;
};

int out_parse_fmt(const char *s, enum out_fmt *out);

/* One table of rows with the same fields. Table output is buffered to size the columns. */
struct out_table;
struct out_table *out_table_new(enum out_fmt fmt, const char *title, const struct out_field *fields,
                                int n_fields);
void out_table_row(struct out_table *t, const struct out_value *values);
/* Render to f (JSON: an array of objects; caller places it inside a document) and free. */
void out_table_end(struct out_table *t, FILE *f, int json_indent);

/* JSON helpers */
void out_json_string(FILE *f, const char *s);
void out_json_number(FILE *f, double x);
/* Render one value in the table style. */
void out_show_value(const struct out_field *fld, const struct out_value *v, char *buf, size_t size);

/* A single record: JSON object / "key: value" lines in the table format / one CSV row. */
void out_record(enum out_fmt fmt, FILE *f, const struct out_field *fields, int n,
                const struct out_value *values, int indent);
#endif
