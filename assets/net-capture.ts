/**
 * scenetree capture module: records what this scene's multiplayer sync sends and receives, and
 * what it sends to its renderer, as `scenetree-net-capture/1` lines in the scene's log.
 *
 * Use: save as `src/net-capture.ts` and make `import './net-capture'` the FIRST line of
 * `src/index.ts`, then preview as usual and collect the scene log; `scenetree net import-log`
 * turns the logs of one or more players into one capture. It logs only in preview
 * (RealmInfo.isPreview), and only ticks where something crossed the scene's boundary.
 *
 * How: @dcl/sdk/network adds its network transport when it is imported, with a `sendBinary`
 * nobody can wrap afterwards. This module runs first: it replaces `engine.addTransport` so that
 * the first network transport added is its own (made here by `addSyncTransport` with a recording
 * `sendBinary`) and the copy @dcl/sdk/network adds later is dropped, and it wraps the `send` of
 * the renderer transport. The scene keeps importing syncEntity & co. from @dcl/sdk/network;
 * `isStateSyncronized` must come from this module (`import { isStateSyncronized } from
 * './net-capture'`), as the dropped copy never hears a state answer.
 *
 * Log line grammar (one console.log per line; ASCII only):
 *
 *   line    = "NETCAP " session " " record " " part "/" parts " " text
 *   session = 1*( DIGIT / a-z )   ; base-36 Date.now() when the scene started; new on reload
 *   record  = 1*DIGIT             ; 0 for the identity record, then 1, 2, … per logged tick
 *   part    = 1*DIGIT             ; 1 … parts
 *   parts   = 1*DIGIT
 *   text    = 1*4000 CHAR         ; the part-th slice of the record's JSON text
 *
 * Joining the texts of parts 1…parts of one (session, record), in part order, gives one JSON
 * object. Record 0 is `{"address":"0x…","name":"…"}`, this player's address and display name.
 * Every later record is one capture line of issue 47's format:
 *
 *   {"player":"0x…","tick":N,"received":["<base64>",…],"sent":[{"to":["0x…"],"data":"<base64>"},…],
 *    "renderer":"<base64>","t":<Date.now() in ms>}
 *
 * `tick` counts this scene's engine updates from 0; `received` are the items sendBinary
 * returned (`[u8 len][sender address][CommsMessage][payload]`), `sent` the items passed to it
 * (`to` empty = everyone), `renderer` the CRDT messages sent to the renderer in that update.
 * Non-ASCII characters in the JSON are written as \uXXXX escapes, so parts never split one.
 */
import { engine, RealmInfo, Transport } from '@dcl/sdk/ecs'
import { addSyncTransport } from '@dcl/sdk/network/message-bus-sync'
import { sendBinary, SendBinaryRequest, SendBinaryResponse } from '~system/CommunicationsController'
import { getUserData } from '~system/UserIdentity'

const PART_CHARS = 4000
const SESSION = Date.now().toString(36)

type SentItem = { to: string[]; data: string }
type TickRecord = { received: string[]; sent: SentItem[]; renderer: Uint8Array[] }

const BASE64 = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/'

// Scene runtimes have no btoa or Buffer, so base64 is written out here.
function base64(bytes: Uint8Array): string {
  let out = ''
  let i = 0
  for (; i + 2 < bytes.length; i += 3) {
    const n = (bytes[i] << 16) | (bytes[i + 1] << 8) | bytes[i + 2]
    out += BASE64[n >> 18] + BASE64[(n >> 12) & 63] + BASE64[(n >> 6) & 63] + BASE64[n & 63]
  }
  if (i + 1 === bytes.length) {
    const n = bytes[i] << 16
    out += BASE64[n >> 18] + BASE64[(n >> 12) & 63] + '=='
  } else if (i + 2 === bytes.length) {
    const n = (bytes[i] << 16) | (bytes[i + 1] << 8)
    out += BASE64[n >> 18] + BASE64[(n >> 12) & 63] + BASE64[(n >> 6) & 63] + '='
  }
  return out
}

function asciiJson(value: unknown): string {
  return JSON.stringify(value).replace(/[\u007f-\uffff]/g, (c) => '\\u' + ('000' + c.charCodeAt(0).toString(16)).slice(-4))
}

let recordNumber = 0
function logRecord(value: unknown): void {
  const text = asciiJson(value)
  const parts = Math.max(1, Math.ceil(text.length / PART_CHARS))
  for (let k = 0; k < parts; k++) {
    console.log(`NETCAP ${SESSION} ${recordNumber} ${k + 1}/${parts} ${text.slice(k * PART_CHARS, (k + 1) * PART_CHARS)}`)
  }
  recordNumber++
}

let current: TickRecord = { received: [], sent: [], renderer: [] }
let tick = 0
let me: { address: string; name: string } | undefined
let identityLogged = false
let waiting: { tick: number; received: string[]; sent: SentItem[]; renderer: string; t: number }[] = []

void getUserData({}).then(({ data }) => {
  if (data) me = { address: data.userId, name: data.displayName }
})

async function recordingSendBinary(request: SendBinaryRequest): Promise<SendBinaryResponse> {
  for (const item of request.data) current.sent.push({ to: [], data: base64(item) })
  for (const peer of request.peerData) {
    for (const item of peer.data) current.sent.push({ to: [...peer.address], data: base64(item) })
  }
  const response = await sendBinary(request)
  for (const item of response.data) current.received.push(base64(item))
  return response
}

function concat(chunks: Uint8Array[]): Uint8Array {
  let total = 0
  for (const c of chunks) total += c.byteLength
  const out = new Uint8Array(total)
  let at = 0
  for (const c of chunks) {
    out.set(c, at)
    at += c.byteLength
  }
  return out
}

// Called once per engine update, after the renderer transport (added after this module's
// network transport) has sent: everything of this tick has crossed by then.
function endTick(): void {
  const record = current
  current = { received: [], sent: [], renderer: [] }
  const thisTick = tick++
  if (!RealmInfo.getOrNull(engine.RootEntity)?.isPreview) return
  const renderer = concat(record.renderer)
  if (!record.received.length && !record.sent.length && !renderer.byteLength) return
  waiting.push({ tick: thisTick, received: record.received, sent: record.sent, renderer: base64(renderer), t: Date.now() })
  // The address comes from getUserData, which answers before the first update in every explorer;
  // ticks are held back rather than lost should it ever answer later.
  if (!me) return
  if (!identityLogged) {
    logRecord(me)
    identityLogged = true
  }
  for (const w of waiting) logRecord({ player: me.address, ...w })
  waiting = []
}

const addTransport = engine.addTransport
let networkTransportAdded = false
engine.addTransport = (transport: Transport): void => {
  if (transport.type === 'network') {
    if (networkTransportAdded) return
    networkTransportAdded = true
  } else if (transport.type === 'renderer') {
    const send = transport.send
    transport.send = async (message: Uint8Array | Uint8Array[]): Promise<void> => {
      for (const m of Array.isArray(message) ? message : [message]) current.renderer.push(new Uint8Array(m))
      await send.call(transport, message)
      endTick()
    }
  }
  addTransport(transport)
}

const net = addSyncTransport(engine, recordingSendBinary, getUserData)

/** This module's own sync state: true once a state answer arrived (or nobody could answer). */
export const isStateSyncronized = net.isStateSyncronized
