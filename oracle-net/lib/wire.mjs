// Byte helpers of the host: the comms framing the explorers put around the SDK's items, the first
// renderer state, the networkId of an address and a reader of renderer-bound CRDT messages.
// Component encodings come from @dcl/ecs itself (dist-cjs), never from hand-written schemas.
import { createRequire } from 'node:module'

const require = createRequire(import.meta.url)
const ecs = require('@dcl/ecs/dist-cjs/index.js')
const { ReadWriteByteBuffer } = require('@dcl/ecs/dist-cjs/serialization/ByteBuffer/index.js')
const { componentNumberFromName } = require('@dcl/ecs/dist-cjs/components/component-number.js')

export const SDK_VERSION = '7.28.0'
export const COMPONENT = {
  Transform: ecs.Transform.componentId,
  MeshRenderer: ecs.MeshRenderer.componentId,
  RealmInfo: ecs.RealmInfo.componentId,
  PlayerIdentityData: ecs.PlayerIdentityData.componentId,
  NetworkEntity: ecs.NetworkEntity.componentId,
  NetworkParent: ecs.NetworkParent.componentId,
  SyncComponents: ecs.SyncComponents.componentId
}
export const CRDT = { PUT: 1, DELETE_COMPONENT: 2, DELETE_ENTITY: 3, APPEND: 4, PUT_NET: 5, DELETE_COMPONENT_NET: 6, DELETE_ENTITY_NET: 7 }
export const COMMS = { CRDT: 1, REQ_CRDT_STATE: 2, RES_CRDT_STATE: 3 }

/** The networkId the SDK gives a player: @dcl/ecs's own componentNumberFromName of the address. */
export const networkIdOf = (address) => componentNumberFromName(address)

export const b64 = (bytes) => Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength).toString('base64')
export const unb64 = (text) => new Uint8Array(Buffer.from(text, 'base64'))

export function concat(chunks) {
  const total = chunks.reduce((n, c) => n + c.byteLength, 0)
  const out = new Uint8Array(total)
  let at = 0
  for (const c of chunks) {
    out.set(c, at)
    at += c.byteLength
  }
  return out
}

/** An item as a receiving scene gets it from `sendBinary`: `[u8 len][sender address][CommsMessage][payload]`. */
export function inboundItem(senderAddress, item) {
  const address = new TextEncoder().encode(senderAddress)
  if (address.byteLength > 255) throw new Error(`address longer than 255 bytes: ${senderAddress}`)
  return concat([Uint8Array.of(address.byteLength), address, item])
}

function putMessage(entity, component, value, timestamp) {
  const data = new ReadWriteByteBuffer()
  component.schema.serialize(value, data)
  const out = new ReadWriteByteBuffer()
  ecs.PutComponentOperation.write(entity, timestamp, component.componentId, data.toBinary(), out)
  return out.toCopiedBinary()
}

/**
 * What the fake renderer answers to `crdtGetState`: RealmInfo{isConnectedSceneRoom: true} on the
 * root entity (else the SDK never asks for the state) and the player's PlayerIdentityData on
 * entity 1 (the SDK's PlayerEntity).
 */
export function initialRendererState(address) {
  return concat([
    putMessage(
      0,
      ecs.RealmInfo,
      { baseUrl: 'http://127.0.0.1', realmName: 'scenetree-oracle-net', networkId: 0, commsAdapter: 'fake-bus', isPreview: true, isConnectedSceneRoom: true },
      1
    ),
    putMessage(1, ecs.PlayerIdentityData, { address, isGuest: false }, 1)
  ])
}

/** Splits concatenated CRDT messages by their declared lengths ({type, entity, component?, data?}). */
export function readMessages(bytes) {
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength)
  const out = []
  let at = 0
  while (at + 8 <= bytes.byteLength) {
    const length = view.getUint32(at, true)
    const type = view.getUint32(at + 4, true)
    if (length < 8 || at + length > bytes.byteLength) throw new Error(`bad CRDT message length ${length} at byte ${at}`)
    const message = { type, entity: view.getUint32(at + 8, true) }
    if (type === CRDT.PUT || type === CRDT.APPEND) {
      message.component = view.getUint32(at + 12, true)
      message.timestamp = view.getUint32(at + 16, true)
      const n = view.getUint32(at + 20, true)
      message.data = bytes.subarray(at + 24, at + 24 + n)
    } else if (type === CRDT.DELETE_COMPONENT) {
      message.component = view.getUint32(at + 12, true)
      message.timestamp = view.getUint32(at + 16, true)
    }
    out.push(message)
    at += length
  }
  if (at !== bytes.byteLength) throw new Error(`${bytes.byteLength - at} trailing bytes after the last CRDT message`)
  return out
}

/** The parent field of a serialized Transform (position, rotation, scale: 10 f32, then u32 parent). */
export const transformParent = (data) => new DataView(data.buffer, data.byteOffset, data.byteLength).getUint32(40, true)

/**
 * What a renderer holds after applying `messages` in order: entity → {component → data}. A
 * renderer keeps the last PUT it got (it does no LWW of its own), drops a component on
 * DELETE_COMPONENT and the whole entity on DELETE_ENTITY.
 */
export function applyToRenderer(held, messages) {
  for (const m of messages) {
    if (m.type === CRDT.PUT) {
      if (!held.has(m.entity)) held.set(m.entity, new Map())
      held.get(m.entity).set(m.component, m.data)
    } else if (m.type === CRDT.DELETE_COMPONENT) {
      held.get(m.entity)?.delete(m.component)
    } else if (m.type === CRDT.DELETE_ENTITY) {
      held.delete(m.entity)
    }
  }
  return held
}
