/*
 * preview — the upload page's preview of a statement, rendered by the
 * renderer the problem page gets its statement from (docs/api.md,
 * "Statement preview").
 *
 * routes.c admits instructors only and limits the body to the package
 * size; this function answers.
 */
#ifndef ATTNJUDGE_SERVER_PREVIEW_H
#define ATTNJUDGE_SERVER_PREVIEW_H

#include "server/app.h"

/* POST /api/statement-preview {"markdown"}: 200 {"html"}, the HTML that
 * GET /api/problems/{slug} would give as statement_html for a statement.md
 * of that text (markdown_html: raw HTML and unsafe links dropped, math left
 * for KaTeX in the browser). 400 on a malformed body, 413 on a text longer
 * than max_package_kib. Caller frees the response. */
handler_fn preview_statement;

#endif
