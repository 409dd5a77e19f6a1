"""``fairgammon serve`` finds the built browser client from the package, not from the working
directory it was started in (issue #26: started elsewhere, ``/`` answered 503 "not built"), and
the open-match expiry has its documented minimum."""

from __future__ import annotations

from pathlib import Path

import pytest

from server.ops.settings import Settings, SettingsError

ROOT = Path(__file__).resolve().parents[2]


def test_the_client_is_found_from_the_package_whatever_the_directory(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    settings = Settings.from_env({})
    assert settings.web_dist == ROOT / "web-client" / "dist"
    assert settings.web_dist.is_absolute()
    other = Settings.from_env({"FAIRGAMMON_WEB_DIST": str(tmp_path / "build")})
    assert other.web_dist == tmp_path / "build"


def test_an_open_match_lasts_at_least_ten_seconds():
    assert Settings.from_env({"FAIRGAMMON_OPEN_MATCH_SECONDS": "10"}).open_match_seconds == 10
    with pytest.raises(SettingsError, match="at least 10"):
        Settings.from_env({"FAIRGAMMON_OPEN_MATCH_SECONDS": "9"})


def test_the_commit_window_is_off_by_default_and_bounded():
    assert Settings.from_env({}).commit_window_ms == 0
    assert Settings.from_env({"FAIRGAMMON_COMMIT_WINDOW_MS": "3"}).commit_window_ms == 3.0
    for bad in ("-1", "51"):
        with pytest.raises(SettingsError, match="commit_window_ms"):
            Settings.from_env({"FAIRGAMMON_COMMIT_WINDOW_MS": bad})
