# SPDX-License-Identifier: GPL-2.0
"""kunit.py QEMU config for the series' suites: arm64, 4K pages.

kunit.py loads this file as if it lived in tools/testing/kunit/qemu_configs/,
hence the relative import. Compared with the stock arm64.py it gives the
guest 8 GiB and 2 vCPUs (-cpu max: 52-bit VA with LPA2), and reserves the
hugetlb pools the suites map, one per hugetlb size of the 4K granule
(HUGETLB_POOLS): at least two pages of each, so that a case may start
while the previous case's mm (and its pages) is still being torn down,
and 2 GiB for the two 1G pages.
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
