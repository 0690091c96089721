//! glTF models and texture images for the viewport: loading them off the UI thread
//! ([`library`]), what a loaded file holds ([`load`]), and the loaded files one scene uses
//! ([`SceneAssets`]), which the renderer uploads and picking tests against.

pub mod levels;
pub mod library;
pub mod load;

use std::collections::BTreeMap;
use std::sync::Arc;

pub use library::{AssetId, AssetLibrary, AssetStatus, LoadProgress, Loaded};
pub use load::{AlphaMode, AssetLoadError, LoadedModel, LoadedTexture, ModelStats};

/// The loaded models and textures a [`super::ViewportScene`]'s items refer to by [`AssetId`].
/// Two scenes' assets are equal when they hold the same loaded files (compared by identity).
#[derive(Clone, Default)]
pub struct SceneAssets {
    /// Models by id.
    pub models: BTreeMap<AssetId, Arc<LoadedModel>>,
    /// Textures by id.
    pub textures: BTreeMap<AssetId, Arc<LoadedTexture>>,
}

impl SceneAssets {
    /// True when nothing is held.
    pub fn is_empty(&self) -> bool {
        self.models.is_empty() && self.textures.is_empty()
    }
}

impl PartialEq for SceneAssets {
    fn eq(&self, other: &Self) -> bool {
        fn same<T>(a: &BTreeMap<AssetId, Arc<T>>, b: &BTreeMap<AssetId, Arc<T>>) -> bool {
            a.len() == b.len()
                && a.iter()
                    .zip(b)
                    .all(|((ka, va), (kb, vb))| ka == kb && Arc::ptr_eq(va, vb))
        }
        same(&self.models, &other.models) && same(&self.textures, &other.textures)
    }
}

impl std::fmt::Debug for SceneAssets {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        // The files, not their vertices and pixels.
        let models: Vec<_> = self.models.iter().map(|(k, v)| (k, &v.path)).collect();
        let textures: Vec<_> = self.textures.iter().map(|(k, v)| (k, &v.path)).collect();
        f.debug_struct("SceneAssets")
            .field("models", &models)
            .field("textures", &textures)
            .finish()
    }
}
