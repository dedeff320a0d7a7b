"""What this CPU's matrix units give PyTorch: TFLOPS of one 2048x512 @ 512x512 matmul in
bf16 and fp32, on one thread. Run it with each Python that has torch before choosing one
(and a dtype) for training; training/README.md has the figures.

    python3 training/bench_matmul.py
"""
import time

import torch

torch.set_num_threads(1)
a, b = torch.randn(2048, 512), torch.randn(512, 512)
for dtype in (torch.bfloat16, torch.float32):
    x, y = a.to(dtype), b.to(dtype)
    x @ y  # the first call picks and prepares the kernel
    n = 20
    start = time.time()
    for _ in range(n):
        x @ y
    seconds = (time.time() - start) / n
    print(f"torch {torch.__version__} {str(dtype).replace('torch.', '')}: {2 * 2048 * 512 * 512 / seconds / 1e12:.3f} TFLOPS")
