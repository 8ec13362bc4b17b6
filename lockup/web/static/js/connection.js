// @ts-check
// The WebSocket to the server (/ws), reconnecting with backoff when it closes.
//
// The page owns what to say on (re)connection: onOpen is called after every successful
// connection, and the page sends its "hello" with the last version it has. The back-off
// starts again only once the page's game has arrived (arrived()): a socket that opens
// and is closed before that (the server cannot serve the game yet) keeps backing off.

const BACKOFF_MS = [250, 500, 1000, 2000, 4000, 8000];
/** The longest wait while the server says saving is paused (1013): it asks to come back soon. */
const PAUSED_MAX_MS = 2000;
/** The wait after the server said it is full (1013 "server-full"): about half a minute. */
const FULL_MS = 30000;
const PING_MS = 25000;

export class Connection {
  /**
   * @param {{onMessage: (msg: any) => void, onOpen: () => void,
   *   onStatus?: (status: "connecting" | "open" | "closed", code?: number, reason?: string) => void}} handlers
   */
  constructor({ onMessage, onOpen, onStatus }) {
    this.onMessage = onMessage;
    this.onOpen = onOpen;
    this.onStatus = onStatus || (() => {});
    /** @type {WebSocket | null} */
    this.ws = null;
    this.attempt = 0;
    /** @type {any} */
    this.timer = null;
    /** @type {any} */
    this.ping = null;
    this.closedByPage = false;
    this.lastCode = 0;
    this.lastReason = "";
  }

  /** The URL of the server's socket, on the page's own host. */
  static url() {
    const scheme = location.protocol === "https:" ? "wss" : "ws";
    return `${scheme}://${location.host}/ws`;
  }

  /** Open the socket (again). */
  connect() {
    clearTimeout(this.timer);
    this.timer = null;
    this.onStatus("connecting");
    let ws;
    try {
      ws = new WebSocket(Connection.url());
    } catch {
      this.scheduleReconnect();
      return;
    }
    this.ws = ws;
    ws.addEventListener("open", () => {
      if (this.ws !== ws) return;
      this.onStatus("open");
      clearInterval(this.ping);
      this.ping = setInterval(() => this.send({ type: "ping" }), PING_MS);
      this.onOpen();
    });
    ws.addEventListener("message", (e) => {
      if (this.ws !== ws) return;
      let msg;
      try {
        msg = JSON.parse(e.data);
      } catch {
        return; // not ours to understand: ignore
      }
      if (msg && typeof msg === "object") this.onMessage(msg);
    });
    ws.addEventListener("close", (e) => {
      if (this.ws !== ws) return;
      this.ws = null;
      clearInterval(this.ping);
      this.lastCode = e.code;
      this.lastReason = e.reason || "";
      this.onStatus("closed", e.code, this.lastReason);
      if (!this.closedByPage) this.scheduleReconnect();
    });
  }

  scheduleReconnect() {
    if (this.timer) return;
    let base = BACKOFF_MS[Math.min(this.attempt, BACKOFF_MS.length - 1)];
    if (this.lastCode === 1013) base = Math.min(base, PAUSED_MAX_MS);
    // 1013 "server-full": the server carries as many players as it may; come back later.
    if (this.lastCode === 1013 && this.lastReason === "server-full") base = FULL_MS;
    // 1012: the game moved to another process, which has it now: come back at once.
    if (this.lastCode === 1012) base = BACKOFF_MS[0];
    this.attempt += 1;
    const delay = base * (0.8 + 0.4 * Math.random());
    this.timer = setTimeout(() => {
      this.timer = null;
      this.connect();
    }, delay);
  }

  /** The page's game (or room) arrived on this socket: the next drop backs off from the start. */
  arrived() {
    this.attempt = 0;
  }

  /** The attempts made since the game last arrived (the back-off's step). */
  get attempts() {
    return this.attempt;
  }

  /** Whether the socket is open now. */
  get isOpen() {
    return !!this.ws && this.ws.readyState === WebSocket.OPEN;
  }

  /** Send a message; returns false when the socket is not open. @param {object} msg */
  send(msg) {
    if (!this.ws || !this.isOpen) return false;
    this.ws.send(JSON.stringify(msg));
    return true;
  }

  /** Close for good (the page is going away). */
  close() {
    this.closedByPage = true;
    clearTimeout(this.timer);
    clearInterval(this.ping);
    if (this.ws) this.ws.close();
  }
}
