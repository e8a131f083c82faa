"""Pretraining the belief solver's value network on games between the bots."""

from __future__ import annotations

import numpy as np

from complots_solver.play.pretrain import bot_game_examples, pretrain
from complots_solver.rules.presets import resolve_game
from complots_solver.solvers.knowledge.belief_features import F_HANDS, NUM_FEATURES, NUM_OUTPUTS
from complots_solver.solvers.nets.valuenet import ValueNet


def test_examples_hold_the_result_for_the_two_hands_held() -> None:
    """Each turn start targets exactly two hands (one per player), with opposite results."""
    config, _ = resolve_game("draft-ambassador")
    feats, targets, masks = bot_game_examples(config, 12, seed=1)
    assert feats.shape[1] == NUM_FEATURES and targets.shape[1] == NUM_OUTPUTS
    assert len(feats) > 40
    assert np.all(masks.sum(axis=1) == 2)
    mine = (targets[:, :20] * masks[:, :20]).sum(axis=1)
    theirs = (targets[:, 20:] * masks[:, 20:]).sum(axis=1)
    assert np.allclose(mine, -theirs)
    assert set(np.unique(mine)) <= {-1.0, 0.0, 1.0}
    # the belief part is a distribution over hands for each player
    assert np.allclose(feats[:, F_HANDS : F_HANDS + 20].sum(axis=1), 1.0, atol=1e-5)
    # same seed, same examples
    again = bot_game_examples(config, 12, seed=1)
    assert np.array_equal(again[0], feats) and np.array_equal(again[1], targets)


def test_pretraining_learns_that_cards_matter() -> None:
    """After fitting bot games, holding two cards against one is worth more than one against two."""
    config, _ = resolve_game("draft-ambassador")
    examples = bot_game_examples(config, 300, seed=0)
    net = ValueNet.create([NUM_FEATURES, 64, 64, NUM_OUTPUTS], seed=0)
    pretrain(net, examples, steps=1500)
    feats = examples[0]
    ahead = feats[(feats[:, 2] == 1) & (feats[:, 3] == 0)]
    behind = feats[(feats[:, 2] == 0) & (feats[:, 3] == 1)]
    assert len(ahead) > 10 and len(behind) > 10
    value = lambda x: (net.forward(x)[:, :20] * x[:, F_HANDS : F_HANDS + 20]).sum(axis=1)  # noqa: E731
    assert value(ahead).mean() > value(behind).mean() + 0.3
