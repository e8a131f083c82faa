"""Write a shipped selfplay strategy's state file from the checkpoint of the run that made it.

python scripts/selfplay_state_from_checkpoint.py runs/selfplay/amb3-seed1 \
    games/strategies/complots-ambassador-3

A selfplay run writes ``selfplay-state.npz`` with every checkpoint (the network and its Adam
state without the past selves; ``complots solve PRESET --algorithm selfplay --option
warm_start=solved`` starts from it). Strategies shipped before that have none; this writes
it from the run folder's ``checkpoint.npz`` and ``config.json``, as the run would have
written it at that checkpoint. It refuses (exit 1, nothing written) unless the strategy the
checkpoint holds (the network, or the average network with ``average``) equals the preset
folder's ``policy-net.npz`` weight for weight: a state from another moment of the run, or
from another run, would continue a strategy that is not the one shipped.
"""

from __future__ import annotations

import argparse
import json
from pathlib import Path

import numpy as np

from complots_solver.rules.presets import resolve_game
from complots_solver.solvers.common.atomic import atomic_write_npz
from complots_solver.solvers.common.folders import POLICY_FILE
from complots_solver.solvers.common.kit import KIT_META
from complots_solver.solvers.common.rundir import CHECKPOINT_FILE
from complots_solver.solvers.nets.tablenet import TableNet
from complots_solver.solvers.selfplay.run import KIT_FILE, kit_from_checkpoint, read_kit


def mismatch(kit: dict[str, np.ndarray], shipped: TableNet) -> str | None:
    """Why the strategy in ``kit`` is not ``shipped`` weight for weight, or None if it is."""
    settings = json.loads(str(kit[KIT_META]))["settings"]
    prefix = "avg_" if settings.get("average", 0) > 0 else ""
    params = shipped.params()
    count = sum(1 for k in kit if k.startswith(f"{prefix}p") and k[len(prefix) + 1 :].isdigit())
    if count != len(params):
        return f"{count} weight arrays in the checkpoint, {len(params)} in the shipped network"
    for i, shipped_array in enumerate(params):
        mine = kit[f"{prefix}p{i}"]
        if mine.shape != shipped_array.shape or mine.dtype != shipped_array.dtype:
            return f"weight array {i}: {mine.dtype}{mine.shape} against {shipped_array.dtype}{shipped_array.shape}"
        if not np.array_equal(mine, shipped_array):
            return (
                f"weight array {i} differs (largest gap {np.abs(mine - shipped_array).max():.3g})"
            )
    return None


def main() -> None:
    """Check the checkpoint against the shipped network, then write the state file beside it."""
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("run_dir", type=Path, help="the selfplay run folder (checkpoint.npz)")
    ap.add_argument("preset_dir", type=Path, help="the shipped folder, games/strategies/PRESET")
    args = ap.parse_args()
    config = resolve_game(args.preset_dir.name)[0]
    try:
        kit = kit_from_checkpoint(args.run_dir / CHECKPOINT_FILE, config)
    except (OSError, ValueError) as exc:
        raise SystemExit(f"refused: {exc}") from None
    why = mismatch(kit, TableNet.load(args.preset_dir / POLICY_FILE))
    if why is not None:
        raise SystemExit(
            f"refused: the checkpoint of {args.run_dir} is not the strategy shipped in "
            f"{args.preset_dir} ({why}); nothing written"
        )
    path = args.preset_dir / KIT_FILE
    atomic_write_npz(path, kit, compressed=True)
    arrays, meta = read_kit(args.preset_dir, config)  # loads back, without pickle
    print(
        f"wrote {path} ({path.stat().st_size / 1e6:.2f} MB): iteration {int(arrays['iteration'])}, "
        f"{int(arrays['games'])} games, seed {meta['seed']}, width {meta['settings']['width']}"
    )


if __name__ == "__main__":
    main()
