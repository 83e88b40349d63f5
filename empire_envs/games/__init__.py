"""One package per rule set; each has the same files (config, state, rules, actions, observe, render)."""
