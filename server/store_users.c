/*
 * store_users — accounts and their sessions: creating and finding users,
 * the hashed session tokens, passwords, names, and the student accounts
 * of a class list. Usernames are unique without regard to case on both
 * backends (store_sql.def).
 */
#include "server/store_impl.h"

int store_user_create(struct store *s, const char *username, const char *pwhash, const char *role,
                      int64_t now, int64_t *id)
{
    struct db_stmt *st = store_prep(s, Q_USER_INSERT);
    int rc = -1;
    if (!st || store_bind(s, st, "ttti", username, pwhash, role, now) < 0)
        goto out;
    int64_t new_id;
    if (store_insert_id(st, &new_id) < 0) {
        rc = db_errclass(s->db) == DB_UNIQUE ? STORE_EXISTS : store_fail(s, "insert user");
        goto out;
    }
    if (id)
        *id = new_id;
    rc = 0;
out:
    store_done(st);
    return rc;
}

int store_user_row(struct db_stmt *st, void *arg)
{
    struct store_user *u = arg;
    u->id = db_column_int64(st, 0);
    copy_col(st, 1, u->username, sizeof u->username);
    copy_col(st, 2, u->role, sizeof u->role);
    copy_col(st, 3, u->pwhash, sizeof u->pwhash);
    u->must_change_password = (int)db_column_int64(st, 4) != 0;
    copy_col(st, 5, u->display_name, sizeof u->display_name);
    copy_col(st, 6, u->student_id, sizeof u->student_id);
    return 0;
}

int store_user_by_name(struct store *s, const char *username, struct store_user *u)
{
    return store_one(s, Q_USER_BY_NAME, "user", store_user_row, u, "t", username);
}

int store_session_create(struct store *s, const char *token_hash, int64_t user_id, int64_t now,
                         int64_t expires_at)
{
    return store_run(s, Q_SESSION_INSERT, "tiii", token_hash, user_id, now, expires_at);
}

int store_session_user(struct store *s, const char *token_hash, int64_t now, struct store_user *u)
{
    return store_one(s, Q_SESSION_USER, "user", store_user_row, u, "ti", token_hash, now);
}

int store_session_delete(struct store *s, const char *token_hash)
{
    return store_run(s, Q_SESSION_DELETE, "t", token_hash);
}

int store_session_purge(struct store *s, int64_t now)
{
    return store_run(s, Q_SESSION_PURGE, "i", now);
}

int store_user_set_password(struct store *s, int64_t user_id, const char *pwhash, bool must_change,
                            const char *keep_token_hash, int *ended)
{
    if (store_begin(s) < 0)
        return -1;
    if (store_run(s, Q_USER_SET_PASSWORD, "tIi", pwhash, must_change ? 1 : 0, user_id) < 0)
        goto fail;
    if (db_changes(s->db) == 0) {
        store_rollback(s);
        return STORE_NOT_FOUND;
    }
    if (store_run(s, Q_SESSIONS_END, "it", user_id, keep_token_hash) < 0)
        goto fail;
    if (ended)
        *ended = (int)db_changes(s->db);
    return store_commit(s);
fail:
    store_rollback(s);
    return -1;
}

int store_user_set_names(struct store *s, const char *username, const char *student_id,
                         const char *display_name)
{
    return store_one(s, Q_USER_SET_NAMES, "user names", NULL, NULL, "ttt", student_id, display_name,
                     username);
}

int store_user_import(struct store *s, const char *username, const char *pwhash,
                      const char *student_id, const char *display_name, int64_t now)
{
    int rc = store_run(s, Q_USER_IMPORT, "ttitt", username, pwhash, now, student_id, display_name);
    return rc < 0 && db_errclass(s->db) == DB_UNIQUE ? STORE_EXISTS : rc;
}
