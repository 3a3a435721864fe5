# SPDX-License-Identifier: GPL-2.0
"""kunit.py QEMU config for the series' suites: arm64, 64K pages.

kunit.py loads this file as if it lived in tools/testing/kunit/qemu_configs/,
hence the relative import. Compared with the stock arm64.py it gives the
guest 8 GiB and 2 vCPUs (-cpu max: 52-bit VA with LVA), and reserves the
hugetlb pools the suites map, of the 64K granule's sizes (HUGETLB_POOLS:
2M contpte, 512M pmd), four of the 512M pages (the flush cases map two
while the previous case's may still be torn down). The third size, the 16G
contpmd block, is not reserved: a guest that holds one needs more than
16 GiB of this 24 GiB, 2-core machine besides the builds, so the cases
of that size skip and say what they need.
"""
from ..qemu_config import QemuArchParams

HUGETLB_POOLS = ('hugepagesz=2M hugepages=8 '
                 'hugepagesz=512M hugepages=4')

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
