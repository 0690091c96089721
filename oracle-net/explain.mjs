#!/usr/bin/env node
// Prints a capture decoded, one block per player tick: what arrived (sender, CommsMessage, CRDT
// messages), what went out and what the renderer got (Transform parents spelled out). For
// reading captures and checking the README's account of the scenarios; nothing depends on it.
//
//   node oracle-net/explain.mjs CAPTURE.jsonl [--player NAME] [--all]   (--all: empty ticks too)
import fs from 'node:fs'
import { parseArgs } from 'node:util'
import { COMPONENT, COMMS, CRDT, networkIdOf, readMessages, transformParent, unb64 } from './lib/wire.mjs'

process.stdout.on('error', (e) => process.exit(e.code === 'EPIPE' ? 0 : 1))
const { values, positionals } = parseArgs({ allowPositionals: true, options: { player: { type: 'string' }, all: { type: 'boolean' } } })
if (positionals.length !== 1) {
  process.stderr.write('usage: node oracle-net/explain.mjs CAPTURE.jsonl [--player NAME] [--all]\n')
  process.exit(2)
}
const lines = fs.readFileSync(positionals[0], 'utf8').trimEnd().split('\n').map((l) => JSON.parse(l))
const header = lines.shift()
const nameOf = new Map(header.players.map((p) => [p.address, p.name]))
const netName = new Map(header.players.map((p) => [networkIdOf(p.address), p.name]))
netName.set(0, 'static')
const componentName = new Map(Object.entries(COMPONENT).map(([k, v]) => [v, k]))
const typeName = new Map(Object.entries(CRDT).map(([k, v]) => [v, k]))
const commsName = new Map(Object.entries(COMMS).map(([k, v]) => [v, k]))
const entity = (e) => (e >>> 16 ? `${e & 0xffff}v${e >>> 16}` : `${e}`)

function describeNetwork(bytes) {
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength)
  const out = []
  let at = 0
  while (at + 8 <= bytes.byteLength) {
    const length = view.getUint32(at, true)
    const type = view.getUint32(at + 4, true)
    const u = (k) => view.getUint32(at + 8 + 4 * k, true)
    let text = `${typeName.get(type) ?? type}(len ${length})`
    if (type === CRDT.PUT_NET) {
      const c = u(1)
      text += ` ${netName.get(u(3)) ?? u(3)}:${entity(u(0))} ${componentName.get(c) ?? c} t=${u(2)}`
      if (c === COMPONENT.Transform) text += ` parent=${entity(transformParent(bytes.subarray(at + 28, at + 28 + u(4))))}`
      if (c === COMPONENT.NetworkParent || c === COMPONENT.NetworkEntity) {
        const d = new DataView(bytes.buffer, bytes.byteOffset + at + 28)
        const net = Number(d.getBigUint64(0, true))
        text += ` → ${netName.get(net) ?? net}:${entity(d.getUint32(8, true))}`
      }
    } else if (type === CRDT.DELETE_COMPONENT_NET) {
      text += ` ${netName.get(u(3)) ?? u(3)}:${entity(u(0))} ${componentName.get(u(1)) ?? u(1)} t=${u(2)}`
    } else if (type === CRDT.DELETE_ENTITY_NET) {
      text += ` ${netName.get(u(1)) ?? u(1)}:${entity(u(0))}`
    }
    out.push(text)
    at += type === CRDT.DELETE_ENTITY_NET ? 16 : length
  }
  return out
}

function describeItem(bytes, inbound) {
  let at = 0
  let who = ''
  if (inbound) {
    const n = bytes[0]
    who = nameOf.get(new TextDecoder().decode(bytes.subarray(1, 1 + n))) ?? '?'
    at = 1 + n
  }
  const kind = bytes[at]
  let payload = bytes.subarray(at + 1)
  let extra = ''
  if (kind === COMMS.RES_CRDT_STATE) {
    const n = payload[0]
    extra = ` for ${nameOf.get(new TextDecoder().decode(payload.subarray(1, 1 + n))) ?? '?'}`
    payload = payload.subarray(1 + n)
  }
  const head = `${inbound ? `from ${who} ` : ''}${commsName.get(kind) ?? kind}${extra}`
  return kind === COMMS.REQ_CRDT_STATE ? [head] : [head, ...describeNetwork(payload).map((t) => '    ' + t)]
}

function describeRenderer(bytes) {
  return readMessages(bytes).map((m) => {
    let text = `${typeName.get(m.type)} e=${entity(m.entity)}`
    if (m.component !== undefined) text += ` ${componentName.get(m.component) ?? m.component} t=${m.timestamp}`
    if (m.type === CRDT.PUT && m.component === COMPONENT.Transform) text += ` parent=${entity(transformParent(m.data))}`
    return text
  })
}

for (const line of lines) {
  const name = nameOf.get(line.player)
  if (values.player && values.player !== name) continue
  const renderer = line.renderer ? unb64(line.renderer) : new Uint8Array()
  if (!values.all && !line.received.length && !line.sent.length && !renderer.byteLength) continue
  const out = [`${name} tick ${line.tick} (t=${line.t})`]
  for (const r of line.received) out.push(...describeItem(unb64(r), true).map((t) => '  recv ' + t))
  for (const s of line.sent) out.push(...describeItem(unb64(s.data), false).map((t) => `  sent${s.to.length ? ' to ' + s.to.map((a) => nameOf.get(a)).join(',') : ''} ` + t))
  for (const r of describeRenderer(renderer)) out.push('  rend ' + r)
  process.stdout.write(out.join('\n') + '\n')
}
