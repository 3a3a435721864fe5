# SPDX-License-Identifier: GPL-2.0
"""What the schema kernel says about its mutants' guards (mm/mm_mutant.c):
the ids each KUnit case reached, those reached before mm_mutant= was
parsed (code that ran unmutated whatever the id: those mutants are
judged by builds of their own; none where the early code set the id),
and those the boot reached before the suites ran (run mutated: a boot
of the suites judges them, even where no case reaches them again).

  mm_mutant: mutant 0 of 1920 (set before C code ran)
      # mm_mutant reached before the suites ran: 4 17-19 23
      ...
      # Subtest: arm64_lazy_mmu
      ...
      # reached: 3 7-9
      ok 1 nested_sections_test

A case's reached line comes before its own result line, at its indent;
its parameters' results (one level deeper) come between.
"""

import re
from dataclasses import dataclass, field
from typing import Dict, FrozenSet, List, Set

_EARLY = re.compile(r'#\s*mm_mutant reached before mm_mutant= was parsed:'
                    r'(.*)$')
_BOOT = re.compile(r'#\s*mm_mutant reached before the suites ran:(.*)$')
_REACHED = re.compile(r'^(\s*)#\s*reached:(.*)$')
_SUITE = re.compile(r'^    # Subtest: (\S+)')
_RESULT = re.compile(r'^(\s*)(?:not )?ok \d+ (\S+)')
_HEADER = re.compile(r'mm_mutant: mutant (\d+) of (\d+)')
_BAD = re.compile(r'mm_mutant: no such mutant in this kernel')


def ids(text: str) -> Set[int]:
    """The ids of "3 7-9" (a malformed item is an error: the kernel wrote
    the line, so a wrong one means a truncated log)."""
    found: Set[int] = set()
    for item in text.split():
        m = re.fullmatch(r'(\d+)(?:-(\d+))?', item)
        if not m:
            raise ValueError(f'not an id or a range of ids: {item!r}')
        first = int(m.group(1))
        last = int(m.group(2) or first)
        if last < first:
            raise ValueError(f'a range that ends before it begins: {item!r}')
        found.update(range(first, last + 1))
    return found


def ranges(found: Set[int]) -> str:
    """The inverse of ids(): "3 7-9"."""
    out: List[str] = []
    ordered = sorted(found)
    i = 0
    while i < len(ordered):
        j = i
        while j + 1 < len(ordered) and ordered[j + 1] == ordered[j] + 1:
            j += 1
        out.append(str(ordered[i]) if i == j else
                   f'{ordered[i]}-{ordered[j]}')
        i = j + 1
    return ' '.join(out)


@dataclass
class Reach:
    """One boot's account."""
    mutant: int = -1            # the id it ran (-1: no header line)
    carried: int = 0            # how many it carries
    refused: bool = False       # mm_mutant= named an id it does not carry
    early: Set[int] = field(default_factory=set)
    boot: Set[int] = field(default_factory=set)
    cases: Dict[str, FrozenSet[int]] = field(default_factory=dict)

    def reached(self) -> Set[int]:
        """Every id some case reached."""
        out: Set[int] = set()
        for found in self.cases.values():
            out |= found
        return out

    def cases_reaching(self, n: int) -> List[str]:
        return sorted(c for c, found in self.cases.items() if n in found)


def parse(log: str) -> Reach:
    """The account in a schema kernel's console log."""
    reach = Reach()
    suite = ''
    pending: Dict[str, Set[int]] = {}
    for line in log.split('\n'):
        m = _HEADER.search(line)
        if m:
            reach.mutant, reach.carried = int(m.group(1)), int(m.group(2))
            continue
        if _BAD.search(line):
            reach.refused = True
            continue
        m = _EARLY.search(line)
        if m:
            reach.early |= ids(m.group(1))
            continue
        m = _BOOT.search(line)
        if m:
            reach.boot |= ids(m.group(1))
            continue
        m = _SUITE.match(line)
        if m:
            suite = m.group(1)
            pending.clear()
            continue
        m = _REACHED.match(line)
        if m:
            pending.setdefault(m.group(1), set()).update(ids(m.group(2)))
            continue
        m = _RESULT.match(line)
        if m and m.group(1) in pending and suite:
            reach.cases[f'{suite}.{m.group(2)}'] = frozenset(
                pending.pop(m.group(1)))
    return reach
