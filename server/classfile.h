/*
 * classfile — a class list file read into students, as registrars export
 * them (docs/api.md, "POST /api/users/import"): comma, semicolon or tab
 * separated, RFC 4180 quoting, a header line whose names are mapped to
 * the account fields case-insensitively ("Student ID", "Matriculation
 * number", "Last name" + "First name", "E-mail", ...), and a username
 * derived when the file has none.
 *
 * Pure parsing: no store, no HTTP; classlist.c decides what the rows do.
 */
#ifndef ATTNJUDGE_SERVER_CLASSFILE_H
#define ATTNJUDGE_SERVER_CLASSFILE_H

#include <stdbool.h>
#include <stddef.h>

#include <jansson.h>

#include "server/auth.h"

#define CLASSFILE_STUDENT_ID_MAX 64    /* bytes */
#define CLASSFILE_DISPLAY_NAME_MAX 100 /* bytes */
#define CLASSFILE_MAX_STUDENTS 2000

struct classfile_row {
    int line; /* 1-based line of the file the record starts on */
    char username[AUTH_USERNAME_MAX + 1];
    char student_id[CLASSFILE_STUDENT_ID_MAX + 1];     /* "" when none */
    char display_name[CLASSFILE_DISPLAY_NAME_MAX + 1]; /* "" when none */
    const char *username_from;                         /* borrowed: the header of the column the
                                  username came from or was derived from */
    bool derived;                                      /* the username was derived, not given */
};

struct classfile {
    char separator;             /* ',', ';' or '\t', detected from the header line */
    json_t *mapping;            /* [{"column", "field"}], field null when ignored */
    struct classfile_row *rows; /* n of them */
    int n;
};

/* Reads the class list text (modified in place; rows' username_from
 * points into it) into cf, which the caller frees with classfile_free.
 * Every problem is appended to errs as {"line", "message"} plus
 * "column" and "value" where a cell is at fault (the message names both).
 * 0, or -1 when memory ran out. */
int classfile_parse(char *text, struct classfile *cf, json_t *errs);
void classfile_free(struct classfile *cf);

/* Whether v is an acceptable student id or display name: 1 to max bytes
 * of UTF-8 without control, separator or format characters
 * (utf8_name_forbidden). NULL if so, else why not, written into buf. */
const char *classfile_name_problem(const char *v, size_t max, char *buf, size_t len);

#endif
