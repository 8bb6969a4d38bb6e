#!/usr/bin/env python3
"""Runs `anatomy run` on random training plans and reports every answer that is not one.

  python3 tools/random_plans.py build/anatomy --seed 7 --count 400

Each plan draws a model preset and a system preset (among every one `anatomy list` prints), a GPU count, TP, PP,
CP, EP (models with experts), interleaving, micro-batch, sequence, precision, recomputation and ZeRO stage at random, with memory_check: warn so that a plan
too big for its part is still simulated. A plan gets an answer when anatomy exits 0 with an iteration time and an
MFU between 0 and 100%, or exits 2 with one line naming the file, line and field it refuses; anything else (another
exit code, a timeout, a NaN, an MFU outside that range) is printed and makes this script exit 1. The scenario files
are written to a temporary folder, kept only with --keep.

The plan-matrix test (tests/app/plan_matrix_test.cc) runs the published kinds of plan on every build; this script is
for the combinations nobody publishes, before a release or after a change to the plan's validation.
"""
import argparse
import os
import random
import re
import subprocess
import sys
import tempfile

def presets(anatomy):
    """The system and model presets `anatomy list` prints, and which models route tokens to experts."""
    out = subprocess.run([anatomy, "list"], capture_output=True, text=True, check=True).stdout
    systems, models, moe, section = [], [], set(), None
    for line in out.splitlines():
        if not line.startswith(" "):
            section = line.split(" ")[0].rstrip(":")
            continue
        name = line.split()[0]
        if section == "systems":
            systems.append(name)
        elif section == "model":
            models.append(name)
            if "experts" in line:
                moe.add(name)
    return systems, models, moe


def plan(rng, systems, models, moe):
    model, system = rng.choice(models), rng.choice(systems)
    gpus = rng.choice([8, 16, 32, 64, 72, 128, 144, 256, 512, 1024])
    tp, pp, cp = rng.choice([1, 1, 2, 4, 8]), rng.choice([1, 1, 2, 4, 8]), rng.choice([1, 1, 2])
    while gpus % (tp * pp * cp):
        tp, pp, cp = max(1, tp // 2), max(1, pp // 2), 1
    par = [f"tp: {tp}", f"pp: {pp}", f"cp: {cp}", f"zero_stage: {rng.choice([1, 1, 2, 3])}"]
    if model in moe:
        ep = rng.choice([1, 2, 4, 8, 16, 32, 64])
        if ep > 1:
            par.append(f"ep: {ep}")
            if tp > 1:
                par.append(f"expert_tp: {rng.choice([0, 1])}")
    if pp > 1 and rng.random() < 0.5:
        par.append(f"virtual_stages: {rng.choice([2, 4])}")
    par.append(f"sequence_parallel: {'true' if tp > 1 else 'false'}")
    dp = gpus // (tp * pp * cp)
    mb = rng.choice([1, 1, 2])
    training = [f"seq_len: {rng.choice([2048, 4096, 8192])}", f"global_batch: {dp * mb * rng.choice([1, 2, 4, 8, 16])}",
                f"micro_batch: {mb}", f"precision: {rng.choice(['bf16', 'bf16', 'fp8', 'fp4'])}",
                f"recompute: {rng.choice(['none', 'selective', 'full'])}"]
    return (f"model: {model}\ncluster: {{system: {system}, gpus: {gpus}}}\nparallelism: {{{', '.join(par)}}}\n"
            f"training: {{{', '.join(training)}}}\ncompute: {{memory_check: warn}}\n")


def verdict(rc, out, err):
    """'' when anatomy gave an answer, else what is wrong with it."""
    if rc == 2:
        lines = [l for l in err.strip().splitlines() if l]
        return "" if len(lines) == 1 and re.match(r"anatomy: .+:\d+: \S", lines[0]) else "exit 2 without one clear error"
    if rc != 0:
        return f"exit {rc}"
    body = "\n".join(l for l in out.splitlines() if not l.startswith("#"))
    if re.search(r"\b(nan|inf)\b", body, re.I):
        return "a NaN or an infinity"
    it = re.search(r"^iteration time\s+\S+", body, re.M)
    mfu = re.search(r"^MFU\s+([\d.]+)%", body, re.M)
    if not it or not mfu:
        return "no iteration time or MFU"
    if not 0.0 < float(mfu.group(1)) < 100.0:
        return f"MFU {mfu.group(1)}%"
    return ""


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("anatomy", help="the anatomy binary")
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--count", type=int, default=100)
    ap.add_argument("--timeout", type=int, default=300, help="seconds one plan may take")
    ap.add_argument("--keep", action="store_true", help="keep the scenario files")
    args = ap.parse_args()
    systems, models, moe = presets(args.anatomy)
    rng = random.Random(args.seed)
    folder = tempfile.mkdtemp(prefix="anatomy-random-plans-")
    answered = refused = 0
    wrong = []
    for i in range(args.count):
        path = os.path.join(folder, f"plan{i}.yaml")
        with open(path, "w") as f:
            f.write(plan(rng, systems, models, moe))
        try:
            p = subprocess.run([args.anatomy, "run", path, "-q"], capture_output=True, text=True, timeout=args.timeout)
            why = verdict(p.returncode, p.stdout, p.stderr)
            refused += p.returncode == 2 and not why
            answered += p.returncode == 0 and not why
        except subprocess.TimeoutExpired:
            why = f"no answer in {args.timeout} s"
        if why:
            wrong.append(path)
            print(f"{path}: {why}", flush=True)
        elif not args.keep:
            os.remove(path)
    print(f"{args.count} plans: {answered} simulated, {refused} refused with one error naming file, line and field, "
          f"{len(wrong)} without an answer")
    if not args.keep and not wrong:
        os.rmdir(folder)
    sys.exit(1 if wrong else 0)


if __name__ == "__main__":
    main()
