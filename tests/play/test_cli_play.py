"""complots play and complots evaluate, driven like a user would."""

from __future__ import annotations

import csv
import json
import re
import subprocess
import sys

import numpy as np
from click.testing import CliRunner

from complots_solver.cli.main import cli
from complots_solver.play.terminal import play_session
from complots_solver.rules.presets import resolve_game
from complots_solver.rules.text import action_to_string
from complots_solver.solvers.common.hashing import bytes_digest
from tests.play.conftest import STRATEGY_GAME

ALWAYS_FIRST = "1\n" * 5000  # enough answers for any game at the 200-turn cap


def run_cli(*args: str, stdin: str | None = None) -> subprocess.CompletedProcess:
    """Run `complots ARGS` in a subprocess (``stdin`` on its standard input), capture output."""
    code = "from complots_solver.cli.main import main; main()"
    return subprocess.run(
        [sys.executable, "-c", code, *args],
        input=stdin,
        capture_output=True,
        text=True,
        timeout=300,
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
    assert "> You pick the Captain" in res.output
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
    forced = [line for line in out.splitlines() if "played for you" in line]
    assert forced and all("Reveal" not in line for line in forced)  # said, not named raw
    assert "> You turn the Countess face up and are out of the game" in out
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
    assert "> P2, P3, P4 and P5 let it pass" in lines


def test_play_ends_quietly_at_end_of_input():
    """End of input leaves the game: exit code 0, the standing so far, no 'Aborted!'."""
    out = _play("draft-inquisitor", "--against", "counter", "--seed", "3", script="1\n1\n")
    assert (
        "Game left after your 1st turn. So far: you: 2 cards, 2 coins; P1: 2 cards, 2 coins." in out
    )
    assert "Aborted" not in out and "Game over" not in out


def test_ctrl_c_at_a_prompt_ends_with_the_standing():
    """Ctrl-C at a prompt (KeyboardInterrupt) returns None after saying the standing."""
    config, _ = resolve_game("draft-ambassador")
    said: list[str] = []

    def interrupt(text: str) -> str:
        raise KeyboardInterrupt

    assert play_session(config, "random", 0, 1, interrupt, said.append) is None
    assert said[-1].startswith("Game left during the draft. So far: you: 1 card, 1 coin; P1:")


def test_a_character_name_picks_the_move_that_names_it():
    """'captain' picks 'Pick Captain'; 'inc' is Income; an ambiguous word asks for the number."""
    out = _play(
        "draft-inquisitor", "--against", "counter", "--seed", "3", script="captain\nP1\ninc\n"
    )
    assert "> You pick the Captain" in out
    assert "'P1' could be Steal from P1, Examine P1: type the number." in out
    assert "> You take Income (1 coin)" in out


def test_play_quit_and_errors():
    """'q' leaves; a bad bot or seat exits 2 with one line."""
    runner = CliRunner()
    res = runner.invoke(
        cli, ["play", "draft-ambassador", "--against", "random", "--seed", "1"], input="q\n"
    )
    assert res.exit_code == 0 and "You left the game during the draft." in res.output
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


# The character each action of the Inquisitor line-up claims, from the rulebook (docs/rules.md)
INQUISITOR_CLAIMS = {
    "Income": None,
    "Foreign Aid": None,
    "Coup on": None,
    "Tax": "Duchess",
    "Assassinate": "Assassin",
    "Steal from": "Captain",
    "Exchange": "Inquisitor",
    "Examine": "Inquisitor",
}
MENU_ITEM = re.compile(r"^  \d+\. (.+?)(?:  +(.*))?$")


def _turn_menus(out: str) -> list[tuple[int, list[str], list[tuple[str, str]]]]:
    """Each turn's menu: (its number in 'Your Nth turn', the hand shown last, its items)."""
    menus = []
    hand: list[str] = []
    lines = out.splitlines()
    for i, line in enumerate(lines):
        if line.startswith("  your hand: "):
            held = line.removeprefix("  your hand: ").split("   ")[0]
            hand = [] if held == "-" else held.split(", ")
        turn = re.match(r"^Your (\d+)(st|nd|rd|th) turn \(", line)
        if turn is None:
            continue
        items = []
        for item in lines[i + 1 :]:
            found = MENU_ITEM.match(item)
            if found is None:
                break
            items.append((found.group(1).strip(), found.group(2) or ""))
        menus.append((int(turn.group(1)), list(hand), items))
    return menus


def test_a_scripted_game_against_solved_reads_like_the_table_game():
    """`complots play draft-inquisitor --against solved` fed on standard input: every turn's
    menu names the character each move claims and marks those the hand does not hold, turns
    are the person's own (1st, 2nd, 3rd...), '?' says how to turn advice on, and every line
    about the table is a sentence, never a raw action name."""
    script = "duchess\n?\nexamine\n" + ALWAYS_FIRST
    res = run_cli("play", "draft-inquisitor", "--against", "solved", "--seed", "3", stdin=script)
    assert res.returncode == 0, res.stderr
    out = res.stdout
    assert "Game over:" in out
    # '?' without --show-strategy: how to turn the advice on, not a refusal
    assert "'?' is not a legal move" not in out
    assert "Advice is off: '?' works in a game started with --show-strategy" in out
    menus = _turn_menus(out)
    assert len(menus) >= 3
    assert [n for n, _, _ in menus] == list(range(1, len(menus) + 1))  # the person's turns
    bluffs = 0
    for _, hand, items in menus:
        assert hand, "a menu before any hand was shown"
        for name, note in items:
            kind = next(k for k in INQUISITOR_CLAIMS if name.startswith(k))
            claimed = INQUISITOR_CLAIMS[kind]
            if claimed is None:
                assert note == "", (name, note)
                continue
            bluff = claimed not in hand
            bluffs += bluff
            assert note == f"claims the {claimed}" + (" (bluff)" if bluff else ""), (name, hand)
    assert bluffs > 0
    assert out.count("(bluff: your hand does not hold that character") == 1  # said once
    # the examine chosen by name, narrated as a sentence
    assert "> You claim the Inquisitor to examine a card of P1" in out
    said = [line[2:] for line in out.splitlines() if line.startswith("> ")]
    config, _ = resolve_game("draft-inquisitor")
    raw = {action_to_string(config, a) for a in range(config.num_distinct_actions())}
    for line in said:
        for name in raw:
            assert not re.search(rf"\b(P\d|You) {re.escape(name)}$", line), line
        assert "?" not in line, line  # hidden cards are said in words ('P1 picks a card')
        assert not re.search(r"P\d, P\d pass", line), line
    assert "> P1 picks a card from their pile" in out


def test_a_seat_that_lets_an_assassination_pass_says_so_once():
    """Passing the challenge and then the counter of one Assassinate is one sentence."""
    config, _ = resolve_game("draft-inquisitor")
    said: list[str] = []
    shown: list[str] = []

    def echo(text: str) -> None:
        said.append(text)
        shown.append(text)

    def prompt(_: str) -> str:  # pick the Assassin, save up, assassinate, accept the rest
        menu = "\n".join(shown)
        shown.clear()
        for move in ("Pick Assassin", "Assassinate P1", "Income"):
            if f". {move}" in menu:
                return move
        return "accept" if "Pass (accept)" in menu else "1"

    play_session(config, "trusting", 0, 5, prompt, echo)
    lines = "\n".join(said).splitlines()
    announced = lines.index("> You claim the Assassin to assassinate P1 (paying 3 coins)")
    assert lines[announced + 1] == "> P1 lets it pass and does not counter"
    assert not any(", P1 pass" in line for line in lines)


def test_complots2_menus_name_the_complots2_characters():
    """The Complots 2 line-ups' powers name their own characters, bluffs marked by the hand."""
    from complots_solver.play.terminal import menu_notes
    from complots_solver.rules import view

    claims = {  # docs/complots2.md: each power and the character that gives it
        "Donate to": "Ursuline",
        "Execute": "Bourreau",
        "Justice on": "Justicier",
        "Spy": "Espion",
        "Illusion": "Illusionniste",
        "Blackmail": "Maître-Chanteur",
        "Tithe": "Pape",
    }
    for game in ("complots2-catechumene", "complots2-expert"):
        state = _drive(game, [])
        config = state.config
        hand = {config.clan_name(c) for c in range(5) if view.hidden(state.s, 0, c) > 0}
        legal = state.legal_actions()
        names = [state.action_to_string(0, a) for a in legal]
        notes = dict(zip(names, menu_notes(state, 0, legal, names), strict=True))
        checked = 0
        for name, note in notes.items():
            kind = next((k for k in claims if name.startswith(k)), None)
            if kind is None:
                continue
            bluff = " (bluff)" if claims[kind] not in hand else ""
            assert note == f"claims the {claims[kind]}{bluff}", (game, name, note)
            checked += 1
        assert checked >= 3, (game, notes)


def test_every_move_of_random_games_is_said_as_a_sentence():
    """Over random games of Complots 1 and 2, the narrator always has words of its own."""
    import pyspiel

    from complots_solver.play.terminal import narrate
    from complots_solver.rules.text import token_to_string

    rng = np.random.default_rng(0)
    for game_name in ("draft-inquisitor", "complots2-catechumene", "complots2-expert"):
        config, _ = resolve_game(game_name)
        game = pyspiel.load_game(config.game_string())
        for g in range(12):
            seat = g % config.players
            state = game.new_initial_state()
            while not state.is_terminal():
                if state.is_chance_node():
                    outcomes = state.chance_outcomes()
                    player, action = -1, outcomes[rng.integers(len(outcomes))][0]
                else:
                    player, legal = state.current_player(), state.legal_actions()
                    action = legal[rng.integers(len(legal))]
                before = state.s.copy()
                state.apply_action(action)
                line = narrate(before, state, player, action, seat)
                assert line != token_to_string(config, state.view_tokens(seat)[-1]), line
                assert "?" not in line, line


def test_an_unknown_game_is_named_before_a_missing_bot():
    """`complots play nosuchgame` names the game; a known game without --against asks for it."""
    bad = run_cli("play", "nosuchgame")
    assert bad.returncode == 2 and len(bad.stderr.strip().splitlines()) == 1
    assert "nosuchgame" in bad.stderr and "--against" not in bad.stderr
    missing = run_cli("play", "draft-inquisitor")
    assert missing.returncode == 2 and len(missing.stderr.strip().splitlines()) == 1
    assert "Missing option '--against'" in missing.stderr


def test_a_pickled_strategy_is_refused_by_name(strategy_dir, tmp_path):
    """A strategy.npz holding an object array (a pickle), its checksum in order, is refused in
    one line naming the file and why, never with numpy's own message."""
    bad = tmp_path / "pickled"
    bad.mkdir()
    with np.load(strategy_dir / "strategy.npz") as npz:
        arrays = {name: npz[name] for name in npz.files}
    payload = np.empty(1, dtype=object)
    payload[0] = ("os.system", "echo owned")
    arrays["average"] = payload
    np.savez(bad / "strategy.npz", **arrays)
    meta = json.loads((strategy_dir / "meta.json").read_text())
    meta["sha256"] = bytes_digest((bad / "strategy.npz").read_bytes())
    (bad / "meta.json").write_text(json.dumps(meta))
    res = run_cli("play", STRATEGY_GAME, "--against", f"policy:{bad}")
    assert res.returncode == 2 and len(res.stderr.strip().splitlines()) == 1
    assert f"{bad / 'strategy.npz'}: holds pickled objects; refused" in res.stderr
    assert "allow_pickle" not in res.stderr


def test_piped_evaluate_tables_keep_their_natural_width():
    """Piped to a file, the tables are as wide as they need: no interval split over two lines."""
    res = run_cli(
        "evaluate", "draft-ambassador", "--bots", "counter,random", "--games", "3", "--workers", "1"
    )
    assert res.returncode == 0, res.stderr
    rows = [line for line in res.stdout.splitlines() if line.startswith("│")]
    assert rows and max(len(line) for line in rows) > 80  # wider than rich's 80 for a pipe
    for line in rows:
        assert re.search(r"\[\d\.\d{3}, \d\.\d{3}\]", line), line
    standings = [
        line for line in rows if line.startswith("│ counter ") or line.startswith("│ random ")
    ]
    assert len(standings) == 4  # two standings rows, two head-to-head rows


def test_tables_on_a_terminal_fit_its_width(monkeypatch):
    """On a terminal a table still fits the terminal's width (cells wrap there)."""
    import io

    from rich.console import Console
    from rich.table import Table

    from complots_solver.cli import main as cli_main

    screen = io.StringIO()
    terminal = Console(file=screen, force_terminal=True, width=40, color_system=None)
    monkeypatch.setattr(cli_main, "console", terminal)
    table = Table(title="t")
    for col in ("bot", "95% CI", "meaning"):
        table.add_column(col)
    table.add_row(
        "counter", "[0.444, 0.858]", "a long explanation that cannot fit in forty columns"
    )
    cli_main.print_table(table)
    lines = screen.getvalue().splitlines()
    assert len(lines) > 5 and max(len(line) for line in lines) <= 40
