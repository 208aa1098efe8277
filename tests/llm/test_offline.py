"""The offline summarizer, the replay summarizer and the model factory: no network."""

from __future__ import annotations

import json
import re
from pathlib import Path
from unittest.mock import patch

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from goose_tui.compaction.summarize import CompactionFailed, build_request, summarize
from goose_tui.compaction.templates import Templates, load_templates
from goose_tui.compaction.visibility import summarizer_messages
from goose_tui.llm import make_summarizer, offline
from goose_tui.llm.base import ContextLengthExceeded, ModelError
from goose_tui.llm.litellm_backend import LiteLLMSummarizer
from goose_tui.llm.offline import OfflineSummarizer, conversation_text, read_conversation
from goose_tui.llm.prompt_layout import prompt_layout
from goose_tui.llm.replay import ReplaySummarizer
from goose_tui.pieces import Pieces
from goose_tui.session.loader import load_session
from goose_tui.session.models import Message
from tests.conftest import REALDATA
from tests.summary_fields import SUMMARY_FIELDS

FIRST_ASK = "Fix the failing test in calc.py.\nAlso add a README with usage."
LAST_ASK = "Great. Next, make `sub` handle floats too."
TRACEBACK = [
    "Traceback (most recent call last):",
    '  File "/w/test_calc.py", line 4, in test_add',
    "AssertionError: assert -1 == 3",
]


def tool(i: str, name: str, args: dict) -> dict:
    call = {"status": "success", "value": {"name": name, "arguments": args}}
    return {"type": "toolRequest", "id": i, "toolCall": call}


def result(i: str, body: str) -> dict:
    value = {"content": [{"type": "text", "text": body}], "isError": False}
    return {"type": "toolResponse", "id": i, "toolResult": {"status": "success", "value": value}}


def msg(role: str, *content: dict | str) -> Message:
    items = [{"type": "text", "text": c} if isinstance(c, str) else c for c in content]
    return Message(role=role, content=items)


def coding_session() -> list[Message]:
    view = {"command": "view", "path": "/w/calc.py"}
    fix = {"command": "str_replace", "path": "/w/calc.py", "old_str": "a-b", "new_str": "a+b"}
    readme = {"path": "/w/README.md", "content": "# calc\n\nAdds numbers."}
    return [
        msg("user", FIRST_ASK),
        msg(
            "assistant", "Let me look at the code first.", tool("1", "developer__text_editor", view)
        ),
        # File contents full of error words are code, not a failure.
        msg(
            "user",
            result(
                "1", "def add(a, b):\n    if a is None:\n        raise ValueError\n    return a-b"
            ),
        ),
        msg(
            "assistant",
            {"type": "thinking", "thinking": "secret plan", "signature": "s"},
            tool("2", "developer__shell", {"command": "pytest -q"}),
        ),
        msg("user", result("2", "F\n" + "\n".join(TRACEBACK) + "\n1 failed in 0.1s")),
        msg("assistant", tool("3", "developer__text_editor", fix)),
        msg("user", result("3", "The file /w/calc.py has been edited.")),
        msg("assistant", tool("4", "write", readme)),
        msg("user", result("4", "Created /w/README.md (3 lines)")),
        msg("assistant", "Fixed the sign bug in add and wrote the README. Tests pass."),
        msg("user", LAST_ASK),
    ]


@pytest.fixture(scope="module")
def templates() -> Templates:
    return load_templates(None)


def structured(reply: str) -> dict:
    assert reply.startswith("<analysis>\n")
    blocks = re.findall(r"```json\n(.*?)\n```", reply, re.S)
    assert len(blocks) == 1
    return json.loads(blocks[0])


def test_the_conversation_is_read_back_from_the_prompt(templates: Templates) -> None:
    prompt = build_request(coding_session(), templates).system_prompt
    parsed = list(read_conversation(prompt))
    assert [m.role for m in parsed] == [m.role for m in coding_session()]
    assert parsed[0].text() == FIRST_ASK
    assert parsed[-1].text() == LAST_ASK  # nothing of the template's tail glued on
    assert parsed[4].parts[0].kind == "tool_response"
    assert "AssertionError" in parsed[4].parts[0].text


def _parsed_from_a_copy(prompt: str) -> list[tuple[str, list[tuple[str, str]]]]:
    """What read_conversation read before it worked on the prompt in place: the
    conversation cut out of the prompt (a copy) and split at its role lines."""
    text = conversation_text(prompt)
    starts = [m.start() for m in offline._ROLE_LINE.finditer(text)]
    out = []
    for i, start in enumerate(starts):
        block = text[start : starts[i + 1] - 1 if i + 1 < len(starts) else len(text)]
        role, body = block[1 : block.index("]")], block[block.index(": ") + 2 :]
        out.append((role, [(p.kind, p.text) for p in offline._parse_parts(body)]))
    return out


@pytest.mark.slow
@settings(max_examples=300, deadline=None)
@given(
    pieces=st.lists(
        st.sampled_from(
            ["[user]: ", "[assistant]: ", "[system]: ", "\n", "x", "tool_response: ", " ", "]"]
        ),
        max_size=40,
    ),
    template=st.sampled_from(["builtin", "builtin-focus", "other", "no-newline"]),
    data=st.data(),
)
def test_the_conversation_is_read_in_place_as_from_a_copy(
    pieces: list[str], template: str, data: st.DataObject
) -> None:
    # The offline summarizer read the conversation from a copy of the prompt (188 MB for the
    # 53 MB session, made while the GIL was held); it reads it in place now.
    layout = prompt_layout()
    assert layout is not None
    body = "".join(pieces)
    prompt = {
        "builtin": layout.prefix + body + layout.suffix,
        "builtin-focus": layout.prefix + body + layout.suffix + "\n\n" + layout.focus_heading,
        "other": "Summarize this:\n" + body + "\nThanks",
        "no-newline": "Summarize:" + body,
    }[template]
    parsed = [(m.role, [(p.kind, p.text) for p in m.parts]) for m in read_conversation(prompt)]
    assert parsed == _parsed_from_a_copy(prompt)
    # The prompt as the pipeline hands it over: its pieces (goose_tui.pieces), cut anywhere,
    # searched a few characters at a time, never joined.
    cuts = sorted(data.draw(st.lists(st.integers(0, len(prompt)), max_size=12)))
    bounds = [0, *cuts, len(prompt)]
    cut = Pieces(prompt[a:b] for a, b in zip(bounds, bounds[1:], strict=False))
    with patch.object(offline, "WINDOW_CHARS", data.draw(st.integers(1, 40))):
        in_pieces = [(m.role, [(p.kind, p.text) for p in m.parts]) for m in read_conversation(cut)]
        assert in_pieces == parsed
        assert conversation_text(cut) == conversation_text(prompt)


async def test_offline_reply_has_the_contract_shape_and_the_facts(templates: Templates) -> None:
    request = build_request(coding_session(), templates)
    reply = (await OfflineSummarizer().complete(request.messages)).text
    fields = structured(reply)
    assert list(fields)[:9] == list(SUMMARY_FIELDS)
    assert fields["user_messages"] == [FIRST_ASK, LAST_ASK]  # verbatim, tool output excluded
    files = {f["path"]: f for f in fields["files"]}
    assert files["/w/calc.py"]["summary"] == "Viewed, edited"
    assert files["/w/calc.py"]["key_code"] == "a+b"
    assert files["/w/README.md"]["summary"] == "Written"
    (error,) = fields["errors_and_fixes"]
    assert "pytest -q" in error
    for line in (TRACEBACK[0], TRACEBACK[2]):
        assert line in error.split("\n")  # quoted verbatim
    assert "Fix that followed: edited /w/calc.py" in error
    assert LAST_ASK in fields["pending_tasks"]
    assert FIRST_ASK in fields["pending_tasks"]  # it says "also"
    assert "Fixed the sign bug" in fields["current_work"]
    assert "/w/README.md" in fields["current_work"]
    assert "sub" in fields["next_step"]
    assert "secret plan" not in reply  # thinking never reaches the summarizer
    assert {"Python", "pytest"} <= set(fields["technical_concepts"])


async def test_offline_end_to_end_renders_every_section(templates: Templates) -> None:
    result = await summarize(coding_session(), OfflineSummarizer(), templates)
    assert not result.extraction.fallback
    for heading in (
        "User Intent",
        "Technical Concepts",
        "Files + Code",
        "Errors + Fixes",
        "Problem Solving",
        "User Messages",
        "Pending Tasks",
        "Current Work",
        "Next Step",
    ):
        assert f"## {heading}" in result.summary
    again = await summarize(coding_session(), OfflineSummarizer(), templates)
    assert again.raw_response == result.raw_response  # deterministic


async def test_offline_streams_in_pieces(templates: Templates) -> None:
    chunks: list[str] = []
    request = build_request(coding_session(), templates)
    completion = await OfflineSummarizer().complete(request.messages, on_chunk=chunks.append)
    assert len(chunks) > 10 and "".join(chunks) == completion.text
    assert completion.usage.input_tokens is None  # estimated by the pipeline


async def test_offline_context_limit_drives_the_ladder(templates: Templates) -> None:
    session = coding_session()
    full = build_request(session, templates)
    with pytest.raises(ContextLengthExceeded, match="over the limit of 10"):
        await OfflineSummarizer(context_limit=10).complete(full.messages)
    # A limit between the full prompt and the prompt without any tool output.
    from goose_tui.tokens import count_tokens

    without = build_request([m for m in session if not m.has_tool_response()], templates)
    size = lambda r: sum(count_tokens(m.content) for m in r.messages)  # noqa: E731
    limit = (size(full) + size(without)) // 2 + 1
    result = await summarize(session, OfflineSummarizer(context_limit=limit), templates)
    assert result.attempts[0].outcome == "context_length_exceeded"
    assert result.attempts[-1].outcome == "ok"
    with pytest.raises(CompactionFailed, match="even after removing all tool responses"):
        await summarize(session, OfflineSummarizer(context_limit=size(without) - 1), templates)


async def test_offline_on_a_real_goose_export(templates: Templates) -> None:
    session = load_session(REALDATA / "export-session.json")
    result = await summarize(session.messages, OfflineSummarizer(), templates)
    fields = result.extraction.structured
    assert fields is not None
    assert fields.user_messages == ["Create greeting.txt containing the word hello"]
    assert [(f.path, f.summary, f.key_code) for f in fields.files] == [
        ("/tmp/greeting.txt", "Written", "hello")
    ]


async def test_replay_reads_the_file_at_call_time(tmp_path: Path, templates: Templates) -> None:
    reply = tmp_path / "reply.txt"
    reply.write_text("first version")
    summarizer = make_summarizer(f"replay:{reply}")
    assert isinstance(summarizer, ReplaySummarizer)
    chunks: list[str] = []
    first = await summarizer.complete([], on_chunk=chunks.append)
    assert first.text == "first version" == "".join(chunks)
    reply.write_text("x" * 1000)
    chunks.clear()
    second = await summarizer.complete([])
    assert second.text == "x" * 1000
    result = await summarize([msg("user", "hi")], summarizer, templates)
    assert result.summary == "x" * 1000 and result.extraction.fallback


async def test_replay_of_a_missing_file_is_a_model_error(tmp_path: Path) -> None:
    with pytest.raises(ModelError, match="gone.txt"):
        await ReplaySummarizer(tmp_path / "gone.txt").complete([])


def test_factory(monkeypatch: pytest.MonkeyPatch) -> None:
    from goose_tui.llm import litellm_backend

    assert isinstance(make_summarizer("offline"), OfflineSummarizer)
    assert make_summarizer("offline", offline_context_limit=5).context_limit == 5
    # A litellm summarizer starts litellm's import in the background. Not here: the import
    # (5-14 s of CPU) ran on through the worker's next ~60 tests, and its allocations passed
    # a memory test's bound (tests/core/test_tokens_memory.py).
    started: list[bool] = []
    monkeypatch.setattr(litellm_backend, "prepare_litellm", lambda: started.append(True))
    remote = make_summarizer("openai/gpt-4o-mini", api_base="http://127.0.0.1:9/v1")
    assert started == [True]
    assert isinstance(remote, LiteLLMSummarizer)
    assert remote.name == "openai/gpt-4o-mini" and remote.api_base == "http://127.0.0.1:9/v1"
    for bad in ("", "replay:"):
        with pytest.raises(ValueError):
            make_summarizer(bad)
    with pytest.raises(ValueError):
        make_summarizer("openai/x", offline_context_limit=3)


async def test_offline_reply_that_is_only_a_code_block_gives_no_fence_bullet(
    templates: Templates,
) -> None:
    """export-text.json (issue 14): the assistant's only text is a ```json block (a tool call
    printed as text). Its fence line is not a sentence of problem solving."""
    session = load_session(REALDATA / "export-text.json")
    result = await summarize(session.messages, OfflineSummarizer(), templates)
    fields = result.extraction.structured
    assert fields is not None
    assert all("```" not in item for item in fields.problem_solving)
    assert "- ```json" not in result.summary
    assert all(item.strip("`").strip() for item in fields.problem_solving)


async def test_offline_takes_prose_around_code_blocks(templates: Templates) -> None:
    messages = [
        Message(role="user", content=[{"type": "text", "text": "Show me the config."}]),
        Message(
            role="assistant",
            content=[
                {
                    "type": "text",
                    "text": "```toml\n[tool]\nname = 1\n```\nThis is the config you asked for.",
                }
            ],
        ),
    ]
    result = await summarize(messages, OfflineSummarizer(), templates)
    fields = result.extraction.structured
    assert fields is not None
    assert fields.problem_solving == ["This is the config you asked for."]


@pytest.mark.parametrize("focus", [None, "keep the file paths"])
async def test_offline_reads_goose_mains_json_records_as_it_reads_role_lines(
    templates: Templates, focus: str | None
) -> None:
    # goose-pr-11845 writes each message as one JSON record (goose_tui/compaction/profiles.py);
    # the offline model found no "[role]: " line in it and answered "0 messages", a reply
    # with no field filled (the raw-text fallback), for every session under that profile.
    messages = coding_session()
    record_like = 'a line that looks like a record:\n{"role":"user","content":["x"]}'
    messages.append(msg("user", record_like))
    messages.append(Message(role="assistant", content=[]))
    wheel = build_request(messages, templates, focus, profile="goose-sdk-wheel")
    main = build_request(messages, templates, focus, profile="goose-pr-11845")
    assert '{"role":"user","content":[' in str(main.prompt)
    assert list(read_conversation(main.prompt)) == list(read_conversation(wheel.prompt))
    wheel_reply = (await OfflineSummarizer().complete(wheel.messages)).text
    main_reply = (await OfflineSummarizer().complete(main.messages)).text
    count = len(list(read_conversation(main.prompt)))
    # The record-like line is text; the message without content is sent, with no parts.
    assert count == len(summarizer_messages(messages)) == 13
    assert main_reply == wheel_reply and f"- {count} messages;" in main_reply


async def test_a_long_conversations_lists_keep_their_first_and_latest_items(
    templates: Templates,
) -> None:
    # The reply has to fit in the context it replaces: for the bench's 20,000 messages it
    # was 1.9 MB (~500,000 tokens), every user message quoted and every reply listed.
    def conversation(turns: int) -> list[Message]:
        messages = []
        for i in range(turns):
            messages.append(msg("user", f"Request {i}: change module_{i}.py."))
            messages.append(msg("assistant", f"Reply {i}: I changed module_{i}.py as asked."))
        return messages

    short = structured(
        (
            await OfflineSummarizer().complete(build_request(conversation(60), templates).messages)
        ).text
    )
    assert len(short["user_messages"]) == 60  # up to 20 + 40: every one, as before

    request = build_request(conversation(500), templates)
    reply = (await OfflineSummarizer().complete(request.messages)).text
    fields = structured(reply)
    quoted = fields["user_messages"]
    assert quoted[:20] == [f"Request {i}: change module_{i}.py." for i in range(20)]
    assert quoted[20] == "… 440 more user messages, not listed here …"
    assert quoted[21:] == [f"Request {i}: change module_{i}.py." for i in range(460, 500)]
    assert len(fields["user_intent"]) == len(fields["problem_solving"]) == 61
    assert "- 1000 messages; 500 from the user, the first 20 and last 40 kept verbatim" in reply
    assert len(reply) < 20_000


async def test_goose_mains_records_are_read_under_a_template_of_ones_own(tmp_path: Path) -> None:
    # Without the built-in template's layout the conversation is found by its first
    # message's line: a record as well as a role line.
    (tmp_path / "compaction.md").write_text("Sum it up.\n{{ messages }}\nThanks.\n")
    own = load_templates(tmp_path)
    messages = coding_session()
    wheel = build_request(messages, own, profile="goose-sdk-wheel")
    main = build_request(messages, own, profile="goose-pr-11845")
    assert [m.role for m in read_conversation(main.prompt)] == [
        m.role for m in read_conversation(wheel.prompt)
    ]
    assert len(list(read_conversation(main.prompt))) == len(summarizer_messages(messages))


async def test_goose_continuation_message_is_not_read_as_the_conversations_last_reply(
    templates: Templates, tmp_path: Path
) -> None:
    # A saved compacted session ends, as Goose leaves one, with the agent-only "Your context
    # was compacted…" message after the summary. Compacting it again, the offline model took
    # that for the assistant's last reply ("Last reply: Your context was compacted…").
    from goose_tui.session.writer import GOOSE_CONTINUATION_TEXT, save_compacted_session
    from tests.conftest import SAMPLES

    session = load_session(SAMPLES / "short.jsonl")
    first = await summarize(session.messages, OfflineSummarizer(), templates)
    saved = save_compacted_session(tmp_path / "c.jsonl", session, first.summary, "jsonl")
    again = await summarize(load_session(saved).messages, OfflineSummarizer(), templates)
    assert GOOSE_CONTINUATION_TEXT in again.request.system_prompt  # Goose sends it: so do we
    assert "Your context was compacted" not in again.summary
