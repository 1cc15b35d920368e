"""Privileges: who the runner is, and what it may still do.

Docker: the container's only capabilities are CAP_KILL, CAP_SETUID and CAP_SETGID.
The runner is started as root and at once becomes its own uid R keeping just those
three (``become_runner``); every test process runs under a second uid P with no
capability at all (``child.drop_to``, verified).  A program can therefore neither
signal nor ptrace the runner, the fork server or what keeps the container alive.

Process backend (no Docker): the runner is PID 1 of fresh namespaces
(``enter_process_sandbox``): private scratch mounts, then no capability at all.
"""

import ctypes
import os

from . import child
from .scratch import SCRATCH_ROOTS

KEPT_CAPABILITIES = (1 << child.CAP_KILL) | (1 << child.CAP_SETGID) | (1 << child.CAP_SETUID)
SETID_CAPABILITIES = (1 << child.CAP_SETGID) | (1 << child.CAP_SETUID)


def become_runner(uid):
    """Docker: from root (with CAP_KILL, CAP_SETUID, CAP_SETGID) to ``uid`` keeping those
    three and nothing else, non-dumpable; raises OSError if that is not what we hold."""
    libc = ctypes.CDLL(None, use_errno=True)
    if os.getuid() != 0:
        raise OSError("the runner must start as root in its container to separate uids")
    libc.prctl(8, 1, 0, 0, 0)  # PR_SET_KEEPCAPS: keep the permitted set across setresuid
    os.setgroups([])
    os.setresgid(uid, uid, uid)
    os.setresuid(uid, uid, uid)
    libc.prctl(8, 0, 0, 0, 0)
    child.set_capabilities(KEPT_CAPABILITIES, KEPT_CAPABILITIES, 0)
    caps = child.capabilities()
    if caps["CapEff"] != KEPT_CAPABILITIES or caps["CapPrm"] != KEPT_CAPABILITIES or caps["CapInh"]:
        raise OSError(f"the runner holds {caps}, not exactly CAP_KILL, CAP_SETUID and CAP_SETGID")


def set_non_dumpable():
    """PR_SET_DUMPABLE = 0: no program can ptrace us or read our /proc files."""
    try:
        ctypes.CDLL(None, use_errno=True).prctl(4, 0, 0, 0, 0)
    except (OSError, AttributeError):
        pass


def enter_process_sandbox(tmpfs_mb):
    """Process backend (no Docker): we are PID 1 of fresh user, PID, mount and
    network and IPC namespaces (``unshare``).  Mount private tmpfs on /tmp and /dev/shm
    and our IPC namespace's queues on /dev/mqueue, then give up every capability, for
    us and for everything we start.
    """
    libc = ctypes.CDLL(None, use_errno=True)
    for target in SCRATCH_ROOTS:
        if target == "/dev/mqueue":  # the queues of our own IPC namespace (unshare --ipc)
            if os.path.isdir(target) and libc.mount(b"mqueue", target.encode(), b"mqueue", 0x2 | 0x4 | 0x8, None) != 0:
                raise OSError(ctypes.get_errno(), f"mounting a private mqueue on {target} failed")
        elif libc.mount(b"tmpfs", target.encode(), b"tmpfs", 0x2 | 0x4,  # MS_NOSUID | MS_NODEV
                        f"size={tmpfs_mb}m,mode=1777".encode()) != 0:
            raise OSError(ctypes.get_errno(), f"mounting a private tmpfs on {target} failed")
    for cap in range(64):  # PR_CAPBSET_DROP: no capability survives an exec
        libc.prctl(24, cap, 0, 0, 0)
    libc.prctl(38, 1, 0, 0, 0)  # PR_SET_NO_NEW_PRIVS
    child.set_capabilities(0, 0, 0)

