/*
 * attnjudge vocabulary — prints the judge's vocabulary as one JSON object
 * (judge_vocabulary_json: the verdicts, test kinds, compile flags, progress
 * stages and the default source limit), the same object as GET
 * /api/vocabulary on a default server. Scripts and tests read it instead of
 * keeping their own copy of the verdict list.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli/cli.h"
#include "judge/judge.h"

int cmd_vocabulary(int argc, char **argv)
{
    if (argc > 1 && (!strcmp(argv[1], "--help") || !strcmp(argv[1], "-h"))) {
        printf("usage: attnjudge vocabulary\n\n"
               "Prints the judge's verdicts, test kinds, compile flags, progress stages\n"
               "and default source limit as one JSON object (docs/api.md, GET /api/vocabulary).\n");
        return CLI_OK;
    }
    if (argc > 1) {
        fprintf(stderr, "usage: attnjudge vocabulary\n");
        return CLI_USAGE;
    }
    json_t *o = judge_vocabulary_json();
    char *text = o ? json_dumps(o, JSON_INDENT(2) | JUDGE_JSON_REALS) : NULL;
    json_decref(o);
    if (!text) {
        fprintf(stderr, "attnjudge: out of memory\n");
        return CLI_FAIL;
    }
    puts(text);
    free(text);
    return CLI_OK;
}
