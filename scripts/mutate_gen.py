# SPDX-License-Identifier: GPL-2.0
"""The mutants of the C lines a patch adds: the generator of `make mutate`.

A small C-token-aware generator rather than Coccinelle. Each mutant here
is one change to one line the patch added, and it needs nothing but that
line's tokens. Coccinelle matches semantic patterns over whole functions:
it would need a rule file per operator and a position restriction per
added line to do the same, plus a package these machines may lack. The
compiler is the type checker. A mutant that does not build, or that makes
the compiler warn in the file it changes, is discarded and counted apart
(the kernel builds warning-free, so such a change would not pass review
anyway).

Operators (each mutant changes one token or one statement of one line):
  ror    relational boundary and equality: < <=, > >=, == !=
  neg    negated condition: if (c) and while (c) become (!(c))
  lcr    && and || swapped
  const  an integer constant plus one and minus one; true and false
         swapped
  del    a call statement deleted (a barrier, a flush, a put, a WARN,
         a cond_resched()), or an assignment or a counter's step: the
         line becomes `do { } while (0);`, an empty statement the
         compiler does not warn about in an if body; a call that goes on
         to the next lines gets `if (0) ` in front instead; a `case`
         label is taken out of its switch
  ret    a returned value replaced by 0
  swap   two adjacent arguments of a call swapped
"""

import random
import re
from dataclasses import dataclass
from typing import Iterator, List, Optional, Sequence, Tuple

OPERATORS = ('ror', 'neg', 'lcr', 'const', 'del', 'ret', 'swap')

_TOKEN = re.compile(r'''
    (?P<space>\s+)
  | (?P<comment>//.*|/\*.*?\*/)
  | (?P<open_comment>/\*.*)
  | (?P<string>"(?:\\.|[^"\\])*")
  | (?P<char>'(?:\\.|[^'\\])*')
  | (?P<number>0[xX][0-9a-fA-F]+[uUlL]*|\d+[uUlL]*)
  | (?P<ident>[A-Za-z_]\w*)
  | (?P<op><<=|>>=|->|\+\+|--|<<|>>|<=|>=|==|!=|&&|\|\||[-+*/%&|^!~<>=?:;,.()\[\]{}])
  | (?P<other>.)
''', re.X)

_BOUNDARY = {'<': '<=', '<=': '<', '>': '>=', '>=': '>', '==': '!=',
             '!=': '=='}
# Calls whose deletion is no mutant: the compiler would only warn or
# refuse, or they only log.
_NOT_DELETED = ('pr_', 'dev_', 'printk', 'kunit_', 'BUILD_BUG', 'static_assert')


@dataclass(frozen=True)
class Token:
    kind: str
    text: str
    start: int
    end: int


@dataclass(frozen=True)
class Mutation:
    file: str
    line: int           # 1-based, in the tree the mutant applies to
    operator: str
    original: str
    mutated: str
    what: str           # e.g. "`<` to `<=`"

    @property
    def name(self) -> str:
        return f'{self.file}:{self.line}:{self.operator}:{self.what}'


def tokens(line: str, in_comment: bool = False) -> Tuple[List[Token], bool]:
    """The code tokens of one line (no spaces, no comments), and whether a
    comment is still open at its end. in_comment: one was open before."""
    found: List[Token] = []
    pos = 0
    if in_comment:
        end = line.find('*/')
        if end < 0:
            return [], True
        pos = end + 2
    for m in _TOKEN.finditer(line, pos):
        kind = m.lastgroup or 'other'
        if kind in ('space', 'comment'):
            continue
        if kind == 'open_comment':
            return found, True
        found.append(Token(kind, m.group(), m.start(), m.end()))
    return found, False


def _replace(line: str, tok: Token, text: str) -> str:
    return line[:tok.start] + text + line[tok.end:]


def _closing(toks: Sequence[Token], i: int) -> Optional[int]:
    """Index of the token that closes the bracket at toks[i], on the line."""
    pairs = {'(': ')', '[': ']', '{': '}'}
    depth = 0
    for j in range(i, len(toks)):
        if toks[j].text in pairs:
            depth += 1
        elif toks[j].text in pairs.values():
            depth -= 1
            if depth == 0:
                return j
    return None


def _int_value(text: str) -> Tuple[int, str, bool]:
    digits = text.rstrip('uUlL')
    suffix = text[len(digits):]
    is_hex = digits[:2] in ('0x', '0X')
    if is_hex:
        return int(digits, 16), suffix, True
    if len(digits) > 1 and digits.startswith('0'):
        return int(digits, 8), suffix, False
    return int(digits), suffix, False


def _call_at(toks: Sequence[Token]) -> Optional[Tuple[int, int]]:
    """(index of "(", index of its ")") when the tokens are one call
    statement: name ( ... ) ; and nothing else."""
    if len(toks) < 4 or toks[0].kind != 'ident' or toks[1].text != '(':
        return None
    close = _closing(toks, 1)
    if close is None or close != len(toks) - 2 or toks[-1].text != ';':
        return None
    return 1, close


def _call_opens(toks: Sequence[Token]) -> bool:
    """Whether the tokens start a call statement that the line does not
    close: name ( ... with the parenthesis still open at its end."""
    if len(toks) < 2 or toks[0].kind != 'ident' or toks[1].text != '(' or \
            toks[0].text in _KEYWORDS:
        return False
    # Two names in a row (gfp_t gfp): a definition's parameters, no call.
    if any(a.kind == 'ident' and b.kind == 'ident'
           for a, b in zip(toks[2:], toks[3:])):
        return False
    return _closing(toks, 1) is None


_ASSIGN = ('=', '+=', '-=', '|=', '&=', '^=', '<<=', '>>=')
_KEYWORDS = ('if', 'while', 'for', 'switch', 'return', 'sizeof', 'do',
             'else', 'case', 'goto')


def _assignment(toks: Sequence[Token]) -> bool:
    """Whether the tokens are one assignment statement (not a declaration
    with an initializer, which cannot go): lvalue op= expression ;"""
    if len(toks) == 3 and toks[-1].text == ';' and \
            {toks[0].text, toks[1].text} & {'++', '--'} and \
            'ident' in (toks[0].kind, toks[1].kind):
        return True             # x++; --x;
    if len(toks) < 4 or toks[-1].text != ';' or toks[0].kind != 'ident' or \
            toks[0].text in _KEYWORDS + _TYPE_WORDS:
        return False
    for i, t in enumerate(toks):
        if t.text in _ASSIGN:
            # Two names in a row before it: a declaration (u64 x = ...).
            head = toks[:i]
            return not any(a.kind == 'ident' and b.kind == 'ident'
                           for a, b in zip(head, head[1:])) and \
                not any(x.text == '*' for x in head[:1])
        if t.text in ('(', '?'):
            return False
    return False


def _arguments(toks: Sequence[Token], open_at: int, close_at: int
               ) -> List[Tuple[int, int]]:
    """(first, last) token index of each top-level argument."""
    args: List[Tuple[int, int]] = []
    depth = 0
    first = open_at + 1
    for j in range(open_at + 1, close_at):
        t = toks[j].text
        if t in '([{':
            depth += 1
        elif t in ')]}':
            depth -= 1
        elif t == ',' and depth == 0:
            args.append((first, j - 1))
            first = j + 1
    if first <= close_at - 1:
        args.append((first, close_at - 1))
    return args


# Calls whose value does not depend on the order of their arguments.
_SYMMETRIC = ('min', 'max', 'min_t', 'max_t', 'min3', 'max3', 'umin',
              'umax')
_TYPE_WORDS = ('void', 'char', 'short', 'int', 'long', 'unsigned',
               'signed', 'bool', 'float', 'double', 'const', 'volatile',
               'struct', 'union', 'enum', 'size_t', 'gfp_t', 'pte_t',
               'pmd_t', 'pud_t', 'p4d_t', 'pgd_t', 'pgprot_t', 'phys_addr_t',
               'u8', 'u16', 'u32', 'u64', 's8', 's16', 's32', 's64')


def _is_type(toks: Sequence[Token]) -> bool:
    """Whether an argument is a type or a parameter declaration (min_t()'s
    first argument, a function's own parameter list): swapping it with a
    value is a compile error, not a mutant, and swapping two parameters of
    a definition is a swap at every call, which the calls' own mutants
    already are."""
    words = [t for t in toks if t.kind == 'ident']
    if any(t.kind != 'ident' and t.text != '*' for t in toks):
        return False
    return len(words) >= 2 or (len(words) == 1 and
                               words[0].text in _TYPE_WORDS)


def mutations_of_line(file: str, number: int, line: str,
                      in_comment: bool = False) -> Iterator[Mutation]:
    """Every mutant of one line the patch added."""
    if line.lstrip().startswith('#'):
        return
    toks, _ = tokens(line, in_comment)

    def make(op: str, new: str, what: str) -> Mutation:
        return Mutation(file, number, op, line, new, what)

    for i, tok in enumerate(toks):
        if tok.kind == 'op' and tok.text in _BOUNDARY:
            yield make('ror', _replace(line, tok, _BOUNDARY[tok.text]),
                       f'`{tok.text}` to `{_BOUNDARY[tok.text]}`')
        elif tok.text in ('&&', '||'):
            other = '||' if tok.text == '&&' else '&&'
            yield make('lcr', _replace(line, tok, other),
                       f'`{tok.text}` to `{other}`')
        elif tok.kind == 'number':
            value, suffix, is_hex = _int_value(tok.text)
            for new in (value + 1, value - 1):
                if new < 0:
                    continue
                text = (hex(new) if is_hex else str(new)) + suffix
                yield make('const', _replace(line, tok, text),
                           f'`{tok.text}` to `{text}`')
        elif tok.text in ('true', 'false'):
            other = 'false' if tok.text == 'true' else 'true'
            yield make('const', _replace(line, tok, other),
                       f'`{tok.text}` to `{other}`')
        elif tok.text in ('if', 'while') and i + 1 < len(toks) and \
                toks[i + 1].text == '(':
            close = _closing(toks, i + 1)
            if close is None:
                continue
            inner = line[toks[i + 1].end:toks[close].start]
            new = (line[:toks[i + 1].end] + '!(' + inner + ')' +
                   line[toks[close].start:])
            yield make('neg', new, f'`{tok.text} ({inner})` negated')
        elif tok.text == 'return' and i + 2 < len(toks) and \
                toks[-1].text == ';' and i == 0:
            value = line[toks[1].start:toks[-1].start].strip()
            if value not in ('0', 'NULL', 'false'):
                new = line[:toks[1].start] + '0' + line[toks[-1].start:]
                yield make('ret', new, f'`return {value}` to `return 0`')

    if len(toks) >= 3 and toks[0].text == 'case' and toks[-1].text == ':':
        # The value now goes where the switch's default (or nothing) does.
        yield make('del', '', f'`{line.strip()}` deleted')
    call = _call_at(toks)
    indent = line[:len(line) - len(line.lstrip())]
    if call and not toks[0].text.startswith(_NOT_DELETED):
        yield make('del', indent + 'do { } while (0);',
                   f'`{toks[0].text}()` deleted')
    elif _call_opens(toks) and not toks[0].text.startswith(_NOT_DELETED):
        # A call statement that goes on to the next lines: never run.
        yield make('del', indent + 'if (0) ' + line.lstrip(),
                   f'`{toks[0].text}()` deleted')
    elif _assignment(toks):
        yield make('del', indent + 'do { } while (0);',
                   f'`{line.strip()}` deleted')
    for i, tok in enumerate(toks):
        if tok.kind != 'ident' or i + 1 >= len(toks) or \
                toks[i + 1].text != '(' or \
                tok.text in ('if', 'while', 'for', 'switch', 'return',
                             'sizeof'):
            continue
        close = _closing(toks, i + 1)
        if close is None:
            continue
        if tok.text in _SYMMETRIC:
            continue            # min(a, b) is min(b, a): no mutant
        args = _arguments(toks, i + 1, close)
        for a, b in zip(args, args[1:]):
            first = line[toks[a[0]].start:toks[a[1]].end]
            second = line[toks[b[0]].start:toks[b[1]].end]
            if first == second or _is_type(toks[a[0]:a[1] + 1]) or \
                    _is_type(toks[b[0]:b[1] + 1]):
                continue
            new = (line[:toks[a[0]].start] + second +
                   line[toks[a[1]].end:toks[b[0]].start] + first +
                   line[toks[b[1]].end:])
            yield make('swap', new,
                       f'`{tok.text}()` arguments `{first}` and `{second}` swapped')


def mutations(file: str, lines: Sequence[str], numbers: Sequence[int]
              ) -> List[Mutation]:
    """The mutants of the given lines (1-based numbers) of a file whose
    whole text is lines; comment state is followed from the file's top."""
    wanted = set(numbers)
    found: List[Mutation] = []
    in_comment = False
    for number, line in enumerate(lines, 1):
        if number in wanted:
            found += mutations_of_line(file, number, line, in_comment)
        _, in_comment = tokens(line, in_comment)
    return found


def sample(found: Sequence[Mutation], size: int, seed: int
           ) -> List[Mutation]:
    """size mutants picked with the seed (all when size is 0 or larger
    than what there is), in file and line order."""
    chosen = list(found)
    if 0 < size < len(found):
        chosen = random.Random(seed).sample(chosen, size)
    return sorted(chosen, key=lambda m: (m.file, m.line, m.operator,
                                         m.mutated))


def lines_of(text: str) -> List[str]:
    """A file's lines as as_patch() takes them: without the empty string
    that split('\n') leaves after the final newline, which a patch would
    carry as a context line the file does not have."""
    lines = text.split('\n')
    if text.endswith('\n'):
        lines.pop()
    return lines


def as_patch(mutation: Mutation, lines: Sequence[str],
             context: int = 3) -> str:
    """A patch git apply takes: the mutant's line changed in a file whose
    lines are lines (lines_of() of its text)."""
    i = mutation.line - 1
    if lines[i] != mutation.original:
        raise ValueError(f'{mutation.file}:{mutation.line} is not the line '
                         'the mutant was made of')
    first = max(0, i - context)
    last = min(len(lines), i + context + 1)
    body = [' ' + line for line in lines[first:i]]
    body += ['-' + mutation.original, '+' + mutation.mutated]
    body += [' ' + line for line in lines[i + 1:last]]
    count = last - first
    return (f'diff --git a/{mutation.file} b/{mutation.file}\n'
            f'--- a/{mutation.file}\n+++ b/{mutation.file}\n'
            f'@@ -{first + 1},{count} +{first + 1},{count} @@\n' +
            '\n'.join(body) + '\n')
