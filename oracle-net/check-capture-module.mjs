#!/usr/bin/env node
// Checks assets/net-capture.ts inside real SDK players: every session runs twice, once with the
// plain scene and once with the scene whose first import is the module.
//   (a) the module's log lines, wrapped as an explorer prints them, unwrapped and reassembled,
//       equal the host-level record of the same run (every non-empty tick of that player, plus
//       the identity record);
//   (b) the host-level traffic (each sendBinary item sent and returned, each crdtSendToRenderer
//       payload) is byte-identical with and without the module.
// It first type-checks the module with tsc (strict, @dcl/sdk/types/tsconfig.ecs7.json).
// Exits 1 on the first mismatch, naming session, player, tick and field.
//
//   node oracle-net/check-capture-module.mjs [--module FILE] [--write-fixtures DIR]
// --module checks FILE (e.g. what `scenetree net capture-module` printed) in place of
// assets/net-capture.ts.
// --write-fixtures writes one session's lines as each explorer prints them (see
// logs-as-explorers.mjs) and the capture they must import to.
import fs from 'node:fs'
import path from 'node:path'
import { parseArgs } from 'node:util'
import { spawnSync } from 'node:child_process'
import { createRequire } from 'node:module'
import { DEFAULT_CAPTURE_MODULE, ORACLE_DIR, useCaptureModule } from './lib/bundle.mjs'
import { makeSession, rounds, randomParams } from './lib/generate.mjs'
import { b64 } from './lib/wire.mjs'
import { EXPLORERS, explorerLogs, parseNetcapLines, unwrapExplorerLog, writeExplorerLogs } from './lib/netcap.mjs'

// The log forms each record is read back from: the explorers' prints and the Unity MCP answers.
const KINDS = { ...EXPLORERS, unityMcp: null }

const { values } = parseArgs({ options: { 'write-fixtures': { type: 'string' }, module: { type: 'string' } } })
const moduleFile = values.module ? path.resolve(values.module) : DEFAULT_CAPTURE_MODULE
if (!fs.existsSync(moduleFile)) {
  process.stderr.write(`check-capture-module: no module at ${moduleFile}\n`)
  process.exit(2)
}
useCaptureModule(moduleFile)

// Sessions chosen to cover a late join with state answers, multi-part records (the 12 KB
// frames of chunking-12kb), a removed entity and the fixed-id door.
const SESSIONS = [
  { label: 'seed 3', params: randomParams(3, { players: 4 }) },
  { label: 'seed 12', params: randomParams(12) },
  { label: 'chunking-12kb', params: { kind: 'scenario', name: 'chunking-12kb' } },
  { label: 'hazard-3-late-join', params: { kind: 'scenario', name: 'hazard-3-late-join' } },
  { label: 'log-fixture', params: { kind: 'scenario', name: 'log-fixture' } }
]
const FIXTURE_SESSION = 'log-fixture'

function fail(message) {
  process.stderr.write(`check-capture-module: MISMATCH ${message}\n`)
  process.exit(1)
}

async function run(params, scene) {
  const logs = new Map()
  const session = makeSession(params, {
    scene,
    log: (player, line) => {
      if (!logs.has(player.address)) logs.set(player.address, [])
      logs.get(player.address).push({ line, t: session.now(), tick: player.tick })
    }
  })
  await session.run(rounds(params))
  return { session, logs }
}

// (b): the traffic at the host boundary, call by call.
function compareTraffic(label, plain, withModule) {
  const a = plain.session.records
  const b = withModule.session.records
  if (a.length !== b.length) fail(`${label}: ${a.length} ticks without the module, ${b.length} with it`)
  for (let i = 0; i < a.length; i++) {
    const x = a[i]
    const y = b[i]
    const where = `${label}: ${x.player.name} tick ${x.tick}`
    if (x.player.address !== y.player.address || x.tick !== y.tick) fail(`${where}: ticks ran in another order with the module`)
    const same = (u, v) => u.length === v.length && u.every((item, k) => b64(item) === b64(v[k]))
    if (!same(x.received, y.received)) fail(`${where}: sendBinary returned other items`)
    if (!same(x.rendererCalls, y.rendererCalls)) fail(`${where}: crdtSendToRenderer got other payloads`)
    const sent = (r) => r.sent.map((s) => JSON.stringify([s.to, b64(s.data)]))
    if (JSON.stringify(sent(x)) !== JSON.stringify(sent(y))) fail(`${where}: sendBinary was asked to send other items`)
  }
  return a.length
}

// (a): the module's records, read back from each explorer's form of its log, against the host's
// own lines of the same run.
function compareRecords(label, withModule) {
  let checked = 0
  for (const { player, kind, text } of explorerLogs(withModule.session, withModule.logs)) {
    const expected = withModule.session.lines.filter(
      (l) => l.player === player.address && (l.received.length || l.sent.length || l.renderer.length)
    )
    const where = `${label}: ${player.name}'s ${kind} log`
    let records
    try {
      records = parseNetcapLines(unwrapExplorerLog(kind, text))
    } catch (e) {
      fail(`${where} does not parse: ${e.message}`)
    }
    if (records.length === 0 && expected.length === 0) continue
    const [identity, ...ticks] = records
    if (JSON.stringify(identity) !== JSON.stringify({ address: player.address, name: player.name })) {
      fail(`${where}: the identity record is ${JSON.stringify(identity)}`)
    }
    if (ticks.length !== expected.length) fail(`${where}: ${ticks.length} ticks logged, the host saw ${expected.length} non-empty ones`)
    for (let k = 0; k < ticks.length; k++) {
      const got = JSON.stringify(ticks[k])
      const want = JSON.stringify(expected[k])
      if (got !== want) fail(`${where}, tick ${expected[k].tick}: module logged ${got.slice(0, 200)}… host recorded ${want.slice(0, 200)}…`)
    }
    checked += ticks.length
  }
  return checked
}

// The module must compile as a creator's scene compiles it: strict, under @dcl/sdk's own tsconfig.
const tsc = createRequire(import.meta.url).resolve('typescript/bin/tsc')
const sceneDir = path.join(ORACLE_DIR, 'scene')
let tsconfig = path.join(sceneDir, 'tsconfig.json')
if (moduleFile !== DEFAULT_CAPTURE_MODULE) {
  // The scene's own settings, with the named module in place of assets/net-capture.ts; kept
  // under node_modules so that tsc finds the SDK's type libraries from it.
  const dir = fs.mkdtempSync(path.join(ORACLE_DIR, 'node_modules', '.net-capture-check-'))
  tsconfig = path.join(dir, 'tsconfig.json')
  fs.writeFileSync(tsconfig, JSON.stringify({ extends: path.join(sceneDir, 'tsconfig.json'), include: [moduleFile] }))
}
const typecheck = spawnSync(process.execPath, [tsc, '-p', tsconfig], { encoding: 'utf8' })
if (tsconfig !== path.join(sceneDir, 'tsconfig.json')) fs.rmSync(path.dirname(tsconfig), { recursive: true, force: true })
if (typecheck.status !== 0) fail(`${moduleFile} does not pass tsc under tsconfig.ecs7.json:\n${typecheck.stdout}${typecheck.stderr}`)

let totalTicks = 0
let totalRecords = 0
let totalParts = 0
for (const { label, params } of SESSIONS) {
  const plain = await run(params, 'plain')
  const withModule = await run(params, 'capture')
  if (plain.logs.size) fail(`${label}: the plain scene logged ${[...plain.logs.values()][0][0].line}`)
  totalTicks += compareTraffic(label, plain, withModule)
  totalRecords += compareRecords(label, withModule) / Object.keys(KINDS).length
  for (const l of withModule.logs.values()) totalParts += l.length
  if (values['write-fixtures'] && label === FIXTURE_SESSION) {
    const dir = values['write-fixtures']
    writeExplorerLogs(dir, withModule.session, withModule.logs)
    const session = withModule.session
    fs.writeFileSync(path.join(dir, 'capture.jsonl'), session.capture())
    // What importing the logs must give: the header, then every non-empty tick, merged by t,
    // ties in header order (the log files' order), each player's ticks in order.
    const rank = new Map(session.players.map((p, k) => [p.address, k]))
    const nonEmpty = session.lines
      .filter((l) => l.received.length || l.sent.length || l.renderer.length)
      .sort((x, y) => x.t - y.t || rank.get(x.player) - rank.get(y.player) || x.tick - y.tick)
    fs.writeFileSync(
      path.join(dir, 'expected-import.jsonl'),
      [session.header(), ...nonEmpty].map((l) => JSON.stringify(l)).join('\n') + '\n'
    )
  }
}
process.stdout.write(
  `capture module OK: ${SESSIONS.length} sessions, ${totalTicks} player ticks byte-identical with and without it, ` +
    `${totalRecords} logged ticks (${totalParts} log lines) equal to the host's record in each of ${Object.keys(KINDS).length} explorer log forms\n`
)
