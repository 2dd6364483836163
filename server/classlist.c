/*
 * classlist — the students as instructors manage them: the list, their
 * names, the CSV import (classlist.h).
 *
 * The import is all-or-nothing: the file is read and every line checked
 * first (classfile.c: separators, header names, derived usernames; each
 * error names its line, column and value), then the accounts are created and
 * updated in one transaction. New accounts get a random one-time password
 * each, returned once in the response for the instructor to hand out;
 * only its hash is stored.
 */
#include "server/classlist.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "judge/utf8.h"
#include "server/classfile.h"
#include "server/request.h"
#include "util/clock.h"

#define STUDENT_ID_MAX CLASSFILE_STUDENT_ID_MAX
#define DISPLAY_NAME_MAX CLASSFILE_DISPLAY_NAME_MAX
#define ONE_TIME_LEN 17

static int add_student(void *arg, const struct store_student *u)
{
    json_t *o = json_pack("{s:s, s:s?, s:s?}", "username", u->username, "student_id",
                          *u->student_id ? u->student_id : NULL, "display_name",
                          *u->display_name ? u->display_name : NULL);
    return o && json_array_append_new(arg, o) == 0 ? 0 : -1;
}

struct http_response *classlist_list(struct app *a, struct http_request *req,
                                     const struct caller *me)
{
    (void)req;
    (void)me;
    json_t *arr = json_array();
    if (!arr)
        return NULL;
    struct store *s = store_pool_get(a->pool);
    int rc = store_students(s, 0, add_student, arr);
    struct http_response *r =
        rc < 0 ? request_internal("students", s) : http_json(200, json_pack("{s:O}", "users", arr));
    store_pool_put(a->pool, s);
    json_decref(arr);
    return r;
}

/* A name field of a PATCH: absent (or null: the API drops nulls, keep),
 * "" (clear) or the new value. */
static struct http_response *patch_field(json_t *o, const char *key, size_t max, const char *cur,
                                         char *out, size_t len, bool *set)
{
    json_t *v = json_object_get(o, key);
    if (!v) {
        snprintf(out, len, "%s", cur);
        *set = *cur != '\0';
        return NULL;
    }
    const char *text = json_string_value(v);
    *set = text && *text;
    if (text && !*text)
        return NULL;
    char buf[160];
    const char *why =
        text ? classfile_name_problem(text, max, buf, sizeof buf) : "must be a string";
    if (why)
        return http_error(400, "invalid_request", "%s %s (at most %zu bytes; \"\" clears it)", key,
                          why, max);
    snprintf(out, len, "%s", text);
    return NULL;
}

struct http_response *classlist_patch(struct app *a, struct http_request *req,
                                      const struct caller *me)
{
    const char *name = req->param;
    (void)me;
    json_t *o = NULL, *sid = NULL, *shown = NULL;
    char id_buf[STUDENT_ID_MAX + 1], name_buf[DISPLAY_NAME_MAX + 1];
    bool has_id, has_name;
    struct store_user u;
    struct store *s = NULL;
    if (!auth_username_valid(name))
        return http_error(400, "invalid_username", "not a valid username");
    struct http_response *r =
        request_body(req, &o, "{\"student_id\", \"display_name\": optional strings; \"\" clears}",
                     "{s?o, s?o}", "student_id", &sid, "display_name", &shown);
    if (r)
        return r;
    if (!sid && !shown) {
        r = http_error(400, "invalid_request", "give student_id, display_name or both");
        goto out;
    }
    s = store_pool_get(a->pool);
    int rc = store_user_by_name(s, name, &u);
    if (rc != 0) {
        r = rc < 0 ? request_internal("user", s)
                   : http_error(404, "not_found", "no user '%s'", name);
        goto out;
    }
    if ((r = patch_field(o, "student_id", STUDENT_ID_MAX, u.student_id, id_buf, sizeof id_buf,
                         &has_id)) ||
        (r = patch_field(o, "display_name", DISPLAY_NAME_MAX, u.display_name, name_buf,
                         sizeof name_buf, &has_name)))
        goto out;
    rc = store_user_set_names(s, u.username, has_id ? id_buf : NULL, has_name ? name_buf : NULL);
    if (rc != 0)
        r = rc < 0 ? request_internal("user names", s)
                   : http_error(404, "not_found", "no user '%s'", name);
    else
        r = http_json(200, json_pack("{s:s, s:s?, s:s?}", "username", u.username, "student_id",
                                     has_id ? id_buf : NULL, "display_name",
                                     has_name ? name_buf : NULL));
out:
    store_pool_put(a->pool, s);
    json_decref(o);
    return r;
}

struct http_response *classlist_import(struct app *a, struct http_request *req,
                                       const struct caller *me)
{
    (void)me;
    json_t *o = NULL, *errs = json_array(), *created = json_array(), *updated = json_array();
    json_t *students = json_array();
    const char *csv = NULL;
    size_t n_csv = 0;
    int dry = 0;
    char *text = NULL;
    struct classfile cf = {0};
    struct store *s = NULL;
    bool in_tx = false;
    struct http_response *r = NULL;
    if (!errs || !created || !updated || !students)
        goto oom;
    r = request_body(req, &o, "{\"csv\": string; \"dry_run\": optional boolean}", "{s:s%, s?b}",
                     "csv", &csv, &n_csv, "dry_run", &dry);
    if (r)
        goto out;
    if (!(text = strndup(csv, n_csv)))
        goto oom;
    if (classfile_parse(text, &cf, errs) < 0)
        goto oom;
    int n = cf.n;
    if (json_array_size(errs) || n == 0) {
        json_t *body = json_pack(
            "{s:{s:s, s:s}, s:O, s:O*}", "error", "code", "invalid_class_list", "message",
            n == 0 && !json_array_size(errs) ? "the class list has no students"
                                             : "the class list has errors; nothing was imported",
            "errors", errs, "mapping", cf.mapping);
        r = http_json(400, body);
        goto out;
    }
    s = store_pool_get(a->pool);
    if (!dry) {
        if (store_begin(s) < 0)
            goto db;
        in_tx = true;
    }
    for (int i = 0; i < n; i++) {
        struct store_user u;
        struct classfile_row *row = &cf.rows[i];
        int rc = store_user_by_name(s, row->username, &u);
        if (rc < 0)
            goto db;
        const char *sid = *row->student_id ? row->student_id : NULL;
        const char *shown = *row->display_name ? row->display_name : NULL;
        json_t *st = json_pack(
            "{s:i, s:s, s:o, s:b, s:s?, s:s?, s:b}", "line", row->line, "username", row->username,
            "username_from", utf8_json_string(row->username_from), "username_derived", row->derived,
            "student_id", sid, "display_name", shown, "exists", rc == 0);
        if (!st || json_array_append_new(students, st) < 0)
            goto oom;
        if (rc == 0) {
            if (strcmp(u.role, "student")) {
                json_array_append_new(
                    errs, json_pack("{s:i, s:s, s:s}", "line", row->line, "message",
                                    row->derived ? "the derived username is an instructor's "
                                                   "account: add a username column"
                                                 : "an instructor's account",
                                    "value", row->username));
                continue;
            }
            if (!dry && store_user_set_names(s, u.username, sid, shown) != 0)
                goto db;
            json_array_append_new(updated, json_string(u.username));
            continue;
        }
        json_t *c = json_pack("{s:s}", "username", row->username);
        if (!dry) {
            char password[ONE_TIME_LEN], hash[AUTH_HASH_LEN];
            if (auth_random_password(password, sizeof password) < 0 ||
                auth_hash_password(a->auth, password, hash) < 0) {
                json_decref(c);
                goto db;
            }
            rc = store_user_import(s, row->username, hash, sid, shown, clock_wall_ms());
            if (rc == 0)
                json_object_set_new(c, "temporary_password", json_string(password));
            explicit_bzero(password, sizeof password);
            if (rc != 0) {
                json_decref(c);
                goto db;
            }
        }
        json_array_append_new(created, c);
    }
    if (json_array_size(errs)) {
        if (in_tx)
            store_rollback(s);
        in_tx = false;
        r = http_json(400,
                      json_pack("{s:{s:s, s:s}, s:O, s:O}", "error", "code", "invalid_class_list",
                                "message", "the class list has errors; nothing was imported",
                                "errors", errs, "mapping", cf.mapping));
        goto out;
    }
    if (in_tx && store_commit(s) < 0)
        goto db;
    in_tx = false;
    char sep[2] = {cf.separator, '\0'};
    r = http_json(200, json_pack("{s:b, s:O, s:O, s:s, s:O, s:O}", "dry_run", dry, "created",
                                 created, "updated", updated, "separator", sep, "mapping",
                                 cf.mapping, "students", students));
    goto out;
db:
    r = request_internal("class list import", s);
    goto out;
oom:
    r = NULL;
out:
    if (in_tx)
        store_rollback(s);
    store_pool_put(a->pool, s);
    classfile_free(&cf);
    free(text);
    json_decref(o);
    json_decref(errs);
    json_decref(created);
    json_decref(updated);
    json_decref(students);
    return r;
}
