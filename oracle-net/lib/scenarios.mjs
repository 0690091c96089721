// One scripted session per hazard of issue 47. Each names its players, the rounds it runs, the
// delay of every frame (all 0 unless the scenario needs an order) and what each player's scene
// does on which of its ticks. README.md says where each hazard shows in the capture.
import { networkIdOf } from './wire.mjs'

const ADDRESS = {
  A: '0xaaaa00000000000000000000000000000000aaaa',
  B: '0xbbbb00000000000000000000000000000000bbbb',
  C: '0xcccc00000000000000000000000000000000cccc'
}

const player = (name, join = 0) => ({ address: ADDRESS[name], name, join })

// Scene helpers over one player's SDK objects; `labels` keeps each player's entities by name.
function spawn(p, labels, label, { parent, mesh = false, position = { x: 8, y: 1, z: 8 } } = {}) {
  const s = p.scene
  const entity = s.engine.addEntity()
  s.Transform.create(entity, { position })
  const ids = [s.Transform.componentId]
  if (mesh) {
    s.MeshRenderer.setBox(entity)
    ids.push(s.MeshRenderer.componentId)
  }
  s.syncEntity(entity, ids)
  if (parent !== undefined) s.parentEntity(entity, labels[parent])
  labels[label] = entity
  return entity
}

// The local entity a player holds for another player's entity, found through NetworkEntity.
function remote(p, owner, ownerEntity) {
  const { engine, NetworkEntity } = p.scene
  for (const [entity, n] of engine.getEntitiesWith(NetworkEntity)) {
    if (Number(n.networkId) === owner.networkId && n.entityId === ownerEntity) return entity
  }
  throw new Error(`${p.name} holds no copy of ${owner.name}:${ownerEntity}`)
}

// A driver from a script {name: {tick: (player, labels, players) => void}}.
function scripted(script) {
  return (actions) => {
    const labels = {}
    const players = {}
    return (p, tick) => {
      players[p.name] = p
      labels[p.name] ??= {}
      const step = script[p.name]?.[tick]
      if (step) {
        step(p, labels[p.name], players, labels)
        actions.push({ player: p.name, tick, op: 'script', labels: { ...labels[p.name] } })
      }
    }
  }
}

export const SCENARIOS = {
  // A makes P (tick 3, after the state requests of the first ticks have been answered), then C
  // under P (tick 4). The frame with P takes 3 rounds to reach B, the one with C none, so B
  // applies C's Transform and NetworkParent a tick before P exists there.
  'hazard-1-child-before-parent': {
    players: [player('A'), player('B'), player('C')],
    rounds: 8,
    delay: (sender, receiver, item, round) => (sender.name === 'A' && receiver.name === 'B' && round === 3 ? 3 : 0),
    driver: scripted({
      A: {
        3: (p, l) => spawn(p, l, 'P', { position: { x: 4, y: 0, z: 4 } }),
        4: (p, l) => spawn(p, l, 'C', { parent: 'P', position: { x: 0, y: 2, z: 0 } })
      }
    })
  },

  // B makes its own Q first, so A's entities get other numbers on B. A makes P and C (synced,
  // not parented), then writes C's Transform.parent = P directly, A's own number.
  'hazard-2-raw-parent': {
    players: [player('A'), player('B'), player('C')],
    rounds: 8,
    delay: () => 0,
    driver: scripted({
      B: { 1: (p, l) => spawn(p, l, 'Q', { mesh: true }) },
      A: {
        2: (p, l) => {
          spawn(p, l, 'P')
          spawn(p, l, 'C')
        },
        4: (p, l) => {
          p.scene.Transform.getMutable(l.C).parent = l.P
        }
      }
    })
  },

  // A and B play from the start: every player makes the fixed-id door (syncEntity id 1) on its
  // first tick, as a scene's main() does; A moves it, A and B spawn entities. C joins at round 6,
  // asks for the state, and both A and B answer with everything they hold. C moves the door on
  // each of its first ticks, so its own writes outrun the door's timestamp in the answers.
  'hazard-3-late-join': {
    players: [player('A'), player('B'), player('C', 6)],
    rounds: 14,
    delay: () => 0,
    driver: scripted({
      A: {
        0: (p, l) => door(p, l),
        1: (p, l) => spawn(p, l, 'P', { mesh: true }),
        2: (p, l) => {
          spawn(p, l, 'C', { parent: 'P' })
          p.scene.Transform.getMutable(l.door).position = { x: 1, y: 1, z: 1 }
        },
        3: (p, l) => {
          p.scene.Transform.getMutable(l.door).position = { x: 2, y: 2, z: 2 }
        }
      },
      B: {
        0: (p, l) => door(p, l),
        2: (p, l) => spawn(p, l, 'Q')
      },
      C: {
        0: (p, l) => door(p, l),
        1: (p, l) => {
          p.scene.Transform.getMutable(l.door).position = { x: 9, y: 0, z: 0 }
        },
        2: (p, l) => {
          p.scene.Transform.getMutable(l.door).position = { x: 9, y: 0, z: 1 }
        },
        3: (p, l) => {
          p.scene.Transform.getMutable(l.door).position = { x: 9, y: 0, z: 2 }
        }
      }
    })
  },

  // B makes its own Q first. A makes P, then C under P; later A deletes P, then moves C.
  'hazard-4-remote-delete': {
    players: [player('A'), player('B'), player('C')],
    rounds: 10,
    delay: () => 0,
    driver: scripted({
      B: { 1: (p, l) => spawn(p, l, 'Q', { mesh: true }) },
      A: {
        2: (p, l) => spawn(p, l, 'P', { mesh: true }),
        3: (p, l) => spawn(p, l, 'C', { parent: 'P' }),
        5: (p, l) => p.scene.engine.removeEntity(l.P),
        7: (p, l) => {
          p.scene.Transform.getMutable(l.C).position = { x: 3, y: 3, z: 3 }
        }
      }
    })
  },

  // Not a hazard: A makes 300 entities in one tick, so its CRDT frame is cut at 12 KB, and C
  // joins later, so the state answers come in several 12 KB chunks as well.
  'chunking-12kb': {
    players: [player('A'), player('B'), player('C', 5)],
    rounds: 10,
    delay: () => 0,
    driver: scripted({
      A: {
        2: (p, l) => {
          for (let i = 0; i < 300; i++) spawn(p, l, 'e' + i, { mesh: i % 2 === 0, parent: i ? 'e' + (i - 1) : undefined })
        }
      }
    })
  },

  // Not a hazard: the session whose module logs are the fixtures of `net import-log`. B joins
  // late; A makes 40 entities in one tick, so some records span several log lines.
  'log-fixture': {
    players: [player('A'), player('B', 4)],
    rounds: 10,
    delay: () => 0,
    driver: scripted({
      A: {
        0: (p, l) => door(p, l),
        2: (p, l) => {
          for (let i = 0; i < 40; i++) spawn(p, l, 'e' + i, { mesh: i % 3 === 0, parent: i % 4 ? 'e' + (i - 1) : undefined })
        },
        6: (p, l) => {
          p.scene.Transform.getMutable(l.e5).position = { x: 1, y: 2, z: 3 }
          p.scene.engine.removeEntity(l.e7)
        }
      },
      B: {
        0: (p, l) => door(p, l),
        2: (p, l) => p.scene.parentEntity(spawn(p, l, 'Q'), remote(p, { networkId: networkIdOf(ADDRESS.A), name: 'A' }, 512 + 3))
      }
    })
  },

  // A makes P and C under P, then calls removeParent(C).
  'hazard-5-remove-parent': {
    players: [player('A'), player('B'), player('C')],
    rounds: 8,
    delay: () => 0,
    driver: scripted({
      A: {
        1: (p, l) => {
          spawn(p, l, 'P')
          spawn(p, l, 'C', { parent: 'P' })
        },
        3: (p, l) => p.scene.removeParent(l.C)
      }
    })
  }
}

// The fixed-id entity every player creates the same way: networkId 0, entityId 1.
function door(p, l) {
  const s = p.scene
  l.door = s.engine.addEntity()
  s.Transform.create(l.door, { position: { x: 0, y: 0, z: 0 } })
  s.syncEntity(l.door, [s.Transform.componentId], 1)
}

export { remote }
