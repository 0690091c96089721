// One real SDK player: its own evaluation of the bundled scene (own @dcl/sdk and @dcl/ecs module
// state, own default engine) whose `~system/*` modules forward to this player's fake network,
// renderer and user. The host calls onStart once and onUpdate once per tick, as an explorer does.
import vm from 'node:vm'
import { bundleScene } from './bundle.mjs'
import { b64, concat, initialRendererState, networkIdOf } from './wire.mjs'

const compiled = new Map()

// The bundle is compiled once and called once per player: each call is a fresh CommonJS module
// scope, which is how explorers run a scene (and what a `data:` URL import gives an ESM bundle,
// except that V8 never frees imported modules and 800 players would stay in memory).
async function sceneFactory(scene) {
  if (!compiled.has(scene)) {
    const text = await bundleScene(scene)
    compiled.set(scene, vm.compileFunction(text, ['exports', 'require', 'module', 'console', 'Date'], { filename: `scene-${scene}.js` }))
  }
  return compiled.get(scene)
}

export class Player {
  /**
   * @param {object} opts
   * @param {string} opts.address the player's address, used exactly as given (it names its networkId)
   * @param {string} opts.name a short display name (A, B, …)
   * @param {(player: Player, items: {to: string[], data: Uint8Array}[]) => Uint8Array[]} opts.exchange
   *   the network: takes what the scene sends this tick, returns what it receives
   * @param {'plain'|'capture'} [opts.scene] which bundled scene to run
   * @param {(line: string) => void} [opts.log] the scene's console.log, as an explorer prints it
   * @param {() => number} [opts.clock] the scene's Date.now(), so that captures do not depend on
   *   the wall clock of the run
   */
  constructor({ address, name, exchange, scene = 'plain', log = () => {}, clock = () => Date.now() }) {
    this.address = address
    this.name = name
    this.networkId = networkIdOf(address)
    this.exchange = exchange
    this.sceneName = scene
    this.log = log
    this.clock = clock
    this.tick = -1
    this.current = null
    this.driver = null
    this.driverMs = 0
    this.driverCpuMs = 0
  }

  /** Evaluates the scene, installs `driver` (run as an engine system each tick) and runs onStart. */
  async start(driver) {
    const factory = await sceneFactory(this.sceneName)
    const module = { exports: {} }
    const clock = this.clock
    const SceneDate = class extends Date {
      static now() {
        return clock()
      }
    }
    factory(module.exports, (name) => this.systemModule(name), module, this.sceneConsole(), SceneDate)
    this.exports = module.exports
    this.scene = module.exports.scene
    this.driver = driver
    const engine = this.scene.engine
    // Runs after the tick's received items are applied, before the tick's messages are sent.
    engine.addSystem(() => {
      const t0 = performance.now()
      const cpu0 = process.cpuUsage()
      this.driver?.(this, this.tick)
      const cpu = process.cpuUsage(cpu0)
      this.driverMs += performance.now() - t0
      this.driverCpuMs += (cpu.user + cpu.system) / 1000
    }, 0, 'scenetree-oracle-driver')
    await this.exports.onStart()
  }

  /** Runs one tick (`onUpdate(dt)`) and returns what crossed the scene's boundary during it. */
  async runTick(dt) {
    this.tick++
    this.current = { received: [], sent: [], renderer: [] }
    await this.exports.onUpdate(dt)
    const record = this.current
    this.current = null
    return { tick: this.tick, received: record.received, sent: record.sent, renderer: concat(record.renderer), rendererCalls: record.renderer }
  }

  /** The capture line fields of a tick record, base64-encoded. */
  static lineFields(record) {
    return {
      received: record.received.map(b64),
      sent: record.sent.map((s) => ({ to: s.to, data: b64(s.data) })),
      renderer: b64(record.renderer)
    }
  }

  sceneConsole() {
    const print = (...args) => this.log(args.map((a) => (typeof a === 'string' ? a : JSON.stringify(a))).join(' '))
    return { log: print, info: print, warn: print, error: print, debug: print }
  }

  outsideTick(what) {
    throw new Error(`${this.name}: the scene called ${what} outside a tick; the capture has no line for it`)
  }

  // A fresh object on every `require`, as godot, bevy and Unity's scene hosts do.
  systemModule(name) {
    const player = this
    switch (name) {
      case '~system/EngineApi':
        return {
          async crdtSendToRenderer({ data }) {
            if (!player.current) player.outsideTick('crdtSendToRenderer')
            player.current.renderer.push(new Uint8Array(data))
            return { data: [] }
          },
          async crdtGetState() {
            return { hasEntities: false, data: [initialRendererState(player.address)] }
          },
          async sendBatch() {
            return { events: [] }
          },
          async subscribe() {
            return {}
          },
          async unsubscribe() {
            return {}
          },
          async isServer() {
            return { isServer: false }
          }
        }
      case '~system/CommunicationsController':
        return {
          async sendBinary({ data, peerData }) {
            if (!player.current) player.outsideTick('sendBinary')
            const out = []
            for (const item of data ?? []) out.push({ to: [], data: new Uint8Array(item) })
            for (const peer of peerData ?? []) {
              for (const item of peer.data) out.push({ to: [...(peer.address ?? [])], data: new Uint8Array(item) })
            }
            player.current.sent.push(...out)
            const received = player.exchange(player, out)
            player.current.received.push(...received)
            return { data: received.map((r) => new Uint8Array(r)) }
          },
          async send() {
            return { data: [] }
          }
        }
      case '~system/UserIdentity':
        return {
          async getUserData() {
            return {
              data: { userId: player.address, displayName: player.name, publicKey: player.address, hasConnectedWeb3: true, version: 1 }
            }
          }
        }
      case '~system/Runtime':
        return {
          async readFile({ fileName }) {
            throw new Error(`no file ${fileName} in the oracle's scene`)
          },
          async getRealm() {
            return { realmInfo: { baseUrl: 'http://127.0.0.1', realmName: 'scenetree-oracle-net', networkId: 0, commsAdapter: 'fake-bus', isPreview: true } }
          },
          async getSceneInformation() {
            return { urn: 'scenetree-oracle-net', content: [], metadataJson: '{}', baseUrl: 'http://127.0.0.1' }
          }
        }
      default:
        throw new Error(`${this.name}: the scene required ${name}, which the oracle does not provide`)
    }
  }
}
