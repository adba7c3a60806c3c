"""One rank of the two-process check (tests/test_distributed.py starts two, as torchrun would:
MASTER_ADDR, MASTER_PORT, RANK, WORLD_SIZE, LOCAL_RANK): init_process_group, all_reduce, and a
DDP step whose parameters must equal a one-process step on both ranks' batches. Prints the
results as JSON."""

import json
import os
import warnings

import numpy as np

import tensorgrad as torch
import tensorgrad.distributed as dist
import tensorgrad.distributed.nn.functional as F
from tensorgrad.nn.parallel import DistributedDataParallel as DDP

dist.init_process_group("gloo")
rank, world = dist.get_rank(), dist.get_world_size()
t = torch.full((3,), float(rank + 1))
dist.all_reduce(t)
gathered = [torch.zeros(2) for _ in range(world)]
dist.all_gather(gathered, torch.full((2,), float(rank)))
b = torch.full((2,), float(rank + 5))
dist.broadcast(b, src=1)
dist.barrier()
with warnings.catch_warnings():
    warnings.simplefilter("ignore", FutureWarning)
    x = torch.ones(2, requires_grad=True)
    reduced = F.all_reduce(x * (rank + 1))
    reduced.sum().backward()
    pieces = F.all_gather(x * (rank + 1))
    (pieces[0] * 10 + pieces[1]).sum().backward()


def make():
    torch.manual_seed(0)
    return torch.nn.Sequential(torch.nn.Linear(4, 8), torch.nn.Tanh(), torch.nn.Linear(8, 2))


torch.manual_seed(3)
xs, ys = torch.randn(2, 6, 4), torch.randn(2, 6, 2)     # both ranks' batches; this rank trains on its own
model = DDP(make())
opt = torch.optim.SGD(model.parameters(), lr=0.1)
loss = torch.nn.functional.mse_loss(model(xs[rank]), ys[rank])
loss.backward()
opt.step()
single = make()         # one process on the whole batch
opt1 = torch.optim.SGD(single.parameters(), lr=0.1)
torch.nn.functional.mse_loss(single(xs.reshape(12, 4)), ys.reshape(12, 2)).backward()
opt1.step()
# no_sync: the first backward stays local, the next one averages the accumulated gradients
opt.zero_grad()
opt1.zero_grad()
with model.no_sync():
    torch.nn.functional.mse_loss(model(xs[rank]), ys[rank]).backward()
local_only = [p.grad.clone() for p in model.parameters()]
torch.nn.functional.mse_loss(model(xs[rank]), ys[rank]).backward()
torch.nn.functional.mse_loss(single(xs.reshape(12, 4)), ys.reshape(12, 2)).backward()
no_sync = max(float(np.abs(p.grad.numpy() - 2 * q.grad.numpy()).max())
              for p, q in zip(model.parameters(), single.parameters()))
unsynced = max(float(np.abs(g.numpy() - q.grad.numpy()).max()) for g, q in zip(local_only, single.parameters()))

import tensorgrad.distributed.checkpoint as dcp  # noqa: E402
dcp.save(model.module.state_dict(), checkpoint_id=os.environ["CKPT_DIR"])
fresh = torch.nn.Sequential(torch.nn.Linear(4, 8), torch.nn.Tanh(), torch.nn.Linear(8, 2))
state = fresh.state_dict()
dcp.load(state, checkpoint_id=os.environ["CKPT_DIR"])
reloaded = max(float(np.abs(p.detach().numpy() - q.detach().numpy()).max())
               for p, q in zip(model.parameters(), fresh.parameters()))
files = sorted(os.listdir(os.environ["CKPT_DIR"]))
diff = max(float(np.abs(p.detach().numpy() - q.detach().numpy()).max())
           for p, q in zip(model.parameters(), single.parameters()))
print(json.dumps({"rank": rank, "world": world, "all_reduce": t.tolist(), "all_gather": [g.tolist() for g in gathered],
                  "broadcast": b.tolist(), "functional": reduced.tolist(), "functional_grad": x.grad.tolist(), "ddp_vs_single": diff, "reloaded": reloaded, "no_sync": no_sync, "unsynced": unsynced, "files": files, "local_rank": int(os.environ["LOCAL_RANK"])}))
dist.destroy_process_group()
