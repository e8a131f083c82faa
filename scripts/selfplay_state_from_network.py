"""Write a state file for a shipped selfplay strategy whose run folder is gone.

python scripts/selfplay_state_from_network.py games/strategies/complots-ambassador-5

``complots solve PRESET --algorithm selfplay --option warm_start=solved`` continues a shipped
table network from the ``selfplay-state.npz`` beside it. Strategies whose run folders were
not kept have none, and ``scripts/selfplay_state_from_checkpoint.py`` needs that folder.
This writes one from what the folder holds: the network itself (weight for weight the
shipped ``policy-net.npz``), the iteration, game count and settings of its ``meta.json``,
and the seed its command used (``--seed``, default 0 as ``complots solve``). The Adam
optimiser's moments were never shipped, so they restart at zero: a continuation takes its
first steps as a fresh optimiser would, which a run resumed from its checkpoint would not.
When the shipped network is its run's average network (``--option average``, the 2-player
Complots 2 drafts), the learning network was never shipped either: both start from the
average's weights, with its reservoir empty. The folder's ``meta.json`` gets a ``state_file``
note saying so. Refuses (exit 1, nothing written) a folder that already has a state file, or
a network of another game or shape.
"""

from __future__ import annotations

import argparse
import json
from pathlib import Path

from complots_solver.rules.presets import resolve_game
from complots_solver.solvers.common.atomic import atomic_write_json, atomic_write_npz
from complots_solver.solvers.selfplay.run import KIT_FILE, META_FILE, kit_from_network, read_kit

NOTE = (
    "made after training from the shipped network and meta.json "
    "(scripts/selfplay_state_from_network.py): the run folder was gone, so the Adam "
    "optimiser restarts from zero moments and the past selves start empty"
)
AVERAGE_NOTE = (
    "; the shipped network is the run's average network and the learning network was not "
    "kept, so both start from the average's weights, its reservoir empty"
)


def main() -> None:
    """Build the state from the shipped folder, write it beside the network, load it back."""
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("preset_dir", type=Path, help="the shipped folder, games/strategies/PRESET")
    ap.add_argument("--seed", type=int, default=0, help="the seed of the run that made it")
    args = ap.parse_args()
    path = args.preset_dir / KIT_FILE
    if path.exists():
        raise SystemExit(f"refused: {path} exists already; nothing written")
    config = resolve_game(args.preset_dir.name)[0]
    try:
        kit = kit_from_network(args.preset_dir, config, seed=args.seed)
    except (OSError, ValueError) as exc:
        raise SystemExit(f"refused: {exc}") from None
    atomic_write_npz(path, kit, compressed=True)
    arrays, meta = read_kit(args.preset_dir, config)  # loads back, without pickle
    meta_path = args.preset_dir / META_FILE
    shipped = json.loads(meta_path.read_text())
    shipped["state_file"] = NOTE + (AVERAGE_NOTE if meta["settings"].get("average", 0) else "")
    atomic_write_json(meta_path, shipped)
    print(
        f"wrote {path} ({path.stat().st_size / 1e6:.2f} MB): iteration {int(arrays['iteration'])}, "
        f"{int(arrays['games'])} games, seed {meta['seed']}, Adam restarted"
    )


if __name__ == "__main__":
    main()
