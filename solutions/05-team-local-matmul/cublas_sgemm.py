#!/usr/bin/env python3
"""The ceiling lesson 5's final matmul is measured against: cuBLAS SGEMM in
plain FP32 (TF32 off) through PyTorch, timed with CUDA events on the GPU the
lesson runs on. Prints one line per size; pass its GFLOP/s to
`lesson05 --n N --sgemm GFLOPS` to see each kernel's share of it.

    usage: python3 cublas_sgemm.py [N ...]      (default 4096)
"""
import sys

try:
    import torch
except ImportError:
    sys.exit("cublas_sgemm.py: needs PyTorch with CUDA (pip install torch)")


def main():
    if not torch.cuda.is_available():
        sys.exit("cublas_sgemm.py: PyTorch sees no CUDA GPU")
    try:
        sizes = [int(a) for a in sys.argv[1:]] or [4096]
    except ValueError:
        print("cublas_sgemm.py: error: sizes must be integers", file=sys.stderr)
        return 2
    torch.backends.cuda.matmul.allow_tf32 = False  # plain FP32 FMA, as the OpenMP kernels do
    for n in sizes:
        a = torch.rand(n, n, device="cuda", dtype=torch.float32)
        b = torch.rand(n, n, device="cuda", dtype=torch.float32)
        for _ in range(5):
            torch.mm(a, b)
        torch.cuda.synchronize()
        times = []
        for _ in range(20):
            start, end = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
            start.record()
            torch.mm(a, b)
            end.record()
            torch.cuda.synchronize()
            times.append(start.elapsed_time(end))
        ms = sorted(times)[len(times) // 2]
        print(f"cuBLAS SGEMM fp32 (tf32 off), {torch.cuda.get_device_name()}, n={n}: "
              f"{ms:.3f} ms, {2 * n**3 / ms / 1e6:.0f} GFLOP/s (torch {torch.__version__})", flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
