#!/usr/bin/env python3
"""Exports transformer networks as ONNX models with reference outputs, for `opsched-cli run --check`.

    export_transformers.py --out DIR [--models a,b,...] [--batch 1] [--full]
    export_transformers.py --out DIR --models a,b --batches 1,8 [--pytorch-ref cpu|cuda] [--full]

For each model, writes
    DIR/<name>/model.onnx
    DIR/<name>/test_data_set_K/input_I.pb    inputs (float32 activations or int64 token ids)
    DIR/<name>/test_data_set_K/output_0.pb   PyTorch's output for them in eval mode, computed in
                                             float64 (the exact answer for the float32 weights)
with K = 0 and 1: two different inputs, and DIR/<name>/test_data_set_mismatch with the inputs of set
1 and the output of set 0, which a check must refuse. The script refuses to write a model whose
two outputs do not differ by far more than the check's tolerance (an output that ignores its
input would let a wrong answer pass).

Models (seeded random weights, nothing downloaded):
  transformer_encoder  torch.nn.TransformerEncoder, 4 layers, d_model 256, 4 heads, GELU, seq 128
  bert_like            BERT-base width (768, 12 heads, 3072), token/position/segment embeddings, a
                       padding mask from the token ids, tanh pooler; 2 layers (12 with --full)
  gpt2_like            GPT-2 small width, causal mask, pre-norm, tanh-GELU, tied LM head; 2 layers
                       (12 with --full), vocabulary 8192 (50257 with --full)
  t5_like              T5-small width (512, 8 heads, 2048), RMS norm, relative position bias,
                       encoder-decoder with cross-attention; 2+2 layers (6+6 with --full)
  vit_b_16, convnext_tiny, swin_t   torchvision's, 224x224
With --batches (the GPU verification, tests/bench/gpu_verify.sh): one folder per batch,
DIR/<name>_b<batch>/ (same files), the weights DIR/<name>.pt (state_dict, loaded by
tests/bench/bench_pytorch_gpu.py so both sides run the same numbers) and DIR/manifest.json (each
export: folder, weights' fingerprint, PyTorch's own errors). With --pytorch-ref DEVICE also
DIR/<name>_b<batch>/pytorch_fp32/test_data_set_0/{input_I,output_0}.pb: PyTorch's float32 output on
DEVICE for set 0's inputs with TF32 off, and pytorch_tf32/ with TF32 on for convolutions and GEMMs
(CUDA only): the references opsched's `run --check` is held to at the same precision.
Opsets vary on purpose: LayerNormalization is a node from opset 17, a decomposed pattern before.
Exit 0 on success, 1 when an export fails, 2 for a usage error.
"""
import argparse
import inspect
import math
import os
import sys
import time

import numpy as np
import onnx
import torch
import torch.nn as nn
import torch.nn.functional as F
import torchvision
from onnx import numpy_helper

SEED = 2025
SEQ = 128
VOCAB = 8192


class EncoderOnly(nn.Module):
    """A stack of torch.nn.TransformerEncoderLayer, as a user writes it."""

    def __init__(self, d_model=256, heads=4, layers=4):
        super().__init__()
        layer = nn.TransformerEncoderLayer(d_model, heads, 4 * d_model, dropout=0.0, activation="gelu",
                                           batch_first=True)
        self.encoder = nn.TransformerEncoder(layer, layers, enable_nested_tensor=False) \
            if "enable_nested_tensor" in inspect.signature(nn.TransformerEncoder).parameters \
            else nn.TransformerEncoder(layer, layers)

    def forward(self, x):
        return self.encoder(x)


class Attention(nn.Module):
    def __init__(self, d, heads, bias=True):
        super().__init__()
        self.heads, self.dk = heads, d // heads
        self.q, self.k, self.v, self.o = (nn.Linear(d, d, bias=bias) for _ in range(4))

    def split(self, x):
        b, s, _ = x.shape
        return x.view(b, s, self.heads, self.dk).transpose(1, 2)

    def forward(self, x, kv=None, bias=None, scale=True):
        kv = x if kv is None else kv
        q, k, v = self.split(self.q(x)), self.split(self.k(kv)), self.split(self.v(kv))
        scores = q @ k.transpose(-1, -2)
        if scale:
            scores = scores / math.sqrt(self.dk)
        if bias is not None:
            scores = scores + bias
        p = scores.softmax(-1)
        b, _, s, _ = q.shape
        return self.o((p @ v).transpose(1, 2).reshape(b, s, -1))


class BertLayer(nn.Module):
    def __init__(self, d, heads, ff):
        super().__init__()
        self.attn = Attention(d, heads)
        self.ln1, self.ln2 = nn.LayerNorm(d, eps=1e-12), nn.LayerNorm(d, eps=1e-12)
        self.ff1, self.ff2 = nn.Linear(d, ff), nn.Linear(ff, d)

    def forward(self, x, bias):
        x = self.ln1(x + self.attn(x, bias=bias))
        return self.ln2(x + self.ff2(F.gelu(self.ff1(x))))


class BertLike(nn.Module):
    """BERT: embeddings, a padding mask computed from the token ids, post-norm layers, pooler."""

    def __init__(self, layers=2, d=768, heads=12, vocab=VOCAB, pad=0):
        super().__init__()
        self.pad = pad
        self.tok, self.pos, self.seg = nn.Embedding(vocab, d), nn.Embedding(512, d), nn.Embedding(2, d)
        self.ln = nn.LayerNorm(d, eps=1e-12)
        self.layers = nn.ModuleList(BertLayer(d, heads, 4 * d) for _ in range(layers))
        self.pool = nn.Linear(d, d)

    def forward(self, ids):
        s = ids.shape[1]
        pos = torch.arange(s, device=ids.device).unsqueeze(0)  # on the ids' device: the module runs on a GPU too
        x = self.ln(self.tok(ids) + self.pos(pos) + self.seg(torch.zeros_like(pos)))
        keep = ids != self.pad  # Equal, Not on the ids
        # float32 scalars: Python floats would make the exported Where float64 (ONNX Runtime refuses
        # to mix it with the float32 scores; PyTorch itself stays in float32)
        bias = torch.where(keep, torch.zeros((), device=ids.device),
                           torch.full((), -10000.0, device=ids.device))[:, None, None, :]
        for layer in self.layers:
            x = layer(x, bias)
        return torch.cat([x, torch.tanh(self.pool(x[:, :1]))], dim=1)


def gelu_tanh(x):
    return 0.5 * x * (1.0 + torch.tanh(math.sqrt(2.0 / math.pi) * (x + 0.044715 * torch.pow(x, 3.0))))


class Gpt2Layer(nn.Module):
    def __init__(self, d, heads):
        super().__init__()
        self.ln1, self.ln2 = nn.LayerNorm(d), nn.LayerNorm(d)
        self.attn = Attention(d, heads)
        self.ff1, self.ff2 = nn.Linear(d, 4 * d), nn.Linear(4 * d, d)

    def forward(self, x, mask):
        h = self.ln1(x)
        x = x + self.attn(h, bias=mask)
        return x + self.ff2(gelu_tanh(self.ff1(self.ln2(x))))


class Gpt2Like(nn.Module):
    """GPT-2: pre-norm decoder with a causal mask (a constant buffer), tanh GELU, tied LM head."""

    def __init__(self, layers=2, d=768, heads=12, vocab=VOCAB, seq=SEQ):
        super().__init__()
        self.tok, self.pos = nn.Embedding(vocab, d), nn.Embedding(1024, d)
        self.layers = nn.ModuleList(Gpt2Layer(d, heads) for _ in range(layers))
        self.ln = nn.LayerNorm(d)
        self.register_buffer("causal", torch.tril(torch.ones(seq, seq, dtype=torch.bool)))

    def forward(self, ids):
        s = ids.shape[1]
        x = self.tok(ids) + self.pos(torch.arange(s, device=ids.device).unsqueeze(0))
        mask = torch.where(self.causal[:s, :s], torch.zeros((), device=ids.device),
                           torch.full((), float("-inf"), device=ids.device))
        for layer in self.layers:
            x = layer(x, mask)
        return self.ln(x) @ self.tok.weight.t()


class RmsNorm(nn.Module):
    def __init__(self, d, eps=1e-6):
        super().__init__()
        self.weight, self.eps = nn.Parameter(torch.ones(d)), eps

    def forward(self, x):
        return self.weight * (x * torch.rsqrt(x.pow(2).mean(-1, keepdim=True) + self.eps))


def relative_buckets(q_len, k_len, bidirectional, buckets=32, max_distance=128, device=None):
    """T5's bucketed relative positions (a function of the sequence lengths only)."""
    rel = torch.arange(k_len, device=device)[None, :] - torch.arange(q_len, device=device)[:, None]
    out = torch.zeros_like(rel)
    if bidirectional:
        buckets //= 2
        out += (rel > 0).long() * buckets
        rel = rel.abs()
    else:
        rel = -torch.min(rel, torch.zeros_like(rel))
    exact = buckets // 2
    large = exact + (torch.log(rel.float().clamp(min=1) / exact) / math.log(max_distance / exact)
                     * (buckets - exact)).long()
    large = torch.min(large, torch.full_like(large, buckets - 1))
    return out + torch.where(rel < exact, rel, large)


class T5Block(nn.Module):
    def __init__(self, d, heads, ff, cross):
        super().__init__()
        self.n1, self.self_attn = RmsNorm(d), Attention(d, heads, bias=False)
        self.cross = cross
        if cross:
            self.n2, self.cross_attn = RmsNorm(d), Attention(d, heads, bias=False)
        self.n3, self.wi, self.wo = RmsNorm(d), nn.Linear(d, ff, bias=False), nn.Linear(ff, d, bias=False)

    def forward(self, x, bias, memory=None):
        x = x + self.self_attn(self.n1(x), bias=bias, scale=False)
        if self.cross:
            x = x + self.cross_attn(self.n2(x), kv=memory, scale=False)
        return x + self.wo(F.relu(self.wi(self.n3(x))))


class T5Like(nn.Module):
    """T5: shared embedding, relative position bias, RMS norm, encoder-decoder with cross-attention."""

    def __init__(self, enc=2, dec=2, d=512, heads=8, ff=2048, vocab=VOCAB, seq=SEQ):
        super().__init__()
        self.emb = nn.Embedding(vocab, d)
        self.enc_bias, self.dec_bias = nn.Embedding(32, heads), nn.Embedding(32, heads)
        self.encoder = nn.ModuleList(T5Block(d, heads, ff, False) for _ in range(enc))
        self.decoder = nn.ModuleList(T5Block(d, heads, ff, True) for _ in range(dec))
        self.enc_norm, self.dec_norm = RmsNorm(d), RmsNorm(d)
        self.head = nn.Linear(d, vocab, bias=False)
        self.register_buffer("causal", torch.tril(torch.ones(seq, seq, dtype=torch.bool)))

    def forward(self, src, tgt):
        s, t = src.shape[1], tgt.shape[1]
        dev = src.device  # everything made here on the inputs' device: the module runs on a GPU too
        enc_bias = self.enc_bias(relative_buckets(s, s, True, device=dev)).permute(2, 0, 1).unsqueeze(0)
        dec_bias = self.dec_bias(relative_buckets(t, t, False, device=dev)).permute(2, 0, 1).unsqueeze(0)
        dec_bias = dec_bias + torch.where(self.causal[:t, :t], torch.zeros((), device=dev),
                                          torch.full((), -1e9, device=dev))
        x = self.emb(src)
        for block in self.encoder:
            x = block(x, enc_bias)
        memory = self.enc_norm(x)
        y = self.emb(tgt)
        for block in self.decoder:
            y = block(y, dec_bias, memory)
        return self.head(self.dec_norm(y))


def torchvision_model(name):
    factory = getattr(torchvision.models, name)
    kwargs = {"weights": None} if "weights" in inspect.signature(factory).parameters else {"pretrained": False}
    return factory(**kwargs)


BATCH = 1


def token_ids(batch, vocab, generator, pad_tail=0):
    ids = torch.randint(1, vocab, (batch, SEQ), generator=generator)
    if pad_tail:
        ids[:, SEQ - pad_tail:] = 0  # padding the mask must hide
    return ids


# name -> (opset, builder(full) -> model, inputs(generator) -> tuple, input names)
def models(full):
    vocab = 50257 if full else VOCAB
    b = BATCH
    return {
        "transformer_encoder": (14, lambda: EncoderOnly(),
                                lambda g: (torch.randn(b, SEQ, 256, generator=g),), ["x"]),
        "bert_like": (17, lambda: BertLike(12 if full else 2, vocab=30522 if full else VOCAB),
                      lambda g: (token_ids(b, VOCAB, g, pad_tail=16),), ["input_ids"]),
        "gpt2_like": (13, lambda: Gpt2Like(12 if full else 2, vocab=vocab),
                      lambda g: (token_ids(b, VOCAB, g),), ["input_ids"]),
        "t5_like": (14, lambda: T5Like(6 if full else 2, 6 if full else 2, vocab=32128 if full else VOCAB),
                    lambda g: (token_ids(b, VOCAB, g), token_ids(b, VOCAB, g)), ["input_ids", "decoder_input_ids"]),
        "vit_b_16": (14, lambda: torchvision_model("vit_b_16"),
                     lambda g: (torch.randn(b, 3, 224, 224, generator=g),), ["input"]),
        "convnext_tiny": (13, lambda: torchvision_model("convnext_tiny"),
                          lambda g: (torch.randn(b, 3, 224, 224, generator=g),), ["input"]),
        "swin_t": (13, lambda: torchvision_model("swin_t"),
                   lambda g: (torch.randn(b, 3, 224, 224, generator=g),), ["input"]),
    }


def randomize(model, generator):
    """Weights with the scale a trained network has: LayerNorm affine parameters away from 1/0,
    embeddings of unit scale, so every layer's output depends on its input."""
    with torch.no_grad():
        for m in model.modules():
            if isinstance(m, (nn.LayerNorm, RmsNorm)) and getattr(m, "weight", None) is not None:
                m.weight.copy_(torch.rand(m.weight.shape, generator=generator) * 0.5 + 0.75)
                if getattr(m, "bias", None) is not None:
                    m.bias.copy_(torch.rand(m.bias.shape, generator=generator) * 0.2 - 0.1)
            elif isinstance(m, nn.Embedding):
                m.weight.copy_(torch.randn(m.weight.shape, generator=generator))
            elif isinstance(m, nn.Linear):
                if not m.weight.any():  # zero-initialised heads (ViT's classifier)
                    bound = 1.0 / math.sqrt(m.in_features)
                    m.weight.copy_((torch.rand(m.weight.shape, generator=generator) * 2 - 1) * bound)
                if m.bias is not None:
                    m.bias.copy_(torch.rand(m.bias.shape, generator=generator) * 0.2 - 0.1)
        for name, p in model.named_parameters():
            if name.endswith("layer_scale"):  # ConvNeXt's 1e-6 would hide every block's work
                p.copy_(torch.rand(p.shape, generator=generator) * 0.5 + 0.5)


def export_onnx(model, inputs, names, opset, path):
    kwargs = dict(opset_version=opset, input_names=names, output_names=["output"], do_constant_folding=True)
    if "dynamo" in inspect.signature(torch.onnx.export).parameters:
        kwargs["dynamo"] = False
    torch.onnx.export(model, inputs, path, **kwargs)
    onnx.checker.check_model(path)


def save_tensor(array, name, path):
    if array.dtype.kind in "iu":
        array = np.ascontiguousarray(array, dtype=np.int64)
    else:
        array = np.ascontiguousarray(array, dtype=np.float32)
    with open(path, "wb") as f:
        f.write(numpy_helper.from_array(array, name).SerializeToString())


def reference(model, inputs):
    """float64 outputs for float32 weights: the exact answer opsched's float32 error is measured against."""
    with torch.no_grad():
        m = model.double()
        out = m(*[x.double() if x.is_floating_point() else x for x in inputs])
        model.float()
    return out.numpy()


def fingerprint(model):
    """Parameter and buffer count, sum and sum of |x| in float64: the one fingerprint of weights
    (bench_pytorch_gpu.py compares exports with what it loads through it)."""
    n = total = total_abs = 0
    for _, t in sorted(model.state_dict().items()):
        if not t.is_floating_point():
            continue
        t = t.detach().double().cpu()
        n += t.numel()
        total += float(t.sum())
        total_abs += float(t.abs().sum())
    return {"values": n, "sum": total, "sum_abs": total_abs}


def set_tf32(on):
    conv = getattr(torch.backends.cudnn, "conv", None)
    matmul = torch.backends.cuda.matmul
    if conv is not None and hasattr(conv, "fp32_precision") and hasattr(matmul, "fp32_precision"):
        conv.fp32_precision = matmul.fp32_precision = "tf32" if on else "ieee"
    else:
        torch.backends.cudnn.allow_tf32 = on
        matmul.allow_tf32 = on


def scaled_error(got, want):
    return float(np.abs(got.astype(np.float64) - want).max() / max(np.abs(want).max(), 1e-30))


def pytorch_references(model, inputs, names, model_dir, device, entry, want):
    """PyTorch's own float32 outputs on DEVICE (TF32 off; on, too, on CUDA) for set 0's inputs."""
    dev = torch.device(device)
    m = model.to(dev)
    precisions = [("pytorch_fp32", False)] + ([("pytorch_tf32", True)] if dev.type == "cuda" else [])
    for folder, tf32 in precisions:
        if dev.type == "cuda":
            set_tf32(tf32)
        with torch.no_grad():
            y = m(*[x.to(dev) for x in inputs]).float().cpu().numpy()
        data_dir = os.path.join(model_dir, folder, "test_data_set_0")
        os.makedirs(data_dir, exist_ok=True)
        for i, (x, n) in enumerate(zip(inputs, names)):
            save_tensor(x.numpy(), n, os.path.join(data_dir, "input_%d.pb" % i))
        save_tensor(y, "output", os.path.join(data_dir, "output_0.pb"))
        entry[folder + "_scaled_error"] = scaled_error(y, want)
    if dev.type != "cuda":
        entry["pytorch_tf32_skipped"] = "TF32 needs a CUDA device"
    model.to("cpu")
    if dev.type == "cuda":
        set_tf32(False)


def export(name, spec, out_dir, folder=None, pytorch_ref=None, entry=None):
    opset, builder, make_inputs, names = spec
    torch.manual_seed(SEED)
    model = builder()
    randomize(model, torch.Generator().manual_seed(SEED + 1))
    model.eval()
    generator = torch.Generator().manual_seed(SEED + 2)
    sets = [make_inputs(generator), make_inputs(generator)]
    model_dir = os.path.join(out_dir, folder or name)
    os.makedirs(model_dir, exist_ok=True)
    export_onnx(model, sets[0], names, opset, os.path.join(model_dir, "model.onnx"))
    outputs = [reference(model, inputs) for inputs in sets]
    scale = max(np.abs(outputs[0]).max(), 1e-30)
    differ = np.abs(outputs[0] - outputs[1]).max() / scale
    # The check's tolerance is ~1e-3 relative; outputs of two inputs must differ far beyond it.
    if not differ > 0.05:
        raise RuntimeError("outputs for two inputs differ by only %.3g of max|y|: the output ignores its input" % differ)
    for k, (inputs, output) in [(0, (sets[0], outputs[0])), (1, (sets[1], outputs[1])),
                                ("mismatch", (sets[1], outputs[0]))]:
        data_dir = os.path.join(model_dir, "test_data_set_%s" % k)
        os.makedirs(data_dir, exist_ok=True)
        for i, (x, n) in enumerate(zip(inputs, names)):
            save_tensor(x.numpy(), n, os.path.join(data_dir, "input_%d.pb" % i))
        save_tensor(output, "output", os.path.join(data_dir, "output_0.pb"))
    if entry is not None:
        state = os.path.join(out_dir, name + ".pt")
        torch.save(model.state_dict(), state)
        entry.update(model=name, batch=BATCH, dir=model_dir, onnx=os.path.join(model_dir, "model.onnx"),
                     onnx_bytes=os.path.getsize(os.path.join(model_dir, "model.onnx")), state_dict=state,
                     fingerprint=fingerprint(model), opset=opset, input_names=names,
                     input_shapes=[list(x.shape) for x in sets[0]], inputs_differ=float(differ))
        if pytorch_ref:
            pytorch_references(model, sets[0], names, model_dir, pytorch_ref, entry, outputs[0])
    return differ


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out", required=True, help="folder to write <model>/model.onnx and test data into")
    parser.add_argument("--models", default=None, help="comma-separated (default: all)")
    parser.add_argument("--full", action="store_true", help="full depth and vocabulary (benchmarks)")
    parser.add_argument("--batch", type=int, default=1, help="batch size of the inputs and the export (default 1)")
    parser.add_argument("--batches", default=None,
                        help="comma-separated batch sizes: one folder <name>_b<batch> each, weights <name>.pt, "
                             "manifest.json")
    parser.add_argument("--pytorch-ref", default=None, metavar="DEVICE",
                        help="with --batches: PyTorch's float32 outputs on DEVICE (cpu, cuda) in pytorch_fp32/ "
                             "(TF32 off) and pytorch_tf32/ (TF32 on, CUDA only)")
    args = parser.parse_args()
    if args.batch < 1:
        parser.error("--batch must be at least 1")
    if args.batches is not None:
        try:
            batches = [int(b) for b in args.batches.split(",") if b]
        except ValueError:
            parser.error("--batches: expected comma-separated integers")
        if not batches or min(batches) < 1:
            parser.error("--batches: batch sizes must be positive")
    elif args.pytorch_ref:
        parser.error("--pytorch-ref needs --batches")
    global BATCH
    BATCH = args.batch
    specs = models(args.full)
    names = [n for n in (args.models or ",".join(specs)).split(",") if n]
    unknown = [n for n in names if n not in specs]
    if unknown or not names:
        parser.error("unknown model(s) %s; choose from %s" % (", ".join(unknown) or "(none)", ", ".join(specs)))
    torch.set_num_threads(max(1, os.cpu_count() or 1))
    print("export_transformers: torch %s, torchvision %s, onnx %s" % (torch.__version__, torchvision.__version__,
                                                                       onnx.__version__))
    if args.batches is not None:
        return export_batches(args, names, batches)
    for name in names:
        start = time.perf_counter()
        try:
            differ = export(name, specs[name], args.out)
        except Exception as e:  # report which model failed, then stop
            print("export_transformers: error: %s: %s" % (name, e), file=sys.stderr)
            return 1
        print("  %-20s %.1f s (two inputs' outputs differ by %.2g of max|y|)"
              % (name, time.perf_counter() - start, differ))
    return 0


def export_batches(args, names, batches):
    """--batches: DIR/<name>_b<batch>/ per batch, the weights, PyTorch's references, manifest.json.
    Goes on past a failed model (recorded in the manifest); exit 1 if any failed."""
    import json
    global BATCH
    os.makedirs(args.out, exist_ok=True)
    manifest_path = os.path.join(args.out, "manifest.json")
    doc = {"tool": "export_transformers", "torch": torch.__version__, "onnx": onnx.__version__, "full": args.full,
           "seq": SEQ, "pytorch_ref_device": args.pytorch_ref, "exports": [], "errors": []}
    if os.path.exists(manifest_path):  # add to an earlier export of other models
        try:
            with open(manifest_path) as f:
                doc["exports"] = [e for e in json.load(f).get("exports", []) if e["model"] not in names]
        except (OSError, ValueError):
            pass
    failed = False
    for name in names:
        for batch in batches:
            BATCH = batch
            start = time.perf_counter()
            entry = {"full": args.full}
            try:
                differ = export(name, models(args.full)[name], args.out, "%s_b%d" % (name, batch), args.pytorch_ref,
                                entry)
            except Exception as e:  # noqa: BLE001 - record it, go on with the next model
                print("export_transformers: error: %s batch %d: %s" % (name, batch, e), file=sys.stderr)
                doc["errors"].append({"model": name, "batch": batch, "error": "%s: %s" % (type(e).__name__, e)})
                failed = True
                break
            entry["seconds"] = round(time.perf_counter() - start, 2)
            doc["exports"].append(entry)
            refs = ", ".join("%s %.1e" % (k[len("pytorch_"):-len("_scaled_error")], v) for k, v in entry.items()
                             if k.startswith("pytorch_") and k.endswith("_scaled_error"))
            print("  %-14s batch %-3d %.1f s (inputs differ by %.2g of max|y|)%s"
                  % (name, batch, entry["seconds"], differ, "; PyTorch vs float64: " + refs if refs else ""))
            with open(manifest_path, "w") as f:
                json.dump(doc, f, indent=1)
    with open(manifest_path, "w") as f:
        json.dump(doc, f, indent=1)
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
