/*
 * classlist — the class list (classlist.h).
 *
 * The import is all-or-nothing: every line is checked first (and each
 * error reported with its line number), then the accounts are created and
 * updated in one transaction. New accounts get a random one-time password
 * each, returned once in the response for the instructor to hand out;
 * only its hash is stored.
 */
#include "server/classlist.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "util/clock.h"

#define STUDENT_ID_MAX 64
#define DISPLAY_NAME_MAX 100
#define IMPORT_MAX_LINES 2000
#define ONE_TIME_LEN 17

static struct http_response *internal(const char *where, struct store *s)
{
    fprintf(stderr, "attnjudge: %s: %s\n", where, s ? store_error(s) : "failed");
    return http_error(500, "internal", "internal error; the server log has the details");
}

/* NULL if v is an acceptable name field (1 to max bytes, no control
 * characters), else why not. */
static const char *field_problem(const char *v, size_t max)
{
    size_t n = strlen(v);
    if (n == 0 || n > max)
        return "must have 1 to the maximum number of bytes";
    for (const unsigned char *p = (const unsigned char *)v; *p; p++)
        if (*p < 0x20 || *p == 0x7f)
            return "must not contain control characters";
    return NULL;
}

static int add_student(void *arg, const struct store_student *u)
{
    json_t *o = json_pack("{s:s, s:s?, s:s?}", "username", u->username, "student_id",
                          *u->student_id ? u->student_id : NULL, "display_name",
                          *u->display_name ? u->display_name : NULL);
    return o && json_array_append_new(arg, o) == 0 ? 0 : -1;
}

struct http_response *classlist_list(struct app *a)
{
    json_t *arr = json_array();
    if (!arr)
        return NULL;
    struct store *s = store_pool_get(a->pool);
    int rc = store_students(s, 0, add_student, arr);
    struct http_response *r =
        rc < 0 ? internal("students", s) : http_json(200, json_pack("{s:O}", "users", arr));
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
    const char *why = text ? field_problem(text, max) : "must be a string";
    if (why)
        return http_error(400, "invalid_request", "%s %s (at most %zu bytes; \"\" clears it)", key,
                          why, max);
    snprintf(out, len, "%s", text);
    return NULL;
}

struct http_response *classlist_patch(struct app *a, const struct http_request *req,
                                      const char *name)
{
    json_t *o = NULL, *sid = NULL, *shown = NULL;
    char id_buf[STUDENT_ID_MAX + 1], name_buf[DISPLAY_NAME_MAX + 1];
    bool has_id, has_name;
    struct store_user u;
    struct store *s = NULL;
    if (!auth_username_valid(name))
        return http_error(400, "invalid_username", "not a valid username");
    struct http_response *r =
        routes_json_body(http_header(req, "Content-Type"), req->body, req->body_len, &o,
                         "{\"student_id\", \"display_name\": optional strings; \"\" clears}",
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
        r = rc < 0 ? internal("user", s) : http_error(404, "not_found", "no user '%s'", name);
        goto out;
    }
    if ((r = patch_field(o, "student_id", STUDENT_ID_MAX, u.student_id, id_buf, sizeof id_buf,
                         &has_id)) ||
        (r = patch_field(o, "display_name", DISPLAY_NAME_MAX, u.display_name, name_buf,
                         sizeof name_buf, &has_name)))
        goto out;
    rc = store_user_set_names(s, u.username, has_id ? id_buf : NULL, has_name ? name_buf : NULL);
    if (rc != 0)
        r = rc < 0 ? internal("user names", s) : http_error(404, "not_found", "no user '%s'", name);
    else
        r = http_json(200, json_pack("{s:s, s:s?, s:s?}", "username", u.username, "student_id",
                                     has_id ? id_buf : NULL, "display_name",
                                     has_name ? name_buf : NULL));
out:
    store_pool_put(a->pool, s);
    json_decref(o);
    return r;
}

/* ---- CSV (RFC 4180) ---- */

/* Reads one record from *p into fields (at most max, each NUL-terminated
 * in place: the text is modified). Returns the number of fields, -1 for a
 * malformed record (an unterminated quote, text after a closing quote); *p
 * moves past the record's line end. Quoted fields may hold commas, quotes
 * ("") and line ends. */
static int csv_record(char **p, char **fields, int max)
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
                    *w++ = *r++;
                }
            }
            if (*r && *r != ',' && *r != '\n' && *r != '\r')
                return -1;
        } else {
            while (*r && *r != ',' && *r != '\n' && *r != '\r')
                *w++ = *r++;
        }
        char end = *r;
        *w++ = '\0';
        if (n < max)
            fields[n] = start;
        n++;
        if (end == ',') {
            r++;
            continue;
        }
        /* end, not *r: the NUL just written may sit where end was */
        if (end == '\r' && *++r == '\n')
            r++;
        else if (end == '\n')
            r++;
        *p = r;
        return n;
    }
}

struct row {
    int line;
    char *username, *student_id, *display_name;
    bool exists;
};

/* Trims spaces at both ends, in place. */
static char *trim(char *v)
{
    while (*v == ' ' || *v == '\t')
        v++;
    size_t n = strlen(v);
    while (n && (v[n - 1] == ' ' || v[n - 1] == '\t'))
        v[--n] = '\0';
    return v;
}

/* Parses the class list into rows (the caller frees *rows); errors are
 * appended to errs as {"line", "message"}. Returns the row count or -1
 * when out of memory. */
static int parse_list(char *text, struct row **rows, json_t *errs)
{
    char *p = text, *f[8];
    int line = 1, n = 0, col_user = -1, col_id = -1, col_name = -1;
    int k = csv_record(&p, f, 8);
    if (k < 1 || k > 8) {
        json_array_append_new(errs, json_pack("{s:i, s:s}", "line", 1, "message",
                                              "the first line must name the columns: username, "
                                              "student_id, display_name"));
        return 0;
    }
    for (int i = 0; i < k; i++) {
        const char *h = trim(f[i]);
        if (!strcmp(h, "username"))
            col_user = i;
        else if (!strcmp(h, "student_id"))
            col_id = i;
        else if (!strcmp(h, "display_name"))
            col_name = i;
        else
            json_array_append_new(errs, json_pack("{s:i, s:s}", "line", 1, "message",
                                                  "unknown column (use username, student_id, "
                                                  "display_name)"));
    }
    if (col_user < 0) {
        json_array_append_new(errs,
                              json_pack("{s:i, s:s}", "line", 1, "message", "no username column"));
        return 0;
    }
    if (!(*rows = calloc(IMPORT_MAX_LINES, sizeof **rows)))
        return -1;
    while (*p) {
        line++;
        k = csv_record(&p, f, 8);
        if (k == 1 && !*trim(f[0]))
            continue; /* a blank line */
        char msg[160] = "";
        if (k < 0)
            snprintf(msg, sizeof msg, "malformed CSV (an unclosed or misplaced quote)");
        else if (n == IMPORT_MAX_LINES)
            snprintf(msg, sizeof msg, "more than %d students", IMPORT_MAX_LINES);
        if (!msg[0]) {
            struct row *r = &(*rows)[n];
            r->line = line;
            r->username = col_user < k ? trim(f[col_user]) : "";
            r->student_id = col_id >= 0 && col_id < k ? trim(f[col_id]) : "";
            r->display_name = col_name >= 0 && col_name < k ? trim(f[col_name]) : "";
            const char *why = NULL;
            if (!auth_username_valid(r->username) || auth_username_reserved(r->username))
                why = "not a valid username";
            else if (*r->student_id && field_problem(r->student_id, STUDENT_ID_MAX))
                why = "student_id: 1 to 64 bytes, no control characters";
            else if (*r->display_name && field_problem(r->display_name, DISPLAY_NAME_MAX))
                why = "display_name: 1 to 100 bytes, no control characters";
            for (int i = 0; !why && i < n; i++)
                if (!strcasecmp((*rows)[i].username, r->username))
                    why = "this username is on an earlier line";
            if (why)
                snprintf(msg, sizeof msg, "%s", why);
            else
                n++;
        }
        if (msg[0])
            json_array_append_new(errs, json_pack("{s:i, s:s}", "line", line, "message", msg));
        if (k < 0)
            break; /* the rest cannot be read reliably */
    }
    return n;
}

struct http_response *classlist_import(struct app *a, const struct http_request *req)
{
    json_t *o = NULL, *errs = json_array(), *created = json_array(), *updated = json_array();
    const char *csv = NULL;
    size_t n_csv = 0;
    int dry = 0;
    char *text = NULL;
    struct row *rows = NULL;
    struct store *s = NULL;
    bool in_tx = false;
    struct http_response *r = NULL;
    if (!errs || !created || !updated)
        goto oom;
    r = routes_json_body(http_header(req, "Content-Type"), req->body, req->body_len, &o,
                         "{\"csv\": string; \"dry_run\": optional boolean}", "{s:s%, s?b}", "csv",
                         &csv, &n_csv, "dry_run", &dry);
    if (r)
        goto out;
    if (!(text = strndup(csv, n_csv)))
        goto oom;
    int n = parse_list(text, &rows, errs);
    if (n < 0)
        goto oom;
    if (json_array_size(errs) || n == 0) {
        json_t *body = json_pack(
            "{s:{s:s, s:s}, s:O}", "error", "code", "invalid_class_list", "message",
            n == 0 && !json_array_size(errs) ? "the class list has no students"
                                             : "the class list has errors; nothing was imported",
            "errors", errs);
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
        struct row *row = &rows[i];
        int rc = store_user_by_name(s, row->username, &u);
        if (rc < 0)
            goto db;
        const char *sid = *row->student_id ? row->student_id : NULL;
        const char *shown = *row->display_name ? row->display_name : NULL;
        if (rc == 0) {
            if (strcmp(u.role, "student")) {
                json_array_append_new(errs, json_pack("{s:i, s:s}", "line", row->line, "message",
                                                      "an instructor's account"));
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
        r = http_json(400, json_pack("{s:{s:s, s:s}, s:O}", "error", "code", "invalid_class_list",
                                     "message", "the class list has errors; nothing was imported",
                                     "errors", errs));
        goto out;
    }
    if (in_tx && store_commit(s) < 0)
        goto db;
    in_tx = false;
    r = http_json(
        200, json_pack("{s:b, s:O, s:O}", "dry_run", dry, "created", created, "updated", updated));
    goto out;
db:
    r = internal("class list import", s);
    goto out;
oom:
    r = NULL;
out:
    if (in_tx)
        store_rollback(s);
    store_pool_put(a->pool, s);
    free(rows);
    free(text);
    json_decref(o);
    json_decref(errs);
    json_decref(created);
    json_decref(updated);
    return r;
}
