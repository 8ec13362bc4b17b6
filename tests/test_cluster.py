"""Several server processes on one PostgreSQL database: one owner per game (its lease),
fenced writes, and another process taking a game over when its owner stops.

Each GameService here stands for one process (its own Store, BotPool and Leases) on a real
PostgreSQL (tests/services.py); "killing" a process stops its lease renewals without
giving anything back, as kill -9 would.
"""

from __future__ import annotations

import asyncio
import time
from dataclasses import replace
from typing import Any

import pytest

from lockup.server.cluster.leases import Leases, OwnedElsewhere
from lockup.server.config import ServerConfig
from lockup.server.pool import BotPool
from lockup.server.protocol import ProtocolError
from lockup.server.session import GameService, GameSession
from lockup.server.store import Store

PLAYER = "player-token-cluster-0001"


class Page:
    """A subscriber standing for a page's WebSocket."""

    def __init__(self, seat: int, player: str | None = None) -> None:
        self.seat = seat
        self.player = player
        self.frames: list[str] = []
        self.closed: int | None = None

    def send(self, text: str) -> None:
        self.frames.append(text)

    def close(self, code: int) -> None:
        self.closed = code


class Process:
    def __init__(self, url: str, pool: BotPool) -> None:
        self.store = Store(url)
        self.leases = Leases(self.store, ttl=0.8, renew_every=0.2)
        self.service = GameService(
            self.store,
            pool,
            replace(ServerConfig(), level="random", bot_delay=0.0, bot_jitter=0.0),
            leases=self.leases,
        )

    async def start(self) -> None:
        await self.store.start()
        await self.service.start()

    async def stop(self) -> None:
        await self.service.close()
        await self.store.close()


async def _south_turn(s: GameSession) -> None:
    deadline = time.monotonic() + 30
    while s.busy or s.game.turn != 0 or s.game.phase != "play":
        assert time.monotonic() < deadline, "South's turn never came"
        if s.game.is_over:
            return
        await asyncio.sleep(0.01)


async def _play_south(s: GameSession) -> None:
    await _south_turn(s)
    card = s.game.legal_cards()[0]
    await s.play(0, card, s.version, PLAYER)


def test_one_owner_and_a_takeover_that_loses_no_acknowledged_card(pg_server: Any) -> None:
    url = pg_server.new_database()

    async def go() -> None:
        pool = BotPool(processes=1)
        a, b = Process(url, pool), Process(url, pool)
        await a.start()
        await b.start()
        try:
            s = await a.service.current(PLAYER)
            assert s.lease is not None and s.lease.fence == 1
            page = Page(0)
            async with s.lock:
                s.join(page, 0)
            for _ in range(3):
                await _play_south(s)
            acked = s.seq  # every action up to here was acknowledged
            with pytest.raises(OwnedElsewhere):
                await b.service.get(s.id)  # a's lease runs: b must not play it

            await _south_turn(s)
            await a.leases.close(release=False)  # a is "killed": no renewals, no release
            started = time.monotonic()
            while True:
                try:
                    t = await b.service.get(s.id)
                    break
                except OwnedElsewhere:
                    assert time.monotonic() - started < 5.0, "no takeover within 5 s"
                    await asyncio.sleep(0.1)
            assert t is not None and t.lease is not None and t.lease.fence == 2
            assert t.seq >= acked
            # The stale owner's next card is refused, never acknowledged, stores nothing.
            with pytest.raises(ProtocolError) as refused:
                await s.play(0, s.game.legal_cards()[0], s.version, PLAYER)
            assert refused.value.code in ("server-error", "no-game")
            assert s.closed and page.closed is not None  # its page reconnects
            # b goes on from what is stored: the same game, nothing lost or doubled.
            loaded = await b.store.load(s.id)
            assert loaded is not None
            rows = loaded[1]
            assert [r.seq for r in rows] == list(range(len(rows))) and len(rows) == t.seq
            await _play_south(t)
            loaded = await b.store.load(s.id)
            assert loaded is not None and len(loaded[1]) > acked
            # A page coming back to b resyncs from the version it saw.
            again = Page(0)
            async with t.lock:
                t.join(again, 0)
            assert again.frames and '"type":"state"' in again.frames[0].replace(" ", "")
        finally:
            await b.stop()
            await a.stop()
            pool.close()

    asyncio.run(go())


def test_rate_limits_are_counted_together_in_redis() -> None:
    from redis.asyncio import Redis as Client
    from services import redis

    from lockup.server.net.limits import Rate, SharedRateLimiter

    with redis() as server:

        async def go() -> None:
            one, two = Client.from_url(server.url), Client.from_url(server.url)
            a = SharedRateLimiter(Rate(3, 60.0), one, "test")
            b = SharedRateLimiter(Rate(3, 60.0), two, "test")
            assert [await a.take("p"), await b.take("p"), await a.take("p")] == [0, 0, 0]
            assert 59 < await b.take("p") <= 60  # the fourth, on either process, waits
            assert await a.take("q") == 0  # another key has its own bucket
            server.stop()  # Redis gone: each process counts on its own meanwhile
            assert await a.take("p") == 0
            await one.aclose()
            await two.aclose()

        asyncio.run(go())


def test_an_owner_lets_go_of_the_connections_of_a_gateway_that_died() -> None:
    from types import SimpleNamespace

    from services import redis

    from lockup.server.cluster.bus import Bus, Client, alive_key, stream_of

    with redis() as server:

        async def go() -> None:
            fast = {"beat_every": 0.2, "alive_ttl": 0.6}
            owner = Bus(server.url, "owner", **fast)
            gateways = [Bus(server.url, f"gateway-{i}", **fast) for i in range(2)]
            got: list[tuple[str, str]] = []
            ended: list[str] = []

            async def on_message(client: Client, text: str) -> None:
                got.append((client.gateway, text))

            async def on_gone(client: Client) -> None:
                ended.append(client.gateway)

            owner.on_message, owner.on_gone = on_message, on_gone
            for bus in (owner, *gateways):
                await bus.start()
            for i, bus in enumerate(gateways):  # one page on each gateway, forwarded
                page = SimpleNamespace(bus_id="1", player="p", ws=SimpleNamespace(client=None))
                bus.forward(page, "owner", f"hello from {i}")  # type: ignore[arg-type]
            deadline = time.monotonic() + 10
            while len(got) < 2 and time.monotonic() < deadline:
                await asyncio.sleep(0.05)
            assert sorted(got) == [("gateway-0", "hello from 0"), ("gateway-1", "hello from 1")]
            await asyncio.sleep(1.5)  # beats go on: nobody is taken for dead
            assert ended == []
            for task in gateways[0]._tasks:  # gateway-0 dies (no clean stop: no goodbye)
                task.cancel()
            deadline = time.monotonic() + 10
            while not ended and time.monotonic() < deadline:
                await asyncio.sleep(0.05)
            assert ended == ["gateway-0"]  # its page's stand-in ends; gateway-1's stays
            assert await owner.redis.exists(stream_of("gateway-0")) == 0
            assert await owner.redis.exists(alive_key("gateway-1")) == 1
            await asyncio.sleep(1.0)
            assert ended == ["gateway-0"]
            await gateways[1].close()  # a clean stop takes its key and stream at once
            assert await owner.redis.exists(alive_key("gateway-1"), stream_of("gateway-1")) == 0
            await owner.close()
            await gateways[0].redis.aclose()

        asyncio.run(asyncio.wait_for(go(), 60))  # a step that hangs fails here, named


def test_a_bus_stops_in_time_when_its_redis_client_swallows_a_cancel_or_hangs(
    caplog: pytest.LogCaptureFixture,
) -> None:
    """A Redis client may swallow a cancellation (retry the command and return, or raise
    a connection error while it cleans up) or hang closing a socket: a cancelled task of
    the bus still ends instead of going round again, and close() returns within its
    bounded waits, its clean stop done."""
    from redis.exceptions import ConnectionError as RedisConnectionError
    from services import redis

    from lockup.server.cluster import bus as bus_module
    from lockup.server.cluster.bus import Bus, alive_key

    with redis() as server:

        async def go() -> None:
            for swallow in ("return", "raise"):
                bus = Bus(server.url, f"p-{swallow}", beat_every=0.05, alive_ttl=0.5)
                reads = 0

                async def xread(*args: Any, _swallow: str = swallow, **kwargs: Any) -> Any:
                    nonlocal reads
                    reads += 1
                    try:
                        await asyncio.Event().wait()
                    except asyncio.CancelledError:
                        if _swallow == "return":
                            return None  # retried inside the client: nothing read
                        raise RedisConnectionError("reset while cancelling") from None

                bus.redis.xread = xread  # type: ignore[method-assign]
                await bus.start()
                await asyncio.sleep(0.3)
                assert reads == 1
                assert await bus.redis.exists(alive_key(bus.process)) == 1  # beating
                for task in bus._tasks:  # cancelled without close(), as in a dying process
                    task.cancel()
                done, _ = await asyncio.wait(bus._tasks, timeout=1)
                assert len(done) == 3
                assert reads == 1  # the reader did not go round again
                assert not any("reading" in r.getMessage() for r in caplog.records)
                await bus.close()

            bus = Bus(server.url, "p-hang", beat_every=0.05, alive_ttl=0.5)
            await bus.start()
            await asyncio.sleep(0.2)

            async def aclose() -> None:
                await asyncio.Event().wait()

            real_aclose, bus.redis.aclose = bus.redis.aclose, aclose  # type: ignore[method-assign]
            t0 = time.monotonic()
            await bus.close()
            assert time.monotonic() - t0 < 2 * bus_module.CLOSE_WAIT + 1
            assert all(t.done() for t in bus._tasks)
            assert any("closing the Redis connections" in r.getMessage() for r in caplog.records)
            assert await bus.redis.exists(alive_key("p-hang")) == 0  # the clean stop ran
            await real_aclose()

        asyncio.run(asyncio.wait_for(go(), 60))


def test_the_lease_renewer_stops_when_the_driver_turns_its_cancel_into_an_error() -> None:
    from lockup.server.cluster.leases import Leases

    class Store:  # renews by waiting on the database; a cancel comes out as an error
        renewals = 0

        async def renew_leases(self, held: Any, ttl: float) -> list[Any]:
            Store.renewals += 1
            try:
                await asyncio.Event().wait()
            except asyncio.CancelledError:
                raise OSError("connection closed while cancelling") from None
            return []

    async def go() -> None:
        leases = Leases(Store(), "p", renew_every=0.01)  # type: ignore[arg-type]
        leases.held["game:1"] = object()  # type: ignore[assignment]
        leases.start()
        await asyncio.sleep(0.1)
        assert Store.renewals == 1
        closing = asyncio.create_task(leases.close(release=False))
        done, _ = await asyncio.wait([closing], timeout=3)
        assert done == {closing}  # close() returned
        assert Store.renewals == 1  # the renewer did not go round again

    asyncio.run(asyncio.wait_for(go(), 10))


def test_a_room_is_given_back_once_it_and_its_game_leave_memory(pg_server: Any) -> None:
    from lockup.server.rooms import RoomOptions, RoomService

    url = pg_server.new_database()

    async def take(rooms: RoomService, room_id: str) -> Any:
        """``rooms.get`` once the room's lease is free (OwnedElsewhere until then)."""
        deadline = time.monotonic() + 5
        while True:
            try:
                return await rooms.get(room_id, live=False)
            except OwnedElsewhere:
                assert time.monotonic() < deadline, "the room was not given back"
                await asyncio.sleep(0.05)

    async def go() -> None:
        pool = BotPool(processes=1)
        a, b = Process(url, pool), Process(url, pool)
        await a.start()
        await b.start()
        ra, rb = RoomService(a.service), RoomService(b.service)
        try:
            room = await ra.create(PLAYER, RoomOptions(levels=["random"] * 4), "Ours")
            key = f"room:{room.id}"
            page = Page(0, PLAYER)
            ra.connect(room, page, 0)
            with pytest.raises(OwnedElsewhere):
                await rb.get(room.id)
            session = await ra.start(room, PLAYER)
            ra.disconnect(room, page)
            assert room.id not in ra.rooms
            await asyncio.sleep(1.0)  # its game is still played here: a keeps the room
            assert key in a.leases.held
            with pytest.raises(OwnedElsewhere):
                await rb.get(room.id)
            a.service.forget(session)  # the game leaves memory too: the room is given back
            assert key not in a.leases.held
            again = await take(rb, room.id)
            assert again is not None and again.id == room.id and key in b.leases.held
            # A room nobody started is given back when its last page leaves.
            other = await rb.create(PLAYER, RoomOptions(), "Other")
            page2 = Page(0, PLAYER)
            rb.connect(other, page2, 0)
            rb.disconnect(other, page2)
            moved = await take(ra, other.id)
            assert moved is not None and f"room:{other.id}" in a.leases.held
        finally:
            await b.stop()
            await a.stop()
            pool.close()

    asyncio.run(go())


def test_the_stream_of_a_process_killed_with_no_clean_stop_is_deleted() -> None:
    """A process killed with ``kill -9`` leaves its stream behind (nobody may be left who
    forwarded to it); a live process deletes it once its alive key has been gone at two
    looks, and never the stream of a process still beating, or its own."""
    from services import redis

    from lockup.server.cluster.bus import Bus, alive_key, stream_of

    with redis() as server:

        async def go() -> None:
            bus = Bus(server.url, "live", beat_every=0.05, alive_ttl=0.5)
            r = bus.redis
            for p in ("killed", "beating", "live"):
                await r.xadd(stream_of(p), {"t": "m"})
            await r.set(alive_key("beating"), "1")
            await r.set(alive_key("live"), "1")
            assert await bus.sweep_streams() == []  # one look: maybe a Redis restart
            assert await r.exists(stream_of("killed")) == 1
            assert await bus.sweep_streams() == [stream_of("killed")]
            assert await r.exists(stream_of("killed")) == 0
            assert await r.exists(stream_of("beating")) == 1
            assert await r.exists(stream_of("live")) == 1
            await r.aclose()

        asyncio.run(asyncio.wait_for(go(), 30))
