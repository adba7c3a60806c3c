"""Train a small MLP on N devices with DistributedDataParallel and with FSDP (fully_shard),
eager and compiled, and check that every run's losses equal one device's.

    python examples/data_parallel.py --devices 8

On CPU, ``--devices N`` simulates N devices (it sets
``XLA_FLAGS=--xla_force_host_platform_device_count=N`` before JAX starts). The script prints each
run's losses, the parameter bytes one device holds (DDP: all of them; FSDP: 1/N) and whether the
losses equal the single-device run's. JAX's sharding (GSPMD) does the communication.
"""

import argparse
import os
import sys


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--devices", type=int, default=8, help="devices to simulate on CPU (default 8)")
    parser.add_argument("--steps", type=int, default=5)
    args = parser.parse_args(argv)
    if "jax" not in sys.modules:
        os.environ["XLA_FLAGS"] = (os.environ.get("XLA_FLAGS", "")
                                   + f" --xla_force_host_platform_device_count={args.devices}").strip()
    for var, value in (("MASTER_ADDR", "127.0.0.1"), ("MASTER_PORT", "29500"), ("RANK", "0"), ("WORLD_SIZE", "1")):
        os.environ.setdefault(var, value)

    import numpy as np
    import tensorgrad as torch
    import tensorgrad.distributed as dist
    from tensorgrad.distributed.device_mesh import init_device_mesh
    from tensorgrad.distributed.fsdp import fully_shard
    from tensorgrad.nn.parallel import DistributedDataParallel

    import jax
    n = len(jax.devices())
    if not dist.is_initialized():
        dist.init_process_group("gloo")
    mesh = init_device_mesh(jax.devices()[0].platform.replace("gpu", "cuda"), (n,), mesh_dim_names=("dp",))

    def make():
        torch.manual_seed(0)
        return torch.nn.Sequential(torch.nn.Linear(32, 64), torch.nn.ReLU(), torch.nn.Linear(64, 8 * n))

    torch.manual_seed(1)
    batches = [(torch.randn(8 * n, 32), torch.randn(8 * n, 8 * n)) for _ in range(args.steps)]

    def train(model, compiled):
        opt = torch.optim.SGD(model.parameters(), lr=0.05, momentum=0.9)

        def step(x, y):
            loss = torch.nn.functional.mse_loss(model(x), y)
            opt.zero_grad()
            loss.backward()
            opt.step()
            return loss

        fn = torch.compile(step) if compiled else step
        return [fn(x, y).item() for x, y in batches]

    def per_device_bytes(model):
        return sum(p._data.addressable_shards[0].data.nbytes for p in model.parameters())

    single = make()
    reference = train(single, False)
    total = sum(p._data.nbytes for p in single.parameters())
    print(f"{n} devices; one device's run: losses {np.round(reference, 5).tolist()}, parameters {total} bytes")
    ok = True
    for name, wrap in (("DDP", lambda m: DistributedDataParallel(m)), ("FSDP", lambda m: fully_shard(m, mesh=mesh))):
        for compiled in (False, True):
            model = wrap(make())
            losses = train(model, compiled)
            same = np.allclose(losses, reference, rtol=1e-5, atol=1e-7)
            ok &= same
            print(f"{name:4s} {'compiled' if compiled else 'eager':8s}: per-device parameter bytes "
                  f"{per_device_bytes(model):6d} of {total}; losses equal one device's: {same}")
    dist.destroy_process_group()
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
