"""PNG plots of an evaluation episode and of learning curves (matplotlib, Agg backend)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import numpy as np


def _pyplot():
    try:
        import matplotlib
    except ImportError as err:  # the `train` extra brings it
        raise RuntimeError(
            "--plot needs matplotlib: pip install matplotlib (or the project's [train] extra)"
        ) from err
    matplotlib.use("Agg")  # files only, no display
    import matplotlib.pyplot as plt

    return plt


def plot_episode(trace: dict[str, list[Any]], path: str | Path, title: str = "") -> Path:
    """Write a PNG of one episode recorded by ``training.evaluate.record_trace``.

    Panels: CoM x/y/z vs reference [m] (push force magnitude [N] on a twin axis); contact forces vs
    targets [N]; one panel per task signal (``task/*``); reward per step.
    """
    plt = _pyplot()
    path = Path(path)
    t = np.asarray(trace.get("time", []), dtype=float)
    if t.size == 0:
        raise RuntimeError("nothing to plot: the episode has no steps")
    # Task signals grouped by their first two words: hand_force_n, hand_force_target_n, ... share a panel.
    groups: dict[str, list[str]] = {}
    for key in sorted(k for k in trace if k.startswith("task/")):
        groups.setdefault("_".join(key.split("/", 1)[1].split("_")[:2]), []).append(key)
    n_panels = 3 + len(groups)
    fig, axes = plt.subplots(n_panels, 1, figsize=(10, 2.6 * n_panels), sharex=True, squeeze=False)
    axes = axes[:, 0]

    ax = axes[0]
    if "com" in trace:
        com = np.asarray(trace["com"])
        ref = np.asarray(trace.get("com_ref", np.full_like(com, np.nan)))
        for i, (axis, colour) in enumerate(zip("xyz", ("C0", "C1", "C2"), strict=True)):
            ax.plot(t, com[:, i] - com[0, i], colour, label=f"CoM {axis}")
            ax.plot(t, ref[:, i] - com[0, i], colour + "--", label=f"ref {axis}")
        ax.set_ylabel("CoM - CoM(0) [m]")
        ax.legend(loc="upper left", ncol=6, fontsize=7)
    if "push_force" in trace:
        push = np.linalg.norm(np.asarray(trace["push_force"]), axis=1)
        if np.any(push > 0):
            twin = ax.twinx()
            twin.fill_between(t, push, color="grey", alpha=0.2, step="pre")
            twin.set_ylabel("push [N]", color="grey")

    ax = axes[1]
    contacts = sorted(k.split("/", 1)[1] for k in trace if k.startswith("force/"))
    for j, name in enumerate(contacts):
        force = np.asarray(trace[f"force/{name}"], dtype=float)
        target = (
            np.asarray(trace[f"force_target/{name}"], dtype=float)
            if f"force_target/{name}" in trace
            else None
        )
        colour = f"C{j}"
        if target is not None and target.ndim == 1:
            # A scalar target is a normal force; the contact's normal is its dominant force axis
            # (z for a foot on the ground, horizontal for a hand on a wall).
            axis = int(np.argmax(np.mean(np.abs(force), axis=0)))
            ax.plot(t, np.abs(force[:, axis]), colour, label=f"{name} |f_{'xyz'[axis]}|")
            ax.plot(t, target, colour + "--", label=f"{name} target")
        else:
            ax.plot(t, np.linalg.norm(force, axis=1), colour, label=f"{name} |f|")
            if target is not None:
                ax.plot(
                    t,
                    np.linalg.norm(target.reshape(len(t), -1), axis=1),
                    colour + "--",
                    label=f"{name} |target|",
                )
    ax.set_ylabel("contact force [N]")
    if contacts:
        ax.legend(loc="upper left", ncol=4, fontsize=7)

    for ax, (group, keys) in zip(axes[2 : 2 + len(groups)], groups.items(), strict=True):
        for key in keys:
            values = np.asarray(trace[key], dtype=float).reshape(len(t), -1)
            name = key.split("/", 1)[1]
            for i in range(values.shape[1]):
                ax.plot(t, values[:, i], label=f"{name}[{i}]" if values.shape[1] > 1 else name)
        ax.set_ylabel(group, fontsize=8)
        ax.legend(loc="upper left", ncol=4, fontsize=7)

    ax = axes[-1]
    ax.plot(t, np.asarray(trace["reward"], dtype=float), "k")
    ax.set_ylabel("reward")
    ax.set_xlabel("time [s]")
    if title:
        fig.suptitle(title)
    return _save(plt, fig, path)


def plot_learning_curves(
    curves: dict[str, list[tuple[np.ndarray, np.ndarray]]],
    path: str | Path,
    title: str = "",
    reference: tuple[str, float] | None = None,
    evaluations: dict[str, list[tuple[np.ndarray, np.ndarray]]] | None = None,
) -> Path:
    """``{label: [(steps, returns) per seed]}`` -> PNG: each seed thin, the mean over seeds (on a common
    step grid) thick; ``reference`` ``(label, return)``: a dashed horizontal line (the nominal controller);
    ``evaluations`` (same keys): periodic deterministic evaluations, their mean over seeds as markers."""
    plt = _pyplot()
    path = Path(path)
    fig, ax = plt.subplots(figsize=(8, 4.5))
    for j, (label, runs) in enumerate(sorted(curves.items())):
        colour = f"C{j}"
        runs = [(np.asarray(x, float), np.asarray(y, float)) for x, y in runs if len(x) > 0]
        for x, y in runs:
            ax.plot(x, y, colour, alpha=0.3, linewidth=0.8)
        if runs:
            grid = np.linspace(max(x[0] for x, _ in runs), min(x[-1] for x, _ in runs), 100)
            mean = np.mean([np.interp(grid, x, y) for x, y in runs], axis=0)
            ax.plot(grid, mean, colour, linewidth=2.0, label=f"{label} ({len(runs)} seeds)")
        points = [(np.asarray(x, float), np.asarray(y, float)) for x, y in (evaluations or {}).get(label, [])]
        points = [(x, y) for x, y in points if len(x) > 0]
        if points:
            n = min(len(x) for x, _ in points)
            mean = np.mean([y[:n] for _, y in points], axis=0)
            ax.plot(points[0][0][:n], mean, colour, linestyle=":", marker="o", label=f"{label}, evaluations")
    if reference is not None:
        ax.axhline(reference[1], color="k", linestyle="--", linewidth=1.0, label=reference[0])
    ax.set_xlabel("env steps")
    ax.set_ylabel("episode return")
    ax.legend(fontsize=8)
    if title:
        ax.set_title(title)
    return _save(plt, fig, path)


def _save(plt, fig, path: Path) -> Path:
    """Lay out, write ``fig`` as a PNG at ``path`` (creating its folder), close it."""
    fig.tight_layout()
    path.parent.mkdir(parents=True, exist_ok=True)
    fig.savefig(path, dpi=90)
    plt.close(fig)
    return path
