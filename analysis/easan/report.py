"""Write report.md, report.html and metrics.json (and the figures) for runs or an A/B.

The report is laid out from the metrics (catalog.METRICS): each one's lines in a run's
table, its details after it, its figures; a metric the run's kernel did not trace
reads metric.NOT_TRACED.
"""
import html
import json
import os
import shutil
import tempfile

from . import compare, fidelity, jsonout, perfetto
from .causes import ORDER
from .metric import NOT_TRACED, ms, not_traced, us
from .catalog import METRICS


def _metric_rows(m):
    """(label, text) of every metric's lines in a run's table."""
    out = []
    for metric in METRICS:
        if metric.key is None or not (metric.rows or metric.label):
            continue
        if not_traced(m, metric.name):
            out.append((metric.label, NOT_TRACED))
        elif m[metric.key] is not None and metric.rows:
            out += metric.rows(m[metric.key])
    return out


def run_section(m):
    """Markdown lines describing one run."""
    v = m["verdict"]
    out = [f"## {m['run']}", "",
           f"Kernel **{m['kernel']}**, profile `{m['profile']}`, platform `{m['platform']}`.", "",
           f"**Verdict: {v['verdict'].upper()}**", ""]
    out += [f"- {'ok  ' if c['ok'] else 'FAIL'} {c['name']}: {c['detail']}" for c in v["checks"]]
    out += ["", "| metric | value |", "|---|---|"]
    out += [f"| {label} | {text} |" for label, text in _metric_rows(m)]
    out += [f"| trace | {m['trace']['records']} events, {m['trace']['lost_events']} lost |", "",
            "| thread | task | run time (s) | on E / P / LPE (s) | migrations s/u/d | stuck (ms) |"
            " reaction (ms) | latency p95 (us) | negative slack |",
            "|---|---|---|---|---|---|---|---|---|"]
    for pid, t in sorted(m["tasks"].items(), key=lambda kv: kv[1]["thread"]):
        r = t["residency_ns"]
        by_type = " / ".join(f"{r['type'].get(k, 0) / 1e9:.2f}" for k in ("e", "p", "lpe"))
        tm = t["migrations"]
        st = t.get("stuck") or {}
        reactions = [e["from_crossing_ns"] for e in t.get("reaction") or [] if e["outcome"] == "reacted"]
        sl = m["slack"].get(str(t["thread"]), {})
        out.append(f"| {t['thread']} (pid {pid}) | {t['task']} | {r['total'] / 1e9:.2f} | {by_type} | "
                   f"{tm['same']}/{tm['up']}/{tm['down']} | {ms(st.get('stuck_ns'))} | "
                   f"{', '.join(ms(x) for x in reactions) or '-'} | {us(t['wakeup_latency_ns']['p95'])} | "
                   f"{sl.get('negative', 0)}/{sl.get('activations', 0)} |")
    out += fidelity.report_lines(m)
    for metric in METRICS:
        if metric.details:
            out += metric.details(m)
    return out


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


def write(out_dir, a, b=(), rows=None, perfetto_export=False, progress=print, plots_on=True):
    """Write the report of results a (and b, with their A/B rows) into out_dir
    atomically: a failed run leaves nothing behind."""
    parent = os.path.dirname(os.path.abspath(out_dir))
    os.makedirs(parent, exist_ok=True)
    tmp = tempfile.mkdtemp(prefix=".report-", dir=parent)
    try:
        md = _build(tmp, list(a), list(b), rows, perfetto_export, progress, plots_on)
        with open(os.path.join(tmp, "report.md"), "w", encoding="utf-8") as f:
            f.write("\n".join(md) + "\n")
        with open(os.path.join(tmp, "report.html"), "w", encoding="utf-8") as f:
            f.write(_html(md))
        shutil.rmtree(out_dir, ignore_errors=True)
        os.replace(tmp, out_dir)
    finally:
        shutil.rmtree(tmp, ignore_errors=True)
    return out_dir


def _build(tmp, a, b, rows, perfetto_export, progress, plots_on):
    results = a + b
    metrics = [r.metrics for r in results]
    md = ["# EAS run report", "",
          "Energy is scored with one reference power model of the simulated platform, whatever "
          "energy model the kernel used:", "", metrics[0]["power_model"], ""]
    if b:
        la, lb = compare.label(a), compare.label(b)
        md += ["## A/B comparison", "",
               f"A = {la} ({len(a)} run(s)), B = {lb} ({len(b)} run(s)). With repetitions: "
               "mean ± half-width of the 95 % t interval, Welch's for B - A; percentiles "
               "with [95 % bootstrap interval] (runs and their values resampled).", "",
               "| metric | A | B | B - A |", "|---|---|---|---|"]
        md += [f"| {r['name']}{' (' + r['unit'] + ')' if r['unit'] else ''} | "
               + " | ".join(compare.cells(r)) + " |" for r in rows]
        md.append("")
        with open(os.path.join(tmp, "comparison.json"), "w", encoding="utf-8") as f:
            f.write(jsonout.dumps({"a": la, "b": lb, "rows": rows}, indent=1))
    figures = [fig for metric in METRICS for fig in metric.figures]
    if plots_on:
        progress("plotting the summary figures")
        for fig in figures:
            if not fig.per_run:
                fig.draw(results, os.path.join(tmp, fig.name))
                md += [f"![{fig.title}]({fig.name})", ""]
    for i, result in enumerate(results):
        prefix = f"run{i}-"
        md += run_section(result.metrics)
        if plots_on:
            progress(f"[{i + 1}/{len(results)}] plotting {result.run.name}")
            for fig in figures:
                if fig.per_run:
                    fig.draw(result, os.path.join(tmp, prefix + fig.name))
                    md += [f"![{fig.title}]({prefix}{fig.name})", ""]
        if perfetto_export:
            perfetto.export(result.run, result.data, os.path.join(tmp, prefix + "perfetto.json"))
            md += [f"Perfetto: open `{prefix}perfetto.json` at ui.perfetto.dev; "
                   f"KernelShark: `kernelshark {os.path.join(result.run.path, 'trace.dat')}`.", ""]
    with open(os.path.join(tmp, "metrics.json"), "w", encoding="utf-8") as f:
        json.dump({"runs": metrics, "causes": ORDER}, f, indent=1)
    return md
