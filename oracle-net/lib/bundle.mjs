// Bundles a players' scene the way sdk-commands 7.28.0 `build` does (esbuild, CommonJS, es2020,
// `~system/*` left to the host's `require`), so that every player can run its own copy of the
// real @dcl/sdk and @dcl/ecs: the same text evaluated once per player gives each player its own
// module state and default engine.
import esbuild from 'esbuild'
import path from 'node:path'
import { fileURLToPath } from 'node:url'

const here = path.dirname(fileURLToPath(import.meta.url))
export const ORACLE_DIR = path.resolve(here, '..')
export const SCENE_DIR = path.join(ORACLE_DIR, 'scene')

/** The scenes a player can run: the plain one, and the one whose first import is assets/net-capture.ts. */
export const SCENES = {
  plain: path.join(SCENE_DIR, 'index.ts'),
  capture: path.join(SCENE_DIR, 'index-with-capture.ts')
}

// The generated entry point of a scene, shaped like sdk-commands' own: the creator's module is
// imported first and used (its `main` runs in a startup system), then @dcl/sdk (its renderer
// transport, onStart, onUpdate) is re-exported. The namespace must be used: esbuild drops an
// unused `import * as` and then evaluates @dcl/sdk before the creator's modules, which a
// capture module imported first relies on not happening.
function entryPoint(sceneFile) {
  const file = JSON.stringify(sceneFile.replace(/\\/g, '/'))
  return `"use strict";
import * as entrypoint from ${file}
import { engine } from '@dcl/sdk/ecs'
import * as sdk from '@dcl/sdk'

if ((entrypoint as any).main !== undefined) {
  function _INTERNAL_startup_system() {
    try {
      const maybePromise = (entrypoint as any).main()
      if (maybePromise && typeof maybePromise.then === 'function') maybePromise.catch(console.error)
    } catch (e) {
      console.error(e)
    } finally {
      engine.removeSystem(_INTERNAL_startup_system)
    }
  }
  engine.addSystem(_INTERNAL_startup_system, Infinity)
}

export * from '@dcl/sdk'
export * from ${file}
`
}

// A scene without main.composite: sdk-commands' loader then makes `~sdk/all-composites` an empty
// table, and the scene entry point here imports no `~sdk/script-utils`.
const noComposites = {
  name: 'no-composites',
  setup(build) {
    build.onResolve({ filter: /^~sdk\/all-composites$/ }, () => ({ path: 'all-composites', namespace: 'sdk' }))
    build.onLoad({ filter: /.*/, namespace: 'sdk' }, () => ({
      contents: 'export const compositeFromLoader = {}',
      loader: 'js'
    }))
  }
}

// The capture module the 'capture' scene imports: assets/net-capture.ts unless a check names
// another file (what `scenetree net capture-module` printed).
export const DEFAULT_CAPTURE_MODULE = path.resolve(ORACLE_DIR, '..', 'assets', 'net-capture.ts')
let captureModule = DEFAULT_CAPTURE_MODULE

/** Makes the 'capture' scene import `file` as its capture module (before any bundling). */
export function useCaptureModule(file) {
  captureModule = path.resolve(file)
  cache.clear()
}

const captureModuleFile = {
  name: 'capture-module-file',
  setup(build) {
    build.onResolve({ filter: /\/assets\/net-capture$/ }, () => ({ path: captureModule }))
  }
}

const cache = new Map()

/** The CommonJS text of `scene` ('plain' or 'capture'), built once per process. */
export async function bundleScene(scene = 'plain') {
  if (cache.has(scene)) return cache.get(scene)
  const sceneFile = SCENES[scene]
  if (!sceneFile) throw new Error(`unknown scene ${scene}; one of ${Object.keys(SCENES).join(', ')}`)
  const result = await esbuild.build({
    bundle: true,
    platform: 'browser',
    format: 'cjs',
    write: false,
    target: 'es2020',
    treeShaking: true,
    external: ['~system/*'],
    absWorkingDir: ORACLE_DIR,
    tsconfig: path.join(SCENE_DIR, 'tsconfig.json'),
    define: {
      document: 'undefined',
      window: 'undefined',
      DEBUG: 'true',
      'globalThis.DEBUG': 'true',
      'process.env.NODE_ENV': '"development"',
      DCL_MAX_COMPOSITE_ENTITY: '0'
    },
    supported: { 'import-assertions': false, 'import-meta': false, 'dynamic-import': false, hashbang: false },
    logLevel: 'error',
    logOverride: { 'import-is-undefined': 'silent' },
    plugins: [noComposites, captureModuleFile],
    stdin: {
      contents: entryPoint(sceneFile),
      resolveDir: SCENE_DIR,
      sourcefile: path.basename(sceneFile) + '.entry-point.ts',
      loader: 'ts'
    }
  })
  const text = result.outputFiles[0].text
  cache.set(scene, text)
  return text
}
