"""The sandbox containers' seccomp profile: ours, a deny-list.

Passing a profile replaces Docker's default one, so this profile is the whole syscall
filter.  Its form: every syscall is allowed (``SCMP_ACT_ALLOW``) except the ones listed
here, which fail with EPERM (``clone3`` with ENOSYS, below).  Why allow-by-default is
enough for a judge:

- The container holds no capability but CAP_KILL, CAP_SETUID and CAP_SETGID (the runner's;
  programs run with none) under ``no-new-privileges``, so everything Docker's default
  profile withholds because it needs a capability (mounting, modules, kexec, reboot,
  swap, clocks, raw I/O, chroot, host names, ``open_by_handle_at``, ...) is refused by
  the kernel's own capability checks anyway.  It is listed here all the same
  (``PRIVILEGED``), so a capability added back by mistake still opens none of it.
- What needs no capability and a judge never uses is denied outright (``UNPRIVILEGED``):
  io_uring (Docker 20.10's default profile allows it), the kernel keyring, eBPF,
  userfaultfd, perf events, new namespaces (a user namespace would hand a program
  CAP_SYS_ADMIN over its own mounts), tracing other processes.
- What the runner, the fork server, Python and g++ use stays allowed: fork (``clone``
  without namespace flags, ``vfork``), execve, setresuid/setresgid/setgroups, capset,
  prctl, prlimit/setrlimit, memfd_create and sealing, SCM_RIGHTS sockets, the cgroup
  files, System V IPC clean-up, kill.  Checked by the whole regression corpus (Python
  and C++) passing under this profile.

What allow-by-default gives up: a syscall newer than this list is allowed until it is
listed (Docker's allow-list would refuse it).  ``personality`` stays allowed (glibc and
``setarch`` query it; a program that turns off its own address randomisation gains
nothing).  The arch map covers x86-64 with its i386 and x32 entry points and arm64 with
arm, so ``int 0x80`` cannot reach io_uring by its 32-bit number.
"""

from __future__ import annotations

import json

EPERM, ENOSYS = 1, 38

UNPRIVILEGED = (
    "io_uring_setup", "io_uring_enter", "io_uring_register",  # a second syscall path, a frequent kernel bug source
    "keyctl", "add_key", "request_key",  # the kernel keyring is not namespaced
    "bpf", "perf_event_open", "userfaultfd",  # eBPF, perf events, page-fault handling in user space
    "unshare", "setns",  # new or other namespaces (see also clone's flags below)
    "ptrace", "process_vm_readv", "process_vm_writev", "process_madvise", "kcmp", "pidfd_getfd",  # other processes
    "mbind", "set_mempolicy", "get_mempolicy", "migrate_pages", "move_pages",  # NUMA placement
    "name_to_handle_at", "lookup_dcookie", "uselib", "ustat", "sysfs", "_sysctl", "syslog", "vhangup",
    "vm86", "vm86old", "modify_ldt",
)
PRIVILEGED = (
    "mount", "umount", "umount2", "pivot_root", "chroot", "move_mount", "open_tree", "fsopen", "fsconfig",
    "fsmount", "fspick", "mount_setattr", "quotactl", "quotactl_fd", "swapon", "swapoff", "acct",
    "kexec_load", "kexec_file_load", "reboot", "init_module", "finit_module", "delete_module",
    "create_module", "query_module", "get_kernel_syms", "nfsservctl",
    "settimeofday", "clock_settime", "clock_adjtime", "stime", "sethostname", "setdomainname",
    "iopl", "ioperm", "open_by_handle_at", "fanotify_init",
)
# clone's namespace flags: CLONE_NEWNS, NEWCGROUP, NEWUTS, NEWIPC, NEWUSER, NEWPID, NEWNET
CLONE_NAMESPACE_FLAGS = (0x00020000, 0x02000000, 0x04000000, 0x08000000, 0x10000000, 0x20000000, 0x40000000)
ARCH_MAP = [
    {"architecture": "SCMP_ARCH_X86_64", "subArchitectures": ["SCMP_ARCH_X86", "SCMP_ARCH_X32"]},
    {"architecture": "SCMP_ARCH_AARCH64", "subArchitectures": ["SCMP_ARCH_ARM"]},
]


def profile() -> dict:
    """The profile as Docker's seccomp JSON (a dict): allow by default, EPERM for every
    name in UNPRIVILEGED and PRIVILEGED and for ``clone`` with any namespace flag, ENOSYS
    for ``clone3`` (its flags sit in memory a filter cannot read; glibc then falls back to
    ``clone``, as under Docker's default profile)."""
    def deny(names, errno=EPERM, args=()):
        return {"names": list(names), "action": "SCMP_ACT_ERRNO", "errnoRet": errno, "args": list(args)}

    clone_rules = [deny(["clone"], args=[{"index": 0, "value": flag, "valueTwo": flag, "op": "SCMP_CMP_MASKED_EQ"}])
                   for flag in CLONE_NAMESPACE_FLAGS]
    return {"defaultAction": "SCMP_ACT_ALLOW", "archMap": ARCH_MAP,
            "syscalls": [deny(UNPRIVILEGED + PRIVILEGED), deny(["clone3"], ENOSYS), *clone_rules]}


def security_opt() -> str:
    """The ``--security-opt`` value that applies ``profile()``: ``seccomp=<its JSON>``."""
    return "seccomp=" + json.dumps(profile(), separators=(",", ":"))
