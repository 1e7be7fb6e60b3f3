"""Bridges between playout and other game libraries.

* :mod:`playout.interop.openspiel`: run any (small, two-player zero-sum or one-player,
  perfect-information) OpenSpiel game under playout's search with
  :func:`~playout.interop.openspiel.from_openspiel`. Needs ``open-spiel`` (``pyspiel``).

Each bridge is its own module so that importing :mod:`playout.interop` never imports a
third-party library.
"""

__all__: list[str] = []
