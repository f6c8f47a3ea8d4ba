"""Small built-in models to harvest knapsack instances from: no downloads, seconds to compile on a CPU.

Each is built from a fixed seed with its example input, and is deep enough that the min-cut
partitioner bans several nodes from recomputation, so its knapsack has more than a couple of items.
Widths differ from layer to layer so that the items' memories differ too.
"""

from __future__ import annotations

import math
from typing import Callable

import torch
from torch import nn

SEED = 0


class _Attention(nn.Module):
    def __init__(self, width: int, heads: int) -> None:
        super().__init__()
        self.heads = heads
        self.qkv = nn.Linear(width, 3 * width)
        self.out = nn.Linear(width, width)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        batch, tokens, width = x.shape
        head = width // self.heads
        q, k, v = self.qkv(x).view(batch, tokens, 3, self.heads, head).permute(2, 0, 3, 1, 4)
        weights = torch.softmax(q @ k.transpose(-1, -2) / math.sqrt(head), dim=-1)
        return self.out((weights @ v).transpose(1, 2).reshape(batch, tokens, width))


class TransformerBlock(nn.Module):
    """Pre-norm self-attention and a GELU feed-forward, each with a residual connection."""

    def __init__(self, width: int = 64, heads: int = 4) -> None:
        super().__init__()
        self.norm1 = nn.LayerNorm(width)
        self.attention = _Attention(width, heads)
        self.norm2 = nn.LayerNorm(width)
        self.feed_forward = nn.Sequential(nn.Linear(width, 4 * width), nn.GELU(), nn.Linear(4 * width, width))

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        x = x + self.attention(self.norm1(x))
        return x + self.feed_forward(self.norm2(x))


def mlp() -> tuple[nn.Module, tuple[torch.Tensor, ...]]:
    widths = [48, 192, 96, 256, 128, 320, 64]
    activations = [nn.GELU, nn.Tanh, nn.SiLU, nn.ReLU, nn.Sigmoid, nn.Mish]
    layers: list[nn.Module] = []
    for i, (width_in, width_out) in enumerate(zip(widths, widths[1:])):
        layers += [nn.Linear(width_in, width_out), activations[i % len(activations)]()]
    return nn.Sequential(*layers, nn.Linear(widths[-1], 10)), (torch.randn(32, widths[0]),)


def transformer() -> tuple[nn.Module, tuple[torch.Tensor, ...]]:
    return nn.Sequential(TransformerBlock(), TransformerBlock()), (torch.randn(4, 32, 64),)


def conv() -> tuple[nn.Module, tuple[torch.Tensor, ...]]:
    def stage(channels_in: int, channels_out: int) -> list[nn.Module]:
        return [nn.Conv2d(channels_in, channels_out, 3, padding=1), nn.BatchNorm2d(channels_out), nn.SiLU()]

    net = nn.Sequential(
        *stage(3, 16),
        *stage(16, 24),
        nn.MaxPool2d(2),
        *stage(24, 32),
        *stage(32, 48),
        nn.MaxPool2d(2),
        *stage(48, 64),
        nn.AdaptiveAvgPool2d(1),
        nn.Flatten(),
        nn.Linear(64, 10),
    )
    return net, (torch.randn(4, 3, 32, 32),)


MODELS: dict[str, Callable[[], tuple[nn.Module, tuple[torch.Tensor, ...]]]] = {
    "mlp": mlp,
    "transformer": transformer,
    "conv": conv,
}


def build(name: str) -> tuple[nn.Module, tuple[torch.Tensor, ...]]:
    """The model named ``name`` and its example input, the same weights and input on every call."""
    if name not in MODELS:
        raise ValueError(f"unknown model {name!r}; built-in models: {', '.join(MODELS)}")
    with torch.random.fork_rng(devices=[]):
        torch.manual_seed(SEED)
        return MODELS[name]()
