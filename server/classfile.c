/*
 * classfile — reading a class list (classfile.h).
 *
 * The header line decides everything: its most frequent separator among
 * ',', ';' and tab (outside quotes) is the file's, and each of its names,
 * compared lowercased and without spaces, '_', '-' and '.', maps to an
 * account field or is ignored (and shown as ignored: the dry run lists
 * the mapping). Rows are then read and checked one by one, every error
 * naming its line, column and value, so that one dry run shows all that
 * is wrong. Usernames are derived last, once every given username is
 * known, so that a derived one never takes a name a later line gives.
 */
#include "server/classfile.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "judge/utf8.h"

#define MAX_COLUMNS 64
#define VALUE_SHOWN 60 /* bytes of a cell quoted in an error */

enum field { F_NONE, F_USERNAME, F_STUDENT_ID, F_DISPLAY_NAME, F_FIRST, F_LAST, F_EMAIL, F_COUNT };

static const char *const field_names[F_COUNT] = {
    NULL, "username", "student_id", "display_name", "first_name", "last_name", "email",
};

/* Header names, normalized (lowercase, no spaces, '_', '-' or '.'). */
static const struct {
    const char *name;
    enum field f;
} headers[] = {
    {"username", F_USERNAME},
    {"login", F_USERNAME},
    {"loginname", F_USERNAME},
    {"user", F_USERNAME},
    {"account", F_USERNAME},
    {"studentid", F_STUDENT_ID},
    {"id", F_STUDENT_ID},
    {"studentnumber", F_STUDENT_ID},
    {"studentno", F_STUDENT_ID},
    {"matriculationnumber", F_STUDENT_ID},
    {"matriculationno", F_STUDENT_ID},
    {"matrikelnummer", F_STUDENT_ID},
    {"matrnr", F_STUDENT_ID},
    {"registrationnumber", F_STUDENT_ID},
    {"displayname", F_DISPLAY_NAME},
    {"name", F_DISPLAY_NAME},
    {"fullname", F_DISPLAY_NAME},
    {"studentname", F_DISPLAY_NAME},
    {"firstname", F_FIRST},
    {"givenname", F_FIRST},
    {"forename", F_FIRST},
    {"lastname", F_LAST},
    {"surname", F_LAST},
    {"familyname", F_LAST},
    {"email", F_EMAIL},
    {"emailaddress", F_EMAIL},
    {"mail", F_EMAIL},
};

const char *classfile_name_problem(const char *v, size_t max, char *buf, size_t len)
{
    size_t n = strlen(v);
    if (n == 0 || n > max) {
        snprintf(buf, len, "must have 1 to %zu bytes", max);
        return buf;
    }
    long cp = utf8_name_forbidden(v);
    if (cp == UTF8_NOT_UTF8)
        snprintf(buf, len, "is not UTF-8");
    else if (cp != UTF8_CLEAN)
        snprintf(buf, len, "must not contain control, separator or format characters (U+%04lX)",
                 (unsigned long)cp);
    else
        return NULL;
    return buf;
}

/* Reads one record from *p into fields (at most max, each NUL-terminated
 * in place: the text is modified), sep separating them. Returns the
 * number of fields, -1 for a malformed record (an unterminated quote,
 * text after a closing quote); *p moves past the record's line end and
 * *lines grows by the line ends read. Quoted fields may hold separators,
 * quotes ("") and line ends. */
static int csv_record(char **p, char sep, char **fields, int max, int *lines)
{
    char *r = *p, *w = *p;
    int n = 0;
    for (;;) {
        char *start = w;
        if (*r == '"') {
            r++;
            for (;;) {
                if (!*r)
                    return -1;
                if (*r == '"' && r[1] == '"') {
                    *w++ = '"';
                    r += 2;
                } else if (*r == '"') {
                    r++;
                    break;
                } else {
                    *lines += *r == '\n';
                    *w++ = *r++;
                }
            }
            if (*r && *r != sep && *r != '\n' && *r != '\r')
                return -1;
        } else {
            while (*r && *r != sep && *r != '\n' && *r != '\r')
                *w++ = *r++;
        }
        char end = *r;
        *w++ = '\0';
        if (n < max)
            fields[n] = start;
        n++;
        if (end == sep) {
            r++;
            continue;
        }
        /* end, not *r: the NUL just written may sit where end was */
        if (end == '\r' && *++r == '\n')
            r++;
        else if (end == '\n')
            r++;
        *lines += end == '\n' || end == '\r';
        *p = r;
        return n;
    }
}

/* The separator of the header line: the most frequent of ',', ';' and
 * tab outside quotes; ',' on a tie or when there is none. */
static char detect_separator(const char *text)
{
    int comma = 0, semi = 0, tab = 0;
    bool quoted = false;
    for (const char *p = text; *p && (quoted || (*p != '\n' && *p != '\r')); p++) {
        if (*p == '"')
            quoted = !quoted;
        else if (!quoted) {
            comma += *p == ',';
            semi += *p == ';';
            tab += *p == '\t';
        }
    }
    if (semi > comma && semi >= tab)
        return ';';
    if (tab > comma && tab > semi)
        return '\t';
    return ',';
}

/* Trims spaces (and tabs, unless tab separates) at both ends, in place. */
static char *trim(char *v, char sep)
{
    while (*v == ' ' || (*v == '\t' && sep != '\t'))
        v++;
    size_t n = strlen(v);
    while (n && (v[n - 1] == ' ' || (v[n - 1] == '\t' && sep != '\t')))
        v[--n] = '\0';
    return v;
}

static enum field header_field(const char *h)
{
    char norm[48];
    size_t k = 0;
    for (const char *p = h; *p && k + 1 < sizeof norm; p++)
        if (!strchr(" _-.", *p))
            norm[k++] = (*p >= 'A' && *p <= 'Z') ? (char)(*p - 'A' + 'a') : *p;
    norm[k] = '\0';
    for (size_t i = 0; i < sizeof headers / sizeof headers[0]; i++)
        if (!strcmp(norm, headers[i].name))
            return headers[i].f;
    return F_NONE;
}

/* v cut to at most VALUE_SHOWN bytes at a UTF-8 sequence boundary. */
static void shown(const char *v, char *buf, size_t len)
{
    size_t n = strlen(v), i = 0;
    while (i < n && i < VALUE_SHOWN && i + 4 < len) {
        size_t k = utf8_sequence_len((const unsigned char *)v + i, n - i);
        if (!k)
            break;
        i += k;
    }
    memcpy(buf, v, i);
    strcpy(buf + i, i < n ? "…" : "");
}

static int add_error(json_t *errs, int line, const char *column, const char *value, const char *fmt,
                     ...) __attribute__((format(printf, 5, 6)));

/* Appends {"line", "column"?, "value"?, "message"}; the message names
 * the column and value when there are. */
static int add_error(json_t *errs, int line, const char *column, const char *value, const char *fmt,
                     ...)
{
    char why[200], msg[400], v[VALUE_SHOWN + 8];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(why, sizeof why, fmt, ap);
    va_end(ap);
    shown(value ? value : "", v, sizeof v);
    if (column && value)
        snprintf(msg, sizeof msg, "column '%s': '%s' %s", column, v, why);
    else if (column)
        snprintf(msg, sizeof msg, "column '%s': %s", column, why);
    else
        snprintf(msg, sizeof msg, "%s", why);
    json_t *e = json_pack("{s:i, s:s}", "line", line, "message", msg);
    if (e && column)
        json_object_set_new(e, "column", utf8_json_string(column));
    if (e && value)
        json_object_set_new(e, "value", utf8_json_string(v));
    return e && json_array_append_new(errs, e) == 0 ? 0 : -1;
}

/* Copies src into dst (size bytes), cut short if it must be; the
 * callers have checked the lengths that matter. */
static void copy(char *dst, size_t size, const char *src)
{
    size_t n = strnlen(src, size - 1);
    memcpy(dst, src, n);
    dst[n] = '\0';
}

/* The reader's state: which column holds which field. */
struct columns {
    int at[F_COUNT];           /* column index, -1 when absent */
    const char *name[F_COUNT]; /* its header */
};

static int read_header(char **p, struct classfile *cf, struct columns *c, json_t *errs, int *line)
{
    char *f[MAX_COLUMNS];
    int k = csv_record(p, cf->separator, f, MAX_COLUMNS, line);
    for (int i = 0; i < F_COUNT; i++)
        c->at[i] = -1;
    if (k < 1 || k > MAX_COLUMNS || (k == 1 && !*trim(f[0], cf->separator)))
        return add_error(errs, 1, NULL, NULL,
                         "the first line must name the columns (at most %d), e.g. username, "
                         "student_id, display_name or Student ID;Last name;First name;Email",
                         MAX_COLUMNS);
    for (int i = 0; i < k; i++) {
        const char *h = trim(f[i], cf->separator);
        enum field fd = header_field(h);
        json_t *m = json_pack("{s:o, s:o}", "column", utf8_json_string(h), "field",
                              field_names[fd] ? json_string(field_names[fd]) : json_null());
        if (!m || json_array_append_new(cf->mapping, m) < 0)
            return -1;
        if (fd == F_NONE)
            continue;
        if (c->at[fd] >= 0) {
            if (add_error(errs, 1, h, NULL, "is a second %s column (the first is '%s')",
                          field_names[fd], c->name[fd]) < 0)
                return -1;
            continue;
        }
        c->at[fd] = i;
        c->name[fd] = h;
    }
    if (c->at[F_USERNAME] < 0 && c->at[F_EMAIL] < 0 && c->at[F_FIRST] < 0 && c->at[F_LAST] < 0 &&
        c->at[F_DISPLAY_NAME] < 0)
        return add_error(errs, 1, NULL, NULL,
                         "no column gives a username: name one username, email, first and last "
                         "name, or name");
    return 0;
}

/* A row's cells by field ("" when absent), borrowed from the record. */
struct cells {
    const char *v[F_COUNT];
};

/* Copies the username alphabet's characters of src, lowercased, onto
 * out (n bytes free), spaces becoming '.'; returns the new end. */
static char *reduce(char *out, size_t n, const char *src)
{
    while (*src && n > 1) {
        char ch = *src++;
        if (ch >= 'A' && ch <= 'Z')
            ch = (char)(ch - 'A' + 'a');
        else if (ch == ' ')
            ch = '.';
        if ((ch >= 'a' && ch <= 'z') || (ch >= '0' && ch <= '9') || ch == '.' || ch == '_' ||
            ch == '-') {
            *out++ = ch;
            n--;
        }
    }
    *out = '\0';
    return out;
}

/* The base of a derived username (docs/api.md): the e-mail's local part,
 * else "first.last" (or the display name with '.' for spaces), reduced to
 * the username alphabet and lowercased, starting with a letter or digit,
 * at most AUTH_USERNAME_MAX - 4 bytes (room for a suffix). "" when nothing
 * is left. *from is the column used. */
static void derive_base(const struct cells *c, const struct columns *col, char *base,
                        const char **from)
{
    char buf[256];
    buf[0] = '\0';
    *from = NULL;
    const char *email = c->v[F_EMAIL];
    if (*email) {
        const char *at = strrchr(email, '@');
        size_t n = at ? (size_t)(at - email) : strlen(email);
        snprintf(buf, sizeof buf, "%.*s", (int)n, email);
        *from = col->name[F_EMAIL];
    }
    char reduced[256];
    reduce(reduced, sizeof reduced, buf);
    if (!*reduced && (*c->v[F_FIRST] || *c->v[F_LAST])) {
        char *e = reduce(reduced, sizeof reduced, c->v[F_FIRST]);
        if (*c->v[F_FIRST] && *c->v[F_LAST] && e > reduced && e < reduced + sizeof reduced - 1)
            *e++ = '.';
        reduce(e, sizeof reduced - (size_t)(e - reduced), c->v[F_LAST]);
        *from = col->name[*c->v[F_LAST] ? F_LAST : F_FIRST];
    }
    if (!*reduced && *c->v[F_DISPLAY_NAME]) {
        reduce(reduced, sizeof reduced, c->v[F_DISPLAY_NAME]);
        *from = col->name[F_DISPLAY_NAME];
    }
    const char *s = reduced;
    while (*s && !((*s >= 'a' && *s <= 'z') || (*s >= '0' && *s <= '9')))
        s++;
    copy(base, AUTH_USERNAME_MAX - 3, s);
}

/* Whether name is taken: reserved, or on another row (case-insensitive). */
static bool taken(const struct classfile *cf, const char *name, int self)
{
    if (auth_username_reserved(name))
        return true;
    for (int i = 0; i < cf->n; i++)
        if (i != self && cf->rows[i].username[0] && !strcasecmp(cf->rows[i].username, name))
            return true;
    return false;
}

/* Checks one record's cells into row; 0 (row usable), 1 (errors added), -1. */
static int read_row(const struct cells *c, const struct columns *col, int line,
                    struct classfile_row *row, json_t *errs)
{
    char why[160];
    int bad = 0;
    row->line = line;
    const char *u = c->v[F_USERNAME];
    if (*u) {
        if (!auth_username_valid(u) || auth_username_reserved(u))
            bad |= add_error(errs, line, col->name[F_USERNAME], u,
                             "is not a valid username (1 to %d of A-Z, a-z, 0-9, and '_', '.', "
                             "'-' after the first; not 'me')",
                             AUTH_USERNAME_MAX) < 0
                       ? -1
                       : 1;
        else {
            snprintf(row->username, sizeof row->username, "%s", u);
            row->username_from = col->name[F_USERNAME];
        }
    } else if (col->at[F_EMAIL] >= 0 && *c->v[F_EMAIL]) {
        const char *e = c->v[F_EMAIL], *at = strrchr(e, '@');
        if (!at || at == e || !at[1])
            bad |= add_error(errs, line, col->name[F_EMAIL], e, "is not an e-mail address") < 0 ? -1
                                                                                                : 1;
    }
    const char *sid = c->v[F_STUDENT_ID];
    if (*sid && classfile_name_problem(sid, CLASSFILE_STUDENT_ID_MAX, why, sizeof why))
        bad |= add_error(errs, line, col->name[F_STUDENT_ID], sid, "%s", why) < 0 ? -1 : 1;
    else
        snprintf(row->student_id, sizeof row->student_id, "%s", sid);
    /* the display name: its own column, else "First Last" */
    static const enum field parts[] = {F_DISPLAY_NAME, F_FIRST, F_LAST};
    bool whole = *c->v[F_DISPLAY_NAME] != '\0';
    for (size_t i = whole ? 0 : 1; i < (whole ? 1 : 3); i++) {
        const char *v = c->v[parts[i]];
        if (*v && classfile_name_problem(v, CLASSFILE_DISPLAY_NAME_MAX, why, sizeof why))
            bad |= add_error(errs, line, col->name[parts[i]], v, "%s", why) < 0 ? -1 : 1;
    }
    char name[2 * CLASSFILE_DISPLAY_NAME_MAX + 2];
    int len = whole ? snprintf(name, sizeof name, "%s", c->v[F_DISPLAY_NAME])
                    : snprintf(name, sizeof name, "%s%s%s", c->v[F_FIRST],
                               *c->v[F_FIRST] && *c->v[F_LAST] ? " " : "", c->v[F_LAST]);
    if (!bad && len > CLASSFILE_DISPLAY_NAME_MAX)
        bad |=
            add_error(errs, line, col->name[whole ? F_DISPLAY_NAME : F_LAST],
                      c->v[whole ? F_DISPLAY_NAME : F_LAST],
                      "makes a display name of more than %d bytes", CLASSFILE_DISPLAY_NAME_MAX) < 0
                ? -1
                : 1;
    else if (!bad)
        copy(row->display_name, sizeof row->display_name, name);
    return bad < 0 ? -1 : bad;
}

/* Gives every row without a username a derived one (derive_base, then 2,
 * 3, ... appended until it is free). */
static int derive_usernames(struct classfile *cf, const struct cells *all,
                            const struct columns *col, json_t *errs)
{
    for (int i = 0; i < cf->n; i++) {
        struct classfile_row *row = &cf->rows[i];
        if (row->username[0])
            continue;
        char base[AUTH_USERNAME_MAX + 1];
        const char *from = NULL;
        derive_base(&all[i], col, base, &from);
        if (!*base) {
            enum field f = col->at[F_EMAIL] >= 0   ? F_EMAIL
                           : col->at[F_LAST] >= 0  ? F_LAST
                           : col->at[F_FIRST] >= 0 ? F_FIRST
                                                   : F_DISPLAY_NAME;
            if (add_error(errs, row->line, col->name[f], all[i].v[f],
                          "leaves no username (no letter or digit of A-Z, a-z, 0-9): add a "
                          "username column") < 0)
                return -1;
            continue;
        }
        copy(row->username, sizeof row->username, base);
        for (int k = 2; taken(cf, row->username, i) && k < 10000; k++) {
            char next[AUTH_USERNAME_MAX + 8];
            snprintf(next, sizeof next, "%s%d", base, k);
            copy(row->username, sizeof row->username, next);
        }
        row->username_from = from;
        row->derived = true;
    }
    return 0;
}

int classfile_parse(char *text, struct classfile *cf, json_t *errs)
{
    struct columns col;
    struct cells *all = NULL;
    int rc = -1, line = 1;
    memset(cf, 0, sizeof *cf);
    if (!strncmp(text, "\xef\xbb\xbf", 3))
        text += 3; /* the byte order mark of a spreadsheet's "UTF-8 CSV" */
    char *p = text, *f[MAX_COLUMNS];
    cf->separator = detect_separator(text);
    if (!(cf->mapping = json_array()))
        return -1;
    int before = (int)json_array_size(errs);
    if (read_header(&p, cf, &col, errs, &line) < 0)
        return -1;
    if ((int)json_array_size(errs) > before)
        return 0;
    if (!(cf->rows = calloc(CLASSFILE_MAX_STUDENTS, sizeof *cf->rows)) ||
        !(all = calloc(CLASSFILE_MAX_STUDENTS, sizeof *all)))
        goto out;
    while (*p) {
        int at = line;
        int k = csv_record(&p, cf->separator, f, MAX_COLUMNS, &line);
        if (k == 1 && !*trim(f[0], cf->separator))
            continue; /* a blank line */
        if (k < 0) {
            if (add_error(errs, at, NULL, NULL, "malformed CSV (an unclosed or misplaced quote)") <
                0)
                goto out;
            break; /* the rest cannot be read reliably */
        }
        if (cf->n == CLASSFILE_MAX_STUDENTS) {
            if (add_error(errs, at, NULL, NULL, "more than %d students", CLASSFILE_MAX_STUDENTS) <
                0)
                goto out;
            break;
        }
        struct cells *c = &all[cf->n];
        for (int i = 0; i < F_COUNT; i++)
            c->v[i] = col.at[i] >= 0 && col.at[i] < k && col.at[i] < MAX_COLUMNS
                          ? trim(f[col.at[i]], cf->separator)
                          : "";
        struct classfile_row *row = &cf->rows[cf->n];
        int r = read_row(c, &col, at, row, errs);
        if (r < 0)
            goto out;
        if (r == 0 && row->username[0] && taken(cf, row->username, cf->n)) {
            if (add_error(errs, at, col.name[F_USERNAME], row->username, "is on an earlier line") <
                0)
                goto out;
            r = 1;
        }
        if (r)
            memset(row, 0, sizeof *row);
        else
            cf->n++;
    }
    rc = derive_usernames(cf, all, &col, errs);
out:
    free(all);
    return rc;
}

void classfile_free(struct classfile *cf)
{
    json_decref(cf->mapping);
    free(cf->rows);
    memset(cf, 0, sizeof *cf);
}
