"""make bench-speed: does hybrid_sim.faithful make an E-core deliver capacity/1024 of the work?

Each repetition boots the patched kernel twice with guest/vm/jobs/speed-ab.sh:
  - with rt-app-profiles/bench/speed.json (one 8 ms / 40 ms task alternating between
    E-core CPU 1, capacity 600, and P-core CPU 5 in blocks of 8 runs), replayed
    with the option off, then on, three times: the E/P ratio is taken inside
    one replay, where the alternation cancels the host's slow speed drift
    (between boots, and even between replays, this host's speed varies by
    tens of percent);
  - with rt-app-profiles/bench/speed-p.json (one 2 ms / 10 ms task on P-core CPU 5),
    replayed twice while a background loop switches the option every half
    second: the P-core's on/off ratio is taken inside one replay, from the
    runs that no switch came near.

Prints, per pair, the mean length of a `run` on each CPU with the option off
and on; the E-core's run over the P-core's with the option on (target
1024/600 = 1.71 within 5 %) and off (1: the same real speed); the P-core's
slowdown from the option per switching replay (target under 2 %; across a
pair's replays as a cross-check); and, from the kernel's own totals (debugfs
hybrid_sim/faithful_stats), the share of the E-core's busy time the option
gave away (target (1024 - 600)/1024 = 0.414) and its timer ticks per busy
millisecond. Each ratio is pooled over the replays by their precision
(easan.pooling: a replay under host load scatters by tens of percent, a quiet
one by a few), with the interval widened by how much the replays disagree; the
equal-weight mean is printed beside it. A bound is "met" when the whole 95 %
CI of the pooled ratio lies inside it. REPS repetitions (default 1); run
folders of earlier boots given as arguments are analysed again instead. A
measurement, not a test. CMDLINE adds kernel parameters (e.g.
hybrid_sim.faithful_period_us=2000); SPEED_PROFILE and SPEED_P_PROFILE
replace the profiles.
"""
import json
import os
import re
import subprocess
import sys

from contract.paths import TOP
from easan import rtapp
from easan.stats import mean_ci
from easan.fidelity import (alternating_blocks, option_state, read_faithful_stats,
                            read_flips)
from easan.pooling import pooled, ratio_of_means

PROFILE = os.environ.get("SPEED_PROFILE") or os.path.join(TOP, "rt-app-profiles", "bench", "speed.json")
P_PROFILE = (os.environ.get("SPEED_P_PROFILE")
             or os.path.join(TOP, "rt-app-profiles", "bench", "speed-p.json"))
JOB = os.path.join(TOP, "guest", "vm", "jobs", "speed-ab.sh")
E_CPU, E_CAPACITY = 1, 600


def block_length(profile):
    """Runs per block of a task alternating between phases on_e and on_p; 0 for a
    task that stays on one CPU (no phases)."""
    try:
        with open(profile, encoding="utf-8") as f:
            prof = json.load(f)
        task = next(iter(prof["tasks"].values()))
        if "phases" not in task:
            return 0
        return int(task["phases"]["on_e"]["loop"])
    except OSError as e:
        sys.exit(f"bench-speed: {profile}: {e.strerror}")
    except (KeyError, StopIteration, TypeError, ValueError, AttributeError):
        sys.exit(f"bench-speed: {profile}: expected one task, with phases on_e and on_p "
                 "or on one CPU")


def given_share(folder):
    """(given/busy, ticks per busy ms) on the E-core during one replay, or (None, None)."""
    try:
        before = read_faithful_stats(os.path.join(folder, "faithful-stats-before.txt"))
        after = read_faithful_stats(os.path.join(folder, "faithful-stats-after.txt"))
    except FileNotFoundError:
        return None, None
    except ValueError as e:
        sys.exit(f"bench-speed: {e}")
    # Boots from before faithful_stats moved to debugfs have no capacity or timer
    # columns; only the totals count here.
    b0, g0, t0 = before.get(E_CPU, (0, 0, 0))[:3]
    b1, g1, t1 = after.get(E_CPU, (0, 0, 0))[:3]
    if b1 <= b0:
        return None, None
    return (g1 - g0) / (b1 - b0), (t1 - t0) / ((b1 - b0) / 1000)


def runs_of(folder):
    """The first thread's rt-app log of one replay, as (run, start, end) in us."""
    logs = rtapp.read_logs(folder)
    if 0 not in logs or logs[0].empty:
        sys.exit(f"bench-speed: {folder}: no rt-app log")
    log = logs[0]
    return list(zip(log["run"], log["start"], log["end"]))


def blocks(folder, block):
    """(E-core runs, P-core runs) of one alternating replay, as runs_of()."""
    e, p = alternating_blocks(runs_of(folder), block)
    if not e or not p:
        sys.exit(f"bench-speed: {folder}: too few runs logged")
    return e, p


def replay(folder, block):
    """(E-core run times, P-core run times) in us of one replay."""
    # Compared by their means, not medians: the option gives time away in whole
    # timer periods, so runs are not all hit alike; what counts is the work over all.
    return tuple([r for r, _, _ in runs] for runs in blocks(folder, block))


def p_on_over_off(folder, block):
    """(P-core run with the option on over off, its standard error) in a switching replay."""
    try:
        flips = read_flips(os.path.join(folder, "flips.txt"))
    except (OSError, ValueError) as e:
        sys.exit(f"bench-speed: {e}")
    # A task on the P-core throughout: all runs but the first (it includes the start).
    p = blocks(folder, block)[1] if block else runs_of(folder)[1:]
    by_state = {0: [], 1: []}
    for run, start, end in p:
        state = option_state(flips, start, end)
        if state is not None:
            by_state[state].append(run)
    if len(by_state[0]) < 2 or len(by_state[1]) < 2:
        sys.exit(f"bench-speed: {folder}: too few P-core runs clear of the switches")
    return ratio_of_means(by_state[1], by_state[0])


def boot(profile, setup):
    """One boot of speed-ab.sh replaying profile, with setup (shell) in the guest;
    its run folder."""
    os.makedirs(os.path.join(TOP, "build", "bench-speed"), exist_ok=True)
    path = os.path.join(TOP, "build", "bench-speed", "setup.sh")
    with open(path, "w", encoding="utf-8") as f:
        f.write(setup + "\n")
    r = subprocess.run([os.path.join(TOP, "guest", "host", "run.sh"), profile, "patched"],
                       env=dict(os.environ, JOB=JOB, SETUP=path), capture_output=True,
                       text=True, check=False, cwd=TOP)
    if r.returncode != 0:
        sys.exit(f"bench-speed: the run failed:\n{r.stderr[-1500:]}")
    return r.stdout.strip().splitlines()[-1]


def measure(run_folder):
    """What one boot's replays show (either kind may be absent).

    ([{"E off", "P off", "E on", "P on": run times, "given", "ticks/ms"} per pair],
     [(P on/off, its standard error) per switching replay])
    """
    root = os.path.join(run_folder, "speed")
    if not os.path.isdir(root):
        sys.exit(f"bench-speed: {run_folder}: no speed/ folder (not a bench-speed boot)")
    # The profile the boot replayed (run.sh keeps a copy), not today's default.
    block = block_length(os.path.join(run_folder, "profile.json"))
    pairs = sorted({int(m.group(1)) for m in map(re.compile(r"[01]-(\d+)").fullmatch,
                                                 os.listdir(root)) if m})
    if pairs and not block:
        sys.exit(f"bench-speed: {run_folder}: on/off pairs need a task alternating E and P")
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


def summary(name, estimates, bound=None, slowdown=False):
    """One line: the pooled ratio (and the equal-weight mean) against its bound.

    bound is (low, high, how it reads); slowdown prints ratio - 1 in percent.
    """
    if not estimates:
        print(f"{name}: no replays")
        return
    mean, ci, tau = pooled(estimates)
    plain, plain_ci, _ = mean_ci([v for v, _ in estimates])
    if slowdown:
        val, wid = (lambda v: f"{v - 1:+.1%}"), (lambda w: f"{w:.1%}")  # noqa: E731
    else:
        val = wid = (lambda v: f"{v:.3f}")  # noqa: E731
    line = (f"{name}: {val(mean)} +/- {wid(ci)} pooled (tau {wid(tau)}; equal weights "
            f"{val(plain)} +/- {wid(plain_ci)})")
    if bound:
        low, high, target = bound
        line += f", target {target}: {verdict(mean, ci, low, high)}"
    print(line)


def main(argv):
    reps = os.environ.get("REPS", "1")
    if not reps.isdigit() or int(reps) < 1:
        sys.exit(f"bench-speed: REPS={reps!r}: expected a whole number, at least 1")
    # Bad profiles stop here, before any boot.
    if block_length(PROFILE) == 0:
        sys.exit(f"bench-speed: {PROFILE}: expected a task alternating phases on_e and on_p")
    block_length(P_PROFILE)
    # Run folders of earlier boots are analysed again instead of booting.
    boots = argv or [(PROFILE, "FLIPS=0"), (P_PROFILE, "PAIRS=0")] * int(reps)
    e_over_p, off_e_over_p, p_ratio, shares, p_flip = [], [], [], [], []
    print(f"{'boot/pair':>11}{'E off':>7}{'P off':>7}{'E on':>7}{'P on':>7}"
          f"{'E/P off':>9}{'E/P on':>8}{'P on/off':>10}{'E given':>9}{'ticks/ms':>9}")
    for b, what in enumerate(boots, 1):
        pairs, flips = measure(boot(*what) if isinstance(what, tuple) else what)
        p_flip += flips
        for n, m in enumerate(pairs, 1):
            off_e_over_p.append(ratio_of_means(m["E off"], m["P off"]))
            e_over_p.append(ratio_of_means(m["E on"], m["P on"]))
            p_ratio.append(ratio_of_means(m["P on"], m["P off"]))
            shares.append(m["given"])
            given = "-" if m["given"] is None else f"{m['given']:.3f}"
            ticks = "-" if m["ticks/ms"] is None else f"{m['ticks/ms']:.2f}"
            means = [sum(m[k]) / len(m[k]) for k in ("E off", "P off", "E on", "P on")]
            print(f"{b:>6}/{n:<4}" + "".join(f"{v:7.0f}" for v in means)
                  + f"{off_e_over_p[-1][0]:9.3f}{e_over_p[-1][0]:8.3f}"
                  f"{p_ratio[-1][0]:10.3f}{given:>9}{ticks:>9}")
    want = 1024 / E_CAPACITY
    print("Means with the half-width of their 95 % CI; pooled = each replay weighted "
          "by its precision, the interval widened by the spread between replays (tau).")
    summary("E-core run over P-core run without the option (the same real speed: 1)",
            off_e_over_p)
    summary("E-core run over P-core run with the option", e_over_p,
            (want * 0.95, want * 1.05, f"{want:.3f} +/- 5 %"))
    g, g_ci, n = mean_ci(shares)
    if n:
        print(f"E-core busy time given away by the option: {g:.3f} +/- {g_ci:.3f}, "
              f"target {1 - 1 / want:.3f}")
    print("P-core run with / without the option, per switching replay: "
          + " ".join(f"{r:.3f}" for r, _ in p_flip))
    # Across replays the host's drift between them adds in: a cross-check, no bound.
    summary("P-core slowdown from the option across a pair's replays", p_ratio,
            slowdown=True)
    summary("P-core slowdown from the option inside switching replays", p_flip,
            (0, 1.02, "under 2 %"), slowdown=True)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
