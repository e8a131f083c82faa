"""The algorithm settings of ``complots solve``: one table per method, checked and documented.

``complots solve`` takes a few common options (``--algorithm``, ``-n``,
``--seconds``, ``--out``, ``--resume``, ``--force``, ``--seed``, ``--workers``);
every other setting is ``--option KEY=VALUE`` or a key of a ``--config`` JSON
file, checked here against the chosen method's table (built from its settings
dataclass). ``complots solve --list-options [ALGORITHM]`` prints the tables and
``docs/solve-options.md`` holds them (a test keeps the two equal).
"""

from __future__ import annotations

from typing import Any

from complots_solver.solvers.belief.run import BeliefRunSettings
from complots_solver.solvers.common.options import OptionSpec, option_table, parse_value
from complots_solver.solvers.exact.cfr import ALGORITHMS as EXACT_ALGORITHMS
from complots_solver.solvers.exact.run import SolveSettings
from complots_solver.solvers.mccfr.run import MCCFRSettings
from complots_solver.solvers.regret.sampler import RegretSettings
from complots_solver.solvers.selfplay.train import SelfPlaySettings

MCCFR_ALGORITHMS = {"es-mccfr": "es", "os-mccfr": "os"}
BELIEF = "belief"
SELFPLAY = "selfplay"
REGRET = "regret"
ALGORITHMS = (*EXACT_ALGORITHMS, *MCCFR_ALGORITHMS, BELIEF, SELFPLAY, REGRET)
COMMON = ("algorithm", "iterations", "seconds", "seed", "workers")
FAMILY_NAMES = {
    "exact": "exact algorithms",
    "mccfr": "es-mccfr and os-mccfr",
    "belief": "belief",
    "selfplay": "selfplay",
    "regret": "regret",
}
BELIEF_HELP = {
    "games": "self-play games per training round",
    "iterations": "CFR iterations per subgame (each turn's search)",
    "epsilon": "exploration in self-play",
    "explore_beliefs": "1: exploration also enters beliefs and value targets (as shipped); 0: the trajectory only",
    "leaf_average": "1: subgame leaf beliefs from the average strategy so far (CFR-AVG), the one played; 0: the current iterate's",
    "sample_iteration": "1: in self-play a random CFR iteration's strategy plays the move and gives the next beliefs (ReBeL); 0: the average's",
    "counterfactual": "1: self-play roots carry each player's counterfactual reach, and value targets cover every hand it allows (those a search asks about though the player's own play gives them no weight); 0: only hands the belief holds, as shipped",
    "zero_sum": "1: the value network's two players' values are shifted to sum to 0 under the belief where it is used (leaves, promises), fitted before the shift; 2: fitted through the shift too (DeepStack's zero-sum layer); 0: none, as shipped",
    "outcome_weight": "blend of the game's result into the held hands' value targets, in [0, 1]",
    "steps": "Adam steps on the replay buffer per round",
    "batch": "examples per Adam step",
    "lr": "learning rate of the value network",
    "distill_games": "self-play games the policy network is distilled from",
    "distill_epochs": "passes over the distillation examples",
    "distill_dagger": "games the distilled network then plays with its own beliefs, labelled by search",
    "distill_width": "units in each of the policy network's two hidden layers",
    "distill_own_reach": "1: weight decisions by the actor's own reach instead of the joint reach",
    "pretrain_games": "games between the bots the value network is first fitted to (0: none)",
    "pretrain_steps": "Adam steps of that fit",
}
SELFPLAY_HELP = {
    "games": "games an iteration (one PPO update on the learner seats' decisions)",
    "parallel": "games in play at once (their decisions are evaluated in one batch)",
    "width": "units in each of the table network's two hidden layers",
    "lr": "Adam learning rate",
    "entropy": "weight of the PPO loss's pull towards the magnet: uniform play (the entropy "
    "bonus) or, with magnet_every, an earlier copy of the network",
    "epochs": "PPO passes over an iteration's decisions",
    "minibatch": "decisions per PPO step",
    "lam": "GAE lambda (rewards come only at the end, no discount)",
    "self_share": "share of games in which every seat is the learning network",
    "bot_share": "share of games of one learning seat among the bots of `bots`",
    "snapshot_every": "iterations between frozen copies of the network (past selves)",
    "snapshots": "past selves kept; the games neither self-play nor with bots seat them",
    "bots": "comma-separated bots the learner meets in its bot games",
    "exploiter_share": "share of games against the exploiter (a best responder trained alongside; 0: none)",
    "exploiter_games": "the exploiter's own training games an iteration",
    "exploiter_reset": "iterations between restarts of the exploiter from a copy of its target",
    "exploiter_target": "whom the exploiter best-responds to: current (the learning network) "
    "or average (the average network, the strategy written; needs average)",
    "jobs": "independent game streams an iteration is split into, played on the --workers "
    "(the result depends on jobs, never on --workers; runs made before it existed used 1)",
    "average": "rows of the reservoir of the average-strategy network (NFSP); when set, the "
    "average network is the strategy written (0: none, the last network is)",
    "average_steps": "Adam steps an iteration fitting the average network to its reservoir",
    "magnet_every": "0: the entropy bonus; K: the pull is the reverse KL to the network as it was "
    "at the last multiple of K iterations (magnetic mirror descent's moving magnet)",
    "counterfactual": "0: decisions count as play reaches them; W: each learner decision's "
    "policy term is weighted by 1 / its seat's own reach so far, at most W, mean 1",
}
REGRET_HELP = {
    "games": "games an iteration with each seat as the traverser",
    "rollouts": "games played on from the true state per legal action at each traverser decision",
    "explore": "share of uniform play mixed into the traverser's moves",
    "steps": "Adam steps an iteration fitting the regret network",
    "minibatch": "decisions per Adam step (both networks)",
    "lr": "Adam learning rate of the regret network",
    "width": "units in each of the two networks' two hidden layers",
    "average": "rows of the average network's reservoir (decisions weighted by their iteration)",
    "average_steps": "Adam steps an iteration fitting the average network, the strategy written",
    "jobs": "game streams an iteration is split into, each with its own seed, played on the "
    "--workers (default: --workers; the result depends on jobs, never on --workers; runs made "
    "before it existed used 1)",
    "power": "the regret network holds the clipped regret sum over t**power (1: the mean "
    "regret; 0.5 keeps its scale steady as it converges)",
}
RAY = OptionSpec(
    "ray_address", str, None, "run the workers as Ray actors ('local' starts one)", True
)
WARM = OptionSpec(
    "warm_start",
    str,
    None,
    "a new run from the networks in a folder's regret-state.npz ('solved': the game's shipped "
    "strategy), at their iteration and with their settings; the average's reservoir starts empty",
    True,
)
TABLES: dict[str, dict[str, OptionSpec]] = {
    "exact": option_table(SolveSettings, exclude=COMMON),
    "mccfr": option_table(MCCFRSettings, exclude=COMMON),
    "belief": {**option_table(BeliefRunSettings, helps=BELIEF_HELP), "ray_address": RAY},
    "selfplay": {**option_table(SelfPlaySettings, helps=SELFPLAY_HELP), "ray_address": RAY},
    "regret": {
        **option_table(RegretSettings, helps=REGRET_HELP),
        "ray_address": RAY,
        "warm_start": WARM,
    },
}
DCFR_ONLY = ("alpha", "beta", "gamma")
DISCOUNT_KEYS = ("alpha", "beta", "gamma")


def family(algorithm: str) -> str:
    """The family of a method: ``exact``, ``mccfr``, ``belief``, ``selfplay`` or ``regret``."""
    if algorithm in EXACT_ALGORITHMS:
        return "exact"
    if algorithm in MCCFR_ALGORITHMS:
        return "mccfr"
    if algorithm == BELIEF:
        return "belief"
    if algorithm == SELFPLAY:
        return "selfplay"
    if algorithm == REGRET:
        return "regret"
    raise ValueError(f"algorithm must be one of {', '.join(ALGORITHMS)}, got {algorithm!r}")


def table(algorithm: str) -> dict[str, OptionSpec]:
    """The settings ``algorithm`` takes, by key."""
    found = TABLES[family(algorithm)]
    if algorithm in EXACT_ALGORITHMS and algorithm != "dcfr":
        return {k: v for k, v in found.items() if k not in DCFR_ONLY}
    return found


def takers(key: str) -> list[str]:
    """The methods that take ``key``, whole families named as such (belief first)."""
    out = []
    for fam in ("belief", "selfplay", "regret", "exact", "mccfr"):
        members = [a for a in ALGORITHMS if family(a) == fam and key in table(a)]
        if not members:
            continue
        every = [a for a in ALGORITHMS if family(a) == fam]
        out.append(FAMILY_NAMES[fam] if members == every else " and ".join(members))
    return out


def _listed(names: list[str]) -> str:
    """``a, b and c``."""
    return names[0] if len(names) == 1 else f"{', '.join(names[:-1])} and {names[-1]}"


def refusal(key: str, algorithm: str) -> str:
    """Why ``algorithm`` refuses ``key``: which methods take it, or which keys it allows."""
    found = takers(key)
    if found:
        return f"applies to {_listed(found)} only, not {algorithm}"
    return f"unknown; allowed: {', '.join(sorted(table(algorithm)))}"


def resolve(algorithm: str, given: list[tuple[str, str, Any]]) -> dict[str, Any]:
    """Settings of ``algorithm`` from (hint, key, raw value) in order (later ones win).

    The hint names where the value came from (``--option KEY``, a config file, an
    old flag) and starts the message of the ValueError a bad key or value raises.
    """
    allowed = table(algorithm)
    values: dict[str, Any] = {}
    for hint, key, raw in given:
        if key not in allowed:
            raise ValueError(f"{hint}: {refusal(key, algorithm)}")
        try:
            values[key] = parse_value(allowed[key], raw)
        except ValueError as exc:
            raise ValueError(f"{hint}: {exc}") from None
    return values


def _cell(value: Any) -> str:
    """A default as the table shows it."""
    if value is None:
        return "none"
    if isinstance(value, bool):
        return str(value).lower()
    return str(value)


def markdown(algorithms: list[str] | None = None) -> str:
    """The option tables as markdown (``docs/solve-options.md``'s tables)."""
    lines: list[str] = []
    for fam, names in (
        ("exact", list(EXACT_ALGORITHMS)),
        ("mccfr", list(MCCFR_ALGORITHMS)),
        ("belief", [BELIEF]),
        ("selfplay", [SELFPLAY]),
        ("regret", [REGRET]),
    ):
        if algorithms is not None and not set(names) & set(algorithms):
            continue
        lines += [f"### {', '.join(names)}", "", "| key | type | default | meaning |"]
        lines.append("| --- | --- | --- | --- |")
        for spec in TABLES[fam].values():
            only = " (dcfr only)" if fam == "exact" and spec.name in DCFR_ONLY else ""
            lines.append(
                f"| `{spec.name}` | {spec.type_name} | {_cell(spec.default)} | {spec.help}{only} |"
            )
        lines.append("")
    return "\n".join(lines)
