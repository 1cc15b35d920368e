"""How a test process starts: the fork server (spawn "fork") or a new interpreter (spawn "exec").

Starting an interpreter and importing costs about 20 ms per test.  With spawn "fork"
(Docker, the default) the runner starts ``child.py --fork-server`` once per worker:
it imports the common standard modules, compiles each submission once, and forks a
fresh child per test that takes on the program uid, the rlimits, its own session and
the test's stdin and pipes (passed as descriptors), then runs the program.  A child
never sees an earlier test's state: it is a new process each time, forked from a
parent that never runs program code.  Spawn "exec" (the old path, and the process
backend) starts ``python3 child.py --test`` per test instead (``ExecTest``).

Both kinds of test offer the same three methods to the watcher: ``poll``,
``server_cpu`` and ``fileno``.
"""

import ctypes
import fcntl
import json
import os
import resource
import socket
import subprocess
import sys

from . import child
from .privileges import SETID_CAPABILITIES

CHILD = os.path.join(os.path.dirname(os.path.abspath(__file__)), "child.py")


def memfd(data, name):
    """An anonymous file holding ``data``, sealed against any change, at offset 0."""
    fd = os.memfd_create(name, os.MFD_ALLOW_SEALING)
    try:
        view = memoryview(data)
        while view:
            view = view[os.write(fd, view):]
        fcntl.fcntl(fd, fcntl.F_ADD_SEALS, fcntl.F_SEAL_WRITE | fcntl.F_SEAL_SHRINK | fcntl.F_SEAL_GROW
                    | fcntl.F_SEAL_SEAL)
        os.lseek(fd, 0, os.SEEK_SET)
    except BaseException:
        os.close(fd)
        raise
    return fd


class ExecTest:
    """A test started as ``python3 child.py --test`` (the exec path)."""

    def __init__(self, proc):
        self.proc, self.pid = proc, proc.pid

    def poll(self):
        """(wait status, (utime, stime, maxrss KiB)) once it has ended, else None."""
        pid, status, usage = os.wait4(self.pid, os.WNOHANG)
        if not pid:
            return None
        self.proc.returncode = 0  # reaped here; keep Popen from waiting again
        return status, (usage.ru_utime, usage.ru_stime, usage.ru_maxrss)

    def server_cpu(self):
        return 0.0

    def fileno(self):
        return None


class ForkServer:
    """The runner's end of ``child.py --fork-server`` (one per worker and stack size)."""

    def __init__(self, uid, stack_bytes):
        self.uid, self.stack_bytes = uid, stack_bytes
        ours, theirs = socket.socketpair(socket.AF_UNIX, socket.SOCK_SEQPACKET)
        out_r, out_w = os.pipe()

        def preexec():  # in the server's process, before exec: its stack and its two capabilities
            resource.setrlimit(resource.RLIMIT_STACK, (stack_bytes, stack_bytes))
            if uid is not None:
                child.set_capabilities(SETID_CAPABILITIES, SETID_CAPABILITIES, SETID_CAPABILITIES)
                libc = ctypes.CDLL(None, use_errno=True)
                for cap in (child.CAP_SETUID, child.CAP_SETGID):
                    if libc.prctl(47, 2, cap, 0, 0) != 0:  # PR_CAP_AMBIENT_RAISE
                        raise OSError(ctypes.get_errno(), "raising an ambient capability failed")

        try:
            # stdin a seekable file and stdout/stderr pipes: the interpreter sets up its
            # standard streams as the exec path's test processes have them
            self.proc = subprocess.Popen(
                [sys.executable, *child.PYTHON_FLAGS, CHILD, "--fork-server", str(theirs.fileno())],
                stdin=subprocess.DEVNULL, stdout=out_w, stderr=out_w, pass_fds=[theirs.fileno()],
                env=dict(child.TEST_ENV), cwd="/", preexec_fn=preexec)
        finally:
            theirs.close()
            os.close(out_w)
        os.close(out_r)
        self.sock = ours
        self.cpu = 0.0  # the server's own CPU time at its last report
        self.loaded = None  # (program, entry) it has compiled

    def alive(self):
        return self.proc.poll() is None

    def request(self, message, fds=(), timeout=30.0):
        """Send a request; return the first reply (None if the server died or stalled)."""
        try:
            socket.send_fds(self.sock, [json.dumps(message).encode()], list(fds))
        except OSError:
            return None
        return self.reply(timeout)

    def reply(self, timeout):
        """The next reply, waiting up to ``timeout`` seconds (0: only if one is there)."""
        self.sock.settimeout(timeout if timeout > 0 else 0.0)
        try:
            data = self.sock.recv(1 << 16)
        except (BlockingIOError, socket.timeout, InterruptedError):
            return None
        except OSError:
            data = b""
        if not data:
            return {"lost": True}
        message = json.loads(data)
        if "cpu" in message:
            self.cpu = message["cpu"]
        return message

    def load(self, program, entry):
        """Compile ``program`` (bytes) in the server.  Returns (compile error, trouble):
        (None, None) when it is ready to fork tests of it."""
        fd = memfd(program, "solution.py")
        try:
            reply = self.request({"op": "load", "entry": entry}, [fd])
        finally:
            os.close(fd)
        if reply is None or reply.get("lost"):
            return None, "the fork server did not answer"
        if reply.get("error"):
            return reply["error"], None
        self.loaded = (program, entry)
        return None, None

    def close(self):
        try:
            self.sock.close()
        except OSError:
            pass
        if self.proc.poll() is None:
            self.proc.kill()
        try:
            self.proc.wait(timeout=5)
        except subprocess.TimeoutExpired:
            pass


class ForkedTest:
    """A test forked by the fork server: its status arrives on the server's socket."""

    def __init__(self, server, pid, cpu_before):
        self.server, self.pid, self.cpu_before = server, pid, cpu_before

    def poll(self):
        message = self.server.reply(0)
        if message is None:
            return None
        if message.get("lost") or "status" not in message:
            return "lost"
        return message["status"], (message["utime"], message["stime"], message["maxrss"])

    def server_cpu(self):
        """The fork server's CPU time spent on this test so far (the fork itself)."""
        return max(0.0, self.server.cpu - self.cpu_before)

    def fileno(self):
        return self.server.sock.fileno()

