"""A MaskablePPO policy that adds the one-step lookahead straight onto its action logits.

With ``lookahead_features`` the input ends with one number per action (``successor_mobility``).
An MLP has to learn to route input ``i`` to logit ``i`` before it can use them, and learns that
slowly. ``LookaheadLogitsPolicy`` adds ``gain * lookahead[i]`` to logit ``i`` with a learned
scalar ``gain``, so from the first update the policy leans toward moves that keep many moves open.
The MLP learns the corrections on top. Use it through ``python -m empire_envs train`` with
``lookahead_logits = true``.
"""

from __future__ import annotations

from typing import Any, cast

import torch
from gymnasium import spaces
from sb3_contrib.common.maskable.distributions import MaskableDistribution
from sb3_contrib.common.maskable.policies import MaskableActorCriticPolicy
from torch import nn


class LookaheadLogitsPolicy(MaskableActorCriticPolicy):
    """``MaskableActorCriticPolicy`` with ``logits += gain * input[-num_actions:]``.

    ``initial_gain`` sets the starting ``gain``. The last ``num_actions`` inputs must be the
    lookahead features, as ``PolicyInput(lookahead=True)`` places them.
    """

    def __init__(self, *args: Any, initial_gain: float = 20.0, **kwargs: Any) -> None:
        self.initial_gain = float(initial_gain)  # read by _build, which the base __init__ calls
        self._logit_bias: torch.Tensor | None = None
        super().__init__(*args, **kwargs)

    def _build(self, lr_schedule: Any) -> None:
        self.lookahead_gain = nn.Parameter(torch.tensor(self.initial_gain))
        super()._build(lr_schedule)  # builds the optimizer over every parameter, the gain included

    def _get_constructor_parameters(self) -> dict[str, Any]:
        return {**super()._get_constructor_parameters(), "initial_gain": self.initial_gain}

    def _set_bias(self, obs: Any) -> None:
        n = int(cast(spaces.Discrete, self.action_space).n)
        self._logit_bias = self.lookahead_gain * torch.as_tensor(obs, dtype=torch.float32)[..., -n:]

    def _get_action_dist_from_latent(self, latent_pi: torch.Tensor) -> MaskableDistribution:
        logits = self.action_net(latent_pi)
        if self._logit_bias is not None:
            logits = logits + self._logit_bias
        return self.action_dist.proba_distribution(action_logits=logits)

    def forward(self, obs: torch.Tensor, *args: Any, **kwargs: Any) -> Any:
        self._set_bias(obs)
        try:
            return super().forward(obs, *args, **kwargs)
        finally:
            self._logit_bias = None

    def evaluate_actions(self, obs: torch.Tensor, *args: Any, **kwargs: Any) -> Any:
        self._set_bias(obs)
        try:
            return super().evaluate_actions(obs, *args, **kwargs)
        finally:
            self._logit_bias = None

    def get_distribution(self, obs: Any, *args: Any, **kwargs: Any) -> MaskableDistribution:
        self._set_bias(obs)
        try:
            return super().get_distribution(obs, *args, **kwargs)
        finally:
            self._logit_bias = None
