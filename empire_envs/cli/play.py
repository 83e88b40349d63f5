"""``play``: a human plays a registered env in the terminal.

In a solo (Gymnasium) env the human makes every decision. In a multiplayer (PettingZoo AEC)
env the human holds one seat and the others are played by agents (a list of names, cycled
over the other seats in seat order). On each of the human's turns the session prints the
position as that seat sees it (the whole truth with ``reveal``), the legal actions numbered
0..n-1 in ascending action-index order with their names, and a prompt. A reply is one of:

* a number 0..n-1: play that listed action (the list number, not the raw action index);
* ``u``: undo the human's last decision (and the opponents' moves after it);
* ``h``: help; ``q``: quit.

Undo replays the recorded actions from a reset with the same seed, with the opponents'
agents re-seeded as on the first deal and asked again at each of their turns, so the
position, the env's random draws and the agents' own state are all exactly restored.
Quitting or end of input (Ctrl-D) ends the session with ``Result: abandoned``; a finished game
ends with ``Result: you won (+1.0)`` and the like.

Every opponent's move is announced by name as it is played, with only what the human's seat may
see (``move_name``: the game's ``Game.announce_action``, e.g. a Pillars trade offer is
``OFFER (sealed)`` and Map Duel's first face-down face ``FACE (face down)``; each game's
``actions.announce_action`` says what it hides); ``reveal`` shows everything. A seat offset is
followed by the seat it points at: ``player_3 (heuristic): BATTLE +1 for 9 (+1 is you)``.
"""

from __future__ import annotations

import builtins
import sys
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import TextIO

from ..agents.base import Agent
from .common import CliError, choose, format_reward, reseed, seat_agents
from .match import Match

HELP = """\
Commands:
  <number>  play the listed move with that number (0 is the first move listed)
  u         undo your last move (the opponents' moves after it are undone too)
  h         show this help
  q         quit (Ctrl-D also quits)"""


@dataclass(frozen=True)
class Pick:
    """The reply picked the listed move ``choice`` (0-based)."""

    choice: int


@dataclass(frozen=True)
class Command:
    """The reply is ``undo``, ``help`` or ``quit``."""

    name: str


@dataclass(frozen=True)
class Invalid:
    """The reply means nothing here; ``message`` says why."""

    message: str


Reply = Pick | Command | Invalid

COMMANDS = {
    "u": "undo",
    "undo": "undo",
    "h": "help",
    "help": "help",
    "?": "help",
    "q": "quit",
    "quit": "quit",
    "exit": "quit",
}


def parse_reply(text: str, count: int) -> Reply:
    """What a line typed at the prompt asks for, given ``count`` listed moves."""
    word = text.strip().lower()
    if word in COMMANDS:
        return Command(COMMANDS[word])
    if not word:
        return Invalid(f"Type a move number 0-{count - 1}, u (undo), h (help) or q (quit).")
    try:
        choice = int(word)
    except ValueError:
        return Invalid(
            f"Not a move or command: {text.strip()!r}. Type a move number 0-{count - 1}, "
            "u (undo), h (help) or q (quit)."
        )
    if not 0 <= choice < count:
        return Invalid(f"No move number {choice}: choose a listed move from 0 to {count - 1}.")
    return Pick(choice)


def result_line(outcome: str | None, reward: float, result: str | None) -> str:
    """``Result: you won (+1.0)``, ``Result: you lost (-1.0)``, ``Result: draw (+0.0)``,
    ``Result: truncated (+0.0)``, with the game's own result appended where it gives one."""
    phrase = {"won": "you won", "lost": "you lost", "draw": "draw", "truncated": "truncated"}
    text = f"Result: {phrase.get(outcome or '', outcome or 'unknown')} ({format_reward(reward)})"
    return f"{text} - {result}" if result else text


@dataclass
class PlaySession:
    """A human on ``human``'s seat of ``match``, ``opponents`` (seat -> agent spec) on the
    others. ``read`` gets a line (like ``input``, raising ``EOFError`` at the end of input);
    ``out`` gets everything printed."""

    match: Match
    human: int
    opponents: dict[int, str]
    reveal: bool = False
    read: Callable[[str], str] = builtins.input
    out: TextIO = field(default_factory=lambda: sys.stdout)
    agents: dict[int, Agent] = field(init=False)

    def __post_init__(self) -> None:
        self.agents = seat_agents(self.opponents, self.match)

    # ------------------------------------------------------------------ output

    def say(self, text: str = "") -> None:
        """Print a line and flush (a terminal or a pipe shows it at once)."""
        print(text, file=self.out, flush=True)

    def opening(self) -> str:
        """The first line: env, seed, the human's seat and the opponents."""
        match = self.match
        line = f"{match.entry.env_id} ({match.game_name}), seed {match.seed}"
        if match.players > 1:
            others = ", ".join(f"{match.seat_label(s)}: {spec}" for s, spec in self.opponents.items())
            line += f"; you are {match.seat_label(self.human)} (seat {self.human}); {others}"
        return line + ". Type h for help."

    def show_turn(self, legal: list[int]) -> None:
        """The position as the human sees it and the numbered legal moves."""
        match = self.match
        mine = sum(1 for seat, _ in match.history if seat == self.human)
        self.say()
        self.say(f"=== your move #{mine + 1} ({match.seat_label(self.human)}) ===")
        self.say(match.text(None if self.reveal else self.human).rstrip("\n"))
        self.say("Legal moves:")
        width = len(str(len(legal) - 1))
        for number, action in enumerate(legal):
            self.say(f"  {number:>{width}}) {match.action_name(action)}")

    # ------------------------------------------------------------------ play

    def human_done(self) -> bool:
        """True once the human's episode is over (the game ended, or the seat is out)."""
        return self.match.over or self.match.outcome(self.human) is not None

    def play_opponents(self, echo: bool = True) -> None:
        """Let the agents move until it is the human's turn or the game is over."""
        match = self.match
        while not match.over and match.seat != self.human:
            seat = match.seat
            action = choose(self.agents[seat], match)
            if echo:
                name = move_name(match, seat, action, self.human, self.reveal)
                self.say(f"{match.seat_label(seat)} ({self.opponents[seat]}): {name}")
            match.step(action)

    def replay(self, history: list[tuple[int, int]]) -> bool:
        """Reset and replay ``history``; False if an agent chose differently on the way
        (the recorded action is kept)."""
        match = self.match
        match.reset()
        reseed(self.agents, match.seed)
        exact = True
        for seat, action in history:
            if seat in self.agents:
                exact &= choose(self.agents[seat], match) == action
            match.step(action)
        return exact

    def undo(self) -> None:
        """Take back the human's last decision and everything after it."""
        history = self.match.history
        mine = [i for i, (seat, _) in enumerate(history) if seat == self.human]
        if not mine:
            self.say("Nothing to undo yet.")
            return
        undone = len(history) - mine[-1]
        exact = self.replay(history[: mine[-1]])
        others = f" and {undone - 1} opponent move(s) after it" if undone > 1 else ""
        self.say(f"Undone: your last move{others}.")
        if not exact:
            self.say("Note: an opponent agent chose differently on replay; the recorded moves were kept.")

    def human_turn(self) -> bool:
        """One decision of the human (with any undo, help or bad input before it); False when
        the human quits or the input ends."""
        legal = self.match.legal_actions()
        self.show_turn(legal)
        while True:
            try:
                text = self.read(f"Your move [0-{len(legal) - 1}, u, h, q]: ")
            except EOFError:
                self.say()
                self.say("End of input: leaving the game.")
                return False
            reply = parse_reply(text, len(legal))
            if isinstance(reply, Pick):
                self.match.step(legal[reply.choice])
                return True
            if isinstance(reply, Invalid):
                self.say(reply.message)
            elif reply.name == "help":
                self.say(HELP)
            elif reply.name == "quit":
                self.say("You quit the game.")
                return False
            else:
                self.undo()
                return True

    def finish(self) -> None:
        """The final position and the result line."""
        match = self.match
        self.say()
        self.say("=== game over ===" if match.over else "=== you are out of the game ===")
        self.say(match.text(None if match.over or self.reveal else self.human).rstrip("\n"))
        self.say(result_line(match.outcome(self.human), match.total_reward(self.human), match.result))

    def run(self) -> int:
        """Play until the game ends for the human, they quit, or the input ends; exit status 0."""
        self.say(self.opening())
        while True:
            self.play_opponents()
            if self.human_done():
                self.finish()
                return 0
            if not self.human_turn():
                self.say("Result: abandoned")
                return 0


def move_name(match: Match, seat: int, action: int, viewer: int, reveal: bool = False) -> str:
    """What seat ``viewer`` is told of ``seat``'s ``action``, called before it is played: the
    game's ``Game.announced`` name (less what ``viewer`` cannot see, unless ``reveal``)."""
    return match.game.announced(match.state, seat, action, viewer, reveal)


def seat_specs(match: Match, human: int, opponents: list[str]) -> dict[int, str]:
    """The agent spec of every seat but the human's: ``opponents`` cycled in seat order."""
    if not 0 <= human < match.players:
        if match.players == 1:
            raise CliError(f"{match.entry.env_id} is a solo game: --seat must be 0, got {human}")
        raise CliError(f"--seat must be 0..{match.players - 1} for {match.entry.env_id}, got {human}")
    others = [seat for seat in range(match.players) if seat != human]
    return {seat: opponents[k % len(opponents)] for k, seat in enumerate(others)}
