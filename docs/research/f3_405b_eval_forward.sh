#!/bin/bash
# The 405B rows' validation steps against anatomy's forward (docs/research/f3-eval-forward.md, "The 405B rows").
# Run from the repository root after building: bash docs/research/f3_405b_eval_forward.sh
# Each line: file, micro-batches a pipeline, the measured validation step (s, median of the log's
# validation_step_time, docs/research/mlperf_eval_steps.py), and the overrides that give the evaluation's TP path.
run() { f=$1; m=$2; val=$3; extra=$4
out=$(./build/anatomy run -q validation/$f.yaml --set parallelism.overlap_param_gather_with_optimizer_step=false --set parallelism.overlap_param_gather=false $extra 2>&1)
fw=$(echo "$out" | grep "forward compute" | awk '{print ($4=="ms")?$3/1000:$3}')
tp=$(echo "$out" | grep "exposed TP" | awk '{print ($5=="ms")?$4/1000:$4}')
python3 -c "
m=$m; val=$val; fw=$fw/m*1e3; tp=$tp/m*1e3; v=val/m*1e3
print('%-42s m=%4d  val/mb %6.1f ms | anatomy fwd %5.1f + TP/2 %5.1f = %6.1f  (fwd+TP/2)/val %.2f  fwd/val %.2f' % ('$f', m, v, fw, tp/2, fw+tp/2, (fw+tp/2)/v, fw/v))"
}
U="--set parallelism.tp_comm_overlap=false"
run f6-mlperf50-llama31-405b-gb200-256 112 6.629 "$U"
run f6-mlperf50-llama31-405b-gb200-256 112 6.629 "$U --set parallelism.nccl_max_ctas.tp=0"
run f6-mlperf50-llama31-405b-gb200-512 112 6.451 "$U"
run f6-mlperf50-llama31-405b-gb200-1024 48 2.739 "$U"
run f6-mlperf50-llama31-405b-gb200-2496 32 1.851 "$U"
run f6-mlperf50-llama31-405b-h100-512 288 19.353 "$U"
run f6-mlperf50-llama31-405b-h100-512 288 19.353 "$U --set parallelism.nccl_max_ctas.tp=0"
run f6-mlperf50-llama31-405b-h100-2048 72 4.913 "$U"
run f6-mlperf50-llama31-405b-h100-8192 24 2.194 "$U"
run f3-mlperf51-llama31-405b-gb200-512-fp4 144 5.985 "$U"
run f3-mlperf51-llama31-405b-gb200-2560-fp4 24 1.087 "$U"
run f3-mlperf51-llama31-405b-gb300-512-fp4 72 4.415 "$U"
run f3-mlperf51-llama31-405b-b200-256 144 9.540 ""
run f3-mlperf51-llama31-405b-b200-448 144 9.696 ""
