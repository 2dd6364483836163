/*
 * utf8 — untrusted text made fit for JSON.
 *
 * Compiler diagnostics and what a student's program prints are arbitrary
 * bytes; JSON strings (and jansson) take only well-formed UTF-8. The
 * scrubber keeps every well-formed sequence and turns every other byte into
 * '?', so the text keeps its length and everything readable in it.
 */
#ifndef ATTNJUDGE_UTF8_H
#define ATTNJUDGE_UTF8_H

#include <stddef.h>

#include <jansson.h>

/* Length (1 to 4) of the well-formed UTF-8 sequence at the start of s[0..n),
 * or 0 when there is none: a stray continuation byte, an overlong form, a
 * surrogate, a code point above U+10FFFF or a truncated sequence. */
size_t utf8_sequence_len(const unsigned char *s, size_t n);

/* Replaces, in place, every byte of s[0..n) that is not part of a
 * well-formed sequence by '?'. Returns how many bytes it replaced. */
size_t utf8_scrub(char *s, size_t n);

/* Code points that text shown as a person's name or id must not hold:
 * Unicode's control characters (Cc: U+0000..U+001F, U+007F..U+009F, so
 * also U+0085), the line and paragraph separators (Zl U+2028, Zp U+2029)
 * and the format characters (Cf: bidi overrides such as U+202E, zero
 * widths, U+FEFF...), which reorder or hide what a grade sheet shows;
 * except U+200C and U+200D (ZWNJ, ZWJ), which Persian and Indic names
 * need. Returns the first such code point of the NUL-terminated text s,
 * UTF8_NOT_UTF8 when s is not well-formed UTF-8, or UTF8_CLEAN. */
#define UTF8_CLEAN (-1L)
#define UTF8_NOT_UTF8 (-2L)
long utf8_name_forbidden(const char *s);

/* A new JSON string holding the NUL-terminated text s, scrubbed when it is
 * not UTF-8; JSON null when s is NULL or memory runs out. */
json_t *utf8_json_string(const char *s);

#endif
