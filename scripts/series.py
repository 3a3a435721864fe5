# SPDX-License-Identifier: GPL-2.0
"""The kernel-patches/series file: which patches, in what order, and which
of them are test seams that belong to the base tree too."""

from dataclasses import dataclass
from pathlib import Path
from typing import List

from project import SeriesError

BASE_MARKER = '# base ends here'
# git format-patch --cover-letter's file: not a patch of the series.
COVER_LETTER = '0000-cover-letter.patch'


@dataclass(frozen=True)
class Series:
    seams: List[str]     # pristine + these (+ the suites) is the base tree
    changes: List[str]   # the changes under test, on top of the base

    @property
    def all(self) -> List[str]:
        return self.seams + self.changes


def parse(text: str) -> Series:
    seams: List[str] = []
    changes: List[str] = []
    current = seams
    seen_marker = False
    for raw in text.splitlines():
        line = raw.strip()
        if line == BASE_MARKER:
            if seen_marker:
                raise SeriesError(f'series: "{BASE_MARKER}" appears twice')
            seen_marker = True
            current = changes
            continue
        if not line or line.startswith('#'):
            continue
        if line in seams or line in changes:
            raise SeriesError(f'series: {line} is listed twice')
        current.append(line)
    if not seen_marker:
        raise SeriesError(f'series: no "{BASE_MARKER}" line')
    return Series(seams, changes)


def load(patch_dir: Path) -> Series:
    """Read patch_dir/series and check it against the patch files."""
    path = patch_dir / 'series'
    if not path.is_file():
        raise SeriesError(f'{path} is missing')
    series = parse(path.read_text())
    for name in series.all:
        if not (patch_dir / name).is_file():
            raise SeriesError(f'series lists {name}, which does not exist')
    unlisted = sorted(p.name for p in patch_dir.glob('*.patch')
                      if p.name not in series.all and p.name != COVER_LETTER)
    if unlisted:
        raise SeriesError(f'{unlisted[0]} is not listed in the series file')
    return series
