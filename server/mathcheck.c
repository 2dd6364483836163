/*
 * mathcheck — an upload's math checked by KaTeX, as `problem check`
 * does (mathcheck.h).
 *
 * `attnjudge problem check` runs every formula of a package through KaTeX
 * (judge_check_math: `node web/mathcheck.mjs FILE`), the renderer of the
 * students' browsers, and fails a package with one KaTeX refuses. An
 * upload is validated like check, so the server runs the same function on
 * the files it has just written and refuses the package on the same
 * finding. node and web/node_modules are the server's to have: without
 * them the math cannot be checked, and the upload is stored as before, its
 * reply saying that the math was not checked and why.
 *
 * The check's lines name the version directory and the script's path;
 * what reaches the uploader names neither.
 */
#include "server/mathcheck.h"

#include <stdio.h>
#include <string.h>

#include "judge/check.h"

struct findings {
    const char *dir, *script;
    char *err, *note;
    size_t errlen, note_len;
    bool failed, skipped;
};

/* Copies line into buf with every occurrence of hide replaced by with. */
static void copy_hiding(char *buf, size_t len, const char *line, const char *hide, const char *with)
{
    size_t n = strlen(hide), used = 0;
    buf[0] = '\0';
    while (*line && used + 1 < len) {
        const char *at = n ? strstr(line, hide) : NULL;
        size_t keep = at ? (size_t)(at - line) : strlen(line);
        used += (size_t)snprintf(buf + used, len - used, "%.*s%s", (int)keep, line, at ? with : "");
        if (used >= len || !at)
            break;
        line = at + n;
    }
}

static void keep(void *arg, bool ok, const char *line)
{
    struct findings *f = arg;
    char tmp[1024];
    if (!ok && !f->failed) {
        f->failed = true;
        copy_hiding(f->err, f->errlen, line, f->dir, ".");
    } else if (ok && strstr(line, "not checked") && !f->skipped) {
        f->skipped = true;
        copy_hiding(tmp, sizeof tmp, line, f->script, "mathcheck.mjs");
        copy_hiding(f->note, f->note_len, tmp, f->dir, ".");
        fprintf(stderr, "attnjudge: upload: %s\n", line);
    }
}

int mathcheck_package(const char *script, const struct problem *p, char *err, size_t errlen,
                      bool *checked, char *note, size_t note_len)
{
    struct findings f = {p->dir, script, err, note, errlen, note_len, false, false};

    note[0] = '\0';
    if (!script[0]) {
        *checked = false;
        snprintf(note, note_len, "math: not checked with KaTeX (no checker configured)");
        return 0;
    }
    int rc = judge_check_math(p, script, keep, &f);
    *checked = rc >= 0 && !f.skipped;
    if (rc < 0 && !note[0])
        snprintf(note, note_len, "math: not checked with KaTeX");
    return rc > 0 ? 1 : 0;
}
