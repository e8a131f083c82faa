"""The table network's PPO loss: its hand-written gradient against finite differences."""

from __future__ import annotations

import numpy as np
import pytest

from complots_solver.solvers.nets.tablenet import PPOSettings, TableNet, masked_softmax, ppo_loss


def _batch(rng, rows=6, actions=7):
    legal = (rng.random((rows, actions)) < 0.6).astype(np.float64)
    legal[:, 0] = 1.0
    legal[:, 1] = 1.0
    out = rng.normal(size=(rows, actions + 1))
    action = np.array([rng.choice(np.flatnonzero(legal[i])) for i in range(rows)])
    p = masked_softmax(out[:, :-1], legal)
    old = np.log(p[np.arange(rows), action]) + rng.normal(0, 0.3, size=rows)
    adv = rng.normal(size=rows)
    target = rng.normal(size=rows)
    return out, legal, action, old, adv, target


@pytest.mark.parametrize("seed", [0, 1, 2])
def test_ppo_gradient_matches_finite_differences(seed):
    """Every output's derivative, including clipped rows and the entropy term."""
    rng = np.random.default_rng(seed)
    out, legal, action, old, adv, target = _batch(rng)
    cfg = PPOSettings(clip=0.2, entropy=0.05, value=0.5)
    _, grad, _ = ppo_loss(out, legal, action, old, adv, target, cfg)
    eps = 1e-6
    num = np.zeros_like(out)
    for i in range(out.shape[0]):
        for j in range(out.shape[1]):
            if j < out.shape[1] - 1 and legal[i, j] == 0:
                continue
            up, down = out.copy(), out.copy()
            up[i, j] += eps
            down[i, j] -= eps
            lu = ppo_loss(up, legal, action, old, adv, target, cfg)[0]
            ld = ppo_loss(down, legal, action, old, adv, target, cfg)[0]
            num[i, j] = (lu - ld) / (2 * eps)
    np.testing.assert_allclose(grad, num, atol=1e-6)
    assert np.all(grad[:, :-1][legal == 0] == 0)


def _magnet(rng, legal):
    m = masked_softmax(rng.normal(size=legal.shape), legal)
    return np.where(legal > 0, np.log(np.maximum(m, 1e-30)), 0.0)


@pytest.mark.parametrize("seed", [0, 1])
def test_magnet_gradient_matches_finite_differences(seed):
    """With a magnet the regulariser is the reverse KL to it; the written gradient is its gradient."""
    rng = np.random.default_rng(seed)
    out, legal, action, old, adv, target = _batch(rng)
    magnet = _magnet(rng, legal)
    cfg = PPOSettings(clip=0.2, entropy=0.3, value=0.5)
    loss, grad, terms = ppo_loss(out, legal, action, old, adv, target, cfg, magnet)
    eps = 1e-6
    for i in range(out.shape[0]):
        for j in np.flatnonzero(legal[i]):
            up, down = out.copy(), out.copy()
            up[i, j] += eps
            down[i, j] -= eps
            lu = ppo_loss(up, legal, action, old, adv, target, cfg, magnet)[0]
            ld = ppo_loss(down, legal, action, old, adv, target, cfg, magnet)[0]
            assert abs(grad[i, j] - (lu - ld) / (2 * eps)) < 1e-6
    p = masked_softmax(out[:, :-1], legal)
    kl = np.where(legal > 0, p * (np.log(np.maximum(p, 1e-300)) - magnet), 0.0).sum(axis=1)
    assert terms["magnet_kl"] == pytest.approx(kl.mean()) and kl.mean() > 0.01


def test_uniform_magnet_is_the_entropy_bonus():
    """KL to the uniform policy is -H plus a constant: the same gradient as the entropy bonus."""
    rng = np.random.default_rng(4)
    out, legal, action, old, adv, target = _batch(rng)
    uniform = np.where(legal > 0, -np.log(legal.sum(axis=1, keepdims=True)), 0.0)
    cfg = PPOSettings(entropy=0.2)
    _, g_entropy, _ = ppo_loss(out, legal, action, old, adv, target, cfg)
    _, g_uniform, _ = ppo_loss(out, legal, action, old, adv, target, cfg, uniform)
    np.testing.assert_allclose(g_uniform, g_entropy, atol=1e-12)
    _, g_other, _ = ppo_loss(out, legal, action, old, adv, target, cfg, _magnet(rng, legal))
    assert np.abs(g_other - g_entropy).max() > 1e-3


def test_probabilities_only_on_legal_actions_and_save_load(tmp_path):
    """Illegal actions get probability 0; a saved network loads equal, a foreign file is refused."""
    net = TableNet.create(10, 5, (8,), seed=3)
    x = np.random.default_rng(0).normal(size=(4, 10)).astype(np.float32)
    legal = np.array([[1, 0, 1, 0, 0]] * 4, dtype=np.float32)
    p, v = net.policy_value(x, legal)
    assert np.allclose(p.sum(axis=1), 1.0) and np.all(p[:, [1, 3, 4]] == 0)
    net.save(tmp_path / "n.npz", meta={"game": "g"})
    back = TableNet.load(tmp_path / "n.npz")
    p2, v2 = back.policy_value(x, legal)
    np.testing.assert_array_equal(p, p2)
    np.testing.assert_array_equal(v, v2)
    assert back.net.meta["game"] == "g"
    from complots_solver.solvers.nets.valuenet import ValueNet

    ValueNet.create([3, 2]).save(tmp_path / "v.npz")
    with pytest.raises(ValueError, match="not a table network"):
        TableNet.load(tmp_path / "v.npz")
