// @ts-check
// Table sounds, synthesised with WebAudio (no sound files): a card played, a trick won,
// a lock, your turn. Off until the player turns them on.

/** @type {AudioContext | null} */
let ctx = null;
let enabled = false;

/** Turn sounds on or off (the first "on" comes from a click, so the browser allows audio). @param {boolean} on */
export function setSound(on) {
  enabled = on;
  if (on && !ctx) {
    try {
      const AC = window.AudioContext || /** @type {any} */ (window).webkitAudioContext;
      ctx = AC ? new AC() : null;
    } catch {
      ctx = null;
    }
  }
  if (on && ctx && ctx.state === "suspended") ctx.resume().catch(() => {});
}

export const soundOn = () => enabled;

/**
 * One tone: frequency, start offset, length, volume, wave.
 * @param {number} freq @param {number} at @param {number} len @param {number} vol @param {OscillatorType} [type]
 * @param {number} [slideTo]
 */
function tone(freq, at, len, vol, type = "sine", slideTo) {
  if (!ctx) return;
  const t0 = ctx.currentTime + at;
  const osc = ctx.createOscillator();
  const gain = ctx.createGain();
  osc.type = type;
  osc.frequency.setValueAtTime(freq, t0);
  if (slideTo) osc.frequency.exponentialRampToValueAtTime(slideTo, t0 + len);
  gain.gain.setValueAtTime(0.0001, t0);
  gain.gain.exponentialRampToValueAtTime(vol, t0 + 0.01);
  gain.gain.exponentialRampToValueAtTime(0.0001, t0 + len);
  osc.connect(gain).connect(ctx.destination);
  osc.start(t0);
  osc.stop(t0 + len + 0.02);
}

/** A short burst of filtered noise: a card landing on cloth. */
function snap() {
  if (!ctx) return;
  const len = 0.07;
  const buf = ctx.createBuffer(1, Math.floor(ctx.sampleRate * len), ctx.sampleRate);
  const data = buf.getChannelData(0);
  for (let i = 0; i < data.length; i++) data[i] = (Math.random() * 2 - 1) * (1 - i / data.length) ** 3;
  const src = ctx.createBufferSource();
  src.buffer = buf;
  const filter = ctx.createBiquadFilter();
  filter.type = "bandpass";
  filter.frequency.value = 1800;
  const gain = ctx.createGain();
  gain.gain.value = 0.5;
  src.connect(filter).connect(gain).connect(ctx.destination);
  src.start();
}

/** @type {Record<string, () => void>} */
const SOUNDS = {
  play: () => snap(),
  trick: () => {
    tone(660, 0, 0.16, 0.12, "triangle");
    tone(880, 0.09, 0.22, 0.1, "triangle");
  },
  lock: () => {
    tone(190, 0, 0.28, 0.2, "square", 110);
    tone(1250, 0.05, 0.12, 0.05, "triangle");
  },
  turn: () => tone(988, 0, 0.25, 0.08, "sine"),
  win: () => [523, 659, 784, 1047].forEach((f, i) => tone(f, i * 0.12, 0.35, 0.1, "triangle")),
};

/** Play a named sound if sounds are on. @param {"play" | "trick" | "lock" | "turn" | "win"} name */
export function sound(name) {
  if (!enabled || !ctx) return;
  try {
    SOUNDS[name]();
  } catch {
    /* audio is a nicety */
  }
}
