/*
 * elf — what the judge reads from a linked program's ELF program headers
 * before anything runs: whether it asks for a dynamic loader, and the
 * memory its image needs.
 *
 * The file comes from the sandboxed compiler and its sections from the
 * student, so every field is bounds-checked; nothing here runs the program.
 */
#ifndef ATTNJUDGE_ELF_H
#define ATTNJUDGE_ELF_H

#include <stdbool.h>
#include <stdint.h>

#define PROGRAM_MAX (64LL << 20) /* largest linked program accepted, bytes */

/* What the judge reads from a linked program's program headers. */
struct program_info {
    bool interp;   /* PT_INTERP: the program asks for a dynamic loader */
    bool dynamic;  /* PT_DYNAMIC: dynamic linking information */
    int64_t image; /* bytes: the span of the PT_LOAD segments (text, data,
                    * .bss) plus the PT_TLS block static glibc allocates at
                    * start-up */
};

/* Reads the program headers of fd into *pi. Returns 0, or -1 if the file
 * is not a readable ELF64 executable. */
int program_inspect(int fd, struct program_info *pi);

/* The non-loaded section in which the link step keeps a copy of the
 * student's object (objcopy --add-section), so that the judge can read
 * which symbols the student's file defines. */
#define STUDENT_OBJECT_SECTION ".attnjudge.student"

/* Why the judge refuses to run the linked program fd (a compile error in
 * the student's words), or NULL: programs are linked with -static, so a
 * loader request (PT_INTERP) or dynamic-linking information (PT_DYNAMIC)
 * is refused; and a program whose student's object (the one
 * STUDENT_OBJECT_SECTION of fd) defines a C library name (read, memset,
 * malloc, ..., or any name beginning with an underscore: judge/elf.c has
 * the list and why) is refused, the message naming the symbol. The message
 * is a constant string or buf (len bytes). */
const char *program_refusal(int fd, char *buf, size_t len);

#endif
