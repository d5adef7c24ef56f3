"""Trainer adapters built on :mod:`gymkit.client`, one module per trainer (``verl``, ``nemo_rl``).

Each imports its trainer lazily, so ``import gymkit`` never needs a trainer installed.
"""
