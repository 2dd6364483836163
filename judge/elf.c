/*
 * elf — reading a linked program's program headers (elf.h): the loader
 * request that is refused, and the image size the memory limit is held
 * against.
 */
#include <elf.h>
#include <string.h>
#include <unistd.h>

#include "judge/elf.h"

/* Reads the program headers of fd. The file comes from the sandboxed
 * compiler and its sections from the student (`.interp`, `.dynamic`, huge
 * `.bss` or `__thread` arrays), so every field is bounds-checked. Returns 0,
 * or -1 if the file is not a readable ELF64 executable. */
int program_inspect(int fd, struct program_info *pi)
{
    Elf64_Ehdr eh;
    Elf64_Phdr ph;
    uint64_t lo = UINT64_MAX, hi = 0, tls = 0;
    bool huge = false;

    memset(pi, 0, sizeof *pi);
    if (pread(fd, &eh, sizeof eh, 0) != (ssize_t)sizeof eh ||
        memcmp(eh.e_ident, ELFMAG, SELFMAG) != 0 || eh.e_ident[EI_CLASS] != ELFCLASS64 ||
        eh.e_phentsize != sizeof ph || eh.e_phnum > 64 || eh.e_phoff > (uint64_t)PROGRAM_MAX)
        return -1;
    for (int i = 0; i < eh.e_phnum; i++) {
        if (pread(fd, &ph, sizeof ph, (off_t)(eh.e_phoff + (uint64_t)i * sizeof ph)) !=
            (ssize_t)sizeof ph)
            return -1;
        if (ph.p_type == PT_INTERP)
            pi->interp = true;
        if (ph.p_type == PT_DYNAMIC)
            pi->dynamic = true;
        if (ph.p_type == PT_TLS) {
            if (ph.p_memsz > (uint64_t)INT64_MAX / 4 || ph.p_align > (uint64_t)INT64_MAX / 4 ||
                tls > (uint64_t)INT64_MAX / 4)
                huge = true;
            else
                tls += ph.p_memsz + ph.p_align;
        }
        if (ph.p_type != PT_LOAD)
            continue;
        if (ph.p_vaddr > UINT64_MAX - ph.p_memsz) {
            huge = true;
            continue;
        }
        if (ph.p_vaddr < lo)
            lo = ph.p_vaddr;
        if (ph.p_vaddr + ph.p_memsz > hi)
            hi = ph.p_vaddr + ph.p_memsz;
    }
    if (hi <= lo && !huge)
        return -1;
    if (huge || hi - lo > (uint64_t)INT64_MAX - tls)
        pi->image = INT64_MAX;
    else
        pi->image = (int64_t)(hi - lo + tls);
    return 0;
}

/* Why the judge refuses to run a linked program, or NULL. Programs are
 * linked with -static: a PT_INTERP (a student's `.interp` section) would
 * make exec look for a loader the empty run root does not have, and a
 * PT_DYNAMIC (a `.dynamic` section) has no business in a static program. */
const char *program_refusal(int fd)
{
    struct program_info pi;
    if (program_inspect(fd, &pi) < 0)
        return "error: the linked program is not a valid ELF executable";
    if (pi.interp || pi.dynamic)
        return pi.interp ? "error: the linked program asks for a dynamic loader (a .interp "
                           "section): the judge runs static programs only"
                         : "error: the linked program has dynamic-linking information (a "
                           ".dynamic section): the judge runs static programs only";
    return NULL;
}
