#!/usr/bin/env python3
"""Median training and validation step times from MLPerf Training result logs.

NeMo's MLPerf callbacks log `train_step_time` (every LOG_EVERY_N_STEPS steps)
and `validation_step_time` (every evaluation step) as tracked_stats. A
validation step is the forward pass alone over the same per-GPU micro-batch
(eval_samples / steps per evaluation = the global batch), captured in the
same full-iteration CUDA graph as training (Megatron-Core
full_cuda_graph.py keeps a 'training' and a 'validation' graph), so it
times the forward on the GPU with no data-parallel communication.

  git -C REPO show HEAD:PATH | python3 mlperf_eval_steps.py -   # one log on stdin
  python3 mlperf_eval_steps.py result_0.txt result_1.txt       # files
"""
import json
import statistics
import sys


def steps(lines):
    train, val, gbs = [], [], None
    for line in lines:
        if ":::MLLOG" not in line:
            continue
        try:
            rec = json.loads(line[line.index("{"):])
        except ValueError:
            continue
        value = rec.get("value")
        if rec.get("key") == "global_batch_size":
            gbs = value
        if rec.get("key") != "tracked_stats" or not isinstance(value, dict):
            continue
        # The per-interval records carry the loss too; the block summary does not.
        if "train_step_time" in value and "reduced_train_loss" in value:
            train.append(value["train_step_time"])
        if "validation_step_time" in value:
            val.append(value["validation_step_time"])
    return gbs, train, val


def main(paths):
    for path in paths:
        stream = sys.stdin if path == "-" else open(path, encoding="utf-8")
        gbs, train, val = steps(stream)
        if not train or not val:
            print(f"{path}: no train_step_time or validation_step_time records")
            continue
        t, v = statistics.median(train), statistics.median(val)
        print(f"{path}: global batch {gbs}, train step {1e3 * t:.1f} ms (median of {len(train)}), "
              f"validation step {1e3 * v:.1f} ms (median of {len(val)}), ratio {t / v:.2f}")


if __name__ == "__main__":
    main(sys.argv[1:] or ["-"])
