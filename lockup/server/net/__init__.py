"""Limits and checks at the edge of the server: no single client can stall it or act for
another.

The transport limits of ``lockup serve``:

uvicorn reads what a client sends before the app sees it, so the limits that keep one
client from stalling the others live at that level (docs/server.md, "Limits"):

- **headers**: a request whose line and headers pass ``max_header_bytes`` is answered 431
  and closed as soon as that many bytes are buffered (the h11 parser, which bounds its
  buffer; httptools reads headers of any size), and so is one whose too long headers
  arrive whole in one read (h11 bounds only an incomplete request's buffer, so the
  protocol measures the header block itself);
- **header timeout**: a connection that has not sent a request's complete headers within
  ``header_timeout`` seconds of connecting (or of the first byte of a later request) is
  closed: silent connections and slow drips ("slowloris") alike;
- **connections per address**: at most ``max_connections_per_ip`` at once from one client
  address, a WebSocket counted for its whole life; one more is answered 429 and closed at
  once. Behind a proxy (``proxy_headers``), the forwarded client address counts, for the
  life of each request or WebSocket;
- **bodies**: :class:`BodyLimitMiddleware` answers 413 to a declared ``Content-Length``
  over ``max_body_bytes`` without reading the body, stops reading a chunked one once over
  it, and answers 408 to a body that takes over ``body_timeout`` seconds;
- **capacity**: :class:`~.middleware.CapacityGuard` counts the WebSockets open and the API
  requests under way; past ``limit_concurrency`` a new one is refused in words
  (``server-full``: 503 with ``Retry-After``, or an ``error`` frame and close 1013), while
  pages, static files and ``/healthz`` are still served; the limit is lowered to what the
  open files carry (:func:`~.serve.fit_to_open_files`);
- uvicorn's own: ``timeout_keep_alive``, WebSocket pings.

The parts:

- :mod:`.transport`: uvicorn's h11 protocol, guarded (headers, timeouts, connections per
  address); :class:`~.transport.NetLimits`, every transport limit with its default.
- :mod:`.middleware`: the capacity, request bodies, and connections per forwarded address.
- :mod:`.serve`: :func:`~.serve.serve` runs an app with them; :func:`~.serve.add_arguments`
  and :func:`~.serve.limits_from_args` are the ``lockup serve`` flags.
- :mod:`.limits`: what one client may ask of the app (rate limits, :class:`~.limits.Limits`)
  and the move slots with priorities.
- :mod:`.security`: the ``Host``, origin and content-type checks, the security headers.
- :mod:`.tokens`: the player tokens the server signs.
"""
