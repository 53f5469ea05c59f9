#!/usr/bin/env python3
"""Writes the sysfs/procfs snapshot folders the host tests replay.

Run from this folder: python3 make_snapshots.py. The facts behind each
machine are listed in README.md; the files are written by this script, trimmed
to the fields tfhost reads (see src/host/probe/*.cc)."""
import os
import shutil

HERE = os.path.dirname(os.path.abspath(__file__))


def w(root, path, text):
    p = os.path.join(root, path.lstrip('/'))
    os.makedirs(os.path.dirname(p), exist_ok=True)
    with open(p, 'w') as f:
        f.write(text if text.endswith('\n') or text == '' else text + '\n')


def link(root, path, target):
    p = os.path.join(root, path.lstrip('/'))
    os.makedirs(os.path.dirname(p), exist_ok=True)
    if os.path.lexists(p):
        os.remove(p)
    os.symlink(target, p)


def rel(frm, to):
    """Relative symlink target from sysfs path `frm` (a link) to `to`."""
    return os.path.relpath(to, os.path.dirname(frm))


def cpuinfo(vendor, model, sockets, cores, threads, flags):
    out = []
    n = 0
    for t in range(threads):
        for s in range(sockets):
            for c in range(cores):
                block = [f"processor\t: {n}", f"vendor_id\t: {vendor}", f"model name\t: {model}",
                         f"physical id\t: {s}", f"core id\t\t: {c}"]
                if n == 0:
                    block.append(f"flags\t\t: {flags}")
                out.append('\n'.join(block))
                n += 1
    return '\n\n'.join(out) + '\n'


def meminfo(total_kb, avail_kb, swap_kb):
    return (f"MemTotal:       {total_kb} kB\nMemFree:        {avail_kb - 1000} kB\nMemAvailable:   {avail_kb} kB\n"
            f"SwapTotal:      {swap_kb} kB\nSwapFree:       {swap_kb} kB\nHugePages_Total:       0\n"
            f"Hugepagesize:       2048 kB\n")


def limits(memlock, nofile):
    return ("Limit                     Soft Limit           Hard Limit           Units     \n"
            f"Max open files            {nofile:<21}{nofile:<21}files     \n"
            f"Max locked memory         {memlock:<21}{memlock:<21}bytes     \n")


def common(root, hostname, governor, thp, cpus):
    w(root, '/proc/sys/kernel/hostname', hostname)
    w(root, '/proc/sys/kernel/osrelease', '5.15.0-91-generic')
    w(root, '/proc/sys/vm/swappiness', '60')
    w(root, '/sys/kernel/mm/transparent_hugepage/enabled', thp)
    w(root, '/sys/kernel/mm/transparent_hugepage/defrag', 'always defer defer+madvise [madvise] never')
    w(root, '/sys/devices/system/cpu/online', f'0-{cpus - 1}')
    for i in range(min(cpus, 4)):  # governors of the first CPUs are enough
        w(root, f'/sys/devices/system/cpu/cpu{i}/cpufreq/scaling_governor', governor)
    w(root, '/proc/self/cgroup', '0::/\n')
    w(root, '/sys/fs/cgroup/cgroup.controllers', 'cpuset cpu io memory pids')


def net(root, name, pci_path, speed, ip=None, driver='mlx5_core', numa=0, mtu=1500, type_=1):
    base = f'/sys/class/net/{name}'
    w(root, base + '/address', '0c:42:a1:00:00:%02x' % (sum(name.encode()) % 256))
    w(root, base + '/operstate', 'up')
    w(root, base + '/speed', str(speed))
    w(root, base + '/mtu', str(mtu))
    w(root, base + '/type', str(type_))
    if pci_path:
        link(root, base + '/device', rel('/sys/class/net/x/device', pci_path))
        w(root, pci_path + '/numa_node', str(numa))
        link(root, pci_path + '/driver', rel(pci_path + '/driver', f'/sys/bus/pci/drivers/{driver}'))
        os.makedirs(os.path.join(root, f'sys/bus/pci/drivers/{driver}'), exist_ok=True)


def pci(root, path, vendor, cls, numa, cpulist):
    bus_id = os.path.basename(path)
    w(root, path + '/vendor', vendor)
    w(root, path + '/class', cls)
    w(root, path + '/numa_node', str(numa))
    w(root, path + '/local_cpulist', cpulist)
    link(root, f'/sys/bus/pci/devices/{bus_id}', rel(f'/sys/bus/pci/devices/{bus_id}', path))


def rdma(root, name, pci_path, link_layer, rate, netdev, gids, numa):
    base = f'/sys/class/infiniband/{name}'
    link(root, base + '/device', rel(base + '/device', pci_path))
    w(root, pci_path + '/numa_node', str(numa))
    if netdev:
        os.makedirs(os.path.join(root, (pci_path + '/net/' + netdev).lstrip('/')), exist_ok=True)
    p = base + '/ports/1'
    w(root, p + '/state', '4: ACTIVE')
    w(root, p + '/link_layer', link_layer)
    w(root, p + '/rate', rate)
    for i, (gid, typ) in enumerate(gids):
        w(root, f'{p}/gids/{i}', gid)
        w(root, f'{p}/gid_attrs/types/{i}', typ)
        if netdev:
            w(root, f'{p}/gid_attrs/ndevs/{i}', netdev)
    # An unused GID slot, as the kernel shows it (all zero, no type).
    w(root, f'{p}/gids/{len(gids)}', '0000:0000:0000:0000:0000:0000:0000:0000')


def block(root, name, rotational, size_sectors, model):
    w(root, f'/sys/block/{name}/queue/rotational', str(rotational))
    w(root, f'/sys/block/{name}/size', str(size_sectors))
    w(root, f'/sys/block/{name}/removable', '0')
    w(root, f'/sys/block/{name}/device/model', model)


def fresh(name):
    root = os.path.join(HERE, name)
    for sub in ('sys', 'proc'):
        shutil.rmtree(os.path.join(root, sub), ignore_errors=True)
    os.makedirs(root, exist_ok=True)
    return root


def dgx_a100():
    root = fresh('dgx_a100')
    common(root, 'dgx-a100-01', 'performance', 'always [madvise] never', 256)
    w(root, '/proc/cpuinfo', cpuinfo('AuthenticAMD', 'AMD EPYC 7742 64-Core Processor', 2, 64, 2,
                                     'fpu sse4_2 avx avx2 fma f16c sha_ni'))
    w(root, '/proc/meminfo', meminfo(1056462812, 1030000000, 0))
    w(root, '/proc/self/limits', limits('unlimited', 1048576))
    # NPS4: 8 NUMA nodes; GPUs sit on nodes 3, 1, 7, 5 (two per node).
    for node in range(8):
        first = node * 16
        w(root, f'/sys/devices/system/node/node{node}/cpulist', f'{first}-{first + 15},{first + 128}-{first + 143}')
        w(root, f'/sys/devices/system/node/node{node}/meminfo', f'Node {node} MemTotal:       132057852 kB')
    block(root, 'nvme0n1', 0, 7501476528, 'SAMSUNG MZWLJ3T8HBLS-00007')
    block(root, 'nvme1n1', 0, 7501476528, 'SAMSUNG MZWLJ3T8HBLS-00007')
    block(root, 'nvme2n1', 0, 3750748848, 'SAMSUNG MZ1LB1T9HALS-00007')
    block(root, 'md0', 0, 15002953056, '')
    w(root, '/proc/self/mounts', '/dev/nvme2n1p2 / ext4 rw,relatime 0 0\n'
      'proc /proc proc rw 0 0\n/dev/md0 /raid ext4 rw,relatime 0 0\n'
      '10.10.0.5:/datasets /mnt/datasets nfs4 rw,vers=4.1 0 0\ntmpfs /dev/shm tmpfs rw 0 0\n')
    w(root, 'statvfs.txt', '/ 1888745836544 1500000000000\n/raid 15362223603712 15000000000000\n'
      '/mnt/datasets 109951162777600 50000000000000\n/dev/shm 540908961792 540908961792')
    os.makedirs(os.path.join(root, 'mnt/datasets/imagenet'), exist_ok=True)
    os.makedirs(os.path.join(root, 'raid/cache'), exist_ok=True)
    # Compute NICs (ConnectX-6 HDR InfiniBand) and their NUMA nodes.
    nics = [('mlx5_0', '0000:0c:00.0', 3, 'ibp12s0'), ('mlx5_1', '0000:12:00.0', 3, 'ibp18s0'),
            ('mlx5_2', '0000:4b:00.0', 1, 'ibp75s0'), ('mlx5_3', '0000:54:00.0', 1, 'ibp84s0'),
            ('mlx5_6', '0000:8d:00.0', 7, 'ibp141s0'), ('mlx5_7', '0000:94:00.0', 7, 'ibp148s0'),
            ('mlx5_8', '0000:ba:00.0', 5, 'ibp186s0'), ('mlx5_9', '0000:cc:00.0', 5, 'ibp204s0')]
    for i, (name, bus, numa, netdev) in enumerate(nics):
        path = f'/sys/devices/pci0000:{bus[5:7]}/0000:{bus[5:7]}:01.1/{bus}'
        rdma(root, name, path, 'InfiniBand', '200 Gb/sec (4X HDR)', netdev,
             [('fe80:0000:0000:0000:0c42:a103:0065:%04x' % i, 'IB/RoCE v1')], numa)
        net(root, netdev, path, 200000, ip=None, numa=numa, mtu=4092, type_=32)
    net(root, 'enp225s0f0', '/sys/devices/pci0000:e0/0000:e0:03.1/0000:e1:00.0', 100000, numa=4)
    net(root, 'lo', None, -1, type_=772)
    w(root, '/sys/class/net/lo/operstate', 'unknown')
    w(root, '/proc/net/route', 'Iface\tDestination\tGateway \tFlags\tRefCnt\tUse\tMetric\tMask\t\tMTU\tWindow\tIRTT\n'
      'enp225s0f0\t00000000\t010A0A0A\t0003\t0\t0\t0\t00000000\t0\t0\t0\n'
      'enp225s0f0\t000A0A0A\t00000000\t0001\t0\t0\t0\t0000FFFF\t0\t0\t0\n')
    w(root, '/proc/net/fib_trie', 'Main:\n  +-- 0.0.0.0/0 3 0 5\n     |-- 0.0.0.0\n        /0 universe UNICAST\n'
      '     +-- 10.10.0.0/16 2 0 2\n        |-- 10.10.0.21\n           /32 host LOCAL\n'
      '  +-- 127.0.0.0/8 2 0 2\n     |-- 127.0.0.1\n        /32 host LOCAL\n')
    w(root, '/sys/class/dmi/id/sys_vendor', 'NVIDIA')
    w(root, '/sys/class/dmi/id/product_name', 'DGXA100')
    buses = ['07', '0F', '47', '4E', '87', '90', 'B7', 'BD']
    w(root, 'nvidia-smi-q.xml', smi_xml('535.104.05', '12.2', [
        {'bus': f'00000000:{b}:00.0', 'name': 'NVIDIA A100-SXM4-80GB', 'arch': 'Ampere',
         'uuid': 'GPU-5a6f1d2c-%04x-4c1e-9b7a-0c2e8d4f%04x' % (i, i), 'gen_max': 4, 'gen_cur': 4,
         'mem': '81920 MiB', 'power': '400.00 W'} for i, b in enumerate(buses)]))
    w(root, 'nvidia-smi-topo.txt', dgx_topo())
    w(root, '/sys/class/dmi/id/bios_vendor', 'American Megatrends International, LLC.')


def pcie_4gpu():
    root = fresh('pcie_4gpu')
    common(root, 'gpu-ws-07', 'powersave', '[always] madvise never', 64)
    w(root, '/sys/kernel/mm/transparent_hugepage/defrag', '[always] defer defer+madvise madvise never')
    w(root, '/proc/cpuinfo', cpuinfo('GenuineIntel', 'Intel(R) Xeon(R) Gold 6338 CPU @ 2.00GHz', 2, 16, 2,
                                     'fpu sse4_2 avx avx2 fma f16c avx512f avx512dq avx512cd avx512bw avx512vl '
                                     'avx512_vnni avx512ifma avx512vbmi'))
    w(root, '/proc/meminfo', meminfo(263856032, 250000000, 8388604))
    w(root, '/proc/self/limits', limits(65536, 1024))
    for node in range(2):
        first = node * 16
        w(root, f'/sys/devices/system/node/node{node}/cpulist', f'{first}-{first + 15},{first + 32}-{first + 47}')
        w(root, f'/sys/devices/system/node/node{node}/meminfo', f'Node {node} MemTotal:       131928016 kB')
    block(root, 'nvme0n1', 0, 3907029168, 'SAMSUNG MZQL21T9HCJR-00A07')
    block(root, 'sda', 1, 31251759104, 'ST16000NM001G-2K')
    w(root, '/proc/self/mounts', '/dev/nvme0n1p2 / ext4 rw 0 0\n/dev/sda1 /data xfs rw 0 0\n'
      'fileserver:/export/ds /mnt/ds nfs4 rw 0 0\n')
    w(root, 'statvfs.txt', '/ 1920383410176 1000000000000\n/data 16000900661248 9000000000000\n'
      '/mnt/ds 53687091200000 1000000000000')
    os.makedirs(os.path.join(root, 'data/tfrecords'), exist_ok=True)
    os.makedirs(os.path.join(root, 'mnt/ds/train'), exist_ok=True)
    # PCIe tree: GPU0 and GPU1 behind one PCIe switch on socket 0, GPU2 on
    # another root port of socket 0, GPU3 on socket 1; the RoCE NIC on socket 0.
    sw = '/sys/devices/pci0000:16/0000:16:02.0/0000:17:00.0'
    gpus = [sw + '/0000:18:00.0/0000:19:00.0', sw + '/0000:18:01.0/0000:1a:00.0',
            '/sys/devices/pci0000:50/0000:50:02.0/0000:51:00.0', '/sys/devices/pci0000:b0/0000:b0:02.0/0000:b1:00.0']
    for i, p in enumerate(gpus):
        pci(root, p, '0x10de', '0x030000', 0 if i < 3 else 1, '0-15,32-47' if i < 3 else '16-31,48-63')
    nic = '/sys/devices/pci0000:30/0000:30:02.0/0000:31:00.0'
    pci(root, nic, '0x15b3', '0x020000', 0, '0-15,32-47')
    rdma(root, 'mlx5_0', nic, 'Ethernet', '100 Gb/sec (4X EDR)', 'ens1f0np0',
         [('fe80:0000:0000:0000:0e42:a1ff:fe5c:3a10', 'IB/RoCE v1'),
          ('fe80:0000:0000:0000:0e42:a1ff:fe5c:3a10', 'RoCE v2'),
          ('0000:0000:0000:0000:0000:ffff:0a00:000b', 'IB/RoCE v1'),
          ('0000:0000:0000:0000:0000:ffff:0a00:000b', 'RoCE v2')], 0)
    net(root, 'ens1f0np0', nic, 100000, numa=0, mtu=9000)
    net(root, 'eno1', '/sys/devices/pci0000:00/0000:00:1c.0/0000:02:00.0', 1000, driver='igb', numa=0)
    net(root, 'docker0', None, -1)
    net(root, 'lo', None, -1, type_=772)
    w(root, '/proc/net/route', 'Iface\tDestination\tGateway \tFlags\tRefCnt\tUse\tMetric\tMask\t\tMTU\tWindow\tIRTT\n'
      'eno1\t00000000\t0101A8C0\t0003\t0\t0\t0\t00000000\t0\t0\t0\n'
      'eno1\t0001A8C0\t00000000\t0001\t0\t0\t0\t00FFFFFF\t0\t0\t0\n'
      'ens1f0np0\t0000000A\t00000000\t0001\t0\t0\t0\t00FFFFFF\t0\t0\t0\n'
      'docker0\t000011AC\t00000000\t0001\t0\t0\t0\t0000FFFF\t0\t0\t0\n')
    w(root, '/proc/net/fib_trie', 'Main:\n  +-- 0.0.0.0/0 3 0 5\n'
      '     |-- 10.0.0.11\n        /32 host LOCAL\n'
      '     |-- 172.17.0.1\n        /32 host LOCAL\n'
      '     |-- 192.168.1.17\n        /32 host LOCAL\n'
      '  +-- 127.0.0.0/8 2 0 2\n     |-- 127.0.0.1\n        /32 host LOCAL\n')
    w(root, '/sys/class/dmi/id/sys_vendor', 'Supermicro')
    w(root, '/sys/class/dmi/id/product_name', 'SYS-740GP-TNRT')
    w(root, '/sys/class/dmi/id/bios_vendor', 'American Megatrends International, LLC.')
    w(root, 'nvidia-smi-q.xml', smi_xml('470.82.01', '11.4', [
        {'bus': f'00000000:{b}:00.0', 'name': 'NVIDIA RTX A6000', 'arch': 'Ampere',
         'uuid': 'GPU-0b7e93a1-%04x-22d5-7c1f-3e9a51c0%04x' % (i, i), 'gen_max': 4, 'gen_cur': 1,
         'mem': '49140 MiB', 'power': '300.00 W', 'persistence': 'Disabled'}
        for i, b in enumerate(['19', '1A', '51', 'B1'])]))
    # A CUDA install with versions in the file names.
    for f in ('libcudart.so.11.0', 'libcudart.so.11.8.89', 'libcublas.so.11.11.3.6'):
        w(root, '/usr/local/cuda-11.8/lib64/' + f, '')
    for f in ('libcudnn.so.8', 'libcudnn.so.8.6.0', 'libnccl.so.2.15.5'):
        w(root, '/usr/lib/x86_64-linux-gnu/' + f, '')


def smi_xml(driver, cuda, gpus):
    """`nvidia-smi -q -x` trimmed to the elements tfhost reads."""
    out = ['<?xml version="1.0" ?>', '<!DOCTYPE nvidia_smi_log SYSTEM "nvsmi_device_v12.dtd">', '<nvidia_smi_log>',
           '\t<timestamp>Mon Nov 27 10:00:00 2023</timestamp>', f'\t<driver_version>{driver}</driver_version>',
           f'\t<cuda_version>{cuda}</cuda_version>', f'\t<attached_gpus>{len(gpus)}</attached_gpus>']
    for g in gpus:
        out.append(f"""\t<gpu id="{g['bus']}">
\t\t<product_name>{g['name']}</product_name>
\t\t<product_architecture>{g['arch']}</product_architecture>
\t\t<persistence_mode>{g.get('persistence', 'Enabled')}</persistence_mode>
\t\t<mig_mode>
\t\t\t<current_mig>{g.get('mig', 'Disabled')}</current_mig>
\t\t\t<pending_mig>{g.get('mig', 'Disabled')}</pending_mig>
\t\t</mig_mode>
\t\t<uuid>{g['uuid']}</uuid>
\t\t<pci>
\t\t\t<pci_bus_id>{g['bus']}</pci_bus_id>
\t\t\t<pci_gpu_link_info>
\t\t\t\t<pcie_gen>
\t\t\t\t\t<max_link_gen>{g['gen_max']}</max_link_gen>
\t\t\t\t\t<current_link_gen>{g['gen_cur']}</current_link_gen>
\t\t\t\t</pcie_gen>
\t\t\t\t<link_widths>
\t\t\t\t\t<max_link_width>16x</max_link_width>
\t\t\t\t\t<current_link_width>{g.get('width', '16x')}</current_link_width>
\t\t\t\t</link_widths>
\t\t\t</pci_gpu_link_info>
\t\t</pci>
\t\t<fb_memory_usage>
\t\t\t<total>{g['mem']}</total>
\t\t\t<used>0 MiB</used>
\t\t\t<free>{g['mem']}</free>
\t\t</fb_memory_usage>
\t\t<power_readings>
\t\t\t<power_limit>{g['power']}</power_limit>
\t\t</power_readings>
\t</gpu>""")
    out.append('</nvidia_smi_log>')
    return '\n'.join(out)


LEGEND = """
Legend:

  X    = Self
  SYS  = Connection traversing PCIe as well as the SMP interconnect between NUMA nodes (e.g., QPI/UPI)
  NODE = Connection traversing PCIe as well as the interconnect between PCIe Host Bridges within a NUMA node
  PHB  = Connection traversing PCIe as well as a PCIe Host Bridge (typically the CPU)
  PXB  = Connection traversing multiple PCIe bridges (without traversing the PCIe Host Bridge)
  PIX  = Connection traversing at most a single PCIe bridge
  NV#  = Connection traversing a bonded set of # NVLinks
"""


def dgx_topo():
    gpu_numa = [3, 3, 1, 1, 7, 7, 5, 5]
    cpus = {3: '48-63,176-191', 1: '16-31,144-159', 7: '112-127,240-255', 5: '80-95,208-223'}
    nic_numa = [3, 3, 1, 1, 7, 7, 5, 5]
    nics = ['mlx5_0', 'mlx5_1', 'mlx5_2', 'mlx5_3', 'mlx5_6', 'mlx5_7', 'mlx5_8', 'mlx5_9']
    labels = [f'GPU{i}' for i in range(8)] + nics
    rows = ['\t' + '\t'.join(labels) + '\tCPU Affinity\tNUMA Affinity']
    for i, li in enumerate(labels):
        cells = []
        for j, lj in enumerate(labels):
            if i == j:
                cells.append(' X ')
            elif i < 8 and j < 8:
                cells.append('NV12')
            else:
                a = gpu_numa[i] if i < 8 else nic_numa[i - 8]
                b = gpu_numa[j] if j < 8 else nic_numa[j - 8]
                cells.append('PXB' if a == b else 'SYS')
        tail = f'\t{cpus[gpu_numa[i]]}\t{gpu_numa[i]}' if i < 8 else '\t\t'
        rows.append(li + '\t' + '\t'.join(cells) + tail)
    return '\n'.join(rows) + '\n' + LEGEND


def capture_this_host(name):
    """Copies the files tfhost reads from the machine running this script
    (used once for cpu_only/, the CPU-only build machine)."""
    root = fresh(name)
    files = ['/proc/cpuinfo', '/proc/meminfo', '/proc/self/limits', '/proc/self/mounts', '/proc/self/cgroup',
             '/proc/1/cgroup', '/proc/sys/vm/swappiness', '/proc/sys/kernel/osrelease', '/proc/net/route',
             '/proc/net/fib_trie', '/sys/kernel/mm/transparent_hugepage/enabled',
             '/sys/kernel/mm/transparent_hugepage/defrag', '/sys/devices/system/cpu/online',
             '/sys/class/dmi/id/sys_vendor', '/sys/class/dmi/id/product_name', '/sys/class/dmi/id/bios_vendor',
             '/sys/fs/cgroup/cgroup.controllers', '/sys/fs/cgroup/memory.max', '/sys/fs/cgroup/cpu.max']
    for d in sorted(os.listdir('/sys/block')):
        if d.startswith(('loop', 'zram', 'ram')):
            continue
        for f in ('queue/rotational', 'size', 'removable', 'device/model'):
            files.append(f'/sys/block/{d}/{f}')
    for d in sorted(os.listdir('/sys/devices/system/node')) if os.path.isdir('/sys/devices/system/node') else []:
        if d.startswith('node') and d[4:].isdigit():
            files += [f'/sys/devices/system/node/{d}/cpulist', f'/sys/devices/system/node/{d}/meminfo']
    for d in sorted(os.listdir('/sys/devices/system/cpu')):
        if d.startswith('cpu') and d[3:].isdigit():
            files += [f'/sys/devices/system/cpu/{d}/topology/physical_package_id',
                      f'/sys/devices/system/cpu/{d}/topology/core_id']
    for n in sorted(os.listdir('/sys/class/net')):
        for f in ('address', 'operstate', 'speed', 'mtu', 'type'):
            files.append(f'/sys/class/net/{n}/{f}')
    for f in files:
        try:
            with open(f) as src:
                text = src.read()
        except OSError:
            continue
        if f == '/proc/self/mounts':  # keep the machine's own filesystems, not the sandbox's bind mounts
            text = ''.join(l for l in text.splitlines(True) if ' /work' not in l and ' /tmp' not in l and ' /mnt/' not in l)
        w(root, f, text)
    w(root, '/proc/sys/kernel/hostname', 'cpu-build-01')
    st = os.statvfs('/')
    w(root, 'statvfs.txt', f'/ {st.f_blocks * st.f_frsize} {st.f_bavail * st.f_frsize}')


def keep_empty_dirs(root):
    """git does not store empty folders; a .keep file holds the ones tests need."""
    for d, subdirs, files in os.walk(root):
        if not subdirs and not files:
            open(os.path.join(d, '.keep'), 'w').close()


if __name__ == '__main__':
    import sys
    if sys.argv[1:] == ['--capture-cpu-only']:
        capture_this_host('cpu_only')
    else:
        dgx_a100()
        pcie_4gpu()
    for name in ('dgx_a100', 'pcie_4gpu', 'cpu_only'):
        keep_empty_dirs(os.path.join(HERE, name))
