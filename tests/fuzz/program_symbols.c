/*
 * Fuzz target: a linked program's headers and the copy of the student's
 * object in it (judge/elf.c program_refusal): the ELF file the sandboxed
 * compiler produced from a student's source, whose sections, symbols and
 * names the student controls.
 *
 * Input: the program's bytes. Checks that a refusal is a NUL-terminated
 * message and that a message naming a symbol fits its buffer.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "judge/elf.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    char buf[320];
    int fd = memfd_create("fuzz-program", MFD_CLOEXEC);
    if (fd < 0)
        abort();
    if (size > 0 && write(fd, data, size) != (ssize_t)size)
        abort();
    memset(buf, 'x', sizeof buf);
    const char *why = program_refusal(fd, buf, sizeof buf);
    if (why && strnlen(why, 1024) >= 1024)
        abort(); /* a refusal is a short message */
    if (why == buf && memchr(buf, '\0', sizeof buf) == NULL)
        abort(); /* the named symbol's message overran its buffer */
    close(fd);
    return 0;
}
