"""A private Redis Cluster for tests: N masters from the system's ``redis-server`` in cluster
mode (AOF on, ``appendfsync always``), each on a free port with a free cluster-bus port and
its own directory. Slots are split evenly with ``CLUSTER ADDSLOTSRANGE`` and the nodes meet
directly (faster than ``redis-cli --cluster create``, which sleeps between its steps)."""

from __future__ import annotations

import socket
import time
from pathlib import Path

from server.ops.redis_process import RedisProcess, free_port

SLOTS = 16384


def command(port: int, *args: str | int, timeout: float = 2.0) -> bytes:
    """One command over a plain socket (RESP), the raw reply."""
    parts = [str(a).encode() for a in args]
    frame = b"*%d\r\n" % len(parts) + b"".join(b"$%d\r\n%s\r\n" % (len(p), p) for p in parts)
    with socket.create_connection(("127.0.0.1", port), timeout) as s:
        s.sendall(frame)
        reply = b""
        while not reply.endswith(b"\r\n") or _incomplete(reply):
            chunk = s.recv(65536)
            if not chunk:
                break
            reply += chunk
        return reply


def _incomplete(reply: bytes) -> bool:
    if reply.startswith(b"$"):
        size = int(reply[1 : reply.index(b"\r\n")])
        return size >= 0 and len(reply) < reply.index(b"\r\n") + 2 + size + 2
    return False


def info_field(port: int, section: str, name: str) -> str | None:
    """One field of ``CLUSTER INFO`` (section ``cluster``) or ``INFO <section>``."""
    ask = ("CLUSTER", "INFO") if section == "cluster" else ("INFO", section)
    raw = command(port, *ask)
    for line in raw.decode(errors="replace").splitlines():
        if line.startswith(f"{name}:"):
            return line.split(":", 1)[1].strip()
    return None


class ClusterNode(RedisProcess):
    """One master of the test cluster (its cluster state in ``nodes.conf`` in its directory,
    so a restart on the same port rejoins with the same id and slots)."""

    def __init__(self, data_dir: Path) -> None:
        self.bus_port = free_port()
        super().__init__(
            data_dir,
            extra_args=(
                "--cluster-enabled", "yes",
                "--cluster-config-file", "nodes.conf",
                "--cluster-node-timeout", "1000",
                "--cluster-port", str(self.bus_port),
                # A restarted master serves its own slots again at once; the others never
                # stop serving theirs while one is away.
                "--cluster-require-full-coverage", "no",
                "--cluster-allow-pubsubshard-when-down", "yes",
            ),
        )  # fmt: skip

    def node_id(self) -> str:
        return command(self.port, "CLUSTER", "MYID").split(b"\r\n")[1].decode()


class TestCluster:
    """``n`` masters, no replicas: :attr:`url` names the first (any node would do)."""

    __test__ = False  # not a pytest test class

    def __init__(self, base: Path, n: int = 3) -> None:
        self.nodes = [ClusterNode(base / f"node{i}") for i in range(n)]

    @property
    def url(self) -> str:
        return self.nodes[0].url

    @property
    def urls(self) -> list[str]:
        return [node.url for node in self.nodes]

    def start(self, timeout: float = 20.0) -> None:
        for node in self.nodes:
            node.start()
        per = SLOTS // len(self.nodes)
        for i, node in enumerate(self.nodes):
            first = i * per
            last = SLOTS - 1 if i == len(self.nodes) - 1 else first + per - 1
            reply = command(node.port, "CLUSTER", "ADDSLOTSRANGE", first, last)
            assert reply.startswith(b"+OK"), reply
        for node in self.nodes[1:]:
            reply = command(node.port, "CLUSTER", "MEET", "127.0.0.1", self.nodes[0].port,
                            self.nodes[0].bus_port)  # fmt: skip
            assert reply.startswith(b"+OK"), reply
        self.wait_ok(timeout)

    def wait_ok(self, timeout: float = 20.0) -> None:
        """Until every node says the cluster is ok and knows every other node."""
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            try:
                if all(
                    info_field(n.port, "cluster", "cluster_state") == "ok"
                    and info_field(n.port, "cluster", "cluster_known_nodes") == str(len(self.nodes))
                    for n in self.nodes
                ):
                    return
            except OSError:
                pass
            time.sleep(0.05)
        raise TimeoutError("the test cluster did not come up")

    def owner(self, key: str) -> ClusterNode:
        """The master that holds ``key``'s slot."""
        slot = int(command(self.nodes[0].port, "CLUSTER", "KEYSLOT", key).strip()[1:])
        per = SLOTS // len(self.nodes)
        return self.nodes[min(slot // per, len(self.nodes) - 1)]

    def stop(self) -> None:
        for node in self.nodes:
            node.stop()
