// The players' scene: it only hands the SDK's own objects to the host, which drives it from an
// engine system (scene code runs after each tick's received items are applied, as a creator's
// systems do). Importing @dcl/sdk/network here, before the entry point imports @dcl/sdk, adds the
// network transport before the renderer transport, as in a creator's scene.
import {
  engine,
  Transform,
  MeshRenderer,
  NetworkEntity,
  NetworkParent,
  SyncComponents,
  RealmInfo,
  PlayerIdentityData
} from '@dcl/sdk/ecs'
import { syncEntity, parentEntity, removeParent, getParent, myProfile, isStateSyncronized } from '@dcl/sdk/network'

export const scene = {
  engine,
  Transform,
  MeshRenderer,
  NetworkEntity,
  NetworkParent,
  SyncComponents,
  RealmInfo,
  PlayerIdentityData,
  syncEntity,
  parentEntity,
  removeParent,
  getParent,
  myProfile,
  isStateSyncronized
}
