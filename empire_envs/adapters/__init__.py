"""Generic environment adapters: one for Gymnasium (solo games), one for PettingZoo AEC."""
