"""``bench/floor.py`` measures what it says: actions paced as asked, each stored, acked and
passed on, with the rules' work and the probes when asked for (a probe's answer is not an
action), in chains at the same rate when asked, and the echo in the same run;
``bench/above_floor.py`` runs it against the server with the same traffic."""

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


def test_the_server_against_the_floor_in_one_sitting():
    """``bench/above_floor.py`` runs both benchmarks with the same traffic and divides."""
    small = ("--matches 6 --pace 1 --rounds 1 --seconds 2 --warmup 1 --echo-seconds 0.5 "
             "--echo-connections 4")  # fmt: skip
    done = subprocess.run(
        [sys.executable, "bench/above_floor.py", *small.split()],
        cwd=ROOT, capture_output=True, text=True, timeout=180, check=False,
    )  # fmt: skip
    out = done.stdout
    assert done.returncode == 0, done.stderr
    runs = dict(re.findall(r"^\s+(floor|server)\s+([\d.]+) us per action", out, re.M))
    assert set(runs) == {"floor", "server"}, out
    # 6 matches, a turn of three actions a second each: ~18 actions a second in both runs. In
    # a window of 2 s a match fits one to three of its turns, whole or in part (a loaded suite
    # run once counted 23 a second: 46 actions), so a run's rate lies between 9 and 27.
    for rate in re.findall(r"(\d+) actions/s", out):
        assert 9 <= int(rate) <= 27, out
    ratio = float(re.search(r"server / floor ([\d.]+) of the floor's CPU,", out).group(1))
    assert ratio == round(float(runs["server"]) / float(runs["floor"]), 2), out
    assert re.search(r"held in [01] of 1 round", out), out


def bench_module():
    """``bench/above_floor.py`` imported as its own folder runs it (not a package)."""
    sys.path.insert(0, str(ROOT / "bench"))
    try:
        import above_floor
    finally:
        sys.path.remove(str(ROOT / "bench"))
    return above_floor


def test_the_runs_alternate_and_the_summary_counts_the_rounds(monkeypatch, capsys):
    """The order swaps every round; the summary divides each round's own pair."""
    above_floor = bench_module()
    order: list[str] = []
    cpu = iter([300.0, 420.0, 480.0, 310.0, 305.0, 450.0])

    def measure(what, a):
        order.append(what)
        return above_floor.Run(what, next(cpu), 20.0 if what == "floor" else 27.0, 600.0, "0")

    monkeypatch.setattr(above_floor, "measure", measure)
    above_floor.main(["--rounds", "3"])
    out = capsys.readouterr().out
    assert order == ["floor", "server", "server", "floor", "floor", "server"]
    assert "server / floor 1.40 of the floor's CPU, +7.0" in out
    assert "server / floor 1.55 of the floor's CPU" in out
    assert "held in 2 of 3 round(s)" in out
    assert "1.47 of the floor's CPU per action on average (from 1.40 to 1.55)" in out


def test_a_report_without_its_figures_is_a_clear_error():
    above_floor = bench_module()
    try:
        above_floor.parse_server("Traceback (most recent call last): boom", "0.1")
    except above_floor.ReportError as e:
        assert "server" in str(e) and "boom" in str(e)
    else:
        raise AssertionError("a report without figures was read")
