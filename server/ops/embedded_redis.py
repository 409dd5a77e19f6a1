"""The embedded default: a private, supervised redis-server when no ``REDIS_URL`` is given.

``fairgammon serve`` starts it before the web workers, hands its URL to them through the
environment, restarts it if it dies (same port, same AOF: nothing acknowledged is lost) and
stops it cleanly on the way out.
"""

from __future__ import annotations

import threading
from pathlib import Path

from server.ops import logs
from server.ops.redis_process import RedisProcess

log = logs.get("embedded_redis")


class SupervisedRedis:
    """A :class:`RedisProcess` with a watchdog thread that restarts it when it exits."""

    def __init__(self, data_dir: Path, check_every: float = 1.0) -> None:
        self.process = RedisProcess(data_dir / "redis")
        self.check_every = check_every
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._watch, name="redis-watchdog", daemon=True)
        self.restarts = 0

    @property
    def url(self) -> str:
        return self.process.url

    def start(self) -> None:
        self.process.start()
        log.info(
            "embedded redis started",
            extra=logs.fields(
                binary=self.process.binary, port=self.process.port, dir=str(self.process.data_dir)
            ),
        )
        self._thread.start()

    def _watch(self) -> None:
        while not self._stop.wait(self.check_every):
            if self.process.alive():
                continue
            log.warning("embedded redis exited; restarting it")
            try:
                self.process.start()
                self.restarts += 1
            except Exception:
                log.exception("embedded redis failed to restart; will retry")

    def stop(self) -> None:
        self._stop.set()
        if self._thread.is_alive():
            self._thread.join(timeout=5)
        self.process.stop()
        log.info("embedded redis stopped")
