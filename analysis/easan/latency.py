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
SLACK = Metric("slack", lambda ctx: ({str(k): v for k, v in slack(ctx.run).items()}, None))
