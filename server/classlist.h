/*
 * classlist — the course's students as instructors manage them
 * (docs/api.md, "The class list"): the list, a student id and display name
 * per account, and the import of a class list as CSV, which creates the
 * missing accounts with one-time passwords.
 *
 * routes.c admits instructors only; these functions answer.
 */
#ifndef ATTNJUDGE_SERVER_CLASSLIST_H
#define ATTNJUDGE_SERVER_CLASSLIST_H

#include "server/app.h"

/* GET /api/users: every student account. */
handler_fn classlist_list;
/* PATCH /api/users/{name} {"student_id", "display_name"}: either or both
 * ("" clears). */
handler_fn classlist_patch;
/* POST /api/users/import {"csv", "dry_run"?}: all lines or none. */
handler_fn classlist_import;

#endif
