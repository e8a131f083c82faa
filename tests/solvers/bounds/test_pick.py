"""Picking a self-play run's best kept network (``complots pick``): the lowest gain is chosen and
measured again at other seeds, every measurement is recorded as it ends so a killed pick resumes,
and the choice is written as a whole strategy folder whose state file a warm start continues."""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
from dataclasses import replace

import numpy as np
import pytest

from complots_solver.rules.presets import resolve_game
from complots_solver.solvers.bounds import pick as picking
from complots_solver.solvers.common.driver import Budget
from complots_solver.solvers.nets.tablenet import TableNet
from complots_solver.solvers.selfplay.responder import ResponderResult
from complots_solver.solvers.selfplay.run import KIT_FILE, SelfPlayRun, read_kit
from complots_solver.solvers.selfplay.train import SelfPlaySettings

PRESET = "complots-inquisitor-3"
SMALL = SelfPlaySettings(
    games=4, parallel=4, width=8, bot_share=0.0, snapshot_every=1, snapshots=2, keep_every=2
)  # fmt: skip
GAINS = {2: 0.20, 4: 0.03, 6: 0.11}  # the fake responder's gain against each kept network
GAMES = 300  # the fake responder's measuring games in all


@pytest.fixture(scope="module")
def config():
    return resolve_game(PRESET)[0]


@pytest.fixture(scope="module")
def run(config, tmp_path_factory):
    """A run of six iterations written after each (as checkpoints would): kept at 2, 4 and 6."""
    folder = tmp_path_factory.mktemp("run")
    for iterations in range(1, 7):
        SelfPlayRun(folder, config, SMALL, seed=3, resume=iterations > 1).run(
            Budget(iterations=iterations)
        )
    return folder


def _copy_run(run, tmp_path):
    """A fresh copy of the run, so that each test starts with no picks.json."""
    out = tmp_path / "run"
    shutil.copytree(run, out)
    return out


class FakeResponder:
    """Answers with the gain ``GAINS`` gives the kept network it is shown; counts its calls."""

    def __init__(self, run, fail_after: int | None = None, seed_shift: float = 0.0):
        self.nets = {
            it: TableNet.load(picking.kept_folder(run, it) / "policy-net.npz") for it in GAINS
        }
        self.calls: list[tuple[int, int, int, int]] = []
        self.fail_after = fail_after
        self.seed_shift = seed_shift

    def iteration_of(self, net: TableNet) -> int:
        for it, kept in self.nets.items():
            same = zip(net.params(), kept.params(), strict=True)
            if all(np.array_equal(a, b) for a, b in same):
                return it
        raise AssertionError("a network the run never kept")

    def __call__(self, net, budget, games, seed):
        if self.fail_after is not None and len(self.calls) >= self.fail_after:
            raise KeyboardInterrupt("killed")
        it = self.iteration_of(net)
        self.calls.append((it, budget, games, seed))
        gain = GAINS[it] + self.seed_shift * (seed - 1)
        wins = round((1 / 3 + gain) * GAMES)
        seats = (wins // 3, wins // 3, wins - 2 * (wins // 3))
        return ResponderResult(3, GAMES, wins, seats, (100, 100, 100), 1, budget, 2.0, 0)


def test_the_lowest_gain_is_chosen_and_confirmed_at_other_seeds(config, run, tmp_path):
    """Kept 2, 4 and 6 measured at seed 1; 4 (the lowest) measured again at seeds 2 and 3."""
    folder = _copy_run(run, tmp_path)
    fake = FakeResponder(folder, seed_shift=0.01)
    chosen = picking.pick(folder, config, 500, 100, 1, 2, fake)
    assert chosen.iteration == 4
    assert [c[0] for c in fake.calls] == [2, 4, 6, 4, 4]
    assert [c[3] for c in fake.calls] == [1, 1, 1, 2, 3]
    assert all(c[1:3] == (500, 100) for c in fake.calls)
    assert [m.seed for m in chosen.confirm] == [2, 3]
    assert chosen.confirm[1].figure()[0] == pytest.approx(0.05, abs=0.004)


def test_last_measures_only_the_newest(config, run, tmp_path):
    """--last 2 measures kept 4 and 6, never 2."""
    folder = _copy_run(run, tmp_path)
    fake = FakeResponder(folder)
    chosen = picking.pick(folder, config, 500, 100, 1, 0, fake, last=2)
    assert [c[0] for c in fake.calls] == [4, 6] and chosen.iteration == 4


def test_a_killed_pick_resumes_and_other_settings_measure_again(config, run, tmp_path):
    """Killed during the second measurement, the first is on disk; the next call measures only
    what is missing; another budget measures everything again."""
    folder = _copy_run(run, tmp_path)
    with pytest.raises(KeyboardInterrupt):
        picking.pick(folder, config, 500, 100, 1, 1, FakeResponder(folder, fail_after=1))
    assert [m.iteration for m in picking.read_picks(folder)] == [2]
    again = FakeResponder(folder)
    chosen = picking.pick(folder, config, 500, 100, 1, 1, again)
    assert [c[0] for c in again.calls] == [4, 6, 4] and chosen.iteration == 4
    other = FakeResponder(folder)
    picking.pick(folder, config, 600, 100, 1, 0, other)
    assert [c[0] for c in other.calls] == [2, 4, 6]
    assert len(picking.read_picks(folder)) == 7


def test_a_tie_goes_to_the_earlier_network():
    """Equal gains: the network reached in fewer iterations."""
    result = ResponderResult(3, 300, 130, (40, 40, 50), (100, 100, 100), 1, 256, 1.0, 0)
    worse = ResponderResult(3, 300, 160, (50, 50, 60), (100, 100, 100), 1, 256, 1.0, 0)
    ms = [
        picking.KeptGain.of(it, 1, 256, 100, r) for it, r in ((6, result), (4, result), (2, worse))
    ]
    assert picking.choose(ms) == 4
    with pytest.raises(ValueError, match="nothing measured"):
        picking.choose([])


def test_the_picked_folder_is_a_whole_strategy_a_warm_start_continues(config, run, tmp_path):
    """picked/ holds the chosen network weight for weight, the log up to it, a meta.json with
    the figures (quality from the confirming seeds, labelled weak above 0.05), and a state file
    that loads without pickle and starts a warm start at the chosen iteration."""
    folder = _copy_run(run, tmp_path)
    fake = FakeResponder(folder, seed_shift=0.01)
    chosen = picking.pick(folder, config, 500, 100, 1, 2, fake)
    out = picking.write_picked(folder, config, chosen, "complots pick RUN")
    assert out == folder / "picked" and not (folder / "picked.part").exists()
    mine = TableNet.load(out / "policy-net.npz")
    assert fake.iteration_of(mine) == 4
    log = (out / "training.csv").read_text().splitlines()
    assert [int(r.split(",")[0]) for r in log[1:]] == [1, 2, 3, 4]
    meta = json.loads((out / "meta.json").read_text())
    assert meta["training_iterations"] == 4 and meta["training_games"] == 16
    assert [c["iteration"] for c in meta["picked"]["candidates"]] == [2, 4, 6]
    assert [c["seed"] for c in meta["picked"]["confirm"]] == [2, 3]
    assert meta["quality"].startswith("WEAK") and "at seeds 2, 3" in meta["quality"]
    assert meta["responder_gain"]["gain"] == round(chosen.confirm[0].figure()[0], 4)
    assert meta["responder_gain"]["command"].endswith("(seed 2)")
    arrays, kit_meta = read_kit(out, config)
    assert int(arrays["iteration"]) == 4 and kit_meta["seed"] == 3
    warm = SelfPlayRun(tmp_path / "warm", config, SMALL, seed=5, warm_start=out)
    assert warm.trainer.iteration == 4
    for a, b in zip(warm.trainer.net.params(), mine.params(), strict=True):
        np.testing.assert_array_equal(a, b)
    # picked again with other figures: the folder is replaced whole
    picking.write_picked(folder, config, replace(chosen, confirm=()), "again")
    assert json.loads((out / "meta.json").read_text())["command"] == "again"
    assert (out / KIT_FILE).is_file()


def test_a_run_that_kept_nothing_is_refused(config, tmp_path):
    """keep_every=0: the error names the option to use."""
    folder = tmp_path / "bare"
    SelfPlayRun(folder, config, replace(SMALL, keep_every=0), seed=1).run(Budget(iterations=1))
    with pytest.raises(ValueError, match="keep_every=K"):
        picking.read_run(folder)
    (tmp_path / "config.json").write_text('{"algorithm": "cfr+"}')
    with pytest.raises(ValueError, match="holds a cfr\\+ run"):
        picking.read_run(tmp_path)
    with pytest.raises(ValueError, match="no config.json"):
        picking.read_run(tmp_path / "nowhere")


def test_the_command_line_picks_with_a_real_responder(run, tmp_path):
    """complots pick with a tiny budget: exit 0, picks.json and picked/ written; bad input exits
    2 with one line."""
    folder = _copy_run(run, tmp_path)

    def cli(*args):
        code = "from complots_solver.cli.main import main; main()"
        return subprocess.run(
            [sys.executable, "-c", code, "pick", *args], capture_output=True, text=True
        )

    res = cli(str(folder), "--budget", "256", "--games", "2", "--confirm", "1", "--last", "2")
    assert res.returncode == 0, res.stderr
    assert "chosen: iteration" in res.stdout
    measures = picking.read_picks(folder)
    assert sorted(m.iteration for m in measures if m.seed == 1) == [4, 6]
    assert [m.seed for m in measures if m.seed != 1] == [2]
    assert len(measures) == 3 and all(sum(m.seat_games) == 6 for m in measures)
    assert (folder / "picked" / KIT_FILE).is_file()
    for args, words in (
        ((str(tmp_path / "nowhere"),), "is not a run folder"),
        ((str(folder), "--games", "1"), "--games"),
        ((str(folder), "--confirm", "-1"), "--confirm"),
    ):
        res = cli(*args)
        assert res.returncode == 2 and words in res.stderr, res.stderr
        assert "Traceback" not in res.stderr and len(res.stderr.strip().splitlines()) == 1


def test_a_regret_run_is_picked_by_its_snapshots_mean_return(tmp_path, monkeypatch):
    """A 2-player regret run (snapshots every 2 iterations here): the figure is the mean return
    per game, the lowest is chosen, and the folder carries the snapshot's own regret state,
    which a warm start continues at its iteration."""
    import complots_solver.solvers.regret.run as regret_run
    from complots_solver.solvers.regret.sampler import RegretSettings

    monkeypatch.setattr(regret_run, "SNAPSHOT_EVERY", 2)
    config = resolve_game("ladder-1-ambassador")[0]
    settings = RegretSettings(games=20, steps=4, average_steps=4, width=8, average=2000)
    folder = tmp_path / "regret"
    regret_run.RegretRun(folder, config, settings, seed=2).run(Budget(iterations=6))
    nets = {
        it: TableNet.load(folder / "snapshots" / f"iteration-{it}" / "policy-net.npz")
        for it in (2, 4, 6)
    }
    # wins and losses in 200 games: iteration 4 concedes least ((70 - 60) / 200 = +0.05 a game)
    record = {2: (110, 60), 4: (70, 60), 6: (90, 60)}

    def measure(net, budget, games, seed):
        it = next(i for i, k in nets.items() if all(
            np.array_equal(a, b) for a, b in zip(net.params(), k.params(), strict=True)))  # fmt: skip
        wins, losses = record[it]
        draws = 200 - wins - losses
        return ResponderResult(2, 200, wins, (wins // 2, wins - wins // 2), (100, 100), 1,
                               budget, 1.0, draws)  # fmt: skip

    chosen = picking.pick(folder, config, 300, 100, 1, 1, measure)
    assert chosen.iteration == 4
    assert chosen.chosen.figure()[0] == pytest.approx(0.05)
    out = picking.write_picked(folder, config, chosen, "complots pick RUN")
    meta = json.loads((out / "meta.json").read_text())
    assert meta["picked"]["figure"] == "mean return per game"
    assert meta["exploitability_bound"]["responder"]["exploitability_lower_bound"] == 0.05
    assert meta["training_iterations"] == 4
    logged = np.loadtxt(folder / "training.csv", delimiter=",", skiprows=1)[:4, -1]
    assert np.all(logged > 0)  # each iteration's own seconds, summed to the one picked
    assert meta["training_seconds"] == pytest.approx(round(logged.sum(), 1), abs=0.06)
    warm = regret_run.RegretRun(tmp_path / "warm", config, settings, seed=3, warm_start=out)
    assert warm.trainer.iteration == 4
    for a, b in zip(warm.trainer.policy().params(), nets[4].params(), strict=True):
        np.testing.assert_array_equal(a, b)


def test_the_training_seconds_are_summed_only_when_every_row_has_them(tmp_path):
    log = tmp_path / "training.csv"
    log.write_text("iteration,games,seconds\n1,10,nan\n2,20,1.5\n3,30,2.0\n")
    assert picking._log_until(log, 3)[1:] == (None, 30)  # resumed after the column was added
    log.write_text("iteration,games,seconds\n1,10,1.0\n2,20,1.5\n3,30,2.0\n")
    lines, seconds, games = picking._log_until(log, 2)
    assert (len(lines), seconds, games) == (3, 2.5, 20)
    log.write_text("iteration,games\n1,10\n2,20\n")
    assert picking._log_until(log, 2)[1] is None
