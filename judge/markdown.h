/*
 * markdown — problem statements from Markdown to safe HTML (libcmark-gfm, with tables).
 */
#ifndef ATTNJUDGE_MARKDOWN_H
#define ATTNJUDGE_MARKDOWN_H

#include <stddef.h>

/* Renders CommonMark to HTML with raw HTML and unsafe links dropped. Math
 * ($...$ and $$...$$) is passed through as escaped text, untouched by the
 * Markdown parser, for KaTeX in the browser. Returns a malloc'd string or
 * NULL when out of memory. */
char *markdown_html(const char *md, size_t len);

#endif
