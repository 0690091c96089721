//! A fake data layer for fault tests: a real tungstenite server on 127.0.0.1:0 in a thread
//! that plays the host's side of the captured handshake, then misbehaves as a test scripts it.
//! It is a test server speaking the wire protocol, not a mock of the client.

use std::io::{Read, Write};
use std::net::{TcpListener, TcpStream};
use std::thread::JoinHandle;
use std::time::Duration;

use prost::Message as _;
use scenetree_live::envelope::{self, Frame, MessageType, message_identifier, pb};
use tungstenite::{Message, WebSocket};

/// Only a guard against hanging.
const WAIT: Duration = Duration::from_secs(10);

/// The 22 procedures of `DataService` in @dcl/inspector 7.36.3, ids 1 to 22.
pub const PROCEDURES: [&str; 22] = [
    "CrdtStream",
    "Undo",
    "Redo",
    "GetUndoRedoState",
    "getFiles",
    "getFilesSizes",
    "saveFile",
    "GetAssetCatalog",
    "GetAssetData",
    "ImportAsset",
    "RemoveAsset",
    "RemoveFiles",
    "Save",
    "GetInspectorPreferences",
    "SetInspectorPreferences",
    "CopyFile",
    "GetFile",
    "GetFilesList",
    "CreateCustomAsset",
    "GetCustomAssets",
    "DeleteCustomAsset",
    "RenameCustomAsset",
];

/// The snapshot the fake host sends (its first element; the second, the tick, is empty).
pub const SNAPSHOT: &[u8] = b"fake snapshot";

/// A fake host serving one connection.
pub struct FakeHost {
    /// Its `ws://127.0.0.1:PORT/data-layer` URL.
    pub url: String,
    thread: Option<JoinHandle<()>>,
}

impl FakeHost {
    /// Accepts one connection, upgrades it to a WebSocket, and runs `script` on it.
    pub fn spawn(script: impl FnOnce(&mut Peer) + Send + 'static) -> FakeHost {
        Self::raw(move |stream| {
            let ws = tungstenite::accept(stream).expect("the client's WebSocket upgrade");
            script(&mut Peer { ws })
        })
    }

    /// Accepts one TCP connection and runs `script` on the raw socket (no WebSocket).
    pub fn raw(script: impl FnOnce(TcpStream) + Send + 'static) -> FakeHost {
        let listener = TcpListener::bind("127.0.0.1:0").expect("bind the fake host");
        let url = format!(
            "ws://{}/data-layer",
            listener.local_addr().expect("its address")
        );
        let serve = move || {
            let (stream, _) = listener.accept().expect("accept the client");
            stream.set_read_timeout(Some(WAIT)).expect("read timeout");
            script(stream);
        };
        let thread = std::thread::Builder::new()
            .name("fake-host".into())
            .spawn(serve)
            .expect("a thread for the fake host");
        FakeHost {
            url,
            thread: Some(thread),
        }
    }

    /// Waits for the script to end; fails the test if it failed.
    pub fn join(mut self) {
        if let Some(thread) = self.thread.take()
            && let Err(panic) = thread.join()
        {
            std::panic::resume_unwind(panic);
        }
    }
}

/// A TCP listener that accepts and then never says a word, until dropped.
pub fn silent_host() -> (String, JoinHandle<()>) {
    let listener = TcpListener::bind("127.0.0.1:0").expect("bind");
    let url = format!("ws://{}/data-layer", listener.local_addr().unwrap());
    let listen = move || {
        let (mut stream, _) = listener.accept().expect("accept");
        // Reads until the client gives up and closes.
        let mut sink = [0u8; 1024];
        while matches!(stream.read(&mut sink), Ok(n) if n > 0) {}
    };
    let thread = std::thread::Builder::new()
        .name("silent-host".into())
        .spawn(listen)
        .expect("a thread for the silent host");
    (url, thread)
}

/// A plain HTTP server that answers the upgrade with `status_line`.
pub fn http_host(status_line: &'static str) -> FakeHost {
    FakeHost::raw(move |mut stream| {
        let mut request = [0u8; 2048];
        let _ = stream.read(&mut request);
        let answer = format!("{status_line}\r\ncontent-length: 0\r\nconnection: close\r\n\r\n");
        let _ = stream.write_all(answer.as_bytes());
    })
}

/// The host's side of one connection.
pub struct Peer {
    /// The WebSocket, for scripts that need it raw.
    pub ws: WebSocket<TcpStream>,
}

impl Peer {
    /// Sends one binary frame.
    pub fn send(&mut self, frame: Vec<u8>) {
        self.ws
            .send(Message::binary(frame))
            .expect("send to the client");
    }

    /// The client's next binary frame, decoded; None once it has closed.
    pub fn recv(&mut self) -> Option<Frame> {
        loop {
            match self.ws.read() {
                Ok(Message::Binary(bytes)) => {
                    return Some(Frame::decode(&bytes).expect("the client sends valid frames"));
                }
                Ok(Message::Close(_)) | Err(_) => return None,
                Ok(_) => {}
            }
        }
    }

    /// The client's next frame, which must be of type `kind`.
    pub fn expect(&mut self, kind: MessageType) -> Frame {
        let frame = self.recv().expect("the client's next frame");
        assert_eq!(frame.kind(), kind, "{frame:?}");
        frame
    }

    /// Plays the real host's handshake through the snapshot (port 1, the Inspector's
    /// procedures, CrdtStream REQUEST #4 with client stream #3), as captured.
    pub fn handshake(&mut self) {
        self.handshake_with(SNAPSHOT);
    }

    /// The handshake of [`Peer::handshake`] with `snapshot` as the host's first element.
    pub fn handshake_with(&mut self, snapshot: &[u8]) {
        self.open_stream();
        self.element(1, snapshot);
        self.element(2, b"");
    }

    /// The handshake up to the opening of the stream: then the client awaits the snapshot.
    pub fn open_stream(&mut self) {
        self.send(envelope::encode_server_ready());
        let create = self.expect(MessageType::CreatePort);
        self.send(
            pb::CreatePortResponse {
                message_identifier: message_identifier(
                    MessageType::CreatePortResponse,
                    create.number(),
                ),
                port_id: 1,
            }
            .encode_to_vec(),
        );
        let module = self.expect(MessageType::RequestModule);
        self.send(module_response(module.number(), &PROCEDURES));
        let request = self.expect(MessageType::Request);
        assert_eq!(request.number(), 4);
        // The offer, and the pull of the client's stream #3.
        self.send(envelope::encode_stream_message(4, 1, 0, Vec::new()));
        self.send(envelope::encode_stream_ack(3, 1, 0));
        self.expect(MessageType::StreamAck);
    }

    /// Host → client element `seq` holding `crdt` as one WebSocket frame, whose bytes go out
    /// in `pieces` pieces, each after `pause` (as a large snapshot arrives).
    pub fn element_slowly(&mut self, seq: u32, crdt: &[u8], pieces: usize, pause: Duration) {
        let bytes = Self::element_frame(seq, crdt);
        let chunk = bytes.len().div_ceil(pieces.max(1));
        for piece in bytes.chunks(chunk) {
            std::thread::sleep(pause);
            let socket = self.ws.get_mut();
            socket.write_all(piece).expect("send a piece");
            socket.flush().expect("flush");
        }
        let ack = self.expect(MessageType::StreamAck);
        assert_eq!(ack.number(), 4);
    }

    /// The first `sent` bytes of element `seq`'s WebSocket frame, and then nothing more.
    pub fn element_cut(&mut self, seq: u32, crdt: &[u8], sent: usize) {
        let bytes = Self::element_frame(seq, crdt);
        let socket = self.ws.get_mut();
        socket.write_all(&bytes[..sent]).expect("send the start");
        socket.flush().expect("flush");
    }

    /// Element `seq` as the bytes of one unmasked binary WebSocket frame (server to client).
    fn element_frame(seq: u32, crdt: &[u8]) -> Vec<u8> {
        let payload = envelope::encode_crdt_payload(crdt.to_vec());
        let message = envelope::encode_stream_message(4, 1, seq, payload);
        let mut frame = vec![0x82];
        match message.len() {
            n if n < 126 => frame.push(n as u8),
            n if n < 65_536 => {
                frame.push(126);
                frame.extend_from_slice(&(n as u16).to_be_bytes());
            }
            n => {
                frame.push(127);
                frame.extend_from_slice(&(n as u64).to_be_bytes());
            }
        }
        frame.extend_from_slice(&message);
        frame
    }

    /// Sends host → client element `seq` holding `crdt` and waits for its ACK.
    pub fn element(&mut self, seq: u32, crdt: &[u8]) {
        let payload = envelope::encode_crdt_payload(crdt.to_vec());
        self.send(envelope::encode_stream_message(4, 1, seq, payload));
        let ack = self.expect(MessageType::StreamAck);
        assert_eq!(ack.number(), 4);
    }

    /// The client's next write element on stream #3: its sequence number and CRDT bytes.
    pub fn write(&mut self) -> (u32, Vec<u8>) {
        match self.expect(MessageType::StreamMessage) {
            Frame::StreamMessage(m) => {
                assert_eq!(
                    m.message_identifier & 0x07ff_ffff,
                    3,
                    "on the client stream"
                );
                let data = pb::CrdtStreamMessage::decode(m.payload.as_slice())
                    .expect("a CrdtStreamMessage")
                    .data;
                (m.sequence_id, data)
            }
            _ => unreachable!(),
        }
    }

    /// Pulls the client's stream: ACK of element `seq`.
    pub fn pull(&mut self, seq: u32) {
        self.send(envelope::encode_stream_ack(3, 1, seq));
    }
}

/// A REQUEST_MODULE_RESPONSE #`number` on port 1 listing `names` with ids from 1.
pub fn module_response(number: u32, names: &[&str]) -> Vec<u8> {
    pb::RequestModuleResponse {
        message_identifier: message_identifier(MessageType::RequestModuleResponse, number),
        port_id: 1,
        procedures: names
            .iter()
            .zip(1..)
            .map(|(name, id)| pb::ModuleProcedure {
                procedure_id: id,
                procedure_name: (*name).to_owned(),
            })
            .collect(),
    }
    .encode_to_vec()
}

/// A REMOTE_ERROR_RESPONSE #`number`.
pub fn remote_error(number: u32, message: &str) -> Vec<u8> {
    pb::RemoteError {
        message_identifier: message_identifier(MessageType::RemoteErrorResponse, number),
        error_code: 0,
        error_message: message.to_owned(),
    }
    .encode_to_vec()
}
