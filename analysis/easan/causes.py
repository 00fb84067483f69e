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
    "exec": "other",
    "hotplug": "other",
}
# The order causes are listed in tables and plots.
ORDER = ["wakeup", "load_balance", "misfit", "active_balance", "push", "affinity",
         "other", "unknown"]


def cause_of(reason):
    return CAUSES.get(reason, "unknown")
