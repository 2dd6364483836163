/*
 * preview — the statement preview of the upload page (preview.h).
 *
 * The instructor's upload page shows the statement being written as the
 * students will see it. The students' problem page shows statement_html,
 * which the catalog renders with markdown_html (cmark-gfm with tables,
 * judge/markdown.c); a preview drawn by a second renderer in the browser
 * would drift from it (tables and emphasis did). So the preview asks the
 * server, which runs the same function on the text and nothing else: no
 * file is written, no problem is loaded. The page then typesets the math
 * with the same KaTeX call as the problem page.
 *
 * Trust: the text is the instructor's, but the HTML is made safe as for a
 * stored statement, and the browser sanitizes it again (dom.js safeHtml).
 */
#include "server/preview.h"

#include <stdlib.h>

#include "judge/markdown.h"
#include "server/request.h"

struct http_response *preview_statement(struct app *a, struct http_request *req,
                                        const struct caller *me)
{
    json_t *o = NULL;
    const char *md = NULL;
    size_t len = 0;
    char *html = NULL;
    struct http_response *r;
    (void)me;

    if ((r = request_body(req, &o, "{\"markdown\": string}", "{s:s%}", "markdown", &md, &len)))
        return r;
    if (len > (size_t)a->cfg->max_package_bytes) {
        r = http_error(413, "payload_too_large", "a statement is at most %lld bytes",
                       (long long)a->cfg->max_package_bytes);
        goto out;
    }
    if (!(html = markdown_html(md, len))) {
        r = http_error(500, "internal", "out of memory");
        goto out;
    }
    r = http_json(200, json_pack("{s:s}", "html", html));
out:
    free(html);
    json_decref(o);
    return r;
}
