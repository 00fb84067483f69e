"""The energy model the guest registered, from the run folder's debugfs dump."""
import os

from .errors import AnalysisError

def parse_cpulist(text):
    cpus = []
    for part in text.strip().split(","):
        if not part:
            continue
        lo, _, hi = part.partition("-")
        cpus.extend(range(int(lo), int(hi or lo) + 1))
    return cpus

def load(run_dir):
    """{'domains': [{'cpus': [...], 'states': [{'performance', 'cost', ...}]}]} or None."""
    top = os.path.join(run_dir, "energy_model")
    if not os.path.isdir(top):
        return None
    domains = []
    for name in sorted(os.listdir(top)):
        d = os.path.join(top, name)
        try:
            with open(os.path.join(d, "cpus"), encoding="utf-8") as f:
                cpus = parse_cpulist(f.read())
            states = []
            for ps in sorted((p for p in os.listdir(d) if p.startswith("ps:")),
                             key=lambda p: int(p[3:])):
                state = {}
                for key in ("performance", "cost", "frequency", "power"):
                    with open(os.path.join(d, ps, key), encoding="utf-8") as f:
                        state[key] = int(f.read().strip())
                states.append(state)
        except (OSError, ValueError) as e:
            raise AnalysisError(f"{d}: unreadable energy model dump ({e})") from e
        domains.append({"name": name, "cpus": cpus, "states": states})
    return {"domains": domains}

def cost_only(dom):
    """A domain registered without active_power() (the v0.21 layout): a single state
    with no frequency and no performance, whose cost holds at any performance."""
    return len(dom["states"]) == 1 and dom["states"][0]["frequency"] == 0 \
        and dom["states"][0]["performance"] == 0

def check_against(em, platform, where):
    """The dump must cover each CPU once, with its capacity as top performance
    (cost-only domains have no performance to check)."""
    if em is None:
        return
    seen = {}
    for dom in em["domains"]:
        if not dom["states"]:
            raise AnalysisError(f"{where}: perf domain {dom['name']} has no states")
        top = max(s["performance"] for s in dom["states"])
        for cpu in dom["cpus"]:
            if cpu >= platform.ncpus:
                raise AnalysisError(f"{where}: perf domain {dom['name']} names CPU {cpu},"
                                    f" the platform has {platform.ncpus} CPUs")
            if cpu in seen:
                raise AnalysisError(f"{where}: CPU {cpu} is in two perf domains")
            if not cost_only(dom) and top != platform.capacity(cpu):
                raise AnalysisError(f"{where}: CPU {cpu} tops at performance {top} in the EM,"
                                    f" but its capacity is {platform.capacity(cpu)}")
            seen[cpu] = dom["name"]
    missing = sorted(set(range(platform.ncpus)) - set(seen))
    if missing:
        raise AnalysisError(f"{where}: no perf domain for CPU(s) {missing}")

def describe(em):
    """One line per domain, e.g. 'cpu4 [4]: 409/130 614/131 819/132 1024/133'."""
    if em is None:
        return []
    return [f"{d['name']} {d['cpus']}: " + " ".join(f"{s['performance']}/{s['cost']}" for s in d["states"])
            for d in em["domains"]]

