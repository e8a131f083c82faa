"""How well a seat's inputs predict whether the claim it may challenge is true, in self-play.

python scripts/claim_truth_predictability.py draft-ambassador games/strategies/draft-ambassador \
    --games 2000 --seed 0

Plays the strategy folder's table network in both seats and, at every decision to challenge an
action claim, keeps the challenger's features (with the card-count odds computed beside them),
whether the claim is true (from the true state), and the network's probability of challenging.
A logistic regression on half the decisions, scored on the other half by the area under the ROC
curve (AUC: 0.5 is blind, 1 is perfect), tells how much the inputs say about the truth under
this strategy; the AUC of the network's own challenge probability tells how much of it the
network uses. Prints one line per predictor.
"""

from __future__ import annotations

import argparse

import numpy as np
from scipy.optimize import minimize

from complots_solver.rules import core
from complots_solver.rules.enums import NUM_CLANS, Stage
from complots_solver.rules.layout import (
    A_CHALLENGE,
    C_EXTENDED,
    S_ACTOR,
    S_CLAIM,
    S_CUR,
    S_HIDDEN,
    S_STAGE,
)
from complots_solver.rules.presets import resolve_game
from complots_solver.solvers.knowledge.table_features import (
    O_CLAIM,
    TableMemory,
    absolute_action,
    config_features,
)
from complots_solver.solvers.nets.tablenet import TableNet

TERMINAL = -4
CHANCE = -1


def auc(score: np.ndarray, label: np.ndarray) -> float:
    """Area under the ROC curve of ``score`` for the 0/1 ``label`` (ties counted half)."""
    order = np.argsort(score, kind="stable")
    ranks = np.empty(len(score))
    ranks[order] = np.arange(1, len(score) + 1)
    for v in np.unique(score):  # average ranks over ties
        tie = score == v
        ranks[tie] = ranks[tie].mean()
    pos = label.sum()
    neg = len(label) - pos
    return float((ranks[label == 1].sum() - pos * (pos + 1) / 2) / (pos * neg))


def logistic(x: np.ndarray, y: np.ndarray, l2: float = 1e-3) -> np.ndarray:
    """Weights (bias last) of an L2-regularised logistic regression."""
    xb = np.hstack([x, np.ones((len(x), 1))])

    def loss(w: np.ndarray) -> tuple[float, np.ndarray]:
        z = xb @ w
        p = 1.0 / (1.0 + np.exp(-z))
        eps = 1e-12
        value = -np.mean(y * np.log(p + eps) + (1 - y) * np.log(1 - p + eps))
        value += l2 * float(w[:-1] @ w[:-1])
        grad = xb.T @ (p - y) / len(y)
        grad[:-1] += 2 * l2 * w[:-1]
        return value, grad

    w0 = np.zeros(xb.shape[1])
    return minimize(loss, w0, jac=True, method="L-BFGS-B", options={"maxiter": 500}).x


def main() -> None:
    """Play, collect the challenge decisions, fit and score."""
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("game")
    parser.add_argument("folder")
    parser.add_argument("--games", type=int, default=2000)
    parser.add_argument("--seed", type=int, default=0)
    args = parser.parse_args()
    config = resolve_game(args.game)[0]
    cfg = np.ascontiguousarray(config.to_array(), dtype=np.int32)
    net = TableNet.load(f"{args.folder}/policy-net.npz")
    n = config.players
    rng = np.random.default_rng(args.seed)
    width = config_features(cfg, 0, True)
    base = config_features(cfg)
    if net.num_features not in (base, width):
        raise SystemExit("folder: a network with memory is not measured here")
    moves = np.empty(512, dtype=np.int32)
    outs = np.empty(256, dtype=np.int32)
    chance_p = np.empty(256)
    x = np.empty((1, width), dtype=np.float32)
    legal = np.empty((1, config.num_distinct_actions()), dtype=np.float32)
    rows, truth, challenge = [], [], []
    for _ in range(args.games):
        s = core.initial_state(cfg)
        mem = TableMemory(cfg)
        while int(s[S_CUR]) != TERMINAL:
            me = int(s[S_CUR])
            if me == CHANCE:
                k = core.chance_outcomes_into(s, cfg, outs, chance_p)
                a = int(outs[rng.choice(k, p=chance_p[:k] / chance_p[:k].sum())])
            else:
                mem.row(s, me, 0, x[0], legal[0], moves)
                probs, _ = net.policy_value(x[:, : net.num_features], legal)
                p = probs[0].astype(np.float64)
                r = int(rng.choice(len(p), p=p / p.sum()))
                a = int(absolute_action(r, me, n, bool(cfg[C_EXTENDED])))
                if int(s[S_STAGE]) == Stage.CHALLENGE:
                    claimant, clan = int(s[S_ACTOR]), int(s[S_CLAIM])
                    if 0 <= clan < NUM_CLANS:
                        rows.append(x[0].copy())
                        truth.append(float(s[S_HIDDEN + claimant * NUM_CLANS + clan] > 0))
                        challenge.append(float(p[A_CHALLENGE]))
            before = s.copy()
            core.apply_action(s, cfg, a)
            mem.observe(before, a, s)
    x = np.array(rows)  # the decisions' features, now that play is over
    y = np.array(truth)
    c = np.array(challenge)
    half = rng.permutation(len(y))
    train, test = half[: len(y) // 2], half[len(y) // 2 :]
    print(
        f"{args.game}, {args.folder}: {args.games} games, {len(y)} decisions to challenge an "
        f"action claim, {y.mean():.2f} of the claims true; AUC on the held-out half "
        f"({len(test)} decisions)"
    )
    print(f"the network's own challenge probability (1 - p): {auc(1 - c[test], y[test]):.3f}")
    for name, cols in (("features", slice(0, base)), ("features and odds", slice(0, width))):
        mu = x[train, cols].mean(axis=0)
        sd = x[train, cols].std(axis=0) + 1e-6
        w = logistic((x[train, cols] - mu) / sd, y[train])
        z = ((x[test, cols] - mu) / sd) @ w[:-1] + w[-1]
        print(f"logistic regression on the {name}: {auc(z, y[test]):.3f}")
    odds_claim = x[:, base + O_CLAIM]  # the action claim's chance under card counting
    print(f"the card-count chance of the claim alone: {auc(odds_claim[test], y[test]):.3f}")


if __name__ == "__main__":
    main()
