"""playout's implementation: engine, tree, drivers, arena (``playout`` re-exports the public)."""
