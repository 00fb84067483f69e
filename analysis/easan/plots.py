"""The report's figures; each function takes what metrics.compute() returned."""
import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402
import numpy as np  # noqa: E402

from .causes import ORDER, ordered  # noqa: E402

TYPE_COLOURS = {"p": "#d95f02", "e": "#1b9e77", "lpe": "#7570b3"}
TYPE_NAMES = {"p": "P-core", "e": "E-core", "lpe": "LP E-core"}


def cause_colour(cause):
    """A cause's colour in every figure, from its place in ORDER: one colour each."""
    return (plt.cm.tab10 if len(ORDER) <= 10 else plt.cm.tab20)(ORDER.index(cause))


def _save(fig, path):
    fig.tight_layout()
    fig.savefig(path, dpi=110)
    plt.close(fig)
    return path


def timeline(run, extra, path):
    """Per-thread CPU timeline, coloured by CPU type, migrations marked by cause."""
    sl, mig = extra["slices"], extra["migrations"]
    threads = run.threads.sort_values("thread")
    t0 = sl["start"].min() if len(sl) else 0
    fig, ax = plt.subplots(figsize=(10, 0.45 * len(threads) + 1.6))
    for row, (pid, thread, task) in enumerate(zip(threads["pid"], threads["thread"], threads["task"])):
        mine = sl[sl["pid"] == pid]
        for kind in TYPE_COLOURS:
            cpus = [c.cpu for c in run.platform.cpus if c.type == kind]
            part = mine[mine["cpu"].isin(cpus)]
            if len(part):
                ax.broken_barh(list(zip((part["start"] - t0) / 1e9, (part["end"] - part["start"]) / 1e9)),
                               (row - 0.35, 0.7), color=TYPE_COLOURS[kind], linewidth=0)
        moves = mig[mig["pid"] == pid]
        for cause, group in moves.groupby("cause"):
            ax.scatter((group["ts"] - t0) / 1e9, [row] * len(group), marker="|", s=160,
                       color=cause_colour(cause), zorder=3)
    ax.set_yticks(range(len(threads)))
    ax.set_yticklabels([f"{t} [{i}] pid {p}" for p, i, t in
                        zip(threads["pid"], threads["thread"], threads["task"])])
    ax.set_xlabel("time since the profile started (s)")
    handles = [plt.Rectangle((0, 0), 1, 1, color=c) for k, c in TYPE_COLOURS.items()
               if any(x.type == k for x in run.platform.cpus)]
    labels = [TYPE_NAMES[k] for k in TYPE_COLOURS if any(x.type == k for x in run.platform.cpus)]
    for cause in ordered(mig["cause"]):
        handles.append(plt.Line2D([], [], marker="|", linestyle="", markersize=12,
                                  color=cause_colour(cause)))
        labels.append(f"migration: {cause}")
    ax.legend(handles, labels, loc="upper center", bbox_to_anchor=(0.5, -0.25 if len(threads) < 4 else -0.12),
              ncol=4, fontsize=8, frameon=False)
    ax.set_title(f"{run.name}: where each thread ran")
    return _save(fig, path)


def residency(run, m, path):
    """Stacked bars: each thread's run time per CPU."""
    tasks = sorted(m["tasks"].values(), key=lambda t: t["thread"])
    fig, ax = plt.subplots(figsize=(8, 0.4 * len(tasks) + 1.5))
    left = np.zeros(len(tasks))
    for c in run.platform.cpus:
        vals = np.array([t["residency_ns"]["cpu"].get(c.cpu, 0) / 1e9 for t in tasks])
        shade = 0.55 + 0.45 * (c.cpu % 2)
        ax.barh(range(len(tasks)), vals, left=left, color=TYPE_COLOURS[c.type], alpha=shade,
                label=f"CPU {c.cpu} ({TYPE_NAMES[c.type]}, {c.capacity})")
        left += vals
    ax.set_yticks(range(len(tasks)))
    ax.set_yticklabels([f"{t['task']} [{t['thread']}]" for t in tasks])
    ax.set_xlabel("run time (s)")
    ax.legend(fontsize=7, loc="lower right")
    ax.set_title("Residency per CPU")
    return _save(fig, path)


def causes(runs_metrics, path):
    """Migrations by cause, split same-type / up / down, one group of bars per run."""
    fig, ax = plt.subplots(figsize=(8, 3.5))
    names = [m["run"] for m in runs_metrics]
    present = ordered(c for m in runs_metrics for c in m["migrations"]["by_cause"]) or ["wakeup"]
    width = 0.8 / max(len(names), 1)
    for i, m in enumerate(runs_metrics):
        vals = [m["migrations"]["by_cause"].get(c, 0) for c in present]
        ax.bar(np.arange(len(present)) + i * width, vals, width, label=f"{m['label']} ({m['run']})")
    ax.set_xticks(np.arange(len(present)) + width * (len(names) - 1) / 2)
    ax.set_xticklabels(present)
    ax.set_ylabel("migrations")
    ax.set_title("Migrations of the profile's threads by cause")
    ax.legend(fontsize=7)
    return _save(fig, path)


def latency_cdf(runs_latencies, path):
    """CDF of wakeup-to-run latency; runs_latencies is [(label, ns array)]."""
    fig, ax = plt.subplots(figsize=(7, 3.5))
    for label, values in runs_latencies:
        v = np.sort(np.asarray(values, dtype=float)) / 1e3
        if len(v):
            ax.step(v, np.arange(1, len(v) + 1) / len(v), where="post", label=label)
    ax.set_xscale("log")
    ax.set_xlabel("wakeup to running (us)")
    ax.set_ylabel("share of wakeups")
    ax.grid(alpha=0.3)
    ax.legend(fontsize=7)
    ax.set_title("Wakeup latency (CDF)")
    return _save(fig, path)


def energy(runs_metrics, path):
    """Estimated vs oracle energy per run (reference power model)."""
    fig, ax = plt.subplots(figsize=(7, 3.5))
    x = np.arange(len(runs_metrics))
    est = [m["energy"]["estimated_mj"] for m in runs_metrics]
    orc = [m["energy"]["oracle_mj"] for m in runs_metrics]
    ax.bar(x - 0.2, est, 0.4, label="as placed")
    ax.bar(x + 0.2, orc, 0.4, label="oracle (best placement)")
    for i, m in enumerate(runs_metrics):
        r = m["energy"]["ratio"]
        if r:
            ax.text(i - 0.2, est[i], f"{r:.2f}x", ha="center", va="bottom", fontsize=8)
    ax.set_xticks(x)
    ax.set_xticklabels([f"{m['label']}\n{m['run'][-17:]}" for m in runs_metrics], fontsize=7)
    ax.set_ylabel("energy (mJ, reference model)")
    ax.legend(fontsize=7)
    ax.set_title("Energy vs oracle")
    return _save(fig, path)


def util(run, extra, path):
    """Each thread's PELT util over time against the capacities of the CPU types."""
    pelt = run.tables["pelt_se"]
    sl = extra["slices"]
    t0, t1 = (sl["start"].min(), sl["end"].max()) if len(sl) else (0, 1)
    fig, ax = plt.subplots(figsize=(10, 3.5))
    for pid, thread, task in zip(run.threads["pid"], run.threads["thread"], run.threads["task"]):
        rows = pelt[(pelt["pid"] == pid) & (pelt["ts"] >= t0) & (pelt["ts"] <= t1)]
        if len(rows):
            ax.step((rows["ts"] - t0) / 1e9, rows["util"], where="post", linewidth=0.8,
                    label=f"{task} [{thread}]")
    for kind, cap in {(c.type, c.capacity) for c in run.platform.cpus}:
        ax.axhline(cap * 1024 / 1280, color=TYPE_COLOURS[kind], linestyle="--", linewidth=0.8)
        ax.text(0, cap * 1024 / 1280, f" fits {TYPE_NAMES[kind]} below", color=TYPE_COLOURS[kind],
                fontsize=7, va="bottom")
    ax.set_xlabel("time since the profile started (s)")
    ax.set_ylabel("util_avg")
    ax.legend(fontsize=7, ncol=4)
    ax.set_title("Task utilization vs capacity")
    return _save(fig, path)
