// Instances a main.composite on @dcl/ecs (entity numbers kept, as the Inspector loads a scene)
// and writes the main.crdt the SDK would write for it (timestamp 0, components in definition
// order). This is the reference for what scenetree's composite reader must produce.
// Usage: node composite-to-crdt.cjs IN.composite OUT.crdt
'use strict'
const fs = require('fs')
const { ecs, dumpAsSdk } = require('./lib-scene.cjs')

const [input, output] = process.argv.slice(2)
if (!input || !output) throw new Error('usage: node composite-to-crdt.cjs IN.composite OUT.crdt')
const engine = ecs.Engine()
const composite = ecs.Composite.fromJson(JSON.parse(fs.readFileSync(input, 'utf8')))
ecs.Composite.instance(
  engine,
  { src: 'main.composite', composite },
  { getCompositeOrNull: () => null },
  { entityMapping: { type: ecs.EntityMappingMode.EMM_DIRECT_MAPPING, getCompositeEntity: (e) => e } }
)
fs.writeFileSync(output, dumpAsSdk(engine))
