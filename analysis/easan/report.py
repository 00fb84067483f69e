"""Write report.md, report.html and metrics.json (and the plots) for runs or an A/B."""
import html
import json
import math
import os
import shutil
import tempfile

from . import compare, plots, perfetto
from .causes import ORDER


def _ms(ns):
    return "-" if ns is None else f"{ns / 1e6:.2f}"


def _us(ns):
    return "-" if ns is None else f"{ns / 1e3:.0f}"


def _reasons(mg):
    """'wakeup: 3 (1 / 2 / 0), ...': each kernel reason with its directions."""
    dirs = mg["by_reason_direction"]
    return ", ".join(f"{r}: {n} ({dirs[r]['same']} / {dirs[r]['up']} / {dirs[r]['down']})"
                     for r, n in mg["by_reason"].items()) or "none"


def _pct(share):
    return "-" if share is None else f"{share:.1%}"


def _decisions(counts):
    """'spare_tie: 3, ...', 'none', or why nothing could be counted."""
    if counts is None:
        return "not traced by this kernel"
    return ", ".join(f"{r}: {n}" for r, n in counts.items()) or "none"


def _reaction(r):
    """The run's misfit reactions, p50 / p95 from the crossing and from the phase start."""
    if r is None:
        return "not traced by this kernel"
    if not r["episodes"]:
        return "no misfit episode"
    fc, fp = r["from_crossing_ns"], r["from_phase_start_ns"]
    return (f"{_ms(fc['p50'])} / {_ms(fc['p95'])} from the fit crossing, {_ms(fp['p50'])} / "
            f"{_ms(fp['p95'])} from the phase start ({r['reacted']} of {r['episodes']} misfit "
            f"episodes moved up, {r['in_place']} fitted again in place, {r['open']} open)")


def push_section(m):
    """Markdown lines: the push decisions and where the capped tasks ran, if either applies."""
    p, c = m.get("push"), m.get("capped")
    if p is None and c is None:
        return []
    out = ["### Push and capped tasks", ""]
    if p is None:
        out += ["Push decisions: not traced by this kernel.", ""]
    else:
        trig = list(p["by_trigger"])
        out += ["| push decision outcome | " + " | ".join(trig) + " | all |",
                "|---|" + "---|" * (len(trig) + 1)]
        out += [f"| {o} | " + " | ".join(str(p["by_trigger_outcome"][t].get(o, 0)) for t in trig)
                + f" | {n} |" for o, n in p["by_outcome"].items()]
        out += ["| all | " + " | ".join(str(p["by_trigger"][t]) for t in trig)
                + f" | {p['decisions']} |", "",
                "Why the tasks qualified: " + ", ".join(f"{w}: {n}" for w, n in p["by_why"].items())
                + f". Moves by push: {p['moves']}"
                + "".join(f", {r}: {n}" for r, n in p["moves_by_reason"].items()) + ".", ""]
    if c is not None:
        settle = f"{c['settle_ns'] / 1e6:g} ms"
        out += [f"Capped tasks ({c['threads']} threads with util_max "
                f"{', '.join(str(u) for u in c['util_max'])}): {_pct(c['p_share'])} of their run time "
                f"on P-cores, {_pct(c['p_share_settled'])} from {settle} after each one's first run; "
                f"{_ms(c['stacked_ns'])} ms with two or more on one CPU while an allowed CPU of the "
                f"same type held none, {_ms(c['stacked_settled_ns'])} ms after settling.", "",
                "| thread | task | on P-cores | after settling | piled (ms) | piled after settling (ms) |",
                "|---|---|---|---|---|---|"]
        for pid, t in sorted(m["tasks"].items(), key=lambda kv: kv[1]["thread"]):
            if "capped" in t:
                x = t["capped"]
                out.append(f"| {t['thread']} (pid {pid}) | {t['task']} | {_pct(x['p_share'])} | "
                           f"{_pct(x['p_share_settled'])} | {_ms(x['stacked_ns'])} | "
                           f"{_ms(x['stacked_settled_ns'])} |")
        out.append("")
    return out


def run_section(m):
    """Markdown lines describing one run."""
    v = m["verdict"]
    out = [f"## {m['run']}", "",
           f"Kernel **{m['kernel']}**, profile `{m['profile']}`, platform `{m['platform']}`.", "",
           f"**Verdict: {v['verdict'].upper()}**", ""]
    out += [f"- {'ok  ' if c['ok'] else 'FAIL'} {c['name']}: {c['detail']}" for c in v["checks"]]
    mg = m["migrations"]
    e = m["energy"]
    lat = m["wakeup_latency_ns"]
    out += ["", "| metric | value |", "|---|---|",
            f"| migrations (same-type / up / down) | {mg['total']} ({mg['same']} / {mg['up']} / {mg['down']}) |",
            "| by cause | " + (", ".join(f"{c}: {n}" for c, n in mg["by_cause"].items()) or "none") + " |",
            f"| by kernel reason (same / up / down) | {_reasons(mg)} |",
            f"| moves no cause explains, whole trace | {m['unknown_moves']} |",
            f"| wakeups re-enqueued in place (delayed dequeue) | {m['delayed_wakeups']} |",
            f"| placement heuristics that overrode mainline | {_decisions(m['placement_decisions'])} |",
            f"| misfit reaction p50 / p95 (ms) | {_reaction(m['reaction'])} |",
            f"| wakeup latency p50 / p95 / p99 / max (us) | {_us(lat['p50'])} / {_us(lat['p95'])} / "
            f"{_us(lat['p99'])} / {_us(lat['max'])} ({lat['n']} wakeups) |",
            f"| energy as placed / oracle (mJ) | {e['estimated_mj']:.1f} / {e['oracle_mj']:.1f}"
            + (f" = {e['ratio']:.3f}" if e["ratio"] else "")
            + f" (the kernel's own placement cheaper than the search in {e['kernel_cheaper_buckets']}"
            f" of {e['buckets']} buckets) |",
            f"| CPU time outside the profile | {m['outside']['share']:.2%} |",
            f"| trace | {m['trace']['records']} events, {m['trace']['lost_events']} lost |", "",
            "| thread | task | run time (s) | on E / P / LPE (s) | migrations s/u/d | stuck (ms) |"
            " reaction (ms) | latency p95 (us) | negative slack |",
            "|---|---|---|---|---|---|---|---|---|"]
    for pid, t in sorted(m["tasks"].items(), key=lambda kv: kv[1]["thread"]):
        r = t["residency_ns"]
        by_type = " / ".join(f"{r['type'].get(k, 0) / 1e9:.2f}" for k in ("e", "p", "lpe"))
        tm = t["migrations"]
        st = t.get("stuck", {})
        reactions = [e["from_crossing_ns"] for e in t.get("reaction") or [] if e["outcome"] == "reacted"]
        sl = m["slack"].get(str(t["thread"]), {})
        out.append(f"| {t['thread']} (pid {pid}) | {t['task']} | {r['total'] / 1e9:.2f} | {by_type} | "
                   f"{tm['same']}/{tm['up']}/{tm['down']} | {_ms(st.get('stuck_ns'))} | "
                   f"{', '.join(_ms(x) for x in reactions) or '-'} | {_us(t['wakeup_latency_ns']['p95'])} | "
                   f"{sl.get('negative', 0)}/{sl.get('activations', 0)} |")
    f = m["fidelity"]
    speed = "capacity-faithful E-cores, judged against capacity/1024" if m.get("faithful_speed") \
        else "every CPU at the host's speed"
    out += ["", f"Fidelity ({speed}): {f.get('reason') or 'delivered speed within bounds'}"
            + (" (per-CPU median loops/us: " + ", ".join(f"CPU{c} {s:.2f}" for c, s in f["per_cpu"].items()) + ")"
               if f.get("per_cpu") else ""), ""]
    return out + push_section(m)


def _html(md_lines):
    """A plain, self-contained-enough HTML rendering of the markdown lines."""
    body, table = [], []
    for line in md_lines + [""]:
        if line.startswith("|"):
            cells = [c.strip() for c in line.strip("|").split("|")]
            if not set("".join(cells)) <= set("-"):
                table.append(cells)
            continue
        if table:
            rows = "".join("<tr>" + "".join(f"<{'th' if i == 0 else 'td'}>{html.escape(c).replace('**', '')}"
                                            f"</{'th' if i == 0 else 'td'}>" for c in r) + "</tr>"
                           for i, r in enumerate(table))
            body.append(f"<table>{rows}</table>")
            table = []
        if line.startswith("!["):
            alt, src = line[2:].split("](")
            body.append(f'<figure><img src="{html.escape(src[:-1])}" alt="{html.escape(alt)}"></figure>')
        elif line.startswith("# "):
            body.append(f"<h1>{html.escape(line[2:])}</h1>")
        elif line.startswith("## "):
            body.append(f"<h2>{html.escape(line[3:])}</h2>")
        elif line.startswith("### "):
            body.append(f"<h3>{html.escape(line[4:])}</h3>")
        elif line.startswith("- "):
            body.append(f"<li>{html.escape(line[2:]).replace('**', '')}</li>")
        elif line:
            body.append(f"<p>{html.escape(line).replace('**', '')}</p>")
    style = ("body{font-family:sans-serif;max-width:1100px;margin:auto}table{border-collapse:collapse;"
             "font-size:13px}td,th{border:1px solid #ccc;padding:2px 6px;text-align:left}img{max-width:100%}")
    return f"<!DOCTYPE html><html><head><meta charset='utf-8'><title>EAS report</title><style>{style}</style>" \
           f"</head><body>{''.join(body)}</body></html>\n"


def write(out_dir, runs, results, group_b=None, results_b=None, perfetto_export=False, progress=print,
          plots_on=True):
    """Write the report into out_dir atomically: a failed run leaves nothing behind."""
    parent = os.path.dirname(os.path.abspath(out_dir))
    os.makedirs(parent, exist_ok=True)
    tmp = tempfile.mkdtemp(prefix=".report-", dir=parent)
    try:
        md = _build(tmp, runs, results, group_b or [], results_b or [], perfetto_export, progress,
                    plots_on)
        with open(os.path.join(tmp, "report.md"), "w", encoding="utf-8") as f:
            f.write("\n".join(md) + "\n")
        with open(os.path.join(tmp, "report.html"), "w", encoding="utf-8") as f:
            f.write(_html(md))
        shutil.rmtree(out_dir, ignore_errors=True)
        os.replace(tmp, out_dir)
    finally:
        shutil.rmtree(tmp, ignore_errors=True)
    return out_dir


def _build(tmp, runs_a, res_a, runs_b, res_b, perfetto_export, progress, plots_on):
    all_runs = list(zip(runs_a, res_a)) + list(zip(runs_b, res_b))
    metrics = [m for _, (m, _) in all_runs]
    md = ["# EAS run report", "",
          "Energy is scored with one reference power model of the simulated platform, whatever "
          "energy model the kernel used:", "", metrics[0]["power_model"], ""]
    if runs_b:
        rows = compare.table([m for m, _ in res_a], [m for m, _ in res_b])
        la, lb = _group_label(res_a), _group_label(res_b)
        md += ["## A/B comparison", "",
               f"A = {la} ({len(res_a)} run(s)), B = {lb} ({len(res_b)} run(s)); mean ± 95 % CI "
               "half-width when a group has repetitions.", "",
               "| metric | A | B | B - A |", "|---|---|---|---|"]
        md += [f"| {r['name']}{' (' + r['unit'] + ')' if r['unit'] else ''} | {compare.fmt(r['a'], r['a_ci'])} | "
               f"{compare.fmt(r['b'], r['b_ci'])} | {compare.fmt(r['delta'], r['delta_ci'])} |" for r in rows]
        md.append("")
        with open(os.path.join(tmp, "comparison.json"), "w", encoding="utf-8") as f:
            json.dump({"a": la, "b": lb, "rows": rows}, f, indent=1,
                      default=lambda x: None if isinstance(x, float) and math.isnan(x) else x)
    if plots_on:
        progress("plotting the summary figures")
        plots.causes(metrics, os.path.join(tmp, "causes.png"))
        plots.energy(metrics, os.path.join(tmp, "energy.png"))
        plots.latency_cdf([(f"{m['label']} {m['run'][-17:]}", e["latency"]["latency"])
                           for _, (m, e) in all_runs], os.path.join(tmp, "latency.png"))
        md += ["![migrations by cause](causes.png)", "", "![energy vs oracle](energy.png)", "",
               "![wakeup latency](latency.png)", ""]
    for i, (run, (m, extra)) in enumerate(all_runs):
        prefix = f"run{i}-"
        md += run_section(m)
        if plots_on:
            progress(f"[{i + 1}/{len(all_runs)}] plotting {run.name}")
            plots.timeline(run, extra, os.path.join(tmp, prefix + "timeline.png"))
            plots.residency(run, m, os.path.join(tmp, prefix + "residency.png"))
            plots.util(run, extra, os.path.join(tmp, prefix + "util.png"))
            md += [f"![timeline]({prefix}timeline.png)", "", f"![util]({prefix}util.png)", "",
                   f"![residency]({prefix}residency.png)", ""]
        if perfetto_export:
            perfetto.export(run, extra, os.path.join(tmp, prefix + "perfetto.json"))
            md += [f"Perfetto: open `{prefix}perfetto.json` at ui.perfetto.dev; "
                   f"KernelShark: `kernelshark {os.path.join(run.path, 'trace.dat')}`.", ""]
    with open(os.path.join(tmp, "metrics.json"), "w", encoding="utf-8") as f:
        json.dump({"runs": metrics, "causes": ORDER}, f, indent=1)
    return md


def _group_label(results):
    labels = sorted({m["label"] for m, _ in results})
    return " / ".join(labels)
