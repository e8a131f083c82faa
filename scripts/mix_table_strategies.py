"""Make one table strategy that plays the mixture of several table networks of one game.

python scripts/mix_table_strategies.py --out DIR RUN RUN/snaps/it3000 RUN/snaps/it2000

Each seat that plays the strategy draws one member for the whole game, uniformly (the
playing bot weights the members by the probability each gave the seat's own moves so far,
which is the same behavioural strategy). List the newest network first: its network is ``policy-net.npz`` (the
others ``mixture-NN.npz``), and its ``selfplay-state.npz`` (deflated; what a warm start
continues) and ``training.csv`` are copied when there. ``meta.json``
names the members, their iterations and the command. ``complots bound GAME --strategy DIR
--method responder`` measures it; the other bound tools measure one network.
"""

from __future__ import annotations

import argparse
import json
import shutil
from pathlib import Path

import numpy as np

from complots_solver.solvers.common.atomic import atomic_write_json, atomic_write_npz
from complots_solver.solvers.common.folders import META_FILE, POLICY_FILE
from complots_solver.solvers.nets.tablenet import (
    MIXTURE_HOW,
    TableNet,
    mixture_files,
    save_strategy_nets,
)
from complots_solver.solvers.selfplay.run import KIT_FILE


def main() -> None:
    """Check the members are table networks of one game, then write the mixture folder."""
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("members", type=Path, nargs="+", help="folders holding policy-net.npz")
    ap.add_argument("--out", type=Path, required=True)
    args = ap.parse_args()
    if len(args.members) < 2:
        raise SystemExit("refused: a mixture needs at least two members")
    metas = []
    games = set()
    for folder in args.members:
        try:
            net = TableNet.load(folder / POLICY_FILE)
            meta = json.loads((folder / META_FILE).read_text())
        except (OSError, ValueError) as exc:
            raise SystemExit(f"refused: {folder}: {exc}") from None
        if mixture_files(folder, net):
            raise SystemExit(f"refused: {folder} is a mixture already")
        games.add((net.net.meta.get("game"), net.num_features, net.num_actions))
        metas.append(meta)
    if len(games) != 1:
        raise SystemExit("refused: the members are networks of different games or features")
    args.out.mkdir(parents=True, exist_ok=True)
    nets = [TableNet.load(folder / POLICY_FILE) for folder in args.members]
    save_strategy_nets(args.out, nets[0], nets[1:], {})
    newest = args.members[0]
    if (newest / "training.csv").is_file():
        shutil.copyfile(newest / "training.csv", args.out / "training.csv")
    if (newest / KIT_FILE).is_file():
        with np.load(newest / KIT_FILE, allow_pickle=False) as data:
            atomic_write_npz(args.out / KIT_FILE, {k: data[k] for k in data.files}, compressed=True)
    meta = dict(metas[0])
    meta["mixture"] = {
        "members": [str(f) for f in args.members],
        "iterations": [m.get("training_iterations") for m in metas],
        "how": MIXTURE_HOW,
        "command": "python scripts/mix_table_strategies.py --out "
        + str(args.out)
        + " "
        + " ".join(str(f) for f in args.members),
    }
    meta["responder_gain"] = None
    meta["quality"] = "not measured: no best responder has been trained against this mixture"
    atomic_write_json(args.out / META_FILE, meta)
    print(
        f"wrote {args.out}: {len(args.members)} members, iterations {meta['mixture']['iterations']}"
    )
    its = meta["mixture"]["iterations"]
    if all(isinstance(i, int) for i in its) and its[0] < max(its):
        # a responder starts from the first member, and from an older one it finds less
        print(
            f"note: the first member (iteration {its[0]}) is not the newest: a responder starts "
            "from it and may understate the bound (docs/bounds.md); list the newest first"
        )


if __name__ == "__main__":
    main()
