"""The compile guard: what the compiler may not open.

A C++ source can make g++ read any path: ``#include "/dev/stdout"`` (its own output pipe:
it blocks for ever at no CPU cost), ``#include "/dev/zero"`` (endless), ``/proc/...``,
the same through ``#include_next``, a macro, ``__has_include`` or ``asm(".incbin ...")``
(read by ``as``).  A textual check of the source cannot see through macros, so the guard
sits where the file is opened: a small shared object preloaded (``LD_PRELOAD``) into g++
and every program it runs (cc1plus, as, collect2, ld), built from ``SOURCE`` when the
image is built (``build``).  It refuses any open of

- a path under ``/dev`` or ``/proc``, but ``/dev/null``: lexically (``..`` resolved
  against the working directory, no link followed) or once every link is followed;
- anything that is not a regular file or a folder (a device, a FIFO, a socket).

It refuses as if the path did not exist (ENOENT: ``__has_include`` is then false) and
names the path on stderr after ``MARK``; a compile that fails after a refusal is a
compile error (CE) whose text names the path (``refused``).  The guard is no sandbox of
its own (the compiler runs under uid P like a test): it turns a hang, or a read of
something a judge never compiles, into a clear compile error.
"""

import os
import subprocess

GUARD = "/opt/neocoder/lib/compile_guard.so"
MARK = "neocoder-refused: "

SOURCE = r'''
#define _GNU_SOURCE
#include <dlfcn.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

static int under(const char *path, const char *root) {
    size_t n = strlen(root);
    return strncmp(path, root, n) == 0 && (path[n] == '/' || path[n] == 0);
}

static int closed_root(const char *path) {
    return strcmp(path, "/dev/null") != 0 && (under(path, "/dev") || under(path, "/proc"));
}

/* path made absolute against the working directory, "." and ".." resolved, no link followed */
static void lexical(const char *path, char *out, size_t size) {
    char buf[2 * PATH_MAX + 2], cwd[PATH_MAX], *save, *part;
    size_t len = 0;
    if (path[0] == '/' || !getcwd(cwd, sizeof cwd)) snprintf(buf, sizeof buf, "/%s", path);
    else snprintf(buf, sizeof buf, "%s/%s", cwd, path);
    out[0] = 0;
    for (part = strtok_r(buf, "/", &save); part; part = strtok_r(NULL, "/", &save)) {
        if (strcmp(part, ".") == 0) continue;
        if (strcmp(part, "..") == 0) {
            while (len > 0 && out[len - 1] != '/') len--;
            if (len > 0) len--;
            out[len] = 0;
            continue;
        }
        if (len + strlen(part) + 2 >= size) break;
        out[len++] = '/';
        strcpy(out + len, part);
        len += strlen(part);
    }
    if (len == 0) strcpy(out, "/");
}

static int refused(int dirfd, const char *path) {
    char flat[PATH_MAX], real[PATH_MAX], msg[PATH_MAX + 64];
    struct stat st;
    int bad = 0, n;
    if (!path) return 0;
    if (path[0] == '/' || dirfd == AT_FDCWD) {
        lexical(path, flat, sizeof flat);
        bad = closed_root(flat) || (realpath(path, real) && closed_root(real));
        if (!bad && strcmp(flat, "/dev/null") == 0) return 0;
    }
    if (!bad && fstatat(dirfd, path, &st, 0) == 0 && !S_ISREG(st.st_mode) && !S_ISDIR(st.st_mode)) bad = 1;
    if (!bad) return 0;
    n = snprintf(msg, sizeof msg, "NEOCODER_MARK%s\n", path);
    if (n > 0) { ssize_t w = write(2, msg, (size_t)n < sizeof msg ? (size_t)n : sizeof msg - 1); (void)w; }
    errno = ENOENT;
    return 1;
}

#define MODE(flags) mode_t mode = 0; \
    if ((flags) & (O_CREAT | O_TMPFILE)) { va_list a; va_start(a, flags); mode = va_arg(a, mode_t); va_end(a); }
#define NEXT(type, name) static type next; if (!next) next = (type)dlsym(RTLD_NEXT, name)

typedef int (*open_f)(const char *, int, ...);
typedef int (*openat_f)(int, const char *, int, ...);
typedef FILE *(*fopen_f)(const char *, const char *);
typedef FILE *(*freopen_f)(const char *, const char *, FILE *);

int open(const char *p, int flags, ...) { MODE(flags) NEXT(open_f, "open");
    return refused(AT_FDCWD, p) ? -1 : next(p, flags, mode); }
int open64(const char *p, int flags, ...) { MODE(flags) NEXT(open_f, "open64");
    return refused(AT_FDCWD, p) ? -1 : next(p, flags, mode); }
int openat(int d, const char *p, int flags, ...) { MODE(flags) NEXT(openat_f, "openat");
    return refused(d, p) ? -1 : next(d, p, flags, mode); }
int openat64(int d, const char *p, int flags, ...) { MODE(flags) NEXT(openat_f, "openat64");
    return refused(d, p) ? -1 : next(d, p, flags, mode); }
int __open_2(const char *p, int flags) { NEXT(open_f, "__open_2");
    return refused(AT_FDCWD, p) ? -1 : next(p, flags); }
int __open64_2(const char *p, int flags) { NEXT(open_f, "__open64_2");
    return refused(AT_FDCWD, p) ? -1 : next(p, flags); }
int __openat_2(int d, const char *p, int flags) { NEXT(openat_f, "__openat_2");
    return refused(d, p) ? -1 : next(d, p, flags); }
int __openat64_2(int d, const char *p, int flags) { NEXT(openat_f, "__openat64_2");
    return refused(d, p) ? -1 : next(d, p, flags); }
FILE *fopen(const char *p, const char *m) { NEXT(fopen_f, "fopen");
    return refused(AT_FDCWD, p) ? NULL : next(p, m); }
FILE *fopen64(const char *p, const char *m) { NEXT(fopen_f, "fopen64");
    return refused(AT_FDCWD, p) ? NULL : next(p, m); }
FILE *freopen(const char *p, const char *m, FILE *f) { NEXT(freopen_f, "freopen");
    return refused(AT_FDCWD, p) ? NULL : next(p, m, f); }
FILE *freopen64(const char *p, const char *m, FILE *f) { NEXT(freopen_f, "freopen64");
    return refused(AT_FDCWD, p) ? NULL : next(p, m, f); }
'''.replace("NEOCODER_MARK", MARK)


def build(compiler="/usr/bin/g++", target=GUARD):
    """Compile SOURCE into the shared object ``target`` (at image build, as root).  Raises
    CalledProcessError if the compiler fails."""
    os.makedirs(os.path.dirname(target), exist_ok=True)
    subprocess.run([compiler, "-x", "c", "-shared", "-fPIC", "-O2", "-Wall", "-o", target, "-", "-ldl"],
                   input=SOURCE, text=True, check=True)


def environment(base):
    """``base`` (an environment dict) with the guard preloaded, where the image has it."""
    return dict(base, LD_PRELOAD=GUARD) if os.path.exists(GUARD) else dict(base)


def refused(diagnostics):
    """The paths the guard refused, in order, from the compiler's stderr text ([] if none)."""
    found = []
    for line in diagnostics.splitlines():
        if line.startswith(MARK):
            path = line[len(MARK):]
            if path not in found:
                found.append(path)
    return found
