//! Typed, read-only views of the components that change how an entity looks, decoded through
//! the component codec: `core::Material` (colour, texture) and `core::VisibilityComponent`.
//! Defaults are the protocol's documented ones (`proto/…/material.proto`,
//! `visibility_component.proto`), as Decentraland's renderers apply them.

use serde_json::{Value, json};

use super::codec::ProtoMessage;
use scenetree_core::model::Entity;

/// `core::Material` id.
pub const MATERIAL: u32 = 1017;
/// `core::VisibilityComponent` id.
pub const VISIBILITY: u32 = 1081;

/// How a material is shaded.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum Shading {
    /// `unlit`: the base colour as is, no lighting.
    Unlit,
    /// `pbr`: physically based (metallic / roughness).
    Pbr,
}

/// Where a texture's pixels come from.
#[derive(Clone, Debug, PartialEq)]
pub enum TextureSource {
    /// An image file of the scene (`assets/…/x.png`).
    File { src: String },
    /// A player's avatar portrait, by user id.
    Avatar { user_id: String },
    /// The frames of the entity's `core::VideoPlayer`.
    Video { video_player: Entity },
}

/// What the viewport needs of a `core::Material`. Colours are RGB(A) components as stored
/// (0–1, not premultiplied).
#[derive(Clone, Debug, PartialEq)]
pub struct MaterialLook {
    /// Unlit or PBR.
    pub shading: Shading,
    /// The base colour: `albedoColor` (PBR) or `diffuseColor` (unlit); white when unset.
    pub base_color: [f32; 4],
    /// The main texture (`texture`), if any.
    pub texture: Option<TextureSource>,
    /// PBR only: the emitted colour (black when unset) and its intensity (default 2).
    pub emissive: ([f32; 3], f32),
    /// PBR only: metallic and roughness, 0–1 (defaults 0.5, 0.5).
    pub metallic_roughness: (f32, f32),
    /// `MaterialTransparencyMode` (0 opaque, 1 alpha test, 2 alpha blend, 3 both, 4 auto, the
    /// default).
    pub transparency_mode: i32,
}

impl MaterialLook {
    /// Decodes a Material value; `None` when the bytes are not a `PBMaterial` or name no
    /// material (no `material` case).
    pub fn decode(bytes: &[u8]) -> Option<MaterialLook> {
        let json = ProtoMessage::of_component(MATERIAL)?.decode(bytes).ok()?;
        let material = &json["material"];
        let (shading, body, color_key) = match material["$case"].as_str()? {
            "unlit" => (Shading::Unlit, &material["unlit"], "diffuseColor"),
            "pbr" => (Shading::Pbr, &material["pbr"], "albedoColor"),
            _ => return None,
        };
        let f = |v: &Value, default: f32| v.as_f64().map_or(default, |x| x as f32);
        let c = &body[color_key];
        let base_color = if c.is_object() {
            [
                f(&c["r"], 0.0),
                f(&c["g"], 0.0),
                f(&c["b"], 0.0),
                f(&c["a"], 0.0),
            ]
        } else {
            [1.0; 4]
        };
        let e = &body["emissiveColor"];
        let emissive_color = if e.is_object() {
            [f(&e["r"], 0.0), f(&e["g"], 0.0), f(&e["b"], 0.0)]
        } else {
            [0.0; 3]
        };
        Some(MaterialLook {
            shading,
            base_color,
            texture: texture_source(&body["texture"]),
            emissive: (emissive_color, f(&body["emissiveIntensity"], 2.0)),
            metallic_roughness: (f(&body["metallic"], 0.5), f(&body["roughness"], 0.5)),
            transparency_mode: body["transparencyMode"].as_i64().map_or(4, |m| m as i32),
        })
    }
}

/// A `TextureUnion` JSON's source.
fn texture_source(union: &Value) -> Option<TextureSource> {
    let tex = &union["tex"];
    Some(match tex["$case"].as_str()? {
        "texture" => TextureSource::File {
            src: tex["texture"]["src"].as_str()?.to_owned(),
        },
        "avatarTexture" => TextureSource::Avatar {
            user_id: tex["avatarTexture"]["userId"].as_str()?.to_owned(),
        },
        "videoTexture" => TextureSource::Video {
            video_player: Entity(tex["videoTexture"]["videoPlayerEntity"].as_u64()? as u32),
        },
        _ => return None,
    })
}

/// `core::VisibilityComponent`.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub struct Visibility {
    /// Whether the entity's shape is drawn (default true).
    pub visible: bool,
    /// Whether descendants follow (default false: only this entity is hidden).
    pub propagate_to_children: bool,
}

impl Visibility {
    /// Decodes a VisibilityComponent value; `None` when the bytes are not one.
    pub fn decode(bytes: &[u8]) -> Option<Visibility> {
        let json = ProtoMessage::of_component(VISIBILITY)?.decode(bytes).ok()?;
        Some(Visibility {
            visible: json["visible"].as_bool().unwrap_or(true),
            propagate_to_children: json["propagateToChildren"].as_bool().unwrap_or(false),
        })
    }

    /// The bytes `@dcl/ecs` writes for `{visible, propagateToChildren}` (both set).
    pub fn encode(self) -> Vec<u8> {
        ProtoMessage::of_component(VISIBILITY)
            .and_then(|m| {
                m.encode(&json!({"visible": self.visible,
                    "propagateToChildren": self.propagate_to_children}))
                    .ok()
            })
            .expect("the protocol has PBVisibilityComponent")
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn material_looks_take_the_protocol_defaults() {
        let m = ProtoMessage::of_component(MATERIAL).unwrap();
        let pbr = m
            .encode(&json!({"material": {"$case": "pbr", "pbr": {
                "albedoColor": {"r": 1, "g": 0.5, "b": 0, "a": 1},
                "texture": {"tex": {"$case": "texture", "texture": {"src": "assets/wood.png"}}}}}}))
            .unwrap();
        let look = MaterialLook::decode(&pbr).unwrap();
        assert_eq!(look.shading, Shading::Pbr);
        assert_eq!(look.base_color, [1.0, 0.5, 0.0, 1.0]);
        assert_eq!(
            look.texture,
            Some(TextureSource::File {
                src: "assets/wood.png".into()
            })
        );
        assert_eq!(look.metallic_roughness, (0.5, 0.5));
        assert_eq!(look.transparency_mode, 4);
        let unlit = m
            .encode(&json!({"material": {"$case": "unlit", "unlit": {}}}))
            .unwrap();
        let look = MaterialLook::decode(&unlit).unwrap();
        assert_eq!((look.shading, look.base_color), (Shading::Unlit, [1.0; 4]));
        assert_eq!(MaterialLook::decode(&[]), None, "no material case");
        assert_eq!(MaterialLook::decode(&[0xff]), None, "garbage");
    }

    #[test]
    fn visibility_defaults_to_visible_and_round_trips() {
        assert_eq!(
            Visibility::decode(&[]),
            Some(Visibility {
                visible: true,
                propagate_to_children: false
            })
        );
        let hidden = Visibility {
            visible: false,
            propagate_to_children: true,
        };
        assert_eq!(Visibility::decode(&hidden.encode()), Some(hidden));
        assert_eq!(hidden.encode(), [0x08, 0x00, 0x10, 0x01]);
    }
}
