"""nginx in front of server processes, configured from ``deploy/nginx.conf``: the proxy of
``docker-compose.yml``, with the replicas' addresses and the public port swapped for local
ones, so the tests exercise the deployment's own proxy settings."""

from __future__ import annotations

import os
import re
import shutil
import subprocess
from pathlib import Path

from harness.serverproc import ROOT, wait_healthy
from server.ops.redis_process import free_port

SITE = ROOT / "deploy" / "nginx.conf"


def nginx_binary() -> str:
    found = shutil.which("nginx") or (
        "/usr/sbin/nginx" if Path("/usr/sbin/nginx").exists() else None
    )
    if found is None:
        raise RuntimeError("nginx is not installed (make test installs Debian's nginx)")
    return found


def render_site(upstreams: list[int], port: int) -> str:
    """``deploy/nginx.conf`` with the replicas on local ``upstreams`` ports, served on ``port``."""
    site = SITE.read_text()
    servers = "".join(f"    server 127.0.0.1:{p} max_fails=1 fail_timeout=2s;\n" for p in upstreams)
    site, count = re.subn(
        r"(upstream fairgammon \{\n)(?:    server [^\n]*\n)+", r"\g<1>" + servers, site
    )
    assert count == 1, "deploy/nginx.conf: the upstream block was not found"
    site, count = re.subn(r"listen 80;", f"listen 127.0.0.1:{port};", site)
    assert count == 1, "deploy/nginx.conf: the listen line was not found"
    return site


class ProxyProcess:
    """One nginx master (no daemon) with its files in ``folder``."""

    def __init__(
        self, folder: Path, upstreams: list[int], edits: dict[str, str] | None = None
    ) -> None:
        """``edits``: exact lines of deploy/nginx.conf to replace (each must be there)."""
        self.folder = folder
        self.port = free_port()
        self.upstreams = upstreams
        self.edits = edits or {}
        self.process: subprocess.Popen[bytes] | None = None

    @property
    def base(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    @property
    def ws(self) -> str:
        return f"ws://127.0.0.1:{self.port}/ws"

    def start(self, timeout: float = 10.0) -> None:
        self.folder.mkdir(parents=True, exist_ok=True)
        self.folder.chmod(0o777)  # workers may run as an unprivileged user
        site = render_site(self.upstreams, self.port)
        for line, replacement in self.edits.items():
            assert line in site, f"deploy/nginx.conf has no line {line!r}"
            site = site.replace(line, replacement)
        (self.folder / "site.conf").write_text(site)
        user = "user root;\n" if os.geteuid() == 0 else ""
        temp = "".join(
            f"    {kind}_temp_path {self.folder / kind};\n"
            for kind in ("client_body", "proxy", "fastcgi", "uwsgi", "scgi")
        )
        (self.folder / "nginx.conf").write_text(
            f"{user}daemon off;\nworker_processes 1;\npid {self.folder / 'nginx.pid'};\n"
            f"error_log {self.folder / 'error.log'} warn;\n"
            "events { worker_connections 1024; }\n"
            f"http {{\n    access_log off;\n{temp}    include {self.folder / 'site.conf'};\n}}\n"
        )
        self.process = subprocess.Popen(
            [nginx_binary(), "-p", str(self.folder), "-c", str(self.folder / "nginx.conf")],
            stdout=subprocess.DEVNULL,
            stderr=subprocess.STDOUT,
        )
        wait_healthy(self.process, self.base, timeout, self.log)

    def log(self) -> str:
        path = self.folder / "error.log"
        return path.read_text()[-2000:] if path.exists() else ""

    def stop(self) -> None:
        if self.process and self.process.poll() is None:
            self.process.terminate()
            try:
                self.process.wait(10)
            except subprocess.TimeoutExpired:
                self.process.kill()
                self.process.wait()
