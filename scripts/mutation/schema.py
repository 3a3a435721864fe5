# SPDX-License-Identifier: GPL-2.0
"""Mutant schemata: every mutant of a file in one text, each behind a
switch on the mutant id the kernel boots with (mm_mutant=N).

A mutant changes one span of tokens of one line (or, nest and move, a
few whole lines). The schema puts it back into the patched text in the
smallest form the C grammar allows there:

  expression  the smallest operand that holds the changed span, as
              (mm_mutant_on(N) ? (mutated) : (original)): a condition, an
              argument, a return value, an initializer, a for clause;
  statement   a whole statement line (a deleted call, a multi-line
              mutant) as if (mm_mutant_on(N)) { mutated } else { original }

and every other mutant is left to a build of its own (SEPARATE, with the
reason). Several mutants of one operand chain over the smallest operand
that holds all their spans. The schema keeps every physical line where
it was (a multi-line mutant's text goes on its first line), so that line
numbers in warnings and in the suites' reports stay the patched ones.

An operand is found without a parser, from separators: a run of tokens
bounded on both sides by a bracket, a comma, a semicolon, or an operator
that binds more loosely than anything inside the run (&&, ||, ?, :, an
assignment) is a subtree of the expression, whatever the operators
inside it, so parenthesising it changes nothing of the original parse.
Tried finest first (all of those separators), then without &&, without
||, without ?:, without the assignments, for a span that holds one of
them (lcr changes && itself). A span across a call's commas (swap) is
the call. A run that begins or ends at the line's edge is an operand
only when the neighbouring line ends or begins with a separator.
A text that does not compile guarded (a constant expression, an
lvalue) is found by the schema build and goes to a separate build
(mutate's schema pass); one that would compile but parse otherwise is
what the separator rule above excludes.
"""

import re
from dataclasses import dataclass
from typing import Dict, List, Optional, Sequence, Set, Tuple

import mutate_gen
from mutate_gen import Mutation, Token

GUARD = 'mm_mutant_on'
EXPRESSION, STATEMENT, SEPARATE = 'expression', 'statement', 'separate'

_ASSIGN = ('=', '+=', '-=', '*=', '/=', '%=', '|=', '&=', '^=', '<<=',
           '>>=')
# Separator sets, finest first: the operators that bind more loosely
# than the run between them.
_LEVELS: Tuple[Set[str], ...] = (
    {',', ';', '&&', '||', '?', ':', *_ASSIGN},
    {',', ';', '||', '?', ':', *_ASSIGN},
    {',', ';', '?', ':', *_ASSIGN},
    {',', ';', *_ASSIGN},
    {',', ';'},
)
_OPEN = {'(': ')', '[': ']', '{': '}'}
_CLOSE = {v: k for k, v in _OPEN.items()}
# Keywords after which an expression begins.
_LEADS = ('return', 'else', 'do')
# What a neighbouring line may end with (begin with) for a run at this
# line's first (last) token to be an operand.
_ENDS_BEFORE = {'(', '[', ',', ';', '{', '}', '&&', '||', '?', ':',
                *_ASSIGN, *_LEADS}
_BEGINS_AFTER = {')', ']', ',', ';', '}', '&&', '||', '?', ':'}
# What the line before a statement ends with ('': none, as at a macro's
# first line).
_STARTS = ('', ';', '{', '}', ':', ')', 'else', 'do')


@dataclass(frozen=True)
class Placement:
    """Where one mutant went: its id, its form, and for SEPARATE why."""
    id: int
    mutation: Mutation
    form: str
    why: str = ''


@dataclass(frozen=True)
class _Line:
    """One physical line: its code (without a macro's trailing
    backslash), that backslash, and its tokens."""
    code: str
    tail: str
    toks: Tuple[Token, ...]
    comment: bool       # the line holds a comment


def _split_tail(line: str) -> Tuple[str, str]:
    m = re.search(r'\s*\\$', line)
    return (line[:m.start()], line[m.start():]) if m else (line, '')


def _parse(line: str, in_comment: bool) -> Tuple[_Line, bool]:
    code, tail = _split_tail(line)
    toks, still = mutate_gen.tokens(code, in_comment)
    bare = ''.join(code[t.start:t.end] for t in toks)
    comment = in_comment or '/*' in code or '//' in code
    if comment:
        # A comment sign inside a string is no comment.
        comment = len(re.sub(r'\s', '', code)) != len(re.sub(r'\s', '',
                                                            bare))
    return _Line(code, tail, tuple(toks), comment), still


def guard(n: int) -> str:
    return f'{GUARD}({n})'


def _changed(a: Sequence[Token], b: Sequence[Token]) -> Tuple[int, int, int]:
    """(p, s_a, s_b): tokens a[p:len(a)-s] differ from b[p:len(b)-s],
    where s is the common suffix; returns the end indexes."""
    p = 0
    while p < len(a) and p < len(b) and a[p].text == b[p].text:
        p += 1
    s = 0
    while s < len(a) - p and s < len(b) - p and \
            a[-1 - s].text == b[-1 - s].text:
        s += 1
    return p, len(a) - s, len(b) - s


def _groups(toks: Sequence[Token]) -> List[int]:
    """Per token, the index of the innermost bracket on the line that
    holds it (-1: none on the line; a closing bracket belongs to its
    group's outside)."""
    stack: List[int] = []
    owner = []
    for i, t in enumerate(toks):
        if t.text in _CLOSE:
            if stack:
                stack.pop()
        owner.append(stack[-1] if stack else -1)
        if t.text in _OPEN:
            stack.append(i)
    return owner


def _closer(toks: Sequence[Token], i: int) -> int:
    """Index of the bracket that closes toks[i], or len(toks) when the
    line does not close it."""
    depth = 0
    for j in range(i, len(toks)):
        if toks[j].text in _OPEN:
            depth += 1
        elif toks[j].text in _CLOSE:
            depth -= 1
            if depth == 0:
                return j
    return len(toks)


def _last(line: Optional[_Line]) -> str:
    return line.toks[-1].text if line and line.toks else ''


def _first(line: Optional[_Line]) -> str:
    return line.toks[0].text if line and line.toks else ''


def operand(line: _Line, lo: int, hi: int, before: Optional[_Line],
            after: Optional[_Line]) -> Optional[Tuple[int, int]]:
    """The token range [first, last] of the smallest operand of the line
    that holds tokens lo..hi, or None."""
    toks = line.toks
    owner = _groups(toks)
    while True:
        # The innermost group holding both ends.
        chain = []
        g = owner[lo]
        while g >= 0:
            chain.append(g)
            g = owner[g]
        g = owner[hi]
        while g >= 0 and g not in chain:
            g = owner[g]
        group = g
        # A span that holds an opening bracket holds its group too.
        start = group + 1
        end = _closer(toks, group) - 1 if group >= 0 else len(toks) - 1
        if group < 0:
            # Outside every bracket of the line: brackets the line only
            # closes bound the run too.
            for j in range(lo - 1, -1, -1):
                if toks[j].text in _CLOSE and owner[j] == -1 and \
                        _unopened(toks, j):
                    start = j + 1
                    break
            for j in range(hi + 1, len(toks)):
                if toks[j].text in _CLOSE and _unopened(toks, j):
                    end = j - 1
                    break
        for seps in _LEVELS:
            top = [j for j in range(start, end + 1)
                   if owner[j] == group and toks[j].text in seps]
            if any(lo <= j <= hi for j in top):
                continue
            first = max([j + 1 for j in top if j < lo] + [start])
            last = min([j - 1 for j in top if j > hi] + [end])
            # return x: the operand begins after the keyword.
            first = max([j + 1 for j in range(first, lo)
                         if toks[j].text in _LEADS and
                         owner[j] == group] + [first])
            if first > last:
                return None
            if _lvalue(toks, first, last):
                continue        # (c ? a : b) = x does not compile
            if not _bounded(line, first, last, before, after):
                return None
            if toks[first].text in _LEADS or toks[first].text == 'case':
                return None
            return first, last
        # Across the commas of a condition: the comma expression whole.
        if group > 0 and toks[group - 1].text in ('if', 'while', 'switch') \
                and end < len(toks) - 1:
            return start, end
        # Across a call's commas: the call, one level out.
        if group < 0 or (group > 0 and toks[group - 1].text in
                         ('for', 'sizeof')):
            return None
        lo = group - 1 if group > 0 and toks[group - 1].kind == 'ident' \
            else group
        hi = _closer(toks, group)
        if hi >= len(toks):
            return None


def _lvalue(toks: Sequence[Token], first: int, last: int) -> bool:
    """Whether the run is written or has its address taken: assigned,
    incremented, or after a unary & (one that follows an operator or a
    bracket, not a binary and)."""
    after = toks[last + 1].text if last + 1 < len(toks) else ''
    before = toks[first - 1].text if first else ''
    if after in _ASSIGN or after in ('++', '--') or before in ('++', '--'):
        return True
    if before == '&':
        ahead = toks[first - 2] if first >= 2 else None
        return ahead is None or (ahead.kind == 'op' and
                                 ahead.text not in (')', ']'))
    return False


def _unopened(toks: Sequence[Token], j: int) -> bool:
    """Whether the closing bracket at j closes one the line did not open."""
    depth = 0
    for i in range(j, -1, -1):
        if toks[i].text in _CLOSE:
            depth += 1
        elif toks[i].text in _OPEN:
            depth -= 1
        if depth == 0:
            return False
    return True


def _bounded(line: _Line, first: int, last: int, before: Optional[_Line],
             after: Optional[_Line]) -> bool:
    """Whether the run's edges that are the line's edges are separators
    in the neighbouring lines."""
    if first == 0 and _last(before) not in _ENDS_BEFORE:
        return False
    if last == len(line.toks) - 1 and _first(after) not in _BEGINS_AFTER:
        return False
    return True


def _declaration(toks: Sequence[Token]) -> bool:
    """Whether a statement's tokens declare: a type word first, or two
    names in a row before its first assignment (unsigned long x = ...)."""
    head: List[Token] = []
    for t in toks:
        if t.text in _ASSIGN:
            break
        head.append(t)
    if not head or head[0].text in ('return', 'goto', 'else', 'do'):
        return False
    if head[0].text in mutate_gen._TYPE_WORDS or head[0].text == 'static':
        return True
    return any(a.kind == b.kind == 'ident' for a, b in zip(head, head[1:]))


def _balanced(toks: Sequence[Token]) -> bool:
    depth = 0
    for t in toks:
        depth += (t.text in _OPEN) - (t.text in _CLOSE)
        if depth < 0:
            return False
    return depth == 0


def _statement(line: _Line, before: Optional[_Line]) -> bool:
    """Whether the line is one whole statement (not a declaration): it
    ends in ;, its brackets balance, it holds no comment, and it begins
    where a statement does."""
    toks = line.toks
    if len(toks) < 2 or toks[-1].text != ';' or line.comment or \
            toks[0].text in ('case', 'default', '}', '{') or \
            not _balanced(toks) or _declaration(toks):
        return False
    return _last(before) in _STARTS


def _body_lines(lines: Sequence[str]) -> Set[int]:
    """0-based indexes of the lines inside a function's braces or a
    macro's body, where an expression or a statement runs (not a file
    scope initializer, which must be constant)."""
    inside: Set[int] = set()
    for d in mutate_gen.definitions(lines):
        first = d.first - 1
        if re.match(r'\s*#\s*define\b', lines[first]):
            inside.update(range(first, d.last))
            continue
        opening = next((i for i in range(first, d.last)
                        if lines[i].rstrip() == '{'), None)
        if opening is not None:
            inside.update(range(opening + 1, d.last - 1))
    return inside


@dataclass
class _Edit:
    """Mutants chained over one token range [first, last] of a line."""
    first: int
    last: int
    members: List[Tuple[int, Mutation]]


def _expression_text(code: str, toks: Sequence[Token], e: _Edit) -> str:
    a, b = toks[e.first].start, toks[e.last].end
    original = code[a:b]
    parts = []
    for n, m in e.members:
        mcode, _ = _split_tail(m.mutated)
        delta = len(mcode) - len(code)
        parts.append(f'{guard(n)} ? ({mcode[a:b + delta]}) : ')
    return '(' + ''.join(parts) + f'({original}))'


def _if0_call(m: Mutation) -> bool:
    """del of a call that goes on past its line: `if (0) ` put in front."""
    ind = m.original[:len(m.original) - len(m.original.lstrip())]
    return m.mutated == ind + 'if (0) ' + m.original.lstrip()


def _statement_end(parsed: Sequence[_Line], i: int) -> Optional[int]:
    """The line where the statement that begins on line i ends (its
    brackets closed and a ; after), or None."""
    depth = 0
    for j in range(i, min(len(parsed), i + 40)):
        for t in parsed[j].toks:
            depth += (t.text in _OPEN) - (t.text in _CLOSE)
            if depth < 0:
                return None
        if depth == 0 and parsed[j].toks and parsed[j].toks[-1].text == ';':
            return j
    return None


def _as_expression(line: _Line, m: Mutation, before: Optional[_Line],
                   after: Optional[_Line]) -> Optional[Tuple[int, int]]:
    """The operand of the line that holds the mutant's change, where the
    mutated text over it is an operand of the same shape too."""
    mcode, _ = _split_tail(m.mutated)
    mtoks, _ = mutate_gen.tokens(mcode)
    p, end_a, end_b = _changed(line.toks, mtoks)
    if p >= end_a or p >= end_b:
        return None             # an insertion or a deletion of tokens
    where = operand(line, p, end_a - 1, before, after)
    if not where:
        return None
    shift = len(mtoks) - len(line.toks)
    mline = _Line(mcode, '', tuple(mtoks), line.comment)
    # The mutated text over the same tokens must be an operand as well
    # (not a statement: do { } while (0)).
    there = operand(mline, where[0], where[1] + shift, before, after)
    if there != (where[0], where[1] + shift):
        return None
    return where


def place(lines: Sequence[str], chosen: Sequence[Tuple[int, Mutation]]
          ) -> Tuple[List[str], List[Placement]]:
    """The file's lines with the chosen mutants (id, mutation) written in,
    and where each went."""
    parsed: List[_Line] = []
    in_comment = False
    for text in lines:
        p, in_comment = _parse(text, in_comment)
        parsed.append(p)

    def directive(j: int) -> bool:
        return parsed[j].code.lstrip().startswith('#')

    def neighbour(i: int, step: int) -> Optional[_Line]:
        """The code line before (step -1) or after (+1), None across a
        preprocessor line."""
        j = i + step
        while 0 <= j < len(parsed):
            if directive(j):
                return None
            if parsed[j].toks:
                return parsed[j]
            j += step
        return None

    body = _body_lines(lines)
    placements: Dict[int, Placement] = {}
    expressions: Dict[int, List[_Edit]] = {}
    statements: Dict[int, List[Tuple[int, Mutation]]] = {}
    # Lines that open a block: (last line, id, mutated text or '' for a
    # statement that does not run when the mutant is on).
    blocks: Dict[int, List[Tuple[int, int, str]]] = {}
    spans: List[Tuple[int, int, int, Mutation]] = []

    def separate(n: int, m: Mutation, why: str) -> None:
        placements[n] = Placement(n, m, SEPARATE, why)

    for n, m in chosen:
        i = m.line - 1
        old = m.original.split('\n')
        if list(lines[i:i + len(old)]) != old:
            raise ValueError(f'{m.file}:{m.line} is not the line mutant '
                             f'{n} was made of')
        if i not in body:
            separate(n, m, 'not in a function or macro body (a file scope '
                     'initializer must be constant)')
        elif len(old) > 1:
            spans.append((i, i + len(old) - 1, n, m))
        elif m.mutated == '':
            separate(n, m, 'a case label taken out: no statement or '
                     'expression to guard')
        elif parsed[i].toks and parsed[i].toks[0].text == 'case':
            separate(n, m, 'a case label: its value must be constant')
        elif _if0_call(m):
            end = _statement_end(parsed, i)
            if end is None or parsed[end].comment or \
                    _last(neighbour(i, -1)) not in _STARTS:
                separate(n, m, 'a call over several lines whose end is '
                         'not found')
                continue
            blocks.setdefault(i, []).append((end, n, ''))
            placements[n] = Placement(n, m, STATEMENT)
        else:
            line = parsed[i]
            before, after = neighbour(i, -1), neighbour(i, 1)
            where = _as_expression(line, m, before, after)
            whole = where == (0, len(line.toks) - 2)
            if where and not (whole and _statement(line, before)):
                expressions.setdefault(i, []).append(
                    _Edit(where[0], where[1], [(n, m)]))
                placements[n] = Placement(n, m, EXPRESSION)
            elif _statement(line, before):
                statements.setdefault(i, []).append((n, m))
                placements[n] = Placement(n, m, STATEMENT)
            else:
                separate(n, m, 'no operand holds the change and the line '
                         'is not a whole statement')

    # Multi-line mutants: whole statements, nested ranges only.
    taken: List[Tuple[int, int]] = []
    for first, last, n, m in sorted(spans, key=lambda s: (s[0], -s[1])):
        ok = all(_statement(parsed[j], neighbour(j, -1)) or (
            parsed[j].toks and parsed[j].toks[0].text == 'if' and
            not parsed[j].comment) for j in range(first, last + 1))
        crossing = any(a < first <= b < last or first < a <= last < b
                       for a, b in taken + [(i, e) for i in blocks
                                            for e, _, _ in blocks[i]])
        if not ok or crossing:
            separate(n, m, 'its lines cross another multi-line mutant'
                     if ok else 'its lines are not whole statements')
            continue
        taken.append((first, last))
        text = ' '.join(_split_tail(x)[0].strip()
                        for x in m.mutated.split('\n'))
        blocks.setdefault(first, []).append((last, n, text))
        placements[n] = Placement(n, m, STATEMENT)

    out = list(lines)
    closers: Dict[int, int] = {}
    for i in sorted(set(expressions) | set(statements) | set(blocks)):
        line = parsed[i]
        code = line.code
        for e in sorted(_merge(expressions.get(i, [])),
                        key=lambda e: -e.first):
            a, b = line.toks[e.first].start, line.toks[e.last].end
            code = code[:a] + _expression_text(line.code, line.toks, e) + \
                code[b:]
        ind = code[:len(code) - len(code.lstrip())]
        stmt = code.lstrip()
        # Each statement form in braces of its own: as the body of an if
        # without braces, followed by that if's else, it is one statement
        # and the else stays the outer if's.
        for n, m in statements.get(i, [])[::-1]:
            mcode, _ = _split_tail(m.mutated)
            stmt = (f'{{ if ({guard(n)}) {{ {mcode.strip()} }} '
                    f'else {{ {stmt} }} }}')
        # Innermost (shortest) block first, each closed on its last line.
        for last, n, text in sorted(blocks.get(i, []), key=lambda b: b[0]):
            stmt = (f'{{ if (!{guard(n)}) {{ {stmt}' if not text else
                    f'{{ if ({guard(n)}) {{ {text} }} else {{ {stmt}')
            closers[last] = closers.get(last, 0) + 2
        out[i] = ind + stmt + line.tail
    for last, count in closers.items():
        code, tail = _split_tail(out[last])
        out[last] = code + ' }' * count + tail
    return out, [placements[n] for n, _ in chosen]


def _merge(edits: List[_Edit]) -> List[_Edit]:
    """Edits whose ranges overlap, merged over the range that holds them
    all (the mutants chain there)."""
    merged: List[_Edit] = []
    for e in sorted(edits, key=lambda e: (e.first, -e.last)):
        if merged and e.first <= merged[-1].last:
            top = merged[-1]
            top.last = max(top.last, e.last)
            top.members += e.members
        else:
            merged.append(_Edit(e.first, e.last, list(e.members)))
    return merged
