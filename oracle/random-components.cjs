// Random values of every protocol-buffer component, serialized by @dcl/ecs 7.28.0 itself: the
// reference for scenetree's component codec (src/model/dcl/codec). For each component, COUNT
// random objects shaped as the SDK's generated code holds them (camel-case properties, oneofs
// as {$case, …}, enums as numbers), built from the .proto files scenetree ships (crates/dcl/proto/) with
// protobufjs's reflection; then the component's own schema serializes each one (after a JSON
// round trip, so both sides see exactly the JSON text) and deserializes the bytes.
// Some values are deliberately off (missing keys, null, out-of-range numbers, unknown cases):
// when the SDK throws, the line says so and scenetree must refuse the value too.
// Usage: node random-components.cjs SEED COUNT > values.jsonl
//   one line per value: {"component", "id", "input", "exotic" (a value of the wrong JavaScript
//   type is inside), "bytes" (hex, or null when the SDK threw),
//   "output" (JSON.stringify of what the SDK decodes, or null)}
'use strict'
const fs = require('fs')
const path = require('path')
const protobuf = require('protobufjs')
const { ecs, ReadWriteByteBuffer } = require('./lib-scene.cjs')

const [seedArg, countArg] = process.argv.slice(2)
if (seedArg === undefined || countArg === undefined) throw new Error('usage: node random-components.cjs SEED COUNT')
let state = Number(seedArg) >>> 0
const count = Number(countArg)

// mulberry32: a small seeded generator, so a failing run can be replayed.
function random() {
  state = (state + 0x6d2b79f5) >>> 0
  let t = state
  t = Math.imul(t ^ (t >>> 15), t | 1)
  t ^= t + Math.imul(t ^ (t >>> 7), t | 61)
  return ((t ^ (t >>> 14)) >>> 0) / 4294967296
}
const chance = (p) => random() < p
const pick = (list) => list[Math.floor(random() * list.length)]
const int = (lo, hi) => lo + Math.floor(random() * (hi - lo + 1))

// The shipped protocol, read with protobufjs's reflection (field names as written).
const protoDir = path.join(__dirname, '..', 'crates', 'dcl', 'proto')
const root = new protobuf.Root()
root.resolvePath = (_origin, target) =>
  target.startsWith('google/')
    ? path.join(path.dirname(require.resolve('protobufjs/package.json')), target)
    : path.join(protoDir, target)
const componentDir = path.join(protoDir, 'decentraland/sdk/components')
root.loadSync(
  fs.readdirSync(componentDir).filter((f) => f.endsWith('.proto')).map((f) => 'decentraland/sdk/components/' + f),
  { keepCase: true }
)
root.resolveAll()

// ts-proto's snakeToCamel.
function camel(name) {
  const hasLower = /[a-z]/.test(name)
  return name
    .split('_')
    .map((w, i) => {
      w = hasLower ? w : w.toLowerCase()
      return i === 0 ? w : w.charAt(0).toUpperCase() + w.slice(1)
    })
    .join('')
}
const isSynthetic = (f) => f.partOf && f.partOf.name === '_' + f.name && f.partOf.fieldsArray.length === 1

const TEXTS = ['', 'a', 'Lamp', 'assets/scene/Models/lamp.glb', 'ünïcødé ✓ 🎉', 'quote " backslash \\ tab \t newline \n', '\u0001\u001f', 'x'.repeat(200)]
function randomFloat() {
  switch (int(0, 9)) {
    case 0: return 0
    case 1: return int(-10, 10)
    case 2: return pick([0.5, 0.1, 1e-7, 0.0000010051146546175005, 123456.789, 3.4e38, 1e39, -2.5e-45, 5e-324])
    case 3: return Math.fround(random() * 200 - 100)
    case 4: return (random() - 0.5) * Math.pow(10, int(-12, 25))
    default: return random() * 20 - 10
  }
}
function randomScalar(type, resolved) {
  if (resolved instanceof protobuf.Enum) {
    const values = Object.values(resolved.values)
    return chance(0.9) ? pick(values) : int(-3, 300)
  }
  switch (type) {
    case 'float':
    case 'double': return randomFloat()
    case 'int32': return pick([0, int(-100, 100), int(-2147483648, 2147483647), 3000000000, -5000000000, 1.75])
    case 'uint32': return pick([0, int(0, 100), int(0, 4294967295), 4294967296 + 7, -1, 2.5])
    case 'int64': return pick([0, int(0, 1e9), Date.now(), 9007199254740991, -int(1, 1e9)])
    case 'bool': return chance(0.5)
    case 'string': return pick(TEXTS)
    default: throw new Error('scalar type ' + type + ' is not generated')
  }
}
// A value of one field; `off` values are what a hand-edited composite could hold.
// Set when a value got a JavaScript type its field does not have (anything but null): the SDK
// coerces those in ways an editor should not copy, so scenetree may refuse them instead.
let exotic = false
function randomValue(field, depth) {
  if (chance(0.03)) {
    const off = pick([null, 'text', true, {}, []])
    if (off !== null) exotic = true
    return off
  }
  if (field.resolvedType instanceof protobuf.Type) return randomMessage(field.resolvedType, depth + 1)
  return randomScalar(field.type, field.resolvedType)
}
function randomMessage(type, depth) {
  const out = {}
  const done = new Set()
  for (const field of type.fieldsArray) {
    if (field.partOf && !isSynthetic(field)) {
      const oneof = field.partOf
      if (done.has(oneof.name)) continue
      done.add(oneof.name)
      if (chance(0.25) || depth > 5) continue
      const key = camel(oneof.name)
      if (chance(0.05)) {
        out[key] = { $case: 'noSuchCase' }
        continue
      }
      const member = pick(oneof.fieldsArray)
      out[key] = { $case: camel(member.name), [camel(member.name)]: randomValue(member, depth) }
      continue
    }
    const key = camel(field.name)
    if (field.repeated) {
      if (chance(0.03)) continue // undefined: the SDK throws iterating it
      const n = depth > 4 ? 0 : int(0, 4)
      out[key] = Array.from({ length: n }, () => randomValue(field, depth))
      continue
    }
    const isMessage = field.resolvedType instanceof protobuf.Type
    if ((isSynthetic(field) || isMessage) && chance(0.4)) continue
    if (isMessage && depth > 5) continue
    if (!isSynthetic(field) && !isMessage && chance(0.05)) continue // undefined implicit field
    out[key] = randomValue(field, depth)
  }
  return out
}

const engine = ecs.Engine()
const lines = []
for (const [name, define] of Object.entries(ecs.componentDefinitionByName)) {
  const def = define(engine)
  const message = def.schema.jsonSchema.protocolBuffer
  if (!message) continue
  const type = root.lookupType('decentraland.sdk.components.' + message)
  for (let i = 0; i < count; i++) {
    exotic = false
    const input = JSON.parse(JSON.stringify(randomMessage(type, 0)))
    let bytes = null
    let output = null
    try {
      const buf = new ReadWriteByteBuffer()
      def.schema.serialize(input, buf)
      bytes = buf.toBinary()
      output = JSON.stringify(def.schema.deserialize(new ReadWriteByteBuffer(bytes)))
    } catch (e) {
      bytes = null
    }
    lines.push(
      JSON.stringify({
        component: name,
        id: def.componentId,
        input,
        exotic,
        bytes: bytes === null ? null : Buffer.from(bytes).toString('hex'),
        output
      })
    )
  }
}
process.stdout.write(lines.join('\n') + '\n')
