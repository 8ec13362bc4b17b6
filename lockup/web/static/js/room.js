// @ts-check
// Rooms in the page (docs/web-protocol.md, "Rooms"): "Play with friends" (create a room),
// the join view of an invite link, the waiting room, and at the table the names, presence,
// the computer's badge on an away seat, the turn timer's countdown, chat and reactions,
// spectators and the rematch. The table itself is app.js's: this module is given its
// protocol, its state and its drawing, and decorates what it draws.
//
// Everything a person typed (names, chat) is put on the page with textContent only.

import { t, translateDom } from "./i18n.js";
import { closeDialog, openDialog } from "./dialogs.js";
import { S, posOf } from "./state.js";
import { REACTIONS, TIMERS, GRACES, MAX_CHAT, MAX_NAME, chatText, clockOf, endsClock, freeSeats, parseRoomLink, roomOptions, secondsLeft } from "./room-core.js";
import { showLobby } from "./lobby.js";

/** @typedef {import("./room-core.js").Clock} Clock */
/** @typedef {import("./room-core.js").RoomLink} RoomLink */

/**
 * @typedef {object} RoomApi what app.js lends the room
 * @property {import("./protocol.js").Protocol} proto
 * @property {() => void} render draw the table now
 * @property {(info: import("./types.js").GameInfo) => void} setGame
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
 */

/**
 * @typedef {object} Room the `room` frame's room
 * @property {string} id
 * @property {"open" | "playing" | "over"} status
 * @property {number | null} host
 * @property {number | null} you
 * @property {RoomSeat[]} seats
 * @property {number} watchers
 * @property {Record<string, any>} options
 * @property {string | null} game
 * @property {number[]} rematch
 * @property {string} [invite]
 * @property {string} [watch]
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
  return (r.data && (r.data.reason || r.data.error)) || t("err.unknown");
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
    buildCreateDialog();
    const friends = document.querySelector("#btn-friends");
    if (friends) friends.addEventListener("click", openCreate);
    const link = parseRoomLink(location.pathname, location.search);
    this.link = link;
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
      this.spectator = true;
      document.body.classList.add("watching");
      roomApi.proto.room = id;
      roomApi.proto.watch = link.key || "";
      S.seat = /** @type {any} */ (null);
      this.drawStatus(t("room.connecting"));
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
    if (room.you == null) {
      if (room.status !== "open") {
        this.fail(t("room.err.room-started"));
        return "stop";
      }
      const seat = await joinDialog(room, link.key || null);
      if (seat == null) {
        this.fail(t("room.notJoined"));
        return "stop";
      }
      const again = await api(`/api/rooms/${encodeURIComponent(id)}`);
      if (again.ok) room = again.data;
    }
    this.room = room;
    if (typeof room.you === "number") S.seat = room.you;
    roomApi.proto.room = id;
    this.applyNames();
    this.draw();
    return "room";
  }

  /** The room cannot be shown: say why in the panel, with the ways out. @param {string} text */
  fail(text) {
    document.body.classList.add("room-failed");
    this.drawStatus(text);
    document
      .querySelector("#room-actions")
      ?.replaceChildren(h("a", { className: "button primary", href: "/", text: t("room.solo") }), h("a", { className: "button", href: "/lobby", text: t("lobby.title") }));
    this.api?.showMessage(text, "error", true);
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

  /** @param {Room} room */
  onRoom(room) {
    const api = /** @type {RoomApi} */ (this.api);
    const before = this.room;
    this.room = room;
    const you = typeof room.you === "number" ? room.you : null;
    if (you != null && this.spectator) {
      // A person seated here who opened the watch link: at their own seat.
      this.spectator = false;
      document.body.classList.remove("watching");
    }
    if (you == null && !this.spectator) {
      // Removed by the host: the table goes on, watched.
      this.spectator = true;
      document.body.classList.add("watching");
      api.showMessage(t("room.removed"), "info", true);
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
        api.announce(t("room.reacted", { name: name(ev.seat), reaction: String(ev.reaction ?? "") }));
        this.decorate();
        setTimeout(() => this.decorate(), 4100);
        return;
      case "takeover":
        api.announce(t("room.away", { name: name(ev.seat) }));
        return;
      case "reclaim":
        api.announce(t("room.back", { name: name(ev.seat) }));
        return;
      case "seat":
        if (typeof ev.name === "string") S.players[ev.seat] = ev.name;
        api.announce(t("room.replaced", { name: name(ev.seat) }));
        return;
      case "play":
        if (ev.by === "computer" && ev.seat !== S.seat) api.announce(t("room.computerPlayed", { name: name(ev.seat) }));
        else if (ev.by === "computer") {
          api.showMessage(t("room.computerPlayedYou"), "info");
          api.announce(t("room.computerPlayedYou"));
        }
        return;
      default:
    }
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
      if (reaction) deco.append(h("span", { className: "reaction-bubble", "data-reaction": reaction, "aria-hidden": "true", text: reaction }));
    }
  }

  /** On the felt: "Watching" for a spectator, and how many watch the table. */
  feltLabel() {
    const felt = document.querySelector(".felt");
    if (!felt) return;
    let el = /** @type {HTMLElement | null} */ (felt.querySelector(":scope > .felt-label"));
    if (!el) {
      el = h("p", { className: "felt-label", id: "felt-label" });
      felt.append(el);
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
        h("button", {
          type: "button",
          className: "react",
          "data-reaction": r,
          text: r,
          "data-i18n-attr": `aria-label:room.react.${REACTIONS.indexOf(r)};title:room.react.${REACTIONS.indexOf(r)}`,
          onclick: () => this.api?.send({ type: "react", reaction: r }),
        }),
      );
    }
    this.panel = h(
      "section",
      { className: "panel room-panel", id: "room-panel", "aria-labelledby": "room-title" },
      h("h2", { id: "room-title", "data-i18n": "room.title" }),
      h("p", { className: "room-status", id: "room-status", role: "status" }),
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
    const key = JSON.stringify([room, this.spectator, t("you"), S.seat]);
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
    document.body.dataset.room = room.status;
    document.body.classList.toggle("room-waiting", room.status === "open");
    const me = this.spectator ? null : room.you;
    const host = me != null && me === room.host;
    // Status.
    let status = t(`room.status.${room.status}`);
    if (room.status === "open") status = host ? t("room.status.openHost") : t("room.status.openGuest");
    if (this.spectator) status = `${t("room.watching")} · ${status}`;
    const watchers = h("span", { className: "watchers", "data-watchers": String(room.watchers), text: t("room.watchers", { n: room.watchers }) });
    const st = /** @type {HTMLElement} */ (document.querySelector("#room-status"));
    st.replaceChildren(document.createTextNode(`${status} · `), watchers);
    // Seats.
    const ol = /** @type {HTMLElement} */ (document.querySelector("#room-seats"));
    ol.replaceChildren();
    for (const s of room.seats) {
      const li = h("li", { "data-seat": String(s.seat), "data-kind": s.kind, className: s.seat === me ? "me" : "" });
      if (s.kind === "person") {
        const label = s.connected ? t("room.connected") : t("room.disconnected");
        li.append(h("span", { className: `presence ${s.connected ? "on" : "off"}`, role: "img", "aria-label": label, title: label }));
      } else li.append(h("span", { className: "presence none", "aria-hidden": "true" }));
      let name;
      if (s.kind === "empty") name = t("room.emptySeat", { level: t(`level.${s.level}`) });
      else if (s.kind === "computer") name = `${s.name || seatLabel(s.seat)} · ${t("room.computer", { level: t(`level.${s.level}`) })}`;
      else name = s.name || seatLabel(s.seat);
      li.append(h("span", { className: "seat-name", text: name }));
      if (s.seat === room.host) li.append(h("span", { className: "tag", text: t("room.host") }));
      if (s.seat === me) li.append(h("span", { className: "tag", text: t("you") }));
      if (s.away) li.append(h("span", { className: "tag away", text: t("room.awayBadge") }));
      if (room.status === "over" && room.rematch.includes(s.seat)) li.append(h("span", { className: "tag rematch", text: t("room.wantsRematch") }));
      if (host && s.kind === "person" && s.seat !== me) {
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
    // Actions.
    const acts = /** @type {HTMLElement} */ (document.querySelector("#room-actions"));
    acts.replaceChildren();
    if (room.status === "open" && host) {
      acts.append(h("button", { type: "button", id: "room-start", className: "primary", text: t("room.start"), onclick: () => this.api?.send({ type: "start" }) }));
    }
    if (room.status === "open" && me != null && !host) {
      acts.append(h("button", { type: "button", id: "room-leave", text: t("room.leave"), onclick: () => this.leave() }));
    }
    if (room.status === "over" && me != null) {
      acts.append(rematchButton(room, me, () => this.api?.send({ type: "rematch" })));
    }
    acts.append(h("a", { className: "button", href: "/", text: t("room.solo") }));
    this.drawOverRematch();
    // Links (for the people seated).
    const links = /** @type {HTMLElement} */ (document.querySelector("#room-links"));
    links.replaceChildren();
    if (me != null && room.invite && room.status === "open") {
      links.append(linkRow("room-invite", t("room.invite"), `${location.origin}/room/${room.id}?invite=${room.invite}`));
    }
    if (me != null && room.watch) {
      links.append(linkRow("room-watch", t("room.watchLink"), `${location.origin}/watch/${room.id}?key=${room.watch}`));
    }
    // Chat: for the people seated, once the game is on.
    const chat = /** @type {HTMLElement} */ (document.querySelector("#room-chat"));
    chat.hidden = me == null || room.game == null;
    if (refocus && !this.panel.contains(document.activeElement)) {
      const again = /** @type {HTMLElement | null} */ (this.panel.querySelector(refocus));
      // The Start button is gone once the game is on: the keyboard goes to the hand.
      if (again) again.focus();
      else if (refocus === "#room-start") /** @type {HTMLElement | null} */ (document.querySelector("#hand"))?.focus();
    }
  }

  /** The game-over dialog: Rematch instead of a solo New game. */
  drawOverRematch() {
    const room = this.room;
    const box = document.querySelector("#dlg-over .dialog-buttons");
    if (!box || !room) return;
    const solo = /** @type {HTMLElement | null} */ (box.querySelector("button.new"));
    if (solo) solo.hidden = true;
    box.querySelector(".rematch")?.remove();
    const me = this.spectator ? null : room.you;
    if (room.status === "over" && me != null) {
      const b = rematchButton(room, me, () => this.api?.send({ type: "rematch" }));
      b.classList.add("rematch");
      box.append(b);
    }
  }

  async leave() {
    const room = this.room;
    if (!room) return;
    const r = await api(`/api/rooms/${encodeURIComponent(room.id)}/leave`, {});
    if (r.ok) location.href = "/";
    else this.api?.showMessage(refusal(r));
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
  }

  clearChat() {
    document.querySelector("#chat-log")?.replaceChildren();
  }
}

/** @param {Room} room @param {number} me @param {() => void} ask */
function rematchButton(room, me, ask) {
  const asked = room.rematch.includes(me);
  const names = room.rematch.map((s) => (s === me ? t("you") : room.seats[s]?.name || seatLabel(s)));
  const text = asked ? t("room.rematchWaiting", { names: names.join(", ") }) : names.length ? t("room.rematchAsked", { names: names.join(", ") }) : t("room.rematch");
  return h("button", { type: "button", className: "primary room-rematch", "data-rematch": asked ? "asked" : "", disabled: asked, text, onclick: ask });
}

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
 * null if the person closed it.
 * @param {Room} room @param {string | null} invite
 * @returns {Promise<number | null>}
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
