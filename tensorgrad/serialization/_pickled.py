"""The pickle member: an object outside the JSON vocabulary (a whole module, an optimizer, any
picklable object) saved as ``torch.save`` saves it, pickled, with every Tensor in it a
persistent id naming its entry in the tensor table; and, only when ``load`` is called with
``weights_only=False``, unpickled with ``persistent_load`` handing back the table's tensors."""

import io
import pickle
import pickletools

from .._tensor import Tensor

PREFIX = "tensor:"      # a persistent id is "tensor:<index in the tensor table>" (a str: any protocol)


def pickled(encoder, obj, pickle_module, protocol):
    """The bytes of ``obj`` pickled by ``pickle_module.Pickler`` at ``protocol``, its tensors
    added to ``encoder``'s tensor table (storage shared as in a JSON checkpoint)."""

    class Pickler(pickle_module.Pickler):
        def persistent_id(self, o):
            if isinstance(o, Tensor):
                return PREFIX + str(encoder.tensor(o))
            return None

    buf = io.BytesIO()
    Pickler(buf, protocol=protocol).dump(obj)
    return buf.getvalue()


def unpickled(data, tensors, used, pickle_module, load_args):
    """The object pickled in ``data``, its persistent ids resolved to ``tensors`` (the indices
    met are added to ``used``). This runs the pickle: only for ``weights_only=False``."""

    class Unpickler(pickle_module.Unpickler):
        def persistent_load(self, pid):
            index = pid[len(PREFIX):] if isinstance(pid, str) and pid.startswith(PREFIX) else ""
            if not index.isdigit() or int(index) >= len(tensors):
                raise pickle.UnpicklingError(f"the pickle refers to {pid!r}, which is not an entry of the "
                                             f"checkpoint's tensor table of {len(tensors)} tensors")
            used.add(int(index))
            return tensors[int(index)]

    return Unpickler(io.BytesIO(data), **load_args).load()


def first_global(data):
    """The first ``module.name`` the pickle would import, found by reading its opcodes without
    running any (None when there is none or it cannot be told)."""
    strings = []
    try:
        for op, arg, _ in pickletools.genops(data):
            if op.name in ("GLOBAL", "INST"):
                return arg.replace(" ", ".")
            if op.name == "STACK_GLOBAL":
                return ".".join(strings[-2:]) if len(strings) >= 2 else None
            if isinstance(arg, str) and "UNICODE" in op.name:
                strings.append(arg)
    except Exception:  # noqa: BLE001 - a damaged pickle: no name to give
        return None
    return None
