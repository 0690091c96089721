// A small seeded PRNG (sfc32, seeded through splitmix32) so that a seed reproduces a schedule
// exactly on any Node version; Math.random cannot be seeded. Each concern draws from its own
// stream (`stream(seed, name)`), so that replaying a capture, which skips the bus's draws, still
// gives every player the same decisions.

function splitmix32(state) {
  return () => {
    state = (state + 0x9e3779b9) >>> 0
    let z = state
    z = Math.imul(z ^ (z >>> 16), 0x85ebca6b) >>> 0
    z = Math.imul(z ^ (z >>> 13), 0xc2b2ae35) >>> 0
    return (z ^ (z >>> 16)) >>> 0
  }
}

function hashName(name) {
  let h = 2166136261
  for (let i = 0; i < name.length; i++) h = Math.imul(h ^ name.charCodeAt(i), 16777619) >>> 0
  return h
}

/** A generator of 32-bit words for (seed, stream name), with helpers for the draws schedules need. */
export function stream(seed, name) {
  const mix = splitmix32((seed >>> 0) ^ hashName(name))
  let a = mix(), b = mix(), c = mix(), d = mix()
  const next = () => {
    const t = (((a + b) >>> 0) + d) >>> 0
    d = (d + 1) >>> 0
    a = b ^ (b >>> 9)
    b = (c + (c << 3)) >>> 0
    c = ((c << 21) | (c >>> 11)) >>> 0
    c = (c + t) >>> 0
    return t
  }
  for (let i = 0; i < 12; i++) next()
  const rng = {
    next,
    /** A float in [0, 1). */
    float: () => next() / 4294967296,
    /** An integer in [lo, hi], both included. */
    int: (lo, hi) => lo + Math.floor((next() / 4294967296) * (hi - lo + 1)),
    chance: (p) => next() / 4294967296 < p,
    pick: (items) => items[Math.floor((next() / 4294967296) * items.length)],
    /** One key of `weights` ({key: weight}), drawn in proportion to its weight. */
    weighted: (weights) => {
      const entries = Object.entries(weights).filter(([, w]) => w > 0)
      const total = entries.reduce((s, [, w]) => s + w, 0)
      let r = (next() / 4294967296) * total
      for (const [k, w] of entries) {
        if ((r -= w) < 0) return k
      }
      return entries[entries.length - 1][0]
    },
    shuffle: (items) => {
      const out = [...items]
      for (let i = out.length - 1; i > 0; i--) {
        const j = Math.floor((next() / 4294967296) * (i + 1))
        ;[out[i], out[j]] = [out[j], out[i]]
      }
      return out
    }
  }
  return rng
}
