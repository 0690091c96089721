// Seeded random schedules: who plays, when each joins, and what each player's scene does on each
// tick. Decisions are taken inside the tick (an engine system, after the received items are
// applied) from what that player's own engine holds, so a player parents only under entities
// it knows, in its own numbers. Each player draws from its own stream, so the same seed gives
// the same actions whether the frames come from the bus or from a capture being replayed.
import { stream } from './rng.mjs'

const USED_ENTITY = 1 // EntityState.UsedEntity of @dcl/ecs

/** Random addresses: 0x + 40 hex digits; now and then mixed case, which the SDK keeps as given. */
export function randomPlayers(seed, count, { ticks, lateJoins = true } = {}) {
  const rng = stream(seed, 'players')
  const names = 'ABCDEFGHIJKLMNOP'
  const players = []
  for (let i = 0; i < count; i++) {
    const mixed = rng.chance(0.25)
    let hex = ''
    for (let k = 0; k < 40; k++) {
      const digit = rng.int(0, 15).toString(16)
      hex += mixed && rng.chance(0.5) ? digit.toUpperCase() : digit
    }
    const late = lateJoins && i > 0 && rng.chance(0.35)
    players.push({ address: '0x' + hex, name: names[i], join: late ? rng.int(1, Math.max(1, Math.floor(ticks / 2))) : 0 })
  }
  return players
}

/** The alive synced entities a player's engine holds: [{entity, own}] in entity order. */
export function syncedEntities(player) {
  const { engine, NetworkEntity } = player.scene
  const out = []
  for (const [entity, network] of engine.getEntitiesWith(NetworkEntity)) {
    if (engine.getEntityState(entity) !== USED_ENTITY) continue
    out.push({ entity, own: Number(network.networkId) === player.networkId })
  }
  return out.sort((a, b) => a.entity - b.entity)
}

// True when `ancestor` is `entity` or above it through NetworkParent in this player's view.
function isAncestorOrSelf(player, ancestor, entity) {
  const seen = new Set()
  let at = entity
  while (at !== undefined && !seen.has(at)) {
    if (at === ancestor) return true
    seen.add(at)
    at = player.scene.getParent(at)
  }
  return false
}

const randomPosition = (rng) => ({ x: rng.int(0, 160) / 10, y: rng.int(0, 40) / 10, z: rng.int(0, 160) / 10 })

export const DEFAULT_WEIGHTS = { spawn: 30, move: 30, reparent: 10, removeParent: 7, delete: 8, rawParent: 3, dropMesh: 4 }

/**
 * The scene code of a random schedule. `actions` collects what every player did
 * ({player, tick, op, entity, parent?}) for the sidecar and for debugging a replay.
 */
export function randomDriver(seed, { weights = DEFAULT_WEIGHTS, maxOwn = 12, opsPerTick = { 0: 60, 1: 30, 2: 10 }, actions = [] } = {}) {
  const streams = new Map()
  const rngOf = (player) => {
    if (!streams.has(player.address)) streams.set(player.address, stream(seed, 'actions:' + player.address))
    return streams.get(player.address)
  }
  // In about half the seeds every scene makes the fixed-id door (networkId 0, entityId 1) on its
  // first tick, as a creator's main() does; those writes reach others only through state answers.
  const withDoor = stream(seed, 'door').chance(0.5)
  const driver = (player, tick) => {
    const rng = rngOf(player)
    if (tick === 0 && withDoor) {
      const s = player.scene
      const door = s.engine.addEntity()
      s.Transform.create(door, { position: randomPosition(rng) })
      s.syncEntity(door, [s.Transform.componentId], 1)
      actions.push({ player: player.name, tick, op: 'door', entity: door })
    }
    const count = Number(rng.weighted(opsPerTick))
    for (let i = 0; i < count; i++) {
      const op = pickOp(player, rng, weights, maxOwn)
      if (op) actions.push({ player: player.name, tick, ...op })
    }
  }
  driver.actions = actions
  return driver
}

// Draws an operation that can be done now and does it; returns what was done or null.
function pickOp(player, rng, weights, maxOwn) {
  const s = player.scene
  const known = syncedEntities(player)
  const own = known.filter((k) => k.own)
  const pickKnown = (list = known) => {
    const mine = list.filter((k) => k.own)
    const pool = mine.length && rng.chance(0.8) ? mine : list
    return pool.length ? rng.pick(pool).entity : undefined
  }
  const withParent = known.filter((k) => s.NetworkParent.has(k.entity))
  const withMesh = known.filter((k) => s.MeshRenderer.has(k.entity))
  const available = {
    spawn: own.length < maxOwn ? weights.spawn : 0,
    move: known.length ? weights.move : 0,
    reparent: known.length >= 2 ? weights.reparent : 0,
    removeParent: withParent.length ? weights.removeParent : 0,
    delete: known.length ? weights.delete : 0,
    rawParent: own.length && known.length >= 2 ? weights.rawParent : 0,
    dropMesh: withMesh.length ? weights.dropMesh : 0
  }
  if (!Object.values(available).some((w) => w > 0)) return null
  const op = rng.weighted(available)
  switch (op) {
    case 'spawn': {
      const entity = s.engine.addEntity()
      s.Transform.create(entity, { position: randomPosition(rng) })
      const ids = [s.Transform.componentId]
      if (rng.chance(0.5)) {
        s.MeshRenderer.setBox(entity)
        ids.push(s.MeshRenderer.componentId)
      }
      s.syncEntity(entity, ids)
      let parent
      if (known.length && rng.chance(0.6)) {
        parent = rng.pick(known).entity
        s.parentEntity(entity, parent)
      }
      return { op, entity, parent }
    }
    case 'move': {
      const entity = pickKnown()
      if (!s.Transform.has(entity)) return null
      s.Transform.getMutable(entity).position = randomPosition(rng)
      return { op, entity }
    }
    case 'reparent': {
      const entity = pickKnown()
      const candidates = known.filter((k) => !isAncestorOrSelf(player, entity, k.entity))
      if (!candidates.length) return null
      const parent = rng.pick(candidates).entity
      s.parentEntity(entity, parent)
      return { op, entity, parent }
    }
    case 'removeParent': {
      const entity = pickKnown(withParent)
      s.removeParent(entity)
      return { op, entity }
    }
    case 'delete': {
      const entity = pickKnown()
      s.engine.removeEntity(entity)
      return { op, entity }
    }
    case 'rawParent': {
      const entity = rng.pick(own).entity
      if (!s.Transform.has(entity)) return null
      const parent = rng.pick(known.filter((k) => k.entity !== entity)).entity
      s.Transform.getMutable(entity).parent = parent
      return { op, entity, parent }
    }
    case 'dropMesh': {
      const entity = pickKnown(withMesh)
      s.MeshRenderer.deleteFrom(entity)
      return { op, entity }
    }
  }
  return null
}

/**
 * The benchmark's scene code: `entities` synced entities in all, spawned by every player in turn
 * from tick 1 (`spawnPerTick` a tick, half of them under an entity the player already knows),
 * then every player moves `movesPerTick` of its own entities each tick and now and then
 * reparents one.
 */
export function benchDriver(seed, { players, entities, spawnPerTick = 25, movesPerTick = 5, actions } = {}) {
  const perPlayer = Math.ceil(entities / players)
  const spawned = new Map()
  const streams = new Map()
  return (player, tick) => {
    if (!streams.has(player.address)) streams.set(player.address, stream(seed, 'bench:' + player.address))
    const rng = streams.get(player.address)
    const s = player.scene
    if (tick === 0) return
    const made = spawned.get(player.address) ?? 0
    if (made < perPlayer) {
      const known = syncedEntities(player)
      const n = Math.min(spawnPerTick, perPlayer - made)
      for (let i = 0; i < n; i++) {
        const entity = s.engine.addEntity()
        s.Transform.create(entity, { position: randomPosition(rng) })
        s.syncEntity(entity, [s.Transform.componentId])
        if (known.length && rng.chance(0.5)) s.parentEntity(entity, rng.pick(known).entity)
        actions?.push({ player: player.name, tick, op: 'spawn', entity })
      }
      spawned.set(player.address, made + n)
      return
    }
    const own = syncedEntities(player).filter((k) => k.own)
    for (let i = 0; i < movesPerTick && own.length; i++) {
      s.Transform.getMutable(rng.pick(own).entity).position = randomPosition(rng)
    }
    if (rng.chance(0.05) && own.length >= 2) {
      const child = rng.pick(own).entity
      const parent = rng.pick(own).entity
      if (!isAncestorOrSelf(player, child, parent)) s.parentEntity(child, parent)
    }
  }
}
