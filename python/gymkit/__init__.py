"""Gymkit for Python: a standard-library client of Gymkit's rollout service.

``collect_rollouts`` runs a batch of rows and returns every scored rollout (or, with
``format="tokens"``, every rollout's token ids, loss mask and logprobs), raising
``RolloutsIncomplete`` unless the batch is complete. Trainer adapters live under
``gymkit.adapters`` (``gymkit.adapters.verl``, ``gymkit.adapters.nemo_rl``).
"""

from .client import (
    ROLLOUTS_PATH,
    RolloutServiceError,
    RolloutStream,
    RolloutsIncomplete,
    collect_rollouts,
    stream_rollouts,
)

__version__ = "0.1.0"

__all__ = [
    "ROLLOUTS_PATH",
    "RolloutServiceError",
    "RolloutStream",
    "RolloutsIncomplete",
    "collect_rollouts",
    "stream_rollouts",
    "__version__",
]
