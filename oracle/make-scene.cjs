// Writes a small scene through @dcl/ecs's own API, so tests have files written by the
// reference runtime itself (not by scenetree, not by hand):
//   OUT_DIR/scene.crdt       the engine's CRDT state with real timestamps (PUTs, a
//                            DELETE_COMPONENT tombstone, then a DELETE_ENTITY)
//   OUT_DIR/scene.composite  the same scene as the Inspector's JSON, one value as "binary"
// The output is deterministic: running it twice gives the same bytes.
// Usage: node make-scene.cjs OUT_DIR
'use strict'
const fs = require('fs')
const path = require('path')
const { ecs, makeEngine, dumpState, ReadWriteByteBuffer } = require('./lib-scene.cjs')
const crdt = require('@dcl/ecs/dist-cjs/serialization/crdt/index.js')

const out = process.argv[2]
if (!out) throw new Error('usage: node make-scene.cjs OUT_DIR')

// A rotation of `deg` degrees about the Y axis (x, y, z, w).
const yaw = (deg) => {
  const h = (deg * Math.PI) / 360
  return { x: 0, y: Math.sin(h), z: 0, w: Math.cos(h) }
}

async function main() {
  const { engine, defs } = makeEngine()
  const { Transform, Name, MeshRenderer, GltfContainer } = defs
  const Material = ecs.components.Material(engine)
  const Tag = engine.defineComponent('scenetree::Tag', {
    label: ecs.Schemas.String,
    weight: ecs.Schemas.Float,
    counts: ecs.Schemas.Array(ecs.Schemas.Int),
    flag: ecs.Schemas.Optional(ecs.Schemas.Boolean),
    tint: ecs.Schemas.Color4,
    target: ecs.Schemas.Entity,
    shape: ecs.Schemas.OneOf({ round: ecs.Schemas.Float, named: ecs.Schemas.String })
  })

  const floor = engine.addEntity()
  Transform.create(floor, { position: { x: 8, y: 0, z: 8 }, scale: { x: 16, y: 16, z: 1 },
    rotation: { x: Math.SQRT1_2, y: 0, z: 0, w: Math.SQRT1_2 } })
  Name.create(floor, { value: 'Floor' })
  MeshRenderer.setPlane(floor, [0, 0, 1, 0, 1, 1, 0, 1, 0, 0, 1, 0, 1, 1, 0, 1])
  Material.setPbrMaterial(floor, { albedoColor: { r: 0.2, g: 0.6, b: 0.2, a: 1 } })

  const table = engine.addEntity()
  Transform.create(table, { position: { x: 4, y: 0.5, z: 4 }, rotation: yaw(45), scale: { x: 2, y: 1, z: 1 } })
  Name.create(table, { value: 'Table' })
  MeshRenderer.setBox(table)
  Tag.create(table, { label: 'furniture', weight: 12.5, counts: [1, -2, 3], flag: false,
    tint: { r: 1, g: 0.5, b: 0.25, a: 1 }, target: floor, shape: { $case: 'round', value: 0.75 } })

  const lamp = engine.addEntity()
  Transform.create(lamp, { position: { x: 0, y: 1, z: 0 }, parent: table })
  Name.create(lamp, { value: 'Lamp ✨' })
  MeshRenderer.setSphere(lamp)

  const pillar = engine.addEntity()
  Transform.create(pillar, { position: { x: 12, y: 1.5, z: 12 }, scale: { x: 1, y: 3, z: 1 } })
  Name.create(pillar, { value: 'Pillar' })
  MeshRenderer.setCylinder(pillar, 0.25, 1)
  Tag.create(pillar, { label: 'stone', weight: 0, counts: [], tint: { r: 0, g: 0, b: 0, a: 0 },
    target: 0, shape: { $case: 'named', value: 'column' } })

  const tree = engine.addEntity()
  Transform.create(tree, { position: { x: 0, y: 1.5, z: 0 }, rotation: yaw(-30), parent: pillar })
  Name.create(tree, { value: 'Tree' })
  GltfContainer.create(tree, { src: 'assets/models/tree.glb', visibleMeshesCollisionMask: 0,
    invisibleMeshesCollisionMask: 3 })

  const ghost = engine.addEntity()
  Transform.create(ghost, { position: { x: 1, y: 2, z: 3 } })
  Name.create(ghost, { value: 'Ghost' })
  await engine.update(1)

  // Edits after the first tick bump timestamps; one component removal leaves a tombstone.
  Name.getMutable(table).value = 'Big table'
  Transform.getMutable(lamp).position.y = 1.25
  MeshRenderer.deleteFrom(pillar)
  MeshRenderer.setCylinder(pillar, 0.25, 1)
  Tag.deleteFrom(pillar)
  engine.removeEntity(ghost)
  await engine.update(1)

  fs.mkdirSync(out, { recursive: true })
  const stream = new ReadWriteByteBuffer()
  stream.writeBuffer(dumpState(engine), false)
  crdt.DeleteEntity.write(ghost, stream)
  fs.writeFileSync(path.join(out, 'scene.crdt'), stream.toBinary())

  // The Inspector's composite writer (dumpEngineToComposite), values as JSON; the table's
  // Tag is written as "binary" to cover that form.
  const components = []
  for (const def of engine.componentsIter()) {
    const data = new Map()
    for (const [entity, value] of engine.getEntitiesWith(def)) {
      if (def.componentName === 'scenetree::Tag' && entity === table) {
        const buf = new ReadWriteByteBuffer()
        def.schema.serialize(value, buf)
        data.set(entity, { data: { $case: 'binary', binary: buf.toBinary() } })
      } else {
        data.set(entity, { data: { $case: 'json', json: JSON.parse(JSON.stringify(value)) } })
      }
    }
    if (data.size > 0) components.push({ name: def.componentName, jsonSchema: def.schema.jsonSchema, data })
  }
  const json = ecs.Composite.toJson({ version: 1, components })
  fs.writeFileSync(path.join(out, 'scene.composite'), JSON.stringify(json, null, 2))
}

main().catch((e) => {
  console.error(e && e.stack ? e.stack : String(e))
  process.exit(1)
})
