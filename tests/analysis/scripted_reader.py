"""A fake of the models that write, answer and judge probes, served by tests/loopback.py so
that every call goes through litellm, the templates and the parsers. It is a fake, and says
so: no model runs here.

It reads meaning through a table of facts, each with the phrasings that state it (an error
named by its class or by its cause, a step said in other words), not by comparing strings
with the expected answer. Asked a question it answers with the summary's lines that state
what the question is about, in the summary's words; with nothing there it says ``NOT IN
SUMMARY``, unless it is the guessing model, which answers anyway. As a judge it reads the
question, the reference, the answer and the summary from its prompt and gives the share of
the reference's facts that the answer states and the summary backs; a probe marked exact
scores only the reference string itself. The prose judge replies without a JSON score.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from typing import Any

from tests.loopback import Reply

USAGE = {"prompt_tokens": 100, "completion_tokens": 10, "total_tokens": 110}
GUESSER = "guesser"  # the answerer model that guesses when the summary is silent
PROSE_JUDGE = "prose-judge"  # the judge model that replies in prose


def between(text: str, start: str, end: str | None) -> str:
    tail = text.split(start, 1)[1]
    return tail.split(end, 1)[0].strip() if end else tail.strip()


@dataclass
class ScriptedReader:
    probes: list[dict[str, Any]]  # what the writer returns
    facts: dict[str, list[str]]  # fact -> the phrasings that state it
    about: dict[str, list[str]]  # question -> the facts it asks for
    guesses: dict[str, str] = field(default_factory=dict)  # question -> the guesser's answer

    def stated(self, text: str) -> set[str]:
        folded = text.casefold()
        return {f for f, says in self.facts.items() if any(s.casefold() in folded for s in says)}

    def __call__(self, body: Any) -> Reply:
        system = body["messages"][0]["content"]
        if "preparing an exam" in system:  # prompts/probe_write.md
            assert "\n#2 [assistant]: " in system  # the numbered history
            return Reply.ok(f"```json\n{json.dumps(self.probes)}\n```", USAGE)
        if "## Your summary" in system:  # prompts/probe_answer.md
            return Reply.ok(self.answer(system, body["model"]), USAGE)
        if "You grade whether" in system:  # prompts/probe_judge.md
            if body["model"] == PROSE_JUDGE:
                return Reply.ok("Mostly there. I would give it 1 of 2.", USAGE)
            return Reply.ok(json.dumps(self.judge(system)), USAGE)
        return Reply.http_error(400, "unexpected prompt")

    def answer(self, system: str, model: str) -> str:
        summary = between(system, "## Your summary", "\n## Question\n")
        question = between(system, "\n## Question\n", "Answer from the summary only")
        wanted = set(self.about[question])
        lines = [line for line in summary.splitlines() if self.stated(line) & wanted]
        if lines:
            return " ".join(line.strip(" -") for line in lines)
        if model == GUESSER and question in self.guesses:
            return self.guesses[question]
        return "NOT IN SUMMARY"

    def judge(self, system: str) -> dict[str, Any]:
        summary = between(system, "## The summary the agent had", "\n## The probe\n")
        probe = system.rsplit("\n## The probe\n", 1)[1]
        expected = between(probe, "Reference answer:", "\nAgent's answer:")
        answer = between(probe, "Agent's answer:", "\n## How to score")
        if "must reuse as it is" in probe:
            given = expected.casefold() in answer.casefold()
            backed = expected.casefold() in summary.casefold()
            score = float(given and backed)
            return {"score": score, "reason": f"exact value given and backed: {score}"}
        reference = self.stated(expected)
        carried = self.stated(answer) & reference
        backed = carried & self.stated(summary)
        score = len(backed) / len(reference) if reference else 0.0
        reason = f"carries {sorted(carried)} of {sorted(reference)}; backed {sorted(backed)}"
        return {"score": score, "reason": reason}
