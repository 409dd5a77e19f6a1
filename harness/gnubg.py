"""Debian's GNU Backgammon as a test oracle: it imports our ``.mat`` files and says what it
understood (:func:`import_mats`), it plays itself to write its own ``.mat`` and ``.sgf`` files
(:func:`self_play`), and it tells the variations' rules: under ``set variation``, its starting
position and which plays of given positions it accepts (:func:`variation_plays`: nackgammon,
hypergammon).

One ``gnubg -t -q -p script`` process imports every file (a gnubg start costs ~0.2 s): for each
file the script prints one ``FGMAT <json>`` line with the games, each game's plays and result,
and the final score as gnubg counts it (or the import error). Before each import the Jacoby rule
is set as the file's header says (gnubg's importer ignores that tag).
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import tempfile
from collections.abc import Sequence
from pathlib import Path

# Debian installs gnubg under /usr/games, which is not on every PATH.
SEARCH_PATH = os.pathsep.join([os.environ.get("PATH", ""), "/usr/games"])

_SCRIPT = r'''
import json, os
import gnubg

for path in open(os.environ["FG_MAT_LIST"]).read().split("\n"):
    if not path:
        continue
    out = {"file": os.path.basename(path)}
    # gnubg's .mat importer ignores the Jacoby tag and plays by its own setting (On by default):
    # set it as the file's header says, as a user reading the header would.
    jacoby = '; [Jacoby "On"]' in open(path).read()
    gnubg.command("set jacoby " + ("on" if jacoby else "off"))
    try:
        gnubg.command('import mat "%s"' % path)
        m = gnubg.match(analysis=0, boards=0, statistics=0, verbose=0)
    except Exception as e:  # gnubg raises when nothing was imported
        out["error"] = repr(e)
    else:
        info = m["match-info"]
        out["length"] = info["match-length"]
        out["names"] = [info["X"]["name"], info["O"]["name"]]
        games = []
        for g in m["games"]:
            gi = g["info"]
            games.append({
                "score": [gi["score-X"], gi["score-O"]],
                "winner": gi.get("winner"),  # no winner: gnubg sees the game unfinished
                "points": gi.get("points-won"),
                "resigned": gi.get("resigned"),
                "actions": [[a["action"], a["player"], a.get("move"), a.get("dice")]
                            for a in g["game"]],
            })
        out["games"] = games
    print("FGMAT " + json.dumps(out), flush=True)
'''


def gnubg_command() -> str | None:
    return shutil.which("gnubg", path=SEARCH_PATH)


def import_mats(texts: Sequence[str], timeout: float = 60) -> list[dict]:
    """What gnubg reads from each ``.mat`` text, in order (one gnubg process for all)."""
    gnubg = gnubg_command()
    if gnubg is None:
        raise RuntimeError("gnubg is not installed (Debian package gnubg, in /usr/games)")
    with tempfile.TemporaryDirectory(prefix="fg-gnubg-") as tmp:
        paths = []
        for i, text in enumerate(texts):
            path = Path(tmp) / f"m{i:03d}.mat"
            path.write_text(text)
            paths.append(str(path))
        listing = Path(tmp) / "list.txt"
        listing.write_text("\n".join(paths) + "\n")
        script = Path(tmp) / "read.py"
        script.write_text(_SCRIPT)
        env = dict(os.environ, FG_MAT_LIST=str(listing), HOME=tmp)
        done = subprocess.run(
            [gnubg, "-t", "-q", "-p", str(script)],
            capture_output=True, text=True, timeout=timeout, env=env, cwd=tmp, check=False,
        )
    results = [
        json.loads(line[len("FGMAT "):])
        for line in done.stdout.splitlines()
        if line.startswith("FGMAT ")
    ]
    if len(results) != len(texts):
        raise RuntimeError(
            f"gnubg answered for {len(results)} of {len(texts)} files "
            f"(exit {done.returncode}): {done.stderr[-2000:]}"
        )
    return results


# -- variations: starting positions and legal plays under ``set variation`` ------------------

_VARIATION_SCRIPT = r'''
import json, os
import gnubg

for command in ("set player 0 human", "set player 1 human", "set confirm new off",
                "set automatic roll off", "set automatic game off", "set display off",
                "set variation " + os.environ["FG_VARIATION"], "new session"):
    gnubg.command(command)
print("FGSTART " + json.dumps({"board": gnubg.board(), "id": gnubg.positionid()}), flush=True)

def put(position_id):
    gnubg.command("set board " + position_id)
    if gnubg.positionid() != position_id:  # the last game ended: start another to set up
        gnubg.command("new game")
        gnubg.command("set board " + position_id)
    return gnubg.positionid() == position_id

for line in open(os.environ["FG_CASES"]):
    case = json.loads(line)
    out = {"set": put(case["id"])}
    accepted = []
    for move in case["candidates"]:
        put(case["id"])
        gnubg.command("set dice %d %d" % (case["dice"][0], case["dice"][1]))
        start = gnubg.board()
        gnubg.command("move " + move)
        after = gnubg.board()
        accepted.append(after if after != start else None)
    out["accepted"] = accepted
    print("FGCASE " + json.dumps(out), flush=True)
'''


def variation_plays(
    variation: str, cases: Sequence[tuple[str, int, int, Sequence[str]]], timeout: float = 120
) -> tuple[dict, list[dict]]:
    """Debian gnubg under ``set variation <variation>``: its starting position (``{"board":
    gnubg.board(), "id": Position ID}``, read after ``new session``) and, for each case
    ``(Position ID, d1, d2, candidate moves)``, ``{"set": the board was set up, "accepted":
    [...]}``: per candidate (gnubg notation such as ``"24/21 bar/20 3/off"``) the board after
    gnubg's ``move`` command accepted it — ``[side that moved, side now on roll]``, 25 counts
    each — or None when gnubg refused it.

    gnubg's ``move`` accepts a play exactly when its own generator lists the position it
    reaches; it needs no evaluation, so it works for hypergammon without gnubg's databases.
    The empty candidate ``""`` asks gnubg to play on its own: it does when it has at most one
    legal play (the pass, which leaves the board as it was, or the only play)."""
    command = gnubg_command()
    if command is None:
        raise RuntimeError("gnubg is not installed (Debian package gnubg, in /usr/games)")
    with tempfile.TemporaryDirectory(prefix="fg-gnubg-") as tmp:
        listing = Path(tmp) / "cases.jsonl"
        listing.write_text("".join(
            json.dumps({"id": pid, "dice": [d1, d2], "candidates": list(moves)}) + "\n"
            for pid, d1, d2, moves in cases
        ))
        script = Path(tmp) / "plays.py"
        script.write_text(_VARIATION_SCRIPT)
        env = dict(os.environ, FG_CASES=str(listing), FG_VARIATION=variation, HOME=tmp)
        done = subprocess.run(
            [command, "-t", "-q", "-p", str(script)],
            capture_output=True, text=True, timeout=timeout, env=env, cwd=tmp, check=False,
        )
    start = None
    results = []
    for line in done.stdout.splitlines():
        if line.startswith("FGSTART "):
            start = json.loads(line[len("FGSTART "):])
        elif line.startswith("FGCASE "):
            results.append(json.loads(line[len("FGCASE "):]))
    if start is None or len(results) != len(cases):
        raise RuntimeError(
            f"gnubg answered {len(results)} of {len(cases)} cases (exit {done.returncode}): "
            f"{done.stderr[-2000:]}"
        )
    return start, results


# ------------------------------------------------------------------ gnubg playing itself

_PLAY_SCRIPT = r'''
import json, os
import gnubg

plans = json.load(open(os.environ["FG_PLANS"]))
out = os.environ["FG_OUT"]
for i, plan in enumerate(plans):
    for p in (0, 1):
        gnubg.command("set player %d gnubg" % p)
        gnubg.command("set player %d chequerplay evaluation plies 0" % p)
        gnubg.command("set player %d cubedecision evaluation plies 0" % p)
    gnubg.command("set seed %d" % plan["seed"])
    gnubg.command("set display off")
    gnubg.command("set automatic game off")
    gnubg.command("set jacoby " + ("on" if plan.get("jacoby") else "off"))
    gnubg.command("set beavers %d" % (3 if plan.get("beavers") else 0))
    length = plan["length"]
    gnubg.command("new match %d" % length if length else "new session")
    # Names set before "new match" do not reach its files: set them now (the export reads them).
    for p in (0, 1):
        gnubg.command("set player %d name %s" % (p, plan["names"][p]))
    for _ in range(200 if length else plan["games"] - 1):
        if length:
            last = gnubg.match(analysis=0, boards=0, statistics=0, verbose=0)["games"][-1]
            info = last["info"]
            score = [info["score-X"], info["score-O"]]
            if info.get("winner"):
                score["XO".index(info["winner"])] += info["points-won"]
            if max(score) >= length:
                break
        gnubg.command("new game")
    mat = os.path.join(out, "p%d.mat" % i)
    sgf = os.path.join(out, "p%d.sgf" % i)
    gnubg.command('export match mat "%s"' % mat)
    gnubg.command('save match "%s"' % sgf)
    m = gnubg.match(analysis=0, boards=0, statistics=0, verbose=0)
    games = []
    for g in m["games"]:
        gi = g["info"]
        games.append({
            "score": [gi["score-X"], gi["score-O"]],
            "winner": gi.get("winner"),
            "points": gi.get("points-won"),
            "resigned": gi.get("resigned"),
            "moves": sum(1 for a in g["game"] if a["action"] == "move"),
        })
    print("FGPLAY " + json.dumps({"mat": mat, "sgf": sgf, "games": games,
                                  "length": m["match-info"]["match-length"]}), flush=True)
'''


def self_play(plans: Sequence[dict], timeout: float = 300) -> list[dict]:
    """Debian's gnubg playing itself (0-ply, both sides), once per plan: ``{"names": [a, b],
    "seed": n, "length": points (0: a money session), "games": n (sessions), "jacoby": bool,
    "beavers": bool}``. Per plan: the ``.mat`` and ``.sgf`` texts gnubg wrote, and gnubg's own
    reading of the games (score before, winner ``"X"``/``"O"`` for player 0/1, points,
    resigned, number of moves)."""
    gnubg = gnubg_command()
    if gnubg is None:
        raise RuntimeError("gnubg is not installed (Debian package gnubg, in /usr/games)")
    with tempfile.TemporaryDirectory(prefix="fg-gnubg-") as tmp:
        (Path(tmp) / "plans.json").write_text(json.dumps(list(plans)))
        script = Path(tmp) / "play.py"
        script.write_text(_PLAY_SCRIPT)
        env = dict(os.environ, FG_PLANS=str(Path(tmp) / "plans.json"), FG_OUT=tmp, HOME=tmp)
        done = subprocess.run(
            [gnubg, "-t", "-q", "-p", str(script)], capture_output=True, text=True,
            timeout=timeout, env=env, cwd=tmp, check=False, stdin=subprocess.DEVNULL,
        )
        results = [json.loads(line[len("FGPLAY "):]) for line in done.stdout.splitlines()
                   if line.startswith("FGPLAY ")]
        if len(results) != len(plans):
            raise RuntimeError(f"gnubg played {len(results)} of {len(plans)} plans "
                               f"(exit {done.returncode}): {done.stderr[-2000:]}")
        for result in results:
            result["mat"] = Path(result["mat"]).read_bytes()
            result["sgf"] = Path(result["sgf"]).read_bytes()
    return results


# ------------------------------------------------------------------ XGIDs through gnubg

_XGID_SCRIPT = r'''
import os
import gnubg

gnubg.command("new game")
for line in open(os.environ["FG_XGIDS"]).read().split("\n"):
    if not line:
        continue
    gnubg.command("set xgid " + line)
    print("FGXGID %s %s %s" % (line, gnubg.positionid(), gnubg.matchid()), flush=True)
'''


def xgid_ids(xgids: Sequence[str], timeout: float = 120) -> list[tuple[str, str]]:
    """``(Position ID, Match ID)`` that Debian's gnubg shows after ``set xgid`` of each XGID, in
    one gnubg process. gnubg offers to swap the players when XG's top player is on roll, and in
    a script that offer is taken: its IDs are then those of the same state with seats swapped.
    """
    gnubg = gnubg_command()
    if gnubg is None:
        raise RuntimeError("gnubg is not installed (Debian package gnubg, in /usr/games)")
    with tempfile.TemporaryDirectory(prefix="fg-gnubg-") as tmp:
        listing = Path(tmp) / "xgids.txt"
        listing.write_text("\n".join(xgids) + "\n")
        script = Path(tmp) / "xgid.py"
        script.write_text(_XGID_SCRIPT)
        env = dict(os.environ, FG_XGIDS=str(listing), HOME=tmp)
        done = subprocess.run(
            [gnubg, "-t", "-q", "-p", str(script)], capture_output=True, text=True,
            timeout=timeout, env=env, cwd=tmp, check=False, stdin=subprocess.DEVNULL,
        )
    found = {}
    for line in done.stdout.splitlines():
        if line.startswith("FGXGID "):
            _, xgid, pid, mid = line.split()
            found[xgid] = (pid, mid)
    missing = [x for x in xgids if x not in found]
    if missing:
        raise RuntimeError(f"gnubg gave no IDs for {len(missing)} XGIDs (exit "
                           f"{done.returncode}): {done.stderr[-2000:]}")
    return [found[x] for x in xgids]
