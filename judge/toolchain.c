/*
 * toolchain — identifying the compiler, linker and libc (toolchain.h): a
 * probe in a compile sandbox, cached under a fingerprint of the files.
 */
#include <errno.h>
#include <fcntl.h>
#include <gnu/libc-version.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "judge/errbuf.h"
#include "judge/toolchain.h"
#include "sandbox/sandbox.h"
#include "util/fs.h"

/* Identifies the toolchain the compile sandbox sees, as the lines
 * "gcc VERSION MACHINE", "ld FIRST-LINE-OF-VERSION", "libc glibc VERSION"
 * (each ending in '\n'): a compiler, binutils or libc upgrade changes the
 * programs built, so it must change the reference cache key. Returns 0 or
 * -1 with err. */
static int toolchain_probe(char *out, size_t len, char *err, size_t errlen)
{
    /* gcc prints only the first of several -dump options: one step each */
    static const char *const version[] = {"/usr/bin/gcc", "-dumpfullversion", NULL};
    static const char *const machine[] = {"/usr/bin/gcc", "-dumpmachine", NULL};
    static const char *const ld[] = {"/usr/bin/ld", "--version", NULL};
    struct sbx_spec spec;
    struct sbx_result res;
    char why[400], gcc_version[64] = "", gcc_machine[64] = "", linker[160] = "";
    int fd = sbx_memfd_new("attnjudge-probe"), rc = -1;

    if (fd < 0) {
        errbuf_set(err, errlen, "memfd: %s", strerror(errno));
        return -1;
    }
    memset(&spec, 0, sizeof spec);
    spec.policy = SBX_COMPILE;
    sbx_limits_default(SBX_COMPILE, &spec.limits);
    spec.steps[0] = version;
    spec.steps[1] = machine;
    spec.steps[2] = ld;
    spec.n_steps = 3;
    spec.output_name = "none"; /* nothing is built */
    spec.output_fd = fd;
    spec.output_max = 0;
    if (sbx_run(&spec, &res, why, sizeof why) < 0) {
        errbuf_set(err, errlen, "cannot identify the compiler: %s", why);
        close(fd);
        return -1;
    }
    close(fd);
    if (res.status == SBX_OUTPUT_MISSING && res.exit_code == 0 && res.output &&
        sscanf(res.output, "%63[^\n]\n%63[^\n]\n%159[^\n]", gcc_version, gcc_machine, linker) ==
            3) {
        snprintf(out, len, "gcc %s %s\nld %s\nlibc glibc %s\n", gcc_version, gcc_machine, linker,
                 gnu_get_libc_version());
        rc = 0;
    } else {
        errbuf_set(err, errlen, "cannot identify the compiler (status %d, exit %d): %.200s",
                   res.status, res.exit_code, res.output ? res.output : "");
    }
    sbx_result_free(&res);
    return rc;
}

/* What decides the probe's answer: gcc's driver, whose version and target
 * are compiled in, ld, and the libc the judge runs on. */
static const char *const toolchain_files[] = {"/usr/bin/gcc", "/usr/bin/ld", NULL};

/* A line that changes whenever the probe could answer differently: the
 * identity of each of toolchain_files (device, inode, size, modification
 * and change times: an upgrade installs new files, an alternative points
 * elsewhere) and the libc version. Returns 0, or -1 when a file cannot be
 * examined (the probe then runs, and says what is wrong). */
static int toolchain_fingerprint(char *out, size_t len)
{
    int n = snprintf(out, len, "fingerprint libc %s", gnu_get_libc_version());
    size_t at = 0;
    for (int i = 0; n >= 0 && toolchain_files[i]; i++) {
        struct stat st;
        if (stat(toolchain_files[i], &st) < 0)
            return -1;
        at += (size_t)n;
        n = at < len ? snprintf(out + at, len - at, " %s:%jx:%jx:%jd:%jd.%09ld:%jd.%09ld",
                                toolchain_files[i], (uintmax_t)st.st_dev, (uintmax_t)st.st_ino,
                                (intmax_t)st.st_size, (intmax_t)st.st_mtim.tv_sec,
                                st.st_mtim.tv_nsec, (intmax_t)st.st_ctim.tv_sec, st.st_ctim.tv_nsec)
                     : -1;
    }
    if (n < 0 || (at += (size_t)n) + 2 > len)
        return -1;
    memcpy(out + at, "\n", 2);
    return 0;
}

/* toolchain_probe's answer, kept in <data_dir>/cache/toolchain after the
 * fingerprint of what decides it: the probe starts three programs in a
 * compile sandbox (~15 ms), which every `attnjudge judge` paid before its
 * first compile. The file is a cache: unreadable, stale or malformed, it
 * is replaced by a new probe's answer. Returns 0 or -1 with err. */
int toolchain_identify(const char *data_dir, char *out, size_t len, char *err, size_t errlen)
{
    char fp[1024] = "", path[4096];
    char *text = NULL;
    size_t n = 0;

    snprintf(path, sizeof path, "%s/cache/toolchain", data_dir);
    bool have_fp = toolchain_fingerprint(fp, sizeof fp) == 0;
    size_t fl = strlen(fp);
    if (have_fp && fs_read_file(path, O_NOFOLLOW, 4096, &text, &n) == 0 && n > fl && n - fl < len &&
        memcmp(text, fp, fl) == 0 && !memchr(text + fl, '\0', n - fl) &&
        strncmp(text + fl, "gcc ", 4) == 0 && text[n - 1] == '\n') {
        memcpy(out, text + fl, n - fl + 1);
        free(text);
        return 0;
    }
    free(text);
    if (toolchain_probe(out, len, err, errlen) < 0)
        return -1;
    size_t ol = strlen(out);
    if (have_fp && (text = malloc(fl + ol + 1))) {
        memcpy(text, fp, fl);
        memcpy(text + fl, out, ol + 1);
        if (fs_write_atomic(path, text, fl + ol, 0600) < 0) {
            /* the next judge_open probes again: slower, never wrong */
        }
        free(text);
    }
    return 0;
}
