// @ts-check
// Rooms in the page (docs/web-protocol.md, "Rooms"): "Play with friends" (create a room),
// the join view of an invite link, the waiting room, and at the table the names, presence,
// the computer's badge on an away seat, the turn timer's countdown, chat and reactions,
// spectators and the rematch. The table itself is app.js's: this module is given its
// protocol, its state and its drawing, and decorates what it draws.
//
// Everything a person typed (names, chat) is put on the page with textContent only.

import { t, translateDom } from "./i18n.js";
import { closeDialog, openDialog, refreshOver } from "./dialogs.js";
import { S, posOf } from "./state.js";
import { reactionIcon } from "./reaction-icons.js";
import { REACTIONS, TIMERS, GRACES, MAX_CHAT, MAX_NAME, abandonWords, chatText, clockOf, endsClock, freeSeats, parseRoomLink, roomOptions, secondsLeft } from "./room-core.js";
import { showLobby } from "./lobby.js";
import { bindQuickPlay } from "./quick.js";
import { coming, countdownWords, isQuick, secondsTo, startsAt } from "./quick-core.js";
import { rateLimitText } from "./text.js";
import { setGoneWords } from "./render.js";
import { rematchAwaited } from "./naming.js";

/** @typedef {import("./room-core.js").Clock} Clock */
/** @typedef {import("./room-core.js").RoomLink} RoomLink */

/**
 * @typedef {object} RoomApi what app.js lends the room
 * @property {import("./protocol.js").Protocol} proto
 * @property {() => void} render draw the table now
 * @property {(info: Pick<import("./types.js").GameInfo, "game"> & Partial<import("./types.js").GameInfo>) => void} setGame
 * @property {(text: string) => void} announce
 * @property {(text: string, kind?: "error" | "info", sticky?: boolean) => void} showMessage
 * @property {(msg: object) => boolean} send
 */

/**
 * @typedef {object} RoomSeat
 * @property {number} seat
 * @property {string | null} name
 * @property {"person" | "computer" | "empty"} kind
 * @property {string} level
 * @property {boolean} connected
 * @property {boolean} away
 * @property {number | null} [takeover_in] seconds until a computer plays for this person who left
 * @property {boolean} [pending] a quick-play seat whose person's page has not opened the table yet
 */

/**
 * @typedef {object} Room the `room` frame's room
 * @property {string} id
 * @property {"open" | "playing" | "over" | "closed"} status
 * @property {number | null} host
 * @property {number | null} you
 * @property {RoomSeat[]} seats
 * @property {number} watchers
 * @property {Record<string, any>} options
 * @property {string | null} game
 * @property {number[]} rematch
 * @property {number[]} [rematch_waiting] the seats whose rematch vote is still needed
 * @property {string} [invite]
 * @property {string} [watch]
 * @property {number | null} [starts_in] seconds until a quick table starts, as the frame was sent
 * @property {number[]} [left] the seats of the room's game whose person abandoned it
 */

/**
 * Build an element: attributes (`text` sets textContent, `on*` listeners), then children.
 * @param {string} tag @param {Record<string, any>} [attrs] @param {(Node | string | null | false)[]} children
 * @returns {HTMLElement}
 */
function h(tag, attrs = {}, ...children) {
  const el = document.createElement(tag);
  for (const [k, v] of Object.entries(attrs)) {
    if (v == null || v === false) continue;
    if (k === "text") el.textContent = String(v);
    else if (k.startsWith("on") && typeof v === "function") el.addEventListener(k.slice(2), v);
    else if (k === "className") el.className = v;
    else el.setAttribute(k, v === true ? "" : String(v));
  }
  for (const c of children) if (c != null && c !== false) el.append(c);
  return el;
}

/** A reaction in words ("Applause"), for screen readers; an unknown one as it came. @param {string} reaction */
function reactionLabel(reaction) {
  const i = REACTIONS.indexOf(reaction);
  return i >= 0 ? t(`room.react.${i}`) : reaction;
}

/** @param {string} url @param {any} [body] */
async function api(url, body) {
  /** @type {RequestInit} */
  const init = { credentials: "same-origin", cache: "no-store" };
  if (body !== undefined) {
    init.method = "POST";
    init.headers = { "Content-Type": "application/json" };
    init.body = JSON.stringify(body);
  }
  try {
    const res = await fetch(url, init);
    let data = {};
    try {
      data = await res.json();
    } catch {
      /* not JSON */
    }
    return { ok: res.ok, status: res.status, data: /** @type {any} */ (data) };
  } catch {
    return { ok: false, status: 0, data: /** @type {any} */ ({ error: "offline" }) };
  }
}

/** A refusal of the room's HTTP API in the page's words. @param {{status: number, data: any}} r */
function refusal(r) {
  const code = r.data && r.data.error;
  if (code && t(`room.err.${code}`) !== `room.err.${code}`) return t(`room.err.${code}`);
  if (r.status === 0) return t("err.offline");
  if (r.status === 429 || code === "rate-limited") return rateLimitText(r.data && r.data.reason, r.data && r.data.params && r.data.params.retry_after);
  // Never the server's English: a code the page has no words for is said in general.
  return t("room.err.other");
}

const seatLabel = (/** @type {number} */ seat) => t(`room.seat.${seat}`);

// ------------------------------------------------------------------ the room page

class RoomPage {
  constructor() {
    this.active = false;
    /** @type {RoomApi | null} */
    this.api = null;
    /** @type {RoomLink | null} */
    this.link = null;
    /** @type {Room | null} */
    this.room = null;
    this.spectator = false;
    /** @type {Clock | null} */
    this.clock = null;
    /** @type {any} */
    this.tick = null;
    /** @type {Map<number, {reaction: string, until: number}>} */
    this.reactions = new Map();
    /** @type {HTMLElement | null} */
    this.panel = null;
    this.drawnKey = "";
    /** A computer played for this person while they were away (said once they are back). */
    this.wasAway = false;
    /** Why this person abandoned their seat in the game under way ("" : they did not): the
     * page says so, and offers another game. */
    this.abandoned = "";
    /** @type {Map<number, number>} when (the page's clock, ms) a computer plays for each person who left */
    this.takeovers = new Map();
    /** @type {any} */
    this.takeoverTick = null;
    /** chat lines that came while the chat was out of sight */
    this.unread = 0;
    this.chatSeen = false;
    this.lastChat = "";
    /** @type {number | null} when (the page's clock, ms) a waiting quick table starts */
    this.quickAt = null;
    /** @type {any} */
    this.quickTick = null;
  }

  /**
   * Set up the page: the "Play with friends" button everywhere; on a room or watch link,
   * the room (joining it first if needed). Returns "solo" (the usual table), "room" (the
   * table of a room: connect and hello) or "stop" (the lobby, or a room that cannot open).
   * @param {RoomApi} roomApi
   * @returns {Promise<"solo" | "room" | "stop">}
   */
  async init(roomApi) {
    this.api = roomApi;
    setGoneWords((seat) => this.goneWords(seat));
    buildCreateDialog();
    const friends = document.querySelector("#btn-friends");
    if (friends) friends.addEventListener("click", openCreate);
    bindQuickPlay(document.querySelector("#btn-quick"), (text) => roomApi.showMessage(text));
    const link = parseRoomLink(location.pathname, location.search);
    this.link = link;
    if (!link && /^\/(room|watch)\//.test(location.pathname)) {
      // A room address that cannot be one (`/room/<script>`): no solo game, no such room.
      document.body.classList.add("room-mode");
      this.active = true;
      this.buildPanel();
      this.fail(t("room.err.no-room"));
      return "stop";
    }
    if (!link) return "solo";
    if (link.kind === "lobby") {
      document.body.classList.add("lobby-mode");
      showLobby();
      return "stop";
    }
    document.body.classList.add("room-mode");
    this.active = true;
    this.buildPanel();
    const id = /** @type {string} */ (link.id);
    if (link.kind === "watch") {
      this.watch(id, link.key || "");
      return "room";
    }
    const q = link.key ? `?invite=${encodeURIComponent(link.key)}` : "";
    const r = await api(`/api/rooms/${encodeURIComponent(id)}${q}`);
    if (!r.ok) {
      this.fail(r.status === 404 ? t("room.err.no-room") : refusal(r));
      return "stop";
    }
    /** @type {Room} */
    let room = r.data;
    if (room.status === "closed") {
      this.room = room;
      this.keepLeft(room);
      this.closed();
      return "stop";
    }
    if (room.you == null) {
      const full = room.status === "open" && freeSeats(room.seats).length === 0;
      let choice = null;
      if (isQuick(room)) {
        // A quick table's seats are given by quick play only: its link lets others watch.
        choice = await this.offerWatch(room, "quick");
      } else if (room.status !== "open" || full) {
        // Too late for a seat, or every seat taken: say so first, and offer to watch.
        choice = await this.offerWatch(room, full ? "full" : "started");
      } else {
        // Behind the form, the room as it is (its people, the seats free), not a table
        // of placeholder computers.
        document.body.classList.add("room-waiting");
        this.drawStatus(t("room.status.openGuest"));
        this.drawSeats(room, null, false);
        choice = await joinDialog(room, link.key || null);
        if (choice === "full" || choice === "started") choice = await this.offerWatch(room, choice);
      }
      if (choice === "watch") {
        this.watch(id, link.key || "");
        return "room";
      }
      if (typeof choice !== "number") {
        this.fail(t("room.notJoined"));
        return "stop";
      }
      const again = await api(`/api/rooms/${encodeURIComponent(id)}`);
      if (again.ok) room = again.data;
    }
    this.room = room;
    this.keepLeft(room);
    this.setQuickClock(room);
    if (typeof room.you === "number") S.seat = room.you;
    if (typeof room.you === "number" && room.seats[room.you]?.away) this.wasAway = true;
    roomApi.proto.room = id;
    this.applyNames();
    this.draw();
    return "room";
  }

  /**
   * Watch the room's game as a spectator (with its watch key, or the invite key of a
   * person who came too late for a seat).
   * @param {string} id @param {string} key
   */
  watch(id, key) {
    const roomApi = /** @type {RoomApi} */ (this.api);
    this.spectator = true;
    document.body.classList.add("watching");
    document.body.classList.remove("room-failed");
    roomApi.proto.room = id;
    roomApi.proto.watch = key;
    S.seat = /** @type {any} */ (null);
    this.drawStatus(t("room.connecting"));
    document.querySelector("#room-actions")?.replaceChildren();
    this.api?.showMessage("", "info");
  }

  /**
   * No seat for this person (the game has started, every seat is taken, or a quick
   * table's seats are quick play's to give): the panel says so and offers to watch. Resolves with "watch" when they choose to.
   * @param {Room} room @param {"started" | "full" | "quick"} why
   * @returns {Promise<"watch">}
   */
  offerWatch(room, why) {
    document.body.classList.add("room-failed");
    document.body.dataset.room = room.status;
    const text = t(why === "full" ? "room.fullWatch" : why === "quick" ? "room.quickWatch" : "room.startedWatch");
    this.drawStatus(text);
    this.drawSeats(room, null, false);
    return new Promise((resolve) => {
      const watchBtn = h("button", { type: "button", id: "room-watch-game", className: "primary", text: t("room.watchGame"), onclick: () => resolve("watch") });
      document
        .querySelector("#room-actions")
        ?.replaceChildren(watchBtn, h("a", { className: "button", href: "/", text: t("room.solo") }), h("a", { className: "button", href: "/lobby", text: t("lobby.title") }));
      watchBtn.focus();
    });
  }

  /** The room has closed (everyone left): say so, with the ways out. */
  closed() {
    document.body.dataset.room = "closed";
    this.fail(t("room.closed"));
  }

  /** The room cannot be shown: say why in the panel, with the ways out. @param {string} text */
  fail(text) {
    document.body.classList.add("room-failed");
    document.body.classList.remove("room-waiting");
    this.drawStatus(text);
    // A person who abandoned the game is still offered another one (the table closes once
    // its game ends with nobody left at it).
    const again = this.abandoned ? this.playAgainButton() : null;
    document
      .querySelector("#room-actions")
      ?.replaceChildren(...(again ? [again] : []), h("a", { className: again ? "button" : "button primary", href: "/", text: t("room.solo") }), h("a", { className: "button", href: "/lobby", text: t("lobby.title") }));
    if (!this.abandoned) this.api?.showMessage(text, "error", true);
  }

  /** "Play another game" (quick play), for a person who abandoned the game. */
  playAgainButton() {
    const again = /** @type {HTMLButtonElement} */ (h("button", { type: "button", id: "room-play-again", className: "primary", text: t("room.playAgain") }));
    bindQuickPlay(again, (text) => this.api?.showMessage(text));
    return again;
  }

  // ---------------------------------------------------------------- frames

  /**
   * Every message from the server passes here before the protocol's queue: the room's own
   * frames, the clock, and chat and reactions at once (not after the cards before them).
   * @param {any} msg
   */
  frame(msg) {
    if (!this.active || !msg || typeof msg.type !== "string") return;
    const api = /** @type {RoomApi} */ (this.api);
    switch (msg.type) {
      case "room":
        if (msg.room && Array.isArray(msg.room.seats)) this.onRoom(msg.room);
        return;
      case "clock":
        this.setClock(clockOf(msg.clock, msg.version, performance.now()));
        return;
      case "state":
        this.setClock(msg.clock ? clockOf(msg.clock, msg.version, performance.now()) : null);
        // Back after a computer played for us: our cards in the trick are the computer's.
        if (this.awayNow() && msg.view && S.seat != null) {
          const plays = [...(msg.view.trick || []), ...((msg.view.last_trick && msg.view.last_trick.plays) || [])];
          for (const p of plays) if (p.seat === S.seat) S.byComputer.add(p.card);
        }
        return;
      case "error":
        if (msg.code === "no-room") this.fail(t("room.err.no-room"));
        return;
      case "event":
        if (typeof msg.version !== "number" || !msg.event) return;
        if (endsClock(this.clock, msg)) this.setClock(null);
        // Seen already, or after a gap (the protocol asks again and the events come back).
        if (msg.version !== api.proto.latest + 1) return;
        this.onEvent(msg.event);
        return;
      default:
    }
  }

  /** Whether a computer plays our seat now (we are back, and it has not handed it over yet). */
  awayNow() {
    const room = this.room;
    const you = room && !this.spectator ? room.you : null;
    return this.wasAway || (you != null && !!room && !!room.seats[you]?.away);
  }

  /**
   * The seats of the room's game whose person abandoned it, as its frame says: an open
   * game-over window ranks them last.
   * @param {Room} room
   */
  keepLeft(room) {
    const seats = Array.isArray(room.left) ? room.left.filter((x) => Number.isInteger(x)) : [];
    if (room.game === S.left.game && seats.join() === S.left.seats.join()) return;
    S.left = { game: room.game, seats };
    refreshOver();
  }

  /** @param {Room} room */
  onRoom(room) {
    const api = /** @type {RoomApi} */ (this.api);
    const before = this.room;
    this.room = room;
    this.keepLeft(room);
    this.setQuickClock(room);
    const you = typeof room.you === "number" ? room.you : null;
    if (room.status === "closed") {
      this.closed();
      api.announce(t("room.closed"));
      return;
    }
    // Our page was away (a connection back after a drop): a computer has played for us.
    if (you != null && !this.spectator && room.seats[you]?.away && !(before && before.seats[you]?.away)) this.wasAway = true;
    // The countdowns to a computer taking over the seats of people who left.
    const now = performance.now();
    this.takeovers.clear();
    for (const s of room.seats) if (typeof s.takeover_in === "number" && s.kind === "person" && !s.away) this.takeovers.set(s.seat, now + s.takeover_in * 1000);
    clearInterval(this.takeoverTick);
    this.takeoverTick = this.takeovers.size ? setInterval(() => this.render(), 500) : null;
    // The host passed on (the host left, or has been gone a while).
    if (before && before.host !== room.host) {
      if (room.host != null && room.host === you && !this.spectator) {
        // In the panel too: before the start the felt (and its messages) is not shown.
        api.showMessage(t("room.nowHost"), "info");
        api.announce(t("room.nowHost"));
        this.setNote(t("room.nowHost"));
      } else if (room.host != null) {
        api.announce(t("room.newHost", { name: room.seats[room.host]?.name || seatLabel(room.host) }));
      }
    }
    if (you != null && this.spectator) {
      // A person seated here who opened the watch link: at their own seat.
      this.spectator = false;
      document.body.classList.remove("watching");
    }
    if (you == null && !this.spectator) {
      // Removed by the host, or this person abandoned the seat: the table goes on, watched
      // (the invite opens it to watch, after a reconnection too).
      this.spectator = true;
      document.body.classList.add("watching");
      if (this.link && this.link.key && !api.proto.watch) api.proto.watch = this.link.key;
      if (!this.abandoned) api.showMessage(t("room.removed"), "info", true);
    }
    if (room.game && room.game !== S.game) {
      api.setGame({ game: room.game, seat: you ?? 0 });
      this.reactions.clear();
      this.clearChat();
      if (before && before.status === "over") api.announce(t("room.rematchStarted"));
    }
    S.seat = /** @type {any} */ (you);
    if (before && before.status === "open" && room.status === "playing") api.announce(t("room.started"));
    // Presence, said: someone's page closed or opened again.
    if (before) {
      for (const s of room.seats) {
        const was = before.seats[s.seat];
        if (s.kind !== "person" || !was || was.kind !== "person" || s.seat === you || was.connected === s.connected) continue;
        api.announce(t(s.connected ? "room.online" : "room.offline", { name: s.name || seatLabel(s.seat) }));
      }
      if (isQuick(room) && room.status === "open") {
        for (const s of room.seats) {
          const was = before.seats[s.seat];
          if (s.kind === "person" && s.seat !== you && was && was.kind !== "person") api.announce(t("quick.joined", { name: s.name || seatLabel(s.seat) }));
        }
      }
    }
    this.applyNames();
    api.render();
  }

  /** The names the room knows replace the computers' names (ours stays "You"). */
  applyNames() {
    const room = this.room;
    if (!room) return;
    for (const s of room.seats) if (s.name) S.players[s.seat] = s.name;
  }

  /** @param {any} ev */
  onEvent(ev) {
    const api = /** @type {RoomApi} */ (this.api);
    const name = (/** @type {number} */ seat) => (seat === S.seat ? t("you") : S.players[seat] || seatLabel(seat));
    switch (ev.kind) {
      case "chat":
        this.addChat(ev.seat, String(ev.text ?? ""));
        return;
      case "react":
        this.reactions.set(ev.seat, { reaction: String(ev.reaction ?? ""), until: performance.now() + 4000 });
        api.announce(t("room.reacted", { name: name(ev.seat), reaction: reactionLabel(String(ev.reaction ?? "")) }));
        this.decorate();
        setTimeout(() => this.decorate(), 4100);
        return;
      case "takeover":
        if (ev.seat === S.seat && !this.spectator) this.wasAway = true;
        api.announce(t("room.away", { name: name(ev.seat) }));
        return;
      case "reclaim":
        if (ev.seat === S.seat && !this.spectator) {
          // Told plainly, and it stays until they play their own card.
          this.wasAway = false;
          api.showMessage(t("room.backYou"), "info");
          api.announce(t("room.backYou"));
          this.setNote(t("room.backYou"));
          api.render();
          return;
        }
        api.announce(t("room.back", { name: name(ev.seat) }));
        return;
      case "seat":
        if (typeof ev.name === "string") S.players[ev.seat] = ev.name;
        api.announce(t("room.replaced", { name: name(ev.seat) }));
        return;
      case "abandon": {
        const had = S.left.game === S.game ? S.left.seats : [];
        if (!had.includes(ev.seat)) {
          S.left = { game: S.game, seats: [...had, ev.seat].sort() };
          refreshOver();
        }
        const mine = ev.seat === S.seat && !this.spectator;
        const rated = !!(this.room && this.room.options && this.room.options.rated);
        const w = abandonWords(ev, mine, S.players[ev.seat] || seatLabel(ev.seat), rated);
        const text = w.loss ? `${t(w.key, w.params)} ${t(w.loss)}` : t(w.key, w.params);
        if (mine) {
          // For good: the page says so until the person goes elsewhere, and offers a game.
          this.abandoned = w.why;
          this.wasAway = false;
          api.showMessage(text, "info", true);
          this.setNote(text);
          this.drawnKey = "";
          this.draw();
        } else {
          api.showMessage(text, "info");
          this.setNote(text);
        }
        api.announce(text);
        return;
      }
      case "play":
        if (ev.seat === S.seat && ev.by !== "computer" && !this.abandoned) this.setNote("");
        if (ev.by === "computer" && ev.seat !== S.seat) api.announce(t("room.computerPlayed", { name: name(ev.seat) }));
        else if (ev.by === "computer") {
          // Not "You" in the trick: the computer's card for us.
          S.byComputer.add(String(ev.card));
          if (!this.awayNow()) {
            api.showMessage(t("room.computerPlayedYou"), "info");
            api.announce(t("room.computerPlayedYou"));
          }
        }
        return;
      default:
    }
  }

  /** A line in the panel that stays (until our own next card): "" takes it away. @param {string} text */
  setNote(text) {
    const el = /** @type {HTMLElement | null} */ (document.querySelector("#room-note"));
    if (!el) return;
    el.textContent = text;
    el.hidden = !text;
  }

  /** @param {Clock | null} c */
  setClock(c) {
    this.clock = c;
    clearInterval(this.tick);
    this.tick = null;
    if (c) this.tick = setInterval(() => this.decorate(), 250);
    this.decorate();
  }

  // ---------------------------------------------------------------- drawing

  /** After the table is drawn: the room's marks on the seats, and the panel. */
  render() {
    if (!this.active) return;
    this.decorate();
    this.draw();
    this.offerInOver();
  }

  /** For a person who abandoned the game, the game-over dialog offers another game. */
  offerInOver() {
    const box = document.querySelector("#dlg-over .dialog-buttons");
    if (!box) return;
    const have = box.querySelector("#over-play-again");
    if (!this.abandoned) {
      have?.remove();
      return;
    }
    const solo = /** @type {HTMLElement | null} */ (box.querySelector("button.new"));
    if (solo) solo.hidden = true;
    if (have) return;
    const again = this.playAgainButton();
    again.id = "over-play-again";
    box.append(again);
  }

  /** Presence, the away badge, the countdown and a reaction, in each seat's box. */
  decorate() {
    if (!this.active) return;
    const room = this.room;
    const now = performance.now();
    this.feltLabel();
    if (this.clock && secondsLeft(this.clock, now) === 0 && now - this.clock.deadline > 5000) this.setClock(null);
    for (let seat = 0; seat < 4; seat++) {
      const el = document.querySelector(`#seat-${posOf(S, seat)}`);
      if (!el) continue;
      let deco = /** @type {HTMLElement | null} */ (el.querySelector(":scope > .room-deco"));
      if (!deco) {
        deco = h("div", { className: "room-deco" });
        el.append(deco);
      }
      const info = room ? room.seats[seat] : null;
      const parts = [];
      if (info && info.kind === "person") {
        const on = info.connected;
        parts.push(`p${on ? 1 : 0}`);
      }
      if (info && info.away) parts.push("away");
      const soon = info && info.kind === "person" && !info.away && seat !== S.seat ? this.takeoverLeft(seat, now) : -1;
      if (soon >= 0) parts.push(`t${soon}`);
      const c = this.clock;
      const clockOn = !!c && c.seat === seat && !!S.view && S.view.phase === "play" && S.view.turn === seat;
      const left = clockOn && c ? secondsLeft(c, now) : -1;
      if (clockOn) parts.push(`c${left}`);
      if (clockOn && c && seat === S.seat && left === 10 && !c.warned) {
        c.warned = true;
        this.api?.announce(t("room.clockWarn", { n: left }));
      }
      const r = this.reactions.get(seat);
      const reaction = r && r.until > now ? r.reaction : "";
      if (reaction) parts.push(`r${reaction}`);
      const key = `${parts.join("|")}|${info ? info.name : ""}|${t("room.connected")}`;
      if (deco.dataset.key === key) continue;
      deco.dataset.key = key;
      deco.replaceChildren();
      if (info && info.kind === "person") {
        const label = info.connected ? t("room.connected") : t("room.disconnected");
        deco.append(h("span", { className: `presence ${info.connected ? "on" : "off"}`, role: "img", "aria-label": label, title: label, "data-presence": info.connected ? "on" : "off" }));
      }
      if (info && info.away) {
        deco.append(h("span", { className: "chip away-badge", "data-away": "true", text: t(seat === S.seat ? "room.awayYou" : "room.awayBadge") }));
      }
      if (soon >= 0 && info) {
        deco.append(h("span", { className: "chip takeover-chip", "data-takeover": String(soon), role: "timer", text: takeoverText(info.name || seatLabel(seat), soon) }));
      }
      if (clockOn && c) {
        const low = left <= 5;
        deco.append(
          h("span", {
            className: `chip clock-chip${low ? " low" : ""}`,
            "data-clock": String(left),
            role: "timer",
            "aria-label": t("room.clockLabel", { n: left }),
            text: t("room.clock", { n: left }),
          }),
        );
      }
      if (reaction) {
        const icon = reactionIcon(reaction);
        deco.append(h("span", { className: "reaction-bubble", "data-reaction": reaction, "aria-hidden": "true", text: icon ? null : reaction }, icon));
      }
    }
  }

  /** On the felt: "Watching" for a spectator, and how many watch the table. */
  feltLabel() {
    const felt = document.querySelector(".felt");
    if (!felt) return;
    let el = /** @type {HTMLElement | null} */ (felt.querySelector(".felt-label"));
    if (!el) {
      el = h("p", { className: "felt-label", id: "felt-label" });
      // At the left end of the band of the table's messages: it covers no card.
      const band = felt.querySelector(":scope > .toasts");
      if (band) band.prepend(el);
      else felt.append(el);
    }
    const n = this.room ? this.room.watchers : 0;
    const parts = [];
    if (this.spectator) parts.push(t("room.watching"));
    if (n) parts.push(t("room.watchers", { n }));
    const text = parts.join(" · ");
    if (el.textContent !== text) el.textContent = text;
    el.hidden = !text;
    el.dataset.watchers = String(n);
  }

  /** The side panel of the room, built once. */
  buildPanel() {
    const side = document.querySelector("aside.side");
    if (!side) return;
    const chatInput = h("input", { type: "text", id: "chat-input", maxlength: String(MAX_CHAT), autocomplete: "off", "data-i18n-attr": "aria-label:room.chatLabel;placeholder:room.chatPlaceholder" });
    const chatForm = h(
      "form",
      { className: "chat-form", id: "chat-form" },
      chatInput,
      h("button", { type: "submit", className: "primary", "data-i18n": "room.send" }),
    );
    chatForm.addEventListener("submit", (e) => {
      e.preventDefault();
      const input = /** @type {HTMLInputElement} */ (chatInput);
      const text = chatText(input.value);
      if (!text) return;
      if (this.api && this.api.send({ type: "chat", text })) input.value = "";
      else this.api?.showMessage(t("err.offline"));
    });
    const reacts = h("div", { className: "reactions", role: "group", "data-i18n-attr": "aria-label:room.reactions" });
    for (const r of REACTIONS) {
      reacts.append(
        h(
          "button",
          {
            type: "button",
            className: "react",
            "data-reaction": r,
            "data-i18n-attr": `aria-label:room.react.${REACTIONS.indexOf(r)};title:room.react.${REACTIONS.indexOf(r)}`,
            onclick: () => this.api?.send({ type: "react", reaction: r }),
          },
          reactionIcon(r) ?? r,
        ),
      );
    }
    this.panel = h(
      "section",
      { className: "panel room-panel", id: "room-panel", "aria-labelledby": "room-title" },
      h("h2", { id: "room-title", "data-i18n": "room.title" }),
      h("p", { className: "room-status", id: "room-status", role: "status" }),
      h("p", { className: "room-note", id: "room-note", hidden: true }),
      h("p", { className: "quick-countdown", id: "quick-countdown", role: "timer", hidden: true }),
      h("ol", { className: "room-seats", id: "room-seats" }),
      h("div", { className: "room-actions", id: "room-actions" }),
      h("div", { className: "room-links", id: "room-links" }),
      h(
        "section",
        { className: "room-chat", id: "room-chat", "aria-labelledby": "chat-title", hidden: true },
        h("h3", { id: "chat-title", "data-i18n": "room.chat" }),
        h("ol", { className: "chat-log", id: "chat-log", "aria-live": "polite", tabindex: "0", "data-i18n-attr": "aria-label:room.chat" }),
        chatForm,
        reacts,
      ),
    );
    side.prepend(this.panel);
    translateDom(this.panel);
  }

  /** @param {string} text */
  drawStatus(text) {
    const el = document.querySelector("#room-status");
    if (el) el.textContent = text;
  }

  /** The panel: status, seats, actions, links, chat (redrawn when what it shows changed). */
  draw() {
    const room = this.room;
    if (!this.panel || !room) return;
    if (room.status === "closed") {
      if (this.drawnKey !== "closed") this.closed();
      this.drawnKey = "closed";
      return;
    }
    const now = performance.now();
    const counts = room.seats.map((s) => this.takeoverLeft(s.seat, now));
    const key = JSON.stringify([room, this.spectator, t("you"), S.seat, counts]);
    if (key === this.drawnKey) return;
    this.drawnKey = key;
    // The parts below are rebuilt: a button that had the keyboard's focus gets it back.
    const active = document.activeElement;
    let refocus = "";
    if (active && active !== document.body && this.panel.contains(active)) {
      const a = /** @type {HTMLElement} */ (active);
      if (a.dataset.remove) refocus = `[data-remove="${a.dataset.remove}"]`;
      else if (a.dataset.copy) refocus = `[data-copy="${a.dataset.copy}"]`;
      else if (a.classList.contains("room-rematch")) refocus = "#room-actions .room-rematch";
      else if (a.id) refocus = `#${a.id}`;
    }
    // "You are now the host" is said until the game starts.
    const note = document.querySelector("#room-note");
    if (room.status === "playing" && note && note.textContent === t("room.nowHost")) this.setNote("");
    document.body.dataset.room = room.status;
    document.body.classList.toggle("room-waiting", room.status === "open");
    const me = this.spectator ? null : room.you;
    const quick = isQuick(room);
    // A quick table has no host powers (no Start, no Remove), whatever the frame says.
    const host = me != null && me === room.host && !quick;
    const title = /** @type {HTMLElement | null} */ (document.querySelector("#room-title"));
    if (title && title.dataset.i18n !== (quick ? "quick.title" : "room.title")) {
      title.dataset.i18n = quick ? "quick.title" : "room.title";
      title.textContent = t(title.dataset.i18n);
    }
    document.body.classList.toggle("room-quick", quick);
    // Status.
    let status = t(`room.status.${room.status}`);
    if (room.status === "open") status = host ? t("room.status.openHost") : room.host == null ? t("room.status.open") : t("room.status.openGuest");
    if (room.status === "open" && quick) status = t("quick.status", { n: coming(room.seats).people });
    if (room.options.rated) status = `${status} · ${t("quick.rated")}`;
    if (this.spectator) status = `${t("room.watching")} · ${status}`;
    const watchers = h("span", { className: "watchers", "data-watchers": String(room.watchers), text: t("room.watchers", { n: room.watchers }) });
    const st = /** @type {HTMLElement} */ (document.querySelector("#room-status"));
    st.replaceChildren(document.createTextNode(`${status} · `), watchers);
    this.drawQuick();
    this.drawSeats(room, me, host);
    // Actions.
    const acts = /** @type {HTMLElement} */ (document.querySelector("#room-actions"));
    acts.replaceChildren();
    if (room.status === "open" && host) {
      acts.append(h("button", { type: "button", id: "room-start", className: "primary", text: t("room.start"), onclick: () => this.api?.send({ type: "start" }) }));
    }
    if (room.status === "over" && me != null) {
      acts.append(rematchButton(room, me, () => this.api?.send({ type: "rematch" })));
    }
    if ((room.status === "open" || room.status === "over") && me != null) {
      acts.append(h("button", { type: "button", id: "room-leave", text: t("room.leave"), onclick: () => this.leave() }));
    }
    // A rated table: leaving the game under way is possible, and counts as a loss (asked first).
    if (room.status === "playing" && me != null && room.options.rated) {
      acts.append(h("button", { type: "button", id: "room-leave-game", text: t("room.leaveGame"), onclick: () => this.confirmLeave() }));
    }
    // This person abandoned the game: another one, with people.
    if (this.abandoned && me == null) acts.append(this.playAgainButton());
    if (quick && room.status === "over" && me != null) {
      const again = /** @type {HTMLButtonElement} */ (h("button", { type: "button", id: "room-quick-again", text: t("btn.quick") }));
      bindQuickPlay(again, (text) => this.api?.showMessage(text));
      acts.append(again);
    }
    // Waiting at a quick table, Leave is the way out (a seat left taken would hold the others).
    if (!(quick && room.status === "open" && me != null)) acts.append(h("a", { className: "button", href: "/", text: t("room.solo") }));
    if (room.status === "over") {
      const waiting = rematchWaiting(room);
      if (waiting.length) acts.append(h("p", { className: "rematch-note", id: "room-rematch-note", role: "status", text: rematchNote(room, waiting, me) }));
    }
    this.drawOverRematch();
    // Links (for the people seated).
    const links = /** @type {HTMLElement} */ (document.querySelector("#room-links"));
    links.replaceChildren();
    if (me != null && room.invite && room.status === "open" && !quick) {
      links.append(linkRow("room-invite", t("room.invite"), `${location.origin}/room/${room.id}?invite=${room.invite}`));
    }
    if (me != null && room.watch && !(quick && room.status === "open")) {
      links.append(linkRow("room-watch", t("room.watchLink"), `${location.origin}/watch/${room.id}?key=${room.watch}`));
    }
    // Chat: for the people seated, once the game is on.
    const chat = /** @type {HTMLElement} */ (document.querySelector("#room-chat"));
    chat.hidden = me == null || room.game == null;
    this.chatJump();
    if (refocus && !this.panel.contains(document.activeElement)) {
      const again = /** @type {HTMLElement | null} */ (this.panel.querySelector(refocus));
      // The Start button is gone once the game is on: the keyboard goes to the hand.
      if (again) again.focus();
      else if (refocus === "#room-start") /** @type {HTMLElement | null} */ (document.querySelector("#hand"))?.focus();
    }
  }

  /**
   * The seats in the panel: names, presence, host, the computer's countdown.
   * @param {Room} room @param {number | null} me @param {boolean} host
   */
  drawSeats(room, me, host) {
    const ol = /** @type {HTMLElement | null} */ (document.querySelector("#room-seats"));
    if (!ol) return;
    ol.replaceChildren();
    const now = performance.now();
    for (const s of room.seats) {
      const li = h("li", { "data-seat": String(s.seat), "data-kind": s.kind, className: s.seat === me ? "me" : "" });
      if (s.pending) li.dataset.pending = "true";
      if (s.kind === "person") {
        const label = s.connected ? t("room.connected") : t("room.disconnected");
        li.append(h("span", { className: `presence ${s.connected ? "on" : "off"}`, role: "img", "aria-label": label, title: label }));
      } else li.append(h("span", { className: "presence none", "aria-hidden": "true" }));
      let name;
      // The game just over: the computer that played an empty seat, named as its results name it.
      const bot = room.status === "over" && room.game != null && room.game === S.game && S.seats?.[s.seat]?.kind === "bot";
      if (s.kind === "empty" && isQuick(room) && room.status === "open") name = t("quick.emptySeat");
      else if (s.kind === "empty" && bot) name = `${S.players[s.seat]} · ${t("room.computer", { level: t(`level.${S.seats?.[s.seat]?.level || s.level}`) })}`;
      else if (s.kind === "empty") name = t("room.emptySeat", { level: t(`level.${s.level}`) });
      else if (s.kind === "computer") name = `${s.name || seatLabel(s.seat)} · ${t("room.computer", { level: t(`level.${s.level}`) })}`;
      else name = s.name || seatLabel(s.seat);
      li.append(h("span", { className: "seat-name", text: name }));
      if (s.seat === room.host) li.append(h("span", { className: "tag", "data-host": "true", text: t("room.host") }));
      if (s.seat === me) li.append(h("span", { className: "tag", text: t("you") }));
      if (s.away) li.append(h("span", { className: "tag away", text: t("room.awayBadge") }));
      if (s.pending && s.seat !== me) li.append(h("span", { className: "tag pending", text: t("quick.onTheWay") }));
      const left = s.seat === me ? -1 : this.takeoverLeft(s.seat, now);
      if (left >= 0 && s.kind === "person" && !s.away) {
        li.append(h("span", { className: "tag takeover", "data-takeover": String(left), text: takeoverText(s.name || seatLabel(s.seat), left) }));
      }
      if (room.status === "over" && room.rematch.includes(s.seat)) li.append(h("span", { className: "tag rematch", text: t("room.wantsRematch") }));
      if (host && s.kind === "person" && s.seat !== me && room.status !== "closed") {
        li.append(
          h("button", {
            type: "button",
            className: "remove",
            "data-remove": String(s.seat),
            text: t("room.remove"),
            "aria-label": t("room.removeLabel", { name: s.name || seatLabel(s.seat) }),
            onclick: () => this.api?.send({ type: "remove", seat: s.seat }),
          }),
        );
      }
      ol.append(li);
    }
  }

  /**
   * A quick table's start, from a snapshot's `starts_in`: the countdown ticks until then.
   * @param {Room} room
   */
  setQuickClock(room) {
    this.quickAt = isQuick(room) ? startsAt({ ...room, starts_in: room.starts_in ?? null }, performance.now()) : null;
    clearInterval(this.quickTick);
    this.quickTick = this.quickAt == null ? null : setInterval(() => this.drawQuick(), 250);
  }

  /** The countdown of a waiting quick table: "Computers take the empty seats in 14 s". */
  drawQuick() {
    const el = /** @type {HTMLElement | null} */ (document.querySelector("#quick-countdown"));
    const room = this.room;
    if (!el) return;
    if (!room || !isQuick(room) || room.status !== "open" || this.quickAt == null) {
      el.hidden = true;
      return;
    }
    const seconds = secondsTo(this.quickAt, performance.now());
    const w = countdownWords(coming(room.seats).empty, seconds);
    const text = t(w.key, { n: w.n ?? 0 });
    el.hidden = false;
    el.dataset.seconds = String(seconds);
    if (el.textContent !== text) el.textContent = text;
  }

  /**
   * What the prompt says while it waits for a person who is gone: they left the table and
   * a computer plays for them unless they come back in time, or a computer plays for them
   * now. "" for anyone else (a person here, a computer).
   * @param {number} seat
   */
  goneWords(seat) {
    const room = this.room;
    const info = room && room.status === "playing" ? room.seats[seat] : null;
    if (!info || info.kind !== "person" || seat === S.seat) return "";
    const name = S.players[seat] || info.name || seatLabel(seat);
    if (info.away) return t("prompt.goneComputer", { name });
    if (!info.connected || this.takeoverLeft(seat, performance.now()) >= 0) return t("prompt.gone", { name });
    return "";
  }

  /**
   * Whole seconds until a computer plays for the person at `seat` who left (-1: none due).
   * @param {number} seat @param {number} now
   */
  takeoverLeft(seat, now) {
    const at = this.takeovers.get(seat);
    return at == null ? -1 : Math.max(0, Math.ceil((at - now) / 1000));
  }

  /** The game-over dialog: Rematch instead of a solo New game, and who is awaited. */
  drawOverRematch() {
    const room = this.room;
    const dlg = document.querySelector("#dlg-over");
    const box = dlg && dlg.querySelector(".dialog-buttons");
    if (!dlg || !box || !room) return;
    const solo = /** @type {HTMLElement | null} */ (box.querySelector("button.new"));
    if (solo) solo.hidden = true;
    box.querySelector(".rematch")?.remove();
    dlg.querySelector(".rematch-note")?.remove();
    const me = this.spectator ? null : room.you;
    if (room.status === "over" && me != null) {
      const b = rematchButton(room, me, () => this.api?.send({ type: "rematch" }));
      b.classList.add("rematch");
      box.append(b);
      const waiting = rematchWaiting(room);
      if (waiting.length) box.before(h("p", { className: "rematch-note", role: "status", text: rematchNote(room, waiting, me) }));
    }
  }

  async leave() {
    const room = this.room;
    if (!room) return;
    const r = await api(`/api/rooms/${encodeURIComponent(room.id)}/leave`, {});
    if (r.ok && r.data && r.data.abandoned) this.leftGame();
    else if (r.ok) location.href = "/";
    else this.api?.showMessage(refusal(r));
  }

  /** "Leave the game?" at a rated table during a game: it counts as a loss; Stay is the default. */
  confirmLeave() {
    let dlg = /** @type {HTMLDialogElement | null} */ (document.querySelector("#dlg-leave-game"));
    if (!dlg) {
      const stay = h("button", { type: "button", id: "leave-game-stay", className: "primary", text: t("room.leaveStay") });
      const go = h("button", { type: "button", id: "leave-game-go", text: t("room.leaveGame") });
      dlg = /** @type {HTMLDialogElement} */ (
        h(
          "dialog",
          { id: "dlg-leave-game", "aria-labelledby": "leave-game-title", "aria-describedby": "leave-game-note" },
          h("h2", { id: "leave-game-title", text: t("room.leaveTitle") }),
          h("p", { id: "leave-game-note", className: "dialog-note", text: t("room.leaveNote") }),
          h("div", { className: "dialog-buttons" }, go, stay),
        )
      );
      document.body.append(dlg);
      const d = dlg;
      stay.addEventListener("click", () => d.close());
      go.addEventListener("click", () => {
        d.close();
        this.leave();
      });
    } else {
      // Words in the page's language now (it may have changed since).
      /** @type {HTMLElement} */ (dlg.querySelector("#leave-game-title")).textContent = t("room.leaveTitle");
      /** @type {HTMLElement} */ (dlg.querySelector("#leave-game-note")).textContent = t("room.leaveNote");
      /** @type {HTMLElement} */ (dlg.querySelector("#leave-game-stay")).textContent = t("room.leaveStay");
      /** @type {HTMLElement} */ (dlg.querySelector("#leave-game-go")).textContent = t("room.leaveGame");
    }
    if (!dlg.open) dlg.showModal();
    /** @type {HTMLElement} */ (dlg.querySelector("#leave-game-stay")).focus();
  }

  /** This person left the game under way (the server said so; its event may have come first). */
  leftGame() {
    if (this.abandoned) return;
    const w = abandonWords({ seat: S.seat ?? 0, why: "left" }, true, t("you"), true);
    const text = `${t(w.key, w.params)} ${t(w.loss)}`;
    this.abandoned = "left";
    this.api?.showMessage(text, "info", true);
    this.api?.announce(text);
    this.setNote(text);
    this.drawnKey = "";
    this.draw();
  }

  // ---------------------------------------------------------------- chat

  /** @param {number} seat @param {string} text */
  addChat(seat, text) {
    const log = document.querySelector("#chat-log");
    if (!log) return;
    const who = seat === S.seat ? t("you") : S.players[seat] || seatLabel(seat);
    const li = h("li", { "data-seat": String(seat) }, h("b", { className: "who", text: `${who}: ` }), h("span", { className: "text", text }));
    log.append(li);
    while (log.childElementCount > 100) /** @type {Element} */ (log.firstElementChild).remove();
    log.scrollTop = log.scrollHeight;
    if (!this.chatSeen && seat !== S.seat) {
      // Out of sight (a phone: far below the table): the button says a message came.
      this.unread += 1;
      this.lastChat = `${who}: ${text}`;
    }
    this.chatJump();
  }

  clearChat() {
    document.querySelector("#chat-log")?.replaceChildren();
    this.unread = 0;
    this.chatJump();
  }

  /**
   * The button that brings the chat into sight when it is out of it (on a phone the room's
   * panel is below the table): it counts the messages that came meanwhile.
   */
  chatJump() {
    const chat = /** @type {HTMLElement | null} */ (document.querySelector("#room-chat"));
    if (!chat) return;
    let btn = /** @type {HTMLButtonElement | null} */ (document.querySelector("#chat-jump"));
    if (!btn) {
      btn = /** @type {HTMLButtonElement} */ (
        h("button", {
          type: "button",
          id: "chat-jump",
          className: "chat-jump",
          hidden: true,
          onclick: () => {
            chat.scrollIntoView({ block: "center", behavior: "auto" });
            /** @type {HTMLElement | null} */ (document.querySelector("#chat-log"))?.focus({ preventScroll: true });
            this.unread = 0;
            this.chatJump();
          },
        })
      );
      // At the right end of the band of the table's messages (on a phone the panel is far
      // below): it covers no card, and no message covers it.
      (document.querySelector(".felt > .toasts") || document.querySelector(".felt") || document.body).append(btn);
      if ("IntersectionObserver" in window) {
        new IntersectionObserver((entries) => {
          for (const e of entries) this.chatSeen = e.isIntersecting && e.intersectionRatio > 0.5;
          if (this.chatSeen) this.unread = 0;
          this.chatJump();
        }, { threshold: [0, 0.5, 1] }).observe(chat);
      }
    }
    const show = !chat.hidden && !this.chatSeen;
    btn.hidden = !show;
    const key = `${show}|${this.unread}|${this.lastChat}|${t("room.chatJump")}`;
    if (btn.dataset.key === key) return;
    btn.dataset.key = key;
    btn.dataset.unread = String(this.unread);
    btn.replaceChildren();
    btn.append(h("span", { className: "chat-jump-label", text: this.unread ? t("room.chatNew", { n: this.unread }) : t("room.chatJump") }));
    if (this.unread && this.lastChat) btn.append(h("span", { className: "chat-jump-preview", text: this.lastChat }));
  }
}

/** @param {Room} room @param {number} me @param {() => void} ask */
function rematchButton(room, me, ask) {
  const asked = room.rematch.includes(me);
  const text = asked ? t("room.rematchAskedYou") : t("room.rematch");
  return h("button", { type: "button", className: "primary room-rematch", "data-rematch": asked ? "asked" : "", disabled: asked, text, onclick: ask });
}

/**
 * Who the rematch waits for, in a sentence: the others by name, the reader as "you" in
 * their language's own words (never "waiting for You, Tumi").
 * @param {Room} room @param {number[]} waiting @param {number | null} me
 */
function rematchNote(room, waiting, me) {
  const others = waiting.filter((seat) => seat !== me).map((seat) => room.seats[seat]?.name || seatLabel(seat));
  return rematchAwaited(others, me != null && waiting.includes(me));
}

/**
 * The seats whose rematch vote is still needed: the server's list, or (from a server
 * without it) every person who has not voted.
 * @param {Room} room
 */
function rematchWaiting(room) {
  if (Array.isArray(room.rematch_waiting)) return room.rematch_waiting;
  return room.seats.filter((s) => s.kind === "person" && !room.rematch.includes(s.seat)).map((s) => s.seat);
}

/** "A computer plays for Bo in 12 s" (or "now"). @param {string} name @param {number} n */
const takeoverText = (name, n) => (n > 0 ? t("room.takeoverIn", { name, n }) : t("room.takeoverNow", { name }));

/** @param {string} id @param {string} label @param {string} url */
function linkRow(id, label, url) {
  const input = /** @type {HTMLInputElement} */ (h("input", { type: "text", id, readonly: true, value: url }));
  const copy = h("button", {
    type: "button",
    className: "copy",
    "data-copy": id,
    text: t("room.copy"),
    "aria-label": t("room.copyLabel", { what: label }),
    onclick: async () => {
      input.select();
      let ok = false;
      try {
        await navigator.clipboard.writeText(url);
        ok = true;
      } catch {
        ok = document.execCommand && document.execCommand("copy");
      }
      copy.textContent = ok ? t("room.copied") : t("room.copy");
      setTimeout(() => (copy.textContent = t("room.copy")), 2000);
    },
  });
  return h("div", { className: "link-row" }, h("label", { for: id, text: label }), h("div", { className: "link-field" }, input, copy));
}

// ------------------------------------------------------------------ dialogs

/** @param {string} name @param {string} key @param {Node} control */
const field = (name, key, control) => h("label", { className: "field" }, h("span", { "data-i18n": key }), control);

/** "Play with friends": the room's options. Built once, translated with the page. */
function buildCreateDialog() {
  if (document.querySelector("#dlg-room-new")) return;
  const sel = (/** @type {string} */ id, /** @type {string} */ name) => h("select", { id, name });
  const levels = h("fieldset", { id: "room-levels" }, h("legend", { "data-i18n": "room.levels" }));
  for (const seat of [1, 2, 3]) levels.append(field(`level${seat}`, `room.seat.${seat}`, sel(`room-level-${seat}`, `level${seat}`)));
  const form = h(
    "form",
    { id: "room-form", method: "dialog" },
    h("h2", { id: "room-new-title", "data-i18n": "room.newTitle" }),
    h("p", { className: "dialog-note", "data-i18n": "room.newNote" }),
    field("name", "room.name", h("input", { type: "text", id: "room-name", name: "name", maxlength: String(MAX_NAME), autocomplete: "nickname", required: true })),
    field("target", "new.target", sel("room-target", "target")),
    h("fieldset", { id: "room-picture" }, h("legend", { "data-i18n": "new.picture" })),
    h("fieldset", { id: "room-discards" }, h("legend", { "data-i18n": "new.discards" })),
    levels,
    field("grace", "room.grace", sel("room-grace", "grace")),
    field("turn_timer", "room.timer", sel("room-timer", "turn_timer")),
    h("label", { className: "check" }, h("input", { type: "checkbox", id: "room-public", name: "public" }), " ", h("span", { "data-i18n": "room.public" })),
    h("label", { className: "check" }, h("input", { type: "checkbox", id: "room-rated", name: "rated" }), " ", h("span", { "data-i18n": "room.ratedOption" })),
    h("p", { id: "room-error", className: "form-error", role: "alert" }),
    h(
      "div",
      { className: "dialog-buttons" },
      h("a", { className: "button", href: "/lobby", id: "room-lobby", "data-i18n": "lobby.title" }),
      h("button", { type: "button", id: "room-cancel", "data-i18n": "btn.cancel" }),
      h("button", { type: "submit", id: "room-create", className: "primary", "data-i18n": "room.create" }),
    ),
  );
  const dlg = h("dialog", { id: "dlg-room-new", "aria-labelledby": "room-new-title" }, form);
  document.body.append(dlg);
  translateDom(dlg);
  /** @type {HTMLElement} */ (dlg.querySelector("#room-cancel")).addEventListener("click", () => closeDialog("#dlg-room-new"));
  form.addEventListener("submit", async (e) => {
    e.preventDefault();
    const data = new FormData(/** @type {HTMLFormElement} */ (form));
    const err = /** @type {HTMLElement} */ (dlg.querySelector("#room-error"));
    err.textContent = "";
    const body = roomOptions({
      name: String(data.get("name") || ""),
      target: Number(data.get("target")),
      picture_exception: String(data.get("picture_exception")),
      lock_discards: String(data.get("lock_discards")),
      levels: [1, 2, 3].map((i) => String(data.get(`level${i}`))),
      grace: Number(data.get("grace")),
      turn_timer: Number(data.get("turn_timer")),
      public: data.get("public") === "on",
      rated: data.get("rated") === "on",
    });
    if (body.name) await api("/api/profile", { name: body.name });
    const r = await api("/api/rooms", body);
    if (!r.ok) {
      err.textContent = refusal(r);
      return;
    }
    location.href = `/room/${encodeURIComponent(r.data.room)}`;
  });
}

/** Fill the form's lists (the options of GET /api/options, the page's language). */
function fillCreateForm() {
  const o = S.options;
  /** @param {string} sel @param {{value: any, label: string}[]} items @param {any} chosen */
  const fill = (sel, items, chosen) => {
    const el = /** @type {HTMLSelectElement} */ (document.querySelector(sel));
    const keep = el.value;
    el.replaceChildren(...items.map((i) => h("option", { value: String(i.value), text: i.label })));
    el.value = keep && items.some((i) => String(i.value) === keep) ? keep : String(chosen);
  };
  fill("#room-target", o.rules.target.choices.map((n) => ({ value: n, label: String(n) })), o.rules.target.default);
  for (const seat of [1, 2, 3]) fill(`#room-level-${seat}`, o.levels.map((l) => ({ value: l, label: t(`level.${l}`) })), o.default_level);
  fill("#room-grace", GRACES.map((s) => ({ value: s, label: t("room.seconds", { n: s }) })), 45);
  fill("#room-timer", TIMERS.map((s) => ({ value: s, label: s ? t("room.seconds", { n: s }) : t("room.timerOff") })), 0);
  /** @param {string} box @param {string} name @param {string} prefix @param {string[]} choices @param {string} def */
  const radios = (box, name, prefix, choices, def) => {
    const fs = /** @type {HTMLElement} */ (document.querySelector(box));
    const checked = /** @type {HTMLInputElement | null} */ (fs.querySelector("input:checked"));
    const value = checked ? checked.value : def;
    for (const l of fs.querySelectorAll("label")) l.remove();
    for (const c of choices) {
      fs.append(h("label", {}, h("input", { type: "radio", name, value: c, checked: c === value }), " ", h("span", { text: t(`${prefix}.${c}`) })));
    }
  };
  radios("#room-picture", "picture_exception", "opt.picture", o.rules.picture_exception.choices, o.rules.picture_exception.default);
  radios("#room-discards", "lock_discards", "opt.discards", o.rules.lock_discards.choices, o.rules.lock_discards.default);
}

async function openCreate() {
  fillCreateForm();
  const nameInput = /** @type {HTMLInputElement} */ (document.querySelector("#room-name"));
  if (!nameInput.value) {
    const p = await api("/api/profile");
    if (p.ok && typeof p.data.name === "string") nameInput.value = p.data.name;
  }
  openDialog("#dlg-room-new");
  nameInput.focus();
}

/**
 * The join view of an invite link: a name and a seat. Resolves with the seat taken, or
 * "full" / "started" when the seats went meanwhile.
 * @param {Room} room @param {string | null} invite
 * @returns {Promise<number | "full" | "started">}
 */
async function joinDialog(room, invite) {
  const profile = await api("/api/profile");
  const free = freeSeats(room.seats);
  const host = room.seats.find((s) => s.seat === room.host);
  const seatSel = h("select", { id: "join-seat", name: "seat" }, h("option", { value: "", text: t("room.firstFree") }));
  for (const seat of free) seatSel.append(h("option", { value: String(seat), text: seatLabel(seat) }));
  const nameInput = /** @type {HTMLInputElement} */ (
    h("input", { type: "text", id: "join-name", name: "name", maxlength: String(MAX_NAME), autocomplete: "nickname", required: true, value: profile.ok && profile.data.name ? profile.data.name : "" })
  );
  const err = h("p", { id: "join-error", className: "form-error", role: "alert" });
  const form = h(
    "form",
    { id: "join-form", method: "dialog" },
    h("h2", { id: "join-title", text: t("room.joinTitle") }),
    h("p", { className: "dialog-note", text: t("room.joinNote", { host: (host && host.name) || t("room.host") }) }),
    h("label", { className: "field" }, h("span", { text: t("room.name") }), nameInput),
    h("label", { className: "field" }, h("span", { text: t("room.chooseSeat") }), seatSel),
    err,
    h(
      "div",
      { className: "dialog-buttons" },
      h("a", { className: "button", href: "/", text: t("btn.cancel") }),
      h("button", { type: "submit", id: "join-submit", className: "primary", text: t("room.join") }),
    ),
  );
  const dlg = /** @type {HTMLDialogElement} */ (h("dialog", { id: "dlg-room-join", "aria-labelledby": "join-title" }, form));
  document.body.append(dlg);
  dlg.showModal();
  nameInput.focus();
  return new Promise((resolve) => {
    dlg.addEventListener("cancel", (e) => e.preventDefault());
    form.addEventListener("submit", async (e) => {
      e.preventDefault();
      err.textContent = "";
      const name = nameInput.value.trim().slice(0, MAX_NAME);
      if (!name) return;
      await api("/api/profile", { name });
      /** @type {Record<string, any>} */
      const body = { invite, name };
      const seatValue = /** @type {HTMLSelectElement} */ (seatSel).value;
      if (seatValue !== "") body.seat = Number(seatValue);
      const r = await api(`/api/rooms/${encodeURIComponent(room.id)}/join`, body);
      const code = r.data && r.data.error;
      if (!r.ok && (code === "room-full" || code === "room-started")) {
        // Too late: the page says so and offers to watch.
        dlg.close();
        dlg.remove();
        resolve(code === "room-full" ? "full" : "started");
        return;
      }
      if (!r.ok) {
        err.textContent = refusal(r);
        return;
      }
      dlg.close();
      dlg.remove();
      resolve(r.data.seat);
    });
  });
}

/** The one room page. */
export const roomPage = new RoomPage();
