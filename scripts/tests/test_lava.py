# SPDX-License-Identifier: GPL-2.0
import json
import subprocess
import tempfile
import unittest
from pathlib import Path
from typing import List
from unittest import mock

import kunit_run
import lava
import manifest
import project
from project import SeriesError
from trees import Tree

# A lava-run log as LAVA 2023.01 writes it: one YAML flow mapping a line,
# every string double-quoted; the pty's "\r\r\n" leaves a "\r" in msg.
LOG = '\n'.join([
    '{"dt": "2026-12-03T15:42:37", "lvl": "info", "msg": "lava-dispatcher, installed at version: 2023.01"}',
    '{"dt": "2026-12-03T15:42:38", "lvl": "target", "msg": "KTAP version 1\\r"}',
    '{"dt": "2026-12-03T15:42:38", "lvl": "target", "msg": "1..1\\r"}',
    '{"dt": "2026-12-03T15:42:38", "lvl": "target", "msg": "    # Subtest: s\\r"}',
    '{"dt": "2026-12-03T15:42:38", "lvl": "target", "msg": "    ok 1 a_test # SKIP needs \\e[1mX\\e[0m\\r"}',
    '{"dt": "2026-12-03T15:42:38", "lvl": "results", "msg": {"case": "a_test", "definition": "kunit-main", "result": "pass"}}',
    '{"dt": "2026-12-03T15:42:38", "lvl": "target", "msg": "ok 1 s\\r"}',
    '{"dt": "2026-12-03T15:42:39", "lvl": "results", "msg": {"case": "job", "definition": "lava", "result": "pass"}}',
]) + '\n'


def fake_tree(root: Path, name: str) -> Tree:
    return Tree(name, root / name)


class JobTest(unittest.TestCase):
    def test_every_qemu_config_loads(self) -> None:
        for path in sorted(kunit_run.QEMU_CONFIGS.glob('*.py')):
            q = lava.load_qemu_config(path)
            self.assertEqual(q.kernel_path, 'arch/arm64/boot/Image.gz', path)
            self.assertIn('console=ttyAMA0', q.kernel_command_line, path)
            self.assertIn('-smp', q.extra_qemu_params, path)

    def test_a_job_and_a_device_for_every_lane(self) -> None:
        expected = manifest.load(project.MANIFEST)
        with tempfile.TemporaryDirectory() as tmp:
            for lane, known in kunit_run.LANES.items():
                c = lava.cell(fake_tree(Path(tmp), known.trees[-1]), lane,
                              expected)
                job = lava.qemu_job(c, 'file:///x/Image.gz')
                deploy = job['actions'][0]['deploy']
                arg = deploy['images']['kernel']['image_arg']
                self.assertTrue(arg.startswith('-kernel {kernel} -append "'))
                for a in known.kernel_args:
                    self.assertIn(a, arg, lane)
                if known.filter:
                    self.assertIn(f'kunit.filter_glob={known.filter}', arg)
                if known.attributes:
                    self.assertIn(f'kunit.filter={known.attributes}', arg)
                self.assertIn('kunit_shutdown=halt', arg)
                self.assertEqual(arg.count('"'), 2, lane)
                self.assertEqual(job['context']['arch'], 'arm64')
                device = lava.qemu_device(c)
                options = device['actions']['boot']['methods']['qemu'][
                    'parameters']['options']
                q = lava.load_qemu_config(known.qemu_config)
                memory = q.extra_qemu_params[
                    q.extra_qemu_params.index('-m') + 1]
                self.assertIn(f'-m {memory}', options, lane)
                self.assertIn('-serial stdio', options)
                monitor = job['actions'][2]['test']['monitors'][0]
                self.assertRegex('ok 3 a_test # SKIP no\r\r\n',
                                 monitor['pattern'])
                self.assertRegex('reboot: System halted\r\r\n',
                                 monitor['end'])
                json.loads(lava.dump(job))

    def test_a_board_job_and_the_cells_a_board_cannot_run(self) -> None:
        expected = manifest.load(project.MANIFEST)
        with tempfile.TemporaryDirectory() as tmp:
            tree = fake_tree(Path(tmp), 'patched')
            job = lava.board_job(lava.cell(tree, 'main', expected),
                                 'http://lab/Image.gz', 'http://lab/b.dtb',
                                 'juno-r2')
            self.assertEqual(job['actions'][0]['deploy']['to'], 'tftp')
            commands = job['actions'][1]['boot']['commands']
            self.assertIn("setenv bootargs 'console=ttyAMA0,115200 ",
                          commands[5])
            self.assertNotIn('console=ttyAMA0 ', commands[5])
            with self.assertRaisesRegex(SeriesError, 'second, CPU-less'):
                lava.board_job(lava.cell(tree, 'numa', expected), 'k', 'd',
                               'juno-r2')
            with self.assertRaisesRegex(SeriesError, 'no board template'):
                lava.board_job(lava.cell(tree, 'main', expected), 'k', 'd',
                               'no-such-board')

    def test_a_cell_without_a_kernel_is_refused(self) -> None:
        expected = manifest.load(project.MANIFEST)
        with tempfile.TemporaryDirectory() as tmp:
            c = lava.cell(fake_tree(Path(tmp), 'base'), 'main', expected)
            with self.assertRaisesRegex(SeriesError, 'no kernel'):
                lava.write_cell(c, Path(tmp) / 'out')


class LogTest(unittest.TestCase):
    def test_the_console_without_the_ptys_carriage_returns(self) -> None:
        records = lava.log_records(LOG)
        self.assertEqual(len(records), 8)
        self.assertEqual(lava.console(records),
                         'KTAP version 1\n1..1\n    # Subtest: s\n'
                         '    ok 1 a_test # SKIP needs \x1b[1mX\x1b[0m\n'
                         'ok 1 s\n')
        self.assertEqual(lava.job_result(records), ('pass', ''))
        self.assertEqual(lava.monitor_results(records),
                         {'kunit-main.a_test': 'pass'})

    def test_yaml_escapes_become_json(self) -> None:
        self.assertEqual(json.loads(lava._yaml_string_to_json(
            '{"msg": "a\\x41\\eb\\U0001F600"}'))['msg'], 'aA\x1bb\U0001F600')

    def test_a_failed_job_or_a_console_without_ktap_is_refused(self) -> None:
        with tempfile.TemporaryDirectory() as tmp:
            run = Path(tmp) / 'patched-main' / 'run'
            run.mkdir(parents=True)
            (run / 'job.log').write_text(LOG.replace(
                '"result": "pass"}}', '"result": "fail", "error_msg": '
                '"wait for prompt timed out"}}'))
            with self.assertRaisesRegex(SeriesError,
                                        'job failed: wait for prompt'):
                lava.results_dir(fake_tree(Path(tmp), 'patched'), run, 'x')
            (run / 'job.log').write_text(
                '{"dt": "x", "lvl": "results", "msg": {"case": "job", '
                '"definition": "lava", "result": "pass"}}\n')
            with self.assertRaisesRegex(SeriesError, 'no KTAP'):
                lava.results_dir(fake_tree(Path(tmp), 'patched'), run, 'x')
            (run / 'job.log').write_text('')
            with self.assertRaisesRegex(SeriesError, 'no job result'):
                lava.results_dir(fake_tree(Path(tmp), 'patched'), run, 'x')

    def test_a_job_that_does_not_finish_is_an_error(self) -> None:
        with tempfile.TemporaryDirectory() as tmp:
            d = Path(tmp) / 'patched-main'
            d.mkdir()
            boom = mock.Mock(side_effect=subprocess.TimeoutExpired(
                'lava-run', 1, output=b'', stderr=b'half a log'))
            with mock.patch.object(lava.subprocess, 'run', boom), \
                    self.assertRaisesRegex(SeriesError, 'did not finish'):
                lava.lava_run(d, 1, timeout_s=1)
            self.assertEqual((d / 'run' / 'job.log').read_text(),
                             'half a log')

    def test_differences_name_each_cell(self) -> None:
        self.assertEqual(lava.differences({'a': 'pass', 'b': 'fail'},
                                          {'a': 'pass', 'b': 'fail:other',
                                           'c': 'skip'}),
                         ['b: LAVA fail, kunit.py fail:other',
                          'c: LAVA missing, kunit.py skip'])


class FakeLavacli:
    """lavacli as the tests' lab answers it."""

    def __init__(self, refuse: bool = False) -> None:
        self.calls: List[List[str]] = []
        self.refuse = refuse

    def __call__(self, cmd: List[str], **_: object
                 ) -> 'subprocess.CompletedProcess[str]':
        self.calls.append(cmd)
        verb = cmd[3:5]
        if verb == ['jobs', 'submit']:
            if self.refuse:
                return subprocess.CompletedProcess(
                    cmd, 1, '', 'Unable to submit: device type qemu is '
                    'not available')
            return subprocess.CompletedProcess(cmd, 0,
                                               f'{100 + len(self.calls)}\n',
                                               '')
        if verb == ['jobs', 'logs']:
            return subprocess.CompletedProcess(cmd, 0, LOG, '')
        return subprocess.CompletedProcess(cmd, 0, '', '')


class LabTest(unittest.TestCase):
    def test_submit_and_collect(self) -> None:
        lab = FakeLavacli()
        with tempfile.TemporaryDirectory() as tmp:
            out = Path(tmp)
            dirs = []
            for name in ('base-main', 'patched-main'):
                (out / name).mkdir()
                (out / name / 'job.yaml').write_text('{}')
                dirs.append(out / name)
            ids = lava.submit('mylab', dirs, out=out, runner=lab)
            self.assertEqual(ids, {'base-main': '101',
                                   'patched-main': '102'})
            self.assertEqual(lab.calls[0][:5], ['lavacli', '--identity',
                                                'mylab', 'jobs', 'submit'])
            runs = lava.collect('mylab', out=out, runner=lab)
            self.assertEqual(sorted(runs), ['base-main', 'patched-main'])
            self.assertEqual((runs['base-main'] / 'job.log').read_text(), LOG)
            self.assertIn(['lavacli', '--identity', 'mylab', 'jobs', 'wait',
                           '101'], lab.calls)

    def test_a_lab_that_refuses_a_job(self) -> None:
        with tempfile.TemporaryDirectory() as tmp:
            out = Path(tmp)
            (out / 'base-main').mkdir()
            with self.assertRaisesRegex(SeriesError, 'jobs submit: Unable '
                                        'to submit: device type qemu'):
                lava.submit('mylab', [out / 'base-main'], out=out,
                            runner=FakeLavacli(refuse=True))
            self.assertFalse((out / lava.SUBMITTED).exists())
            with self.assertRaisesRegex(SeriesError, 'nothing submitted'):
                lava.collect('mylab', out=out, runner=FakeLavacli())


if __name__ == '__main__':
    unittest.main()


class MutantBootTest(unittest.TestCase):
    def test_a_mutants_boot_as_a_job(self) -> None:
        import mutants
        m = mutants.Mutant('f12-x', 'main', ('arm64_lazy_mmu.*',),
                           Path('f12-x.patch'))
        with tempfile.TemporaryDirectory() as tmp:
            tree = fake_tree(Path(tmp), 'mutant')
            with mock.patch.object(mutants, 'build_lane') as build, \
                    mock.patch.object(lava, 'write_cell',
                                      return_value=Path(tmp)) as write, \
                    mock.patch.object(lava, 'lava_run',
                                      return_value=(Path(tmp), 1.0)), \
                    mock.patch.object(lava, 'results_dir',
                                      return_value=Path(tmp)) as results:
                self.assertEqual(mutants.lava_boot(tree, m, Path(tmp)),
                                 Path(tmp))
        build.assert_called_once()
        c = write.call_args[0][0]
        self.assertIn('kunit.filter_glob=arm64_lazy_mmu ', c.command_line)
        self.assertEqual(c.minutes, mutants.LAVA_MINUTES)
        self.assertTrue(results.call_args[1]['failed_job_counts'])

    def test_schema_mutants_are_jobs_of_one_kernel(self) -> None:
        # One artifact holds the schema kernel; each boot is a job of it
        # that differs in its mm_mutant= and its suite filter alone, and
        # the image is copied once, not per job.
        expected = manifest.load(project.MANIFEST)
        with tempfile.TemporaryDirectory() as tmp:
            tree = fake_tree(Path(tmp), 'schema')
            image = tree.path / kunit_run.build_dir_name('main') / \
                'arch/arm64/boot/Image.gz'
            image.parent.mkdir(parents=True)
            image.write_bytes(b'kernel')
            out = Path(tmp) / 'out'
            jobs = []
            for n, suite in ((7, 'arm64_lazy_mmu'), (9, 'vmalloc_pages')):
                c = lava.cell(tree, 'main', expected, suite, 5,
                              extra=(f'mm_mutant={n}',))
                d = lava.write_artifact(c, out)
                (d / 'marker').write_text('kept')
                jobs.append(json.loads(lava.write_job(
                    d, f'mutant-{n}', c).read_text()))
            self.assertEqual((d / 'marker').read_text(), 'kept')
            self.assertEqual(sorted(p.name for p in (d / 'jobs').iterdir()),
                             ['mutant-7.yaml', 'mutant-9.yaml'])
            images = [j['actions'][0]['deploy']['images']['kernel']
                      for j in jobs]
            self.assertEqual({i['url'] for i in images},
                             {f'file://{d.resolve()}/Image.gz'})
            self.assertIn('mm_mutant=7 ', images[0]['image_arg'])
            self.assertIn('kunit.filter_glob=arm64_lazy_mmu ',
                          images[0]['image_arg'])
            self.assertIn('mm_mutant=9 ', images[1]['image_arg'])
            image.write_bytes(b'another kernel')
            d = lava.write_artifact(c, out)
            self.assertFalse((d / 'marker').exists())
            self.assertEqual((d / 'Image.gz').read_bytes(), b'another kernel')

    def test_a_schema_boot_with_lava_is_a_job(self) -> None:
        import mutants
        from mutation import reach, schemata
        with tempfile.TemporaryDirectory() as tmp:
            tree = fake_tree(Path(tmp), 'schema')
            built = schemata.Built(tree, {}, 12, 1.0, 1)
            final = Path(tmp) / 'final'
            final.mkdir()
            (final / 'test.log').write_text('mm_mutant: mutant 5 of 12\n')
            with mock.patch.object(mutants, 'BOOT_WITH_LAVA', True), \
                    mock.patch.object(schemata, 'lava_boot',
                                      return_value=final) as boot, \
                    mock.patch.object(kunit_run, 'execute') as execute, \
                    mock.patch.object(kunit_run, 'outcomes_of',
                                      return_value=({'s.a': 'pass'}, {})), \
                    mock.patch.object(reach, 'parse',
                                      return_value=reach.Reach(mutant=5)):
                b = schemata.boot(built, Path(tmp), 'main', 5, 's', 'x')
        execute.assert_not_called()
        self.assertEqual(boot.call_args[0][1:4], ('main', 5, 's'))
        self.assertEqual(b.outcomes, {'s.a': 'pass'})
