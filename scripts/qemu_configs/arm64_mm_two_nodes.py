# SPDX-License-Identifier: GPL-2.0
"""kunit.py QEMU config for the numa lane: arm64, 4K pages, two nodes.

As arm64_mm.py (the same hugetlb pools, 2 vCPUs, 8 GiB on the first
node), plus a second, CPU-less memory node of 512 MiB, so that a case can
ask vmalloc for the pages of a node that is not the one it runs on. The
lane boots the ptc lane's kernel, which has CONFIG_NUMA
(page_table_check.kunitconfig). kunit.py loads this file as if it lived
in tools/testing/kunit/qemu_configs/, hence the relative import.
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
                           extra_qemu_params=[
                               '-machine', 'virt',
                               '-cpu', 'max,pauth-impdef=on',
                               '-smp', '2', '-m', '8704',
                               '-object', 'memory-backend-ram,id=node0,size=8G',
                               '-object', 'memory-backend-ram,id=node1,size=512M',
                               '-numa', 'node,nodeid=0,cpus=0-1,memdev=node0',
                               '-numa', 'node,nodeid=1,memdev=node1'])
