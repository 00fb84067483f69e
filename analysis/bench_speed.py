#!/usr/bin/python3
"""make bench-speed: does hybrid_sim.faithful make an E-core deliver capacity/1024 of the work?

Boots the patched kernel with guest/jobs/speed-ab.sh, which replays
guest/bench/speed.json (one 2 ms / 20 ms task alternating between E-core CPU 1,
capacity 600, and P-core CPU 5 in blocks of a few runs) with the option off,
then on, three times in one boot; then twice more while a background loop
switches the option every half second. The E/P ratio is taken inside one
replay, where the alternation cancels the host's slow speed drift (between
boots, and even between replays, this host's speed varies by tens of percent);
the P-core's on/off ratio inside one switching replay, from the runs that no
switch came near (the E-core runs there are not used: each switch recalibrates
the E-cores' tick cost while the task runs).

Prints, per pair, the mean length of a `run` on each CPU with the option off
and on; the E-core's run over the P-core's with the option on (target
1024/600 = 1.71 within 5 %) and off (1: the same real speed); the P-core's
slowdown from the option, per pair and per switching replay (target under
2 %); and, from the kernel's own totals, the share of the E-core's busy time
the option gave away (target (1024 - 600)/1024 = 0.414) and its timer ticks
per busy millisecond. A bound is
"met" when the 95 % CI of the mean over the pairs lies inside it. REPS boots
(default 1). A measurement, not a test. CMDLINE adds kernel parameters (e.g.
hybrid_sim.faithful_period_us=2000); SPEED_PROFILE replaces the profile.
"""
import json
import os
import re
import subprocess
import sys

TOP = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, os.path.join(TOP, "analysis"))
from easan import rtapp  # noqa: E402
from easan.compare import stats  # noqa: E402
from easan.fidelity import (alternating_blocks, option_state, read_faithful_stats,  # noqa: E402
                            read_flips)

PROFILE = os.environ.get("SPEED_PROFILE") or os.path.join(TOP, "guest", "bench", "speed.json")
JOB = os.path.join(TOP, "guest", "jobs", "speed-ab.sh")
E_CPU, E_CAPACITY = 1, 600


def block_length():
    """Runs per block: the E-core phase's loop count (both phases share it)."""
    with open(PROFILE, encoding="utf-8") as f:
        prof = json.load(f)
    try:
        phases = next(iter(prof["tasks"].values()))["phases"]
        return int(phases["on_e"]["loop"])
    except (KeyError, StopIteration, TypeError, ValueError):
        sys.exit(f"bench-speed: {PROFILE}: expected one task with phases on_e and on_p")


def given_share(folder):
    """(given/busy, ticks per busy ms) on the E-core during one replay, or (None, None)."""
    try:
        before = read_faithful_stats(os.path.join(folder, "faithful-stats-before.txt"))
        after = read_faithful_stats(os.path.join(folder, "faithful-stats-after.txt"))
    except FileNotFoundError:
        return None, None
    b0, g0, t0 = before.get(E_CPU, (0, 0, 0))
    b1, g1, t1 = after.get(E_CPU, (0, 0, 0))
    if b1 <= b0:
        return None, None
    return (g1 - g0) / (b1 - b0), (t1 - t0) / ((b1 - b0) / 1000)


def mean(values):
    return sum(values) / len(values)


def blocks(folder, block):
    """(E-core runs, P-core runs) of one replay, each as (run, start, end) in us."""
    logs = rtapp.read_logs(folder)
    if 0 not in logs or logs[0].empty:
        sys.exit(f"bench-speed: {folder}: no rt-app log")
    log = logs[0]
    e, p = alternating_blocks(list(zip(log["run"], log["start"], log["end"])), block)
    if not e or not p:
        sys.exit(f"bench-speed: {folder}: too few runs logged ({len(log)})")
    return e, p


def replay(folder, block):
    """(mean E-core run, mean P-core run) in us of one replay."""
    # The mean, not the median: the option gives time away in whole timer
    # periods, so runs are not all hit alike; what counts is the work over all.
    return tuple(mean([r for r, _, _ in runs]) for runs in blocks(folder, block))


def p_on_over_off(folder, block):
    """Mean P-core run with the option on over off, in a switching replay."""
    try:
        flips = read_flips(os.path.join(folder, "flips.txt"))
    except (OSError, ValueError) as e:
        sys.exit(f"bench-speed: {e}")
    _, p = blocks(folder, block)
    by_state = {0: [], 1: []}
    for run, start, end in p:
        state = option_state(flips, start, end)
        if state is not None:
            by_state[state].append(run)
    if not by_state[0] or not by_state[1]:
        sys.exit(f"bench-speed: {folder}: no P-core run clear of the switches in one state")
    return mean(by_state[1]) / mean(by_state[0])


def boot(block):
    """One boot of speed-ab.sh.

    ([{"E off", "P off", "E on", "P on", "given", "ticks/ms"} per pair],
     [P on/off per switching replay])
    """
    r = subprocess.run([os.path.join(TOP, "guest", "run.sh"), PROFILE, "patched"],
                       env=dict(os.environ, JOB=JOB), capture_output=True, text=True,
                       check=False, cwd=TOP)
    if r.returncode != 0:
        sys.exit(f"bench-speed: the run failed:\n{r.stderr[-1500:]}")
    root = os.path.join(r.stdout.strip().splitlines()[-1], "speed")
    pairs = sorted({int(m.group(1)) for m in map(re.compile(r"[01]-(\d+)").fullmatch,
                                                 os.listdir(root)) if m})
    out = []
    for n in pairs:
        m = {}
        for on in (0, 1):
            folder = os.path.join(root, f"{on}-{n}")
            m[f"E {'on' if on else 'off'}"], m[f"P {'on' if on else 'off'}"] = \
                replay(folder, block)
        # The option's totals come from the replay with it on.
        m["given"], m["ticks/ms"] = given_share(os.path.join(root, f"1-{n}"))
        out.append(m)
    flips = sorted(n for n in os.listdir(root) if n.startswith("flip-"))
    return out, [p_on_over_off(os.path.join(root, n), block) for n in flips]


def verdict(value, ci, low, high):
    """'met' when the whole 95 % CI lies in [low, high]; else what did."""
    if low <= value - ci and value + ci <= high:
        return "met"
    return "mean met, CI not" if low <= value <= high else "NOT met"


def main():
    reps = os.environ.get("REPS", "1")
    if not reps.isdigit() or int(reps) < 1:
        sys.exit(f"bench-speed: REPS={reps!r}: expected a whole number, at least 1")
    reps = int(reps)
    block = block_length()
    e_over_p, off_e_over_p, p_ratio, shares, p_flip = [], [], [], [], []
    print(f"{'boot/pair':>11}{'E off':>7}{'P off':>7}{'E on':>7}{'P on':>7}"
          f"{'E/P off':>9}{'E/P on':>8}{'P on/off':>10}{'E given':>9}{'ticks/ms':>9}")
    for b in range(1, reps + 1):
        pairs, flips = boot(block)
        p_flip += flips
        for n, m in enumerate(pairs, 1):
            off_e_over_p.append(m["E off"] / m["P off"])
            e_over_p.append(m["E on"] / m["P on"])
            p_ratio.append(m["P on"] / m["P off"])
            shares.append(m["given"])
            given = "-" if m["given"] is None else f"{m['given']:.3f}"
            ticks = "-" if m["ticks/ms"] is None else f"{m['ticks/ms']:.2f}"
            print(f"{b:>6}/{n:<4}{m['E off']:7.0f}{m['P off']:7.0f}{m['E on']:7.0f}"
                  f"{m['P on']:7.0f}{off_e_over_p[-1]:9.3f}{e_over_p[-1]:8.3f}"
                  f"{p_ratio[-1]:10.3f}{given:>9}{ticks:>9}")
    want = 1024 / E_CAPACITY
    # Means with the half-width of their 95 % CI over the pairs (the A/B table's).
    e, e_ci, _ = stats(e_over_p)
    off, off_ci, _ = stats(off_e_over_p)
    p, p_ci, _ = stats(p_ratio)
    print(f"E-core run over P-core run without the option: {off:.3f} +/- {off_ci:.3f} "
          f"(the same real speed: 1)")
    print(f"E-core run over P-core run with the option: {e:.3f} +/- {e_ci:.3f}, target "
          f"{want:.3f} +/- 5 %: {verdict(e, e_ci, want * 0.95, want * 1.05)}")
    g, g_ci, n = stats(shares)
    if n:
        print(f"E-core busy time given away by the option: {g:.3f} +/- {g_ci:.3f}, "
              f"target {1 - 1 / want:.3f}")
    print("P-core run with / without the option, per switching replay: "
          + " ".join(f"{r:.3f}" for r in p_flip))
    print(f"P-core slowdown from the option across a pair's replays: {p - 1:+.1%} +/- "
          f"{p_ci:.1%}, target under 2 %: {verdict(p - 1, p_ci, -1, 0.02)}")
    f, f_ci, _ = stats(p_flip)
    print(f"P-core slowdown from the option inside switching replays: {f - 1:+.1%} +/- "
          f"{f_ci:.1%}, target under 2 %: {verdict(f - 1, f_ci, -1, 0.02)}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
