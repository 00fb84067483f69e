"""The names the kernel series gives its trace events' enum values, read from patches/:
what the tests' synthetic traces record and what they expect the analysis to list. The
analysis itself takes the names from the trace (the reader's symbols table).

The series declares each enum of an eas event as an X-macro list,

    #define SCHED_PLACEMENT_REASONS(item, last)    \
            item(SCHED_PLACE_NONE,    "none")      \
            last(SCHED_PLACE_SPARE_TIE, "spare_tie")

whose values are only ever appended. names("SCHED_PLACEMENT_REASONS") lists them in
value order, as the series builds them.
"""
import functools
import glob
import os
import re

from contract.paths import TOP
PATCHES = os.path.join(TOP, "patches")

_DEFINE = re.compile(r"^[+ ]#define (\w+)\(item, last\)")
_ENTRY = re.compile(r'^[+ ]\s*(?:item|last)\((\w+),\s*"(\w+)"\)')


def _prefix(constant):
    """SCHED_PLACE_SPARE_TIE -> SCHED_PLACE: the constants of one list share it."""
    return "_".join(constant.split("_")[:2])


@functools.lru_cache(maxsize=None)
def _lists(patches=PATCHES):
    """{list: [names]} of every X-macro list in the series. An entry belongs to the list
    whose #define it follows in its hunk; where a hunk shows no #define (an entry
    appended to a long list), to the one list whose constants share its prefix."""
    lists, owner = {}, {}
    for patch in sorted(glob.glob(os.path.join(patches, "*.patch"))):
        current = None
        with open(patch, encoding="utf-8") as f:
            for line in f:
                define = _DEFINE.match(line)
                entry = _ENTRY.match(line)
                if define:
                    current = define.group(1)
                    lists.setdefault(current, [])
                    continue
                if not entry:
                    # A removed entry ("-") keeps the list going; anything else ends it.
                    if not (line.startswith("-") and "(SCHED_" in line):
                        current = None
                    continue
                constant, name = entry.groups()
                target = current
                if target is None:
                    owners = {owner[c] for c in owner if _prefix(c) == _prefix(constant)}
                    if len(owners) != 1:
                        continue
                    target = owners.pop()
                owner[constant] = target
                if name not in lists[target]:
                    lists[target].append(name)
    return lists


def names(macro, patches=PATCHES):
    """The names of X-macro list `macro` (e.g. SCHED_PUSH_OUTCOMES) in value order; ()
    when the series has no such list (patches/ absent, say)."""
    return tuple(_lists(patches).get(macro, ()))
