#!/usr/bin/env python3
"""Sweep NIC speed x plan from Python and plot the Pareto front of iteration
time against cost with matplotlib, notebook style.

Run from the checkout's root after a build (Debian's /usr/bin/python3, which
has python3-matplotlib and the module's pybind11):

    PYTHONPATH=build/python /usr/bin/python3 examples/sweep_pareto.py [store.sqlite] [out.png]

A second run skips the points already in the store.
"""
import sys

import matplotlib

matplotlib.use("Agg")  # no display needed
import matplotlib.pyplot as plt

import anatomy

store = sys.argv[1] if len(sys.argv) > 1 else "nic-plan.sqlite"
out = sys.argv[2] if len(sys.argv) > 2 else "nic-plan-pareto.png"

rows = anatomy.sweep("examples/sweep-nic-plan.yaml", store=store)
ran = [r for r in rows if r["status"] == "ok"]
print(f"{len(rows)} points, {len(rows) - len(ran)} failed")

# The Pareto front: by cost, each point faster than every cheaper one.
front, best = [], float("inf")
for r in sorted(ran, key=lambda r: (r["dollars_per_iteration"], r["iteration_s"])):
    if r["iteration_s"] < best:
        front.append(r)
        best = r["iteration_s"]

fig, ax = plt.subplots(figsize=(8, 5))
speeds = sorted({r["cluster.fabric.nic_speed"] for r in ran}, key=lambda s: float(s.rstrip("Gbps")))
for speed in speeds:
    pts = [r for r in ran if r["cluster.fabric.nic_speed"] == speed]
    ax.scatter([r["dollars_per_iteration"] for r in pts], [r["iteration_s"] for r in pts], label=speed, s=24)
ax.plot([r["dollars_per_iteration"] for r in front], [r["iteration_s"] for r in front], "k--", lw=1,
        label="Pareto front")
for r in front:
    ax.annotate(f"TP{r['parallelism.tp']} PP{r['parallelism.pp']}", (r["dollars_per_iteration"], r["iteration_s"]),
                textcoords="offset points", xytext=(4, 4), fontsize=8)
ax.set_xlabel("dollars per iteration (assumed prices, see the sweep file)")
ax.set_ylabel("iteration time (s)")
ax.set_title("Llama 3 8B on 64 H100: NIC speed x plan")
ax.legend()
fig.tight_layout()
fig.savefig(out, dpi=120)
print(f"front: {len(front)} points; wrote {out}")
for r in front:
    print(f"  {r['cluster.fabric.nic_speed']:>8} TP{r['parallelism.tp']} PP{r['parallelism.pp']} DP{r['parallelism.dp']}"
          f"  {r['iteration_s']:.3f} s  ${r['dollars_per_iteration']:.4f}")
