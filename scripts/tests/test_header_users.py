# SPDX-License-Identifier: GPL-2.0
import tempfile
import unittest
from pathlib import Path
from typing import Dict, List, Sequence

import header_users

HEADER = '''\
/* set_ptes() in a comment is no definition */
#define PTE_SHIFT 12
#define pte_index(addr) \\
	(((addr) >> PTE_SHIFT) & 511)

struct ptes {
	int n;
};

static inline void __set_pte(int *p, int v)
{
	*p = v;
}

static inline void set_ptes(int *p, int v,
			    int nr)
{
	for (; nr; nr--)
		__set_pte(p++, v);
}

#define set_pte(p, v) set_ptes(p, v, 1)
'''


class DefinitionsTest(unittest.TestCase):
    def test_functions_and_macros_with_their_lines(self) -> None:
        got = [(n, a, b) for n, a, b, _ in
               header_users.definitions(HEADER)]
        self.assertEqual(got, [('PTE_SHIFT', 2, 2), ('pte_index', 3, 4),
                               ('__set_pte', 10, 13), ('set_ptes', 15, 20),
                               ('set_pte', 22, 22)])

    def test_enclosing(self) -> None:
        self.assertEqual(header_users.enclosing(HEADER, 19), 'set_ptes')
        self.assertEqual(header_users.enclosing(HEADER, 4), 'pte_index')
        # A struct member is no function: such a change is not narrowed.
        self.assertIsNone(header_users.enclosing(HEADER, 7))
        self.assertIsNone(header_users.enclosing(HEADER, 1))


class FakeTree:
    """A grep over an in-memory tree, as `git grep -l -w` answers."""

    def __init__(self, files: Dict[str, str]) -> None:
        self.files = files

    def grep(self, names: Sequence[str], globs: Sequence[str]) -> List[str]:
        import fnmatch
        import re
        wanted = [g for g in globs if not g.startswith(':(exclude)')]
        word = re.compile(r'\b(?:' + '|'.join(map(re.escape, names))
                          + r')\b')
        return sorted(f for f, text in self.files.items()
                      if any(fnmatch.fnmatch(f, g) for g in wanted)
                      and word.search(text))

    def read(self, name: str) -> str:
        return self.files[name]


class UsersTest(unittest.TestCase):
    TREE = FakeTree({
        'include/p.h': HEADER,
        'include/q.h': '#include "p.h"\n'
                       'static inline void q(int *p) { set_pte(p, 0); }\n',
        'mm/a.c': 'void a(int *p) { q(p); }\n',
        'mm/b.c': 'void b(int *p) { __set_pte(p, 1); }\n',
        'mm/c.c': 'struct ptes c;\n',
        'mm/unbuilt.c': 'void d(int *p) { set_ptes(p, 0, 2); }\n',
    })

    def build_dir(self, built: Sequence[str]) -> Path:
        build = Path(tempfile.mkdtemp())
        for source in built:
            cmd = header_users.object_cmd(build, source)
            cmd.parent.mkdir(parents=True, exist_ok=True)
            cmd.write_text('')
        return build

    def test_closure_follows_header_definitions_to_a_fixed_point(
            self) -> None:
        got = header_users.closure({'__set_pte'}, self.TREE.grep,
                                   self.TREE.read)
        self.assertEqual(got, {'__set_pte', 'set_ptes', 'set_pte', 'q'})

    def test_sources_built_here_that_use_what_changed(self) -> None:
        build = self.build_dir(['mm/a.c', 'mm/b.c', 'mm/c.c'])
        # __set_pte's body: b.c calls it, a.c reaches it through q() and
        # set_pte(); c.c does not; unbuilt.c is not in this build.
        self.assertEqual(header_users.users({'include/p.h': [12]},
                                            self.TREE.grep, self.TREE.read,
                                            build), ['mm/a.c', 'mm/b.c'])
        # set_ptes' body: b.c calls only __set_pte.
        self.assertEqual(header_users.users({'include/p.h': [19]},
                                            self.TREE.grep, self.TREE.read,
                                            build), ['mm/a.c'])

    def test_a_line_outside_any_definition_is_not_narrowed(self) -> None:
        build = self.build_dir(['mm/a.c'])
        self.assertIsNone(header_users.users({'include/p.h': [7]},
                                             self.TREE.grep, self.TREE.read,
                                             build))

    def test_a_closure_past_the_limit_is_not_narrowed(self) -> None:
        files = {f'include/h{i}.h':
                 f'#define m{i + 1}(x) m{i}(x)\n' for i in range(
                     header_users.MAX_NAMES + 1)}
        tree = FakeTree(files)
        self.assertIsNone(header_users.closure({'m0'}, tree.grep,
                                               tree.read))


class ChangedLinesTest(unittest.TestCase):
    def test_lines_of_the_new_file_and_where_removals_were(self) -> None:
        patch = ('diff --git a/x.h b/x.h\n--- a/x.h\n+++ b/x.h\n'
                 '@@ -10,4 +10,4 @@\n a\n-b\n+c\n d\n'
                 '@@ -20,3 +20,2 @@\n e\n-f\n g\n'
                 'diff --git a/y.c b/y.c\n--- a/y.c\n+++ b/y.c\n'
                 '@@ -1,2 +1,3 @@\n p\n+q\n r\n')
        self.assertEqual(header_users.changed_lines(patch),
                         {'x.h': [11, 21], 'y.c': [2]})


if __name__ == '__main__':
    unittest.main()
