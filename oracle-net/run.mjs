#!/usr/bin/env node
// Writes multiplayer captures (`scenetree-net-capture/1`) of real @dcl/sdk 7.28.0 players on a
// fake bus. See README.md for the format and the scenarios.
//
//   node oracle-net/run.mjs --seed 7 [--players 3|4] [--ticks 40] [--max-delay 3] --out DIR
//   node oracle-net/run.mjs --seeds 1..200[,N,…] --out DIR    (one process, seed-N.jsonl each)
//   node oracle-net/run.mjs --scenario all|NAME --out DIR     (the hazard scenarios)
//   node oracle-net/run.mjs --preset bench [--players 8 --entities 1000 --ticks 600] --out DIR
import { parseArgs } from 'node:util'
import { writeCapture, randomParams, benchParams } from './lib/generate.mjs'
import { SCENARIOS } from './lib/scenarios.mjs'

function fail(message) {
  process.stderr.write(`run.mjs: ${message}\n`)
  process.exit(2)
}

const { values } = parseArgs({
  options: {
    seed: { type: 'string' },
    seeds: { type: 'string' },
    players: { type: 'string' },
    ticks: { type: 'string' },
    entities: { type: 'string' },
    'max-delay': { type: 'string' },
    scenario: { type: 'string' },
    preset: { type: 'string' },
    out: { type: 'string' },
    quiet: { type: 'boolean' }
  }
})

const int = (name, text) => {
  if (text === undefined) return undefined
  if (!/^\d+$/.test(text)) fail(`--${name} wants a whole number, got ${JSON.stringify(text)}`)
  return Number(text)
}

if (!values.out) fail('--out DIR is required')
const players = int('players', values.players)
const ticks = int('ticks', values.ticks)
const maxDelay = int('max-delay', values['max-delay'])
const jobs = []

if (values.scenario) {
  const names = values.scenario === 'all' ? Object.keys(SCENARIOS) : [values.scenario]
  for (const name of names) {
    if (!SCENARIOS[name]) fail(`unknown scenario ${name}; one of all, ${Object.keys(SCENARIOS).join(', ')}`)
    jobs.push({ params: { kind: 'scenario', name }, name })
  }
} else if (values.preset) {
  if (values.preset !== 'bench') fail(`unknown preset ${values.preset}; the one preset is bench`)
  const seed = int('seed', values.seed) ?? 1
  const params = benchParams({ seed, players, entities: int('entities', values.entities), ticks, maxDelay })
  jobs.push({ params, name: `bench-${params.players}p-${params.entities}e-${params.ticks}t` })
} else {
  let seeds
  if (values.seeds) {
    seeds = []
    for (const part of values.seeds.split(',')) {
      const m = /^(\d+)(?:\.\.(\d+))?$/.exec(part)
      const [from, to] = m ? [Number(m[1]), Number(m[2] ?? m[1])] : []
      if (!m || from > to) fail(`--seeds wants A..B (A ≤ B), N, or a comma-separated list of them, got ${JSON.stringify(values.seeds)}`)
      for (let s = from; s <= to; s++) seeds.push(s)
    }
  } else if (values.seed !== undefined) {
    seeds = [int('seed', values.seed)]
  } else {
    fail('give --seed N, --seeds A..B, --scenario NAME|all or --preset bench')
  }
  if (players !== undefined && (players < 2 || players > 16)) fail('--players must be between 2 and 16')
  for (const seed of seeds) jobs.push({ params: randomParams(seed, { players, ticks, maxDelay }), name: `seed-${seed}` })
}

const t0 = performance.now()
for (const job of jobs) {
  const { capturePath } = await writeCapture(job.params, values.out, job.name)
  if (!values.quiet && jobs.length === 1) process.stdout.write(capturePath + '\n')
}
if (!values.quiet) {
  process.stderr.write(`${jobs.length} capture(s) in ${values.out} in ${((performance.now() - t0) / 1000).toFixed(1)} s\n`)
}
