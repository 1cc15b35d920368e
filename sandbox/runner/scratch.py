"""What a program leaves behind: its processes, its files, its System V IPC objects.

The runner finds the program's processes by uid in /proc and kills them after every
test; after every submission a helper under the program's uid deletes every file it
owns in the scratch folders (``wipe_scratch``), and the runner verifies that no
process and no file of that uid is left (``leftovers``).  If that check fails the
runner says so and exits, and the host throws the worker away.
"""

import ctypes
import json
import os
import selectors
import signal
import stat
import time

from . import child

SCRATCH_ROOTS = ("/tmp", "/dev/shm", "/dev/mqueue")  # where a program can leave files (POSIX queues too)
SYSV_IPC = ("shm", "sem", "msg")  # /proc/sysvipc/*: objects that outlive their process

def program_processes(uid, exclude=()):
    """Pids of live processes with ``uid`` among their uids (zombies and ``exclude`` left out).

    Read from /proc/<pid>/status, which every process may read, so a program that
    made itself non-dumpable is found too.
    """
    found, wanted = [], str(uid)
    for name in os.listdir("/proc"):
        if not name.isdigit() or int(name) in exclude:
            continue
        try:
            with open(f"/proc/{name}/status") as f:
                text = f.read()
        except OSError:
            continue
        state = text.find("\nState:\t")
        uids = text.find("\nUid:\t")
        if state < 0 or uids < 0 or text[state + 8] in "ZX":
            continue
        if wanted in text[uids + 6:text.find("\n", uids + 1)].split():
            found.append(int(name))
    return found


def reap():
    """Collect every child that has ended (zombies), without waiting."""
    while True:
        try:
            pid, _ = os.waitpid(-1, os.WNOHANG)
        except ChildProcessError:
            return
        if pid == 0:
            return


def _wipe(path, uid):
    """Delete what ``uid`` owns below ``path`` (never following symlinks).

    Returns a list of problems (entries left, or not ours where only ours may be).
    """
    problems = []
    try:
        entries = list(os.scandir(path))
    except OSError as exc:
        return [f"{path}: {exc}"]
    for entry in entries:
        full = entry.path
        try:
            st = os.lstat(full)
        except FileNotFoundError:
            continue
        if st.st_uid != uid:
            problems.append(f"{full} owned by uid {st.st_uid}")
            continue
        try:
            if stat.S_ISDIR(st.st_mode):
                os.chmod(full, 0o700)
                problems += _wipe(full, uid)
                os.rmdir(full)
            else:
                os.unlink(full)
        except OSError as exc:
            problems.append(f"{full}: {exc}")
    return problems


def ipc_objects(uid):
    """System V IPC objects (kind, id) that ``uid`` owns or created: they outlive processes."""
    found = []
    for kind in SYSV_IPC:
        try:
            with open(f"/proc/sysvipc/{kind}") as f:
                header, *rows = [line.split() for line in f]
        except (OSError, ValueError):
            continue
        column = {name: i for i, name in enumerate(header)}
        ident = column.get("shmid", column.get("semid", column.get("msqid")))
        for row in rows:
            if str(uid) in (row[column["uid"]], row[column["cuid"]]):
                found.append((kind, int(row[ident])))
    return found


def _remove_ipc(objects):
    """IPC_RMID each (kind, id); returns the problems."""
    libc, problems = ctypes.CDLL(None, use_errno=True), []
    for kind, ident in objects:
        if kind == "sem":
            rc = libc.semctl(ident, 0, 0)
        else:
            rc = (libc.shmctl if kind == "shm" else libc.msgctl)(ident, 0, None)
        if rc != 0:
            problems.append(f"System V {kind} {ident}: errno {ctypes.get_errno()}")
    return problems


def leftovers(uid):
    """What ``uid`` has left that a later program could see: entries at the top of the
    scratch folders (or entries there of anyone else) and System V IPC objects."""
    found = []
    for root in SCRATCH_ROOTS:
        try:
            entries = list(os.scandir(root))
        except OSError:
            continue
        found += [e.path for e in entries]
    return found + [f"System V {kind} {ident}" for kind, ident in ipc_objects(uid)]


def wipe_scratch(uid):
    """Delete every file and System V IPC object of the program uid, in a helper process
    under that uid (``uid`` None: ours); returns the problems found (a list of str)."""
    read_end, write_end = os.pipe()
    pid = os.fork()
    if pid == 0:  # the helper: nothing of the program's uid is alive while it runs
        try:
            os.close(read_end)
            if uid is not None:
                child.drop_to(uid)
            problems = []
            for root in SCRATCH_ROOTS:
                if os.path.isdir(root):
                    problems += _wipe(root, os.getuid())
            problems += _remove_ipc(ipc_objects(os.getuid()))
            os.write(write_end, json.dumps(problems[:5]).encode())
        except BaseException as exc:
            os.write(write_end, json.dumps([f"wiping failed: {exc}"]).encode())
        finally:
            os._exit(0)
    os.close(write_end)
    chunks, deadline = [], time.monotonic() + 10
    with selectors.DefaultSelector() as sel:
        sel.register(read_end, selectors.EVENT_READ)
        while time.monotonic() < deadline and sel.select(max(0.0, deadline - time.monotonic())):
            data = os.read(read_end, 1 << 16)
            if not data:
                break
            chunks.append(data)
    os.close(read_end)
    try:
        os.kill(pid, signal.SIGKILL)
    except OSError:
        pass
    os.waitpid(pid, 0)
    try:
        return json.loads(b"".join(chunks))
    except ValueError:
        return ["the wipe helper did not report"]

