#!/usr/bin/env python3
"""torch_reference.py: the PyTorch reference figures for zerokit's GPU goals.

Times, in PyTorch, the same network as configs/wyb.yaml and configs/wyb-gpu.yaml
(15x8x8 input, 3 residual blocks of 32 channels, dense policy head to 577
actions, value head 16 -> 64 -> 1; 210,186 parameters): forward positions/s
and training samples/s (soft-target cross-entropy + MSE, AdamW and SGD) at
the batch sizes zerokit's bench uses, on the device given.

    python3 scripts/torch_reference.py [--device cuda] [--seconds 5]

scripts/gpu-check.sh runs it beside "zerokit bench", so the two are
measured on the same machine.
"""
import argparse
import time

import torch
import torch.nn as nn
import torch.nn.functional as F


class Block(nn.Module):
    def __init__(self, c):
        super().__init__()
        self.c1 = nn.Conv2d(c, c, 3, padding=1, bias=False)
        self.b1 = nn.BatchNorm2d(c)
        self.c2 = nn.Conv2d(c, c, 3, padding=1, bias=False)
        self.b2 = nn.BatchNorm2d(c)

    def forward(self, x):
        y = F.relu(self.b1(self.c1(x)))
        return F.relu(self.b2(self.c2(y)) + x)


class Net(nn.Module):
    def __init__(self, planes=15, side=8, blocks=3, c=32, pc=4, vc=16, vh=64, actions=577):
        super().__init__()
        self.stem = nn.Sequential(nn.Conv2d(planes, c, 3, padding=1, bias=False), nn.BatchNorm2d(c), nn.ReLU())
        self.blocks = nn.Sequential(*[Block(c) for _ in range(blocks)])
        self.pol = nn.Sequential(nn.Conv2d(c, pc, 1, bias=False), nn.BatchNorm2d(pc), nn.ReLU(), nn.Flatten(),
                                 nn.Linear(pc * side * side, actions))
        self.val = nn.Sequential(nn.Conv2d(c, vc, 1, bias=False), nn.BatchNorm2d(vc), nn.ReLU())
        self.vfc = nn.Sequential(nn.Linear(vc, vh), nn.ReLU(), nn.Linear(vh, 1), nn.Tanh())

    def forward(self, x):
        t = self.blocks(self.stem(x))
        return self.pol(t), self.vfc(self.val(t).mean(dim=(2, 3)))


def timed(fn, seconds, sync):
    fn()
    sync()
    n, start = 0, time.perf_counter()
    while n == 0 or time.perf_counter() - start < seconds:
        fn()
        n += 1
    sync()
    return n, time.perf_counter() - start


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--device", default="cuda" if torch.cuda.is_available() else "cpu")
    ap.add_argument("--seconds", type=float, default=5)
    args = ap.parse_args()
    dev = torch.device(args.device)
    sync = torch.cuda.synchronize if dev.type == "cuda" else (lambda: None)
    torch.manual_seed(1)
    net = Net().to(dev)
    name = torch.cuda.get_device_name(dev) if dev.type == "cuda" else f"cpu, {torch.get_num_threads()} threads"
    print(f"pytorch {torch.__version__} on {name}: {sum(p.numel() for p in net.parameters())} parameters")
    net.eval()
    with torch.no_grad():
        for b in (1, 64, 1024, 4096):
            x = torch.randint(0, 2, (b, 15, 8, 8), device=dev).float()
            n, s = timed(lambda: net(x), args.seconds, sync)
            print(f"pytorch forward, batch {b:5d}: {n * b / s:12.0f} positions/s")
    net.train()
    for opt_name in ("adamw", "sgd"):
        for b in (256, 1024):
            opt = (torch.optim.AdamW(net.parameters(), lr=1e-3, weight_decay=1e-4) if opt_name == "adamw"
                   else torch.optim.SGD(net.parameters(), lr=1e-3, momentum=0.9))
            x = torch.randint(0, 2, (b, 15, 8, 8), device=dev).float()
            pi = torch.softmax(torch.randn(b, 577, device=dev), dim=1)
            z = torch.rand(b, 1, device=dev) * 2 - 1

            def step():
                logits, v = net(x)
                loss = -(pi * F.log_softmax(logits, dim=1)).sum(dim=1).mean() + F.mse_loss(v, z)
                opt.zero_grad(set_to_none=True)
                loss.backward()
                opt.step()
                loss.item()  # zerokit reads its losses back every step too

            n, s = timed(step, args.seconds, sync)
            print(f"pytorch training ({opt_name}), batch {b:5d}: {n * b / s:12.0f} samples/s")


if __name__ == "__main__":
    main()
