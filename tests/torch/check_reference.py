#!/usr/bin/python3
"""Checks the problems' C references against PyTorch's own modules.

Each reference in reference/<slug>.c is compiled as a shared library and
called through ctypes on random float32 inputs; PyTorch computes the same
thing in float64 with its stock building blocks:

  mha-cross         torch.nn.MultiheadAttention (bias=False, batch_first=True,
                    bool attn_mask where True = blocked), kdim = vdim = d_model
  mha-fused-qkv     the same module, w_qkv as in_proj_weight, causal bool mask
  mha-block-postln  the same module (weights stored (in, out), so transposed)
                    + residual + torch.nn.functional.layer_norm(eps=1e-5)
  gpt2-attention    HuggingFace GPT2Attention's formula with Conv1D weights
                    stored (in, out): addmm, split, view/transpose, masked
                    softmax, merge, addmm
  softmax-stable    torch.softmax(dim=-1)
  layernorm         torch.nn.functional.layer_norm(weight, bias, eps) for
                    several eps (1e-5, 1e-3, 1e-12, 0.5)
  split-merge-heads view(B, T, H, d).transpose(1, 2) and its inverse
  sdpa-single-head  torch.nn.functional._scaled_dot_product_attention
                    (torch 1.13's name; is_causal for the causal flag)
  kv-cache-decode   torch.cat of the cached keys/values with the new ones
                    (the caches, updated in place, compared as a whole),
                    then _scaled_dot_product_attention over slots 0..pos
  cross-attention-padding  torch.nn.MultiheadAttention with key_padding_mask
  gqa-rope          HuggingFace Llama's formula: rotate_half RoPE with
                    inv_freq = 1/10000^(2i/d), repeat_kv (repeat_interleave),
                    causal _scaled_dot_product_attention
  attention-memory-bounded  causal _scaled_dot_product_attention per head
  mha-backward      autograd through torch.nn.MultiheadAttention: x.grad,
                    in_proj_weight.grad (split in three), out_proj.weight.grad
  gpt2-block-preln  layer_norm + the GPT-2 attention above + residual +
                    layer_norm + addmm, gelu(approximate="tanh") where the
                    installed torch has it (its formula otherwise), addmm

Run with /usr/bin/python3 (needs torch, numpy and gcc). Prints one line per
check, "PASS <slug> <case> max_abs_err=..." or "FAIL ...", then
"N passed, N failed"; exits non-zero when anything failed.
"""

import ctypes
import math
import os
import subprocess
import sys
import tempfile

import numpy as np
import torch

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
REF_DIR = os.path.join(ROOT, "reference")

# The references accumulate in double and round once, so they should sit at
# float32 rounding distance from PyTorch's float64 result.
ATOL_REL_MAX = 1e-6   # times max |expected|
RTOL = 1e-6

F32P = ctypes.POINTER(ctypes.c_float)
U8P = ctypes.POINTER(ctypes.c_ubyte)


def compile_reference(slug, tmpdir):
    src = os.path.join(REF_DIR, slug + ".c")
    lib = os.path.join(tmpdir, slug + ".so")
    subprocess.run(["gcc", "-std=gnu11", "-shared", "-fPIC", "-O2", "-Wall",
                    "-Wextra", "-Werror", src, "-o", lib, "-lm"], check=True)
    return ctypes.CDLL(lib)


def f32(a):
    """A C-contiguous float32 copy and its pointer (keep the array alive)."""
    a = np.ascontiguousarray(a, dtype=np.float32)
    return a, a.ctypes.data_as(F32P)


def poisoned(shape):
    out = np.full(shape, np.nan, dtype=np.float32)
    return out, out.ctypes.data_as(F32P)


def t64(a):
    return torch.from_numpy(np.asarray(a, dtype=np.float64))


def mha_module(d_model, heads):
    m = torch.nn.MultiheadAttention(d_model, heads, bias=False, batch_first=True,
                                    dtype=torch.float64)
    # dropout is 0, so training mode computes the same function; it keeps
    # torch 1.13's inference fast path (which cannot handle bias=False
    # without a mask) out of the way.
    m.train()
    return m


# ---------------------------------------------------------------- the checks

def check_mha_cross(lib, rng, B, Tq, Tk, D, H, mask_kind, x_std=1.0):
    s = 1.0 / math.sqrt(D)
    query = (rng.standard_normal((B, Tq, D)) * x_std).astype(np.float32)
    key = (rng.standard_normal((B, Tk, D)) * x_std).astype(np.float32)
    value = rng.standard_normal((B, Tk, D)).astype(np.float32)
    w = [(rng.standard_normal((D, D)) * s).astype(np.float32) for _ in range(4)]
    if mask_kind == "none":
        mask = None
    else:
        mask = (rng.random((Tq, Tk)) < 0.4).astype(np.uint8)
        for i in range(Tq):           # never block a whole row
            if mask[i].all():
                mask[i, rng.integers(Tk)] = 0

    keep = [f32(a) for a in (query, key, value, *w)]
    mask_ptr = None if mask is None else np.ascontiguousarray(mask).ctypes.data_as(U8P)
    out, out_p = poisoned((B, Tq, D))
    lib.mha_cross(*[p for _, p in keep], mask_ptr, out_p, B, Tq, Tk, D, H)

    m = mha_module(D, H)
    with torch.no_grad():
        # w_* are stored (out, in) exactly like in_proj_weight's row blocks.
        m.in_proj_weight.copy_(t64(np.concatenate(w[:3], axis=0)))
        m.out_proj.weight.copy_(t64(w[3]))
        attn_mask = None if mask is None else torch.from_numpy(mask.astype(bool))
        exp, _ = m(t64(query), t64(key), t64(value), attn_mask=attn_mask,
                   need_weights=False)
    return out, exp.numpy()


def check_mha_fused_qkv(lib, rng, B, T, D, H, x_std=1.0):
    x = (rng.standard_normal((B, T, D)) * x_std).astype(np.float32)
    w_qkv = (rng.standard_normal((3 * D, D)) / math.sqrt(D)).astype(np.float32)
    w_o = (rng.standard_normal((D, D)) / math.sqrt(D)).astype(np.float32)
    keep = [f32(a) for a in (x, w_qkv, w_o)]
    out, out_p = poisoned((B, T, D))
    lib.mha_fused_qkv(*[p for _, p in keep], out_p, B, T, D, H)

    m = mha_module(D, H)
    with torch.no_grad():
        m.in_proj_weight.copy_(t64(w_qkv))       # already (3D, D) = (out, in)
        m.out_proj.weight.copy_(t64(w_o))
        causal = torch.ones(T, T, dtype=torch.bool).triu(1)   # True = blocked
        xt = t64(x)
        exp, _ = m(xt, xt, xt, attn_mask=causal, need_weights=False)
    return out, exp.numpy()


def check_mha_block(lib, rng, N, T, D, H, x_std=1.0):
    x = (rng.standard_normal((N, T, D)) * x_std).astype(np.float32)
    w = [(rng.standard_normal((D, D)) / math.sqrt(D)).astype(np.float32) for _ in range(4)]
    keep = [f32(a) for a in (x, *w)]
    out, out_p = poisoned((N, T, D))
    lib.mha_block(*[p for _, p in keep], out_p, N, T, D, H)

    m = mha_module(D, H)
    with torch.no_grad():
        # The problem stores weights (in, out); nn.Linear wants (out, in).
        m.in_proj_weight.copy_(t64(np.concatenate([wi.T for wi in w[:3]], axis=0)))
        m.out_proj.weight.copy_(t64(w[3].T))
        xt = t64(x)
        attn, _ = m(xt, xt, xt, need_weights=False)
        exp = torch.nn.functional.layer_norm(attn + xt, (D,), eps=1e-5)
    return out, exp.numpy()


def gpt2_attention_torch(hidden, c_attn_w, c_attn_b, c_proj_w, c_proj_b, n_head):
    """GPT-2's attention as HuggingFace's GPT2Attention computes it."""
    B, T, E = hidden.shape
    d_head = E // n_head
    # Conv1D: x @ weight + bias, weight stored (in, out).
    qkv = torch.addmm(c_attn_b, hidden.view(-1, E), c_attn_w).view(B, T, 3 * E)
    q, k, v = qkv.split(E, dim=2)

    def split_heads(t):
        return t.view(B, T, n_head, d_head).permute(0, 2, 1, 3)

    q, k, v = split_heads(q), split_heads(k), split_heads(v)
    w = torch.matmul(q, k.transpose(-1, -2)) / math.sqrt(d_head)
    causal = torch.ones(T, T, dtype=torch.bool).tril()       # True = may attend
    w = torch.where(causal, w, torch.tensor(torch.finfo(w.dtype).min, dtype=w.dtype))
    w = torch.softmax(w, dim=-1)
    a = torch.matmul(w, v).permute(0, 2, 1, 3).contiguous().view(B, T, E)
    return torch.addmm(c_proj_b, a.view(-1, E), c_proj_w).view(B, T, E)


def check_gpt2(lib, rng, B, T, E, H, x_std=1.0):
    s = 1.0 / math.sqrt(E)
    hidden = (rng.standard_normal((B, T, E)) * x_std).astype(np.float32)
    c_attn_w = (rng.standard_normal((E, 3 * E)) * s).astype(np.float32)
    c_attn_b = (rng.standard_normal(3 * E) * 0.1).astype(np.float32)
    c_proj_w = (rng.standard_normal((E, E)) * s).astype(np.float32)
    c_proj_b = (rng.standard_normal(E) * 0.1).astype(np.float32)
    arrays = (hidden, c_attn_w, c_attn_b, c_proj_w, c_proj_b)
    keep = [f32(a) for a in arrays]
    out, out_p = poisoned((B, T, E))
    lib.gpt2_attention(*[p for _, p in keep], out_p, B, T, E, H)
    with torch.no_grad():
        exp = gpt2_attention_torch(*[t64(a) for a in arrays], H)
    return out, exp.numpy()


def sdpa_torch(q, k, v, causal):
    """Scaled dot-product attention from PyTorch: the public function where
    it exists (torch >= 2.0), torch 1.13's private one otherwise."""
    f = getattr(torch.nn.functional, "scaled_dot_product_attention", None)
    if f is not None:
        return f(q, k, v, is_causal=bool(causal))
    return torch.nn.functional._scaled_dot_product_attention(q, k, v, None, 0.0, False,
                                                             bool(causal))[0]


def check_softmax_rows(lib, rng, rows, cols, x_std=1.0):
    x = (rng.standard_normal((rows, cols)) * x_std).astype(np.float32)
    keep = f32(x)
    out, out_p = poisoned((rows, cols))
    lib.softmax_rows(keep[1], out_p, rows, cols)
    return out, torch.softmax(t64(x), dim=-1).numpy()


def check_layernorm(lib, rng, rows, dim, x_mean=0.0, x_std=1.0, eps=1e-5):
    x = (rng.standard_normal((rows, dim)) * x_std + x_mean).astype(np.float32)
    gamma = (rng.standard_normal(dim) * 0.5 + 1.0).astype(np.float32)
    beta = (rng.standard_normal(dim) * 0.5).astype(np.float32)
    keep = [f32(a) for a in (x, gamma, beta)]
    out, out_p = poisoned((rows, dim))
    # eps is a C float passed by value: without argtypes ctypes would pass a
    # Python float as a double
    lib.layernorm.argtypes = [F32P, F32P, F32P, F32P, ctypes.c_int, ctypes.c_int, ctypes.c_float]
    lib.layernorm(*[p for _, p in keep], out_p, rows, dim, eps)
    # the function receives eps rounded to float, as the judge passes it
    exp = torch.nn.functional.layer_norm(t64(x), (dim,), t64(gamma), t64(beta),
                                         eps=float(np.float32(eps)))
    return out, exp.numpy()


def check_split_merge_heads(lib, rng, B, T, D, H):
    d = D // H
    x = rng.standard_normal((B, T, D)).astype(np.float32)
    heads = rng.standard_normal((B, H, T, d)).astype(np.float32)
    keep = [f32(a) for a in (x, heads)]
    split, split_p = poisoned((B, H, T, d))
    merged, merged_p = poisoned((B, T, D))
    lib.split_merge_heads(*[p for _, p in keep], split_p, merged_p, B, T, D, H)
    exp_split = t64(x).view(B, T, H, d).transpose(1, 2)
    exp_merged = t64(heads).transpose(1, 2).reshape(B, T, D)
    got = np.concatenate([split.ravel(), merged.ravel()])
    return got, np.concatenate([exp_split.numpy().ravel(), exp_merged.numpy().ravel()])


def check_sdpa(lib, rng, B, Tq, Tk, d_k, d_v, causal, x_std=1.0):
    q = (rng.standard_normal((B, Tq, d_k)) * x_std).astype(np.float32)
    k = (rng.standard_normal((B, Tk, d_k)) * x_std).astype(np.float32)
    v = rng.standard_normal((B, Tk, d_v)).astype(np.float32)
    keep = [f32(a) for a in (q, k, v)]
    out, out_p = poisoned((B, Tq, d_v))
    lib.sdpa(*[p for _, p in keep], out_p, B, Tq, Tk, d_k, d_v, causal)
    return out, sdpa_torch(t64(q), t64(k), t64(v), causal).numpy()


def check_kv_cache(lib, rng, B, H, max_T, d, pos):
    q, k_new, v_new = [rng.standard_normal((B, H, d)).astype(np.float32) for _ in range(3)]
    k_cache, v_cache = [rng.standard_normal((B, H, max_T, d)).astype(np.float32) for _ in range(2)]
    keep = [f32(a) for a in (q, k_new, v_new)]
    # the caches are updated in place: the function gets copies of the inputs
    k_io, k_io_p = f32(k_cache.copy())
    v_io, v_io_p = f32(v_cache.copy())
    out, out_p = poisoned((B, H, d))
    lib.kv_cache_decode(*[p for _, p in keep], k_io_p, v_io_p, out_p, B, H, max_T, d, pos)
    # the cache as a model keeps it: the past, the new token, the stale rest
    kc, vc = t64(k_cache), t64(v_cache)
    exp_k = torch.cat([kc[:, :, :pos], t64(k_new)[:, :, None], kc[:, :, pos + 1:]], dim=2)
    exp_v = torch.cat([vc[:, :, :pos], t64(v_new)[:, :, None], vc[:, :, pos + 1:]], dim=2)
    att = sdpa_torch(t64(q)[:, :, None], exp_k[:, :, :pos + 1], exp_v[:, :, :pos + 1], False)
    got = np.concatenate([k_io.ravel(), v_io.ravel(), out.ravel()])
    return got, np.concatenate([exp_k.numpy().ravel(), exp_v.numpy().ravel(),
                                att[:, :, 0].numpy().ravel()])


def check_cross_padding(lib, rng, B, Tq, Tk, D, H, p_pad=0.4):
    s = 1.0 / math.sqrt(D)
    query = rng.standard_normal((B, Tq, D)).astype(np.float32)
    memory = rng.standard_normal((B, Tk, D)).astype(np.float32)
    w = [(rng.standard_normal((D, D)) * s).astype(np.float32) for _ in range(4)]
    pad = (rng.random((B, Tk)) < p_pad).astype(np.uint8)
    for b in range(B):                # never pad every key of a batch element
        if pad[b].all():
            pad[b, rng.integers(Tk)] = 0
    keep = [f32(a) for a in (query, memory, *w)]
    out, out_p = poisoned((B, Tq, D))
    lib.cross_attention_padding(*[p for _, p in keep],
                                np.ascontiguousarray(pad).ctypes.data_as(U8P), out_p,
                                B, Tq, Tk, D, H)
    m = mha_module(D, H)
    with torch.no_grad():
        m.in_proj_weight.copy_(t64(np.concatenate(w[:3], axis=0)))
        m.out_proj.weight.copy_(t64(w[3]))
        mem = t64(memory)
        exp, _ = m(t64(query), mem, mem, key_padding_mask=torch.from_numpy(pad.astype(bool)),
                   need_weights=False)
    return out, exp.numpy()


def llama_gqa_torch(x, w_q, w_k, w_v, w_o, n_heads, n_kv_heads):
    """Causal GQA with RoPE as HuggingFace's LlamaAttention computes it."""
    B, T, D = x.shape
    d = D // n_heads
    q = (x @ w_q.T).view(B, T, n_heads, d).transpose(1, 2)
    k = (x @ w_k.T).view(B, T, n_kv_heads, d).transpose(1, 2)
    v = (x @ w_v.T).view(B, T, n_kv_heads, d).transpose(1, 2)
    inv_freq = 1.0 / (10000.0 ** (torch.arange(0, d, 2, dtype=torch.float64) / d))
    freqs = torch.outer(torch.arange(T, dtype=torch.float64), inv_freq)
    emb = torch.cat((freqs, freqs), dim=-1)
    cos, sin = emb.cos(), emb.sin()

    def rotate_half(u):
        return torch.cat((-u[..., d // 2:], u[..., :d // 2]), dim=-1)

    q = q * cos + rotate_half(q) * sin
    k = k * cos + rotate_half(k) * sin
    group = n_heads // n_kv_heads
    k = k.repeat_interleave(group, dim=1)
    v = v.repeat_interleave(group, dim=1)
    a = sdpa_torch(q, k, v, True)
    return a.transpose(1, 2).reshape(B, T, D) @ w_o.T


def check_gqa_rope(lib, rng, B, T, D, H, H_kv):
    s = 1.0 / math.sqrt(D)
    kv = H_kv * (D // H)
    x = rng.standard_normal((B, T, D)).astype(np.float32)
    w_q = (rng.standard_normal((D, D)) * s).astype(np.float32)
    w_k = (rng.standard_normal((kv, D)) * s).astype(np.float32)
    w_v = (rng.standard_normal((kv, D)) * s).astype(np.float32)
    w_o = (rng.standard_normal((D, D)) * s).astype(np.float32)
    arrays = (x, w_q, w_k, w_v, w_o)
    keep = [f32(a) for a in arrays]
    out, out_p = poisoned((B, T, D))
    lib.gqa_rope(*[p for _, p in keep], out_p, B, T, D, H, H_kv)
    with torch.no_grad():
        exp = llama_gqa_torch(*[t64(a) for a in arrays], H, H_kv)
    return out, exp.numpy()


def check_attention_long(lib, rng, H, T, d, x_std=1.0):
    q = (rng.standard_normal((H, T, d)) * x_std).astype(np.float32)
    k = (rng.standard_normal((H, T, d)) * x_std).astype(np.float32)
    v = rng.standard_normal((H, T, d)).astype(np.float32)
    keep = [f32(a) for a in (q, k, v)]
    out, out_p = poisoned((H, T, d))
    lib.causal_attention_long(*[p for _, p in keep], out_p, H, T, d)
    return out, sdpa_torch(t64(q), t64(k), t64(v), True).numpy()


def check_mha_backward(lib, rng, B, T, D, H, x_std=1.0, x_mean=0.0, qk_means=(0.0, 0.0)):
    s = 1.0 / math.sqrt(D)
    x = (rng.standard_normal((B, T, D)) * x_std + x_mean).astype(np.float32)
    w = [(rng.standard_normal((D, D)) * s).astype(np.float32) for _ in range(4)]
    # w_q and w_k around means: every score of a head far from zero, with
    # the sign of the means' product (the judge's single-token tests)
    for i, mean in enumerate(qk_means):
        if mean:
            w[i] = (rng.standard_normal((D, D)) * 0.05 * abs(mean) + mean).astype(np.float32)
    d_out = rng.standard_normal((B, T, D)).astype(np.float32)
    keep = [f32(a) for a in (x, *w, d_out)]
    grads = [poisoned((B, T, D))] + [poisoned((D, D)) for _ in range(4)]
    lib.mha_backward(*[p for _, p in keep], *[p for _, p in grads], B, T, D, H)

    m = mha_module(D, H)
    with torch.no_grad():
        m.in_proj_weight.copy_(t64(np.concatenate(w[:3], axis=0)))
        m.out_proj.weight.copy_(t64(w[3]))
    xt = t64(x).requires_grad_(True)
    out, _ = m(xt, xt, xt, need_weights=False)
    out.backward(t64(d_out))
    g_in = m.in_proj_weight.grad
    exp = [xt.grad, g_in[:D], g_in[D:2 * D], g_in[2 * D:], m.out_proj.weight.grad]
    # one tolerance per tensor (the judge compares each output on its own
    # scale), so the tensors are normalised by their largest element first;
    # an all-zero one (d_w_q and d_w_k when T = 1) must come out all zero
    scale = [np.abs(e.numpy()).max() or 1.0 for e in exp]
    got = np.concatenate([g.ravel() / m for (g, _), m in zip(grads, scale)])
    want = np.concatenate([e.numpy().ravel() / m for e, m in zip(exp, scale)])
    return got, want


def gelu_tanh_torch(u):
    try:
        return torch.nn.functional.gelu(u, approximate="tanh")
    except TypeError:                 # torch < 1.12 has no approximate=
        return 0.5 * u * (1.0 + torch.tanh(math.sqrt(2.0 / math.pi) * (u + 0.044715 * u ** 3)))


def check_gpt2_block(lib, rng, B, T, C, H, ln1_g_std=0.2):
    s, s4 = 1.0 / math.sqrt(C), 1.0 / math.sqrt(4 * C)

    def vec(n, mean=0.0, std=0.1):
        return (rng.standard_normal(n) * std + mean).astype(np.float32)

    x = rng.standard_normal((B, T, C)).astype(np.float32)
    arrays = [x, vec(C, 1.0, ln1_g_std), vec(C),
              (rng.standard_normal((C, 3 * C)) * s).astype(np.float32), vec(3 * C),
              (rng.standard_normal((C, C)) * s).astype(np.float32), vec(C),
              vec(C, 1.0, 0.2), vec(C),
              (rng.standard_normal((C, 4 * C)) * s).astype(np.float32), vec(4 * C),
              (rng.standard_normal((4 * C, C)) * s4).astype(np.float32), vec(C)]
    keep = [f32(a) for a in arrays]
    out, out_p = poisoned((B, T, C))
    lib.gpt2_block(*[p for _, p in keep], out_p, B, T, C, H)
    (xt, g1, b1, aw, ab, pw, pb, g2, b2, fw, fb, fpw, fpb) = [t64(a) for a in arrays]
    with torch.no_grad():
        ln = torch.nn.functional.layer_norm
        h = xt + gpt2_attention_torch(ln(xt, (C,), g1, b1, eps=1e-5), aw, ab, pw, pb, H)
        u = ln(h, (C,), g2, b2, eps=1e-5).view(-1, C)
        f = gelu_tanh_torch(torch.addmm(fb, u, fw))
        exp = h + torch.addmm(fpb, f, fpw).view(B, T, C)
    return out, exp.numpy()


CASES = [
    # (slug, case name, check function, arguments after (lib, rng))
    ("mha-cross", "tq7-tk5-masked", check_mha_cross, (2, 7, 5, 12, 3, "random")),
    ("mha-cross", "tq3-tk11-null-mask", check_mha_cross, (3, 3, 11, 8, 2, "none")),
    ("mha-cross", "square-masked", check_mha_cross, (1, 9, 9, 16, 4, "random")),
    ("mha-cross", "one-head", check_mha_cross, (2, 6, 4, 10, 1, "random")),
    ("mha-cross", "d-head-1", check_mha_cross, (2, 5, 8, 6, 6, "random")),
    ("mha-cross", "768-12-heads", check_mha_cross, (1, 8, 12, 768, 12, "random")),
    ("mha-cross", "single-key-x30", check_mha_cross, (8, 6, 1, 16, 4, "random", 30.0)),
    ("mha-cross", "long-x6", check_mha_cross, (4, 48, 96, 16, 2, "random", 6.0)),
    ("mha-fused-qkv", "small", check_mha_fused_qkv, (2, 5, 8, 2)),
    ("mha-fused-qkv", "odd", check_mha_fused_qkv, (3, 7, 15, 5)),
    ("mha-fused-qkv", "one-head", check_mha_fused_qkv, (1, 9, 12, 1)),
    ("mha-fused-qkv", "d-head-1", check_mha_fused_qkv, (2, 6, 4, 4)),
    ("mha-fused-qkv", "t-70", check_mha_fused_qkv, (1, 70, 16, 4)),
    ("mha-fused-qkv", "768-12-heads", check_mha_fused_qkv, (2, 8, 768, 12)),
    ("mha-fused-qkv", "single-token-x30", check_mha_fused_qkv, (16, 1, 16, 4, 30.0)),
    ("mha-fused-qkv", "long-x6", check_mha_fused_qkv, (8, 96, 16, 2, 6.0)),
    ("mha-block-postln", "small", check_mha_block, (2, 5, 8, 2)),
    ("mha-block-postln", "odd", check_mha_block, (3, 7, 15, 3)),
    ("mha-block-postln", "one-head", check_mha_block, (2, 4, 10, 1)),
    ("mha-block-postln", "d-head-1", check_mha_block, (1, 6, 6, 6)),
    ("mha-block-postln", "tiny-variance", check_mha_block, (2, 5, 12, 3, 1e-3)),
    ("mha-block-postln", "768-12-heads", check_mha_block, (1, 10, 768, 12)),
    ("mha-block-postln", "single-token-x30", check_mha_block, (16, 1, 16, 4, 30.0)),
    ("mha-block-postln", "long-x5.5", check_mha_block, (8, 96, 16, 2, 5.5)),
    ("gpt2-attention", "small", check_gpt2, (2, 5, 8, 2)),
    ("gpt2-attention", "odd", check_gpt2, (3, 9, 21, 7)),
    ("gpt2-attention", "one-head", check_gpt2, (2, 6, 10, 1)),
    ("gpt2-attention", "d-head-1", check_gpt2, (1, 7, 5, 5)),
    ("gpt2-attention", "large-magnitude", check_gpt2, (2, 12, 16, 2, 10.0)),
    ("gpt2-attention", "768-12-heads", check_gpt2, (1, 12, 768, 12)),
    ("gpt2-attention", "single-token-x30", check_gpt2, (16, 1, 16, 4, 30.0)),
    ("gpt2-attention", "long-x6", check_gpt2, (8, 96, 16, 2, 6.0)),
    ("softmax-stable", "small", check_softmax_rows, (3, 5)),
    ("softmax-stable", "single-column", check_softmax_rows, (7, 1, 300.0)),
    ("softmax-stable", "large", check_softmax_rows, (16, 40, 300.0)),
    ("softmax-stable", "long-rows", check_softmax_rows, (3, 5000, 4.0)),
    ("layernorm", "small", check_layernorm, (2, 5)),
    ("layernorm", "dim-1", check_layernorm, (4, 1)),
    ("layernorm", "tiny-variance", check_layernorm, (6, 16, 0.0, 0.002)),
    ("layernorm", "large-mean", check_layernorm, (8, 64, 50.0, 1.0)),
    ("layernorm", "768", check_layernorm, (4, 768)),
    ("layernorm", "eps-1e-3", check_layernorm, (2, 5, 0.0, 1.0, 1e-3)),
    ("layernorm", "eps-0.5-small-variance", check_layernorm, (8, 32, 0.0, 0.3, 0.5)),
    ("layernorm", "eps-0.5-tiny-variance", check_layernorm, (6, 20, -3.0, 0.01, 0.5)),
    ("layernorm", "eps-1e-12-tiny-variance", check_layernorm, (6, 24, 0.0, 0.002, 1e-12)),
    ("split-merge-heads", "small", check_split_merge_heads, (1, 3, 4, 2)),
    ("split-merge-heads", "odd", check_split_merge_heads, (3, 5, 15, 5)),
    ("split-merge-heads", "768-12-heads", check_split_merge_heads, (2, 9, 768, 12)),
    ("sdpa-single-head", "no-mask", check_sdpa, (3, 5, 7, 5, 3, 0)),
    ("sdpa-single-head", "causal", check_sdpa, (2, 9, 9, 6, 4, 1)),
    ("sdpa-single-head", "single-key", check_sdpa, (2, 4, 1, 8, 8, 0, 30.0)),
    ("sdpa-single-head", "causal-large", check_sdpa, (2, 96, 96, 16, 16, 1, 6.0)),
    ("kv-cache-decode", "small", check_kv_cache, (1, 2, 5, 4, 2)),
    ("kv-cache-decode", "first-token", check_kv_cache, (2, 3, 4, 8, 0)),
    ("kv-cache-decode", "cache-full", check_kv_cache, (2, 3, 7, 4, 6)),
    ("kv-cache-decode", "long", check_kv_cache, (1, 4, 512, 32, 400)),
    ("cross-attention-padding", "small", check_cross_padding, (2, 3, 5, 8, 2)),
    ("cross-attention-padding", "odd", check_cross_padding, (3, 7, 9, 15, 5)),
    ("cross-attention-padding", "dense-padding", check_cross_padding, (4, 5, 12, 8, 2, 0.85)),
    ("cross-attention-padding", "768-12-heads", check_cross_padding, (2, 12, 16, 768, 12)),
    ("gqa-rope", "tiny", check_gqa_rope, (1, 4, 8, 2, 1)),
    ("gqa-rope", "groups-of-3", check_gqa_rope, (3, 9, 36, 6, 2)),
    ("gqa-rope", "plain-mha", check_gqa_rope, (2, 6, 16, 4, 4)),
    ("gqa-rope", "long", check_gqa_rope, (1, 200, 32, 4, 2)),
    ("gqa-rope", "llama-like", check_gqa_rope, (1, 40, 256, 8, 2)),
    ("attention-memory-bounded", "small", check_attention_long, (2, 5, 4)),
    ("attention-memory-bounded", "odd", check_attention_long, (3, 37, 5)),
    ("attention-memory-bounded", "large", check_attention_long, (4, 96, 16, 6.0)),
    ("attention-memory-bounded", "long", check_attention_long, (1, 1500, 16)),
    ("mha-backward", "tiny", check_mha_backward, (1, 3, 4, 2)),
    ("mha-backward", "odd", check_mha_backward, (3, 5, 15, 5)),
    ("mha-backward", "one-head", check_mha_backward, (2, 6, 10, 1)),
    ("mha-backward", "peaked", check_mha_backward, (2, 24, 16, 2, 3.0)),
    ("mha-backward", "wide", check_mha_backward, (1, 16, 128, 4)),
    ("mha-backward", "single-token-far-below-zero", check_mha_backward,
     (4, 1, 8, 2, 1.0, 10.0, (1.0, -1.0))),
    ("mha-backward", "single-token-near-overflow", check_mha_backward,
     (12, 1, 8, 8, 0.5, 9.7, (0.125, 0.125))),
    ("gpt2-block-preln", "small", check_gpt2_block, (2, 5, 8, 2)),
    ("gpt2-block-preln", "odd", check_gpt2_block, (3, 7, 15, 5)),
    ("gpt2-block-preln", "large-ln1-gain", check_gpt2_block, (2, 24, 16, 2, 6.0)),
    ("gpt2-block-preln", "768-12-heads", check_gpt2_block, (1, 8, 768, 12)),
]


def main():
    torch.manual_seed(0)
    passed = failed = 0
    with tempfile.TemporaryDirectory(prefix="attnjudge-torch-") as tmp:
        libs = {}
        for slug in sorted({c[0] for c in CASES}):
            libs[slug] = compile_reference(slug, tmp)
        for i, (slug, name, fn, args) in enumerate(CASES):
            rng = np.random.default_rng(1000 + i)
            got, exp = fn(libs[slug], rng, *args)
            err = np.abs(got.astype(np.float64) - exp)
            bound = ATOL_REL_MAX * np.abs(exp).max() + RTOL * np.abs(exp)
            ok = bool(np.all(np.isfinite(got)) and np.all(err <= bound))
            max_err = float(np.nanmax(err)) if np.isfinite(err).any() else float("nan")
            print("%s %s %s max_abs_err=%.3g" % ("PASS" if ok else "FAIL", slug, name, max_err))
            if ok:
                passed += 1
            else:
                failed += 1
    print("%d passed, %d failed" % (passed, failed))
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
