"""WeightedRandomSampler and DataLoader worker options against PyTorch."""

import numpy as np
import pytest

import tensorgrad as tg
from tensorgrad.utils import data as tg_data

from oracle import _oracle, torch  # noqa: F401


def test_weighted_random_sampler_draws_and_errors():
    weights = [0.0, 1.0, 3.0, 0.0]
    draws = list(tg_data.WeightedRandomSampler(weights, 400, generator=tg.Generator().manual_seed(0)))
    assert len(draws) == 400 and set(draws) <= {1, 2}
    assert 0.65 < draws.count(2) / 400 < 0.85
    again = list(tg_data.WeightedRandomSampler(weights, 400, generator=tg.Generator().manual_seed(0)))
    assert draws == again
    no_repeat = list(tg_data.WeightedRandomSampler([1.0] * 5, 5, replacement=False))
    assert sorted(no_repeat) == list(range(5))
    from torch.utils import data as torch_data
    for module in (tg_data, torch_data):
        sampler = module.WeightedRandomSampler(weights, 3)
        assert len(sampler) == 3 and sampler.weights.dtype == (tg.float64 if module is tg_data else torch.float64)
        for bad, kwargs in ((0, {}), (True, {}), (2, {"replacement": 1})):
            with pytest.raises(ValueError) as ours:
                module.WeightedRandomSampler(weights, bad, **kwargs)
            with pytest.raises(ValueError) as theirs:
                torch_data.WeightedRandomSampler(weights, bad, **kwargs)
            assert str(ours.value) == str(theirs.value)
        with pytest.raises(ValueError, match=r"weights should be a 1d sequence but given weights have shape \(2, 2\)"):
            module.WeightedRandomSampler([[1.0, 2.0], [3.0, 4.0]], 2)


def test_dataloader_with_workers_equals_without_and_option_errors():
    data = np.arange(20, dtype=np.float32).reshape(10, 2)
    dataset = tg_data.TensorDataset(tg.tensor(data))
    seen = []
    plain = [b[0].tolist() for b in tg_data.DataLoader(dataset, batch_size=3)]
    loader = tg_data.DataLoader(dataset, batch_size=3, num_workers=2, worker_init_fn=seen.append, prefetch_factor=1)
    assert [b[0].tolist() for b in loader] == plain
    assert seen == [0, 1]
    from torch.utils import data as torch_data
    for kwargs in ({"num_workers": -1}, {"timeout": -1}, {"prefetch_factor": 2}, {"persistent_workers": True},
                   {"multiprocessing_context": "spawn"}):
        with pytest.raises(ValueError) as ours:
            tg_data.DataLoader(dataset, **kwargs)
        with pytest.raises(ValueError) as theirs:
            torch_data.DataLoader(torch_data.TensorDataset(torch.tensor(data)), **kwargs)
        assert str(ours.value) == str(theirs.value)
