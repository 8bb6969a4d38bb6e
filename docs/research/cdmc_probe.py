#!/usr/bin/env python3
"""What one hardware queue (CUDA_DEVICE_MAX_CONNECTIONS=1) holds back, measured.

anatomy's `parallelism.device_max_connections: 1` holds a step's compute back
for as long as any data-parallel collective runs beside it ("full"). A reading
of CUDA's in-order work queue gives a weaker rule ("one ahead"): a kernel on
another stream may start beside a running one, and the queue stalls only when
its head must wait for something unfinished, such as a second collective
behind the first on the communication stream. The published cases do not
tell the two apart (docs/research/one-queue-evidence.md). This probe does, on
one GPU, with a spin kernel standing in for a collective (an NCCL kernel also
holds a few CTAs and waits) and GEMMs for the compute:

  A  stream C: spin(T);           stream M, launched after it: GEMMs (G in all)
  B  stream C: spin(T), spin(T);  stream M: one GEMM (g) launched after the
     first spin, the others (G - g) after the second (host order C1, M1, C2, M2)

With T about G / 2 the three rules part:
  full:      A = T + G        B = max(T + g, 2T) + G - g   (M2 waits for C2 to end)
  one ahead: A = max(T, G)    B = max(T, g) + max(T, G - g)   (M2 waits behind C2, C2 behind C1)
  none:      A = max(T, G)    B = max(2T, G)

Run it twice on the device, in one short script:
  CUDA_DEVICE_MAX_CONNECTIONS=1 python3 docs/research/cdmc_probe.py
  CUDA_DEVICE_MAX_CONNECTIONS=8 python3 docs/research/cdmc_probe.py
It prints one JSON object: the measured times and which rule each case fits.
"""
import json
import os
import sys


def main() -> int:
    try:
        import torch
    except ImportError:
        print("cdmc_probe: PyTorch is not installed", file=sys.stderr)
        return 2
    if not torch.cuda.is_available():
        print("cdmc_probe: needs a CUDA GPU (this machine has none); run it on the device", file=sys.stderr)
        return 2

    dev = torch.device("cuda")
    comm, comp = torch.cuda.Stream(), torch.cuda.Stream()
    n = 4096
    a = torch.randn(n, n, device=dev, dtype=torch.bfloat16)
    b = torch.randn(n, n, device=dev, dtype=torch.bfloat16)

    def timed(fn) -> float:
        torch.cuda.synchronize()
        start, end = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
        start.record()
        comm.wait_event(start)
        comp.wait_event(start)
        fn()
        torch.cuda.current_stream().wait_stream(comm)
        torch.cuda.current_stream().wait_stream(comp)
        end.record()
        torch.cuda.synchronize()
        return start.elapsed_time(end)  # ms

    def gemms(k: int) -> None:
        with torch.cuda.stream(comp):
            for _ in range(k):
                torch.mm(a, b)

    def spin(cycles: int) -> None:
        with torch.cuda.stream(comm):
            torch.cuda._sleep(cycles)

    # Calibrate: GEMMs to about 20 ms in all, a spin to about 10 ms.
    for _ in range(3):
        timed(lambda: gemms(8))
    per_gemm = timed(lambda: gemms(20)) / 20
    k = max(4, int(round(20.0 / per_gemm)))
    cycles = 10_000_000
    per_cycle = timed(lambda: spin(cycles)) / cycles
    cycles = int(10.0 / per_cycle)

    G = min(timed(lambda: gemms(k)) for _ in range(3))
    g = min(timed(lambda: gemms(1)) for _ in range(3))
    T = min(timed(lambda: spin(cycles)) for _ in range(3))

    def case_a() -> None:
        spin(cycles)
        gemms(k)

    def case_b() -> None:
        spin(cycles)
        gemms(1)
        spin(cycles)
        gemms(k - 1)

    A = min(timed(case_a) for _ in range(3))
    B = min(timed(case_b) for _ in range(3))
    predicted = {
        "full": {"A": T + G, "B": max(T + g, 2 * T) + G - g},
        "one_ahead": {"A": max(T, G), "B": max(T, g) + max(T, G - g)},
        "none": {"A": max(T, G), "B": max(2 * T, G)},
    }

    def nearest(case: str, measured: float) -> str:
        return min(predicted, key=lambda rule: abs(predicted[rule][case] - measured))

    out = {
        "device": torch.cuda.get_device_name(0),
        "CUDA_DEVICE_MAX_CONNECTIONS": os.environ.get("CUDA_DEVICE_MAX_CONNECTIONS", "unset (8)"),
        "gemm_ms": G,
        "one_gemm_ms": g,
        "spin_ms": T,
        "A_ms": A,
        "B_ms": B,
        "predicted_ms": predicted,
        "A_fits": nearest("A", A),
        "B_fits": nearest("B", B),
    }
    print(json.dumps(out, indent=1))
    return 0


if __name__ == "__main__":
    sys.exit(main())
