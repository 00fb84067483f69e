"""The reference power model that scores every run, whatever EM the kernel used.

The kernel's EM costs are abstract units that differ between layouts (v0.21,
v0.3, v6.19), so energy is scored with one model of the simulated platform:

  power(type, capacity, f) = W[type] x capacity/1024 x f x (0.6 + 0.4 f)^2   [mW]

at the operating points f = 2/5, 3/5, 4/5, 5/5 of the CPU's capacity (the
simulated driver's four states): dynamic power grows with frequency and the
square of a voltage that rises linearly from 60 % to 100 %. W is a type's
power at full speed for a capacity of 1024. An ideal governor runs a CPU that
must deliver u capacity units at the lowest point with f x capacity >= u, busy
for u / (f x capacity) of the time; idle power is left out. A CPU asked for
more than its capacity is charged the energy of finishing that work at full
speed (the oracle never overcommits a CPU unless nothing fits).
"""
W_MW = {"p": 2000.0, "e": 1100.0, "lpe": 900.0}
OPP_FRACTIONS = (0.4, 0.6, 0.8, 1.0)

DESCRIPTION = ("power(type, cap, f) = W[type] x cap/1024 x f x (0.6 + 0.4 f)^2 mW, "
               "W = " + ", ".join(f"{k}: {v:.0f}" for k, v in W_MW.items())
               + " mW; f in 2/5..5/5; ideal governor (lowest f with f x cap >= demand); "
               "no idle power")


def opp_power(kind, capacity, f):
    return W_MW[kind] * capacity / 1024 * f * (0.6 + 0.4 * f) ** 2


def cpu_power(kind, capacity, demand):
    """(mW, overcommitted): power of a CPU asked for `demand` capacity units."""
    if demand <= 0:
        return 0.0, False
    for f in OPP_FRACTIONS:
        if f * capacity >= demand:
            return demand / (f * capacity) * opp_power(kind, capacity, f), False
    # More than the CPU can deliver: the work completes, at full speed, in
    # demand/capacity of the time it had (later than asked, see "stuck").
    return opp_power(kind, capacity, 1.0) * demand / capacity, True
