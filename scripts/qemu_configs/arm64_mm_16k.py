# SPDX-License-Identifier: GPL-2.0
"""kunit.py QEMU config for the series' suites: arm64, 16K pages.

kunit.py loads this file as if it lived in tools/testing/kunit/qemu_configs/,
hence the relative import. Compared with the stock arm64.py it gives the
guest 12 GiB and 2 vCPUs (-cpu max: 52-bit VA with LPA2), and reserves
the hugetlb pools the suites map, one per hugetlb size of the 16K granule
(HUGETLB_POOLS: 2M contpte, 32M pmd, 1G contpmd): four pages of the
sizes a case maps two of (the flush cases), so that a case may start
while the previous case's mm (and its pages) is still being torn down.
That is 4 GiB for the 1G pages; 4 GiB more than the 4K lane's 8 GiB
leave the contiguous allocator free aligned 1G ranges for the
gigantic-folio and entry cases (with 10 GiB, growing the 1G pool by two
found one).
"""
from ..qemu_config import QemuArchParams

HUGETLB_POOLS = ('hugepagesz=2M hugepages=8 '
                 'hugepagesz=32M hugepages=4 '
                 'hugepagesz=1G hugepages=4')

QEMU_ARCH = QemuArchParams(linux_arch='arm64',
                           kconfig='''
CONFIG_SERIAL_AMBA_PL011=y
CONFIG_SERIAL_AMBA_PL011_CONSOLE=y''',
                           qemu_arch='aarch64',
                           kernel_path='arch/arm64/boot/Image.gz',
                           kernel_command_line='console=ttyAMA0 ' + HUGETLB_POOLS,
                           extra_qemu_params=['-machine', 'virt',
                                              '-cpu', 'max,pauth-impdef=on',
                                              '-smp', '2', '-m', '12288'])
