"""What every game shares: card encoding, errors, the game protocol, RNG helpers."""
