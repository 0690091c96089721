// The Decentraland Inspector's bookkeeping of inspector::Nodes, run on @dcl/ecs: the reference
// for scenetree's editor (src/editor/inspector.rs). The helpers below are transcribed from the
// Inspector's source (decentraland/creator-hub, packages/inspector/src/lib/sdk/nodes.ts and
// operations/{add-child,set-parent,remove-entity,duplicate-entity,reorder}.ts and hooks/sdk/useTree.ts, Apache-2.0), keeping
// their logic and order; only the entity numbers of new entities are given by the caller, so
// both sides name them alike.
// Usage: node inspector-nodes.cjs IN.composite OPS.json > nodes.json
//   OPS: [{"op": "create", "parent": P, "entity": NEW}, {"op": "reparent", "entity": E, "parent": P},
//         {"op": "delete", "entity": E}, {"op": "duplicate", "entity": E, "copies": {"orig": copy, …}},
//         {"op": "reorder", "entity": E, "parent": P, "after": SIBLING or null for first},
//         {"op": "rebuild"}: Nodes set to buildNodesHierarchy's value (data-layer/host/utils/
//         migrations/build-nodes-hierarchy.ts), what scenetree's repair writes]
//   prints the final inspector::Nodes value (JSON).
'use strict'
const fs = require('fs')
const { ecs, instanceComposite } = require('./lib-scene.cjs')

const [input, opsPath] = process.argv.slice(2)
const engine = instanceComposite(input)
const Transform = engine.getComponent('core::Transform')
// A scene the Inspector never saved has no Nodes; only `rebuild` runs on it.
const Nodes = engine.getComponentOrNull('inspector::Nodes')
const ROOT = engine.RootEntity

// nodes.ts
const cleanPush = (list, value) => Array.from(new Set(list).add(value))
const getNodes = () => Nodes?.getOrNull(ROOT)?.value || []
const filterChild = (parent, child) => ({ ...parent, children: parent.children.filter(($) => $ !== child) })
function removeNode(entity) {
  const newValue = []
  for (const $ of getNodes()) {
    if ($.entity === entity) continue
    newValue.push(filterChild($, entity))
  }
  return newValue
}
function pushChildToNodes(nodes, parent, child) {
  const newValue = []
  let alreadyInNodes = false
  for (const $ of nodes) {
    if ($.entity === parent) newValue.push({ ...$, children: cleanPush($.children, child) })
    else newValue.push($)
    alreadyInNodes ||= $.entity === child
  }
  return alreadyInNodes ? newValue : [...newValue, { entity: child, children: [] }]
}
function insertChildAfterInNodes(nodes, parent, child, afterEntity) {
  const newValue = []
  let alreadyInNodes = false
  for (const $ of nodes) {
    if ($.entity === parent) {
      if ($.children.includes(child)) newValue.push($)
      else {
        const afterIdx = $.children.indexOf(afterEntity)
        if (afterIdx >= 0) {
          const newChildren = [...$.children]
          newChildren.splice(afterIdx + 1, 0, child)
          newValue.push({ ...$, children: newChildren })
        } else newValue.push({ ...$, children: [...$.children, child] })
      }
    } else newValue.push($)
    alreadyInNodes ||= $.entity === child
  }
  return alreadyInNodes ? newValue : [...newValue, { entity: child, children: [] }]
}
function removeChild(parent, child) {
  return getNodes().map(($) => ($.entity === parent ? filterChild($, child) : $))
}

// operations
function addChild(parent, child) {
  Transform.create(child, { parent })
  Nodes.createOrReplace(ROOT, { value: pushChildToNodes(getNodes(), parent, child) })
}
function setParent(entity, parent) {
  const currentParent = Transform.getOrNull(entity)?.parent
  if (currentParent === parent) return
  Transform.createOrReplace(entity, { ...Transform.get(entity), parent })
  if (currentParent !== undefined) Nodes.createOrReplace(ROOT, { value: removeChild(currentParent, entity) })
  Nodes.createOrReplace(ROOT, { value: pushChildToNodes(getNodes(), parent, entity) })
}
function removeEntity(entity) {
  for (const e of ecs.getComponentEntityTree(engine, entity, Transform)) {
    Nodes.createOrReplace(ROOT, { value: removeNode(e) })
    for (const component of engine.componentsIter()) {
      if (component.has(e) && component.componentType === 0) component.deleteFrom(e)
    }
  }
}
// reorder.ts, after useTree's drop: the source goes right after the target among parent's
// children (first when the target is the parent itself).
function reorder(source, target, parent) {
  const nodes = JSON.parse(JSON.stringify(getNodes()))
  const parentNode = nodes.find(($) => $.entity === parent)
  const sourceIdx = parentNode.children.findIndex(($) => $ === source)
  const targetIdx = parentNode.children.findIndex(($) => $ === target)
  const adjustment = targetIdx + (sourceIdx > targetIdx ? 1 : 0)
  const position = Math.max(0, target === parent ? 0 : adjustment)
  if (sourceIdx >= 0) parentNode.children.splice(position, 0, parentNode.children.splice(sourceIdx, 1)[0])
  Nodes.createOrReplace(ROOT, { value: nodes })
}
function duplicateEntity(entity, copies) {
  // asset-packs' clone: the subtree children first, each copied with every component.
  const entities = new Map()
  for (const original of ecs.getComponentEntityTree(engine, entity, Transform)) {
    const cloned = copies[original]
    for (const component of engine.componentsIter()) {
      if (component.has(original) && component.componentType === 0 && component !== Nodes) {
        component.createOrReplace(cloned, JSON.parse(JSON.stringify(component.get(original))))
      }
    }
    entities.set(original, cloned)
  }
  for (const cloned of Array.from(entities.values()).reverse()) {
    const t = Transform.getMutableOrNull(cloned)
    if (t && t.parent && entities.get(t.parent)) t.parent = entities.get(t.parent)
  }
  let newNodes = getNodes()
  for (const [original, duplicate] of Array.from(entities.entries()).reverse()) {
    const transform = Transform.getOrNull(duplicate)
    if (transform === null || !transform.parent) {
      newNodes = insertChildAfterInNodes(newNodes, ROOT, duplicate, original)
    } else {
      // After clone, the copy's parent is already the copied parent, so this lookup of an
      // original finds nothing inside the subtree, as in the Inspector.
      const clonedParent = entities.get(transform.parent)
      if (clonedParent) newNodes = pushChildToNodes(newNodes, clonedParent, duplicate)
      else newNodes = insertChildAfterInNodes(newNodes, transform.parent, duplicate, original)
    }
  }
  Nodes.createOrReplace(ROOT, { value: newNodes })
}

// build-nodes-hierarchy.ts
function buildNodesHierarchy() {
  const initialState = { entity: ROOT, open: true, children: [] }
  const hierarchy = new Map([[ROOT, initialState]])
  for (const component of engine.componentsIter()) {
    for (const [entity] of engine.getEntitiesWith(component)) {
      hierarchy.set(entity, { entity, children: [] })
    }
  }
  for (const [entity] of hierarchy) {
    if (entity === ROOT || entity === engine.PlayerEntity || entity === engine.CameraEntity) continue
    const parent = Transform.getOrNull(entity)?.parent
    if (parent) {
      const children = hierarchy.get(parent)?.children || []
      hierarchy.set(parent, { entity: parent, children: cleanPush(children, entity) })
    } else {
      const children = hierarchy.get(ROOT).children
      hierarchy.set(ROOT, { entity: ROOT, open: true, children: cleanPush(children, entity) })
    }
  }
  hierarchy.set(engine.PlayerEntity, { entity: engine.PlayerEntity, children: [] })
  hierarchy.set(engine.CameraEntity, { entity: engine.CameraEntity, children: [] })
  const root = hierarchy.get(ROOT)
  hierarchy.set(ROOT, { ...root, open: true })
  return Array.from(hierarchy.values())
}

let rebuilt = null
for (const op of JSON.parse(fs.readFileSync(opsPath, 'utf8'))) {
  if (op.op === 'create') addChild(op.parent, op.entity)
  else if (op.op === 'reparent') setParent(op.entity, op.parent)
  else if (op.op === 'delete') removeEntity(op.entity)
  else if (op.op === 'duplicate') duplicateEntity(op.entity, op.copies)
  else if (op.op === 'reorder') {
    // useTree's setParent for a drop between rows: setParent, then reorder.
    setParent(op.entity, op.parent)
    reorder(op.entity, op.after === null ? op.parent : op.after, op.parent)
  }
  else if (op.op === 'rebuild') {
    rebuilt = buildNodesHierarchy()
    if (Nodes) Nodes.createOrReplace(ROOT, { value: rebuilt })
  }
  else throw new Error('unknown op ' + op.op)
}
process.stdout.write(JSON.stringify(Nodes || !rebuilt ? getNodes() : rebuilt))
