"""A Chrome JSON trace of the profile's threads that Perfetto's UI (ui.perfetto.dev) opens.

One track per CPU with a slice for every stretch a profile thread ran, instant
events for migrations (named by cause) and a util counter per thread.
"""
import json


def export(run, extra, path):
    events = [{"ph": "M", "pid": 1, "name": "process_name", "args": {"name": f"CPUs ({run.name})"}}]
    for c in run.platform.cpus:
        events.append({"ph": "M", "pid": 1, "tid": c.cpu, "name": "thread_name",
                       "args": {"name": f"CPU {c.cpu} ({c.type}, cap {c.capacity})"}})
    names = {int(p): f"{t} [{i}]" for p, i, t in
             zip(run.threads["pid"], run.threads["thread"], run.threads["task"])}
    sl = extra["slices"]
    for cpu, start, end, pid in zip(sl["cpu"], sl["start"], sl["end"], sl["pid"]):
        if int(pid) in names:
            events.append({"ph": "X", "pid": 1, "tid": int(cpu), "name": names[int(pid)],
                           "ts": start / 1e3, "dur": (end - start) / 1e3, "args": {"pid": int(pid)}})
    for ts, pid, src, dst, cause, reason in zip(*(extra["migrations"][k] for k in
                                                   ("ts", "pid", "orig_cpu", "dest_cpu", "cause", "reason"))):
        events.append({"ph": "i", "s": "t", "pid": 1, "tid": int(dst), "ts": ts / 1e3,
                       "name": f"migrate {cause}", "args": {"task": names.get(int(pid)),
                                                            "from": int(src), "reason": reason}})
    pelt = run.tables["pelt_se"]
    pelt = pelt[pelt["pid"].isin(names.keys())]
    for ts, pid, util in zip(pelt["ts"], pelt["pid"], pelt["util"]):
        events.append({"ph": "C", "pid": 2, "name": f"util {names[int(pid)]}", "ts": ts / 1e3,
                       "args": {"util": int(util)}})
    with open(path, "w", encoding="utf-8") as f:
        json.dump({"traceEvents": events, "displayTimeUnit": "ms"}, f)
    return path
