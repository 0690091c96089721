// Times the reference runtime (@dcl/ecs, pinned in package.json) applying a CRDT stream, for
// the ratio `benches/crdt.rs` prints against scenetree's `Replica::apply` on the same messages.
//
// Usage: node bench-apply.cjs TRACE.crdt [RUNS]
//   TRACE.crdt: a binary CRDT stream (main.crdt framing), written by benches/crdt.rs.
// The stream is decoded once (untimed) with the runtime's own reader. Each run then feeds every
// message, in order, to a fresh engine's Transform definition:
//   - `update_from_crdt`: `Transform.updateFromCrdt(msg)` alone (the component's LWW rule, the
//     value decoded and stored), which is what the target compares against;
//   - `receive_path`: the per-message work of the engine's `receiveMessages` for a plain
//     message: the entity-state check (`getEntityState`, `updateUsedEntity` when unknown), the
//     component lookup, then `updateFromCrdt({ ...msg, entityId })`.
// Output (stdout), one JSON object: { messages, runs, update_from_crdt_ns: [per run],
//   receive_path_ns: [per run], update_from_crdt_median_ns, receive_path_median_ns }.
'use strict'
const fs = require('fs')
const ecs = require('@dcl/ecs/dist-cjs/index.js')
const { ReadWriteByteBuffer } = require('@dcl/ecs/dist-cjs/serialization/ByteBuffer/index.js')
const { readMessage } = require('@dcl/ecs/dist-cjs/serialization/crdt/message.js')

function decode(bytes) {
  const buf = new ReadWriteByteBuffer(bytes)
  const out = []
  for (;;) {
    const msg = readMessage(buf)
    if (!msg) break
    out.push(msg)
  }
  return out
}

function runUpdateFromCrdt(messages) {
  const engine = ecs.Engine()
  const Transform = engine.getComponent(ecs.components.Transform(engine).componentId)
  const start = process.hrtime.bigint()
  for (const msg of messages) Transform.updateFromCrdt(msg)
  return Number(process.hrtime.bigint() - start)
}

function runReceivePath(messages) {
  const engine = ecs.Engine()
  ecs.components.Transform(engine)
  const entities = engine.entityContainer
  const start = process.hrtime.bigint()
  for (const msg of messages) {
    const entityId = msg.entityId
    const state = entities.getEntityState(entityId)
    if (state === ecs.EntityState.Removed) continue
    if (state === ecs.EntityState.Unknown) entities.updateUsedEntity(entityId)
    const component = engine.getComponentOrNull(msg.componentId)
    if (component) component.updateFromCrdt({ ...msg, entityId })
  }
  return Number(process.hrtime.bigint() - start)
}

function median(values) {
  const sorted = [...values].sort((a, b) => a - b)
  return sorted[Math.floor(sorted.length / 2)]
}

function main() {
  const [path, runsArg] = process.argv.slice(2)
  if (!path) {
    console.error('usage: node bench-apply.cjs TRACE.crdt [RUNS]')
    process.exit(2)
  }
  const runs = Number(runsArg || 5)
  const messages = decode(new Uint8Array(fs.readFileSync(path)))
  const direct = []
  const receive = []
  for (let i = 0; i < runs; i++) {
    direct.push(runUpdateFromCrdt(messages))
    receive.push(runReceivePath(messages))
  }
  process.stdout.write(
    JSON.stringify({
      messages: messages.length,
      runs,
      update_from_crdt_ns: direct,
      receive_path_ns: receive,
      update_from_crdt_median_ns: median(direct),
      receive_path_median_ns: median(receive)
    }) + '\n'
  )
}

main()
