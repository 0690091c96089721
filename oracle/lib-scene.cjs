// Shared helpers of the scene oracle scripts: load @dcl/ecs, read a main.crdt into an
// engine the way a scene receives its initial state, and write engine state as the SDK does.
'use strict'
const ecs = require('@dcl/ecs/dist-cjs/index.js')
const { ReadWriteByteBuffer } = require('@dcl/ecs/dist-cjs/serialization/ByteBuffer/index.js')
const crdt = require('@dcl/ecs/dist-cjs/serialization/crdt/index.js')

/** A fresh engine with the components scenetree decodes defined. */
function makeEngine() {
  const engine = ecs.Engine()
  const defs = {
    Transform: ecs.components.Transform(engine),
    Name: ecs.components.Name(engine),
    MeshRenderer: ecs.components.MeshRenderer(engine),
    GltfContainer: ecs.components.GltfContainer(engine)
  }
  return { engine, defs }
}

/** Delivers a whole CRDT stream to the engine through a transport, as the runtime delivers a
 *  scene's main.crdt, and runs one tick so the engine applies it. */
async function loadCrdt(engine, bytes) {
  const transport = { type: 'scenetree-file', filter: () => false, send: async () => {} }
  engine.addTransport(transport)
  transport.onmessage(new Uint8Array(bytes))
  await engine.update(1)
}

/** The SDK's main.crdt writer (the Inspector's dumpEngineToCrdtCommands): one PUT per value,
 *  timestamp 0, components in definition order, entities in the engine's order. */
function dumpAsSdk(engine) {
  const value = new ReadWriteByteBuffer()
  const out = new ReadWriteByteBuffer()
  for (const def of engine.componentsIter()) {
    for (const [entity, v] of engine.getEntitiesWith(def)) {
      value.resetBuffer()
      def.schema.serialize(v, value)
      crdt.PutComponentOperation.write(entity, 0, def.componentId, value.toBinary(), out)
    }
  }
  return out.toBinary()
}

/** The engine's CRDT state with real timestamps: each component's dumpCrdtStateToBuffer, in
 *  definition order. */
function dumpState(engine) {
  const out = new ReadWriteByteBuffer()
  for (const def of engine.componentsIter()) def.dumpCrdtStateToBuffer(out)
  return out.toBinary()
}

/** A fresh engine holding a main.composite, entity numbers kept (as the Inspector loads a
 *  scene). */
function instanceComposite(path) {
  const fs = require('fs')
  const engine = ecs.Engine()
  const composite = ecs.Composite.fromJson(JSON.parse(fs.readFileSync(path, 'utf8')))
  ecs.Composite.instance(
    engine,
    { src: 'main.composite', composite },
    { getCompositeOrNull: () => null },
    { entityMapping: { type: ecs.EntityMappingMode.EMM_DIRECT_MAPPING, getCompositeEntity: (e) => e } }
  )
  return engine
}

module.exports = { ecs, makeEngine, loadCrdt, dumpAsSdk, dumpState, instanceComposite, ReadWriteByteBuffer }
