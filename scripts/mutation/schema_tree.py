# SPDX-License-Identifier: GPL-2.0
"""The schema tree: a copy of the patched tree with the chosen mutants
written in (schema.place()), the switch (kernel/mm_mutant.[ch]) and two
lines in KUnit's runner that print each case's reach.

One kunit.py build with make -k finds every guarded text that does not
compile (a constant expression, an lvalue, a macro expanded where only
a constant goes): the ids on the lines of its errors, and on the macro
lines its notes point to, are switched off there (they go to builds of
their own) and the tree is written and built again.
"""

import re
from pathlib import Path
from typing import Dict, List, Sequence, Set, Tuple

from mutate_gen import Mutation
from mutation import schema
from project import SeriesError

KERNEL = Path(__file__).resolve().parent / 'kernel'
HEADER = 'include/linux/mm_mutant.h'
SOURCE = 'mm/mm_mutant.c'
COUNT = 'mm/mm_mutant_count.h'
# The early code's reading of mm_mutant=N (kernel/mm_mutant_early.c),
# inserted after its SPDX line and comment.
EARLY_OPTION = (KERNEL / 'mm_mutant_early.c').read_text().split(
    ' */\n', 1)[1]
# (file, the line the insertion goes before, what is inserted): each
# anchor must be in the patched tree exactly once.
HOOKS: Tuple[Tuple[str, str, str], ...] = (
    ('include/linux/compiler_types.h', '#endif /* __ASSEMBLY__ */\n',
     '#include <linux/mm_mutant.h>\n'),
    # Cleared before each suite (its suite_init's reach goes to its first
    # case), printed and cleared after each case, before its result.
    ('lib/kunit/test.c', '\tif (suite->suite_init) {\n',
     '\tmm_mutant_reach_clear();\n'),
    ('lib/kunit/test.c',
     '\t\tkunit_print_attr((void *)test_case, true, KUNIT_LEVEL_CASE);\n',
     '\t\tmm_mutant_reach_print();\n'),
    # The id set before C code runs: the position-independent early code
    # parses the command line for its feature overrides, and takes
    # mm_mutant=N from it too (kernel/mm_mutant.c says why).
    ('arch/arm64/kernel/image-vars.h',
     'PROVIDE(__pi_arm64_sw_feature_override\t= arm64_sw_feature_override);\n',
     'PROVIDE(__pi_mm_mutant_id\t\t= mm_mutant_id);\n'
     'PROVIDE(__pi_mm_mutant_preset\t\t= mm_mutant_preset);\n'),
    ('arch/arm64/kernel/pi/idreg-override.c',
     'static __init void __parse_cmdline(const char *cmdline, '
     'bool parse_aliases)\n', EARLY_OPTION),
    ('arch/arm64/kernel/pi/idreg-override.c', '\t\tmatch_options(buf);\n',
     '\t\tmm_mutant_early_option(buf);\n'),
)
_GUARD = re.compile(re.escape(schema.GUARD) + r'\((\d+)\)')
# gcc's errors and warnings (the kernel builds warning-free, and a
# mutant that makes the compiler warn is a verdict of its own build), and
# the notes that point into macro definitions.
_ERROR = re.compile(r'^(?:\.\./)?([\w/.+-]+\.[ch]):(\d+):\d+: '
                    r'((?:fatal )?error|warning): (.*)$', re.M)
_NOTE = re.compile(r'^(?:\.\./)?([\w/.+-]+\.[ch]):(\d+):\d+: note: '
                   r'in (?:expansion|definition) of macro', re.M)


def hooked(path: str, text: str) -> str:
    """text (of path) with its hooks inserted."""
    for file, anchor, insert in HOOKS:
        if file != path:
            continue
        if text.count(anchor) != 1:
            raise SeriesError(f'schema tree: {file} has {text.count(anchor)} '
                              f'lines {anchor.strip()!r}, not one: the '
                              'hook cannot go in')
        text = text.replace(anchor, insert + anchor)
    return text


def write(tree: Path, texts: Dict[str, List[str]], count: int,
          patched: Dict[str, str]) -> None:
    """Write the schema into tree, a checkout of the patched tree: texts
    are the mutated files' lines, count the ids carried, patched the
    patched text of each hooked file."""
    for file, lines in texts.items():
        _write_if_changed(tree / file, '\n'.join(lines) + '\n')
    for file in {f for f, _, _ in HOOKS}:
        _write_if_changed(tree / file, hooked(file, patched[file]))
    _write_if_changed(tree / HEADER, (KERNEL / 'mm_mutant.h').read_text())
    _write_if_changed(tree / SOURCE, (KERNEL / 'mm_mutant.c').read_text())
    _write_if_changed(tree / COUNT, '/* SPDX-License-Identifier: GPL-2.0 */\n'
                      f'#define MM_MUTANTS {count}\n')
    makefile = tree / 'mm' / 'Makefile'
    text = makefile.read_text()
    if 'mm_mutant.o' not in text:
        makefile.write_text(text + 'obj-y += mm_mutant.o\n')


def _write_if_changed(path: Path, text: str) -> None:
    # An unchanged file keeps its mtime: make then rebuilds only what a
    # changed one reaches.
    if not path.exists() or path.read_text() != text:
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text)


def failing_ids(output: str, texts: Dict[str, List[str]]
                ) -> Tuple[Dict[int, str], List[str]]:
    """The ids on the schema lines that gcc's errors (and the macro lines
    their notes name) point to, each with its error or warning; and the
    errors that name no such line."""
    found: Dict[int, str] = {}
    unplaced: List[str] = []
    notes = [(m.start(), m.group(1), int(m.group(2)))
             for m in _NOTE.finditer(output)]
    for m in _ERROR.finditer(output):
        file, line = m.group(1), int(m.group(2))
        said = f'{m.group(3)}: {m.group(4)}'
        # The notes that follow this error up to the next error.
        nxt = _ERROR.search(output, m.end())
        stop = nxt.start() if nxt else len(output)
        places = [(file, line)] + [(f, n) for at, f, n in notes
                                   if m.end() <= at < stop]
        hit = False
        for at, (f, n) in enumerate(places):
            if f in texts and 0 < n <= len(texts[f]):
                text = texts[f][n - 1]
                column = int(m.group(0).split(':')[2]) if at == 0 else 0
                for g in guards_at(text, column):
                    found.setdefault(g, f'{f}:{n}: {said.strip()}')
                    hit = True
        if not hit and m.group(3) != 'warning':
            unplaced.append(m.group(0).strip())
    return found, unplaced


def _branch(text: str, start: int) -> int:
    """The end of the bracketed branch that opens at text[start]."""
    depth = 0
    for i in range(start, len(text)):
        if text[i] in '({':
            depth += 1
        elif text[i] in ')}':
            depth -= 1
            if depth == 0:
                return i
    return len(text)


def byte_of(text: str, column: int) -> int:
    """The 0-based index of gcc's column (its display column, a tab
    going to the next multiple of 8) in text."""
    shown = 0
    for i, c in enumerate(text):
        shown = (shown // 8 + 1) * 8 if c == '\t' else shown + 1
        if shown >= column:
            return i
    return len(text)


def guards_at(text: str, column: int) -> List[int]:
    """The ids a compiler message at column (1-based; 0: none) of a
    schema line is about: the innermost mutated branch that holds the
    column, else every id of the line."""
    every = [int(g.group(1)) for g in _GUARD.finditer(text)]
    best = None
    for g in _GUARD.finditer(text):
        # (mm_mutant_on(N) ? (mutated) : ...) or if (mm_mutant_on(N)) {
        branch = re.compile(r'\)?\s*(?:\?\s*\(|\{)').match(text, g.end())
        if not branch:
            continue
        start = branch.end() - 1
        end = _branch(text, start)
        if column and start < byte_of(text, column) <= end and \
                (best is None or start > best[0]):
            best = (start, int(g.group(1)))
    return [best[1]] if best else every


def by_file(chosen: Sequence[Tuple[int, Mutation]]
            ) -> Dict[str, List[Tuple[int, Mutation]]]:
    out: Dict[str, List[Tuple[int, Mutation]]] = {}
    for n, m in chosen:
        out.setdefault(m.file, []).append((n, m))
    return out


def placed(chosen: Sequence[Tuple[int, Mutation]],
           patched: Dict[str, List[str]], off: Dict[int, str]
           ) -> Tuple[Dict[str, List[str]], List[schema.Placement]]:
    """Every file's schema text with the ids of off left out, and where
    each mutant went (those of off as SEPARATE, with off's reason)."""
    texts: Dict[str, List[str]] = {}
    where: List[schema.Placement] = []
    for file, mine in by_file(chosen).items():
        keep = [(n, m) for n, m in mine if n not in off]
        lines, got = schema.place(patched[file], keep)
        texts[file] = lines
        where += got
        where += [schema.Placement(n, m, schema.SEPARATE,
                                   f'does not compile guarded: {off[n]}')
                  for n, m in mine if n in off]
    return texts, sorted(where, key=lambda p: p.id)


def guarded_ids(texts: Dict[str, List[str]]) -> Set[int]:
    return {int(g.group(1)) for lines in texts.values() for line in lines
            for g in _GUARD.finditer(line)}
