"""Server settings from environment variables, overridable by ``fairgammon serve`` flags.

Every setting has an environment variable ``FAIRGAMMON_<NAME>`` (the store's address keeps
the conventional names ``REDIS_URL``, ``REDIS_CLUSTER``, ``REDIS_SENTINEL`` and
``REDIS_SENTINEL_MASTER``). Values are checked once at start-up; a bad value stops the server with a
message naming the variable.

>>> s = Settings.from_env({"FAIRGAMMON_PORT": "9000", "FAIRGAMMON_ALLOWED_ORIGINS": "https://a.example"})
>>> s.port, s.allowed_origins
(9000, ('https://a.example',))
"""

from __future__ import annotations

import dataclasses
import os
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path

from server.ops.redis_link import RedisTarget, parse_sentinels

CHECKOUT = Path(__file__).resolve().parents[2]
"""The directory that holds the ``server`` package (the checkout, in an editable install)."""


class SettingsError(ValueError):
    """A setting with a value the server cannot use."""


@dataclass(frozen=True, slots=True)
class Settings:
    host: str = "127.0.0.1"
    port: int = 8000
    # No REDIS_URL: start and supervise a private redis-server with its AOF under data_dir.
    redis_url: str | None = None
    # The URL names any one node of a Redis Cluster (sharded pub/sub; docs/operations.md).
    redis_cluster: bool = False
    # Or: Sentinels ("host:port,host:port") that know the primary named redis_sentinel_master.
    redis_sentinel: str = ""
    redis_sentinel_master: str = ""
    data_dir: Path = Path("var")
    # Exact-match allowlist of browser Origins. Empty: the server's own origin(s) only
    # (http://host:port and, for 127.0.0.1, http://localhost:port).
    allowed_origins: tuple[str, ...] = ()
    # Public base URL used in invite and spectator links (default: http://host:port).
    public_url: str | None = None
    clock_seconds: int = 30
    lag_allowance_ms: int = 1000
    max_frame_bytes: int = 16 * 1024
    rate_burst: int = 30
    rate_per_second: float = 10.0
    send_queue_frames: int = 256
    auth_timeout_seconds: float = 5.0
    # Longest time to send one whole HTTP request (head and body; a WebSocket upgrade's head):
    # server/web/guard.py.
    request_timeout_seconds: float = 10.0
    resume_max_events: int = 500
    # Every connection is probed this often; one that sends nothing within the timeout of a
    # probe is closed (4010): a half-open link is noticed within about the sum of the two.
    probe_seconds: float = 2.0
    probe_timeout_seconds: float = 4.0
    # A process that cannot reach Redis for this long closes its connections (1013) so that
    # their clients move to a process that can.
    store_grace_seconds: float = 1.0
    # A process told to stop (SIGTERM) while others serve moves its clients to them (close 1012,
    # both seats of a match together) at this many connections a second (server/match/gateway.py).
    drain_per_second: float = 200.0
    # A batch of commits (and of the store's other batched work) waits this long after its
    # first for others to share its Redis round trip; 0 sends it on the loop's next iteration.
    # It trades each action's latency for CPU (docs/load.md, "eleventh pass").
    commit_window_ms: float = 0.0
    # A seat away this long is shown as gone (its forfeit countdown keeps running either way).
    gone_after_seconds: float = 20.0
    # Lobby limits (server/web/limits.py), per client address.
    create_burst: int = 5
    create_per_minute: float = 10.0
    open_per_creator: int = 3
    # A match nobody joined within this long is cancelled.
    open_match_seconds: int = 900
    # Chat lines per speaker of a match (a seat, or a spectator's client address): this many
    # at once, then this many a minute (server/players/chat.py).
    chat_burst: int = 5
    chat_per_minute: float = 30.0
    # Proxies whose X-Forwarded-For names the client (addresses or networks, or "*"); empty:
    # the TCP peer is the client. deploy/nginx.conf's proxy must be listed when it is used.
    trusted_proxies: tuple[str, ...] = ()
    # What to do when Redis could lose acknowledged writes (server/ops/durability.py): "required"
    # refuses to start, "degraded" runs and says so loudly.
    durability: str = "required"
    workers: int = 1
    # Experience (points of rated matches) a player needs to be on the leaderboard.
    leaderboard_experience: int = 25
    # The rules against rating farming (server/players/farming.py, docs/fairplay.md): a rated
    # match ended before each player made this many checker plays is abandoned; only this many
    # rated matches a day between the same two accounts move their ratings (0: no such rule).
    rated_min_plays: int = 3
    rated_pair_daily: int = 3
    # Tournaments an account may have created and not yet finished (server/competition).
    tournaments_per_account: int = 3
    # Failed logins allowed per account in 15 minutes (then 429 until the window passes).
    login_failures: int = 10
    log_level: str = "info"
    # The built browser client: found from the package, so `fairgammon serve` started in any
    # directory serves the checkout's web-client/dist (FAIRGAMMON_WEB_DIST: another build).
    web_dist: Path = field(default_factory=lambda: CHECKOUT / "web-client" / "dist")
    # Correspondence (docs/correspondence.md): a day on their clocks (tests shorten it), the
    # live correspondence matches an account may have at once, and the days of vacation a
    # year that pause a player's clocks.
    day_ms: int = 86_400_000
    games_per_account: int = 100
    vacation_days: int = 30
    # E-mail of notices (docs/friends.md, "E-mail"): the SMTP server as host:port (empty: no
    # e-mail is ever sent, the default) and the sender's address.
    smtp: str = ""
    mail_from: str = "fairgammon@localhost"
    # Moderators (docs/moderation.md): the account names, comma-separated, that see the reports'
    # queue and may mute, suspend and ban (none by default).
    moderators: tuple[str, ...] = ()

    @classmethod
    def from_env(cls, env: Mapping[str, str] | None = None, **overrides: object) -> Settings:
        env = os.environ if env is None else env
        values: dict[str, object] = {}
        for f in dataclasses.fields(cls):
            name = f.name.upper() if f.name.startswith("redis_") else f"FAIRGAMMON_{f.name.upper()}"
            if name in env and env[name] != "":
                values[f.name] = _parse(f.name, env[name], name)
        values.update({k: v for k, v in overrides.items() if v is not None})
        settings = cls(**values)  # type: ignore[arg-type]
        settings.check()
        return settings

    def check(self) -> None:
        if not 0 < self.port < 65536:
            raise SettingsError(f"port {self.port} is not a TCP port")
        if not 3 <= self.clock_seconds <= 3600:
            raise SettingsError("clock_seconds must be between 3 and 3600")
        if self.max_frame_bytes < 1024:
            raise SettingsError("max_frame_bytes must be at least 1024")
        if self.create_burst < 1 or self.create_per_minute <= 0 or self.open_per_creator < 1:
            raise SettingsError("create_burst, create_per_minute and open_per_creator must be > 0")
        if self.chat_burst < 1 or self.chat_per_minute <= 0:
            raise SettingsError("chat_burst and chat_per_minute must be > 0")
        if not 0.1 <= self.request_timeout_seconds <= 600:
            raise SettingsError("request_timeout_seconds must be between 0.1 and 600")
        if self.open_match_seconds < 10:
            raise SettingsError("open_match_seconds must be at least 10")
        if self.durability not in ("required", "degraded"):
            raise SettingsError("durability must be required or degraded")
        if self.drain_per_second <= 0:
            raise SettingsError("drain_per_second must be positive")
        if not 0 <= self.commit_window_ms <= 50:
            raise SettingsError("commit_window_ms must be between 0 and 50")
        if not 0 < self.probe_seconds <= self.probe_timeout_seconds:
            raise SettingsError("probe_seconds must be positive and at most probe_timeout_seconds")
        if self.rated_min_plays < 0 or self.rated_pair_daily < 0:
            raise SettingsError("rated_min_plays and rated_pair_daily must be 0 or more")
        if self.tournaments_per_account < 0:
            raise SettingsError("tournaments_per_account must be 0 or more")
        if self.workers < 1:
            raise SettingsError("workers must be at least 1")
        if self.day_ms < 1000 or self.games_per_account < 1 or not 0 <= self.vacation_days <= 365:
            raise SettingsError(
                "day_ms must be at least 1000, games_per_account at least 1, vacation_days 0..365"
            )
        if self.redis_cluster and not self.redis_url:
            raise SettingsError("REDIS_CLUSTER needs REDIS_URL: the address of any one node")
        if self.redis_sentinel or self.redis_sentinel_master:
            if not (self.redis_sentinel and self.redis_sentinel_master):
                raise SettingsError("REDIS_SENTINEL and REDIS_SENTINEL_MASTER go together")
            if self.redis_cluster or self.redis_url:
                raise SettingsError("REDIS_SENTINEL replaces REDIS_URL and REDIS_CLUSTER")
            try:
                parse_sentinels(self.redis_sentinel)
            except ValueError as exc:
                raise SettingsError(f"REDIS_SENTINEL: {exc}") from None
        for name in self.moderators:
            if not 3 <= len(name) <= 20 or not all(c.isalnum() or c in "_-" for c in name):
                raise SettingsError(f"moderator {name!r} is not an account name")
        for origin in self.allowed_origins:
            if not origin.startswith(("http://", "https://")) or origin.endswith("/"):
                raise SettingsError(f"allowed origin {origin!r} must look like https://host[:port]")

    def redis_target(self) -> RedisTarget | None:
        """Where the store is; None for the embedded Redis that ``serve`` starts."""
        if self.redis_sentinel:
            sentinels = parse_sentinels(self.redis_sentinel)
            return RedisTarget(sentinels=sentinels, sentinel_master=self.redis_sentinel_master)
        if self.redis_url:
            return RedisTarget(url=self.redis_url, cluster=self.redis_cluster)
        return None

    @property
    def base_url(self) -> str:
        if self.public_url:
            return self.public_url.rstrip("/")
        host = "localhost" if self.host in ("127.0.0.1", "0.0.0.0", "::") else self.host
        return f"http://{host}:{self.port}"

    def is_moderator(self, account_key: str) -> bool:
        """Whether the account (by its lowercased name) is one the operator named a moderator."""
        return account_key in {name.lower() for name in self.moderators}

    def origins(self) -> frozenset[str]:
        if self.allowed_origins:
            return frozenset(self.allowed_origins)
        own = {self.base_url, f"http://{self.host}:{self.port}"}
        if self.host in ("127.0.0.1", "0.0.0.0", "localhost"):
            own |= {f"http://127.0.0.1:{self.port}", f"http://localhost:{self.port}"}
        return frozenset(own)


def _parse(name: str, raw: str, var: str) -> object:
    kind = {f.name: f.type for f in dataclasses.fields(Settings)}[name]
    try:
        if kind == "int":
            return int(raw)
        if kind == "float":
            return float(raw)
        if kind == "bool":
            flag = raw.strip().lower()
            if flag not in ("1", "true", "yes", "on", "0", "false", "no", "off"):
                raise ValueError(raw)
            return flag in ("1", "true", "yes", "on")
        if kind == "Path":
            return Path(raw)
        if kind == "tuple[str, ...]":
            return tuple(o.strip() for o in raw.split(",") if o.strip())
    except ValueError:
        raise SettingsError(f"{var}={raw!r} is not a valid {kind}") from None
    return raw
