// Test oracle: replays scenetree's random multi-peer traces on the reference runtime
// (@dcl/ecs, pinned in package.json) and prints what every peer sent and ended with.
//
// Input (stdin): a JSON array of traces
//   { "peers": N, "components": [ids of opaque byte components],
//     "ops": [ {"op":"put","peer":p,"entity":e,"component":c,"data":"hex"},
//              {"op":"delete_component","peer":p,"entity":e,"component":c},
//              {"op":"delete_entity","peer":p,"entity":e},
//              {"op":"deliver","from":p,"index":k,"to":q},
//              {"op":"tick"} ] }
//   A local operation with "tick": false runs without its own engine tick: it stays dirty
//   until a later operation of that peer ticks, or a "tick" operation ticks every peer (the
//   runtime then sends one message per dirty register).
// Output (stdout): a JSON array, one result per trace
//   { "peers": [ {"outbox": ["hex" per message sent], "state": "hex", "deleted": [[number, version]]} ],
//     "replies": ["hex" per deliver op, "" when the runtime answered nothing] }
//
// Each operation runs in its own engine tick (engine.update), so messages are applied one at a
// time. Component ids other than Transform are defined with a schema that keeps raw bytes, so
// the runtime stores exactly what it receives, as scenetree does for components it does not
// decode.
'use strict'
const ecs = require('@dcl/ecs/dist-cjs/index.js')
const { ReadWriteByteBuffer } = require('@dcl/ecs/dist-cjs/serialization/ByteBuffer/index.js')
const crdt = require('@dcl/ecs/dist-cjs/serialization/crdt/index.js')
const { componentNumberFromName } = require('@dcl/ecs/dist-cjs/components/component-number.js')

// Names whose hashed ids the Rust side uses for opaque components.
const OPAQUE_NAMES = ['scenetree::OpaqueA', 'scenetree::OpaqueB', 'scenetree::OpaqueC']

const RawBytes = {
  serialize(value, builder) {
    builder.writeBuffer(value, false)
  },
  deserialize(reader) {
    const n = reader.remainingBytes()
    const start = reader.incrementReadOffset(n)
    return new Uint8Array(reader.buffer().subarray(start, start + n))
  },
  create() {
    return new Uint8Array()
  },
  jsonSchema: { type: 'object', properties: {}, serializationType: 'map' }
}

const hex = (u8) => Buffer.from(u8).toString('hex')
const unhex = (s) => new Uint8Array(Buffer.from(s, 'hex'))

function splitMessages(bytes) {
  const out = []
  let o = 0
  const dv = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength)
  while (o + 8 <= bytes.byteLength) {
    const len = dv.getUint32(o, true)
    out.push(bytes.subarray(o, o + len))
    o += len
  }
  return out
}

function decodeTransform(u8) {
  const dv = new DataView(u8.buffer, u8.byteOffset, u8.byteLength)
  const f = (i) => dv.getFloat32(i, true)
  return {
    position: { x: f(0), y: f(4), z: f(8) },
    rotation: { x: f(12), y: f(16), z: f(20), w: f(24) },
    scale: { x: f(28), y: f(32), z: f(36) },
    parent: dv.getUint32(40, true)
  }
}

function encodeReply(msg) {
  const buf = new ReadWriteByteBuffer()
  if (msg.type === crdt.CrdtMessageType.PUT_COMPONENT) {
    crdt.PutComponentOperation.write(msg.entityId, msg.timestamp, msg.componentId, msg.data, buf)
  } else {
    crdt.DeleteComponent.write(msg.entityId, msg.componentId, msg.timestamp, buf)
  }
  return buf.toBinary()
}

function makePeer(opaqueIds) {
  const engine = ecs.Engine()
  const Transform = ecs.components.Transform(engine)
  const definitions = new Map([[1, Transform]])
  const byId = new Map(OPAQUE_NAMES.map((n) => [componentNumberFromName(n), n]))
  for (const id of [...opaqueIds].sort((a, b) => a - b)) {
    const name = byId.get(id)
    if (!name) throw new Error(`no opaque component name hashes to ${id}`)
    definitions.set(id, engine.defineComponentFromSchema(name, RawBytes))
  }
  const peer = { engine, definitions, outbox: [], lastReply: null, transport: null }
  // Record the answer the runtime computes for an outdated sender (the engine itself drops it).
  // Patch the engine's registered definitions: components.Transform() returns a copy.
  for (const id of definitions.keys()) {
    const def = engine.getComponent(id)
    const original = def.updateFromCrdt
    def.updateFromCrdt = (msg) => {
      const result = original(msg)
      if (result[0]) peer.lastReply = result[0]
      return result
    }
  }
  peer.transport = {
    type: 'scenetree-test',
    filter: () => true,
    send: async (bytes) => {
      for (const m of splitMessages(bytes)) peer.outbox.push(new Uint8Array(m))
    }
  }
  engine.addTransport(peer.transport)
  return peer
}

function dumpState(peer, entityNumbers) {
  const buf = new ReadWriteByteBuffer()
  const ids = [...peer.definitions.keys()].sort((a, b) => a - b)
  const parts = []
  for (const id of ids) {
    const one = new ReadWriteByteBuffer()
    peer.definitions.get(id).dumpCrdtStateToBuffer(one)
    const msgs = splitMessages(one.toBinary()).map((m) => {
      const dv = new DataView(m.buffer, m.byteOffset, m.byteLength)
      return { entity: dv.getUint32(8, true), bytes: m }
    })
    msgs.sort((a, b) => a.entity - b.entity)
    for (const m of msgs) parts.push(m.bytes)
  }
  for (const p of parts) buf.writeBuffer(p, false)
  const deleted = []
  for (const n of [...entityNumbers].sort((a, b) => a - b)) {
    let highest = -1
    for (let v = 0; v < 16; v++) {
      if (peer.engine.getEntityState(ecs.EntityUtils.toEntityId(n, v)) === ecs.EntityState.Removed) highest = v
    }
    if (highest >= 0) deleted.push([n, highest])
  }
  return { state: hex(buf.toBinary()), deleted }
}

async function runTrace(trace) {
  const peers = []
  for (let i = 0; i < trace.peers; i++) peers.push(makePeer(trace.components))
  const replies = []
  const numbers = new Set()
  for (const op of trace.ops) {
    if (op.entity !== undefined) numbers.add(op.entity & 0xffff)
    if (op.op === 'deliver') {
      const target = peers[op.to]
      const bytes = peers[op.from].outbox[op.index]
      const dv = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength)
      numbers.add(dv.getUint32(8, true) & 0xffff)
      target.lastReply = null
      target.transport.onmessage(bytes)
      await target.engine.update(1)
      replies.push(target.lastReply ? hex(encodeReply(target.lastReply)) : '')
      continue
    }
    if (op.op === 'tick') {
      for (const p of peers) await p.engine.update(1)
      continue
    }
    const peer = peers[op.peer]
    if (op.op === 'put') {
      peer.engine.entityContainer.updateUsedEntity(op.entity)
      const data = unhex(op.data)
      const value = op.component === 1 ? decodeTransform(data) : data
      peer.definitions.get(op.component).createOrReplace(op.entity, value)
    } else if (op.op === 'delete_component') {
      peer.definitions.get(op.component).deleteFrom(op.entity)
    } else if (op.op === 'delete_entity') {
      peer.engine.removeEntity(op.entity)
    } else {
      throw new Error(`unknown op ${op.op}`)
    }
    if (op.tick !== false) await peer.engine.update(1)
  }
  return {
    peers: peers.map((p) => ({ outbox: p.outbox.map(hex), ...dumpState(p, numbers) })),
    replies
  }
}

async function main() {
  const chunks = []
  for await (const c of process.stdin) chunks.push(c)
  const traces = JSON.parse(Buffer.concat(chunks).toString('utf8'))
  const results = []
  for (const t of traces) results.push(await runTrace(t))
  process.stdout.write(JSON.stringify(results))
}

main().catch((e) => {
  console.error(e && e.stack ? e.stack : e)
  process.exit(1)
})
