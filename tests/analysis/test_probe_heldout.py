# ruff: noqa: E501 - summaries are written as a model writes them, one line per entry
"""The held-out probe validity set: sessions and summaries of the same six kinds as
test_probe_validity.py, written before the probe engine was tuned and never used to tune
it. Here the bar is the issue's: a mean Kendall tau of at least 0.6 over the sessions, a
string dump never above a complete summary, and the variants lower on their own kind."""

from __future__ import annotations

import statistics

import pytest

from goose_tui.analysis.probes import ProbeReport
from tests.analysis.validity import Case, Conversation, tau_by_session


def gateway() -> Case:
    c = Conversation()
    c.user(
        "`go test ./...` panics in the gateway since I merged the config refactor. The "
        "rate limit for tests must stay at 50 requests per second (RATE_LIMIT_RPS=50). "
        "Please fix it."
    )
    c.shell(
        "cd ~/src/gateway && go test ./...",
        "--- FAIL: TestProxyForwardsHeaders (0.00s)\n"
        "panic: runtime error: invalid memory address or nil pointer dereference [recovered]\n"
        "[signal SIGSEGV: segmentation violation code=0x1 addr=0x18 pc=0x6b2f3e]\n"
        "goroutine 7 [running]:\ngithub.com/acme/gateway/internal/proxy.(*Server).limit(...)\n"
        "\t/home/ana/src/gateway/internal/proxy/server.go:58\nFAIL\tgithub.com/acme/gateway/internal/proxy\t0.012s",
        error=True,
        say="Running the tests to see the panic.",
    )
    c.edit(
        "view",
        "/home/ana/src/gateway/internal/proxy/server.go",
        "var cfg *config.Config // set by main\n\nfunc (s *Server) limit() int { return cfg.RateLimitRPS }\n",
        say="The proxy reads a package-level cfg that only main sets, so in tests it is nil.",
    )
    c.edit(
        "str_replace",
        "/home/ana/src/gateway/internal/proxy/server.go",
        "The file /home/ana/src/gateway/internal/proxy/server.go has been edited.",
        say="I'll pass the config into NewServer instead of reading the global, because the "
        "tests can then build a server with their own settings and nothing depends on main "
        "having run.",
        old_str="var cfg *config.Config // set by main\n",
        new_str="",
    )
    c.edit(
        "str_replace",
        "/home/ana/src/gateway/internal/proxy/server_test.go",
        "The file /home/ana/src/gateway/internal/proxy/server_test.go has been edited.",
        old_str="srv := NewServer()",
        new_str="srv := NewServer(&config.Config{RateLimitRPS: 50})",
    )
    c.shell(
        "cd ~/src/gateway && go test -race ./...",
        "ok  \tgithub.com/acme/gateway/internal/config\t0.004s\n"
        "==================\nWARNING: DATA RACE\nWrite at 0x00c0001a2030 by goroutine 9:\n"
        "  github.com/acme/gateway/internal/proxy.(*tokenCache).put()\n"
        "      /home/ana/src/gateway/internal/proxy/cache.go:31\n==================\n"
        "--- FAIL: TestConcurrentRequests (0.03s)\n    testing.go:1398: race detected during execution of test\n"
        "FAIL\tgithub.com/acme/gateway/internal/proxy\t0.051s",
        error=True,
    )
    c.say(
        "The nil pointer panic is gone, but the race detector now fails "
        "TestConcurrentRequests: tokenCache.put in cache.go writes its map from several "
        "goroutines without a lock. Next I'll guard the map with a sync.RWMutex and run "
        "go test -race ./... again."
    )
    complete = """\
# Conversation Summary

## User Intent
- Fix the test panic in the gateway that appeared after the config refactor; the test rate limit stays at 50 requests per second (RATE_LIMIT_RPS=50).

## Files + Code
### /home/ana/src/gateway/internal/proxy/server.go
The package-level cfg variable is gone; NewServer now takes the *config.Config[[R:, so tests can construct a server with their own settings and no longer depend on main having set a global]].
### /home/ana/src/gateway/internal/proxy/server_test.go
Builds its server with NewServer(&config.Config{RateLimitRPS: 50}).

## Errors + Fixes
- TestProxyForwardsHeaders panicked with a nil pointer dereference in (*Server).limit (server.go:58) because cfg was only set by main; fixed by injecting the config.

[[N:## Current Work
go test -race now reports a DATA RACE: tokenCache.put in internal/proxy/cache.go writes the map from several goroutines with no lock, and TestConcurrentRequests fails.

## Next Step
Protect the token cache map with a sync.RWMutex, then rerun the tests with the race detector.
]]"""
    # The offline summary quotes the decision with its reason and the last reply whole.
    return Case(
        "gateway", c.messages, complete, "Fixed a panic in the gateway tests.", offline_rank=0
    )


def migrations() -> Case:
    c = Conversation()
    c.user(
        "Our FastAPI app creates its SQLite tables with metadata.create_all() at start-up, "
        "and schema changes keep breaking the production copy (data/app.db). Set up proper "
        "migrations. Keep the database file where it is."
    )
    c.say(
        "I'd go with Alembic rather than hand-written SQL scripts, because its "
        "autogenerate compares the SQLAlchemy models with the database and catches drift "
        "we would otherwise miss, and it can batch ALTERs for SQLite's limited ALTER TABLE."
    )
    c.shell(
        "cd ~/src/notes-api && alembic init migrations",
        "Creating directory /home/li/src/notes-api/migrations ...  done\n"
        "Generating /home/li/src/notes-api/alembic.ini ...  done",
    )
    c.edit(
        "str_replace",
        "/home/li/src/notes-api/migrations/env.py",
        "The file /home/li/src/notes-api/migrations/env.py has been edited.",
        say="Pointing env.py at the app's metadata, with render_as_batch for SQLite.",
        old_str="target_metadata = None",
        new_str="from app.models import Base\ntarget_metadata = Base.metadata",
    )
    c.shell(
        "cd ~/src/notes-api && alembic revision --autogenerate -m 'initial schema'",
        "INFO  [alembic.autogenerate.compare] Detected added table 'users'\n"
        "INFO  [alembic.autogenerate.compare] Detected added table 'notes'\n"
        "  Generating /home/li/src/notes-api/migrations/versions/3f2a_initial_schema.py ...  done",
    )
    c.shell(
        "cd ~/src/notes-api && alembic upgrade head",
        "INFO  [alembic.runtime.migration] Running upgrade  -> 3f2a, initial schema\n"
        "sqlite3.OperationalError: table users already exists",
        error=True,
    )
    c.say(
        "The upgrade fails because data/app.db already has the tables that create_all() "
        "made. The existing database must be marked as already at the initial revision: "
        "next, run `alembic stamp head` on it instead of upgrading, then remove the "
        "create_all() call from app/main.py."
    )
    complete = """\
# Conversation Summary

## User Intent
- Replace the FastAPI app's metadata.create_all() start-up step with real migrations for its SQLite database, which must stay at data/app.db.

## Technical Concepts
- Alembic with batch mode for SQLite

## Files + Code
### /home/li/src/notes-api/migrations/env.py
target_metadata now points at app.models.Base.metadata, rendered in batch mode for SQLite.
### /home/li/src/notes-api/migrations/versions/3f2a_initial_schema.py
Autogenerated initial revision creating the users and notes tables.

## Problem Solving
- Alembic was picked over hand-written SQL scripts[[R:: autogenerate diffs the SQLAlchemy models against the database and catches drift, and batch operations work around SQLite's limited ALTER TABLE]].
- alembic init created migrations/ and alembic.ini.

[[N:## Current Work
`alembic upgrade head` stops with an OperationalError: the users table already exists in data/app.db, created earlier by create_all().

## Next Step
Mark the existing database as current with `alembic stamp head` instead of upgrading it, then delete the create_all() call from app/main.py.
]]"""
    # The offline summary quotes the choice with its main reason and the last reply whole.
    return Case("migrations", c.messages, complete, "Set up Alembic migrations.", offline_rank=0)


def proxy() -> Case:
    c = Conversation()
    c.user(
        "nginx gives 502 Bad Gateway for every request to app.example.org since this "
        "morning's deploy. The app runs under gunicorn as user www-app."
    )
    c.shell(
        "sudo tail -n 3 /var/log/nginx/error.log",
        "2025/03/04 09:12:01 [crit] 812#812: *41 connect() to unix:/run/app/gunicorn.sock "
        "failed (13: Permission denied) while connecting to upstream, client: 10.0.0.7",
        say="Checking nginx's error log.",
    )
    c.shell(
        "ls -l /run/app/gunicorn.sock",
        "srwxrwx--- 1 www-app www-app 0 Mar  4 09:02 /run/app/gunicorn.sock",
    )
    c.edit(
        "str_replace",
        "/etc/systemd/system/gunicorn.service",
        "The file /etc/systemd/system/gunicorn.service has been edited.",
        say="nginx (user www-data) cannot open the socket, which belongs to the group "
        "www-app. I'll keep the unix socket instead of moving gunicorn to a TCP port, since "
        "the socket is not reachable from the network, and give nginx the group through "
        "--group www-data in the service.",
        old_str="--bind unix:/run/app/gunicorn.sock",
        new_str="--bind unix:/run/app/gunicorn.sock --group www-data",
    )
    c.shell(
        "sudo systemctl daemon-reload && sudo systemctl restart gunicorn && curl -sI https://app.example.org | head -1",
        "HTTP/2 200",
    )
    c.user("Great. While you are there, turn on gzip for the JSON API responses.")
    c.edit(
        "str_replace",
        "/etc/nginx/sites-available/app.conf",
        "The file /etc/nginx/sites-available/app.conf has been edited.",
        old_str="    location /api/ {\n",
        new_str="    location /api/ {\n        gzip on;\n        gzip_types application/json;\n",
    )
    c.shell(
        "sudo nginx -t && sudo systemctl reload nginx",
        "nginx: configuration file /etc/nginx/nginx.conf test is successful",
    )
    c.say(
        "gzip is on for application/json under /api/ and nginx reloaded cleanly. One thing "
        "left: the deploy script recreates gunicorn.service from a template, so the "
        "--group www-data change must go into deploy/gunicorn.service.j2 too, or the next "
        "deploy brings the 502 back."
    )
    complete = """\
The 502 Bad Gateway on app.example.org came from nginx being denied access (Permission denied) to gunicorn's unix socket /run/app/gunicorn.sock, which belonged to the www-app group. gunicorn.service now starts gunicorn with --group www-data so nginx can connect; the socket was kept instead of switching to a TCP port[[R:, because a unix socket cannot be reached from the network]]. After a daemon-reload and restart the site answers with HTTP 200.

The user then asked for gzip on the JSON API responses: /etc/nginx/sites-available/app.conf now enables gzip for application/json in the /api/ location, and nginx -t passed before the reload.

[[N:Still open: the deploy script regenerates gunicorn.service from deploy/gunicorn.service.j2, so the --group www-data flag must be added to that template next, otherwise the next deploy will bring the 502 back.]]
"""
    # The offline summary keeps the last reply but loses the socket decision and its reason.
    return Case("proxy", c.messages, complete, "Fixed nginx and enabled gzip.", offline_rank=1)


CASES = [gateway(), migrations(), proxy()]


@pytest.fixture(scope="module")
def reports() -> dict[str, dict[str, ProbeReport]]:
    return {case.name: case.build().reports() for case in CASES}


def test_the_probe_score_orders_unseen_summaries_as_a_reader_does(reports) -> None:
    taus = tau_by_session(CASES, reports)
    assert statistics.mean(taus.values()) >= 0.6, taus


def test_a_string_dump_never_outranks_a_complete_summary(reports) -> None:
    for name, r in reports.items():
        assert (r["dump"].overall or 0) < (r["complete"].overall or 0), name


def test_missing_the_next_step_scores_lower_on_continuation(reports) -> None:
    for name, r in reports.items():
        assert (r["missing_next_step"].kind("continuation").score or 0) < (
            r["complete"].kind("continuation").score or 0
        ), name


def test_missing_the_reasons_scores_lower_on_decisions(reports) -> None:
    for name, r in reports.items():
        assert (r["missing_reasons"].kind("decision").score or 0) < (
            r["complete"].kind("decision").score or 0
        ), name
