"""The experiments' index: build/reports/experiments/index.html, from each experiment's
runs.json (sweep.write_index), with each claim's verdict, a table of the metrics that
matter (means or pooled percentiles, 95 % intervals) and a plot per profile.
"""
import html
import math
import os
from statistics import median

from contract.paths import TOP
from easan import fidelity, jsonout

from . import claims, results, sweep

VERDICT_COLOURS = {claims.HELD: "#1b7837", claims.FAILED: "#b2182b", claims.INCONCLUSIVE: "#8c6d1f"}


def collect(exp, index, analyse=True):
    """({profile: {group: [run metrics]}}, notes): the metrics of the index's ok runs
    (analysed now where they were not), notes on runs that failed or could not be
    analysed."""
    by = {}
    notes = []
    for r in index["runs"]:
        if not r["run"]:
            notes.append(f"{r['profile']} {r['group']} #{r['rep']}: {r['status']}"
                         + (f" ({r['error']})" if r.get("error") else ""))
            continue
        m, err = sweep.analyse(r["run"]) if analyse else (None, "not analysed")
        if m is None:
            notes.append(f"{r['profile']} {r['group']} #{r['rep']}: analysis failed: {err}")
            continue
        # metrics.json names the run by its folder's name; replays need their boot's too.
        m = dict(m, run=sweep.run_id(r["run"]))
        by.setdefault(r["profile"], {}).setdefault(r["group"], []).append(m)
    return by, notes


def summarise(exp, by, drop_distorted=True):
    """[{profile, metric, group, stat, value, lo, hi, n, dropped}] for the table."""
    rows = []
    for p in exp.profiles:
        pname = exp.profile_name(p)
        for mname, spec in exp.metrics.items():
            stats = ["mean"] if "[]" not in spec.path else ["p50", "p95"]
            for g in exp.groups:
                runs = by.get(pname, {}).get(g, [])
                kept = [m for m in runs if not (drop_distorted and claims.distorted(m))]
                for st in stats:
                    s = claims.side(kept, spec, st) if kept else None
                    rows.append({"profile": pname, "metric": mname, "group": g, "stat": st,
                                 "value": s.value if s else None, "lo": s.lo if s else None,
                                 "hi": s.hi if s else None, "n": s.n if s else 0,
                                 "dropped": len(runs) - len(kept)})
    return rows


def busy_steals(m):
    """The steal of each busy vCPU of a run (easan/fidelity.py), [] when the run has
    none or steal was not measured."""
    f = m.get("fidelity") or {}
    per_cpu = f.get("per_cpu") or {}
    return [per_cpu[str(c)]["steal"] for c in f.get("busy_cpus") or []
            if str(c) in per_cpu and per_cpu[str(c)].get("steal") is not None]


def steal_summary(exp, by):
    """[{profile, group, runs, measured, busy_vcpus, median, max, work, work_runs,
    work_off}]: per profile and group, the steal of busy vCPUs over all its runs (every
    run, distorted or not): median and max; measured counts the runs whose steal the
    host measured. work: the median of the runs' work diagnostics (fidelity.work()),
    work_runs how many had one, work_off how many of those were outside its band."""
    rows = []
    for p in exp.profiles:
        pname = exp.profile_name(p)
        for g in exp.groups:
            runs = by.get(pname, {}).get(g, [])
            values = [x for m in runs for x in busy_steals(m)]
            measured = sum((m.get("fidelity") or {}).get("source") == "host" for m in runs)
            works = [w for w in (((m.get("fidelity") or {}).get("work") or {}) for m in runs)
                     if w.get("median") is not None]
            rows.append({"profile": pname, "group": g, "runs": len(runs), "measured": measured,
                         "busy_vcpus": len(values),
                         "median": float(median(values)) if values else None,
                         "max": max(values) if values else None,
                         "work": float(median([w["median"] for w in works])) if works else None,
                         "work_runs": len(works),
                         "work_off": sum(bool(w.get("off_band")) for w in works)})
    return rows


def _pct(x):
    return "n/a" if x is None else f"{x:.1%}"


def _f(x, scale=1.0):
    if x is None or (isinstance(x, float) and math.isnan(x)):
        return "n/a"
    return f"{x * scale:.4g}"


def plot(exp, pname, by, path):
    """One panel per metric: each run's value (hollow: dropped as distorted), each
    group's mean (or pooled p95) with its interval."""
    import matplotlib  # pylint: disable=import-outside-toplevel
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt  # pylint: disable=import-outside-toplevel
    names = list(exp.metrics)
    fig, axes = plt.subplots(1, len(names), figsize=(3.2 * len(names) + 0.8, 3.4), squeeze=False)
    groups = list(exp.groups)
    for ax, mname in zip(axes[0], names):
        spec = exp.metrics[mname]
        st = "mean" if "[]" not in spec.path else "p95"
        for i, g in enumerate(groups):
            runs = by.get(pname, {}).get(g, [])
            for m in runs:
                v = spec.values(m)
                if v is None or (isinstance(v, list) and not v):
                    continue
                v = v if isinstance(v, list) else [v]
                bad = bool(claims.distorted(m))
                ax.scatter([i + 0.15] * len(v), [x * spec.scale for x in v], s=12,
                           facecolors="none" if bad else "#4575b4", edgecolors="#4575b4", alpha=0.7)
            kept = [m for m in runs if not claims.distorted(m)]
            s = claims.side(kept, spec, st) if kept else None
            if s is not None:
                lo = s.value - s.lo if not math.isnan(s.lo) else 0
                hi = s.hi - s.value if not math.isnan(s.hi) else 0
                ax.errorbar([i - 0.15], [s.value * spec.scale], yerr=[[lo * spec.scale], [hi * spec.scale]],
                            fmt="s", color="#d73027", capsize=4)
        ax.set_xticks(range(len(groups)))
        ax.set_xticklabels(groups, rotation=20, fontsize=8)
        ax.set_title(f"{mname} ({st})" + (f", {spec.unit}" if spec.unit else ""), fontsize=9)
        ax.set_xlim(-0.6, len(groups) - 0.4)
    fig.suptitle(f"{exp.name}: {pname}", fontsize=10)
    fig.tight_layout()
    fig.savefig(path, dpi=100)
    plt.close(fig)


def _esc(s):
    return html.escape(str(s))


def _drops_per_group(v):
    return ", ".join(f"{g}: {len(runs)}" for g, runs in sorted(v["dropped"].items())) or "none"


def steal_section(rows):
    """The HTML table of steal_summary()'s rows."""
    out = ["<h3>Host steal of busy vCPUs</h3>",
           "<p>Per group, the share of the time each busy vCPU (wanting a host CPU for "
           f"{fidelity.BUSY_SHARE:.0%} of the analysed window or more) waited for one, over "
           f"all its runs: a run with a busy vCPU above {fidelity.MAX_STEAL:.0%} is distorted "
           "(<code>analysis/easan/fidelity.py</code>). Runs without host samples are not "
           "measured. Work: the runs' median calibrated run time over the time taken, "
           "for rt-app <code>run</code> activations never preempted (a diagnostic, "
           f"outside {fidelity.MIN_WORK:.0%}-{fidelity.MAX_WORK:.0%} counted, not "
           "dropped).</p>",
           "<table><tr><th>profile</th><th>group</th><th>runs measured</th>"
           "<th>busy vCPUs</th><th>median steal</th><th>max steal</th>"
           "<th>work (runs)</th><th>work off band</th></tr>"]
    out += [f"<tr><td>{_esc(r['profile'])}</td><td>{_esc(r['group'])}</td>"
            f"<td>{r['measured']} of {r['runs']}</td><td>{r['busy_vcpus']}</td>"
            f"<td>{_pct(r['median'])}</td><td>{_pct(r['max'])}</td>"
            f"<td>{_pct(r['work'])} ({r['work_runs']})</td><td>{r['work_off']}</td></tr>"
            for r in rows]
    out.append("</table>")
    return out


def experiment_section(exp, index, by, notes, verdicts, table, plots, edited=None):
    n_ok = sum(len(v) for g in by.values() for v in g.values())
    dropped = [(pname, g, m.get("run"), claims.distorted(m)) for pname, gs in by.items()
               for g, runs in gs.items() for m in runs if claims.distorted(m)]
    out = [f'<h2 id="{_esc(exp.name)}">{_esc(exp.name)}</h2>',
           f"<p>{_esc(exp.description)}</p>",
           f"<p>File <code>{_esc(index['file'])}</code>; platform variant {_esc(index['variant'])}; "
           f"{index['reps']} repetitions per group and profile; keeps {exp.busy_vcpus} vCPUs busy. "
           f"{n_ok} runs analysed, {len(dropped)} dropped as distorted by the fidelity check, "
           f"{len(notes)} missing.</p>"]
    edited = edited or {}
    out.append("<h3>Claims</h3><table><tr><th>profile</th><th>claim</th><th>rule</th><th>verdict</th>"
               f"<th>on {claims.ALL}</th><th>on {claims.PASSING}</th><th>dropped per group</th>"
               "<th>evidence</th></tr>")
    for v in verdicts:
        col = VERDICT_COLOURS[v["verdict"]]
        mark = f' <b>({_esc(edited[v["claim"]])})</b>' if v["claim"] in edited else ""
        views = "".join(f"<td>{_esc(v['views'][k]['verdict'])}</td>" for k in (claims.ALL, claims.PASSING))
        out.append(f"<tr><td>{_esc(v['profile'])}</td><td>{_esc(v['claim'])}{mark}</td>"
                   f"<td><code>{_esc(v['rule'])}</code></td>"
                   f'<td style="color:{col};font-weight:bold">{_esc(v["verdict"])}</td>{views}'
                   f"<td>{_esc(_drops_per_group(v))}</td><td>{_esc(v['detail'])}</td></tr>")
    out.append("</table>")
    out.append("<h3>Metrics</h3><table><tr><th>profile</th><th>metric</th><th>group</th><th>stat</th>"
               "<th>value</th><th>95 % interval</th><th>runs</th><th>dropped</th></tr>")
    for r in table:
        spec = exp.metrics[r["metric"]]
        out.append(f"<tr><td>{_esc(r['profile'])}</td><td>{_esc(r['metric'])}</td><td>{_esc(r['group'])}</td>"
                   f"<td>{r['stat']}</td><td>{_f(r['value'], spec.scale)} {_esc(spec.unit)}</td>"
                   f"<td>[{_f(r['lo'], spec.scale)}, {_f(r['hi'], spec.scale)}]</td><td>{r['n']}</td>"
                   f"<td>{r['dropped']}</td></tr>")
    out.append("</table>")
    out += steal_section(steal_summary(exp, by))
    for p in plots:
        out.append(f'<p><img src="{_esc(p)}" '
                   f'alt="{_esc(exp.name)} plot"></p>')
    if dropped:
        out.append("<h3>Runs dropped as distorted</h3><ul>")
        out += [f"<li>{_esc(p)} {_esc(g)}: <code>{_esc(os.path.basename(r or ''))}</code>: {_esc(w)}</li>"
                for p, g, r, w in dropped]
        out.append("</ul>")
    if notes:
        out.append("<h3>Runs missing</h3><ul>" + "".join(f"<li>{_esc(n)}</li>" for n in notes) + "</ul>")
    out.append("<h3>Run folders</h3><ul>")
    out += [f"<li>{_esc(r['profile'])} {_esc(r['group'])} #{r['rep']}: "
            f"<code>{_esc(r['run'] or r['status'])}</code></li>" for r in index["runs"]]
    out.append("</ul>")
    return "\n".join(out)


STYLE = ("body{font-family:sans-serif;max-width:1200px;margin:auto}table{border-collapse:collapse;"
         "margin:0.5em 0}td,th{border:1px solid #ccc;padding:2px 6px;font-size:90%;text-align:left}"
         "img{max-width:100%}")


def build(experiments, build_dir=None, plots=True, out=print, batch=(), results_dir=None):
    """Judge each experiment from its runs.json and write index.html; returns
    (path of index.html, {experiment: [verdicts]}, {experiment: [runs missing]}).
    Experiments without a runs.json are listed as not run. The experiments named in
    batch were run just now: each gets its results file (results.py) in results_dir."""
    rdir = sweep.reports_dir(build_dir)
    sections, toc, judged, missing = [], [], {}, {}
    for exp in experiments:
        index = sweep.read_index(exp.name, build_dir)
        if index is None:
            toc.append(f"<li>{_esc(exp.name)}: not run</li>")
            continue
        by, notes = collect(exp, index)
        missing[exp.name] = notes
        verdicts = claims.judge(exp, by)
        judged[exp.name] = verdicts
        edited = results.history(exp, results.batches(exp.name, results_dir or results.RESULTS_DIR))
        if exp.name in batch:
            path = results.write(results.record(exp, index, by, verdicts),
                                 results_dir or results.RESULTS_DIR)
            out(f"experiments: {exp.name}: results of this batch in {os.path.relpath(path, TOP)}")
        table = summarise(exp, by)
        plots_ = []
        if plots and by:
            for p in exp.profiles:
                pname = exp.profile_name(p)
                path = os.path.join(rdir, exp.name, f"{pname}.png")
                os.makedirs(os.path.dirname(path), exist_ok=True)
                plot(exp, pname, by, path)
                plots_.append(os.path.relpath(path, rdir))
        sections.append(experiment_section(exp, index, by, notes, verdicts, table, plots_, edited))
        counts = {k: sum(v["verdict"] == k for v in verdicts) for k in (claims.HELD, claims.FAILED, claims.INCONCLUSIVE)}
        toc.append(f'<li><a href="#{_esc(exp.name)}">{_esc(exp.name)}</a>: '
                   + ", ".join(f"{n} {k}" for k, n in counts.items()) + "</li>")
        sweep.write_atomic(os.path.join(rdir, exp.name, "claims.json"),
                            jsonout.dumps({"experiment": exp.name, "verdicts": verdicts,
                                           "metrics": table, "steal": steal_summary(exp, by),
                                           "missing": notes}, indent=1) + "\n")
        every = [m for gs in by.values() for runs in gs.values() for m in runs]
        bad = [claims.distorted(m) for m in every if claims.distorted(m)]
        out(f"experiments: {exp.name}: {len(every)} runs analysed, {len(bad)} dropped as distorted "
            f"by the fidelity check, {len(notes)} missing")
        for why in sorted(set(bad))[:5]:
            out(f"experiments:   dropped ({bad.count(why)}): {why}")
        for n in notes:
            out(f"experiments:   missing {n}")
        for v in verdicts:
            out(f"experiments: {exp.name} [{v['profile']}] {v['verdict'].upper()}: {v['claim']} -- {v['detail']}")
    page = ["<!DOCTYPE html><html><head><meta charset='utf-8'><title>Experiments</title>",
            f"<style>{STYLE}</style></head><body><h1>Experiments</h1>",
            "<p>Each claim is judged on all the runs and on the runs that pass the fidelity "
            "check, each group needing at least five: <b>held</b> when its whole 95 % interval "
            "satisfies it in both and Holm's correction across the file's claims agrees, "
            "<b>failed</b> when the whole interval contradicts it in both, <b>inconclusive</b> "
            "otherwise (an interval across the bound or of zero width, too few runs, or views "
            "that disagree). min/max claims are rules about every run. A claim edited or dated "
            "after a batch judged it is marked.</p><ul>", *toc, "</ul>", *sections, "</body></html>"]
    path = os.path.join(rdir, "index.html")
    sweep.write_atomic(path, "\n".join(page) + "\n")
    return path, judged, missing

