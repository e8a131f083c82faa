"""complots play and complots evaluate, driven like a user would."""

from __future__ import annotations

import csv
import subprocess
import sys

from click.testing import CliRunner

from complots_solver.cli.main import cli
from complots_solver.play.terminal import play_session
from complots_solver.rules.presets import resolve_game
from tests.play.conftest import STRATEGY_GAME

ALWAYS_FIRST = "1\n" * 5000  # enough answers for any game at the 200-turn cap


def run_cli(*args: str) -> subprocess.CompletedProcess:
    """Run `complots ARGS` in a subprocess and capture output."""
    code = "from complots_solver.cli.main import main; main()"
    return subprocess.run(
        [sys.executable, "-c", code, *args], capture_output=True, text=True, timeout=300
    )


def test_play_to_the_end_with_bad_input_and_hints():
    """Bad answers re-prompt with a message; '?' gives advice; the game ends."""
    runner = CliRunner()
    script = "banana\n0\n99\n?\n" + ALWAYS_FIRST
    res = runner.invoke(
        cli,
        ["play", "draft-ambassador", "--against", "counter", "--seed", "3", "--show-strategy"],
        input=script,
    )
    assert res.exit_code == 0, res.output
    out = res.output
    assert "'banana' is not a legal move: enter a number from 1 to 5" in out
    assert "'0' is not a legal move" in out and "'99' is not a legal move" in out
    assert "advice: Pick" in out
    assert "  1. Pick Duchess" in out  # numbered, readable legal actions
    assert "P1 (counter) strategy:" in out
    assert "your hand:" in out and "face up [" in out
    assert "Game over:" in out


def test_play_by_name_as_second_seat():
    """Moves may be typed by name; seat 1 is dealt second."""
    runner = CliRunner()
    script = "pick captain\n" + ALWAYS_FIRST
    res = runner.invoke(
        cli,
        ["play", "draft-inquisitor", "--against", "bluffer", "--seat", "1", "--seed", "5"],
        input=script,
    )
    assert res.exit_code == 0, res.output
    assert "> P1 Pick Captain" in res.output
    assert "Game over:" in res.output


def test_play_against_a_strategy_shows_its_probabilities(strategy_dir):
    """A solved strategy plays, and its probabilities are printed at its decisions."""
    runner = CliRunner()
    res = runner.invoke(
        cli,
        [
            "play",
            STRATEGY_GAME,
            "--against",
            f"policy:{strategy_dir}",
            "--show-strategy",
            "--seed",
            "1",
        ],
        input=ALWAYS_FIRST,
    )
    assert res.exit_code == 0, res.output
    assert f"P1 (policy:{strategy_dir}) strategy:" in res.output
    assert "Game over:" in res.output


def _play(*args: str, script: str) -> str:
    """Output of `complots play ARGS` fed ``script`` (CliRunner: exit code 0 asserted)."""
    res = CliRunner().invoke(cli, ["play", *args], input=script)
    assert res.exit_code == 0, res.output
    assert res.exception is None
    return res.output


def test_scripted_game_names_claims_narrates_challenges_and_plays_forced_moves():
    """A scripted game: the prompt names the claim, a lost challenge is explained, and
    revealing one's last card is played automatically."""
    # pick Duchess, Income, accept Tax, Income, challenge the Assassin, reveal the Duchess,
    # accept the assassination; the last card's reveal is forced
    out = _play(
        "draft-inquisitor", "--against", "counter", "--seed", "3", script="1\n1\n1\n1\n2\n1\n1\n"
    )
    assert "three piles" in out and "the four cards not picked leave the game" in out
    assert "P1 claims the Duchess (Tax): challenge or accept?" in out
    assert (
        "P1 claims the Assassin against you (Assassinate you): challenge or accept? "
        "(if you accept, you may then counter as the Countess)" in out
    )
    assert "1. Pass (accept)" in out
    assert "You challenge P1's Assassin: P1 had the Assassin" in out
    assert "you lose a card" in out
    assert "P1 announces Assassinate you: counter as Countess, or accept?" in out
    assert "only Reveal Countess is possible, played for you." in out
    assert "You turn Countess face up and you are out of the game" in out
    assert "Game over: P1 (counter) wins." in out
    assert "1 coin," in out and "1 coins" not in out


def test_play_prints_the_table_only_when_it_changed():
    """A 6-player game: the table is shown only before the person's decisions, never twice
    the same in a row, and the other seats' passes share a line."""
    out = _play("complots-ambassador-6", "--against", "counter", "--seed", "2", script=ALWAYS_FIRST)
    lines = out.splitlines()
    ends = [i for i, line in enumerate(lines) if line.startswith("  your hand:")]
    boards = ["\n".join(lines[i - 6 : i + 1]) for i in ends]
    assert all(a != b for a, b in zip(boards, boards[1:], strict=False))
    assert len(boards) <= out.count("Choose 1-") + 1
    assert "> P2, P3, P4, P5 pass" in lines


def test_play_ends_quietly_at_end_of_input():
    """End of input leaves the game: exit code 0, the standing so far, no 'Aborted!'."""
    out = _play("draft-inquisitor", "--against", "counter", "--seed", "3", script="1\n1\n")
    assert "Game left at turn 2. So far: you: 2 cards, 2 coins; P1: 2 cards, 2 coins." in out
    assert "Aborted" not in out and "Game over" not in out


def test_ctrl_c_at_a_prompt_ends_with_the_standing():
    """Ctrl-C at a prompt (KeyboardInterrupt) returns None after saying the standing."""
    config, _ = resolve_game("draft-ambassador")
    said: list[str] = []

    def interrupt(text: str) -> str:
        raise KeyboardInterrupt

    assert play_session(config, "random", 0, 1, interrupt, said.append) is None
    assert said[-1].startswith("Game left at turn 1. So far: you: 1 card, 1 coin; P1:")


def test_a_character_name_picks_the_move_that_names_it():
    """'captain' picks 'Pick Captain'; 'inc' is Income; an ambiguous word asks for the number."""
    out = _play(
        "draft-inquisitor", "--against", "counter", "--seed", "3", script="captain\nP1\ninc\n"
    )
    assert "> P0 Pick Captain" in out
    assert "'P1' could be Steal from P1, Examine P1: type the number." in out
    assert "> P0 Income" in out


def test_play_quit_and_errors():
    """'q' leaves; a bad bot or seat exits 2 with one line."""
    runner = CliRunner()
    res = runner.invoke(
        cli, ["play", "draft-ambassador", "--against", "random", "--seed", "1"], input="q\n"
    )
    assert res.exit_code == 0 and "You left the game." in res.output
    bad = run_cli("play", "draft-ambassador", "--against", "nobody")
    assert bad.returncode == 2 and "bot must be one of" in bad.stderr
    assert len(bad.stderr.strip().splitlines()) == 1
    seat = run_cli("play", "draft-ambassador", "--against", "random", "--seat", "2")
    assert seat.returncode == 2 and "--seat" in seat.stderr


def test_evaluate_table_csv_and_reproducibility(tmp_path):
    """evaluate prints standings with CIs and ratings, writes CSV, same seed same table."""
    path = tmp_path / "res.csv"
    args = (
        "evaluate",
        "draft-ambassador",
        "--bots",
        "counter,random",
        "--games",
        "20",
        "--seed",
        "4",
    )
    first = run_cli(*args, "--csv", str(path), "--workers", "2")
    assert first.returncode == 0, first.stderr
    out = first.stdout
    for needle in ("Standings", "95% CI", "BT rating", "Head to head", "Win rate by seat", "draws"):
        assert needle in out
    rows = list(csv.DictReader(path.open()))
    assert len(rows) == 40
    second = run_cli(*args, "--workers", "1")
    table = lambda text: [ln for ln in text.splitlines() if ln.startswith("│")]  # noqa: E731
    assert table(first.stdout) == table(second.stdout)
    bad = run_cli("evaluate", "draft-ambassador", "--bots", "counter", "--games", "2")
    assert bad.returncode == 2 and "at least 2 bots" in bad.stderr


def _drive(game: str, moves: list[str]):
    """A state of GAME after ``moves`` (action names; chance takes its first outcome)."""
    import pyspiel

    import complots_solver.openspiel  # noqa: F401

    state = pyspiel.load_game(resolve_game(game)[0].game_string()).new_initial_state()
    queue = list(moves)
    while queue or state.is_chance_node():
        if state.is_chance_node():
            state.apply_action(state.chance_outcomes()[0][0])
            continue
        name = queue.pop(0)
        player = state.current_player()
        by_name = {state.action_to_string(player, a): a for a in state.legal_actions()}
        state.apply_action(by_name[name])
    return state


def test_questions_of_examine_and_spy_name_what_is_decided():
    """The Inquisitor is told which card was shown; the Espion is asked to draw again or pass."""
    from complots_solver.play.terminal import question

    state = _drive(
        "draft-inquisitor", ["Pick Duchess", "Pick Captain", "Examine P1", "Pass", "Show Captain"]
    )
    assert question(state, 0) == "P1 shows you their Captain: give it back or force a swap?"
    spy = _drive("complots2-catechumene", ["Spy", "Pass", "Pass", "Pass"])
    names = [spy.action_to_string(0, a) for a in spy.legal_actions()]
    keep = next(n for n in names if n.startswith("Keep"))
    spy = _drive("complots2-catechumene", ["Spy", "Pass", "Pass", "Pass", keep])
    assert question(spy, 0) == "Draw again for 1 coin, or pass?"
