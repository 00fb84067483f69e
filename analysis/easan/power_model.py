"""The reference power model that scores every run, whatever EM the kernel used.

The kernel's EM costs are abstract units that differ between layouts (v0.21,
v0.3, v6.19), so energy is scored with one model of the simulated platform:

  power(type, capacity, f) = W[type] x capacity/1024 x f x (0.6 + 0.4 f)^2   [mW]

at the operating points f = 2/5, 3/5, 4/5, 5/5 of the CPU's capacity (the
simulated driver's four states): dynamic power grows with frequency and the
square of a voltage that rises linearly from 60 % to 100 %. W is a type's
power at full speed for a capacity of 1024. An ideal governor runs a CPU that
must deliver u capacity units at the lowest point with f x capacity >= r,
where r is u clamped as schedutil clamps a CPU's request: by the largest
util_min and the largest util_max of the tasks on the CPU (uclamp; when the
largest util_min is not below the largest util_max, it wins, as in
uclamp_rq_util_with()). The CPU is charged the energy of its u units of work at
that point, u / (f x capacity) x power; idle power is left out. So a capped
task that asks for more than its clamp's point delivers works at that point
(for longer than the time it had: the clamp's choice, not an overcommit), and a
CPU asked for more than its capacity, unclamped, is charged the energy of
finishing that work at full speed (the oracle's search never overcommits a CPU
unless nothing fits). The oracle's lower bound (oracle.lower_bound()) lets no CPU
run longer than the bucket, clamped or not.

Work is in capacity units, 1024 in a bucket for a capacity-1024 CPU at full speed:
energy.py counts what each CPU delivered (Run.speeds), so under capacity-faithful
speed an E-core's run time counts capacity/1024 of a P-core's.
"""
W_MW = {"p": 2000.0, "e": 1100.0, "lpe": 900.0}
OPP_FRACTIONS = (0.4, 0.6, 0.8, 1.0)
# (util_min, util_max) of a task without uclamp settings.
UNCLAMPED = (0, 1024)

DESCRIPTION = ("power(type, cap, f) = W[type] x cap/1024 x f x (0.6 + 0.4 f)^2 mW, "
               "W = " + ", ".join(f"{k}: {v:.0f}" for k, v in W_MW.items())
               + " mW; f in 2/5..5/5; ideal governor (lowest f with f x cap >= the CPU's demand "
               "clamped by its tasks' largest util_min and util_max, as schedutil does); "
               "the demand's work charged at that f; no idle power")


def opp_power(kind, capacity, f):
    return W_MW[kind] * capacity / 1024 * f * (0.6 + 0.4 * f) ** 2


def _ceiling(clamp):
    """The most a CPU's request can be under clamp: util_max, or util_min when
    it is not below util_max (uclamp_rq_util_with() lets util_min win then)."""
    lo, hi = clamp
    return max(lo, hi)


def request(demand, clamp=UNCLAMPED):
    """What schedutil asks of a CPU for `demand`, under the (util_min, util_max) of
    its tasks, each the largest among them."""
    return min(max(demand, clamp[0]), _ceiling(clamp))


def cpu_power(kind, capacity, demand, clamp=UNCLAMPED):
    """(mW, overcommitted): power of a CPU asked for `demand` capacity units of work
    by tasks whose largest (util_min, util_max) is `clamp`."""
    if demand <= 0:
        return 0.0, False
    want = request(demand, clamp)
    f = next((f for f in OPP_FRACTIONS if f * capacity >= want), 1.0)
    # Beyond the CPU's capacity with a clamp that does not hold the request below
    # it: the work completes, at full speed, in demand/capacity of the time it
    # had (later than asked, see "stuck").
    return demand / (f * capacity) * opp_power(kind, capacity, f), \
        demand > capacity and _ceiling(clamp) >= capacity
