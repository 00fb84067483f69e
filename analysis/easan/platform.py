"""The simulated hybrid platform: which CPU has which type and capacity.

The spec is the kernel's hybrid_sim= grammar, TYPE:COUNT:CAPACITY[:SCALING]
joined by commas, CPUs numbered in spec order (e:4:600,p:2:1024 makes CPUs
0-3 E-cores of capacity 600 and CPUs 4-5 P-cores of capacity 1024).
"""
import re
from dataclasses import dataclass

from .errors import AnalysisError

TYPES = ("lpe", "e", "p")
_ITEM = re.compile(r"^(lpe|e|p):(\d+):(\d+)(?::(\d+))?$")


@dataclass(frozen=True)
class Cpu:
    cpu: int
    type: str
    capacity: int


@dataclass(frozen=True)
class Platform:
    spec: str
    cpus: tuple

    @property
    def ncpus(self):
        return len(self.cpus)

    def capacity(self, cpu):
        return self.cpus[cpu].capacity

    def type_of(self, cpu):
        return self.cpus[cpu].type

    def direction(self, src, dst):
        """'same', 'up' or 'down' for a move from CPU src to CPU dst, by capacity."""
        a, b = self.capacity(src), self.capacity(dst)
        if a == b:
            return "same"
        return "up" if b > a else "down"

    def groups(self):
        """CPUs that are interchangeable (same type and capacity), as lists."""
        out = {}
        for c in self.cpus:
            out.setdefault((c.type, c.capacity), []).append(c.cpu)
        return list(out.values())


def parse(spec):
    cpus = []
    for item in spec.split(","):
        m = _ITEM.match(item.strip())
        if not m:
            raise AnalysisError(f"platform spec '{spec}': '{item}' is not TYPE:COUNT:CAPACITY[:SCALING]"
                                f" with TYPE one of {', '.join(TYPES)}")
        kind, count, cap = m.group(1), int(m.group(2)), int(m.group(3))
        if not 1 <= cap <= 1024 or count < 1:
            raise AnalysisError(f"platform spec '{spec}': '{item}' needs COUNT >= 1 and 1 <= CAPACITY <= 1024")
        for _ in range(count):
            cpus.append(Cpu(len(cpus), kind, cap))
    return Platform(spec, tuple(cpus))


def from_cmdline(cmdline):
    m = re.search(r"(?:^|\s)hybrid_sim=(\S+)", cmdline or "")
    if not m:
        raise AnalysisError("run.json: the kernel command line has no hybrid_sim= platform spec")
    return parse(m.group(1))
