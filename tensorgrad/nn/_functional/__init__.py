"""The implementation of ``tensorgrad.nn.functional``, one topic per module (private)."""
