"""The simulated hybrid platform: EAS, the energy model and KUnit, one boot each."""
import os
import re
import subprocess

import pytest

import faithful_follow
from conftest import BUILD, TOP, guest_run

INSPECT = os.path.join(TOP, "guest", "vm", "jobs", "inspect.sh")
SMOKE = os.path.join(TOP, "rt-app-profiles", "smoke.json")

# Hand-computed for hybrid_sim=e:4:600,p:2:1024 (v0.3 layout): E-cores (scaling
# 100000, L3) cost 100 + level + 2; P-cores (scaling 78741) 126 + level + 2; the
# states sit at 2/5..5/5 of the CPU's capacity.
E_STATES = {2: (240, 104), 3: (360, 105), 4: (480, 106), 5: (600, 107)}
P_STATES = {2: (409, 130), 3: (614, 131), 4: (819, 132), 5: (1024, 133)}
EXPECTED_EM = {str(cpu): (E_STATES if cpu < 4 else P_STATES) for cpu in range(6)}
# v0.21: one cost-only domain per type (no active_power(): a single state with
# no frequency and no performance), cost = the type part (100 for E-cores,
# 10000000 / 78741 = 126 for P-cores).
EXPECTED_V021 = {"0-3": {0: (0, 100)}, "4-5": {0: (0, 126)}}
# v6.19: per CPU, cost = level + 1 (E-core with L3) or + 2 (P-core).
EXPECTED_V619 = {str(cpu): ({2: (240, 3), 3: (360, 4), 4: (480, 5), 5: (600, 6)} if cpu < 4
                            else {2: (409, 4), 3: (614, 5), 4: (819, 6), 5: (1024, 7)})
                 for cpu in range(6)}


def inspect(tmp_path, kernel, job=INSPECT, **env):
    """Boot KERNEL with a guest job (by default: save the state); the run folder."""
    return guest_run(SMOKE, kernel, runs=tmp_path, JOB=job, **env)


def read(folder, name):
    with open(os.path.join(folder, name), encoding="utf-8") as f:
        return f.read()


def em_dump(folder):
    """{cpus: {level: (performance, cost)}} from the run's energy_model/ copy."""
    root = os.path.join(folder, "energy_model")
    out = {}
    for dom in sorted(os.listdir(root)):
        cpus = read(os.path.join(root, dom), "cpus").strip()
        states = {}
        for ps in os.listdir(os.path.join(root, dom)):
            if ps.startswith("ps:"):
                d = os.path.join(root, dom, ps)
                states[int(ps[3:])] = (int(read(d, "performance")), int(read(d, "cost")))
        out[cpus] = states
    return out


@pytest.fixture(scope="module")
def patched_boot(tmp_path_factory):
    return inspect(tmp_path_factory.mktemp("patched"), "patched", CMDLINE="kunit.enable=1")


@pytest.mark.parametrize("kernel", ["base", "patched"])
def test_eas_starts_with_per_cpu_domains(tmp_path, kernel, patched_boot):
    folder = patched_boot if kernel == "patched" else inspect(tmp_path, kernel)
    dmesg = read(folder, "dmesg.txt")
    assert "hybrid_sim: simulating 2 CPU types on 6 CPUs: e:4:600,p:2:1024" in dmesg
    assert "sched_energy_set: starting EAS" in dmesg
    assert read(folder, "sched_energy_aware.txt").strip() == "1"
    assert set(read(folder, "cpufreq_drivers.txt").split()) == {"hybrid_sim"}
    assert em_dump(folder) == EXPECTED_EM


@pytest.mark.parametrize("layout,expected", [("v0.21", EXPECTED_V021),
                                             ("v6.19", EXPECTED_V619)])
def test_layout_choice(tmp_path, layout, expected):
    folder = inspect(tmp_path, "patched", CMDLINE=f"hybrid_em.layout={layout}")
    dmesg = read(folder, "dmesg.txt")
    assert f"(passive mode, energy model {layout})" in dmesg
    assert "sched_energy_set: starting EAS" in dmesg
    assert read(folder, "sched_energy_aware.txt").strip() == "1"
    assert em_dump(folder) == expected


def test_v021_cpu_online_late_joins_its_type(tmp_path):
    """maxcpus=5 leaves P-core CPU 5 offline while the domains are registered:
    onlining it later must put it into the P-core domain (em_dev_expand_perf_domain),
    not make a domain of its own, and EAS must stay on."""
    folder = inspect(tmp_path, "patched", os.path.join(TOP, "guest", "vm", "jobs", "online-late.sh"),
                     CMDLINE="hybrid_em.layout=v0.21 maxcpus=5 sched_verbose")
    dmesg = read(folder, "dmesg.txt")
    assert read(folder, "online.txt").strip() == "0-5"
    assert "EM: added to the perf domain of CPU4" in dmesg
    assert em_dump(folder) == EXPECTED_V021
    assert read(folder, "sched_energy_aware.txt").strip() == "1"
    # The scheduler's perf domains, as its last rebuild printed them.
    domains = [line for line in dmesg.splitlines() if "root_domain" in line and " pd" in line]
    assert domains, "no perf domain debug output"
    assert domains[-1].endswith("pd4:{ cpus=4-5 nr_pstate=1 } pd0:{ cpus=0-3 nr_pstate=1 }") or \
        domains[-1].endswith("pd0:{ cpus=0-3 nr_pstate=1 } pd4:{ cpus=4-5 nr_pstate=1 }"), domains[-1]


def test_unknown_layout_keeps_the_default(tmp_path):
    folder = inspect(tmp_path, "patched", CMDLINE="hybrid_em.layout=v9")
    dmesg = read(folder, "dmesg.txt")
    assert 'hybrid_em: unknown layout "v9", keeping v0.3' in dmesg
    assert em_dump(folder) == EXPECTED_EM


def test_kunit_suites_pass(patched_boot):
    kunit = os.path.join(BUILD, "src", "tools", "testing", "kunit", "kunit.py")
    log = os.path.join(patched_boot, "dmesg.txt")
    r = subprocess.run(["/usr/bin/python3", kunit, "parse", log], capture_output=True,
                       text=True, check=False)
    assert r.returncode == 0, r.stdout[-3000:]
    assert re.search(r"Testing complete\. Ran \d+ tests: passed: \d+", r.stdout), r.stdout[-2000:]
    # Each suite of the series ran and passed.
    for suite in ("hybrid_sim", "energy_model", "intel_pstate", "sched_fair_push",
                  "sched_fair_slice"):
        assert re.search(rf"\[PASSED\] {suite} =", r.stdout), (suite, r.stdout[-3000:])


def test_bad_spec_boots_plain_smp(tmp_path):
    folder = inspect(tmp_path, "patched", PLATFORM="none", CPUS="6",
                     CMDLINE="hybrid_sim=e:4:600,x:2:1024")
    dmesg = read(folder, "dmesg.txt")
    assert ('hybrid_sim: bad spec "e:4:600,x:2:1024": unknown CPU type '
            "(expected p, e or lpe); not simulating a hybrid platform") in dmesg
    assert "starting EAS" not in dmesg
    assert not os.path.exists(os.path.join(folder, "energy_model"))
    assert not os.path.exists(os.path.join(folder, "sched_energy_aware.txt")) or \
        read(folder, "sched_energy_aware.txt").strip() == "0"


def test_symmetric_spec_leaves_eas_off(tmp_path):
    folder = inspect(tmp_path, "patched", PLATFORM="p:6:1024")
    dmesg = read(folder, "dmesg.txt")
    assert "hybrid_sim: simulating 1 CPU types on 6 CPUs" in dmesg
    assert "starting EAS" not in dmesg


def modes(folder):
    """[(step, status, governor, sysctl, eas)] from the cpufreq-modes job, in order.

    eas is the real state ("on"/"off", from the kernel's last sched_energy_set line
    once the step's sched-domain rebuild ran); sysctl is sched_energy_aware, "-"
    when it reads empty (EAS impossible)."""
    assert not os.path.exists(os.path.join(folder, "errors.txt")), read(folder, "errors.txt")
    return [tuple(line.split()) for line in read(folder, "modes.txt").splitlines()]


MODES_JOB = os.path.join(TOP, "guest", "vm", "jobs", "cpufreq-modes.sh")

# The walk of cpufreq-modes.sh, booted in active mode, on the patched kernel: EAS
# runs with schedutil (passive) and with the powersave policy of a setpolicy driver
# (active), and stops with the performance policy or governor (the CPUs always run
# at their highest level: no energy to choose) and with no cpufreq driver (off).
PATCHED_WALK = [
    ("boot", "active", "powersave", "1", "on"),
    ("active-performance", "active", "performance", "-", "off"),
    ("active-powersave", "active", "powersave", "1", "on"),
    ("off", "off", "-", "-", "off"),
    ("passive", "passive", "schedutil", "1", "on"),
    ("passive-performance", "passive", "performance", "-", "off"),
    ("passive-schedutil", "passive", "schedutil", "1", "on"),
    ("active", "active", "powersave", "1", "on"),
    ("passive-again", "passive", "schedutil", "1", "on"),
    ("sysctl-0", "passive", "schedutil", "0", "off"),
    ("sysctl-1", "passive", "schedutil", "1", "on"),
    ("off-again", "off", "-", "-", "off"),
]


def check_sysctl_consistent(steps):
    """sched_energy_aware reads 1 exactly while EAS runs (empty, "-", where EAS is
    impossible; 0 where the sysctl turned it off)."""
    for step, _, _, sysctl, eas in steps:
        assert (sysctl == "1") == (eas == "on"), (step, sysctl, eas)


def test_patched_eas_follows_cpufreq_modes_and_policies(tmp_path):
    folder = inspect(tmp_path, "patched", MODES_JOB, CMDLINE="hybrid_sim.mode=active")
    steps = modes(folder)
    assert steps == PATCHED_WALK
    check_sysctl_consistent(steps)
    dmesg = read(folder, "dmesg.txt")
    # At least boot's start and each change of the walk (a driver switch may stop
    # and restart EAS on its way: more is fine).
    assert dmesg.count("sched_energy_set: starting EAS") >= 5, dmesg[-3000:]
    assert dmesg.count("sched_energy_set: stopping EAS") >= 5, dmesg[-3000:]
    assert "Checking EAS: cpufreq is not ready" in dmesg


def test_base_runs_eas_in_passive_mode_only(tmp_path):
    """Mainline 6.12: EAS needs schedutil, so a setpolicy driver never runs it."""
    folder = inspect(tmp_path, "base", MODES_JOB, CMDLINE="hybrid_sim.mode=active")
    steps = modes(folder)
    on = {"passive", "passive-schedutil", "passive-again", "sysctl-1"}
    assert [step for step, *_ in steps] == [step for step, *_ in PATCHED_WALK]
    for (step, status, gov, sysctl, eas), want in zip(steps, PATCHED_WALK):
        assert (status, gov) == want[1:3], (step, status, gov)
        assert eas == ("on" if step in on else "off"), (step, eas)
        # Empty wherever EAS is impossible: every step in active mode or off.
        assert sysctl == ("1" if step in on else "0" if step == "sysctl-0" else "-"), \
            (step, sysctl)
    check_sysctl_consistent(steps)
    assert "schedutil is mandatory" in read(folder, "dmesg.txt")


CHANGES_JOB = os.path.join(TOP, "guest", "vm", "jobs", "runtime-changes.sh")
BACKGROUND = os.path.join(TOP, "tests", "fixtures", "background-load.json")


@pytest.fixture(scope="module")
def changes_run(tmp_path_factory):
    """The run-time changes of guest/vm/jobs/runtime-changes.sh under a running profile."""
    # guest_run fails on a splat or a timeout.
    return guest_run(BACKGROUND, "patched", runs=tmp_path_factory.mktemp("changes"),
                     JOB=CHANGES_JOB)


def test_eas_survives_run_time_changes(changes_run):
    steps = dict(line.split() for line in read(changes_run, "steps.txt").splitlines())
    assert list(steps) == ["start", "maxfreq-low", "maxfreq-restored", "capacity-480",
                           "capacity-600", "cpu2-offline", "cpu2-online", "active", "passive"]
    assert set(steps.values()) == {"1"}, steps
    assert not os.path.exists(os.path.join(changes_run, "errors.txt")), read(changes_run, "errors.txt")
    # Under the background load: rt-app ran it to the end.
    assert "rtapp_status=0" in read(changes_run, "guest-stats.txt").split(), \
        read(changes_run, "rt-app.stdout")


def test_capacity_change_reaches_the_energy_model(changes_run):
    # CPU 0 at capacity 480: its states move to 2/5..5/5 of 480, the costs (from
    # the driver, an artificial domain) stay; the other CPUs are untouched.
    em = em_dump(os.path.join(changes_run, "steps", "capacity-480"))
    assert em["0"] == {2: (192, 104), 3: (288, 105), 4: (384, 106), 5: (480, 107)}
    assert {k: v for k, v in em.items() if k != "0"} == \
        {k: v for k, v in EXPECTED_EM.items() if k != "0"}
    assert em_dump(os.path.join(changes_run, "steps", "capacity-600")) == EXPECTED_EM


def test_hotplug_keeps_the_energy_model(changes_run):
    for step in ("cpu2-offline", "cpu2-online"):
        assert em_dump(os.path.join(changes_run, "steps", step)) == EXPECTED_EM
    assert em_dump(changes_run) == EXPECTED_EM


def test_faithful_timers_follow_capacity(tmp_path):
    """With capacity-faithful speed on and a profile running, an E-core raised to 1024
    stops giving time away, a P-core lowered to 600 starts, and both come back when
    restored (guest/vm/jobs/faithful-follow.sh); no splat on the way."""
    faithful_follow.check(faithful_follow.run(tmp_path))


FAITHFUL_BOOT_JOB = os.path.join(TOP, "guest", "vm", "jobs", "faithful-boot.sh")


def test_faithful_at_boot_starts_every_cpu(tmp_path):
    """hybrid_sim.faithful=1 on the command line: every CPU's timer starts, also a CPU
    whose timers were not yet in high-resolution mode when the option started (the
    kernel says it waits and tries again; at boot that happens only when the driver
    comes before the clocksource watchdog, so most boots do not take that path). CPU 1
    taken offline and online five times starts its timer each time
    (guest/vm/jobs/faithful-boot.sh)."""
    folder = inspect(tmp_path, "patched", FAITHFUL_BOOT_JOB, CMDLINE="hybrid_sim.faithful=1")
    assert not os.path.exists(os.path.join(folder, "errors.txt")), read(folder, "errors.txt")
    assert read(folder, "faithful.txt").strip() == "1"
    timers = {}
    for line in read(folder, "faithful_stats.txt").splitlines():
        cpu, _busy, _given, _ticks, cap, timer = line.split()
        timers[int(cpu)] = (int(cap), timer)
    assert sorted(timers) == list(range(6)), timers
    for cpu, (cap, timer) in timers.items():
        assert timer in (("idle", "running") if cap < 1024 else ("full",)), (cpu, timers)
    dmesg = read(folder, "dmesg.txt")
    assert "no faithful speed" not in dmesg
    starts = re.findall(r"CPU(\d+): a faithful-speed tick costs", dmesg)
    assert {cpu: starts.count(cpu) for cpu in set(starts)} == \
        {str(cpu): 6 if cpu == 1 else 1 for cpu in range(6)}, starts    # CPU 1: boot + 5
    waited = re.findall(r"CPU(\d+): waiting for high-resolution timer mode", dmesg)
    print(f"CPUs that waited for high-resolution mode: {waited or 'none'}; CPU 1's timer "
          f"states after onlining: {' '.join(read(folder, 'hotplug-states.txt').split())}")
