"""The loaded session is kept out of the collector's full collections while the app runs,
and let go when it ends."""

from __future__ import annotations

from pathlib import Path

from goose_tui.tui.app import GooseTUI

from .conftest import settle


async def test_the_loaded_session_is_kept_out_of_full_collections() -> None:
    import gc

    app = GooseTUI(Path(__file__).parent / "data" / "small_session.jsonl")
    try:
        async with app.run_test() as pilot:
            await settle(pilot)
            assert app.inspector.session is not None
            message = app.inspector.session.messages[0]
            assert not any(obj is message for obj in gc.get_objects())
            assert gc.get_freeze_count()
        # Gone with the app: kept out, the apps of a test run (many in one process) piled up
        # and the next app's first load walked them all in a full collection (27 % of the
        # app tests' CPU under py-spy).
        assert gc.get_freeze_count() == 0
    finally:
        gc.unfreeze()
