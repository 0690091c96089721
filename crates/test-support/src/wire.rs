//! Just enough of the SDK7 CRDT wire format to check what crosses the data layer: split a
//! stream into messages and build a Transform PUT. The crate itself never looks inside; the
//! app has its own full codec.

/// PUT_COMPONENT's message type.
pub const PUT_COMPONENT: u32 = 1;
/// `core::Transform`'s component id.
pub const TRANSFORM: u32 = 1;

/// One CRDT message: its bytes and header fields.
#[derive(Clone, Debug, PartialEq)]
pub struct CrdtMessage {
    /// The whole message, header included.
    pub bytes: Vec<u8>,
    /// Its type (1 PUT_COMPONENT, 2 DELETE_COMPONENT, …).
    pub kind: u32,
}

impl CrdtMessage {
    fn word(&self, index: usize) -> Option<u32> {
        let at = 8 + 4 * index;
        let bytes = self.bytes.get(at..at + 4)?;
        Some(u32::from_le_bytes(bytes.try_into().ok()?))
    }

    /// The entity of a PUT or DELETE_COMPONENT.
    pub fn entity(&self) -> Option<u32> {
        self.word(0)
    }

    /// The component of a PUT or DELETE_COMPONENT.
    pub fn component(&self) -> Option<u32> {
        self.word(1)
    }

    /// The Lamport timestamp of a PUT or DELETE_COMPONENT.
    pub fn timestamp(&self) -> Option<u32> {
        self.word(2)
    }

    /// A PUT's value.
    pub fn data(&self) -> Option<&[u8]> {
        if self.kind != PUT_COMPONENT {
            return None;
        }
        let len = self.word(3)? as usize;
        self.bytes.get(24..24 + len)
    }
}

/// Splits messages back to back (`length: u32 LE` including the 8-byte header, `type: u32
/// LE`, body); panics on a stream that does not split exactly, which is the assertion.
pub fn split(mut bytes: &[u8]) -> Vec<CrdtMessage> {
    let mut messages = Vec::new();
    while !bytes.is_empty() {
        assert!(
            bytes.len() >= 8,
            "a {}-byte tail is no CRDT header",
            bytes.len()
        );
        let len = u32::from_le_bytes(bytes[0..4].try_into().unwrap()) as usize;
        let kind = u32::from_le_bytes(bytes[4..8].try_into().unwrap());
        assert!(
            (8..=bytes.len()).contains(&len),
            "a CRDT message of length {len} with {} bytes left",
            bytes.len()
        );
        messages.push(CrdtMessage {
            bytes: bytes[..len].to_vec(),
            kind,
        });
        bytes = &bytes[len..];
    }
    messages
}

/// A PUT_COMPONENT of `component` on `entity` at `timestamp` holding `data`.
pub fn put(entity: u32, component: u32, timestamp: u32, data: &[u8]) -> Vec<u8> {
    let mut bytes = Vec::with_capacity(24 + data.len());
    let len = 24 + data.len() as u32;
    for word in [
        len,
        PUT_COMPONENT,
        entity,
        component,
        timestamp,
        data.len() as u32,
    ] {
        bytes.extend_from_slice(&word.to_le_bytes());
    }
    bytes.extend_from_slice(data);
    bytes
}

/// A Transform value (44 bytes) with its position x replaced.
pub fn with_x(transform: &[u8], x: f32) -> Vec<u8> {
    assert_eq!(transform.len(), 44, "a Transform is 44 bytes");
    let mut value = transform.to_vec();
    value[0..4].copy_from_slice(&x.to_le_bytes());
    value
}

/// A Transform value's position x.
pub fn x_of(transform: &[u8]) -> f32 {
    f32::from_le_bytes(transform[0..4].try_into().unwrap())
}
