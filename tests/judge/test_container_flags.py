"""The sandbox container's hardening, seen from programs judged in it (the real engine).

Our seccomp profile (neocoder/judge/seccomp.py) makes io_uring, new user namespaces, the
keyring and ptrace fail with EPERM, from Python and from C++, through every x86 entry
point (64-bit, ``int 0x80``, x32), while ordinary programs (threads, fork) stay AC; the
host's resolver files are not in the sandbox: /etc/resolv.conf and /etc/hosts read empty.
Each program prints what it found and the expected output is the hardened answer, so a
guarantee that breaks turns AC into WA with the finding in ``stdout_head``.
"""

import json
import platform

import pytest

from neocoder.judge import Limits, seccomp

pytestmark = pytest.mark.docker
LIMITS = Limits.for_cpu(2)
NO_INPUT = ""

PY_DENIED = """
import ctypes, errno
libc = ctypes.CDLL(None, use_errno=True)
libc.syscall.restype = ctypes.c_long

def call(nr, *args):
    r = libc.syscall(ctypes.c_long(nr), *[ctypes.c_long(a) if isinstance(a, int) else a for a in args])
    return "ok" if r >= 0 else errno.errorcode[ctypes.get_errno()]

params = ctypes.create_string_buffer(120)
print("io_uring_setup", call(425, 8, params))
print("io_uring_enter", call(426, -1, 0, 0, 0, 0, 0))
print("io_uring_register", call(427, -1, 0, 0, 0))
print("keyctl", call(250, 0, -3, 0))
print("unshare_newuser", call(272, 0x10000000))
print("ptrace_traceme", call(101, 0, 0, 0, 0))
"""
PY_EXPECTED = "".join(f"{name} EPERM\n" for name in (
    "io_uring_setup", "io_uring_enter", "io_uring_register", "keyctl", "unshare_newuser", "ptrace_traceme"))

CPP_DENIED = r"""
#include <bits/stdc++.h>
#include <unistd.h>
#include <sched.h>
#include <sys/syscall.h>
#include <sys/wait.h>
using namespace std;
static string name(long r, int e) { return r >= 0 ? string("ok") : string(strerrorname_np(e)); }
static long int80(long nr, long a, long b) {  // the i386 entry point: io_uring_setup is 425 there too
    long ret;
    asm volatile("int $0x80" : "=a"(ret) : "a"(nr), "b"(a), "c"(b) : "memory", "r8", "r9", "r10", "r11");
    return ret;
}
int main() {
    static char params[120];
    long pid = syscall(SYS_clone, CLONE_NEWUSER | SIGCHLD, 0, 0, 0, 0);  // before unshare: nesting needs a uid map
    if (pid == 0) _exit(0);
    if (pid > 0) waitpid(pid, 0, 0);
    cout << "clone_newuser " << name(pid, errno) << "\n";
    long r = syscall(425, 8, params);
    cout << "io_uring_setup " << name(r, errno) << "\n";
    r = int80(425, 8, 0);
    cout << "io_uring_setup_i386 " << name(r, int(-r)) << "\n";
    r = syscall(425 | 0x40000000, 8, params);
    cout << "io_uring_setup_x32 " << name(r, errno) << "\n";
    r = syscall(426, -1, 0, 0, 0, 0, 0);
    cout << "io_uring_enter " << name(r, errno) << "\n";
    r = syscall(427, -1, 0, 0, 0);
    cout << "io_uring_register " << name(r, errno) << "\n";
    r = unshare(CLONE_NEWUSER);
    cout << "unshare_newuser " << name(r, errno) << "\n";
}
"""
CPP_EXPECTED = "".join(f"{name} EPERM\n" for name in (
    "clone_newuser", "io_uring_setup", "io_uring_setup_i386", "io_uring_setup_x32", "io_uring_enter",
    "io_uring_register", "unshare_newuser"))

PY_ORDINARY = """
import os, threading
a, b = map(int, input().split())
out = []
t = threading.Thread(target=lambda: out.append(a + b))
t.start(); t.join()
pid = os.fork()
if pid == 0:
    os._exit(7)
_, status = os.waitpid(pid, 0)
print(out[0], os.waitstatus_to_exitcode(status))
"""
CPP_ORDINARY = r"""
#include <bits/stdc++.h>
#include <unistd.h>
#include <sys/wait.h>
using namespace std;
int main() {
    long a, b; cin >> a >> b;
    long sum = 0;
    thread t([&] { sum = a + b; }); t.join();
    pid_t pid = fork();
    if (pid == 0) _exit(7);
    int status = 0; waitpid(pid, &status, 0);
    cout << sum << " " << WEXITSTATUS(status) << endl;
}
"""
ORDINARY_TEST = [{"input": "1 2\n", "output": "3 7\n"}]

PY_RESOLVER = """
for path in ("/etc/resolv.conf", "/etc/hosts"):
    with open(path, "rb") as f:
        print(path, len(f.read()))
try:
    open("/etc/resolv.conf", "w").write("nameserver 1.1.1.1")
except OSError:
    pass
print("after a write", len(open("/etc/resolv.conf", "rb").read()))
"""
RESOLVER_EXPECTED = "/etc/resolv.conf 0\n/etc/hosts 0\nafter a write 0\n"


def _judged(sandbox, source, expected, language="python", tests=None):
    result = sandbox.run(source, tests or [{"input": NO_INPUT, "output": expected}], LIMITS, language=language)
    return result.verdicts, [(t.detail, t.stdout_head) for t in result.tests]


def test_io_uring_namespaces_keyring_and_ptrace_fail_with_eperm_from_python(sandbox):
    verdicts, seen = _judged(sandbox, PY_DENIED, PY_EXPECTED)
    assert verdicts == ["AC"], seen


@pytest.mark.skipif(platform.machine() != "x86_64", reason="the program uses x86 entry points")
def test_io_uring_and_new_user_namespaces_fail_with_eperm_from_cpp_by_every_entry_point(sandbox):
    verdicts, seen = _judged(sandbox, CPP_DENIED, CPP_EXPECTED, language="cpp")
    assert verdicts == ["AC"], seen


@pytest.mark.parametrize("language,source", [("python", PY_ORDINARY), ("cpp", CPP_ORDINARY)])
def test_ordinary_programs_with_threads_and_fork_stay_accepted(sandbox, language, source):
    verdicts, seen = _judged(sandbox, source, None, language=language, tests=ORDINARY_TEST)
    assert verdicts == ["AC"], seen


def test_the_sandbox_has_empty_resolver_files_and_no_write_reaches_them(sandbox):
    verdicts, seen = _judged(sandbox, PY_RESOLVER, RESOLVER_EXPECTED)
    assert verdicts == ["AC"], seen


def test_the_profile_replaces_dockers_with_allow_by_default_and_our_denials():
    """The profile's shape (no engine): what the docs promise, one item each."""
    p = seccomp.profile()
    assert p["defaultAction"] == "SCMP_ACT_ALLOW"
    denied = {n for rule in p["syscalls"] if not rule["args"] and rule["errnoRet"] == seccomp.EPERM
              for n in rule["names"]}
    assert {"io_uring_setup", "io_uring_enter", "io_uring_register", "keyctl", "add_key", "request_key", "bpf",
            "userfaultfd", "perf_event_open", "mount", "umount2", "unshare", "setns", "kexec_load", "ptrace"} <= denied
    assert not denied & {"clone", "fork", "vfork", "execve", "setresuid", "setresgid", "capset", "prctl", "prlimit64",
                         "memfd_create", "kill", "personality"}
    clone = [r for r in p["syscalls"] if r["names"] == ["clone"]]
    assert sorted(r["args"][0]["value"] for r in clone) == sorted(seccomp.CLONE_NAMESPACE_FLAGS)
    assert json.loads(seccomp.security_opt().removeprefix("seccomp=")) == p
