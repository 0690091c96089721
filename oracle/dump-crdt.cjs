// Prints what @dcl/ecs sees in a main.crdt: every entity holding a Transform, a Name, a
// MeshRenderer or a GltfContainer, as one JSON list sorted by entity id:
//   { "entity": 512, "name": "Lamp" | null,
//     "transform": { "position": {x,y,z}, "rotation": {x,y,z,w}, "scale": {x,y,z}, "parent": 0 } | null,
//     "mesh": "box" | "sphere" | "cylinder" | "plane" | "none" | null, "gltf": "assets/…glb" | null }
// Usage: node dump-crdt.cjs FILE.crdt
'use strict'
const fs = require('fs')
const { makeEngine, loadCrdt } = require('./lib-scene.cjs')

async function main() {
  const file = process.argv[2]
  if (!file) throw new Error('usage: node dump-crdt.cjs FILE.crdt')
  const { engine, defs } = makeEngine()
  await loadCrdt(engine, fs.readFileSync(file))
  const rows = new Map()
  const row = (e) => {
    if (!rows.has(e)) rows.set(e, { entity: e, name: null, transform: null, mesh: null, gltf: null })
    return rows.get(e)
  }
  for (const [e, t] of engine.getEntitiesWith(defs.Transform)) {
    row(e).transform = {
      position: { ...t.position },
      rotation: { ...t.rotation },
      scale: { ...t.scale },
      parent: t.parent ?? 0
    }
  }
  for (const [e, n] of engine.getEntitiesWith(defs.Name)) row(e).name = n.value
  for (const [e, m] of engine.getEntitiesWith(defs.MeshRenderer)) row(e).mesh = m.mesh?.$case ?? 'none'
  for (const [e, g] of engine.getEntitiesWith(defs.GltfContainer)) row(e).gltf = g.src
  const list = [...rows.values()].sort((a, b) => a.entity - b.entity)
  process.stdout.write(JSON.stringify(list) + '\n')
}

main().catch((e) => {
  console.error(e && e.stack ? e.stack : String(e))
  process.exit(1)
})
