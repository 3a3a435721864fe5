# SPDX-License-Identifier: GPL-2.0
"""Which objects a change to a header's inline function can change.

A mutant in `asm/pgtable.h` makes Kbuild rebuild every object that
includes the header (most of the kernel, 8 to 12 minutes here), though
only the objects that use the changed function compile to anything else.
This module names those: the function or macro whose definition holds
each changed line, then every header definition whose body names one of
them (to a fixed point), then the sources built in this build directory
that name any of them. A mutant is then built with the header's old
mtime and those sources touched, so make recompiles them alone.

Names are matched as words, the way the compiler would see them, which
misses a name pasted together with `##`; so a mutant that survives such a
narrowed build is judged again on a full one (mutants.py, mutate.py).
"""

import re
from pathlib import Path
from typing import (Callable, Dict, Iterable, List, Optional, Sequence,
                    Set, Tuple)

_COMMENT = re.compile(r'/\*.*?\*/|//[^\n]*', re.S)
_STRING = re.compile(r'"(?:\\.|[^"\\\n])*"|\'(?:\\.|[^\'\\\n])*\'')
_DEFINE = re.compile(r'^[ \t]*#[ \t]*define[ \t]+(\w+)')
_CALLED = re.compile(r'(\w+)\s*\(')
_WORD = re.compile(r'\w+')
# Past this many names the closure has reached the core of the headers;
# rebuilding what they reach is no cheaper than rebuilding everything.
MAX_NAMES = 400

# Pathspecs of what an arm64 kernel never compiles (other architectures,
# tools/ and samples/ have their own headers with the same names).
NOT_BUILT = (':(exclude)tools/*', ':(exclude)samples/*',
             ':(exclude)Documentation/*',
             *(f':(exclude)arch/{a}/*' for a in (
                 'alpha', 'arc', 'arm', 'csky', 'hexagon', 'loongarch',
                 'm68k', 'microblaze', 'mips', 'nios2', 'openrisc',
                 'parisc', 'powerpc', 'riscv', 's390', 'sh', 'sparc', 'um',
                 'x86', 'xtensa')))
# A grep over the tree: (names, path globs) -> files naming one as a word.
Grep = Callable[[Sequence[str], Sequence[str]], List[str]]


def _blank(match: 're.Match[str]') -> str:
    """A comment or string with its newlines kept (line numbers hold)."""
    return re.sub(r'[^\n]', ' ', match.group(0))


def strip(text: str) -> str:
    return _STRING.sub(_blank, _COMMENT.sub(_blank, text))


def definitions(text: str) -> List[Tuple[str, int, int, str]]:
    """(name, first line, last line, body) of each macro and each function
    defined in a header, lines counted from 1."""
    lines = strip(text).split('\n')
    found: List[Tuple[str, int, int, str]] = []
    depth = 0
    head = ''               # top-level text since the last ; } or # line
    head_line = 0           # where that text starts
    name, start = '', 0
    i = 0
    while i < len(lines):
        line = lines[i]
        if line.lstrip().startswith('#'):
            first = i
            while line.rstrip().endswith('\\') and i + 1 < len(lines):
                i += 1
                line += '\n' + lines[i]
            define = _DEFINE.match(line)
            if depth == 0:
                if define:
                    found.append((define.group(1), first + 1, i + 1, line))
                head, head_line = '', 0
            i += 1
            continue
        for ch in line:
            if depth == 0 and not head.strip() and not ch.isspace():
                head_line = i + 1
            if ch == '{':
                if depth == 0:
                    called = _CALLED.findall(head)
                    name = called[-1] if called else ''
                    start = head_line or i + 1
                depth += 1
            elif ch == '}':
                depth -= 1
                if depth == 0:
                    if name:
                        found.append((name, start, i + 1,
                                      '\n'.join(lines[start - 1:i + 1])))
                    name, head, head_line = '', '', 0
                    continue
            elif ch == ';' and depth == 0:
                head, head_line = '', 0
                continue
            if depth == 0:
                head += ch
        if depth == 0:
            head += ' '
        i += 1
    return found


def enclosing(text: str, line: int) -> Optional[str]:
    """The function or macro whose definition holds the line, if any."""
    for name, first, last, _ in definitions(text):
        if first <= line <= last:
            return name
    return None


def closure(names: Iterable[str], grep: Grep,
            read: Callable[[str], str]) -> Optional[Set[str]]:
    """The names and every header definition whose body uses one, to a
    fixed point; None when that passes MAX_NAMES."""
    known: Set[str] = set(names)
    new = set(known)
    while new:
        found: Set[str] = set()
        for header in grep(sorted(new), ('*.h',) + NOT_BUILT):
            for name, _, _, body in definitions(read(header)):
                if name not in known and not new.isdisjoint(
                        _WORD.findall(body)):
                    found.add(name)
        known |= found
        new = found
        if len(known) > MAX_NAMES:
            return None
    return known


def object_cmd(build_dir: Path, source: str) -> Path:
    """Kbuild's record of the command that built a source's object."""
    path = Path(source)
    return build_dir / path.parent / f'.{path.stem}.o.cmd'


def users(headers: Dict[str, Sequence[int]], grep: Grep,
          read: Callable[[str], str], build_dir: Path
          ) -> Optional[List[str]]:
    """The sources this build compiled that use what changed on the given
    lines of the given headers; None when that cannot be narrowed (a line
    outside any definition, or a closure past MAX_NAMES)."""
    changed: Set[str] = set()
    for header, lines in headers.items():
        text = read(header)
        for line in lines:
            name = enclosing(text, line)
            if name is None:
                return None
            changed.add(name)
    names = closure(changed, grep, read)
    if names is None:
        return None
    return sorted(s for s in grep(sorted(names), ('*.c', '*.S') + NOT_BUILT)
                  if object_cmd(build_dir, s).exists())


def changed_lines(patch_text: str) -> Dict[str, List[int]]:
    """Per file a diff changes, the lines of the new file it adds, or, for
    a removal, the line where the removed text was."""
    result: Dict[str, List[int]] = {}
    file = ''
    new_line = 0
    for line in patch_text.split('\n'):
        if line.startswith('+++ '):
            file = line[4:].split('\t')[0]
            file = file[2:] if file.startswith('b/') else file
            continue
        if line.startswith('--- ') or line.startswith('diff '):
            continue
        hunk = re.match(r'@@ -\d+(?:,\d+)? \+(\d+)', line)
        if hunk:
            new_line = int(hunk.group(1))
            continue
        if not file or not line:
            if file and not line:
                new_line += 1
            continue
        if line[0] == '+':
            result.setdefault(file, []).append(new_line)
            new_line += 1
        elif line[0] == '-':
            result.setdefault(file, []).append(new_line)
        elif line[0] == ' ':
            new_line += 1
    return {f: sorted(set(lines)) for f, lines in result.items()}
