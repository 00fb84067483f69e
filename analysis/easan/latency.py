"""Wakeup-to-run latency from the trace, and rt-app's slack per activation."""
import numpy as np
import pandas as pd

from . import compare, stats
from .metric import Figure, Metric, us

EVENTS = ("sched_wakeup", "sched_wakeup_new", "sched_switch")
PERCENTILES = (50, 95, 99)


def wakeup_latencies(run, t0, t1):
    """DataFrame pid, ts, latency (ns): each wakeup to the thread's next switch-in."""
    wk = run.tables["wakeup"]
    wk = wk[wk["kind"].isin(["wakeup", "new"]) & wk["pid"].isin(run.pids)
            & (wk["ts"] >= t0) & (wk["ts"] <= t1)][["ts", "pid"]]
    sw = run.tables["switch"]
    ins = sw[sw["next_pid"].isin(run.pids)][["ts", "next_pid"]].rename(
        columns={"ts": "run_ts", "next_pid": "pid"})
    if wk.empty or ins.empty:
        return pd.DataFrame({"pid": [], "ts": [], "latency": []})
    merged = pd.merge_asof(wk.sort_values("ts"), ins.sort_values("run_ts"),
                           left_on="ts", right_on="run_ts", by="pid", direction="forward")
    merged = merged.dropna(subset=["run_ts"])
    merged["latency"] = merged["run_ts"].astype(np.int64) - merged["ts"]
    return merged[["pid", "ts", "latency"]].reset_index(drop=True)


def summary(values):
    """{'n', 'p50', 'p95', 'p99', 'max'} of a series (ns), None when empty."""
    v = np.asarray(values, dtype=float)
    if not len(v):
        return {"n": 0, "p50": None, "p95": None, "p99": None, "max": None}
    out = {"n": int(len(v)), "max": float(v.max())}
    for p in PERCENTILES:
        # "lower": a percentile is a latency that was actually observed.
        out[f"p{p}"] = stats.lower_percentile(v, p)
    return out


def slack(run):
    """{thread: {'activations', 'negative', 'share_negative', 'missed'}} from rt-app logs.

    A negative slack means the activation ended after its period; "missed"
    counts periods longer than 1.5 x the profile's period (a skipped wakeup)."""
    out = {}
    for thread, log in run.logs.items():
        n = int(len(log))
        neg = int((log["slack"] < 0).sum()) if n else 0
        period = log["c_period"].median() if n else 0
        missed = int((log["period"] > 1.5 * period).sum()) if n and period > 0 else 0
        out[thread] = {"activations": n, "negative": neg,
                       "share_negative": (neg / n) if n else 0.0, "missed": missed}
    return out


def compute(ctx):
    lat = ctx.latencies
    return summary(lat["latency"]), {int(pid): summary(lat[lat["pid"] == pid]["latency"])
                                     for pid in ctx.run.pids}


def rows(lat):
    return [("wakeup latency p50 / p95 / p99 / max (us)",
             f"{us(lat['p50'])} / {us(lat['p95'])} / {us(lat['p99'])} / {us(lat['max'])} "
             f"({lat['n']} wakeups)")]


def plot_cdf(results, path):
    """CDF of wakeup-to-run latency, one line per run."""
    from .plots import plt, save  # pylint: disable=import-outside-toplevel
    fig, ax = plt.subplots(figsize=(7, 3.5))
    for r in results:
        v = np.sort(np.asarray(r.data["latency"]["latency"], dtype=float)) / 1e3
        if len(v):
            ax.step(v, np.arange(1, len(v) + 1) / len(v), where="post",
                    label=f"{r.metrics['label']} {r.metrics['run'][-17:]}")
    ax.set_xscale("log")
    ax.set_xlabel("wakeup to running (us)")
    ax.set_ylabel("share of wakeups")
    ax.grid(alpha=0.3)
    ax.legend(fontsize=7)
    ax.set_title("Wakeup latency (CDF)")
    return save(fig, path)


LATENCY = Metric(
    "wakeup_latency_ns", compute, EVENTS, thread_key="wakeup_latency_ns", rows=rows,
    label="wakeup latency p50 / p95 / p99 / max (us)",
    figures=(Figure("latency.png", "wakeup latency", plot_cdf),),
    # Each run's percentile, averaged over a group's runs; bootstrap intervals.
    ab=(compare.Percentiles("wakeup latency p{p}", lambda r: r.data["latency"]["latency"],
                            PERCENTILES, pooled=False, unit="us", scale=1e-3),))


def by_task(ctx):
    """{profile task: summary() of its threads' wakeup latencies}: what a claim about one
    task of a profile reads, whose pids change from run to run."""
    lat = ctx.latencies
    names = dict(zip(ctx.run.threads["pid"].astype(int), ctx.run.threads["task"]))
    task = lat["pid"].astype(int).map(names)
    return {name: summary(lat["latency"][task == name]) for name in sorted(set(names.values()))}, None


LATENCY_BY_TASK = Metric("wakeup_latency_by_task_ns", by_task, EVENTS)

# How a wakeup found its CPU: the in-place requeue of a task whose dequeue was delayed
# (no CPU selection at all), a placement heuristic of the patched kernel, or the
# wakeup path's selection.
PATHS = ("delayed", "heuristic", "selected")


def _marked(lat, left, events):
    """Boolean per wakeup of lat: an event of its pid in (left, ts] (left: the pid's
    switch-in before that wakeup, so the events of the sleep that ended there)."""
    if events is None or events.empty or lat.empty:
        return np.zeros(len(lat), dtype=bool)
    ev = events[["ts", "pid"]].astype(np.int64).rename(columns={"ts": "ev_ts"}).sort_values("ev_ts")
    wk = pd.DataFrame({"ts": lat["ts"].to_numpy(np.int64), "pid": lat["pid"].to_numpy(),
                       "left": left, "i": np.arange(len(lat))}).sort_values("ts")
    # Each event belongs to the first wakeup of its pid at or after it.
    owner = pd.merge_asof(ev, wk, left_on="ev_ts", right_on="ts", by="pid",
                          direction="forward").dropna(subset=["i"])
    owner = owner[owner["ev_ts"] > owner["left"]]
    out = np.zeros(len(lat), dtype=bool)
    out[owner["i"].astype(int).to_numpy()] = True
    return out


def wakeup_paths(ctx):
    """Array of the PATHS entry of each wakeup of ctx.latencies, in its order."""
    lat, tables = ctx.latencies, ctx.run.tables
    sw = tables["switch"]
    ins = sw[sw["next_pid"].isin(ctx.run.pids)][["ts", "next_pid"]].rename(
        columns={"ts": "in_ts", "next_pid": "pid"}).astype(np.int64).sort_values("in_ts")
    # An empty latency table comes as floats: merge_asof wants one key type.
    wk = lat[["ts", "pid"]].astype(np.int64).reset_index(drop=True)
    # The pid's last switch-in strictly before each wakeup (-1: none in the trace).
    prior = pd.merge_asof(wk.assign(i=np.arange(len(wk))).sort_values("ts"), ins,
                          left_on="ts", right_on="in_ts", by="pid", direction="backward",
                          allow_exact_matches=False).sort_values("i")
    left = prior["in_ts"].fillna(-1).to_numpy(np.int64)
    delayed = _marked(wk, left, tables.get("delayed"))
    heuristic = _marked(wk, left, tables.get("decision")) & ~delayed
    return np.where(delayed, "delayed", np.where(heuristic, "heuristic", "selected"))


def by_path(ctx):
    """{profile task: {path: summary()}} of its wakeup latencies by how the wakeup found
    its CPU (PATHS): whether selection can shorten a wait depends on the path."""
    lat, path = ctx.latencies, wakeup_paths(ctx)
    names = dict(zip(ctx.run.threads["pid"].astype(int), ctx.run.threads["task"]))
    task = lat["pid"].astype(int).map(names).to_numpy()
    return {name: {p: summary(lat["latency"].to_numpy()[(task == name) & (path == p)])
                   for p in PATHS} for name in sorted(set(names.values()))}, None


LATENCY_BY_PATH = Metric("wakeup_latency_by_path_ns", by_path,
                         EVENTS + ("eas_wakeup_delayed",))
SLACK = Metric("slack", lambda ctx: ({str(k): v for k, v in slack(ctx.run).items()}, None))
