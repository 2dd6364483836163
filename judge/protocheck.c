/*
 * protocheck — the statement's prototype against problem.json's
 * (judge/protocheck.h).
 *
 * Theory of operation. libcmark finds the statement's code blocks (fenced
 * or indented; what is in them is never run). In each, every occurrence of
 * the function's name as a whole identifier followed by '(' is a
 * declaration or definition when the token before it is a type: an
 * identifier that is not a statement keyword (void, float, static void) or
 * a '*'. Anything else before it (nothing, '=', ';', '(', ',', "return")
 * makes it a call, which is prose and not checked: a statement may well
 * show softmax(x, y, n) in an example. The parameter list, up to the
 * matching ')', is split at top-level commas; each parameter is reduced to
 * its type (tokens joined by single spaces, the name and any restrict
 * dropped), and so is the generated prototype, so that only the number of
 * parameters and their types are compared.
 */
#include "judge/protocheck.h"

#include <ctype.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmark-gfm.h>

#include "judge/harness.h"

#define PROTO_LEN 4096 /* bytes of a prototype as shown (harness.c's buffer) */

static bool is_ident_char(char c)
{
    return isalnum((unsigned char)c) || c == '_';
}

/* Words before a name that make it a call or an expression, not a
 * declaration: "return softmax(...)" uses the function. */
static bool is_statement_keyword(const char *s, size_t n)
{
    static const char *const words[] = {"return", "else", "do", "case", "goto", "sizeof", NULL};
    for (int i = 0; words[i]; i++)
        if (strlen(words[i]) == n && strncmp(words[i], s, n) == 0)
            return true;
    return false;
}

/* Whether the text before code[at] (the function's name) ends in a type:
 * an identifier other than a statement keyword, or a '*'. */
static bool declared_here(const char *code, size_t at)
{
    size_t i = at;
    while (i > 0 && isspace((unsigned char)code[i - 1]))
        i--;
    if (i == 0)
        return false;
    if (code[i - 1] == '*')
        return true;
    size_t end = i;
    while (i > 0 && is_ident_char(code[i - 1]))
        i--;
    return end > i && !isdigit((unsigned char)code[i]) && !is_statement_keyword(code + i, end - i);
}

/* Appends a parameter's type to out (len bytes): its tokens (identifiers
 * and '*') joined by single spaces, restrict qualifiers dropped, and the
 * last identifier dropped when it follows another token (the parameter's
 * name). "T x[]" is "T *x", as C reads a parameter. */
static void param_type(const char *s, size_t n, char *out, size_t len)
{
    char tok[16][64];
    int nt = 0;

    for (size_t i = 0; i < n && nt < 16;) {
        if (is_ident_char(s[i])) {
            size_t b = i;
            while (i < n && is_ident_char(s[i]))
                i++;
            snprintf(tok[nt], sizeof tok[nt], "%.*s", (int)(i - b), s + b);
            if (strcmp(tok[nt], "restrict") != 0 && strcmp(tok[nt], "__restrict") != 0 &&
                strcmp(tok[nt], "__restrict__") != 0)
                nt++;
        } else if (s[i] == '*') {
            snprintf(tok[nt++], sizeof tok[0], "*");
            i++;
        } else if (s[i] == '[') {
            /* the name comes before the brackets: move it after the '*' */
            snprintf(tok[nt++], sizeof tok[0], "*");
            if (nt >= 3 && strcmp(tok[nt - 2], "*") != 0) {
                char name[64];
                snprintf(name, sizeof name, "%s", tok[nt - 2]);
                snprintf(tok[nt - 2], sizeof tok[0], "*");
                snprintf(tok[nt - 1], sizeof tok[0], "%s", name);
            }
            while (i < n && s[i] != ']')
                i++;
            i++;
        } else {
            i++;
        }
    }
    if (nt >= 2 && strcmp(tok[nt - 1], "*") != 0)
        nt--;
    size_t at = strlen(out);
    for (int k = 0; k < nt && at < len; k++)
        at += (size_t)snprintf(out + at, len - at, "%s%s", k ? " " : "", tok[k]);
}

/* The parameter types of the list s[0..n) (without the parentheses), each
 * ended by ';', into out. Returns the number of parameters: none for ""
 * and "void". */
static int param_types(const char *s, size_t n, char *out, size_t len)
{
    int count = 0, depth = 0;
    size_t b = 0;

    out[0] = '\0';
    for (size_t i = 0; i <= n; i++) {
        if (i < n && (s[i] == '(' || s[i] == '['))
            depth++;
        else if (i < n && (s[i] == ')' || s[i] == ']'))
            depth--;
        if (i < n && (s[i] != ',' || depth != 0))
            continue;
        size_t at = strlen(out);
        param_type(s + b, i - b, out, len);
        if (i == n && count == 0 && (out[at] == '\0' || strcmp(out + at, "void") == 0)) {
            out[at] = '\0';
            break;
        }
        at = strlen(out);
        snprintf(out + at, len - at, ";");
        count++;
        b = i + 1;
    }
    return count;
}

/* s[0..n) with each run of white space turned into one space. */
static void squeeze(const char *s, size_t n, char *out, size_t len)
{
    size_t o = 0;
    bool space = false;

    for (size_t i = 0; i < n && o + 2 < len; i++) {
        if (isspace((unsigned char)s[i])) {
            space = o > 0;
            continue;
        }
        if (space && s[i] != ')' && out[o - 1] != '(')
            out[o++] = ' ';
        space = false;
        out[o++] = s[i];
    }
    out[o] = '\0';
}

/* Checks one code block (starting at statement line first_line); returns
 * the mismatches reported. */
static int check_block(const struct problem *p, const char *code, int first_line, const char *want,
                       const char *want_types, int want_n, judge_check_report_fn warn, void *arg)
{
    size_t fn = strlen(p->function), len = strlen(code);
    int found = 0;

    for (const char *hit = strstr(code, p->function); hit; hit = strstr(hit + 1, p->function)) {
        size_t at = (size_t)(hit - code), i = at + fn;
        if ((at > 0 && is_ident_char(code[at - 1])) || is_ident_char(code[i]))
            continue;
        while (i < len && isspace((unsigned char)code[i]))
            i++;
        if (i >= len || code[i] != '(' || !declared_here(code, at))
            continue;
        size_t open = i, close = 0;
        for (int depth = 0; i < len; i++) {
            depth += code[i] == '(' ? 1 : code[i] == ')' ? -1 : 0;
            if (depth == 0) {
                close = i;
                break;
            }
        }
        if (!close)
            continue; /* an unfinished list: not a declaration to compare */
        char types[PROTO_LEN];
        int n = param_types(code + open + 1, close - open - 1, types, sizeof types);
        if (n == want_n && strcmp(types, want_types) == 0)
            continue;
        /* show the declaration from its type on: back to the line's start */
        size_t from = at;
        while (from > 0 && code[from - 1] != '\n' && code[from - 1] != ';' && code[from - 1] != '}')
            from--;
        char shown[PROTO_LEN];
        squeeze(code + from, close + 1 - from, shown, sizeof shown);
        int line = first_line;
        for (size_t k = 0; k < at; k++)
            line += code[k] == '\n';
        char line_msg[2 * PROTO_LEN + 256];
        snprintf(line_msg, sizeof line_msg,
                 "statement.md:%d: declares %s (%d parameter%s), but problem.json's function is "
                 "%s (%d): students compile against problem.json's",
                 line, shown, n, n == 1 ? "" : "s", want, want_n);
        warn(arg, true, line_msg);
        found++;
    }
    return found;
}

int protocheck_statement(const struct problem *p, judge_check_report_fn warn, void *arg)
{
    char want[PROTO_LEN], want_types[PROTO_LEN];
    int found = 0;

    if (!p->statement_md || harness_prototype(p, want, sizeof want) < 0)
        return 0;
    const char *paren = strchr(want, '(');
    int want_n = param_types(paren + 1, strlen(paren + 1) - 1, want_types, sizeof want_types);

    cmark_node *doc =
        cmark_parse_document(p->statement_md, strlen(p->statement_md), CMARK_OPT_DEFAULT);
    if (!doc)
        return 0;
    cmark_iter *it = cmark_iter_new(doc);
    for (cmark_event_type ev; it && (ev = cmark_iter_next(it)) != CMARK_EVENT_DONE;) {
        cmark_node *node = cmark_iter_get_node(it);
        if (ev != CMARK_EVENT_ENTER || cmark_node_get_type(node) != CMARK_NODE_CODE_BLOCK)
            continue;
        const char *code = cmark_node_get_literal(node);
        int fence_len = 0, fence_offset = 0;
        char fence_char = 0;
        /* a fenced block's code starts on the line after its fence */
        int first = cmark_node_get_start_line(node) +
                    (cmark_node_get_fenced(node, &fence_len, &fence_offset, &fence_char) ? 1 : 0);
        if (code)
            found += check_block(p, code, first, want, want_types, want_n, warn, arg);
    }
    cmark_iter_free(it);
    cmark_node_free(doc);
    return found;
}
