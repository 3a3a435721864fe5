# SPDX-License-Identifier: GPL-2.0
"""kunit.py QEMU config for the series' suites: arm64, 4K pages.

kunit.py loads this file as if it lived in tools/testing/kunit/qemu_configs/,
hence the relative import. Compared with the stock arm64.py it gives the
guest 4 GiB and 2 vCPUs, and reserves the hugetlb pools the suites map:
two pages of each size, so that a case may start while the previous case's
mm (and its pages) is still being torn down.
"""
from ..qemu_config import QemuArchParams

HUGETLB_POOLS = ('hugepagesz=64K hugepages=16 '
                 'hugepagesz=2M hugepages=8 '
                 'hugepagesz=32M hugepages=4 '
                 'hugepagesz=1G hugepages=2')

QEMU_ARCH = QemuArchParams(linux_arch='arm64',
                           kconfig='''
CONFIG_SERIAL_AMBA_PL011=y
CONFIG_SERIAL_AMBA_PL011_CONSOLE=y''',
                           qemu_arch='aarch64',
                           kernel_path='arch/arm64/boot/Image.gz',
                           kernel_command_line='console=ttyAMA0 ' + HUGETLB_POOLS,
                           extra_qemu_params=['-machine', 'virt',
                                              '-cpu', 'max,pauth-impdef=on',
                                              '-smp', '2', '-m', '8192'])
