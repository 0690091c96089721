// The capture module's log lines: reassembling them (the grammar in assets/net-capture.ts) and
// writing them as each explorer prints a scene's console.log, for the fixtures of
// `scenetree net import-log`.
import fs from 'node:fs'
import path from 'node:path'

const LINE = /^NETCAP ([0-9a-z]+) (\d+) (\d+)\/(\d+) (.*)$/s

/**
 * The records of the NETCAP lines among `lines` (what the scene passed to console.log), each
 * parsed as JSON, in record order per session, sessions in order of appearance. Other lines are
 * skipped. Throws on a part out of order, a missing part or a record that is not JSON.
 */
export function parseNetcapLines(lines) {
  const sessions = new Map()
  for (const line of lines) {
    const m = LINE.exec(line)
    if (!m) continue
    const [, session, record, part, parts, text] = m
    if (!sessions.has(session)) sessions.set(session, new Map())
    const records = sessions.get(session)
    if (!records.has(record)) records.set(record, { parts: Number(parts), texts: [] })
    const r = records.get(record)
    if (Number(parts) !== r.parts) throw new Error(`record ${record}: part ${part} says ${parts} parts, an earlier one ${r.parts}`)
    if (Number(part) !== r.texts.length + 1) throw new Error(`record ${record}: part ${part} after part ${r.texts.length}`)
    r.texts.push(text)
  }
  const out = []
  for (const [session, records] of sessions) {
    const ordered = [...records].sort((a, b) => Number(a[0]) - Number(b[0]))
    ordered.forEach(([record, r], k) => {
      if (Number(record) !== k) throw new Error(`session ${session}: record ${k} is missing`)
      if (r.texts.length !== r.parts) throw new Error(`session ${session} record ${record}: ${r.texts.length} of ${r.parts} parts`)
      out.push(JSON.parse(r.texts.join('')))
    })
  }
  return out
}

// A fixed clock origin, so fixtures are the same on every run: the oracle's `t` is milliseconds
// of simulated time from it.
const ORIGIN_MS = Date.UTC(2026, 8, 15, 10, 0, 0)
const hhmmss = (t) => new Date(ORIGIN_MS + t).toISOString().slice(11, 19)
const iso = (t) => new Date(ORIGIN_MS + t).toISOString().replace('Z', '000Z')

/** How each explorer prints `console.log(line)` of a scene; `t` = ms since the session began. */
export const EXPLORERS = {
  // godot-explorer Scene Inspector file (--scene-inspector-file): one JSON entry a line; the
  // console message is op_log's argument, "LOG " + the JSON text of the logged string.
  godot: {
    file: (name) => `godot-scene-inspector-${name}.jsonl`,
    head: (player) => [
      JSON.stringify({ type: 'session_start', session_id: `oracle-${player.name}`, timestamp_ms: ORIGIN_MS, version: 'fixture', platform: 'linux' }),
      JSON.stringify({ type: 'op_call_start', call_id: 0, scene_id: 1, timestamp_ms: ORIGIN_MS, op_name: 'op_log', args: 'LOG "scene started"' })
    ],
    line: (line, t) => JSON.stringify({ type: 'op_call_start', call_id: 0, scene_id: 1, timestamp_ms: ORIGIN_MS + t, op_name: 'op_log', args: 'LOG ' + JSON.stringify(line) })
  },
  // bevy-explorer --scene_log_to_console: a tracing INFO line "[<base parcel> <seconds since the
// scene started>] LOG <JSON text>".
  bevy: {
    file: (name) => `bevy-stdout-${name}.log`,
    head: () => [
      `${iso(0)}  INFO scene_runner::initialize_scene: 0v1: started scene (location: IVec2(0, 0), scene thread id: 1, is sdk7: true)`,
      `${iso(0)}  INFO scene_runner::renderer_context: [[0, 0] 0.00] LOG "scene started"`
    ],
    line: (line, t, player) =>
      `${iso(t)}  INFO scene_runner::renderer_context: [[0, 0] ${((t - (player.startedAt ?? 0)) / 1000).toFixed(2)}] LOG ${JSON.stringify(line)}`
  },
  // The Unity explorer's Scene Debug Console, Copy All: "[HH:mm:ss] [Log] SceneLog: " + the
  // logged string, not escaped.
  unityConsole: {
    file: (name) => `unity-console-${name}.txt`,
    head: () => [`[${hhmmss(0)}] [Log] Starting loading http://127.0.0.1:8000/content/contents/b64-fixture`, `[${hhmmss(0)}] [Log] SceneLog: scene started`],
    line: (line, t) => `[${hhmmss(t)}] [Log] SceneLog: ${line}`
  }
}

/**
 * For every player of `session`, its module lines (`logs`: address → [{line, t}]) as each
 * explorer prints them, plus the Unity MCP `get_scene_logs` answers (pages of 100 entries,
 * polled with sinceSeq, each page "latestSeq=N returned=M" then "#<seq> <message>" lines):
 * [{player, kind, file, text}].
 */
export function explorerLogs(session, logs) {
  const out = []
  for (const player of session.players) {
    const entries = logs.get(player.address) ?? []
    for (const [kind, explorer] of Object.entries(EXPLORERS)) {
      const text = [...explorer.head(player), ...entries.map((e) => explorer.line(e.line, e.t, player))].join('\n') + '\n'
      out.push({ player, kind, file: explorer.file(player.name), text })
    }
    const messages = [...EXPLORERS.unityConsole.head(), ...entries.map((e) => EXPLORERS.unityConsole.line(e.line, e.t))]
    const pages = []
    for (let from = 0; from < messages.length; from += 100) {
      const page = messages.slice(from, from + 100)
      pages.push([`latestSeq=${from + page.length - 1} returned=${page.length}`, ...page.map((m, k) => `#${from + k} ${m}`)].join('\n'))
    }
    out.push({ player, kind: 'unityMcp', file: `unity-mcp-get_scene_logs-${player.name}.txt`, text: pages.join('\n') + '\n' })
  }
  return out
}

export function writeExplorerLogs(dir, session, logs) {
  fs.mkdirSync(dir, { recursive: true })
  for (const { file, text } of explorerLogs(session, logs)) fs.writeFileSync(path.join(dir, file), text)
}

/** The inverse of EXPLORERS' wrapping, for the check: the console strings found in `text`. */
export function unwrapExplorerLog(kind, text) {
  const lines = text.split('\n').filter((l) => l.length)
  switch (kind) {
    case 'godot':
      return lines
        .map((l) => JSON.parse(l))
        .filter((e) => e.type === 'op_call_start' && e.op_name === 'op_log' && typeof e.args === 'string' && e.args.startsWith('LOG '))
        .map((e) => JSON.parse(e.args.slice(4)))
    case 'bevy':
      return lines
        .map((l) => /\] LOG (".*")$/.exec(l))
        .filter(Boolean)
        .map((m) => JSON.parse(m[1]))
    case 'unityConsole':
    case 'unityMcp':
      return lines
        .map((l) => /SceneLog: (.*)$/.exec(l))
        .filter(Boolean)
        .map((m) => m[1])
    default:
      throw new Error(`unknown explorer ${kind}`)
  }
}
