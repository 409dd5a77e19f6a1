"""``fairgammon show`` and ``fairgammon legal``, run as real processes."""

import subprocess
import sys
from pathlib import Path

import gnubg_nn as gnubg

from engine.position import Position
from engine.position_id import encode
from harness.corpus import random_play_cases, to_gnubg, tricky_cases

ROOT = Path(__file__).resolve().parents[2]


def cli(*args: str, stdin: str = "") -> subprocess.CompletedProcess:
    return subprocess.run(
        [sys.executable, "-m", "server.cli", *args],
        input=stdin,
        capture_output=True,
        text=True,
        cwd=ROOT,
        timeout=120,
        check=False,
    )


START_BOARD = """\
Position ID: 4HPwATDgc/ABMA
+-13-14-15-16-17-18-+---+-19-20-21-22-23-24-+
|  X           O    |   |  O              X |
|  X           O    |   |  O              X |
|  X           O    |   |  O                |
|  X                |   |  O                |
|  X                |   |  O                |
|                   |BAR|                   |
|  O                |   |  X                |
|  O                |   |  X                |
|  O           X    |   |  X                |
|  O           X    |   |  X              O |
|  O           X    |   |  X              O |
+-12-11-10--9--8--7-+---+--6--5--4--3--2--1-+
X: pips 167, borne off 0, on the bar 0
O: pips 167, borne off 0, on the bar 0
X on roll
"""


def test_show_start_position():
    done = cli("show", "4HPwATDgc/ABMA")
    assert (done.returncode, done.stdout, done.stderr) == (0, START_BOARD, "")


def test_show_bar_tall_stacks_and_borne_off():
    position = Position.from_points({25: 2, 6: 9, 1: 1, 20: 1}, {25: 7, 3: 6, 22: 1})
    done = cli("show", encode(position))
    assert done.returncode == 0
    lines = done.stdout.splitlines()
    assert lines[0] == f"Position ID: {encode(position)}"
    assert lines[2] == "|                   | O |     X     O       |"  # X on 20, O on 22
    assert lines[6] == "|                   | 7 |           6       |"  # 7 on the bar, 6 high
    assert lines[8] == "|                   |   |  9                |"  # nine on the 6-point
    assert lines[12] == "|                   | X |  X        O     X |"
    assert lines[-3:] == [
        "X: pips 125, borne off 2, on the bar 2",
        "O: pips 215, borne off 1, on the bar 7",
        "X on roll",
    ]


def test_show_bad_id_is_one_line_exit_2():
    for bad in ("4HPwATDgc/ABMB", "nonsense", "4HPwATDgc/AB!A"):
        done = cli("show", bad)
        assert done.returncode == 2
        assert done.stdout == ""
        assert len(done.stderr.splitlines()) == 1 and "Position ID" in done.stderr


def gnubg_ids(position: Position, d1: int, d2: int) -> str:
    boards = (gnubg.board_from_position_key(k) for k in gnubg.moves(to_gnubg(position), d1, d2))
    return " ".join(sorted(gnubg.position_id([list(side) for side in board]) for board in boards))


def test_legal_matches_gnubg():
    cases = random_play_cases(seed=61, n=400) + [
        case for family in tricky_cases(seed=62, per_family=25).values() for case in family
    ]
    stdin = "".join(f"{encode(p)} {d1} {d2}\n" for p, d1, d2 in cases)
    done = cli("legal", stdin=stdin)
    assert (done.returncode, done.stderr) == (0, "")
    lines = done.stdout.split("\n")
    assert lines[-1] == "" and len(lines) == len(cases) + 1
    for line, (position, d1, d2) in zip(lines, cases, strict=False):
        assert line == gnubg_ids(position, d1, d2)
    assert any(line == "" for line in lines[:-1])  # some rolls have no legal play


def test_legal_reports_malformed_lines_and_goes_on():
    stdin = "\n".join(
        [
            "4HPwATDgc/ABMA 3 1",
            "4HPwATDgc/ABMA 7 1",  # die out of range
            "4HPwATDgc/ABMB 3 1",  # bad ID
            "4HPwATDgc/ABMA 3",  # two fields
            "",  # blank
            "4HPwATDgc/ABMA 3 1 1",
            "4HPwATDgc/ABMA x 1",
            "4HPwATDgc/ABMA 6 6",
        ]
    )
    done = cli("legal", stdin=stdin + "\n")
    assert done.returncode == 1
    out = done.stdout.split("\n")
    assert out[0] == gnubg_ids(Position.start(), 3, 1) and len(out[0].split()) == 16
    assert out[1:7] == [""] * 6
    assert len(out[7].split()) == 11
    errors = done.stderr.splitlines()
    assert [e.split(":")[1].strip() for e in errors] == [f"line {n}" for n in range(2, 8)]


def test_legal_answers_each_line_at_once_when_driven_interactively():
    """A coprocess that sends one line and waits for its answer must not wait forever."""
    process = subprocess.Popen(
        [sys.executable, "-m", "server.cli", "legal"],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        cwd=ROOT,
    )
    try:
        for dice, count in (((3, 1), 16), ((6, 6), 11), ((5, 5), 4)):
            process.stdin.write(f"4HPwATDgc/ABMA {dice[0]} {dice[1]}\n")
            process.stdin.flush()
            assert len(process.stdout.readline().split()) == count
        process.stdin.write("4HPwATDgc/ABMA 2 1")  # the last line may lack its newline
        process.stdin.close()
        assert len(process.stdout.readline().split()) == 15
        assert process.wait(timeout=60) == 0
    finally:
        process.kill()
        process.wait()
        for stream in (process.stdout, process.stderr):
            stream.close()


def test_legal_empty_input():
    done = cli("legal", stdin="")
    assert (done.returncode, done.stdout, done.stderr) == (0, "", "")
