"""Cultural health and the end of the game: CH changes and their shaped reward (rulings 9-12),
eliminations, Chancellor and Warlord victories, places and their rewards (rulings 13-15),
truncation, and what the game reports at the end (outcome, final rewards, utility range).

Rewards: a CH change earns ``shaping`` per point for the seat, added to the ``earned`` list of
the action under way (what a phase's ``apply`` returns); a seat's game reward (its place's) is
written to ``final_reward`` when it gets its place, and ``apply_action`` pays it in that step
(``add_final_results``)."""

from __future__ import annotations

from ..config import GeneralsConfig
from ..state import ONGOING, OVER, TRUNCATED, WON, GeneralsState
from .derived import unit_numbers

#: ``reward_scheme="win_loss"``: the winner's reward and every other seat's
WIN_REWARD, LOSS_REWARD = 1.0, -1.0


def no_rewards(state: GeneralsState) -> list[float]:
    """A reward of 0 for every seat: what an action earns before it does anything."""
    return [0.0] * state.num_players


def elimination_line(config: GeneralsConfig) -> int:
    if config.slaughterhouse and config.slaughter_floor == "zero":
        return 0
    return -config.target


def change_ch(state: GeneralsState, seat: int, delta: int, earned: list[float]) -> None:
    """Rulings 9-12: move CH (capped at the target in a Slaughterhouse), add the shaped reward
    of the change to ``earned[seat]``, and check victory and elimination at once."""
    player = state.players[seat]
    if delta == 0 or not player.alive or state.phase == OVER:
        return
    config = state.config
    before = player.ch
    player.ch += delta
    if config.slaughterhouse:
        player.ch = min(player.ch, config.target)
    earned[seat] += config.shaping * (player.ch - before)
    if not config.slaughterhouse and player.ch >= config.target:
        _chancellor_victory(state, seat)
    elif player.ch <= elimination_line(config):
        eliminate(state, seat)


def place_reward(config: GeneralsConfig, place: int) -> float:
    """``reward_scheme="placement"``: +1 for first place down to -1 for last."""
    n = config.num_players
    return 1.0 - 2.0 * (place - 1) / (n - 1)


def add_final_results(state: GeneralsState, finished: int, rewards: list[float]) -> None:
    """Add to ``rewards`` the game reward of every seat placed since ``finished`` seats had
    left the game (``len(state.finish_order)`` then): a result is paid in the step it is reached.
    A seat gets its place as it leaves (``finish_order``), or, still in, when the game ends."""
    for seat in state.finish_order[finished:]:
        rewards[seat] += state.players[seat].final_reward
    if state.phase == OVER:
        for seat, player in enumerate(state.players):
            if player.alive and player.place:
                rewards[seat] += player.final_reward


def _leave(state: GeneralsState, seat: int, place: int) -> None:
    """A player leaves the game: its cards in play are removed from the game (ruling 13)."""
    player = state.players[seat]
    player.alive = False
    player.place = place
    state.finish_order.append(seat)
    for slot, unit in enumerate(player.units):
        if unit is not None:
            player.removed[unit.kind] += 1
            player.units[slot] = None
    for zone in (player.kingdom, player.supply_ready, player.supply_fresh):
        for kind, count in enumerate(zone):
            if count:
                player.removed[kind] += count
                zone[kind] = 0
    for attribute in ("strategy", "capitol"):
        kind = getattr(player, attribute)
        if kind >= 0:
            player.removed[kind] += 1
            setattr(player, attribute, -1)
    if state.config.reward_scheme == "placement":
        player.final_reward = place_reward(state.config, place)
    else:
        player.final_reward = WIN_REWARD if place == 1 else LOSS_REWARD


def _open_places(state: GeneralsState) -> list[int]:
    """Finishing places nobody has taken yet: winners take the best, the eliminated the worst."""
    taken = {player.place for player in state.players if player.place}
    return [place for place in range(1, state.num_players + 1) if place not in taken]


def _alive(state: GeneralsState) -> list[int]:
    return [p for p in range(state.num_players) if state.players[p].alive]


def eliminate(state: GeneralsState, seat: int) -> None:
    """Ruling 13: the player is out, last place among those still in."""
    _leave(state, seat, _open_places(state)[-1])
    remaining = _alive(state)
    if len(remaining) == 1:
        _last_player_standing(state, remaining[0])


def _last_player_standing(state: GeneralsState, seat: int) -> None:
    already_won = state.winner >= 0
    _leave(state, seat, _open_places(state)[0])
    if not already_won:
        state.winner = seat
        state.victory = "warlord"
    state.outcome = WON
    state.phase = OVER


def _chancellor_victory(state: GeneralsState, seat: int) -> None:
    """Ruling 13 and 15: the game ends against everyone, unless the others play for second."""
    if state.winner < 0:
        state.winner, state.victory = seat, "chancellor"
    place = _open_places(state)[0]
    _leave(state, seat, place)
    remaining = _alive(state)
    if state.config.play_for_second and len(remaining) >= 2:
        return
    open_places = _open_places(state)
    if len(remaining) == 1:
        _leave(state, remaining[0], open_places[0])
    elif state.config.reward_scheme == "placement":
        # those still in share the places left: each gets their mean reward
        share = sum(place_reward(state.config, q) for q in open_places) / len(remaining)
        for other in remaining:
            state.players[other].place = open_places[0]
            state.players[other].final_reward = share
    else:
        for other in remaining:
            state.players[other].place = open_places[0]
            state.players[other].final_reward = LOSS_REWARD
    state.outcome = WON
    state.phase = OVER


def truncate(state: GeneralsState) -> None:
    """The game stops with no winner: the seats still in get 0 (``final_rewards``)."""
    state.outcome = TRUNCATED
    state.phase = OVER


# --------------------------------------------------------------------------- the end


def is_terminal(state: GeneralsState) -> bool:
    return state.phase == OVER


def is_truncated(state: GeneralsState) -> bool:
    return state.outcome == TRUNCATED


def eliminated(state: GeneralsState) -> list[bool]:
    """Seats out of the game while it goes on (eliminated, or placed with ``play_for_second``)."""
    return [not p.alive for p in state.players]


def final_rewards(state: GeneralsState) -> list[float]:
    """Each seat's game reward (shaping excluded): what its place earned, 0 for those still in
    a truncated game."""
    return [player.final_reward for player in state.players]


def outcome_name(state: GeneralsState) -> str:
    if state.outcome == WON:
        return f"won by player_{state.winner} ({state.victory} victory)"
    return {ONGOING: "ongoing", TRUNCATED: "truncated"}[state.outcome]


def utility_range(config: GeneralsConfig) -> tuple[float, float]:
    """The least and greatest final return of a seat (shaping excluded): -1 and +1 under both
    schemes. ``"win_loss"`` pays +1 to the winner and -1 to every other placed seat;
    ``"placement"`` pays ``place_reward``, from +1 for first place to -1 for last, and seats that
    share the open places after a Chancellor victory get the mean of those places' rewards, which
    lies between them. Seats still in a truncated game get 0."""
    if config.reward_scheme == "placement":
        return place_reward(config, config.num_players), place_reward(config, 1)
    return LOSS_REWARD, WIN_REWARD


def heuristic_values(state: GeneralsState) -> list[float]:
    """A guess in [-1, 1] of each seat's final reward for a game cut short (search agents):
    cultural health against the target, and the strength in play."""
    if state.phase == OVER:
        return final_rewards(state)
    target = state.config.target
    scores: list[float | None] = []
    for seat, player in enumerate(state.players):
        if not player.alive:
            scores.append(None)
            continue
        might = sum(sum(numbers) for numbers in unit_numbers(state, seat) if numbers is not None)
        scores.append(player.ch / target + 0.02 * might + 0.05 * sum(player.kingdom))
    alive = [s for s in scores if s is not None]
    mean = sum(alive) / len(alive)
    values = []
    for seat, score in enumerate(scores):
        if score is None:
            values.append(final_rewards(state)[seat] if state.players[seat].place else -1.0)
        else:
            values.append(max(-1.0, min(1.0, score - mean)))
    return values
