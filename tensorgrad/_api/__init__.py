"""The torch-level functions and Tensor methods, over the ops and dispatch (private)."""
