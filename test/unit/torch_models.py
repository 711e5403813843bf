"""Small real torch.nn models for the PyTorch front end's tests (random weights, no downloads)."""

from __future__ import annotations

import torch
import torch.nn as nn
import torch.nn.functional as F


class MLP(nn.Module):
    def __init__(self, d_in=24, hidden=64, d_out=10):
        super().__init__()
        self.fc1 = nn.Linear(d_in, hidden)
        self.fc2 = nn.Linear(hidden, d_out)

    def forward(self, x):
        return self.fc2(F.gelu(self.fc1(x)).relu())


class BasicBlock(nn.Module):
    """ResNet's basic block: conv-bn-relu-conv-bn, plus the identity, relu."""

    def __init__(self, c=8):
        super().__init__()
        self.conv1 = nn.Conv2d(c, c, 3, padding=1, bias=False)
        self.bn1 = nn.BatchNorm2d(c)
        self.conv2 = nn.Conv2d(c, c, 3, padding=1, bias=False)
        self.bn2 = nn.BatchNorm2d(c)

    def forward(self, x):
        y = F.relu(self.bn1(self.conv1(x)))
        y = self.bn2(self.conv2(y))
        return F.relu(y + x)


class SmallCNN(nn.Module):
    def __init__(self, c=8, classes=5):
        super().__init__()
        self.conv1 = nn.Conv2d(3, c, 3, padding=1)
        self.bn1 = nn.BatchNorm2d(c)
        self.conv2 = nn.Conv2d(c, 2 * c, 3, padding=1)
        self.bn2 = nn.BatchNorm2d(2 * c)
        self.fc = nn.Linear(2 * c, classes)

    def forward(self, x):
        x = F.max_pool2d(F.relu(self.bn1(self.conv1(x))), 2)
        x = F.avg_pool2d(F.relu(self.bn2(self.conv2(x))), 2)
        x = F.adaptive_avg_pool2d(x, 1).flatten(1)
        return self.fc(x)


class GPTBlock(nn.Module):
    """Token + position embedding, then one pre-norm decoder block with a causal mask."""

    def __init__(self, vocab=50, d=32, heads=4, t=16):
        super().__init__()
        self.tok = nn.Embedding(vocab, d)
        self.pos = nn.Parameter(torch.randn(t, d) * 0.02)
        self.ln1 = nn.LayerNorm(d)
        self.qkv = nn.Linear(d, 3 * d)
        self.proj = nn.Linear(d, d)
        self.ln2 = nn.LayerNorm(d)
        self.fc = nn.Linear(d, 4 * d)
        self.out = nn.Linear(4 * d, d)
        self.heads = heads
        self.drop = nn.Dropout(0.1)
        self.register_buffer("mask", torch.tril(torch.ones(t, t, dtype=torch.bool)))

    def forward(self, ids):
        b, t = ids.shape
        x = self.tok(ids) + self.pos[:t]
        h = self.ln1(x)
        q, k, v = self.qkv(h).split(h.shape[-1], dim=-1)
        hd = h.shape[-1] // self.heads
        q, k, v = (y.view(b, t, self.heads, hd).transpose(1, 2) for y in (q, k, v))
        att = (q @ k.transpose(-2, -1)) * hd ** -0.5
        att = att.masked_fill(~self.mask[:t, :t], float("-inf"))
        att = self.drop(att.softmax(-1))
        y = (att @ v).transpose(1, 2).reshape(b, t, -1)
        x = x + self.drop(self.proj(y))
        return x + self.out(F.gelu(self.fc(self.ln2(x)), approximate="tanh"))


class RunningMaxFeatures(nn.Module):
    """A linear layer, the running max of its features (aten.cummax: no strata op), another
    layer: the graph splits around it (not in MODELS; the explain and error tests use it)."""

    def __init__(self, d=12):
        super().__init__()
        self.fc1 = nn.Linear(d, d)
        self.fc2 = nn.Linear(d, 3)

    def forward(self, x):
        h = torch.cummax(self.fc1(x), dim=-1).values
        return self.fc2(h.relu())


def encoder_layer(d=32, heads=4, ff=64):
    return nn.TransformerEncoderLayer(d, heads, ff, dropout=0.1, batch_first=True,
                                      activation="gelu")


def randomize_batch_norm(model):
    """Running statistics and affine weights away from the identity."""
    with torch.no_grad():
        for m in model.modules():
            if isinstance(m, nn.BatchNorm2d):
                m.running_mean.uniform_(-1, 1)
                m.running_var.uniform_(0.5, 2)
                m.weight.uniform_(0.5, 1.5)
                m.bias.uniform_(-0.5, 0.5)
    return model


# name -> (model factory, inputs factory)
MODELS = {
    "mlp": (MLP, lambda: (torch.randn(5, 24),)),
    "encoder_layer": (encoder_layer, lambda: (torch.randn(2, 7, 32),)),
    "resnet_block": (BasicBlock, lambda: (torch.randn(2, 8, 9, 9),)),
    "small_cnn": (SmallCNN, lambda: (torch.randn(2, 3, 16, 16),)),
    "gpt_block": (GPTBlock, lambda: (torch.randint(0, 50, (2, 16)),)),
}


def build(name, seed=0):
    """``(model in eval mode, inputs)`` for a model of MODELS, seeded."""
    torch.manual_seed(seed)
    make, inputs = MODELS[name]
    return randomize_batch_norm(make().eval()), inputs()
