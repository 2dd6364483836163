/*
 * elf — reading a linked program's program headers (elf.h): the loader
 * request that is refused, and the image size the memory limit is held
 * against; and, from the copy of the student's object the link step puts
 * in the program, the C library names the student's file defines.
 */
#include <elf.h>
#include <stdio.h>
#include <stdlib.h>
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

/* The C library's names a student's file may not define (as a global or
 * weak symbol; a static function of the same name is the file's own and
 * stays allowed). The student's object comes first in the static link, so
 * its definition would replace the library's for every caller: the
 * library's own code, and the harness's work that the empty function it is
 * measured against pays in full. Besides these, every name that begins with
 * an underscore is refused: C reserves those to the implementation
 * (glibc's internal aliases such as __write, __libc_read, _IO_*). */
// clang-format off
static const char *const reserved_names[] = {
    /* the system calls behind the input and result channels and the
     * harness's memory, as libc's start-up, stdio and exit call them */
    "read", "write", "pread", "pread64", "readv", "writev", "lseek", "lseek64",
    "close", "fstat", "fstat64", "syscall",
    "mmap", "mmap64", "munmap", "mprotect", "mremap", "madvise", "brk", "sbrk",
    /* what gcc emits for a copy, a fill or a comparison in any object,
     * libc's included */
    "memset", "memcpy", "memmove", "memcmp", "bcmp", "bzero", "mempcpy",
    /* the allocator the harness wraps: an allocation refused is reported
     * (memory_limit) and fresh memory is filled (docs/sandbox.md) */
    "malloc", "calloc", "realloc", "reallocarray", "free", "aligned_alloc",
    "posix_memalign", "memalign", "valloc", "pvalloc", "malloc_usable_size",
    /* ... and tunes before a benchmark's call (prepare_heap) */
    "mallopt",
    /* signals and ending: how a fault or the end of the process is reported */
    "signal", "sigaction", "sigaltstack", "sigemptyset", "raise", "abort", "kill",
    "tgkill", "getpid", "gettid", "exit", "_exit", "_Exit", "atexit", "on_exit",
};
// clang-format on

/* True if a student may not define name: reserved_names, or a name that
 * begins with an underscore. A version suffix ("read@@GLIBC_2.2.5") names
 * the same function. */
static bool reserved_name(const char *name, size_t len)
{
    const char *at = memchr(name, '@', len);
    if (at)
        len = (size_t)(at - name);
    if (len > 0 && name[0] == '_')
        return true;
    for (size_t i = 0; i < sizeof reserved_names / sizeof reserved_names[0]; i++)
        if (strlen(reserved_names[i]) == len && memcmp(reserved_names[i], name, len) == 0)
            return true;
    return false;
}

/* Copies section header i of an ELF64 image of size bytes (at img) into
 * *sh (copied: the image need not be aligned). Returns 0, or -1 if it lies
 * outside. */
static int section(const unsigned char *img, size_t size, const Elf64_Ehdr *eh, size_t i,
                   Elf64_Shdr *sh)
{
    if (eh->e_shentsize != sizeof *sh || i >= eh->e_shnum || eh->e_shoff > size ||
        (size - eh->e_shoff) / sizeof *sh <= i)
        return -1;
    memcpy(sh, img + eh->e_shoff + i * sizeof *sh, sizeof *sh);
    return 0;
}

/* True if the section's bytes lie inside an image of size bytes. */
static bool inside(const Elf64_Shdr *sh, size_t size)
{
    return sh->sh_offset <= size && sh->sh_size <= size - sh->sh_offset;
}

/* Finds the first symbol of the relocatable object obj (len bytes) that
 * defines a reserved name; copies the name into name. Returns 1 if one is
 * found, 0 if none, -1 if obj is not a readable ELF64 object. */
static int reserved_definition(const unsigned char *obj, size_t len, char *name, size_t namelen)
{
    Elf64_Ehdr eh;
    Elf64_Shdr sh, str;
    Elf64_Sym sym;
    if (len < sizeof eh)
        return -1;
    memcpy(&eh, obj, sizeof eh);
    if (memcmp(eh.e_ident, ELFMAG, SELFMAG) != 0 || eh.e_ident[EI_CLASS] != ELFCLASS64 ||
        eh.e_type != ET_REL)
        return -1;
    for (size_t i = 0; i < eh.e_shnum; i++) {
        if (section(obj, len, &eh, i, &sh) < 0)
            return -1;
        if (sh.sh_type != SHT_SYMTAB)
            continue;
        if (section(obj, len, &eh, sh.sh_link, &str) < 0 || !inside(&sh, len) ||
            !inside(&str, len) || sh.sh_entsize != sizeof sym)
            return -1;
        const char *strtab = (const char *)obj + str.sh_offset;
        for (size_t k = 0; k < sh.sh_size / sizeof sym; k++) {
            memcpy(&sym, obj + sh.sh_offset + k * sizeof sym, sizeof sym);
            int bind = ELF64_ST_BIND(sym.st_info);
            if (sym.st_shndx == SHN_UNDEF || sym.st_name >= str.sh_size ||
                (bind != STB_GLOBAL && bind != STB_WEAK && bind != STB_GNU_UNIQUE))
                continue;
            const char *n = strtab + sym.st_name;
            const char *end = memchr(n, '\0', str.sh_size - sym.st_name);
            if (!end)
                return -1;
            if (reserved_name(n, (size_t)(end - n))) {
                snprintf(name, namelen, "%.*s", (int)(end - n), n);
                return 1;
            }
        }
    }
    return 0;
}

/* Reads the one section named STUDENT_OBJECT_SECTION of the program fd
 * into a new buffer (*obj, *len; the caller frees it). Returns 0, or -1 if
 * there is not exactly one such section or it cannot be read. */
static int student_object(int fd, unsigned char **obj, size_t *len)
{
    Elf64_Ehdr eh;
    Elf64_Shdr names, sh, found = {0};
    char name[sizeof STUDENT_OBJECT_SECTION];
    int n_found = 0;

    *obj = NULL;
    if (pread(fd, &eh, sizeof eh, 0) != (ssize_t)sizeof eh || eh.e_shentsize != sizeof sh ||
        eh.e_shnum > 4096 || eh.e_shstrndx >= eh.e_shnum || eh.e_shoff > (uint64_t)PROGRAM_MAX ||
        pread(fd, &names, sizeof names, (off_t)(eh.e_shoff + eh.e_shstrndx * sizeof sh)) !=
            (ssize_t)sizeof names ||
        names.sh_offset > (uint64_t)PROGRAM_MAX)
        return -1;
    for (uint64_t i = 0; i < eh.e_shnum; i++) {
        if (pread(fd, &sh, sizeof sh, (off_t)(eh.e_shoff + i * sizeof sh)) != (ssize_t)sizeof sh)
            return -1;
        if (sh.sh_name >= names.sh_size || sh.sh_name > (uint64_t)PROGRAM_MAX ||
            pread(fd, name, sizeof name, (off_t)(names.sh_offset + sh.sh_name)) !=
                (ssize_t)sizeof name ||
            memcmp(name, STUDENT_OBJECT_SECTION, sizeof name) != 0)
            continue;
        found = sh;
        n_found++;
    }
    if (n_found != 1 || found.sh_type != SHT_PROGBITS || (found.sh_flags & SHF_ALLOC) ||
        found.sh_size == 0 || found.sh_size > (uint64_t)PROGRAM_MAX ||
        found.sh_offset > (uint64_t)PROGRAM_MAX)
        return -1;
    *obj = malloc(found.sh_size);
    if (!*obj)
        return -1;
    if (pread(fd, *obj, found.sh_size, (off_t)found.sh_offset) != (ssize_t)found.sh_size) {
        free(*obj);
        *obj = NULL;
        return -1;
    }
    *len = found.sh_size;
    return 0;
}

/* Why the judge refuses to run a linked program, or NULL. Programs are
 * linked with -static: a PT_INTERP (a student's `.interp` section) would
 * make exec look for a loader the empty run root does not have, and a
 * PT_DYNAMIC (a `.dynamic` section) has no business in a static program.
 * Then the student's object must define no reserved name. */
const char *program_refusal(int fd, char *buf, size_t len)
{
    struct program_info pi;
    if (program_inspect(fd, &pi) < 0)
        return "error: the linked program is not a valid ELF executable";
    if (pi.interp || pi.dynamic)
        return pi.interp ? "error: the linked program asks for a dynamic loader (a .interp "
                           "section): the judge runs static programs only"
                         : "error: the linked program has dynamic-linking information (a "
                           ".dynamic section): the judge runs static programs only";
    unsigned char *obj;
    size_t obj_len = 0;
    char name[128];
    if (student_object(fd, &obj, &obj_len) < 0)
        return "error: the judge cannot read the symbols of your compiled file";
    int found = reserved_definition(obj, obj_len, name, sizeof name);
    free(obj);
    if (found < 0)
        return "error: the judge cannot read the symbols of your compiled file";
    if (found == 0)
        return NULL;
    snprintf(buf, len,
             "error: your file defines `%s`, a name of the C library that the library and the "
             "judge's harness rely on (as are all names beginning with an underscore): rename "
             "it, or make it static",
             name);
    return buf;
}
