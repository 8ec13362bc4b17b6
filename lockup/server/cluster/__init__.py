"""Several server processes on one database: each game and room is owned by one process.

- :mod:`.leases`: the leases of this process (taken, renewed, lost, given back).
- :mod:`.bus`: Redis Streams between the processes, forwarded WebSockets and HTTP calls.
"""
