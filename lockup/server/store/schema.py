"""The tables: SQLAlchemy Core, the schema Alembic revisions build (``migrations/``)."""

from __future__ import annotations

from sqlalchemy import (
    Boolean,
    Column,
    DateTime,
    Float,
    ForeignKey,
    Index,
    Integer,
    MetaData,
    String,
    Table,
    Text,
)

metadata = MetaData()


players_table = Table(
    "players",
    metadata,
    Column("id", String(64), primary_key=True),
    Column("game_id", String(32), nullable=True),
    Column("created_at", DateTime(timezone=True), nullable=False),
    Column("name", String(40), nullable=True),
    Index("ix_players_game_id", "game_id"),
)
"""A player known by the ``lockup_player`` cookie, the game they are playing now, and the
name they chose to be shown at a table."""


games_table = Table(
    "games",
    metadata,
    Column("id", String(32), primary_key=True),
    Column("rules", Text, nullable=False),
    Column("players", Text, nullable=False),
    Column("seats", Text, nullable=False),
    Column("created_at", DateTime(timezone=True), nullable=False),
    Column("finished_at", DateTime(timezone=True), nullable=True),
    Column("winner", Integer, nullable=True),
    Column("record", Text, nullable=True),
    Column("updated_at", DateTime(timezone=True), nullable=True),
    Column("played_at", DateTime(timezone=True), nullable=True),
    Column("room_id", String(16), nullable=True),
    Index("ix_games_finished_at_updated_at", "finished_at", "updated_at"),
)
"""A game: rules and names (JSON), who sits where (JSON), and the record once it is over;
``updated_at``: when its last action was stored, ``played_at``: when a person first
played a card in it (both for the purge)."""


actions_table = Table(
    "actions",
    metadata,
    Column("game_id", String(32), ForeignKey("games.id"), primary_key=True),
    Column("seq", Integer, primary_key=True, autoincrement=False),
    Column("kind", String(8), nullable=False),
    Column("seat", Integer, nullable=False),
    Column("data", Text, nullable=False),
    Column("version", Integer, nullable=False),
    Column("actor", String(8), nullable=True),
)
"""One deal (``seat`` the dealer, ``data`` the deal as JSON), play or discard (``data`` the
card code), the game's event version after it, and who made a play: ``person`` or
``computer`` (a computer plays for a person who is away or out of time)."""


rooms_table = Table(
    "rooms",
    metadata,
    Column("id", String(16), primary_key=True),
    Column("invite", String(32), nullable=False),
    Column("watch", String(32), nullable=False),
    Column("host", String(64), nullable=False),
    Column("options", Text, nullable=False),
    Column("seats", Text, nullable=False),
    Column("game_id", String(32), nullable=True),
    Column("status", String(8), nullable=False),
    Column("public", Boolean, nullable=False),
    Column("created_at", DateTime(timezone=True), nullable=False),
    Column("updated_at", DateTime(timezone=True), nullable=False),
    Column("address_tag", String(32), nullable=True),
    Index("ix_rooms_public_status", "public", "status"),
    Index("ix_rooms_address_tag", "address_tag"),
)
"""A room: its secrets (the invite and the watch link), its host (a player token), options
and seats (JSON), its current game and status (``open``, ``playing``, ``closed``), and
``address_tag``: a keyed hash of the client address that made it (:meth:`Store.address_tag`;
never the address itself; None for a room made before revision 0006), so that an address's
public rooms can be counted and the lobby can show few of each."""


game_events_table = Table(
    "game_events",
    metadata,
    Column("game_id", String(32), ForeignKey("games.id"), primary_key=True),
    Column("version", Integer, primary_key=True, autoincrement=False),
    Column("kind", String(12), nullable=False),
    Column("seat", Integer, nullable=True),
    Column("data", Text, nullable=False),
    Column("created_at", DateTime(timezone=True), nullable=False),
)
"""A game's events that are not moves (chat, reactions, a computer taking over a seat, a
person taking it back), each with its version, so versions go on after a restart."""


participants_table = Table(
    "participants",
    metadata,
    Column("player_id", String(64), primary_key=True),
    Column("game_id", String(32), ForeignKey("games.id"), primary_key=True),
    Column("seat", Integer, nullable=False),
    Column("uploaded", Boolean, nullable=False),
    Column("created_at", DateTime(timezone=True), nullable=False),
    Column("address_tag", String(32), nullable=True),
    Column("browser", String(64), nullable=True),
    Index("ix_participants_game_id", "game_id"),
)
"""Each game a player took part in (their seat), or brought in as an uploaded record;
where they sat down from (``address_tag``: the keyed hash of their address,
``browser``: their browser's token; None where not known), so that a rated game can tell
one person holding two seats."""


analyses_table = Table(
    "analyses",
    metadata,
    Column("game_id", String(32), ForeignKey("games.id"), primary_key=True),
    Column("seat", Integer, primary_key=True, autoincrement=False),
    Column("hands", Integer, nullable=False),
    Column("status", String(8), nullable=False),
    Column("result", Text, nullable=True),
    Column("updated_at", DateTime(timezone=True), nullable=False),
)
"""The expert's analysis of a seat's play in a game: how many hands, its status
(``running``, ``done``, ``failed``) and the result (JSON), so it runs once."""


leases_table = Table(
    "leases",
    metadata,
    Column("id", String(48), primary_key=True),
    Column("owner", String(96), nullable=False),
    Column("fence", Integer, nullable=False),
    Column("expires_at", DateTime(timezone=True), nullable=False),
    Index("ix_leases_owner", "owner"),
)
"""Which server process owns a game or a room now (several processes on one database):
the key (``game:<id>``, ``room:<id>``), the owner (see :func:`process_id`), the fence
(bumped at every takeover and checked in every write of the owner, see :class:`Lease`) and
when the lease ends unless renewed."""


settings_table = Table(
    "settings",
    metadata,
    Column("key", String(64), primary_key=True),
    Column("value", Text, nullable=False),
)
"""The server's own settings, e.g. ``secret:token-key`` (see :meth:`Store.secret`)."""


ratings_table = Table(
    "ratings",
    metadata,
    Column("subject", String(80), primary_key=True),
    Column("kind", String(8), nullable=False),
    Column("mu", Float, nullable=False),
    Column("sigma", Float, nullable=False),
    Column("rating", Float, nullable=False),
    Column("games", Integer, nullable=False),
    Column("updated", DateTime(timezone=True), nullable=False),
    Index("ix_ratings_rating", "rating"),
)
"""Each subject's current rating (:mod:`lockup.ratings`): a person (``subject`` their
player token, ``kind`` ``person``) or a computer level (``computer:<level>``, ``kind``
``computer``); ``mu``, ``sigma``, the number shown (``rating``, ``mu - 3 sigma``), how many
rated games (also the row's version: an update checks it is unchanged) and when."""


rating_changes_table = Table(
    "rating_changes",
    metadata,
    Column("game_id", String(32), ForeignKey("games.id"), primary_key=True),
    Column("seat", Integer, primary_key=True, autoincrement=False),
    Column("subject", String(80), nullable=False),
    Column("kind", String(8), nullable=False),
    Column("sat_out", Boolean, nullable=False),
    Column("mu_before", Float, nullable=False),
    Column("sigma_before", Float, nullable=False),
    Column("rating_before", Float, nullable=False),
    Column("mu_after", Float, nullable=False),
    Column("sigma_after", Float, nullable=False),
    Column("rating_after", Float, nullable=False),
    Column("created_at", DateTime(timezone=True), nullable=False),
    Index("ix_rating_changes_subject", "subject"),
)
"""What a rated game did to each seat's subject: the rating before and the model's
answer for the seat after (for a computer level of several seats, its new rating is the
mean of its seats'). ``sat_out``: the seat's person abandoned the game and ranked last
(in rows rated before that rule: a person a computer played most cards for, rated as the
computer's level). A seat left out of the rating (a guest's) has no row. The key (game,
seat) makes each game rated once."""


accounts_table = Table(
    "accounts",
    metadata,
    Column("id", String(32), primary_key=True),
    Column("name", String(40), nullable=False),
    Column("name_key", String(160), nullable=False, unique=True),
    Column("password_hash", Text, nullable=False),
    Column("player_id", String(64), nullable=False, unique=True),
    Column("created_at", DateTime(timezone=True), nullable=False),
    Column("password_changed_at", DateTime(timezone=True), nullable=True),
)
"""A person's account: the name shown (unique by ``name_key``, its case-folded
confusable skeleton, Unicode TR39), the password's argon2 hash, and ``player_id``: the
player the account plays as (the guest token of the browser that made it, so that what
that guest played is the account's)."""


account_sessions_table = Table(
    "account_sessions",
    metadata,
    Column("id", String(32), primary_key=True),
    Column("token_hash", String(64), nullable=False, unique=True),
    Column("account_id", String(32), ForeignKey("accounts.id"), nullable=False),
    Column("created_at", DateTime(timezone=True), nullable=False),
    Column("last_seen", DateTime(timezone=True), nullable=False),
    Column("agent", String(120), nullable=True),
    Index("ix_account_sessions_account_id", "account_id"),
)
"""A signed-in browser or terminal: the SHA-256 of its session token (the token itself is
never stored), its account, when it signed in and was last seen, and a short label of the
client (its user agent) for the list of sessions."""
