# SPDX-License-Identifier: GPL-2.0
"""The project's tables (kunit/*.tsv): one reader for all of them.

A line starting with '#' is a comment, a blank line is skipped, every
other line is fields separated by tabs, each non-empty. Errors name the
file and line.
"""

from pathlib import Path
from typing import List, Sequence, Tuple

from project import SeriesError


def parse(text: str, columns: Sequence[str], where: str
          ) -> List[Tuple[str, List[str]]]:
    """(file:line, fields) of each row; the row must have len(columns)
    fields."""
    rows: List[Tuple[str, List[str]]] = []
    shape = '<TAB>'.join(columns)
    for number, line in enumerate(text.splitlines(), 1):
        if not line.strip() or line.lstrip().startswith('#'):
            continue
        fields = [f.strip() for f in line.split('\t')]
        at = f'{where}:{number}'
        if len(fields) != len(columns) or not all(fields):
            raise SeriesError(f'{at}: want "{shape}", got {len(fields)} '
                              f'field(s): {line.strip()!r}')
        rows.append((at, fields))
    return rows


def read(path: Path, columns: Sequence[str]
         ) -> List[Tuple[str, List[str]]]:
    if not path.is_file():
        raise SeriesError(f'{path} is missing')
    return parse(path.read_text(), columns, path.name)
