"""Transport-level attacks on a real ``lockup serve``, each with an innocent player beside.

Every attack goes to 127.0.0.0/8 on this machine only, bounded in count and time. The
innocent player (tests/attack_helpers.py) plays from its own thread and must stay
unharmed: its cards acknowledged quickly, the bots moving, ``/healthz`` answering.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import select
import selectors
import socket
import time
from pathlib import Path
from typing import Any

import pytest
from attack_helpers import Innocent, Server, raise_nofile_limit

from lockup.server.net.middleware import BodyLimitMiddleware
from lockup.server.net.serve import add_arguments, limits_from_args
from lockup.server.net.transport import AddressCounter, NetLimits

pytestmark = pytest.mark.serial  # timing measured: run alone (make pytest)

raise_nofile_limit()


@pytest.fixture
def db(tmp_path: Path) -> Path:
    return tmp_path / "games.sqlite"


def test_harness_against_a_quiet_server(db: Path) -> None:
    """No attack: the innocent plays, bots answer, /healthz answers, logs are readable."""
    with Server(db) as server:
        innocent = Innocent(server.url, level="normal", reopen_every=2.0).start()
        time.sleep(ATTACK_S)
        report = innocent.stop()
        print(report.summary())
        report.assert_unharmed()
        assert len(report.ws_opens) >= 3  # one every 2 s
        assert report.max_bot_gap > 0.2  # bots' cards are paced: the gap is measured
        assert server.rss_kb() > 0
        assert "Traceback" not in server.log_text()


# ---------------------------------------------------------------------- attackers

MB = 1024 * 1024
ATTACK_S = 8.0
"""How long each attack lasts, the innocent player measured throughout."""


def attacker_socket(server: Server, source: str, timeout: float = 5.0) -> socket.socket:
    """A TCP connection to the server from ``source`` (an address of 127.0.0.0/8)."""
    s = socket.socket()
    s.bind((source, 0))
    s.settimeout(timeout)
    s.connect(("127.0.0.1", server.port))
    return s


def read_response(s: socket.socket, timeout: float = 3.0) -> bytes:
    """What the server sends until it closes (or ``timeout``); b"" if it reset."""
    s.settimeout(timeout)
    data = b""
    with contextlib.suppress(OSError):
        while chunk := s.recv(65536):
            data += chunk
    return data


def push_until_refused(
    s: socket.socket, head: bytes, piece: bytes, limit: int
) -> tuple[int, bytes]:
    """Send ``head``, then ``piece`` after ``piece`` up to ``limit`` bytes while the server
    reads; (bytes sent, what the server answered). Stops at the first answer or close."""
    sent = 0
    answer = b""
    try:
        s.sendall(head)
        sent += len(head)
        while sent < limit:
            readable, _, _ = select.select([s], [], [], 0)
            if readable:
                break
            s.sendall(piece)
            sent += len(piece)
    except OSError:  # reset or broken pipe: the server closed while we sent
        pass
    answer = read_response(s, 3.0)
    return sent, answer


def status_of(answer: bytes) -> str:
    """``"431"`` for b"HTTP/1.1 431 ...", ``"closed"`` for nothing."""
    return answer.split(b" ", 2)[1].decode() if answer.startswith(b"HTTP/1.1 ") else "closed"


# ---------------------------------------------------------------------- the attacks


def test_huge_headers_are_refused_before_they_are_read(db: Path) -> None:
    """Headers pushed up to 50 MB: answered 431 (or closed) after a few KB, each time; the
    server's memory stays put and the innocent player does not notice."""
    with Server(db) as server:
        innocent = Innocent(server.url, level="normal").start()
        rss_before = server.rss_kb()
        outcomes = []
        started = time.monotonic()
        i = 0
        while time.monotonic() - started < ATTACK_S:
            i += 1
            time.sleep(0.1)  # a few connections a second: enough, on a shared machine
            with attacker_socket(server, "127.0.0.4") as s:
                head = b"GET /healthz HTTP/1.1\r\nHost: 127.0.0.1\r\nX-Big: "
                t0 = time.monotonic()
                piece = b"a" * 65536 if i % 2 else b"b" * 1024  # big pieces, then small ones
                sent, answer = push_until_refused(s, head, piece, 50 * MB)
                outcomes.append((sent, status_of(answer), time.monotonic() - t0))
        attack_s = time.monotonic() - started
        time.sleep(3)  # and after it
        rss_after = server.rss_kb()
        report = innocent.stop()
        log = server.log_text()
    most = max(sent for sent, _, _ in outcomes)
    statuses = sorted({status for _, status, _ in outcomes})
    slowest = max(took for _, _, took in outcomes)
    print(
        f"\nhuge headers: {len(outcomes)} connections in {attack_s:.1f} s, answered {statuses}, "
        f"at most {most} bytes sent (kernel buffers included), refused within {slowest:.3f} s; "
        f"RSS {rss_before} -> {rss_after} KiB"
    )
    print(report.summary())
    for sent, status, took in outcomes:
        assert status in ("431", "closed"), outcomes
        assert sent < 8 * MB, f"the server read {sent} bytes of headers"
        assert took < 5, f"refused only after {took:.1f} s"
    assert any(status == "431" for _, status, _ in outcomes), outcomes
    assert rss_after - rss_before < 30 * 1024, f"RSS grew {rss_before} -> {rss_after} KiB"
    assert "max-header-bytes" in log, log
    report.assert_unharmed()


def test_huge_bodies_are_refused_before_they_are_read(db: Path) -> None:
    """A POST declaring 300 MB is answered 413 at once, with none of the body sent; a
    chunked one is answered 413 once over the limit; a slow one 408. The innocent plays on."""
    with Server(db, "--body-timeout", "1.5") as server:
        innocent = Innocent(server.url, level="normal").start()
        rss_before = server.rss_kb()
        origin = f"Origin: {server.url}\r\nContent-Type: application/json\r\n"
        with attacker_socket(server, "127.0.0.5") as s:  # 10 bytes of 1000, then nothing
            t0 = time.monotonic()
            s.sendall(
                b"POST /api/games HTTP/1.1\r\nHost: 127.0.0.1\r\n"
                + origin.encode()
                + b"Content-Length: 1000\r\n\r\n{"
                + b" " * 9
            )
            slow = (status_of(read_response(s, 5.0)), round(time.monotonic() - t0, 2))
        declared = []
        chunked = []
        started = time.monotonic()
        while time.monotonic() - started < ATTACK_S:
            time.sleep(0.1)  # a few connections a second: enough, on a shared machine
            with attacker_socket(server, "127.0.0.5") as s:
                t0 = time.monotonic()
                s.sendall(
                    b"POST /api/games HTTP/1.1\r\nHost: 127.0.0.1\r\n"
                    + origin.encode()
                    + f"Content-Length: {300 * MB}\r\n\r\n".encode()
                )
                answer = read_response(s, 3.0)
                declared.append((status_of(answer), round(time.monotonic() - t0, 3)))
            with attacker_socket(server, "127.0.0.5") as s:
                head = (
                    b"POST /api/games HTTP/1.1\r\nHost: 127.0.0.1\r\n"
                    + origin.encode()
                    + b"Transfer-Encoding: chunked\r\n\r\n"
                )
                piece = b"1000\r\n" + b"x" * 4096 + b"\r\n"
                t0 = time.monotonic()
                sent, answer = push_until_refused(s, head, piece, 300 * MB)
                chunked.append((sent, status_of(answer), round(time.monotonic() - t0, 3)))
        time.sleep(2)
        rss_after = server.rss_kb()
        report = innocent.stop()
    print(
        f"\ndeclared 300 MB: {len(declared)} answered {sorted({d[0] for d in declared})} within "
        f"{max(d[1] for d in declared):.3f} s; chunked: {len(chunked)} answered "
        f"{sorted({c[1] for c in chunked})} after at most {max(c[0] for c in chunked)} bytes "
        f"(kernel buffers included); slow body: {slow}"
    )
    print(f"RSS {rss_before} -> {rss_after} KiB; {report.summary()}")
    for status, took in declared:
        assert status == "413" and took < 1.0, declared
    for sent, status, _ in chunked:
        assert status in ("413", "closed") and sent < 8 * MB, chunked
    assert any(status == "413" for _, status, _ in chunked), chunked
    assert slow[0] == "408" and 1.3 < slow[1] < 4.0, slow
    assert rss_after - rss_before < 30 * 1024, f"RSS grew {rss_before} -> {rss_after} KiB"
    report.assert_unharmed()


def flood(server: Server, silent_n: int, drips_n: int, give_up: float) -> dict[str, list[float]]:
    """``silent_n`` silent connections from 127.0.0.2 and ``drips_n`` from 127.0.0.3 that
    send a header line every 0.3 s, until the server closes them all (or ``give_up``
    seconds); how long each lived: ``refused`` (answered 429), ``held`` (the other silent
    ones), ``drips``, and ``opening`` (seconds to open the silent ones)."""
    sel = selectors.DefaultSelector()
    t0 = time.monotonic()
    opened_at: dict[socket.socket, float] = {}
    closed_at: dict[socket.socket, float] = {}
    answers: dict[socket.socket, bytes] = {}
    silent = []
    for _ in range(silent_n):
        s = socket.socket()
        s.bind(("127.0.0.2", 0))
        s.setblocking(False)
        with contextlib.suppress(BlockingIOError):
            s.connect(("127.0.0.1", server.port))
        silent.append(s)
        opened_at[s] = time.monotonic()
        sel.register(s, selectors.EVENT_READ)
    opening = time.monotonic() - t0
    drips = []
    for _ in range(drips_n):
        s = attacker_socket(server, "127.0.0.3")
        opened_at[s] = time.monotonic()
        s.sendall(b"GET /healthz HTTP/1.1\r\nHost: 127.0.0.1\r\n")
        s.setblocking(False)
        drips.append(s)
        sel.register(s, selectors.EVENT_READ)
    next_drip = time.monotonic()
    try:
        while len(closed_at) < len(opened_at) and time.monotonic() - t0 < give_up:
            now = time.monotonic()
            if now >= next_drip:  # one more header line from each open drip, every 0.3 s
                for s in drips:
                    if s not in closed_at:
                        with contextlib.suppress(OSError):
                            s.send(b"X-Drip: 1\r\n")
                next_drip = now + 0.3
            for key, _ in sel.select(0.05):
                s = key.fileobj  # type: ignore[assignment]
                try:
                    data = s.recv(4096)
                except BlockingIOError:
                    continue
                except OSError:
                    data = b""
                if data:
                    answers[s] = answers.get(s, b"") + data
                else:
                    closed_at[s] = time.monotonic()
                    sel.unregister(s)
    finally:
        for s in opened_at:
            s.close()
        sel.close()
    lived = {s: closed_at.get(s, float("inf")) - opened_at[s] for s in opened_at}
    refused = [s for s in silent if status_of(answers.get(s, b"")) == "429"]
    return {
        "refused": sorted(lived[s] for s in refused),
        "held": sorted(lived[s] for s in silent if s not in refused),
        "drips": sorted(lived[s] for s in drips),
        "opening": [opening],
    }


def test_silent_and_slow_connections_lock_no_one_out(db: Path) -> None:
    """Rounds of 1,000 silent connections from 127.0.0.2 and 40 slow drips from 127.0.0.3:
    the cap per address refuses the excess at once (429), the header timeout (2 s here)
    closes the rest, and the innocent player on 127.0.0.1 plays on, opens new WebSockets
    and gets /healthz."""
    timeout = 2.0
    cap = 64
    with Server(
        db, "--header-timeout", str(timeout), "--max-connections-per-ip", str(cap)
    ) as server:
        innocent = Innocent(server.url, level="normal", reopen_every=1.0).start()
        rounds = []
        started = time.monotonic()
        while time.monotonic() - started < ATTACK_S:
            rounds.append(flood(server, 1000, 40, give_up=timeout + 8))
        attack_s = time.monotonic() - started
        time.sleep(2)  # and after it
        report = innocent.stop()
        log = server.log_text()
    for i, r in enumerate(rounds):
        refused, held, drips = r["refused"], r["held"], r["drips"]
        print(
            f"\nround {i + 1}: 1,000 silent connections opened in {r['opening'][0]:.2f} s: "
            f"{len(refused)} refused (429) in {refused[len(refused) // 2]:.2f} s (median), the "
            f"last in {refused[-1]:.2f} s; {len(held)} held closed in {held[0]:.2f} to "
            f"{held[-1]:.2f} s; {len(drips)} drips closed in {drips[0]:.2f} to {drips[-1]:.2f} s"
        )
        assert len(refused) >= 1000 - cap, (
            f"only {len(refused)} connections over the cap were refused"
        )
        assert len(held) == 1000 - len(refused) and len(held) <= cap, len(held)
        assert held[0] > timeout - 0.5, "a held connection was closed before its time"
        assert held[-1] < timeout + 3.0, f"a silent connection lived {held[-1]:.1f} s"
        assert drips[0] > timeout - 0.5, "a drip was closed before its time"
        assert drips[-1] < timeout + 3.0, f"a slow drip lived {drips[-1]:.1f} s"
    print(f"{len(rounds)} rounds in {attack_s:.1f} s; {report.summary()}")
    assert "max-connections-per-ip" in log and "header-timeout" in log, log
    # A new connection waits behind the flood's in the kernel's queue: /healthz may take a
    # second on a loaded machine, but never fails; cards and bots are not slowed.
    report.assert_unharmed(health_p99=2.0)
    assert len(report.ws_opens) >= 4, f"only {len(report.ws_opens)} new WebSockets opened"


def ws_handshake(
    server: Server, source: str, forwarded: str | None = None
) -> tuple[socket.socket, str]:
    """Open a WebSocket by hand from ``source`` (with ``X-Forwarded-For: forwarded``); the
    socket and the answer's status (``"101"`` when open, ``"closed"`` when refused at once)."""
    s = socket.socket()
    s.bind((source, 0))
    s.settimeout(5)
    s.connect(("127.0.0.1", server.port))
    xff = f"X-Forwarded-For: {forwarded}\r\n" if forwarded else ""
    try:
        s.sendall(
            f"GET /ws HTTP/1.1\r\nHost: 127.0.0.1:{server.port}\r\nUpgrade: websocket\r\n"
            f"Connection: Upgrade\r\nSec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\n"
            f"Sec-WebSocket-Version: 13\r\nOrigin: {server.url}\r\n{xff}\r\n".encode()
        )
        answer = s.recv(4096)
    except OSError:
        answer = b""
    return s, status_of(answer)


def test_the_cap_per_address_counts_websockets_for_their_whole_life(db: Path) -> None:
    """With 8 connections per address: 8 open WebSockets from 127.0.0.6 hold all 8 (a 9th
    connection, WebSocket or plain HTTP, is refused with 429); closing one frees its place;
    another address is not affected."""
    with Server(db, "--max-connections-per-ip", "8") as server:
        held = [ws_handshake(server, "127.0.0.6") for _ in range(8)]
        assert [status for _, status in held] == ["101"] * 8, held
        time.sleep(0.2)  # the WebSockets are well past their handshake
        extra, status = ws_handshake(server, "127.0.0.6")
        extra.close()
        assert status == "429", status
        with attacker_socket(server, "127.0.0.6") as s:
            s.sendall(b"GET /healthz HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n")
            assert status_of(read_response(s)) == "429"
        other, status = ws_handshake(server, "127.0.0.7")
        other.close()
        assert status == "101"
        held[0][0].close()
        time.sleep(0.3)  # the server sees it go
        again, status = ws_handshake(server, "127.0.0.6")
        assert status == "101"
        again.close()
        for s, _ in held[1:]:
            s.close()
        time.sleep(0.3)
        fresh = [ws_handshake(server, "127.0.0.6") for _ in range(8)]
        assert [status for _, status in fresh] == ["101"] * 8, "closed WebSockets still counted"
        for s, _ in fresh:
            s.close()


def test_behind_a_proxy_the_forwarded_address_is_capped(db: Path) -> None:
    """With --proxy-headers, the proxy's own address (127.0.0.1) is not capped; the client
    named by X-Forwarded-For is, for the life of each WebSocket."""
    with Server(
        db, "--max-connections-per-ip", "4", "--proxy-headers", "--forwarded-allow-ips", "127.0.0.1"
    ) as server:
        first = [ws_handshake(server, "127.0.0.1", "198.51.100.7") for _ in range(4)]
        second = [ws_handshake(server, "127.0.0.1", "198.51.100.8") for _ in range(4)]
        assert [status for _, status in first + second] == ["101"] * 8
        over, status = ws_handshake(server, "127.0.0.1", "198.51.100.7")
        over.close()
        assert status != "101", "a fifth WebSocket for one forwarded client"
        first[0][0].close()
        time.sleep(0.3)
        again, status = ws_handshake(server, "127.0.0.1", "198.51.100.7")
        assert status == "101"
        # an untrusted peer's X-Forwarded-For is ignored: capped by its own address
        direct = [ws_handshake(server, "127.0.0.8", f"203.0.113.{i}") for i in range(5)]
        assert [status for _, status in direct] == ["101"] * 4 + ["429"], direct
        for s, _ in [*first[1:], *second, (again, ""), *direct]:
            s.close()


# ---------------------------------------------------------------------- the parts alone


def test_flags_make_the_limits() -> None:
    parser = argparse.ArgumentParser()
    add_arguments(parser)
    assert limits_from_args(parser.parse_args([])) == NetLimits()
    args = parser.parse_args(
        ["--max-header-bytes", "4096", "--header-timeout", "2.5", "--max-connections-per-ip", "0"]
        + ["--proxy-headers", "--forwarded-allow-ips", "10.0.0.0/8"]
    )
    limits = limits_from_args(args)
    assert limits.max_header_bytes == 4096 and limits.header_timeout == 2.5
    assert limits.max_connections_per_ip == 0 and limits.proxy_headers
    assert limits.forwarded_allow_ips == "10.0.0.0/8"
    for bad in (
        ["--max-body-bytes", "10"],
        ["--header-timeout", "-1"],
        ["--limit-concurrency", "x"],
    ):
        with pytest.raises(SystemExit):
            parser.parse_args(bad)


def test_address_counter() -> None:
    counter = AddressCounter(2)
    a, b = counter.acquire("10.0.0.1"), counter.acquire("10.0.0.1")
    assert a is not None and b is not None
    assert counter.acquire("10.0.0.1") is None
    assert counter.acquire("10.0.0.2") is not None
    a.release()
    a.release()  # once only
    assert counter.counts["10.0.0.1"] == 1
    assert counter.acquire("10.0.0.1") is not None
    assert AddressCounter(0).acquire("x") is not None  # no cap


def run_body_limit(
    headers: list[tuple[bytes, bytes]], chunks: list[bytes], complete: bool = True
) -> tuple[int, bytes, int]:
    """(status, body the app saw or the refusal, messages read) for a request of ``chunks``
    (``complete``: the last one ends it) through BodyLimitMiddleware(max_body=100)."""
    seen: list[bytes] = []
    sent: list[dict[str, Any]] = []
    reads = 0

    async def app(scope: Any, receive: Any, send: Any) -> None:
        message = await receive()
        seen.append(message["body"])
        await send({"type": "http.response.start", "status": 200, "headers": []})
        await send({"type": "http.response.body", "body": b"ok"})

    async def receive() -> dict[str, Any]:
        nonlocal reads
        reads += 1
        if reads <= len(chunks):
            more = reads < len(chunks) or not complete
            return {"type": "http.request", "body": chunks[reads - 1], "more_body": more}
        await asyncio.sleep(10)
        return {"type": "http.disconnect"}

    async def send(message: dict[str, Any]) -> None:
        sent.append(message)

    scope = {"type": "http", "method": "POST", "path": "/", "headers": headers}
    asyncio.run(BodyLimitMiddleware(app, max_body=100, body_timeout=0.5)(scope, receive, send))
    status = sent[0]["status"]
    return status, seen[0] if seen else sent[1]["body"], reads


def test_body_limit_middleware() -> None:
    status, body, reads = run_body_limit([(b"content-length", b"300000000")], [b"x" * 100])
    assert (status, reads) == (413, 0) and b"too-large" in body  # none of it read
    status, body, reads = run_body_limit([(b"transfer-encoding", b"chunked")], [b"x" * 60] * 1000)
    assert (status, reads) == (413, 2)  # read up to the limit only
    status, body, _ = run_body_limit([(b"transfer-encoding", b"chunked")], [b'{"a":', b" 1}"])
    assert (status, body) == (200, b'{"a": 1}')  # the app gets it whole
    status, body, _ = run_body_limit([(b"content-length", b"50")], [b"x" * 10, b"y" * 10])
    assert status == 200 and body == b"x" * 10 + b"y" * 10
    status, body, _ = run_body_limit([(b"content-length", b"50")], [b"x" * 10], complete=False)
    assert status == 408 and b"timeout" in body  # 10 bytes of 50, then nothing for 0.5 s


def test_one_big_header_in_one_send_is_refused(db: Path) -> None:
    """The 8 KB limit holds for headers that arrive whole, in one send, too (h11 bounds
    only an incomplete request's buffer: a complete 20-100 KB header block used to get 200)."""
    with Server(db) as server:
        outcomes = {}
        for size in (4 * 1024, 20 * 1024, 100 * 1024):
            with attacker_socket(server, "127.0.0.5") as s:
                request = (
                    b"GET /healthz HTTP/1.1\r\nHost: 127.0.0.1\r\nX-Big: "
                    + b"a" * size
                    + b"\r\nConnection: close\r\n\r\n"
                )
                s.sendall(request)  # one send: the whole request, headers complete
                outcomes[size] = status_of(read_response(s, 5.0))
        log = server.log_text()
    assert outcomes == {4 * 1024: "200", 20 * 1024: "431", 100 * 1024: "431"}, outcomes
    assert "max-header-bytes" in log and "Traceback" not in log


def test_a_websocket_frame_that_is_not_utf8_is_one_log_line(db: Path) -> None:
    """A text frame of bad UTF-8 closes the socket 1007 and logs one line, no traceback."""
    import base64
    import os
    import struct

    import httpx

    def masked(payload: bytes, opcode: int = 1) -> bytes:
        mask = os.urandom(4)
        head = bytes([0x80 | opcode, 0x80 | len(payload)])
        return head + mask + bytes(b ^ mask[i % 4] for i, b in enumerate(payload))

    with Server(db) as server:
        with httpx.Client(base_url=server.url) as http:
            http.get("/")
            cookie = http.cookies["lockup_player"]
        with attacker_socket(server, "127.0.0.6") as s:
            key = base64.b64encode(os.urandom(16)).decode()
            s.sendall(
                (
                    f"GET /ws HTTP/1.1\r\nHost: 127.0.0.1:{server.port}\r\n"
                    "Upgrade: websocket\r\nConnection: Upgrade\r\n"
                    f"Sec-WebSocket-Key: {key}\r\nSec-WebSocket-Version: 13\r\n"
                    f"Origin: {server.url}\r\nCookie: lockup_player={cookie}\r\n\r\n"
                ).encode()
            )
            s.settimeout(5)
            assert s.recv(4096).startswith(b"HTTP/1.1 101 ")
            s.sendall(masked(b'\xff\xfe{"type": "hello"}'))
            close = s.recv(4096)
        assert close[:1] == b"\x88" and struct.unpack("!H", close[2:4])[0] == 1007
        time.sleep(0.5)
        log = server.log_text()
        # and the server goes on
        assert httpx.get(f"{server.url}/healthz", timeout=5).text == "ok"
    assert "Traceback" not in log, log
    lines = [line for line in log.splitlines() if "not UTF-8" in line]
    assert len(lines) == 1 and "closed 1007" in lines[0], log
