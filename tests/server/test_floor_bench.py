"""``bench/floor.py`` measures what it says: actions paced as asked, each stored, acked and
passed on, with the rules' work and the probes when asked for (a probe's answer is not an
action), in chains at the same rate when asked, and the echo in the same run."""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]


def run_floor(*extra: str) -> str:
    small = "--pairs 6 --rate 40 --warmup 1 --seconds 2 --echo-seconds 0.5 --echo-connections 4"
    command = [sys.executable, "bench/floor.py", *small.split(), *extra]
    done = subprocess.run(
        command, cwd=ROOT, capture_output=True, text=True, timeout=120, check=False
    )
    assert done.returncode == 0, done.stderr
    return done.stdout


def figures(out: str) -> tuple[float, float, float]:
    rate = float(re.search(r"actions\s+(\d+)/s acked", out).group(1))
    cpu = float(re.search(r"floor CPU\s+([\d.]+) us per action", out).group(1))
    ratio = float(re.search(r"floor / echo\s+([\d.]+) echo round trips", out).group(1))
    return rate, cpu, ratio


def test_the_floor_paces_stores_and_compares_with_the_echo():
    out = run_floor("--rules", "--probes", "0.2")
    rate, cpu, ratio = figures(out)
    # 6 pairs each acting once per 6/40 s: ~40 actions a second, every one acked.
    assert 30 <= rate <= 45, out
    assert cpu > 0 and ratio > 0, out
    assert "probes every 0.2 s, frame in, apply, dump, encode" in out
    assert "; 0% sent at once" in out


def test_chains_of_actions_keep_the_rate():
    rate, cpu, ratio = figures(out := run_floor("--chain", "3"))
    assert 30 <= rate <= 45, out
    assert cpu > 0 and ratio > 0, out
    assert "chains of 3, frame in, Store.commit" in out
    # Two actions of each three sent as soon as the other seat's events arrived; none without.
    at_once = int(re.search(r"(\d+)% sent at once", out).group(1))
    assert 55 <= at_once <= 75, out
