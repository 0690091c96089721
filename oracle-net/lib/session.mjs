// A multiplayer session on a fake bus: real SDK players tick in rounds, and every frame a player
// sends reaches each receiver after a delay drawn per (frame, receiver). The session writes the
// `scenetree-net-capture/1` lines and keeps each renderer's stream for the sidecar.
import { Player } from './player.mjs'
import { stream } from './rng.mjs'
import { SDK_VERSION, applyToRenderer, inboundItem, readMessages, transformParent, COMPONENT } from './wire.mjs'

export const FORMAT = 'scenetree-net-capture/1'

/**
 * The fake room. A frame sent in round r by A reaches B at B's first tick in a round ≥ r + delay;
 * frames due at the same tick arrive in the order they were sent. A player is in the room from
 * its first tick: frames sent before it joined never reach it. Items with addresses go only to
 * those players (RES_CRDT_STATE), the others to everyone else (the sender never hears itself).
 */
export class Bus {
  constructor({ delay }) {
    this.delay = delay
    this.queues = new Map()
    this.seq = 0
    this.round = 0
  }

  join(player) {
    this.queues.set(player, [])
  }

  exchange(sender, items, roster) {
    for (const item of items) {
      const receivers = item.to.length ? roster.filter((p) => item.to.includes(p.address)) : roster.filter((p) => p !== sender)
      for (const receiver of receivers) {
        if (!this.queues.has(receiver)) continue
        const due = this.round + this.delay(sender, receiver, item, this.round)
        this.queues.get(receiver).push({ due, seq: this.seq++, bytes: inboundItem(sender.address, item.data) })
      }
    }
    const queue = this.queues.get(sender)
    const ready = queue.filter((f) => f.due <= this.round).sort((x, y) => x.due - y.due || x.seq - y.seq)
    this.queues.set(sender, queue.filter((f) => f.due > this.round))
    return ready.map((f) => f.bytes)
  }
}

/** Delays in rounds: mostly 0 or 1, now and then up to `maxDelay`, from the seed's bus stream. */
export function seededDelay(seed, maxDelay) {
  const rng = stream(seed, 'bus')
  return () => (maxDelay <= 0 ? 0 : rng.chance(0.7) ? rng.int(0, Math.min(1, maxDelay)) : rng.int(0, maxDelay))
}

export class Session {
  /**
   * @param {object} opts
   * @param {{address: string, name: string, join: number}[]} opts.players join = first round it ticks in
   * @param {(sender: Player, receiver: Player, item: object, round: number) => number} opts.delay rounds a frame takes
   * @param {(player: Player, tick: number) => void} opts.driver the scene code, run as a system each tick
   * @param {number} opts.seed orders the players within each round
   * @param {number} [opts.dt] seconds per tick given to onUpdate (the `t` field follows it)
   * @param {'plain'|'capture'} [opts.scene]
   * @param {(player: Player, line: string) => void} [opts.log] the scenes' console
   */
  constructor({ players, delay, driver, seed, dt = 1 / 30, scene = 'plain', log }) {
    this.dt = dt
    this.driver = driver
    this.bus = new Bus({ delay })
    this.order = stream(seed, 'order')
    this.lines = []
    this.records = []
    this.renderers = new Map()
    this.players = players.map((p) => {
      const player = new Player({
        address: p.address,
        name: p.name,
        scene,
        exchange: (sender, items) => this.bus.exchange(sender, items, this.roster),
        clock: () => this.now()
      })
      if (log) player.log = (line) => log(player, line)
      return player
    })
    this.joins = new Map(this.players.map((p, i) => [p, players[i].join ?? 0]))
    this.roster = []
  }

  /** Simulated milliseconds of the current round: the `t` of its lines and the scenes' Date.now(). */
  now() {
    return Math.round(this.bus.round * this.dt * 1000)
  }

  header() {
    return { format: FORMAT, sdk: SDK_VERSION, players: this.players.map((p) => ({ address: p.address, name: p.name })) }
  }

  /** Runs `rounds` rounds; every player in the room ticks once per round, in a seeded order. */
  async run(rounds) {
    for (let round = 0; round < rounds; round++) {
      this.bus.round = round
      for (const player of this.players) {
        if (this.joins.get(player) === round) {
          this.bus.join(player)
          this.roster.push(player)
          this.renderers.set(player, new Map())
          player.startedAt = this.now()
          await player.start(this.driver)
        }
      }
      for (const player of this.order.shuffle(this.roster)) {
        const record = await player.runTick(this.dt)
        applyToRenderer(this.renderers.get(player), readMessages(record.renderer))
        this.records.push({ player, round, ...record })
        this.lines.push({
          player: player.address,
          tick: record.tick,
          ...Player.lineFields(record),
          t: this.now()
        })
      }
    }
    return this
  }

  /** The capture: header line, then one line per player tick in the order the ticks ran. */
  capture() {
    return [JSON.stringify(this.header()), ...this.lines.map((l) => JSON.stringify(l))].join('\n') + '\n'
  }

  /**
   * What each player ends with, in the shape of `scenetree net replay --json`: its networkId, the
   * SDK's own network map (every local entity holding NetworkEntity, sorted) and the Transform
   * parent of every entity its renderer holds.
   */
  finalState() {
    return {
      players: this.players
        .filter((p) => this.renderers.has(p))
        .map((p) => {
          const { engine, NetworkEntity } = p.scene
          const networkMap = [...engine.getEntitiesWith(NetworkEntity)]
            .map(([entity, n]) => ({ entity, network_id: Number(n.networkId), entity_id: Number(n.entityId) }))
            .sort((a, b) => a.entity - b.entity)
          const rendererTree = [...this.renderers.get(p)]
            .filter(([, components]) => components.has(COMPONENT.Transform))
            .map(([entity, components]) => ({ entity, parent: transformParent(components.get(COMPONENT.Transform)) }))
            .sort((a, b) => a.entity - b.entity)
          // What the SDK itself believes the synced parents are (NetworkParent resolved by getParent),
          // beside what the renderer was told.
          const networkParents = [...engine.getEntitiesWith(p.scene.NetworkParent)]
            .map(([entity, n]) => ({
              entity,
              network_id: Number(n.networkId),
              entity_id: Number(n.entityId),
              resolved: p.scene.getParent(entity) ?? null
            }))
            .sort((a, b) => a.entity - b.entity)
          return {
            address: p.address,
            name: p.name,
            network_id: p.networkId,
            ticks: p.tick + 1,
            network_map: networkMap,
            network_parents: networkParents,
            renderer_tree: rendererTree
          }
        })
    }
  }
}
