"""``fairgammon dice`` and ``fairgammon verify`` (and ``python -m protocol.fairdice``), run as
subprocesses from the repository root."""

import json
import subprocess
import sys
from pathlib import Path

import pytest

from protocol.fairdice import GameId, HashChain, derive_dice
from protocol.fairdice.simulate import simulate_game

ROOT = Path(__file__).resolve().parents[2]
MATCH = "00112233445566778899aabbccddeeff"
SECRET = "ab" * 32
VECTORS = json.loads(
    (ROOT / "protocol" / "fairdice" / "vectors" / "fairdice-v1.json").read_text(encoding="utf-8")
)


def cli(*args: str, module: str = "server.cli") -> subprocess.CompletedProcess:
    return subprocess.run(
        [sys.executable, "-m", module, *args],
        cwd=ROOT,
        check=False,
        capture_output=True,
        text=True,
        timeout=60,
    )


def test_dice_chain_prints_the_commitment_and_links():
    case = VECTORS["chains"]["cases"][1]
    base = [
        "dice", "chain", "--match-id", case["match_id"], "--game", str(case["game_no"]),
        "--seat", str(case["seat"]), "--secret", case["secret"],
    ]  # fmt: skip
    out = cli(*base)
    assert (out.returncode, out.stderr) == (0, "")
    assert out.stdout == case["links"][0]["link"] + "\n"
    out = cli(*base, "--index", "511")
    assert out.stdout.strip() == next(e["link"] for e in case["links"] if e["i"] == 511)
    out = cli(*base, "--length", "8", "--index", "8")
    assert out.stdout.strip() == case["secret"]


def test_dice_roll_prints_the_dice():
    case = VECTORS["rolls"]["cases"][0]
    out = cli(
        "dice", "roll", "--match-id", case["match_id"], "--game", str(case["game_no"]),
        "--roll", str(case["k"]), "--seat0", case["reveal0"], "--seat1", case["reveal1"],
    )  # fmt: skip
    assert (out.returncode, out.stderr) == (0, "")
    assert out.stdout == f"{case['d1']} {case['d2']}\n"


def test_uppercase_hex_is_accepted_on_the_command_line():
    game = GameId.from_hex(MATCH, 3)
    expected = HashChain(bytes.fromhex(SECRET), game, 1).commitment.hex()
    out = cli(
        "dice", "chain", "--match-id", MATCH.upper(), "--game", "3", "--seat", "1",
        "--secret", SECRET.upper(),
    )  # fmt: skip
    assert out.stdout.strip() == expected
    d = derive_dice(game, 2, bytes.fromhex(SECRET), bytes(32))
    out = cli(
        "dice", "roll", "--match-id", MATCH, "--game", "3", "--roll", "2",
        "--seat0", SECRET, "--seat1", "00" * 32, module="protocol.fairdice",
    )  # fmt: skip
    assert out.stdout == f"{d[0]} {d[1]}\n"


CHAIN = ["dice", "chain", "--match-id", MATCH, "--game", "1", "--seat", "0", "--secret", SECRET]
ROLL = ["dice", "roll", "--match-id", MATCH, "--game", "1", "--roll", "1", "--seat0", SECRET]


@pytest.mark.parametrize(
    ("args", "needle"),
    [
        (["dice", "chain", "--match-id", MATCH[:-2], "--game", "1", "--seat", "0",
          "--secret", SECRET], "--match-id"),
        ([*CHAIN[:-1], SECRET + "00"], "--secret"),
        ([*CHAIN[:-1], "xy" * 32], "--secret"),
        ([*CHAIN[:5], "-1", *CHAIN[6:]], "--game"),
        ([*CHAIN[:7], "2", *CHAIN[8:]], "--seat"),
        ([*CHAIN[:7], "-1", *CHAIN[8:]], "--seat"),
        ([*CHAIN, "--index", "1025"], "--index"),
        ([*CHAIN, "--length", "4", "--index", "5"], "--index"),
        ([*CHAIN, "--length", "0"], "--length"),
        (CHAIN[:-2], "--secret"),
        ([*ROLL, "--seat1", "00" * 31], "--seat1"),
        ([*ROLL[:5], "x", *ROLL[6:], "--seat1", SECRET], "--game"),
        ([*ROLL[:7], "0", *ROLL[8:], "--seat1", SECRET], "--roll"),
        (["dice"], "chain"),
        (["verify"], "transcript"),
        (["verify", "no/such/file.json"], "cannot read"),
    ],
)  # fmt: skip
def test_bad_arguments_exit_2_with_one_line(args, needle):
    out = cli(*args)
    assert out.returncode == 2
    assert out.stdout == ""
    assert len(out.stderr.strip().splitlines()) == 1
    assert needle in out.stderr


@pytest.fixture(scope="module")
def transcript_file(tmp_path_factory):
    path = tmp_path_factory.mktemp("transcripts") / "game.json"
    path.write_text(simulate_game(4, end="drop", turns=6, recommit={3: 0}).to_json())
    return path


def test_verify_accepts_a_valid_transcript(transcript_file):
    out = cli("verify", str(transcript_file))
    assert (out.returncode, out.stderr) == (0, "")
    assert out.stdout.startswith("verified: match ")
    assert "plays replayed legal" in out.stdout and len(out.stdout.splitlines()) == 1
    out = cli("verify", str(transcript_file), module="protocol.fairdice")
    assert out.returncode == 0 and out.stdout.startswith("verified: ")


def test_verify_rejects_a_tampered_transcript(transcript_file, tmp_path):
    obj = json.loads(transcript_file.read_text())
    roll = obj["rolls"][4]
    roll["d2"] = roll["d2"] % 6 + 1
    bad = tmp_path / "bad.json"
    bad.write_text(json.dumps(obj))
    out = cli("verify", str(bad))
    assert out.returncode == 1
    assert out.stdout.startswith("NOT VERIFIED (dice): roll 5: recorded dice")
    assert len(out.stdout.splitlines()) == 1
    obj["format"] = 5  # structurally broken: still a clean "not verified"
    bad.write_text(json.dumps(obj))
    out = cli("verify", str(bad), "--no-replay")
    assert out.returncode == 1 and "NOT VERIFIED (version)" in out.stdout


def test_verify_rejects_unreadable_and_invalid_json(tmp_path):
    broken = tmp_path / "broken.json"
    broken.write_text('{"format": ')
    out = cli("verify", str(broken))
    assert out.returncode == 2 and "not valid JSON" in out.stderr
    assert len(out.stderr.strip().splitlines()) == 1
    out = cli("verify", str(tmp_path))  # a directory
    assert out.returncode == 2 and "cannot read" in out.stderr
