"""Fixed tables (`complots evaluate --table`): one bot per seat, names may repeat."""

from __future__ import annotations

import csv
from collections import Counter
from pathlib import Path

import pyspiel
import pytest
from click.testing import CliRunner

import complots_solver.openspiel  # noqa: F401  (registers "complots")
from complots_solver.cli.main import cli
from complots_solver.play.tournament import game_rngs, play_game_bots, rotations, run_tournament
from complots_solver.rules import view
from complots_solver.rules.presets import resolve_game
from tests.cli.test_cli_messages import one_line_error, run_cli

THREE = "complots-ambassador-3"
TWO = "draft-inquisitor"


def _evaluate(*args: str) -> str:
    """Run `complots evaluate ARGS` on one worker in-process; its output (exit code 0)."""
    out = CliRunner().invoke(cli, ["evaluate", *args, "--workers", "1"])
    assert out.exit_code == 0, out.output
    return out.output


def _rows(path: Path) -> list[dict[str, str]]:
    """The games of an evaluate CSV."""
    with path.open() as fh:
        return list(csv.DictReader(fh))


def _share_line(output: str, bot: str) -> list[str]:
    """The cells of a bot's row in the printed win-share table."""
    for line in output.splitlines():
        cells = [c.strip() for c in line.strip("│ ").split("│")]
        if cells[0] == bot:
            return cells
    raise AssertionError(f"no row for {bot} in:\n{output}")


def test_rotations_keep_repeated_bots_and_name_a_seat_count_mismatch() -> None:
    """Every cyclic rotation is a seating, identical ones included; the count must match."""
    assert rotations(["solved", "counter", "counter"], 3) == [
        ("solved", "counter", "counter"),
        ("counter", "counter", "solved"),
        ("counter", "solved", "counter"),
    ]
    assert rotations(["random", "random"], 2) == [("random", "random")] * 2
    with pytest.raises(ValueError, match=r"3-player game seats 3 bots.*got 2 \(solved, counter\)"):
        rotations(["solved", "counter"], 3)


def test_every_chair_seats_each_bot_equally_often_in_the_csv(tmp_path: Path) -> None:
    """One honest and two random: in every chair honest sits n games and random 2n."""
    path = tmp_path / "games.csv"
    _evaluate(THREE, "--table", "honest,random,random", "-n", "7", "--csv", str(path))
    rows = _rows(path)
    assert len(rows) == 3 * 7
    for chair in range(3):
        assert Counter(r[f"seat{chair}"] for r in rows) == {"honest": 7, "random": 14}
    assert Counter(r["seating"] for r in rows) == {"0": 7, "1": 7, "2": 7}
    assert {r["deal"] for r in rows} == {"0"}  # one table: every rotation shares the deals


def test_duplicate_rotations_of_a_repeated_table_replay_the_same_deals() -> None:
    """Same seed: game g of every rotation starts from the same hands; games differ."""
    config, _ = resolve_game(THREE)
    game = pyspiel.load_game(config.game_string())
    result = run_tournament(
        config, ["counter", "random", "random"], 4, seed=9, duplicate=True, fixed_table=True
    )
    assert result.bots == ["counter", "random"]
    assert len(result.records) == 12
    hands: dict[int, set[tuple]] = {}
    for r in result.records:
        first: list[tuple] = []

        def note(state, bot, action, first=first):
            if not first:
                first.append(tuple(tuple(view.hand(state.s, p)) for p in range(3)))

        rngs = game_rngs(9, r.seating, r.game, 3, r.deal)
        winner, turns, _ = play_game_bots(game, r.seats, rngs, on_decision=note)
        assert (winner, turns) == (r.winner, r.turns)  # the record replays from its deal
        hands.setdefault(r.game, set()).add(first[0])
    assert all(len(v) == 1 for v in hands.values())  # one deal per game across the rotations
    assert len({next(iter(v)) for v in hands.values()}) > 1  # and the games' deals differ


def test_fixed_table_results_do_not_depend_on_worker_count() -> None:
    """Same seed: identical records on 1 and 2 workers."""
    config, _ = resolve_game(THREE)
    seats = ["bluffer", "random", "random"]
    one = run_tournament(config, seats, 3, seed=4, workers=1, duplicate=True, fixed_table=True)
    two = run_tournament(config, seats, 3, seed=4, workers=2, duplicate=True, fixed_table=True)
    assert one.records == two.records


def test_honest_against_two_random_wins_far_above_its_fair_share(tmp_path: Path) -> None:
    """A bot that never bluffs beats uniform play: well above 1/3; the randoms pool below it."""
    path = tmp_path / "games.csv"
    out = _evaluate(THREE, "--table", "honest,random,random", "-n", "30", "--csv", str(path))
    assert "fair share 1/3 = 0.333" in out and "pooled" in out
    rows = _rows(path)
    honest_wins = sum(r["winner_bot"] == "honest" for r in rows)
    assert honest_wins / len(rows) > 0.6
    cells = _share_line(out, "honest")
    assert cells[1:5] == ["1", "90", str(honest_wins), "0"]  # seats, games, wins, draws
    assert cells[-2] == "above"
    low = float(cells[5].split("[")[1].split(",")[0])
    assert low > 1 / 3
    random_cells = _share_line(out, "random")
    random_wins = sum(r["winner_bot"] == "random" for r in rows)
    share = float(random_cells[5].split()[0])
    assert random_cells[1] == "2" and share == pytest.approx(random_wins / 180, abs=5e-4)
    assert random_cells[-2] == "below"


def test_a_symmetric_table_of_random_bots_pools_to_the_fair_share() -> None:
    """Three copies of one bot: their pooled share is 1/3 less draws; the interval holds 1/3."""
    config, _ = resolve_game(THREE)
    result = run_tournament(config, ["random"] * 3, 40, seed=2, duplicate=True, fixed_table=True)
    row = result.table_shares().iloc[0]
    draws = sum(r.capped for r in result.records)
    assert row["bot"] == "random" and row["copies"] == 3 and row["games"] == 120
    assert row["share"] == pytest.approx((120 - draws) / 360)
    assert abs(row["share"] - 1 / 3) < 0.02
    assert row["ci_low"] <= 1 / 3 <= row["ci_high"] and row["verdict"] == "-"
    seat_rates = [row[f"seat{p}"] for p in range(3)]
    assert sum(seat_rates) == pytest.approx((120 - draws) / 120)


def test_a_table_of_two_plays_both_seatings(tmp_path: Path) -> None:
    """At 2 players: both rotations, duplicate by default, honest above 1/2 against random."""
    path = tmp_path / "games.csv"
    out = _evaluate(TWO, "--table", "honest,random", "-n", "20", "--csv", str(path))
    rows = _rows(path)
    assert Counter((r["seat0"], r["seat1"]) for r in rows) == {
        ("honest", "random"): 20,
        ("random", "honest"): 20,
    }
    assert "duplicate deals" in out and "fair share 1/2 = 0.500" in out
    assert _share_line(out, "honest")[-2] == "above"


def test_a_policy_directory_takes_a_seat(strategy_dir: Path) -> None:
    """Any bot spec of --bots works in --table, a strategy directory included."""
    out = _evaluate("ladder-1-ambassador", "--table", f"policy:{strategy_dir},random", "-n", "3")
    assert _share_line(out, f"policy:{strategy_dir}")[1:3] == ["1", "6"]


def test_piped_table_keeps_each_row_on_one_line() -> None:
    """Not a terminal (80 columns set): each bot's interval stays on its row."""
    res = run_cli(
        "evaluate", THREE, "--table", "counter,random,random", "-n", "2", "--workers", "1"
    )
    assert res.returncode == 0, res.stderr
    for bot in ("counter", "random"):
        assert "[" in _share_line(res.stdout, bot)[5]


@pytest.mark.parametrize(
    "args, needles",
    [
        (("--table", "solved,counter"), ("--table", "3 bots", "got 2")),
        (("--table", "honest,counter,counter,counter"), ("--table", "3 bots", "got 4")),
        (("--table", "solved,counter,nobody"), ("--table", "nobody")),
        (("--table", "honest,,random"), ("--table", "empty seat")),
        (("--bots", "honest,random", "--table", "honest,random,random"), ("--bots", "--table")),
        ((), ("--bots", "--table")),
        (("--bots", "counter,counter,random"), ("distinct", "--table")),
    ],
)
def test_bad_tables_exit_2_in_one_line(args: tuple[str, ...], needles: tuple[str, ...]) -> None:
    """Wrong seat count, unknown or empty seat, both or neither option: one line, exit 2."""
    res = run_cli("evaluate", THREE, *args, "--workers", "1")
    one_line_error(res, *needles)
    assert "Traceback" not in res.stderr and res.stdout == ""
