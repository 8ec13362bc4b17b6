"""Transport-level attacks on a real ``lockup serve``, each with an innocent player beside.

Every attack goes to 127.0.0.0/8 on this machine only, bounded in count and time. The
innocent player (tests/attack_helpers.py) plays from its own thread and must stay
unharmed: its cards acknowledged quickly, the bots moving, ``/healthz`` answering.
"""

from __future__ import annotations

from pathlib import Path

import pytest
from attack_helpers import Innocent, Server, raise_nofile_limit

raise_nofile_limit()


@pytest.fixture
def db(tmp_path: Path) -> Path:
    return tmp_path / "games.sqlite"


def test_harness_against_a_quiet_server(db: Path) -> None:
    """No attack: the innocent plays, bots answer, /healthz answers, logs are readable."""
    with Server(db) as server:
        innocent = Innocent(server.url, level="normal", reopen_every=2.0).start()
        import time

        time.sleep(5)
        report = innocent.stop()
        print(report.summary())
        report.assert_unharmed()
        assert len(report.ws_opens) >= 2
        assert server.rss_kb() > 0
        assert isinstance(server.log_text(), str)
