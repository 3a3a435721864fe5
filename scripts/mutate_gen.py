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
  sib    a call, flag or size replaced by its sibling of the same shape
         (kfree/kvfree, in_hardirq/in_interrupt, pte_mkdirty/pte_mkyoung,
         CONT_PTES/CONT_PMDS, ...: see SIBLINGS)
  range  the end of a range one entry off (a count or an index + or - 1,
         an address + or - PAGE_SIZE) where it is read, not written

and, over two to four lines:
  nest   a condition nested under the one before it:
         if (a) x; if (b) y;  becomes  if (a) { x; if (b) y; }
  move   a statement moved across its neighbour (an update before or
         after the free, a flag set before or after the write)

Those multi-line mutants keep original and mutated as the lines they
replace, joined with newlines; line is the first of them.

definitions() finds the functions and macros of a file in kernel style
(a signature at column 0, the body between a `{` and a `}` alone at
column 0; a #define and its continuation lines), so that `make mutate`
can mutate the whole body of every definition a patch changes, not
only the lines it adds.
"""

import random
import re
from dataclasses import dataclass
from typing import Dict, Iterator, List, Optional, Sequence, Tuple

OPERATORS = ('ror', 'neg', 'lcr', 'const', 'del', 'ret', 'swap', 'sib',
             'range', 'nest', 'move')

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


# Calls, flags and sizes with a sibling of the same shape that a port
# could take for them; each is replaced by every other of its group.
SIBLINGS = (
    ('kfree', 'kvfree'), ('vfree', 'kvfree'),
    ('kmalloc_node_noprof', 'kvmalloc_node_noprof'),
    ('in_hardirq', 'in_interrupt', 'in_serving_softirq'),
    ('pte_mkdirty', 'pte_mkyoung'), ('pte_mkclean', 'pte_mkold'),
    ('pte_dirty', 'pte_young'), ('pte_valid', 'pte_present'),
    ('pmd_valid', 'pmd_present'), ('pud_valid', 'pud_present'),
    ('pte_valid_not_user', 'pte_valid'),
    ('set_thread_flag', 'clear_thread_flag'),
    ('__free_page', 'put_page'),
    ('rcu_read_lock', 'rcu_read_unlock'),
    ('CONT_PTES', 'CONT_PMDS'), ('CONT_PTE_SIZE', 'CONT_PMD_SIZE'),
    ('CONT_PTE_SHIFT', 'CONT_PMD_SHIFT'), ('CONT_PTE_MASK', 'CONT_PMD_MASK'),
    ('PAGE_SIZE', 'PMD_SIZE', 'PUD_SIZE'), ('PAGE_SHIFT', 'PMD_SHIFT'),
    ('PTRS_PER_PTE', 'PTRS_PER_PMD'),
    ('round_down', 'round_up'), ('ALIGN', 'ALIGN_DOWN'),
    ('min', 'max'), ('min_t', 'max_t'),
    ('__GFP_NOWARN', '__GFP_NORETRY'),
    ('__GFP_DIRECT_RECLAIM', '__GFP_KSWAPD_RECLAIM'),
    ('VM_RAND_READ', 'VM_SEQ_READ'),
    ('FPI_PREPARED', 'FPI_NO_TRACE', 'FPI_NONE'),
    ('TIF_LAZY_MMU', 'TIF_LAZY_MMU_PENDING'),
)
_SIBLING_OF: Dict[str, Tuple[str, ...]] = {}
for _group in SIBLINGS:
    for _name in _group:
        _SIBLING_OF[_name] = _SIBLING_OF.get(_name, ()) + tuple(
            x for x in _group if x != _name and
            x not in _SIBLING_OF.get(_name, ()))

# Names of a range's end or length, and of an address in a range: the
# range operator moves them by one entry (1, or PAGE_SIZE for an address:
# a name like end on a line that works with addresses).
_COUNT = re.compile(r'^(?:end|stop|limit|last|nr|nr_pages|ncontig|count|'
                    r'pgcnt|__pgcount|size|nr_allocated|nr_remaining|'
                    r'\w+_end|end_\w+|nr_\w+)$')
_ADDRESS = re.compile(r'(?:^|_)(?:addr|end|next)$')


def _is_written(toks: Sequence[Token], i: int) -> bool:
    """Whether toks[i] is assigned to, declared, or a member name."""
    if i + 1 < len(toks) and toks[i + 1].text in _ASSIGN + ('++', '--'):
        return True
    if i > 0 and toks[i - 1].text in ('++', '--', '.', '->', '&'):
        return True
    if i > 0 and toks[i - 1].kind == 'ident' and \
            toks[i - 1].text not in _KEYWORDS:
        return True             # a declaration: unsigned long end
    if i > 0 and toks[i - 1].text == '*' and i > 1 and \
            toks[i - 2].kind == 'ident' and toks[i - 2].text in _TYPE_WORDS:
        return True
    return False


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
        if tok.kind != 'ident':
            continue
        for other in _SIBLING_OF.get(tok.text, ()):
            yield make('sib', _replace(line, tok, other),
                       f'`{tok.text}` to `{other}`')
        in_call_args = any(t.text == '(' for t in toks[:i])
        if (_COUNT.match(tok.text) or _ADDRESS.search(tok.text)) and \
                in_call_args and not _is_written(toks, i) and \
                not (i + 1 < len(toks) and toks[i + 1].text in ('(', '[')):
            step = 'PAGE_SIZE' if _ADDRESS.search(tok.text) and \
                'addr' in line else '1'
            for sign in ('+', '-'):
                new_text = f'({tok.text} {sign} {step})'
                yield make('range', _replace(line, tok, new_text),
                           f'`{tok.text}` to `{new_text}`')
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


def _indent(line: str) -> str:
    return line[:len(line) - len(line.lstrip())]


def _one_line_if(line: str) -> bool:
    """`if (cond)` alone on its line, its parenthesis closed there."""
    toks, _ = tokens(line)
    return (len(toks) >= 3 and toks[0].text == 'if' and
            toks[1].text == '(' and _closing(toks, 1) == len(toks) - 1)


def _simple_statement(line: str) -> bool:
    """A call or an assignment statement complete on its line."""
    toks, _ = tokens(line)
    return bool(toks) and (_call_at(toks) is not None or _assignment(toks))


def multi_line_mutations(file: str, lines: Sequence[str],
                         wanted: Sequence[int]) -> List[Mutation]:
    """The nest and move mutants whose first line is one of wanted."""
    found: List[Mutation] = []
    chosen = set(wanted)
    for number in sorted(chosen):
        i = number - 1
        if i + 1 >= len(lines):
            continue
        a, b = lines[i], lines[i + 1]
        ind = _indent(a)
        # nest: if (a) x; if (b) y;  ->  if (a) { x; if (b) y; }
        if i + 3 < len(lines) and _one_line_if(a) and \
                _one_line_if(lines[i + 2]) and _indent(lines[i + 2]) == ind \
                and _indent(b) == ind + '\t' and \
                _indent(lines[i + 3]) == ind + '\t' and \
                _simple_statement(b) and _simple_statement(lines[i + 3]) and \
                number + 3 in chosen:
            original = '\n'.join(lines[i:i + 4])
            mutated = '\n'.join([a + ' {', b, '\t' + lines[i + 2],
                                  '\t' + lines[i + 3], ind + '}'])
            found.append(Mutation(file, number, 'nest', original, mutated,
                                  f'`{lines[i + 2].strip()}` nested under '
                                  f'`{a.strip()}`'))
        # move: two statements of one block swapped
        if _simple_statement(a) and _simple_statement(b) and \
                _indent(b) == ind and a.strip() != b.strip() and \
                number + 1 in chosen:
            found.append(Mutation(file, number, 'move', a + '\n' + b,
                                  b + '\n' + a,
                                  f'`{a.strip()}` moved after '
                                  f'`{b.strip()}`'))
    return found


def mutations(file: str, lines: Sequence[str], numbers: Sequence[int]
              ) -> List[Mutation]:
    """The mutants of the given lines (1-based numbers) of a file whose
    whole text is lines; comment state is followed from the file's top."""
    wanted = set(numbers)
    found: List[Mutation] = []
    in_comment = False
    starts = []
    for number, line in enumerate(lines, 1):
        if number in wanted:
            found += mutations_of_line(file, number, line, in_comment)
            if not in_comment and not line.lstrip().startswith(('#', '/*',
                                                                 '*')):
                starts.append(number)
        _, in_comment = tokens(line, in_comment)
    return found + multi_line_mutations(file, lines, starts)


@dataclass(frozen=True)
class Definition:
    """A function or macro of a file: its name and 1-based line range."""
    name: str
    first: int
    last: int


_DEFINE = re.compile(r'^\s*#\s*define\s+(\w+)')


def definitions(lines: Sequence[str]) -> List[Definition]:
    """The functions (kernel style) and macros of a file, in order."""
    found: List[Definition] = []
    i = 0
    start = None
    while i < len(lines):
        line = lines[i]
        macro = _DEFINE.match(line)
        if macro:
            j = i
            while j + 1 < len(lines) and lines[j].rstrip().endswith('\\'):
                j += 1
            found.append(Definition(macro.group(1), i + 1, j + 1))
            i = j + 1
            start = None
            continue
        if line and not line[0].isspace() and line[0] not in '{}#/*':
            before = lines[i - 1].strip() if i else ''
            if start is None or not before or before.startswith('#') or \
                    before.endswith((';', '}', '*/')):
                start = i
        if line.rstrip() == '{' and start is not None:
            head = ' '.join(lines[start:i])
            name = re.search(r'(\w+)\s*\(', head)
            j = i + 1
            while j < len(lines) and lines[j].rstrip() != '}':
                j += 1
            if name and j < len(lines):
                found.append(Definition(name.group(1), start + 1, j + 1))
            i = j + 1
            start = None
            continue
        if line.rstrip().endswith(';') and not line[:1].isspace():
            start = None
        i += 1
    return found


def definition_texts(lines: Sequence[str]) -> Dict[str, str]:
    """Each definition's text by name (a name defined twice, as under
    #ifdef alternatives, keeps every text, joined)."""
    texts: Dict[str, str] = {}
    for d in definitions(lines):
        body = '\n'.join(lines[d.first - 1:d.last])
        texts[d.name] = texts[d.name] + '\n' + body if d.name in texts \
            else body
    return texts


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
    """A patch git apply takes: the mutant's lines changed in a file whose
    lines are lines (lines_of() of its text)."""
    i = mutation.line - 1
    old = mutation.original.split('\n')
    new = mutation.mutated.split('\n')
    if list(lines[i:i + len(old)]) != old:
        raise ValueError(f'{mutation.file}:{mutation.line} is not the line '
                         'the mutant was made of')
    first = max(0, i - context)
    last = min(len(lines), i + len(old) + context)
    body = [' ' + line for line in lines[first:i]]
    body += ['-' + line for line in old] + ['+' + line for line in new]
    body += [' ' + line for line in lines[i + len(old):last]]
    before = last - first
    after = before - len(old) + len(new)
    return (f'diff --git a/{mutation.file} b/{mutation.file}\n'
            f'--- a/{mutation.file}\n+++ b/{mutation.file}\n'
            f'@@ -{first + 1},{before} +{first + 1},{after} @@\n' +
            '\n'.join(body) + '\n')
