"""The typed numba decorator :func:`playout._src.jit.jit`."""

from __future__ import annotations

import importlib.util
import textwrap
from pathlib import Path

import numba
import numpy as np
import pytest
from numba.core.registry import CPUDispatcher

from playout._src.jit import JitOptions, jit

OPTIONS: JitOptions = {"nogil": True, "error_model": "numpy", "_nrt": False}


@jit(inline="always", **OPTIONS)
def _scaled(x: float, k: float) -> float:
    return x * k


@jit(**OPTIONS)
def _total(values: np.ndarray, k: float) -> float:
    total = 0.0
    for v in values:
        total += _scaled(v, k)  # an inlined call from compiled code
    return total


def test_jit_gives_numba_dispatchers_with_the_options() -> None:
    assert isinstance(_total, CPUDispatcher) and isinstance(_scaled, CPUDispatcher)
    assert _total(np.arange(4.0), 2.0) == 12.0
    assert _total.py_func(np.arange(4.0), 2.0) == 12.0  # type: ignore[attr-defined]
    options = _total.targetoptions  # type: ignore[attr-defined]
    assert options["nogil"] is True and options["_nrt"] is False
    assert options["error_model"] == "numpy"
    assert _scaled.targetoptions["inline"] == "always"  # type: ignore[attr-defined]


def test_jit_with_a_signature_compiles_eagerly() -> None:
    @jit("float64(float64)", cache=False)
    def double(x: float) -> float:
        return 2.0 * x

    assert len(double.signatures) == 1  # type: ignore[attr-defined]
    assert double(1.5) == 3.0
    assert numba.njit("float64(float64)")(double.py_func)(2.0) == 4.0  # type: ignore[attr-defined]


def test_mypy_sees_the_decorated_signature(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """What the decorator is for: mypy checks calls against the function's own signature."""
    api = pytest.importorskip("mypy.api")
    probe = tmp_path / "probe.py"
    probe.write_text(
        textwrap.dedent(
            """
            from playout._src.jit import JitOptions, jit

            OPTIONS: JitOptions = {"cache": True, "nogil": True, "_nrt": False}

            @jit(inline="always", **OPTIONS)
            def add(a: int, b: float) -> float:
                return a + b

            reveal_type(add)
            add("one", 2.0)
            TYPO: JitOptions = {"nogill": True}
            """
        )
    )
    # This checkout's playout, not an installed one.
    monkeypatch.setenv("MYPYPATH", str(Path(__file__).resolve().parent.parent / "src"))
    out, err, _ = api.run(
        [
            str(probe),
            "--strict",
            "--follow-imports=silent",
            "--ignore-missing-imports",
            f"--cache-dir={tmp_path / 'cache'}",
        ]
    )
    lines = [line for line in out.splitlines() if line.startswith(str(probe))]
    assert any('Revealed type is "def (a: int, b: float) -> float"' in line for line in lines), out
    assert any("[arg-type]" in line and '"str"' in line for line in lines), out
    assert any("[typeddict-unknown-key]" in line and "nogill" in line for line in lines), out
    assert len([line for line in lines if ": error:" in line]) == 2, out + err


def test_sources_digest_makes_a_cached_entry_stale(tmp_path: Path) -> None:
    """An entry cached under one ``sources_digest`` is loaded under the same digest and
    ignored (compiled afresh) under another, as after an edit of the function's own file."""
    source = tmp_path / "digest_probe.py"
    source.write_text("def twice(x):\n    return 2 * x\n")
    spec = importlib.util.spec_from_file_location("digest_probe", source)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)

    def run(digest: str) -> tuple[int, int]:
        """(cache hits, cache misses) of one fresh dispatcher under ``digest``."""
        compiled = jit(cache=True, sources_digest=digest)(module.twice)
        assert compiled(21) == 42
        stats = compiled.stats  # type: ignore[attr-defined]
        return sum(stats.cache_hits.values()), sum(stats.cache_misses.values())

    assert run("one") == (0, 1)  # compiled and saved
    assert run("one") == (1, 0)  # loaded
    assert run("two") == (0, 1)  # stale under another digest: compiled again
    assert run("two") == (1, 0)


def test_stone_kernels_are_keyed_on_the_code_they_compile_in(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """The stone games' kernel functions compile in the shared bitboard code, the kernel
    API's inlined helpers and the generator: their caches, and the compiled loops that call
    them, are keyed on those files too, so an edit of any of them recompiles."""
    from playout._src.compiled import driver
    from playout._src.compiled import kernel as kernel_api
    from playout._src.jit import files_digest, sources_digest_of
    from playout._src.tree import rng
    from playout.games import _bitboard
    from playout.games.connect4 import kernel as c4
    from playout.games.mnk import kernel as mnk

    expected = files_digest(kernel_api.__file__, rng.__file__, _bitboard.__file__)
    assert sources_digest_of(c4.c4_play) == expected
    assert sources_digest_of(mnk.mnk_rollout) == expected
    before = driver._kernel_fingerprint((c4.c4_play, c4.c4_rollout))
    monkeypatch.setattr(c4.c4_play, "_playout_sources_digest", "an edited _bitboard.py")
    assert driver._kernel_fingerprint((c4.c4_play, c4.c4_rollout)) != before
