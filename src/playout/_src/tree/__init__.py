"""The search tree: its arrays, and the compiled phase functions that read and write them.

One module per idea, each imported from where it lives (this package re-exports nothing)::

    layout      the arrays, their fields and constants, growth          (no compiled code)
    rng         the generator every random choice of the compiled phases draws from
    selection   1. the walk from the root to a leaf (UCB1, PUCT, epsilon-greedy)
    expansion   2. a node and its edges
    backup      4. a simulation's value added along its path; virtual loss
    solver      MCTS-Solver: proven nodes, upwards from a leaf
    finish      the end of a simulation in one call: 2 + 4 + solver
    final_move  the one final-move rule and the read-outs built on it
    subtree     a kept subtree copied into fresh arrays (tree reuse)
    compiling   the numba options the phases share, keyed on the sources they compile in

Phase 3 (evaluation) is the game's: a rollout, a kernel's, or an evaluator's value.
"""
