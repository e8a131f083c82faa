"""Golden playthroughs: regenerate each seeded game in memory and compare line by line.

A difference means a rule, string or observation changed; if intended, rerun
``python scripts/make_playthroughs.py`` and review the diff of the .txt files.
"""

from __future__ import annotations

import pytest

from tests.helpers import load_script

MP = load_script("make_playthroughs")


def test_every_two_player_configuration_has_a_playthrough() -> None:
    games = {g for g, _ in MP.PLAYTHROUGHS.values()}
    assert games == {
        "complots(players=2,lineup=ambassador)",
        "complots(players=2,lineup=inquisitor)",
        "complots(players=2,variant=deal)",
        "complots(players=2,influence=1)",
        "complots(players=2,influence=1,lineup=inquisitor)",
        "complots(players=2,variant=deal,characters=bourreau+espion+justicier+sorciere+ursuline)",
        "complots(players=3,characters=maitre-chanteur+espion+pape+croque-mort+illusionniste)",
    }


@pytest.mark.parametrize("stem", sorted(MP.PLAYTHROUGHS))
def test_playthrough_matches(stem: str) -> None:
    game_string, seed = MP.PLAYTHROUGHS[stem]
    path = MP.path_of(stem)
    assert path.exists(), f"missing {path}; run python scripts/make_playthroughs.py"
    expected = path.read_text().splitlines()
    actual = MP.render(game_string, seed).splitlines()
    for i, (want, got) in enumerate(zip(expected, actual, strict=False)):
        assert got == want, f"{path.name} line {i + 1} differs:\n  file: {want}\n  now:  {got}"
    assert len(actual) == len(expected), f"{path.name}: {len(expected)} lines, now {len(actual)}"
    assert expected[-1].startswith("returns: ")


def test_check_mode_passes() -> None:
    assert MP.main(["--check"]) == 0
