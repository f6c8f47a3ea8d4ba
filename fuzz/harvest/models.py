"""Built-in models to harvest knapsack instances from: no downloads, built from a fixed seed.

Two kinds. The toy models (``TOY_MODELS``: an MLP, two transformer blocks, a small conv net) compile
in seconds and are deep enough that the min-cut partitioner bans several nodes from recomputation;
their widths differ from layer to layer so that the items' memories differ too. The real-size models
(``REAL_SIZE_MODELS``) have the depth and width of models people train, so the partitioner hands
its solver hundreds of items, many of them tiny next to the budget's quantization unit:

- ``gpt24``: 24 pre-norm transformer blocks of width 512 on 2 x 128 tokens;
- ``resnet50``: ResNet-50's bottleneck stages (3, 4, 6, 3 blocks) on two 128 x 128 images;
- ``bert``: a 12-layer post-norm encoder with token and position embeddings, padding masks and
  dropout (layer-norm and softmax statistics are most of its small items);
- ``moe``: 8 transformer blocks whose feed-forward is a top-2 mixture of 32 experts (the router's
  top-k values and indices join the normalization and softmax statistics).
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


class _Bottleneck(nn.Module):
    """ResNet's bottleneck block: 1x1, 3x3 (strided), 1x1 convolutions with batch norm, and a shortcut."""

    def __init__(self, channels_in: int, width: int, stride: int) -> None:
        super().__init__()
        channels_out = 4 * width
        self.body = nn.Sequential(
            nn.Conv2d(channels_in, width, 1, bias=False),
            nn.BatchNorm2d(width),
            nn.ReLU(),
            nn.Conv2d(width, width, 3, stride=stride, padding=1, bias=False),
            nn.BatchNorm2d(width),
            nn.ReLU(),
            nn.Conv2d(width, channels_out, 1, bias=False),
            nn.BatchNorm2d(channels_out),
        )
        self.shortcut: nn.Module = nn.Identity()
        if stride != 1 or channels_in != channels_out:
            self.shortcut = nn.Sequential(
                nn.Conv2d(channels_in, channels_out, 1, stride=stride, bias=False), nn.BatchNorm2d(channels_out)
            )

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return torch.relu(self.body(x) + self.shortcut(x))


class _EncoderLayer(nn.Module):
    """BERT's post-norm encoder layer: masked self-attention and a GELU feed-forward, with dropout."""

    def __init__(self, width: int, heads: int, dropout: float) -> None:
        super().__init__()
        self.heads = heads
        self.qkv = nn.Linear(width, 3 * width)
        self.out = nn.Linear(width, width)
        self.norm1 = nn.LayerNorm(width)
        self.norm2 = nn.LayerNorm(width)
        self.feed_forward = nn.Sequential(nn.Linear(width, 4 * width), nn.GELU(), nn.Linear(4 * width, width))
        self.dropout = nn.Dropout(dropout)

    def forward(self, x: torch.Tensor, padding: torch.Tensor) -> torch.Tensor:
        batch, tokens, width = x.shape
        head = width // self.heads
        q, k, v = self.qkv(x).view(batch, tokens, 3, self.heads, head).permute(2, 0, 3, 1, 4)
        scores = (q @ k.transpose(-1, -2) / math.sqrt(head)).masked_fill(padding, float("-inf"))
        attended = self.dropout(torch.softmax(scores, dim=-1)) @ v
        x = self.norm1(x + self.dropout(self.out(attended.transpose(1, 2).reshape(batch, tokens, width))))
        return self.norm2(x + self.dropout(self.feed_forward(x)))


class _Encoder(nn.Module):
    def __init__(self, vocabulary: int, tokens: int, width: int, heads: int, layers: int, dropout: float) -> None:
        super().__init__()
        self.embedding = nn.Embedding(vocabulary, width)
        self.position = nn.Embedding(tokens, width)
        self.norm = nn.LayerNorm(width)
        self.dropout = nn.Dropout(dropout)
        self.layers = nn.ModuleList(_EncoderLayer(width, heads, dropout) for _ in range(layers))
        self.classifier = nn.Linear(width, 2)

    def forward(self, ids: torch.Tensor, lengths: torch.Tensor) -> torch.Tensor:
        positions = torch.arange(ids.shape[1])
        padding = (positions[None, :] >= lengths[:, None])[:, None, None, :]
        x = self.dropout(self.norm(self.embedding(ids) + self.position(positions)))
        for layer in self.layers:
            x = layer(x, padding)
        return self.classifier(x[:, 0])


class _MixtureOfExperts(nn.Module):
    """Top-k routing over experts, computed densely (every expert sees every token, gates zero the rest)."""

    def __init__(self, width: int, experts: int, top: int) -> None:
        super().__init__()
        self.top = top
        self.router = nn.Linear(width, experts)
        self.up = nn.Parameter(torch.randn(experts, width, width) / math.sqrt(width))
        self.down = nn.Parameter(torch.randn(experts, width, width) / math.sqrt(width))

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        batch, tokens, width = x.shape
        flat = x.reshape(batch * tokens, width)
        weights, chosen = torch.topk(torch.softmax(self.router(flat), dim=-1), self.top, dim=-1)
        gates = flat.new_zeros(batch * tokens, self.up.shape[0])
        gates = gates.scatter(1, chosen, weights / weights.sum(-1, keepdim=True))
        hidden = torch.relu(torch.einsum("nw,ewh->enh", flat, self.up))
        out = torch.einsum("enh,ehw->enw", hidden, self.down)
        return torch.einsum("enw,ne->nw", out, gates).reshape(batch, tokens, width)


class _MixtureBlock(nn.Module):
    def __init__(self, width: int, heads: int, experts: int, top: int) -> None:
        super().__init__()
        self.norm1 = nn.LayerNorm(width)
        self.attention = _Attention(width, heads)
        self.norm2 = nn.LayerNorm(width)
        self.experts = _MixtureOfExperts(width, experts, top)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        x = x + self.attention(self.norm1(x))
        return x + self.experts(self.norm2(x))


def gpt24() -> tuple[nn.Module, tuple[torch.Tensor, ...]]:
    return nn.Sequential(*(TransformerBlock(512, 8) for _ in range(24))), (torch.randn(2, 128, 512),)


def resnet50() -> tuple[nn.Module, tuple[torch.Tensor, ...]]:
    layers: list[nn.Module] = [
        nn.Conv2d(3, 64, 7, stride=2, padding=3, bias=False),
        nn.BatchNorm2d(64),
        nn.ReLU(),
        nn.MaxPool2d(3, stride=2, padding=1),
    ]
    channels = 64
    for width, blocks, stride in ((64, 3, 1), (128, 4, 2), (256, 6, 2), (512, 3, 2)):
        for block in range(blocks):
            layers.append(_Bottleneck(channels, width, stride if block == 0 else 1))
            channels = 4 * width
    net = nn.Sequential(*layers, nn.AdaptiveAvgPool2d(1), nn.Flatten(), nn.Linear(channels, 1000))
    return net, (torch.randn(2, 3, 128, 128),)


def bert() -> tuple[nn.Module, tuple[torch.Tensor, ...]]:
    vocabulary, tokens, batch = 8000, 128, 4
    model = _Encoder(vocabulary, tokens, width=256, heads=4, layers=12, dropout=0.1)
    ids = torch.randint(0, vocabulary, (batch, tokens))
    lengths = torch.randint(tokens // 2, tokens + 1, (batch,))
    return model, (ids, lengths)


def moe() -> tuple[nn.Module, tuple[torch.Tensor, ...]]:
    return nn.Sequential(*(_MixtureBlock(256, 4, experts=32, top=2) for _ in range(8))), (torch.randn(4, 64, 256),)


Builder = Callable[[], tuple[nn.Module, tuple[torch.Tensor, ...]]]
TOY_MODELS: dict[str, Builder] = {"mlp": mlp, "transformer": transformer, "conv": conv}
REAL_SIZE_MODELS: dict[str, Builder] = {"gpt24": gpt24, "resnet50": resnet50, "bert": bert, "moe": moe}
MODELS: dict[str, Builder] = {**TOY_MODELS, **REAL_SIZE_MODELS}


def build(name: str) -> tuple[nn.Module, tuple[torch.Tensor, ...]]:
    """The model named ``name`` and its example input, the same weights and input on every call."""
    if name not in MODELS:
        raise ValueError(f"unknown model {name!r}; built-in models: {', '.join(MODELS)}")
    with torch.random.fork_rng(devices=[]):
        torch.manual_seed(SEED)
        return MODELS[name]()
