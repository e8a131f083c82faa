"""The average-strategy network: a uniform reservoir, the right gradient, and it averages."""

from __future__ import annotations

import numpy as np
import pytest

from complots_solver.solvers.nets.average import AveragePolicy, average_loss
from complots_solver.solvers.nets.tablenet import TableNet


def test_the_reservoir_keeps_a_uniform_sample_of_everything_offered():
    """10,000 rows offered in batches of 100 to 1,000 slots: every tenth of the stream keeps
    about a tenth of the slots, and a row is never stored twice."""
    net = TableNet.create(1, 2, (4,), seed=0)
    avg = AveragePolicy(net, capacity=1000, steps=0, minibatch=10)
    rng = np.random.default_rng(0)
    legal = np.ones((100, 2), dtype=np.float32)
    probs = np.full((100, 2), 0.5, dtype=np.float32)
    for start in range(0, 10_000, 100):
        x = np.arange(start, start + 100, dtype=np.float32)[:, None]
        avg.add(x, legal, probs, rng)
    assert avg.seen == 10_000 and avg.size == 1000
    kept = avg.x[:, 0].astype(int)
    assert len(np.unique(kept)) == 1000
    per_tenth = np.bincount(kept // 1000, minlength=10)
    # binomial(1000, 0.1): sd 9.5; 4 sd either side
    assert per_tenth.min() > 62 and per_tenth.max() < 138, per_tenth


def test_the_cross_entropy_gradient_matches_finite_differences():
    """The hand-written gradient at the logits equals a central difference of the loss."""
    rng = np.random.default_rng(1)
    out = rng.normal(size=(5, 5))
    legal = np.array([[1, 1, 0, 1]] * 5, dtype=np.float32)
    target = rng.random((5, 4)) * legal
    target /= target.sum(axis=1, keepdims=True)
    _, grad = average_loss(out, legal, target)
    for i, j in [(0, 0), (2, 1), (4, 3), (3, 2)]:
        h = 1e-6
        up, down = out.copy(), out.copy()
        up[i, j] += h
        down[i, j] -= h
        numeric = (average_loss(up, legal, target)[0] - average_loss(down, legal, target)[0]) / (
            2 * h
        )
        assert grad[i, j] == pytest.approx(numeric, abs=1e-6)
    assert np.all(grad[:, -1] == 0) and np.all(grad[:, 2] == 0)


def test_it_learns_the_reach_weighted_mean_of_the_iterates():
    """Iterates that alternate between two pure strategies at one decision, the second one
    reaching it three times as often, average to 1/4 and 3/4, not to the last iterate."""
    net = TableNet.create(3, 2, (16,), seed=2)
    avg = AveragePolicy(net, capacity=4000, steps=20, minibatch=256, lr=3e-3)
    rng = np.random.default_rng(3)
    x = np.array([[1.0, 0.0, 1.0]], dtype=np.float32)
    legal = np.ones((1, 2), dtype=np.float32)
    for it in range(40):
        visits, pure = (20, [1.0, 0.0]) if it % 2 == 0 else (60, [0.0, 1.0])
        avg.add(
            np.repeat(x, visits, axis=0),
            np.repeat(legal, visits, axis=0),
            np.repeat(np.array([pure], dtype=np.float32), visits, axis=0),
            rng,
        )
        avg.train(rng)
    for _ in range(10):
        avg.train(rng)
    p, _ = net.policy_value(x, legal)
    assert p[0, 0] == pytest.approx(0.25, abs=0.04)


def _offer(avg, rows, seed=0):
    """Offer ``rows`` (x) with two legal actions at 0.3/0.7, in batches of 50."""
    rng = np.random.default_rng(seed)
    for start in range(0, len(rows), 50):
        batch = rows[start : start + 50]
        legal = np.ones((len(batch), 2), dtype=np.float32)
        probs = np.tile(np.array([0.3, 0.7], dtype=np.float32), (len(batch), 1))
        avg.add(batch, legal, probs, rng, weight=1.0 + start)


def _memory_rows(n, dense, bits, seed=0):
    """Rows of ``dense`` real inputs then ``bits`` inputs of 0 or 1, as a memory gives."""
    rng = np.random.default_rng(seed)
    x = np.empty((n, dense + bits), dtype=np.float32)
    x[:, :dense] = rng.random((n, dense))
    x[:, dense:] = rng.random((n, bits)) < 0.1
    return x


def test_a_packed_reservoir_gives_back_every_row_exactly_and_trains_the_same():
    """With binary_from the 0/1 inputs are kept eight to a byte: every stored row comes back
    bit for bit, the fit is identical to the unpacked reservoir's, and the memory part takes
    an eighth of the bytes; a value other than 0 or 1 past binary_from is refused."""
    dense, bits = 13, 37
    x = _memory_rows(400, dense, bits)
    plain = AveragePolicy(TableNet.create(dense + bits, 2, (8,), seed=3), 300, 20, 32)
    packed = AveragePolicy(
        TableNet.create(dense + bits, 2, (8,), seed=3), 300, 20, 32, binary_from=dense
    )
    for avg in (plain, packed):
        _offer(avg, x)
    idx = np.arange(300)
    np.testing.assert_array_equal(packed.rows(idx), plain.rows(idx))
    assert packed.xbits.shape == (300, 5) and packed.x.shape == (300, dense)
    assert plain.train(np.random.default_rng(4)) == packed.train(np.random.default_rng(4))
    for a, b in zip(plain.net.params(), packed.net.params(), strict=True):
        np.testing.assert_array_equal(a, b)
    bad = x[:50].copy()
    bad[0, dense + 2] = 0.5
    with pytest.raises(ValueError, match="neither 0 nor 1"):
        packed.add(bad, np.ones((50, 2), np.float32), np.full((50, 2), 0.5, np.float32),
                   np.random.default_rng(0))  # fmt: skip


def test_a_state_saved_unpacked_resumes_into_a_packed_reservoir():
    """A checkpoint from before packing (one float32 x, no xbits) restores the same rows;
    a state of another width is refused and leaves the reservoir as it was."""
    dense, bits = 6, 20
    x = _memory_rows(120, dense, bits, seed=5)
    old = AveragePolicy(TableNet.create(dense + bits, 2, (8,), seed=1), 100, 1, 16)
    _offer(old, x)
    state = old.get_state()
    del state["avg_xbits"]
    new = AveragePolicy(
        TableNet.create(dense + bits, 2, (8,), seed=1), 100, 1, 16, binary_from=dense
    )
    new.set_state(state)
    assert new.seen == 120
    np.testing.assert_array_equal(new.rows(np.arange(100)), old.rows(np.arange(100)))
    again = AveragePolicy(
        TableNet.create(dense + bits, 2, (8,), seed=1), 100, 1, 16, binary_from=dense
    )
    again.set_state(new.get_state())
    np.testing.assert_array_equal(again.rows(np.arange(100)), old.rows(np.arange(100)))
    state["avg_x"] = state["avg_x"][:, :-1]
    fresh = AveragePolicy(
        TableNet.create(dense + bits, 2, (8,), seed=1), 100, 1, 16, binary_from=dense
    )
    with pytest.raises(ValueError, match="another shape"):
        fresh.set_state(state)
    assert fresh.seen == 0
