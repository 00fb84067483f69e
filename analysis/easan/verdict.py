"""A run's verdict, LISA-style, with the thresholds stated where they are used."""
from contract.constants import TICK_NS

ENERGY_TOLERANCE = 1.05       # estimated energy <= oracle x this
MAX_NEGATIVE_SLACK = 0.15     # share of a task's activations ending after their period
MAX_OUTSIDE_SHARE = 0.01      # CPU time of tasks outside the profile -> undecided
BUSY_FACTOR = 16              # sd->busy_factor: balance interval of a busy CPU


def balance_interval_ns(ncpus):
    """The busy balance interval of the one-level domain: weight ms x busy_factor."""
    return ncpus * BUSY_FACTOR * 1_000_000 + TICK_NS


def judge(m, ncpus):
    """{'verdict': pass|fail|undecided, 'checks': [{name, ok, detail}]}."""
    checks = []
    e = m["energy"]
    if e["ratio"] is not None:
        checks.append({"name": "energy", "ok": e["ratio"] <= ENERGY_TOLERANCE,
                       "detail": f"estimated/oracle = {e['ratio']:.3f} (limit {ENERGY_TOLERANCE})"})
    worst = max((s["share_negative"] for s in m["slack"].values()), default=0.0)
    checks.append({"name": "slack", "ok": worst <= MAX_NEGATIVE_SLACK,
                   "detail": f"worst task: {worst:.1%} activations with negative slack"
                             f" (limit {MAX_NEGATIVE_SLACK:.0%})"})
    bound = balance_interval_ns(ncpus)
    if m["stuck"] is not None:    # None: not traced by this kernel (metric.py)
        longest = max((t["longest_stuck_ns"] for t in m["stuck"].values()), default=0)
        checks.append({"name": "stuck", "ok": longest <= bound,
                       "detail": f"longest stuck stretch {longest / 1e6:.0f} ms"
                                 f" (limit one busy balance interval, {bound / 1e6:.0f} ms)"})
    outside = m["outside"]["share"]
    distorted = bool(m["fidelity"].get("distorted"))
    if outside > MAX_OUTSIDE_SHARE or distorted:
        verdict = "undecided"
    else:
        verdict = "pass" if all(c["ok"] for c in checks) else "fail"
    checks.append({"name": "outside", "ok": outside <= MAX_OUTSIDE_SHARE,
                   "detail": f"tasks outside the profile took {outside:.2%} of busy CPU time"
                             f" (above {MAX_OUTSIDE_SHARE:.0%}: undecided)"})
    checks.append({"name": "fidelity", "ok": not distorted,
                   "detail": m["fidelity"].get("reason") or "speeds within bounds"})
    return {"verdict": verdict, "checks": checks}
