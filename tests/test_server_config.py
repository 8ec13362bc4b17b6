"""ServerConfig: one frozen set of the server's settings, its defaults stated once."""

from __future__ import annotations

import argparse
import dataclasses
from dataclasses import replace
from pathlib import Path

import pytest

from lockup.server.app import create_app
from lockup.server.cli import register
from lockup.server.config import ServerConfig
from lockup.server.net.limits import Limits, Rate
from lockup.server.session import GameService, available_levels


def _serve_args(*argv: str) -> argparse.Namespace:
    parser = argparse.ArgumentParser(prog="lockup")
    register(parser.add_subparsers())
    return parser.parse_args(["serve", *argv])


def test_it_is_frozen_and_every_field_documented() -> None:
    config = ServerConfig()
    with pytest.raises(dataclasses.FrozenInstanceError):
        config.idle_s = 1.0  # type: ignore[misc]
    source = Path(__file__).resolve().parent.parent / "lockup/server/config.py"
    text = source.read_text(encoding="utf-8")
    for f in dataclasses.fields(ServerConfig):
        head = text.index(f"    {f.name}: ")
        assert text[text.index("\n", head) + 1 :].lstrip().startswith('"""'), f.name


def test_the_serve_flags_default_to_the_config() -> None:
    args = _serve_args()
    d = ServerConfig()
    for flag, name in [
        ("host", "host"),
        ("db", "db"),
        ("redis", "redis"),
        ("level", "level"),
        ("bot_processes", "bot_processes"),
        ("hint_processes", "hint_processes"),
        ("hint_time", "hint_time"),
        ("move_slots", "move_slots"),
        ("bot_delay", "bot_delay"),
        ("bot_jitter", "bot_jitter"),
        ("purge_unplayed_after", "purge_unplayed_after"),
        ("purge_abandoned_after", "purge_abandoned_after"),
        ("analysis_workers", "analysis_workers"),
        ("analysis_iterations", "analysis_iterations"),
    ]:
        assert getattr(args, flag) == getattr(d, name), flag


def test_the_bots_level_defaults_to_normal() -> None:
    assert ServerConfig().bot_level() == ("normal" if "normal" in available_levels() else "random")
    assert ServerConfig(level="random").bot_level() == "random"


def test_the_game_service_takes_its_settings_from_the_config() -> None:
    config = replace(
        ServerConfig(),
        level="random",
        idle_s=7.0,
        buffer_size=12,
        move_slots=2,
        bot_delay=0.0,
        bot_jitter=0.0,
        purge_unplayed_after=40.0,
        purge_every=600.0,
        hint_time=0.5,
    )
    service = GameService(None, None, config)  # type: ignore[arg-type]
    assert service.config is config
    assert service.default_level == "random"
    assert (service.idle_s, service.buffer_size, service.hint_time) == (7.0, 12, 0.5)
    assert service.purge_unplayed_after == 40.0
    assert service.purge_every == 10.0  # at least four looks in purge_unplayed_after
    assert service.bot_hold("random") == 0.0
    assert GameService(None, None).config == ServerConfig()  # type: ignore[arg-type]


def test_create_app_uses_the_config(tmp_path: Path) -> None:
    limits = replace(Limits(), messages=Rate(5, 1.0))
    config = replace(
        ServerConfig(),
        db=f"sqlite:///{tmp_path / 'g.sqlite'}",
        limits=limits,
        warm=False,
        host="example.org",
        extra_hosts=("play.example.org",),
    )
    app = create_app(config)
    assert app.state.service.config is config
    assert app.state.guards.limits is limits
    assert app.state.store.url == config.db
    assert app.state.bus is None
