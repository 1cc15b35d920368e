"""Connecting this process to a Ray cluster, once, shared by every RaySandbox in it.

``connect`` joins the cluster at an address (checked to be reachable first, so a wrong
address fails in seconds, not minutes), or the one ``ray start`` left on this machine,
or starts a local single-node Ray that declares the sandbox resource, so one machine
with Docker works as is.  ``disconnect`` shuts Ray down when the last user is gone and
this module started the connection.
"""

from __future__ import annotations

import logging
import os
import socket
import threading

NAMESPACE = "neocoder"
CONNECT_TIMEOUT = 10.0  # seconds to reach HOST:PORT before ray.init is tried
LOOPBACK_ENV = "RAY_ENABLE_WINDOWS_OR_OSX_CLUSTER"  # "0": Ray keeps 127.0.0.1 as this node's address

_conn_lock = threading.Lock()
_conn_users = 0
_conn_ours = False


def loopback(address: str | None) -> bool:
    """True for ``127.x.x.x:PORT``, ``localhost:PORT`` and ``[::1]:PORT``."""
    host = (address or "").rpartition(":")[0].strip("[]")
    return host == "localhost" or host == "::1" or host.startswith("127.")


def _reachable(address: str) -> str | None:
    """None if a TCP connection to ``HOST:PORT`` opens within CONNECT_TIMEOUT, else why not."""
    host, _, port = address.rpartition(":")
    if not host or not port.isdigit():
        return None  # not HOST:PORT (e.g. ray://...): left to ray.init
    try:
        with socket.create_connection((host.strip("[]"), int(port)), timeout=CONNECT_TIMEOUT):
            return None
    except OSError as exc:
        return str(exc)


def connect(ray, address: str | None, resource: str) -> str | None:
    """Connect this process to Ray once (shared by every RaySandbox in it); None, or a
    message saying why it cannot.  ``address`` None: ``$RAY_ADDRESS`` or the cluster
    ``ray start`` left on this machine; if there is none, a local single-node Ray is
    started that declares ``resource`` (so one machine with Docker works as is)."""
    global _conn_users, _conn_ours
    with _conn_lock:
        if not ray.is_initialized():
            quiet = {"log_to_driver": False, "logging_level": logging.WARNING, "namespace": NAMESPACE}
            try:
                if address and address != "auto":
                    problem = _reachable(address)
                    if problem:
                        return (f"cannot reach the Ray cluster at {address} ({problem}): start its head with "
                                f"`ray start --head --resources '{{\"{resource}\": 1}}'` and give the address it "
                                "prints (docs/scale-out.md)")
                    from ray._private import ray_constants
                    if loopback(address) and getattr(ray_constants, "ENABLE_RAY_CLUSTER", False):
                        return (f"Ray was imported before neocoder could keep the loopback address {address} "
                                f"on loopback (Ray would connect to this machine's outside address instead): "
                                f"set {LOOPBACK_ENV}=0 in the environment, or give the address the cluster "
                                "was started on")
                    ray.init(address=address, **quiet)
                elif address == "auto" or os.environ.get("RAY_ADDRESS"):
                    ray.init(address=address, **quiet)
                else:  # a new local cluster: ray.init itself turns usage stats off for it
                    try:
                        ray.init(resources={resource: 1}, include_dashboard=False, **quiet)
                    except ValueError as exc:  # a cluster started by `ray start` was found: join it as it is
                        if "existing cluster" not in str(exc):
                            raise
                        ray.init(**quiet)
            except Exception as exc:  # noqa: BLE001 - ray.init raises ConnectionError, RuntimeError, ValueError...
                return (f"cannot connect to the Ray cluster at {address or 'auto'} ({type(exc).__name__}: {exc}); "
                        "start one with `ray start --head` (docs/scale-out.md)")
            _conn_ours = True
        _conn_users += 1
        return None


def disconnect(ray) -> None:
    """One user of the connection is done; the last one shuts down the Ray this module started."""
    global _conn_users, _conn_ours
    with _conn_lock:
        _conn_users -= 1
        if _conn_users <= 0 and _conn_ours:
            ray.shutdown()
            _conn_users, _conn_ours = 0, False


def no_node_message(resource: str, address: str | None) -> str:
    """What to do when no alive node of the cluster declares ``resource``."""
    return (f"no node of the Ray cluster at {address or 'auto'} offers the resource {resource!r}, so nothing "
            f"can judge: on each machine with Docker and the sandbox image (`neocoder sandbox build`) run "
            f"`ray start --address HEAD:6379 --resources '{{\"{resource}\": 1}}'` (or `ray start --head "
            f"--resources ...` on the head); see docs/scale-out.md")
