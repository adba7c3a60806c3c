"""``nn.functional.multi_head_attention_forward`` against PyTorch's: values and gradients over
its configurations (packed and separate projections, masks, key/value biases, zero attention,
static keys and values, unbatched input, the causal hint, weights per head), and its errors."""

import numpy as np
import pytest

import tensorgrad as tg

CONFIGS = [
    {},
    {"need_weights": False},
    {"average_attn_weights": False},
    {"mask": "float"},
    {"mask": "bool", "need_weights": False},
    {"padding": True},
    {"padding": True, "mask": "bool"},
    {"bias_kv": True, "padding": True, "mask": "float"},
    {"zero_attn": True, "mask": "float", "padding": True},
    {"separate": True},
    {"static": True},
    {"unbatched": True},
    {"unbatched": True, "need_weights": False, "padding": True},
    {"causal": True, "need_weights": False},
    {"causal": True},
    {"mask3d": True},
]


def _arguments(module, cfg):
    rng = np.random.default_rng(0)
    L, S, N, E, H = 3, 4, 2, 4, 2

    def t(*shape, grad=True):
        x = module.tensor(rng.standard_normal(shape).astype(np.float32))
        return x.requires_grad_() if grad else x
    batch = () if cfg.get("unbatched") else (N,)
    q = t(L, *batch, E)
    k = t(S, *batch, E)
    v = t(S, *batch, E)
    kwargs = {"training": False, "need_weights": cfg.get("need_weights", True),
              "average_attn_weights": cfg.get("average_attn_weights", True)}
    in_w, in_b = t(3 * E, E), t(3 * E)
    if cfg.get("separate"):
        kwargs.update(use_separate_proj_weight=True, q_proj_weight=t(E, E), k_proj_weight=t(E, E),
                      v_proj_weight=t(E, E))
        in_w = None
    bias_k = t(1, 1, E) if cfg.get("bias_kv") else None
    bias_v = t(1, 1, E) if cfg.get("bias_kv") else None
    if cfg.get("mask") == "float":
        kwargs["attn_mask"] = t(L, S, grad=False)
    elif cfg.get("mask") == "bool":
        m = np.zeros((L, S), bool)
        m[0, 1] = m[2, 3] = True
        kwargs["attn_mask"] = module.tensor(m)
    if cfg.get("mask3d"):
        kwargs["attn_mask"] = t(N * H, L, S, grad=False)
    if cfg.get("padding"):
        m = np.zeros(batch + (S,), bool)
        m[..., 2] = True
        kwargs["key_padding_mask"] = module.tensor(m)
    if cfg.get("static"):
        kwargs["static_k"] = t(N * H, S, E // H)
        kwargs["static_v"] = t(N * H, S, E // H)
    if cfg.get("causal"):
        kwargs["attn_mask"] = module.nn.Transformer.generate_square_subsequent_mask(L) if L == S else \
            module.triu(module.full((L, S), float("-inf")), 1)
        kwargs["is_causal"] = True
    args = (q, k, v, E, H, in_w, in_b, bias_k, bias_v, bool(cfg.get("zero_attn")), 0.0, t(E, E), t(E))
    return args, kwargs


def _run(module, cfg):
    args, kwargs = _arguments(module, cfg)
    try:
        out, weights = module.nn.functional.multi_head_attention_forward(*args, **kwargs)
    except Exception as e:  # noqa: BLE001 - compared with PyTorch's
        return ("error", type(e).__name__, str(e))
    leaves = [a for a in list(args) + list(kwargs.values()) if isinstance(a, module.Tensor) and a.requires_grad]
    loss = (out * out).sum() + (0 if weights is None else (weights * weights).sum())
    grads = module.autograd.grad(loss, leaves, allow_unused=True)
    return (out.detach().numpy(), None if weights is None else weights.detach().numpy(),
            [None if g is None else g.numpy() for g in grads])


@pytest.mark.parametrize("cfg", CONFIGS, ids=[",".join(f"{k}={v}" for k, v in c.items()) or "plain" for c in CONFIGS])
def test_multi_head_attention_forward_matches_torch(cfg):
    torch = pytest.importorskip("torch")
    ours, theirs = _run(tg, cfg), _run(torch, cfg)
    if isinstance(theirs[0], str):
        assert ours == theirs
        return
    assert not isinstance(ours[0], str), ours
    np.testing.assert_allclose(ours[0], theirs[0], rtol=1e-4, atol=1e-5)
    assert (ours[1] is None) == (theirs[1] is None)
    if theirs[1] is not None:
        np.testing.assert_allclose(ours[1], theirs[1], rtol=1e-4, atol=1e-5)
    for g, h in zip(ours[2], theirs[2]):
        assert (g is None) == (h is None)
        if h is not None:
            # entries that are zero analytically carry each side's rounding of the large ones
            np.testing.assert_allclose(g, h, rtol=1e-4, atol=max(1e-4, 1e-5 * float(np.abs(h).max(initial=0))))


ERRORS = [
    lambda m: m.nn.functional.multi_head_attention_forward(m.ones(3, 2, 4), m.ones(3, 2, 4), m.ones(3, 2, 4), 5, 2,
                                                            m.ones(12, 4), None, None, None, False, 0.0,
                                                            m.ones(4, 4), None),
    lambda m: m.nn.functional.multi_head_attention_forward(m.ones(3, 2, 4), m.ones(3, 2), m.ones(3, 2, 4), 4, 2,
                                                            m.ones(12, 4), None, None, None, False, 0.0,
                                                            m.ones(4, 4), None),
    lambda m: m.nn.functional.multi_head_attention_forward(m.ones(3, 2, 4), m.ones(3, 2, 4), m.ones(3, 2, 4), 4, 3,
                                                            m.ones(12, 4), None, None, None, False, 0.0,
                                                            m.ones(4, 4), None),
    lambda m: m.nn.functional.multi_head_attention_forward(m.ones(3, 2, 4), m.ones(3, 2, 4), m.ones(3, 2, 4), 4, 2,
                                                            None, None, None, None, False, 0.0, m.ones(4, 4), None),
    lambda m: m.nn.functional.multi_head_attention_forward(m.ones(3, 2, 4), m.ones(3, 2, 4), m.ones(3, 2, 4), 4, 2,
                                                            m.ones(12, 4), None, m.ones(1, 1, 4), None, False, 0.0,
                                                            m.ones(4, 4), None),
    lambda m: m.nn.functional.multi_head_attention_forward(m.ones(3, 2, 4), m.ones(3, 2, 4), m.ones(3, 2, 4), 4, 2,
                                                            m.ones(12, 4), None, None, None, False, 0.0,
                                                            m.ones(4, 4), None, attn_mask=m.ones(2, 2)),
    lambda m: m.nn.functional.multi_head_attention_forward(m.ones(3, 2, 4), m.ones(3, 2, 4), m.ones(3, 2, 4), 4, 2,
                                                            m.ones(12, 4), None, None, None, False, 0.0,
                                                            m.ones(4, 4), None, is_causal=True),
    lambda m: m.nn.functional.multi_head_attention_forward(m.ones(3, 2, 4), m.ones(3, 2, 4), m.ones(3, 2, 4), 4, 2,
                                                            m.ones(12, 4), None, None, None, False, 0.0,
                                                            m.ones(4, 4), None, key_padding_mask=m.ones(2, 5)),
]


@pytest.mark.parametrize("index", range(len(ERRORS)))
def test_multi_head_attention_forward_errors_match_torch(index):
    torch = pytest.importorskip("torch")
    found = []
    for m in (tg, torch):
        with pytest.raises(Exception) as info:
            ERRORS[index](m)
        found.append((type(info.value).__name__, str(info.value)))
    assert found[0] == found[1]
