#!/usr/bin/env node
// Times the real SDK on a capture written by run.mjs: every player runs again, tick by tick in
// the capture's order, its sendBinary returning exactly the capture's `received` items, and its
// scene doing what it did (the same seeded actions, re-run from the sidecar's params). Prints
// JSON on stdout: the milliseconds spent inside onUpdate (the SDK applying what arrived, the
// renderer and network rewrites, LWW, sending) minus the scene's own actions and the host's
// exchange, with bundling and each player's start excluded (`sdk_ms` wall clock, `sdk_cpu_ms`
// the process's CPU time, which a busy machine inflates less). It also checks that every tick
// sent and rendered exactly what the capture says, and exits 1 if not.
//
//   node oracle-net/run.mjs --preset bench --out DIR      (8 players, 1,000 entities, 600 ticks)
//   node oracle-net/bench-sdk.mjs DIR/bench-8p-1000e-600t.jsonl
import fs from 'node:fs'
import { parseArgs } from 'node:util'
import { makeSession } from './lib/generate.mjs'
import { Player } from './lib/player.mjs'
import { bundleScene } from './lib/bundle.mjs'
import { unb64 } from './lib/wire.mjs'

const { positionals } = parseArgs({ allowPositionals: true, options: {} })
if (positionals.length !== 1) {
  process.stderr.write('usage: node oracle-net/bench-sdk.mjs CAPTURE.jsonl (with its CAPTURE.final.json beside it)\n')
  process.exit(2)
}
const capturePath = positionals[0]
const sidecarPath = capturePath.replace(/\.jsonl$/, '') + '.final.json'
if (!fs.existsSync(sidecarPath)) {
  process.stderr.write(`bench-sdk: ${sidecarPath} is missing: the scenes' actions are re-run from the params run.mjs wrote there\n`)
  process.exit(2)
}
const { params } = JSON.parse(fs.readFileSync(sidecarPath, 'utf8'))
const lines = fs.readFileSync(capturePath, 'utf8').trimEnd().split('\n')
const header = JSON.parse(lines.shift())

await bundleScene('plain')
const session = makeSession(params)
const byAddress = new Map(session.players.map((p) => [p.address, p]))
for (const p of header.players) {
  if (!byAddress.has(p.address)) throw new Error(`the capture's player ${p.address} is not in the session of ${JSON.stringify(params)}`)
}

let current = null
let exchangeMs = 0
for (const player of session.players) {
  player.exchange = () => {
    const t0 = performance.now()
    const items = current.received.map(unb64)
    exchangeMs += performance.now() - t0
    return items
  }
  player.clock = () => current.t
}

let startupMs = 0
let updateMs = 0
let updateCpuMs = 0
let receivedItems = 0
const mismatches = []
const started = new Set()
for (const text of lines) {
  current = JSON.parse(text)
  const player = byAddress.get(current.player)
  if (!started.has(player)) {
    const t0 = performance.now()
    await player.start(session.driver)
    startupMs += performance.now() - t0
    started.add(player)
  }
  const t0 = performance.now()
  const cpu0 = process.cpuUsage()
  const record = await player.runTick(session.dt)
  const cpu = process.cpuUsage(cpu0)
  updateMs += performance.now() - t0
  updateCpuMs += (cpu.user + cpu.system) / 1000
  receivedItems += current.received.length
  const got = Player.lineFields(record)
  if (record.tick !== current.tick || JSON.stringify(got.sent) !== JSON.stringify(current.sent) || got.renderer !== current.renderer) {
    if (mismatches.length < 5) mismatches.push({ player: player.name, tick: current.tick })
    else mismatches.push(null)
  }
}
const driverMs = session.players.reduce((s, p) => s + p.driverMs, 0)
const driverCpuMs = session.players.reduce((s, p) => s + p.driverCpuMs, 0)
const round1 = (ms) => Math.round(ms * 10) / 10
const result = {
  capture: capturePath,
  sdk: header.sdk,
  players: header.players.length,
  ticks: lines.length,
  received_items: receivedItems,
  sdk_ms: round1(updateMs - driverMs - exchangeMs),
  sdk_cpu_ms: round1(updateCpuMs - driverCpuMs),
  scene_actions_ms: round1(driverMs),
  startup_ms_excluded: round1(startupMs),
  replayed_exactly: mismatches.length === 0
}
if (mismatches.length) result.mismatches = { count: mismatches.length, first: mismatches.filter(Boolean) }
process.stdout.write(JSON.stringify(result) + '\n')
process.exit(mismatches.length ? 1 : 0)
