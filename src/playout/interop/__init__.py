"""Bridges between playout and other game libraries.

* :mod:`playout.interop.openspiel`: run any (small, two-player zero-sum or one-player,
  perfect-information) OpenSpiel game under playout's search with
  :func:`~playout.interop.openspiel.from_openspiel`. Needs ``open-spiel`` (``pyspiel``).
* :mod:`playout.interop.openspiel_bot`: OpenSpiel's C++ MCTS bot as an arena player
  (``openspiel-mcts`` in player specs); imports ``pyspiel`` only when a player is built.

Each bridge is its own module so that importing :mod:`playout.interop` never imports a
third-party library; a missing one raises :class:`~playout.MissingDependencyError`, naming the
extra to install (``pip install "playout[openspiel]"``).
"""

__all__: list[str] = []
