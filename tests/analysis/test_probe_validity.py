# ruff: noqa: E501 - summaries are written as a model writes them, one line per entry
"""The probe validity set: five sessions (the three bundled ones, a debugging session that
ends on an open error and a stated next step, a design session with a decision and its
reason), each with six summaries a careful reader orders (complete > missing the reasons >
missing the next step ~ the offline summarizer's > a string dump > one line). The offline
probe score must order them the same way. The probe engine is tuned on this set; the
held-out set in test_probe_heldout.py is not."""

from __future__ import annotations

import statistics

import pytest

from goose_tui.analysis.probes import ProbeReport
from tests.analysis.validity import Case, Conversation, sample, tau_by_session
from tests.conftest import SAMPLES

SH = "developer__shell"

BLOG_COMPLETE = """\
# Conversation Summary

## User Intent
- In the ~/src/blog project, `make serve` stopped working on the new laptop ("hugo: command not found"); the user wants the Makefile to run the hugo binary shipped in the tools/ folder.

## Files + Code
### /home/sam/src/blog/Makefile
Now defines `HUGO ?= ./tools/hugo-0.134.2` and the serve and build targets call `$(HUGO)`[[R:, so that anyone with a system-wide hugo can still run `make HUGO=hugo serve`]].

## Problem Solving
- The Makefile called a `hugo` expected on PATH, while the repository ships a pinned binary, tools/hugo-0.134.2. The Makefile was pointed at it through an overridable variable[[R: because a system install must keep working]].

## User Messages
- `make serve` fails with 'hugo: command not found' since the switch to the new laptop; fix the Makefile so it uses the hugo from tools/.

[[N:## Current Work
Done: `make serve` now starts the pinned hugo 0.134.2, which builds the site in about 200 ms and serves it on 127.0.0.1:1313. Nothing else is pending.
]]"""

SHOP_COMPLETE = """\
# Conversation Summary

## User Intent
- Write a Dockerfile for the Flask app (app.py) that runs it under gunicorn in production.

## Files + Code
### /home/sam/src/shortlinks/Dockerfile
New file: based on python:3.12-slim, installs requirements.txt (flask, gunicorn, redis), copies the app and starts gunicorn bound to 0.0.0.0:8000 serving app:app.

## Problem Solving
- requirements.txt pins flask 3.0.3, gunicorn 22.0.0 and redis 5.0.8; the app connects to Redis through the REDIS_URL environment variable.

[[N:## Current Work
The Dockerfile is written, but app.py reads os.environ without importing os.

## Next Step
Add `import os` at the top of app.py, otherwise the container crashes as soon as it starts.
]]"""

INVOICER_COMPLETE = """\
# Conversation Summary

## User Intent
- The accountant found March invoices one cent off her spreadsheet (2024-0117, 2024-0130, 2024-0133); rounding must be commercial half-up, with VAT rounded once per rate on the total and not per line. Keep the public API and list which March invoices change.
- A customer's invoice 2024-0142 shows its 0,48 € discount without the minus sign.
[[N:- Latest request: a CHANGELOG entry for 0.4.2 covering both fixes, a regression test for the 0.475 case through the CSV import, a commit on branch fix/rounding and a PR description that lists the March invoices that change.]]

## Technical Concepts
- Decimal with ROUND_HALF_UP, VAT computed per tax-rate group

## Files + Code
### /home/sam/src/invoicer/src/invoicer/totals.py
All arithmetic now in Decimal, rounded half up once per total, VAT computed per tax rate on the discounted net[[R:, because rounding every line added up (13.01 instead of 13.02) and float round() turned 0.475 into 0.47]].
### /home/sam/src/invoicer/src/invoicer/csv_import.py
The importer accepts whole quantities written as 10.0 (and rejects 2.5) and reads prices and rates as Decimal, decimal comma included.
### /home/sam/src/invoicer/tests/test_totals.py
Expected amounts are Decimal strings now[[R:, since a Decimal never equals the float literal (Decimal('74.09') != 74.09) and these are money amounts]].
### /home/sam/src/invoicer/src/invoicer/formatting.py
format_money formats the absolute value and puts the sign in front[[R: because int("-0") is 0, which dropped the sign of every amount between -1 and 0]]; a regression test for -0,48 € went into tests/test_render.py.

## Errors + Fixes
- test_bulk_discount got 13.01 VAT instead of 13.02: per-line rounding, fixed by rounding per rate.
- The totals command failed with a ValueError, an invalid literal for int() with base 10 ('10.0'), on three export rows; fixed in the importer.

## Problem Solving
- Old and new totals compared via git stash and a diff: ten March invoices change (2024-0101, 0104, 0109, 0111, 0115, 0117, 0126, 0130, 0132, 0133); the accountant's three now match her figures.

[[N:## Pending Tasks
- CHANGELOG entry for 0.4.2 describing both fixes
- regression test for the 0.475 case going through the CSV import
- commit on branch fix/rounding and draft the PR description with the changed March invoices
]]
## Current Work
All 7 tests pass; the changes to csv_import.py, formatting.py, totals.py, tests/test_render.py and tests/test_totals.py are not committed.
[[N:
## Next Step
Write the 0.4.2 CHANGELOG entry, then the 0.475 regression test through the CSV import, then commit on fix/rounding and draft the PR.
]]"""


def reminders() -> Case:
    c = Conversation()
    c.user(
        "The reminders service crashes on start in the new Docker image (python:3.12-slim) "
        "but works on my Mac. Something about time zones. The schedule must stay in "
        "Europe/Berlin; REMINDER_TZ=Europe/Berlin is set in deploy/env.prod. Can you fix it?"
    )
    c.shell(
        "cd ~/src/reminders && docker compose run --rm web python -m reminders.scheduler",
        "Traceback (most recent call last):\n"
        '  File "/app/reminders/scheduler.py", line 12, in <module>\n'
        '    TZ = ZoneInfo(os.environ["REMINDER_TZ"])\n'
        "zoneinfo._common.ZoneInfoNotFoundError: 'No time zone found with key Europe/Berlin'",
        error=True,
        say="Let me reproduce it in the container first.",
    )
    c.edit(
        "view",
        "/home/sam/src/reminders/requirements.txt",
        "apscheduler==3.10.4\npsycopg[binary]==3.2.1\n",
        say="The slim image has no system time zone database (/usr/share/zoneinfo is empty), "
        "so zoneinfo falls back to the tzdata package, which is not installed. Checking the "
        "requirements.",
    )
    c.edit(
        "str_replace",
        "/home/sam/src/reminders/requirements.txt",
        "The file /home/sam/src/reminders/requirements.txt has been edited.",
        say="I'll install tzdata from PyPI rather than with apt, because the image should not "
        "depend on the distribution's package and the PyPI tzdata is updated more often.",
        old_str="psycopg[binary]==3.2.1\n",
        new_str="psycopg[binary]==3.2.1\ntzdata==2024.2\n",
    )
    c.shell(
        "cd ~/src/reminders && docker compose build web && docker compose run --rm web "
        "python -m reminders.scheduler",
        "#7 [3/5] COPY deploy/requirements.txt .\n#7 CACHED\n"
        "#8 [4/5] RUN pip install -r requirements.txt\n#8 CACHED\n"
        "Traceback (most recent call last):\n"
        '  File "/app/reminders/scheduler.py", line 12, in <module>\n'
        "zoneinfo._common.ZoneInfoNotFoundError: 'No time zone found with key Europe/Berlin'",
        error=True,
    )
    c.say(
        "It still fails with the same ZoneInfoNotFoundError: the Dockerfile copies "
        "deploy/requirements.txt, not the requirements.txt I edited, so the pip layer came "
        "from the cache without tzdata. Next step: add tzdata==2024.2 to "
        "deploy/requirements.txt and rebuild the web image with --no-cache."
    )
    complete = """\
# Conversation Summary

## User Intent
- The reminders service crashes at start-up in the python:3.12-slim Docker image (fine on macOS); its schedule must stay on Europe/Berlin, set as REMINDER_TZ=Europe/Berlin in deploy/env.prod.

## Files + Code
### /home/sam/src/reminders/requirements.txt
tzdata==2024.2 added to the dependencies[[R:, preferred over the Debian package because the image should not rely on the distribution and the PyPI tzdata gets updates sooner]].

## Errors + Fixes
- Starting the scheduler in the container raises ZoneInfoNotFoundError for the key Europe/Berlin: the slim image has an empty /usr/share/zoneinfo and the tzdata fallback package is missing.

## Problem Solving
- Reproduced with docker compose run on the web service (python -m reminders.scheduler).
- The image was rebuilt after the change, but pip's layer came from the build cache.

[[N:## Current Work
The scheduler still dies with the same ZoneInfoNotFoundError, because the Dockerfile installs from deploy/requirements.txt rather than the root requirements.txt that was edited.

## Next Step
Add tzdata==2024.2 to deploy/requirements.txt, then rebuild the web image without the cache (--no-cache) and start the scheduler again.
]]"""
    return Case(
        "reminders",
        c.messages,
        complete,
        "Tried to fix a time zone crash in the reminders Docker image.",
        offline_rank=0,  # it quotes the reason, the open error and the last reply whole
    )


def confirmations() -> Case:
    c = Conversation()
    c.user(
        "Order confirmation emails should go out in the background, not inside the checkout "
        "request: checkout takes 4 seconds whenever SMTP is slow. We run on Heroku with one "
        "Postgres database and no Redis. What do you suggest?"
    )
    c.edit(
        "view",
        "/home/sam/src/shop/shop/checkout.py",
        "def complete_checkout(order):\n    order.mark_paid()\n    send_confirmation(order)\n",
        say="Let me look at how checkout sends the mail now.",
    )
    c.say(
        "I recommend procrastinate over Celery: it keeps the job queue in the Postgres "
        "database you already have, so there is no Redis or RabbitMQ to add and pay for, "
        "and a job is committed in the same transaction as its order."
    )
    c.user("Sounds good, go with procrastinate.")
    c.edit(
        "write",
        "/home/sam/src/shop/shop/tasks.py",
        "Successfully wrote to /home/sam/src/shop/shop/tasks.py",
        say="I'll retry a failed send at most 5 times with exponential backoff, since outages "
        "at the mail provider usually last minutes, not hours.",
        file_text="import procrastinate\n\napp = procrastinate.App(...)\n\n"
        "@app.task(retry=procrastinate.RetryStrategy(max_attempts=5, exponential_wait=2))\n"
        "def send_confirmation_email(order_id: int) -> None: ...\n",
    )
    c.edit(
        "str_replace",
        "/home/sam/src/shop/shop/checkout.py",
        "The file /home/sam/src/shop/shop/checkout.py has been edited.",
        old_str="    send_confirmation(order)\n",
        new_str="    send_confirmation_email.defer(order_id=order.id)\n",
    )
    c.shell("cd ~/src/shop && python -m pytest tests/test_checkout.py -q", "3 passed in 0.41s")
    c.shell(
        "cd ~/src/shop && procrastinate --app=shop.tasks.app schema --apply",
        "Applying schema\nDone",
    )
    c.say(
        "Checkout now defers `send_confirmation_email` instead of sending inline; the tests "
        "pass and the procrastinate schema is applied to the dev database. Still to do: add "
        "a worker process to the Procfile (`worker: procrastinate --app=shop.tasks.app "
        "worker`) and scale it to one dyno, or confirmations pile up unsent in the queue."
    )
    complete = """\
# Conversation Summary

## User Intent
- Send order confirmation emails in the background instead of during checkout, which takes 4 s when SMTP is slow. Hosting: Heroku, a single Postgres database, no Redis.

## Technical Concepts
- procrastinate: a Postgres-backed task queue

## Files + Code
### /home/sam/src/shop/shop/tasks.py
Created: the procrastinate app and the task send_confirmation_email(order_id), retried up to 5 times with exponential backoff[[R: because mail provider outages tend to last minutes]].
### /home/sam/src/shop/shop/checkout.py
complete_checkout defers send_confirmation_email for the order instead of sending the mail itself.

## Problem Solving
- Chose procrastinate over Celery for the queue[[R:: the jobs live in the existing Postgres database, so no Redis or RabbitMQ has to be added and paid for, and a job commits in the same transaction as its order]]. The user agreed.
- The checkout tests pass (3) and the procrastinate schema is applied to the development database.

[[N:## Pending Tasks
- Add a worker process to the Procfile (worker: procrastinate --app=shop.tasks.app worker) and scale it to one dyno; until then the confirmations pile up unsent in the queue.

## Next Step
Add the procrastinate worker line to the Procfile and scale the worker dyno to one.
]]"""
    return Case(
        "confirmations",
        c.messages,
        complete,
        "Moved order confirmation emails to a background queue.",
        offline_rank=0,  # it quotes the recommendation, the retry reason and the last reply
    )


def bundled(
    name: str, file: str, complete: str, one_line: str, offline_rank: int, has_reasons: bool = True
) -> Case:
    messages, working_dir = sample(SAMPLES / file)
    return Case(name, messages, complete, one_line, working_dir, has_reasons, offline_rank)


CASES = [
    # The offline summary names the override but not why it is kept: as good as the
    # complete summary without its reasons.
    bundled("blog", "short.jsonl", BLOG_COMPLETE, "Fixed the blog's Makefile.", offline_rank=1),
    bundled(
        "shortlinks",
        "export.json",
        SHOP_COMPLETE,
        "Wrote a Dockerfile for the Flask app.",
        offline_rank=0,  # it quotes the request and the last reply, which is everything
        has_reasons=False,  # the session states no reason for its choices
    ),
    bundled(
        "invoicer",
        "long_session.jsonl",
        INVOICER_COMPLETE,
        "Fixed invoice rounding bugs.",
        # Keeps the last request but cuts the rounding reasons and the changed invoices.
        offline_rank=2,
    ),
    reminders(),
    confirmations(),
]


@pytest.fixture(scope="module")
def reports() -> dict[str, dict[str, ProbeReport]]:
    return {case.name: case.build().reports() for case in CASES}


def test_the_complete_summaries_differ_from_their_variants() -> None:
    for case in CASES:
        s = case.build().summaries
        assert s["missing_next_step"] != s["complete"], case.name
        assert (s["missing_reasons"] != s["complete"]) == case.has_reasons, case.name
        assert "[[" not in s["complete"] and "]]" not in s["complete"]


def test_the_probe_score_orders_summaries_as_a_reader_does(reports) -> None:
    taus = tau_by_session(CASES, reports)
    assert statistics.mean(taus.values()) >= 0.8, taus
    assert min(taus.values()) >= 0.6, taus


def test_a_string_dump_never_outranks_a_complete_summary(reports) -> None:
    for name, r in reports.items():
        assert (r["dump"].overall or 0) < (r["complete"].overall or 0), name
        assert (r["dump"].overall or 0) < (r["offline"].overall or 0), name


def test_a_one_line_summary_scores_below_every_real_summary(reports) -> None:
    for name, r in reports.items():
        others = [v.overall or 0 for k, v in r.items() if k not in ("one_line", "dump")]
        assert (r["one_line"].overall or 0) < min(others), name


def test_missing_the_next_step_scores_lower_on_continuation(reports) -> None:
    for name, r in reports.items():
        complete = r["complete"].kind("continuation").score
        assert complete is not None, name
        assert (r["missing_next_step"].kind("continuation").score or 0) < complete, name


def test_missing_the_reasons_scores_lower_on_decisions(reports) -> None:
    for case in (c for c in CASES if c.has_reasons):
        r = reports[case.name]
        complete = r["complete"].kind("decision").score
        assert complete is not None, case.name
        assert (r["missing_reasons"].kind("decision").score or 0) < complete, case.name
