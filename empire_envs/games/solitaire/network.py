"""Empire Solitaire's relational policy network, written once for numpy and ``jax.numpy``.

``forward(params, observations, xp)`` runs with ``xp = numpy`` (playing: no jax needed) and with
``xp = jax.numpy`` (training, ``training.jax_imitate --network relational``); the two agree to
float32 rounding (``tests/test_solitaire_network.py``). It reads the env's flat observation
(``observe.py``) and nothing else.

Why not the MLP of compiled PPO: a Solitaire win is about 14 captures in a row that each keep the
grid solvable, a question about which cards share a rank or a suit and which cells a capture can
reach. A flat one-hot input hides that graph; here it is the input.

Tokens (16, each ``width`` wide): the 15 cells, row by row, and the revealed card waiting to be
placed. A token is a linear map of its card (one-hot rank, one-hot suit, all zero when empty), an
"occupied" flag and a "revealed card" flag, plus a learned embedding of its place and a linear map
of the globals (stock size, captures, whether a card waits).

Attention: ``layers`` pre-norm transformer blocks of ``heads`` heads, each head's logits biased by
the pair's relation:

========  =========================================================================
pair      meaning (token i to token j)
========  =========================================================================
0         the cards share a rank
1         the cards share a suit
2         a capture from cell i would take cell j now (the rules' rays: the first
          occupied cell orthogonally, the adjacent occupied cell diagonally)
3         a capture from cell j would take cell i now
4         2 and the two cards share a rank or a suit (the card at i may capture j)
5         both tokens hold a card
========  =========================================================================

and by a learned bias for the relative place (row and column offsets of two cells; the revealed
card has its own).

Heads (the action table of ``actions.py``):

==========  ================================================================================
output      computed from
==========  ================================================================================
0-119       capture (cell, direction): the final tokens of the cell and of the capture's
            target (none: zeros), the direction's embedding and whether the two cards share
            a rank or a suit, through one hidden layer
120         reveal: the mean of the final tokens, through one hidden layer
121-135     place on a cell: the cell's final token and the revealed card's, one hidden layer
value       tanh of the mean token through one hidden layer: the return predicted (-1..1)
==========  ================================================================================

Every array name and shape is fixed by ``shapes(width, heads, layers, feedforward)``.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import numpy as np

from ...core.cards import NUM_RANKS, NUM_SUITS
from .actions import CAPTURE, NUM_ACTIONS, NUM_DIRECTIONS, RAYS
from .observe import CARD_SIZE, LAYOUT, OBSERVATION_SIZE
from .state import COLS, NUM_CELLS

#: what the network reads and gives (a policy file's metadata must say the same)
SIZES_OF_SPACES = (OBSERVATION_SIZE, NUM_ACTIONS)

#: the name a policy file gives this network (``metadata["network"]["architecture"]``)
ARCHITECTURE = "solitaire-relational"
#: the sizes a new network takes unless told otherwise
DEFAULT_SIZES = {"width": 64, "heads": 4, "layers": 4, "feedforward": 128}

NUM_TOKENS = NUM_CELLS + 1
_REVEALED_TOKEN = NUM_CELLS
_CARD_FEATURES = CARD_SIZE + 2  # the card, occupied, is the revealed card
_GLOBALS = 3
_PAIR_FEATURES = 6
_MAX_RAY = max(len(ray) for rays in RAYS for ray in rays)
#: RAY_CELLS[cell, direction, k]: the k-th cell of the capture ray, padded with NUM_CELLS (no cell)
RAY_CELLS = np.full((NUM_CELLS, NUM_DIRECTIONS, _MAX_RAY), NUM_CELLS, dtype=np.int32)
for _cell in range(NUM_CELLS):
    for _direction in range(NUM_DIRECTIONS):
        for _k, _target in enumerate(RAYS[_cell][_direction]):
            RAY_CELLS[_cell, _direction, _k] = _target
_ROWS = 3
_OFFSETS = (2 * _ROWS - 1) * (2 * COLS - 1)
#: RELATIVE[i, j]: the index of token j's place relative to token i's in the relative-bias table
RELATIVE = np.zeros((NUM_TOKENS, NUM_TOKENS), dtype=np.int32)
for _i in range(NUM_TOKENS):
    for _j in range(NUM_TOKENS):
        if _i < NUM_CELLS and _j < NUM_CELLS:
            (_ri, _ci), (_rj, _cj) = divmod(_i, COLS), divmod(_j, COLS)
            RELATIVE[_i, _j] = (_rj - _ri + _ROWS - 1) * (2 * COLS - 1) + (_cj - _ci + COLS - 1)
        else:
            RELATIVE[_i, _j] = _OFFSETS + (0 if _i == _j else 1)
_NUM_RELATIVE = _OFFSETS + 2
#: the capturing cell and the direction of each capture action (actions 0..119, in table order)
CAPTURE_CELL = np.array([cell for cell in range(NUM_CELLS) for _ in range(NUM_DIRECTIONS)], dtype=np.int32)
CAPTURE_DIRECTION = np.array([d for _ in range(NUM_CELLS) for d in range(NUM_DIRECTIONS)], dtype=np.int32)
assert [CAPTURE[c][d] for c, d in zip(CAPTURE_CELL, CAPTURE_DIRECTION, strict=True)] == list(range(CAPTURE_CELL.size))

_CELLS = slice(LAYOUT.start("cells"), LAYOUT.start("cells") + NUM_CELLS * CARD_SIZE)
_REVEALED = slice(LAYOUT.start("revealed"), LAYOUT.start("revealed") + CARD_SIZE)
_STOCK = LAYOUT.start("stock size")
_CAPTURES = LAYOUT.start("captures")


def shapes(width: int, heads: int, layers: int, feedforward: int) -> dict[str, tuple[int, ...]]:
    """Every array of a network of these sizes, by name."""
    if width % heads:
        raise ValueError(f"width ({width}) must be a multiple of heads ({heads})")
    table: dict[str, tuple[int, ...]] = {
        "embed/kernel": (_CARD_FEATURES, width),
        "embed/bias": (width,),
        "embed/place": (NUM_TOKENS, width),
        "embed/globals": (_GLOBALS, width),
    }
    for layer in range(layers):
        block = f"block{layer}"
        table |= {
            f"{block}/norm1/scale": (width,),
            f"{block}/norm1/bias": (width,),
            f"{block}/qkv": (width, 3 * width),
            f"{block}/out": (width, width),
            f"{block}/relative": (_NUM_RELATIVE, heads),
            f"{block}/pair": (_PAIR_FEATURES, heads),
            f"{block}/norm2/scale": (width,),
            f"{block}/norm2/bias": (width,),
            f"{block}/ff1/kernel": (width, feedforward),
            f"{block}/ff1/bias": (feedforward,),
            f"{block}/ff2/kernel": (feedforward, width),
            f"{block}/ff2/bias": (width,),
        }
    table |= {
        "final_norm/scale": (width,),
        "final_norm/bias": (width,),
        "capture/source": (width, width),
        "capture/target": (width, width),
        "capture/direction": (NUM_DIRECTIONS, width),
        "capture/match": (2, width),
        "capture/bias": (width,),
        "capture/out": (width, 1),
        "reveal/kernel": (width, width),
        "reveal/bias": (width,),
        "reveal/out": (width, 1),
        "place/cell": (width, width),
        "place/card": (width, width),
        "place/bias": (width,),
        "place/out": (width, 1),
        "value/kernel": (width, width),
        "value/bias": (width,),
        "value/out": (width, 1),
    }
    return table


def sizes_of(metadata: Mapping[str, Any]) -> dict[str, int]:
    """The network's sizes as a policy file's ``metadata["network"]`` records them; a
    ``ValueError`` for a record that is not this architecture's."""
    if metadata.get("architecture") != ARCHITECTURE:
        raise ValueError(f"the network is {metadata.get('architecture')!r}, not {ARCHITECTURE!r}")
    found = {}
    for name in DEFAULT_SIZES:
        value = metadata.get(name)
        if isinstance(value, bool) or not isinstance(value, int) or value < 1:
            raise ValueError(f"the network's {name!r} must be a positive integer, got {value!r}")
        found[name] = value
    return found


def check_arrays(arrays: Mapping[str, np.ndarray], sizes: Mapping[str, int]) -> None:
    """A ``ValueError`` naming the first array that is missing or has the wrong shape."""
    for name, shape in shapes(**sizes).items():
        if name not in arrays:
            raise ValueError(f"the policy lacks the array {name!r}")
        if tuple(arrays[name].shape) != shape:
            raise ValueError(f"the array {name!r} has shape {tuple(arrays[name].shape)}; the network needs {shape}")


def init_params(
    rng: np.random.Generator, width: int, heads: int, layers: int, feedforward: int
) -> dict[str, np.ndarray]:
    """A new network: kernels scaled by 1/sqrt(fan-in), halved on the outputs of a block's
    residual branches; the place and direction embeddings small (0.1); the attention biases, the
    norms' offsets and every bias zero, the norms' scales one."""
    params = {}
    for name, shape in shapes(width, heads, layers, feedforward).items():
        leaf = name.rsplit("/", 1)[-1]
        if leaf == "scale":
            params[name] = np.ones(shape, np.float32)
        elif leaf in ("bias", "relative", "pair"):
            params[name] = np.zeros(shape, np.float32)
        else:
            scale = 1.0 / np.sqrt(shape[0])
            if name.endswith(("/out", "ff2/kernel")) and name.startswith("block"):
                scale *= 0.5
            elif name in ("embed/place", "capture/direction"):
                scale = 0.1
            params[name] = (rng.standard_normal(shape) * scale).astype(np.float32)
    return params


def _norm(x: Any, scale: Any, bias: Any, xp: Any) -> Any:
    mean = x.mean(-1, keepdims=True)
    variance = ((x - mean) ** 2).mean(-1, keepdims=True)
    return (x - mean) / xp.sqrt(variance + 1e-5) * scale + bias


def capture_targets(occupied: Any, xp: Any) -> Any:
    """``[batch, cell, direction]``: the cell each capture would take (the first occupied cell
    of its ray), ``NUM_CELLS`` where the ray holds no card. ``occupied`` is ``[batch, 15]`` 0/1."""
    batch = occupied.shape[0]
    padded = xp.concatenate([occupied, xp.zeros((batch, 1), occupied.dtype)], axis=1)
    along = padded[:, RAY_CELLS]  # [batch, cell, direction, k]
    first = xp.argmax(along, axis=-1)
    cells = xp.take_along_axis(xp.broadcast_to(RAY_CELLS, along.shape), first[..., None], axis=-1)[..., 0]
    return xp.where(along.max(-1) > 0, cells, NUM_CELLS)


def forward(params: Mapping[str, Any], observations: Any, xp: Any = np) -> tuple[Any, Any]:
    """``(logits [batch, 136], value [batch])`` of a batch of observations ``[batch, 326]``."""
    batch = observations.shape[0]
    dtype = observations.dtype
    cells = observations[:, _CELLS].reshape(batch, NUM_CELLS, CARD_SIZE)
    revealed = observations[:, _REVEALED]
    occupied = (cells.sum(-1) > 0).astype(dtype)
    waiting = (revealed.sum(-1, keepdims=True) > 0).astype(dtype)
    cards = xp.concatenate([cells, revealed[:, None, :]], axis=1)  # [batch, token, card]
    holds_card = xp.concatenate([occupied, waiting], axis=1)
    is_revealed = xp.broadcast_to((np.arange(NUM_TOKENS) == _REVEALED_TOKEN).astype(np.float32), (batch, NUM_TOKENS))
    features = xp.concatenate([cards, holds_card[..., None], is_revealed[..., None].astype(dtype)], axis=-1)
    stock, captures = observations[:, _STOCK : _STOCK + 1], observations[:, _CAPTURES : _CAPTURES + 1]
    globals_ = xp.concatenate([stock, captures, waiting], axis=-1)
    x = features @ params["embed/kernel"] + params["embed/bias"] + params["embed/place"]
    x = x + (globals_ @ params["embed/globals"])[:, None, :]

    targets = capture_targets(occupied, xp)  # [batch, cell, direction]
    reaches = (targets[..., None] == np.arange(NUM_TOKENS)).astype(dtype).sum(2)  # [batch, cell, token]
    reaches = xp.concatenate([reaches, xp.zeros((batch, 1, NUM_TOKENS), dtype)], axis=1)
    reaches = reaches * (1.0 - (np.arange(NUM_TOKENS) == _REVEALED_TOKEN).astype(np.float32))  # no cell: not a target
    ranks, suits = cards[..., :NUM_RANKS], cards[..., NUM_RANKS : NUM_RANKS + NUM_SUITS]
    same_rank = xp.einsum("bik,bjk->bij", ranks, ranks)
    same_suit = xp.einsum("bik,bjk->bij", suits, suits)
    pairs = xp.stack(
        [
            same_rank,
            same_suit,
            reaches,
            xp.swapaxes(reaches, 1, 2),
            xp.maximum(same_rank, same_suit) * reaches,
            holds_card[:, :, None] * holds_card[:, None, :],
        ],
        axis=-1,
    )

    width = x.shape[-1]
    layers = sum(1 for name in params if name.endswith("/qkv"))
    heads = params["block0/relative"].shape[-1] if layers else 1
    head_width = width // heads
    for layer in range(layers):
        block = f"block{layer}"
        bias = params[f"{block}/relative"][RELATIVE] + pairs @ params[f"{block}/pair"]  # [batch, i, j, head]
        bias = xp.transpose(bias, (0, 3, 1, 2))
        h = _norm(x, params[f"{block}/norm1/scale"], params[f"{block}/norm1/bias"], xp)
        qkv = (h @ params[f"{block}/qkv"]).reshape(batch, NUM_TOKENS, 3, heads, head_width)
        query, key, value = qkv[:, :, 0], qkv[:, :, 1], qkv[:, :, 2]
        scores = xp.einsum("bihd,bjhd->bhij", query, key) / np.sqrt(head_width).astype(np.float32) + bias
        weights = xp.exp(scores - scores.max(-1, keepdims=True))
        weights = weights / weights.sum(-1, keepdims=True)
        mixed = xp.einsum("bhij,bjhd->bihd", weights, value).reshape(batch, NUM_TOKENS, width)
        x = x + mixed @ params[f"{block}/out"]
        h = _norm(x, params[f"{block}/norm2/scale"], params[f"{block}/norm2/bias"], xp)
        hidden = xp.maximum(h @ params[f"{block}/ff1/kernel"] + params[f"{block}/ff1/bias"], 0.0)
        x = x + hidden @ params[f"{block}/ff2/kernel"] + params[f"{block}/ff2/bias"]
    x = _norm(x, params["final_norm/scale"], params["final_norm/bias"], xp)

    # each token is projected once, then gathered for the 120 captures that read it
    none = NUM_TOKENS  # the padding row: a capture without a target reads zeros
    projected = x @ params["capture/target"]
    padded = xp.concatenate([projected, xp.zeros((batch, 1, width), x.dtype)], axis=1)
    target_rows = targets.reshape(batch, NUM_CELLS * NUM_DIRECTIONS)
    target_rows = xp.where(target_rows == NUM_CELLS, none, target_rows)
    source = (x @ params["capture/source"])[:, CAPTURE_CELL]
    target = xp.take_along_axis(padded, target_rows[..., None], axis=1)
    padded_cards = xp.concatenate([cards, xp.zeros((batch, 1, CARD_SIZE), dtype)], axis=1)
    source_card, target_card = cards[:, CAPTURE_CELL], xp.take_along_axis(padded_cards, target_rows[..., None], axis=1)
    match = xp.stack(
        [
            (source_card[..., :NUM_RANKS] * target_card[..., :NUM_RANKS]).sum(-1),
            (source_card[..., NUM_RANKS:] * target_card[..., NUM_RANKS:]).sum(-1),
        ],
        axis=-1,
    )
    hidden = (
        source
        + target
        + params["capture/direction"][CAPTURE_DIRECTION]
        + match @ params["capture/match"]
        + params["capture/bias"]
    )
    capture_logits = (xp.maximum(hidden, 0.0) @ params["capture/out"])[..., 0]
    pooled = x.mean(1)
    reveal_logit = xp.maximum(pooled @ params["reveal/kernel"] + params["reveal/bias"], 0.0) @ params["reveal/out"]
    hidden = x[:, :NUM_CELLS] @ params["place/cell"] + x[:, _REVEALED_TOKEN:] @ params["place/card"]
    hidden = hidden + params["place/bias"]
    place_logits = (xp.maximum(hidden, 0.0) @ params["place/out"])[..., 0]
    hidden = xp.maximum(pooled @ params["value/kernel"] + params["value/bias"], 0.0)
    value = xp.tanh(hidden @ params["value/out"])[..., 0]
    return xp.concatenate([capture_logits, reveal_logit, place_logits], axis=-1), value
