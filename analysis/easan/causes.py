"""The migration cause model: the kernel's reason -> the cause a reviewer reads.

The kernel names the path that moved a task (eas:eas_migrate_reason); several
paths share one cause. A new cause (a push mechanism, say) is one line here
and one value in the kernel's enum sched_migrate_reason.
"""
CAUSES = {
    "wakeup": "wakeup",
    "lb_busy": "load_balance",
    "lb_idle": "load_balance",
    "lb_newidle": "load_balance",
    "lb_nohz": "load_balance",
    "lb_misfit": "misfit",
    "active_misfit": "misfit",
    "active": "active_balance",
    "affinity": "affinity",
    "push": "push",
    "fair_push": "push",
    "fair_push_tick": "push",
    "fair_push_setattr": "push",
    "fair_push_slice": "push",
    "numa": "numa",
    "numa_swap": "numa",
    # RT and deadline tasks moved by their own classes' push and pull.
    "rt_push": "rt_dl",
    "rt_pull": "rt_dl",
    "dl_push": "rt_dl",
    "dl_pull": "rt_dl",
    "exec": "other",
    "hotplug": "other",
    "core_steal": "other",
    "scx": "other",
}
# The order causes are listed in tables and plots; "unknown" (the kernel's own
# "unknown", a move nothing announced, or a reason missing above) comes last.
ORDER = ["wakeup", "load_balance", "misfit", "active_balance", "push", "numa", "rt_dl",
         "affinity", "other", "unknown"]


def cause_of(reason):
    return CAUSES.get(reason, "unknown")


def ordered(causes):
    """The causes among `causes` (any iterable), once each, in ORDER."""
    present = set(causes)
    return [c for c in ORDER if c in present]
