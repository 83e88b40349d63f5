"""empire_envs: reinforcement-learning environments for the "Empire" family of card games.

Importing the package registers every environment id (see ``empire_envs.registry``); the games
themselves are imported only when an environment is made.
"""

from .registry import ENTRIES, make, register_all

__version__ = "0.1.0"

register_all()

__all__ = ["ENTRIES", "__version__", "make", "register_all"]
