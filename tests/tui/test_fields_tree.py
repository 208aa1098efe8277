"""The fields tree of a summary: a big one is built expanded, one line a label, without a
message per node."""

from __future__ import annotations

from textual.app import App, ComposeResult

from .conftest import settle


async def test_a_big_summarys_tree_is_built_expanded_without_a_message_per_node() -> None:
    # The fields tree of the offline model's summary of the 53 MB session has ~1,000 nodes.
    # Expanding them all afterwards posted one NodeExpanded message per node, and Textual's
    # Tree copied each label to take its first line: the frame after the tree was filled
    # held the loop 70-120 ms (benchmarks/app_big_session.py --why). The nodes are now added
    # expanded, and a label (one line already) is used as it is.
    from rich.text import Text
    from textual.widgets import Tree

    from goose_tui.compaction.structured import FileEntry, StructuredSummary
    from goose_tui.tui.widgets.fields_tree import ITEMS_SHOWN, FieldsTree

    class TreeApp(App[None]):
        def compose(self) -> ComposeResult:
            yield FieldsTree()

    code = "\n".join(f"def f{n}():\n    return {n}" for n in range(30))
    summary = StructuredSummary(
        user_intent=[f"intent {n}\nsecond line" for n in range(300)],
        files=[
            FileEntry(path=f"src/m{n}.py", summary=f"module {n}", key_code=code) for n in range(250)
        ],
        current_work="working",
        extras={"notes": {"a": [1, 2]}},
    )
    expanded: list[object] = []
    app = TreeApp()
    async with app.run_test(size=(120, 40)) as pilot:
        tree = app.query_one(FieldsTree)
        real_post = tree.post_message

        def post(message):  # type: ignore[no-untyped-def]
            if isinstance(message, Tree.NodeExpanded):
                expanded.append(message)
            return real_post(message)

        tree.post_message = post  # type: ignore[method-assign]
        tree.show_summary(summary)
        await settle(pilot)
        assert expanded == []
        nodes = [n for n in tree._tree_nodes.values() if n.parent is not None]  # not the root
        assert all(n.is_expanded for n in nodes if n.allow_expand)
        assert len(tree._tree_lines) == len(nodes)  # every node is shown
        labels = [line.node.label for line in tree._tree_lines]
        assert all(isinstance(label, Text) and "\n" not in label.plain for label in labels)
        assert "intent 0 ⏎ second line" in [label.plain for label in labels]
        files = next(n for n in tree.root.children if str(n.label).startswith("files"))
        assert len(files.children) == ITEMS_SHOWN + 1  # and "… 50 more"
        first_file = files.children[0]
        key_code = first_file.children[1]
        assert [str(c.label) for c in key_code.children[:2]] == ["def f0():", "    return 0"]
