"""How the offline engine reads a decision's reason: the clause after "because"/"since",
up to the next coordinated clause, without the words the choice already says."""

from __future__ import annotations

from goose_tui.analysis.probes import offline_probes, score_offline
from tests.analysis.validity import Conversation

SAID = (
    "I'll keep the unix socket instead of moving gunicorn to a TCP port, since the socket "
    "is not reachable from the network, and give nginx the group through --group www-data "
    "in the service."
)


def _decision_probe():
    c = Conversation()
    c.user("nginx answers 502 for every request since the deploy.")
    c.edit(
        "str_replace",
        "/etc/systemd/system/gunicorn.service",
        "The file has been edited.",
        say=SAID,
        old_str="--bind unix:/run/app/gunicorn.sock",
        new_str="--bind unix:/run/app/gunicorn.sock --group www-data",
    )
    probes = [p for p in offline_probes(c.messages) if p.kind == "decision"]
    assert len(probes) == 1
    return probes[0]


def test_the_reason_ends_with_its_clause_and_leaves_out_the_choice_words() -> None:
    choice, reason = (e.terms for e in _decision_probe().evidence)
    assert "socket" in choice and "socket" not in reason
    assert {"reachable", "network"} <= set(reason)
    assert not {"group", "data", "service", "nginx"} & set(reason)


def test_the_choice_without_its_reason_is_half_a_decision() -> None:
    probe = _decision_probe()
    with_reason = (
        "The unix socket was kept instead of switching gunicorn to a TCP port, because a "
        "unix socket cannot be reached from the network. The service now passes "
        "--group www-data so nginx can connect."
    )
    without = (
        "The unix socket was kept instead of switching gunicorn to a TCP port. The service "
        "now passes --group www-data to gunicorn so that the nginx group can connect."
    )
    assert score_offline([probe], with_reason).overall == 1.0
    assert score_offline([probe], without).overall == 0.5
