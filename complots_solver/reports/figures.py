"""Matplotlib figures of the reports (object API, Agg canvas: no display needed)."""

from __future__ import annotations

import io

import matplotlib

matplotlib.use("Agg")

import numpy as np  # noqa: E402
import pandas as pd  # noqa: E402
from matplotlib.figure import Figure  # noqa: E402

WIDE = (10.5, 5.2)
CMAP = "viridis"
ANNOTATE_MAX_CELLS = 160
ANNOTATE_LARGE = 60  # up to this many cells the numbers are printed at ANNOTATE_FONT
ANNOTATE_FONT = 9


def png_bytes(fig: Figure, dpi: int = 90) -> bytes:
    """The figure as PNG bytes."""
    buf = io.BytesIO()
    fig.savefig(buf, format="png", dpi=dpi, bbox_inches="tight")
    return buf.getvalue()


def convergence_figure(conv: pd.DataFrame, title: str) -> Figure:
    """Exploitability against iterations (log-log) with wall-clock time on top."""
    fig = Figure(figsize=WIDE)
    ax = fig.add_subplot(1, 1, 1)
    data = conv[conv["exploitability"] > 0]
    ax.loglog(data["iteration"], data["exploitability"], marker=".", lw=1.2)
    ax.set_xlabel("iteration")
    ax.set_ylabel("exploitability (exact)")
    ax.grid(True, which="both", alpha=0.3)
    ax.set_title(title)
    if len(data) and data["seconds"].iloc[-1] > 0:
        last = data.iloc[-1]
        ax.annotate(
            f"{last['exploitability']:.3g} after {int(last['iteration'])} iterations "
            f"({last['seconds']:.1f} s)",
            xy=(last["iteration"], last["exploitability"]),
            xytext=(-10, 25),
            textcoords="offset points",
            ha="right",
            arrowprops={"arrowstyle": "->"},
        )
    return fig


def heatmap_figure(
    panels: list[tuple[str, pd.DataFrame]], title: str, value_label: str = "probability"
) -> Figure:
    """Side-by-side heat maps of probability matrices (rows x columns, values in [0, 1])."""
    cols = len(panels)
    height = max(3.0, 0.32 * max(len(p) for _, p in panels) + 2.2)
    fig = Figure(figsize=(max(5.5, 5.2 * cols), min(height, 7.4)))
    for k, (name, matrix) in enumerate(panels):
        ax = fig.add_subplot(1, cols, k + 1)
        values = matrix.to_numpy(dtype=float)
        image = ax.imshow(values, cmap=CMAP, vmin=0.0, vmax=1.0, aspect="auto")
        ax.set_xticks(range(matrix.shape[1]))
        ax.set_xticklabels([str(c) for c in matrix.columns], rotation=40, ha="right", fontsize=8)
        ax.set_yticks(range(matrix.shape[0]))
        ax.set_yticklabels([str(i) for i in matrix.index], fontsize=8)
        ax.set_title(name, fontsize=9)
        if values.size <= ANNOTATE_MAX_CELLS:
            for (i, j), v in np.ndenumerate(values):
                if np.isfinite(v):
                    ax.text(
                        j,
                        i,
                        f"{v:.2f}",
                        ha="center",
                        va="center",
                        fontsize=ANNOTATE_FONT
                        if values.size <= ANNOTATE_LARGE
                        else ANNOTATE_FONT - 2,
                        color="white" if v < 0.6 else "black",
                    )
        fig.colorbar(image, ax=ax, fraction=0.046, pad=0.04, label=value_label)
    fig.suptitle(title)
    fig.tight_layout()
    return fig


def value_bars_figure(
    frame: pd.DataFrame,
    category: str,
    value: str,
    title: str,
    group: str = "seat",
    ci: tuple[str, str] | None = None,
    note: str = "",
    ylabel: str | None = None,
) -> Figure:
    """Grouped bar chart of values per category (one bar per group), with error bars if ``ci``."""
    fig = Figure(figsize=WIDE)
    ax = fig.add_subplot(1, 1, 1)
    categories = list(dict.fromkeys(frame[category]))
    groups = list(dict.fromkeys(frame[group]))
    width = 0.8 / max(1, len(groups))
    x = np.arange(len(categories))
    for k, g in enumerate(groups):
        sub = frame[frame[group] == g].set_index(category).reindex(categories)
        yerr = None
        if ci is not None:
            lo = sub[value] - sub[ci[0]]
            hi = sub[ci[1]] - sub[value]
            # rounding can put an interval's end a hair inside its estimate (a Wilson
            # interval at 0% or 100%)
            yerr = np.clip(np.vstack([lo.to_numpy(), hi.to_numpy()]), 0.0, None)
        ax.bar(
            x + (k - (len(groups) - 1) / 2) * width,
            sub[value].to_numpy(dtype=float),
            width,
            yerr=yerr,
            capsize=3,
            label=f"{group} {g}",
        )
    ax.axhline(0.0, color="black", lw=0.8)
    ax.set_xticks(x)
    longest = max((len(str(c)) for c in categories), default=0)
    tilt = len(categories) > 6 or longest * len(categories) > 90  # labels would overlap
    ax.set_xticklabels(categories, rotation=30 if tilt else 0, ha="right" if tilt else "center")
    ax.set_ylabel(ylabel or value)
    ax.set_title(title)
    ax.legend()
    ax.grid(True, axis="y", alpha=0.3)
    if note:
        ax.set_xlabel(note, fontsize=8, style="italic")
    fig.tight_layout()
    return fig
