"""Measuring agents and environments; each module is also a ``python -m empire_envs`` command.

- ``evaluate``: one agent on one env, win/loss/draw rates with Wilson intervals
  (``evaluate_agent``, ``format_table``; command ``evaluate``);
- ``benchmark`` (``spec``, ``run``, ``statistics``, ``report``): agents across envs, variants and
  seeds, round robins with Elo ratings, tables and charts (``benchmark_report``; command
  ``benchmark``);
- ``speed``: decisions per second of every game of the registry beside the peer envs
  (``run_benchmarks``; command ``bench``);
- ``solvability``: the share of Solitaire deals that perfect play wins (command ``solvability``);
- ``deck_balance``: Empires and Generals deck against deck (command ``deck-balance``);
- ``reporting``: human text beside optional JSON;
- ``plotting``: the one matplotlib set-up of every chart (``HAVE_MATPLOTLIB``, the ``Agg``
  backend, ``save_figure``), which ``empire_envs.training`` draws through too.

Nothing here needs the ``train`` extra (charts use matplotlib when it is installed); training
lives in ``empire_envs.training``, which may use this package, never the other way round.
"""
