"""Ops as pure functions of jax arrays, registered with their metadata (private)."""
