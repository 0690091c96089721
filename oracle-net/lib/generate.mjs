// The sessions run.mjs can write: a seeded random schedule, the benchmark preset, or one of the
// scripted hazard scenarios. Each is described by a plain parameter object that the sidecar
// keeps, so bench-sdk.mjs and check-capture-module.mjs can run the same players again.
import fs from 'node:fs'
import path from 'node:path'
import { Session, seededDelay } from './session.mjs'
import { randomPlayers, randomDriver, benchDriver } from './schedule.mjs'
import { SCENARIOS } from './scenarios.mjs'
import { stream } from './rng.mjs'

export const DEFAULT_TICKS = 40
export const DEFAULT_MAX_DELAY = 3

/** The parameters of the random schedule of `seed` (3 or 4 players unless `players` is given). */
export function randomParams(seed, { players, ticks = DEFAULT_TICKS, maxDelay = DEFAULT_MAX_DELAY } = {}) {
  const count = players ?? (stream(seed, 'count').chance(0.5) ? 3 : 4)
  return { kind: 'random', seed, players: count, ticks, maxDelay }
}

export function benchParams({ seed = 1, players = 8, entities = 1000, ticks = 600, maxDelay = 2 } = {}) {
  return { kind: 'bench', seed, players, entities, ticks, maxDelay }
}

/** A session (not yet run) for `params`; `actions` receives what the scenes did. */
export function makeSession(params, { scene = 'plain', log, actions = [] } = {}) {
  if (params.kind === 'scenario') {
    const scenario = SCENARIOS[params.name]
    if (!scenario) throw new Error(`unknown scenario ${params.name}; one of ${Object.keys(SCENARIOS).join(', ')}`)
    return new Session({
      players: scenario.players,
      delay: scenario.delay,
      driver: scenario.driver(actions),
      seed: 1,
      scene,
      log
    })
  }
  const roster = randomPlayers(params.seed, params.players, { ticks: params.ticks, lateJoins: params.kind === 'random' })
  const driver =
    params.kind === 'bench'
      ? benchDriver(params.seed, { players: params.players, entities: params.entities, actions })
      : randomDriver(params.seed, { actions })
  return new Session({ players: roster, delay: seededDelay(params.seed, params.maxDelay), driver, seed: params.seed, scene, log })
}

export function rounds(params) {
  return params.kind === 'scenario' ? SCENARIOS[params.name].rounds : params.ticks
}

/** Runs `params` and writes `<name>.jsonl` (the capture) and `<name>.final.json` (the sidecar) in `dir`. */
export async function writeCapture(params, dir, name) {
  const actions = []
  const session = makeSession(params, { actions })
  await session.run(rounds(params))
  fs.mkdirSync(dir, { recursive: true })
  const capturePath = path.join(dir, `${name}.jsonl`)
  fs.writeFileSync(capturePath, session.capture())
  const sidecar = { params, ...session.finalState(), actions }
  fs.writeFileSync(path.join(dir, `${name}.final.json`), JSON.stringify(sidecar, null, 1) + '\n')
  return { capturePath, session }
}
