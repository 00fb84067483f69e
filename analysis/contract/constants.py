"""Facts the shell scripts and Python share. The shell side has each of them once
(guest/host/host-lib.sh, guest/host/qemu-run.sh, guest/vm/init, the kernel config);
tests/host/test_contract.py fails when the two disagree."""
import re

# Every kernel `make run` knows, and the two a demo or an experiment compares.
ALL_KERNELS = ("notrace", "base", "patched")
KERNELS = ("base", "patched")
KCONFIGS = ("default", "debug")

# hybrid_sim= grammar, TYPE:COUNT:CAPACITY[:SCALING] joined by commas, and the
# platform a run gets when it names none: 4 E-cores of capacity 600, 2 P-cores.
PLATFORM_PATTERN = r"^[a-z]+:[0-9]+:[0-9]+(:[0-9]+)?(,[a-z]+:[0-9]+:[0-9]+(:[0-9]+)?)*$"
PLATFORM_RE = re.compile(PLATFORM_PATTERN)
DEFAULT_PLATFORM = "e:4:600,p:2:1024"

# The guest kernel's tick (CONFIG_HZ_250 in guest/kernel/config/guest.config).
HZ = 250
TICK_NS = 1_000_000_000 // HZ

# QEMU's -cpu under TCG: "max" presented as an Intel family 6 part (constant TSC).
TCG_CPU = "max,vendor=GenuineIntel,family=6,model=15"

# The kernel command line of every guest: qemu-run.sh's own part, then run.sh's
# (guest/host/run.sh adds hybrid_sim= and the run's CMDLINE after these).
BOOT_CMDLINE = "console=ttyS0 panic=-1 oops=panic loglevel=6"
RUN_CMDLINE = "sched_verbose"
GUEST_CMDLINE = f"{BOOT_CMDLINE} {RUN_CMDLINE}"

# What guest/vm/init prints on the console, for labs that read it (LAVA).
CONSOLE_PREFIX = "guest-init: "
CONSOLE_JOB_START = CONSOLE_PREFIX + "running job"


def kernel_id(kernel, kconfig):
    """The name under build/kernels/ of a kernel built with a config variant."""
    return kernel if kconfig == "default" else f"{kernel}-{kconfig}"
