#!/usr/bin/env python3
"""Writes a k-ary fat tree (.topo) and a permutation (.cm) in htsim's formats,
for `anatomy packet` and bench/htsim_compare.sh.

    bench/make_htsim_files.py --k 16 --gbps 400 --out /tmp/k16   # 1,024 hosts
    -> /tmp/k16.topo, /tmp/k16.cm

A k-ary fat tree has k pods of k/2 ToRs and k/2 aggregation switches and
(k/2)^2 cores: k^3/4 hosts. The permutation sends `--bytes` from every host
to a distinct other host, drawn by a seeded shuffle (no host sends to itself).
"""
import argparse
import random


def main():
    p = argparse.ArgumentParser()
    p.add_argument("--k", type=int, required=True, help="switch radix (even)")
    p.add_argument("--gbps", type=int, default=400)
    p.add_argument("--link-ns", type=int, default=25, help="one-way cable latency per tier")
    p.add_argument("--switch-ns", type=int, default=600, help="forwarding delay per switch")
    p.add_argument("--bytes", type=int, default=2_000_000)
    p.add_argument("--seed", type=int, default=13)
    p.add_argument("--out", required=True, help="path prefix of the two files")
    a = p.parse_args()
    k, half = a.k, a.k // 2
    hosts = k * k * k // 4
    tier = lambda n, down, up: (
        f"Tier {n}\nDownlink_speed_Gbps {a.gbps}\nRadix_Down {down}\n" + (f"Radix_Up {up}\n" if up else "") +
        f"Downlink_Latency_ns {a.link_ns}\nSwitch_Latency_ns {a.switch_ns}\n")
    with open(a.out + ".topo", "w") as f:
        f.write(f"# k = {k} fat tree, {hosts} hosts at {a.gbps} Gb/s\nNodes {hosts}\nTiers 3\nPodsize {half * half}\n\n")
        f.write(tier(0, half, half) + "\n" + tier(1, half, half) + "\n" + tier(2, k, 0))
    rng = random.Random(a.seed)
    while True:
        perm = list(range(hosts))
        rng.shuffle(perm)
        if all(perm[i] != i for i in range(hosts)):
            break
    with open(a.out + ".cm", "w") as f:
        f.write(f"Nodes {hosts}\nConnections {hosts}\n")
        for i, d in enumerate(perm):
            f.write(f"{i}->{d} id {i + 1} start 0 size {a.bytes}\n")


if __name__ == "__main__":
    main()
