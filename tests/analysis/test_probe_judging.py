"""The model path of the probes, judged on meaning: litellm against the loopback server, with
a scripted reader (tests/analysis/scripted_reader.py) that answers from what the summary
says and judges what the answer means. A paraphrase scores as the words it paraphrases, a
partial answer in between, a right guess the summary does not back scores nothing, exact
strings count only where the writer asked for them, and a judgement that cannot be read is
unscored."""

from __future__ import annotations

import pytest

from goose_tui.analysis.probe_model import parse_judgement, run_probes
from goose_tui.analysis.probes import ProbeReport
from goose_tui.llm.spec import ModelSpec
from goose_tui.session.models import Message
from tests.analysis.scripted_reader import GUESSER, PROSE_JUDGE, ScriptedReader
from tests.analysis.validity import Conversation
from tests.conftest import LITELLM_GROUP
from tests.loopback import LoopbackServer

pytestmark = pytest.mark.xdist_group(LITELLM_GROUP)

FAILING = "What is still failing?"
NEXT = "What is the next step?"
DECIDED = "Which time zone library was chosen, and why?"
KEY = "Which time zone key did the user give?"
CITY = "Whose local time must the reminders follow?"

READER = ScriptedReader(
    probes=[
        {"kind": "continuation", "question": FAILING, "message": 6,
         "expected": "ZoneInfoNotFoundError: 'No time zone found with key Europe/Berlin'"},
        {"kind": "continuation", "question": NEXT, "message": 6,
         "expected": "Add tzdata to requirements.txt, then rebuild the image."},
        {"kind": "decision", "question": DECIDED, "message": 2,
         "expected": "zoneinfo over pytz, because it ships with Python"},
        {"kind": "recall", "question": KEY, "expected": "Europe/Berlin", "exact": True,
         "message": 1},
        {"kind": "recall", "question": CITY, "expected": "Europe/Berlin", "message": 1},
    ],
    facts={
        "tz-error": ["ZoneInfoNotFoundError", "cannot find the tzdata module",
                     "no time zone database"],
        "tzdata": ["tzdata to requirements", "install the tzdata package"],
        "rebuild": ["rebuild the image", "build the image again"],
        "zoneinfo": ["zoneinfo over pytz", "zoneinfo rather than pytz",
                     "zoneinfo instead of pytz"],
        "stdlib": ["ships with python", "standard library"],
        "berlin": ["Europe/Berlin", "Berlin time"],
    },
    about={
        FAILING: ["tz-error"],
        NEXT: ["tzdata", "rebuild"],
        DECIDED: ["zoneinfo", "stdlib"],
        KEY: ["berlin"],
        CITY: ["berlin"],
    },
    guesses={NEXT: "Add tzdata to requirements.txt and rebuild the image."},
)  # fmt: skip


def session() -> list[Message]:
    c = Conversation()
    c.user("Reminders go out an hour late. The office is in Europe/Berlin; fix the time zone.")
    c.say("I'll use zoneinfo rather than pytz, because zoneinfo ships with Python.")
    c.edit("str_replace", "/srv/app/reminders.py", "edited", old_str="pytz", new_str="zoneinfo")
    c.shell(
        "docker compose run app pytest",
        "zoneinfo._common.ZoneInfoNotFoundError: 'No time zone found with key Europe/Berlin'",
        error=True,
    )
    c.say("The image has no time zone database. Next: add tzdata to requirements.txt, then "
          "rebuild the image.")  # fmt: skip
    return c.messages


VERBATIM = """\
## Errors
- ZoneInfoNotFoundError: 'No time zone found with key Europe/Berlin' when the tests run.
## Decisions
- zoneinfo over pytz, because it ships with Python.
## Next Step
- Add tzdata to requirements.txt, then rebuild the image.
"""
PARAPHRASED = """\
The reminders now use zoneinfo instead of pytz, which is in the standard library, for the
office's Europe/Berlin time.
Still open: the container cannot find the tzdata module, so Europe/Berlin cannot load.
Next: install the tzdata package and build the image again.
"""


async def probe(summary: str, **models: str) -> tuple[ProbeReport, list[str]]:
    with LoopbackServer(responder=READER) as server:
        api = f"{server.url}/v1"
        specs = {role: ModelSpec.parse(f"openai/{m}", api_base=api) for role, m in models.items()}
        report = await run_probes(session(), summary, specs.pop("model", None), **specs)
        return report, [body["model"] for body in server.bodies()]


def scores(report: ProbeReport) -> dict[str, float | None]:
    return {r.probe.question: r.score for r in report.results}


async def test_a_paraphrase_scores_as_the_words_it_paraphrases() -> None:
    verbatim, _ = await probe(VERBATIM, model="m")
    paraphrased, _ = await probe(PARAPHRASED, model="m")
    assert scores(verbatim) == scores(paraphrased) == dict.fromkeys(scores(verbatim), 1.0)
    answered = {r.probe.question: r.answer for r in paraphrased.results}
    assert "tzdata module" in answered[FAILING]  # in the summary's words, not the error's


async def test_a_partial_answer_scores_in_between() -> None:
    partial = "zoneinfo rather than pytz.\nNext: add tzdata to requirements and see.\n"
    report, _ = await probe(partial, model="m")
    assert scores(report)[DECIDED] == 0.5  # the choice without its reason
    assert scores(report)[NEXT] == 0.5  # the package without the rebuild
    assert report.kind("decision").partial == 1 and report.kind("continuation").missing == 1


async def test_a_right_guess_the_summary_does_not_back_scores_nothing() -> None:
    silent = "Moved the reminders to zoneinfo rather than pytz; tests fail on a missing zone."
    report, models = await probe(silent, model="writer", answerer=GUESSER, judge="judge")
    guessed = next(r for r in report.results if r.probe.question == NEXT)
    assert guessed.answer == READER.guesses[NEXT]  # right, but not from the summary
    assert guessed.score == 0.0 and guessed.outcome == "missing"
    assert (report.writer, report.answerer, report.judge) == (
        "openai/writer",
        f"openai/{GUESSER}",
        "openai/judge",
    )
    assert models.count("writer") == 1 and models.count(GUESSER) == models.count("judge") == 5


async def test_exact_strings_count_only_where_the_writer_asked_for_them() -> None:
    report, _ = await probe("Reminders must follow Berlin time.", model="m")
    assert scores(report)[KEY] == 0.0  # the key itself is what the agent must reuse
    assert scores(report)[CITY] == 1.0  # a question of meaning
    assert [r.probe.exact for r in report.results] == [False, False, False, True, False]


async def test_a_judgement_that_cannot_be_read_is_unscored() -> None:
    report, _ = await probe(VERBATIM, model="m", judge=PROSE_JUDGE)
    assert all(r.score is None and r.outcome == "unscored" for r in report.results)
    assert all(r.verdict.startswith("unscored:") for r in report.results)
    assert all(k.score is None and k.unscored == k.probes for k in report.kinds)
    assert report.overall is None


@pytest.mark.parametrize(
    "reply",
    ["I would give it 1 of 2.", "0.5", '{"score": "1"}', '{"score": true}', '{"grade": 1}'],
)
def test_a_reply_without_a_json_score_is_no_number(reply: str) -> None:
    assert parse_judgement(reply)[0] is None


def test_a_json_score_is_read_and_clamped() -> None:
    assert parse_judgement('Here: {"score": 0.5, "reason": "half"}') == (0.5, "half")
    assert parse_judgement('```json\n{"score": 3}\n```')[0] == 1.0
