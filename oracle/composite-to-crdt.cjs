// Instances a main.composite on @dcl/ecs (entity numbers kept, as the Inspector loads a scene)
// and writes the main.crdt the SDK would write for it (timestamp 0, components in definition
// order). This is the reference for what scenetree's composite reader must produce.
// Usage: node composite-to-crdt.cjs IN.composite OUT.crdt
'use strict'
const fs = require('fs')
const { dumpAsSdk, instanceComposite } = require('./lib-scene.cjs')

const [input, output] = process.argv.slice(2)
if (!input || !output) throw new Error('usage: node composite-to-crdt.cjs IN.composite OUT.crdt')
fs.writeFileSync(output, dumpAsSdk(instanceComposite(input)))
