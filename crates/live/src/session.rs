//! The client's side of the data-layer protocol as a pure state machine: frames in, frames and
//! events out, no sockets and no clocks, so every rule is tested on exact bytes.
//!
//! The handshake: wait for SERVER_READY, CREATE_PORT `scene-ctx`, REQUEST_MODULE `DataService`,
//! look the procedure ids up by name in its answer, then REQUEST `CrdtStream` with a client
//! stream. Both directions of that stream are stop-and-wait: the host offers its stream with
//! element 0, which we acknowledge; every later element waits for our STREAM_ACK of it. The host
//! pulls our stream with STREAM_ACK(our stream, n) when it has taken element n (0 first), and we
//! may send element n + 1 then, one per pull, with everything queued since batched into it.
//! The snapshot is the host's first two elements (see [`LiveEvent::Snapshot`]).

use std::collections::VecDeque;

use prost::Message;

use crate::envelope::{self, Frame, MAX_MESSAGE_NUMBER, pb, type_name};
use crate::error::{Call, NotOpen, ProtocolError, RemoteError, StreamHalf};
use crate::event::LiveEvent;
use crate::phase::Phase;

/// The port the Inspector and every data-layer client create.
pub const PORT_NAME: &str = "scene-ctx";
/// The module that holds the data layer's procedures.
pub const MODULE_NAME: &str = "DataService";
/// The bidirectional stream of CRDT messages.
pub const CRDT_STREAM: &str = "CrdtStream";
/// The unary call that makes the host write main.composite now.
pub const SAVE: &str = "Save";
/// The most CRDT bytes batched into one stream element from several queued writes; a single
/// larger write still goes alone.
pub const MAX_ITEM_BYTES: usize = 1 << 20;

/// Sequence state of the CrdtStream's two directions.
#[derive(Debug, Default)]
struct Stream {
    /// Message number of the CrdtStream REQUEST, which is also the host → client stream's.
    request: u32,
    /// Message number of our client → host stream.
    client: u32,
    /// The host's offer (element 0) has arrived and been acknowledged.
    offered: bool,
    /// Last element received from the host.
    received: u32,
    /// Last element we sent.
    sent: u32,
    /// The host has pulled our last element: we may send the next.
    credit: bool,
}

/// The data-layer protocol, client side, without I/O: feed it every binary frame the host
/// sends ([`Session::receive`]), send every frame it hands out ([`Session::poll_transmit`]),
/// and read what happened ([`Session::poll_event`]).
#[derive(Debug)]
pub struct Session {
    phase: Phase,
    last_number: u32,
    port: u32,
    create_port_number: u32,
    module_number: u32,
    save_procedure: u32,
    stream: Stream,
    /// Message numbers of Save calls awaiting their answer.
    saves: Vec<u32>,
    /// Save calls not sent yet, each with the count of writes that must be acknowledged
    /// first (see [`Session::save`]).
    deferred_saves: VecDeque<u64>,
    /// Writes queued since the start.
    written: u64,
    /// Writes acknowledged since the start.
    acknowledged: u64,
    /// Writes not yet sent, oldest first.
    outbox: VecDeque<Vec<u8>>,
    /// Writes in the element sent and not yet acknowledged.
    in_flight: usize,
    /// The first element, until the second completes the snapshot.
    snapshot: Vec<u8>,
    transmit: VecDeque<Vec<u8>>,
    events: VecDeque<LiveEvent>,
}

impl Default for Session {
    fn default() -> Self {
        Self::new()
    }
}

impl Session {
    /// A session waiting for the host's SERVER_READY.
    pub fn new() -> Session {
        Session {
            phase: Phase::AwaitingServerReady,
            last_number: 0,
            port: 0,
            create_port_number: 0,
            module_number: 0,
            save_procedure: 0,
            stream: Stream::default(),
            saves: Vec::new(),
            deferred_saves: VecDeque::new(),
            written: 0,
            acknowledged: 0,
            outbox: VecDeque::new(),
            in_flight: 0,
            snapshot: Vec::new(),
            transmit: VecDeque::new(),
            events: VecDeque::new(),
        }
    }

    /// Where the session is.
    pub fn phase(&self) -> Phase {
        self.phase
    }

    /// Writes queued or in flight, not yet acknowledged by the host.
    pub fn pending(&self) -> usize {
        self.outbox.len() + self.in_flight
    }

    /// Handles one binary frame from the host. An error ends the session ([`Phase::Failed`]):
    /// a host that breaks the protocol is not trusted further.
    pub fn receive(&mut self, frame: &[u8]) -> Result<(), ProtocolError> {
        if matches!(self.phase, Phase::Closed | Phase::Failed) {
            return Err(ProtocolError::Ended);
        }
        let result = Frame::decode(frame)
            .map_err(ProtocolError::from)
            .and_then(|frame| self.handle(frame));
        if result.is_err() {
            self.phase = Phase::Failed;
        }
        result
    }

    /// Queues a write (SDK7 CRDT messages back to back) for the host. It goes out with the
    /// next credit, batched with whatever else is queued by then. Empty writes are ignored.
    pub fn send_crdt(&mut self, bytes: Vec<u8>) -> Result<(), NotOpen> {
        self.ensure_running()?;
        if !bytes.is_empty() {
            self.written += 1;
            self.outbox.push_back(bytes);
            self.flush_outbox();
        }
        Ok(())
    }

    /// Calls `DataService.Save`: the host writes main.composite now. The call goes out once
    /// every write queued before it is acknowledged, so the save includes them: the host
    /// applies a stream element asynchronously and would otherwise save the old value.
    /// Answered by [`LiveEvent::Saved`] or [`LiveEvent::RemoteError`].
    pub fn save(&mut self) -> Result<(), NotOpen> {
        self.ensure_running()?;
        if self.save_procedure == 0 {
            return Err(NotOpen { phase: self.phase });
        }
        self.deferred_saves.push_back(self.written);
        self.send_due_saves();
        Ok(())
    }

    /// Ends the session as `@dcl/rpc`'s client does: closes both stream directions and
    /// destroys the port. Queued writes are not sent (wait for [`Session::pending`] to reach
    /// 0 first to keep them). Closing twice does nothing.
    pub fn close(&mut self) {
        if matches!(self.phase, Phase::Closed | Phase::Failed) {
            return;
        }
        if self.port != 0 {
            let s = &self.stream;
            if s.request != 0 {
                let closes = [(s.client, s.sent, true), (s.request, s.received, s.offered)];
                for (number, sequence, open) in closes {
                    if open {
                        let frame = envelope::encode_close_stream(number, self.port, sequence);
                        self.transmit.push_back(frame);
                    }
                }
            }
            self.transmit
                .push_back(envelope::encode_destroy_port(self.port));
        }
        self.phase = Phase::Closed;
    }

    /// The next frame to send to the host, oldest first.
    pub fn poll_transmit(&mut self) -> Option<Vec<u8>> {
        self.transmit.pop_front()
    }

    /// The next event, oldest first.
    pub fn poll_event(&mut self) -> Option<LiveEvent> {
        self.events.pop_front()
    }

    fn ensure_running(&self) -> Result<(), NotOpen> {
        match self.phase {
            Phase::Closed | Phase::Failed => Err(NotOpen { phase: self.phase }),
            _ => Ok(()),
        }
    }

    fn handle(&mut self, frame: Frame) -> Result<(), ProtocolError> {
        let number = frame.number();
        let got = type_name(frame.kind());
        if self.phase == Phase::AwaitingServerReady {
            return match frame {
                Frame::ServerReady => {
                    self.create_port_number = self.next_number();
                    let frame = envelope::encode_create_port(self.create_port_number, PORT_NAME);
                    self.transmit.push_back(frame);
                    self.phase = Phase::CreatingPort;
                    Ok(())
                }
                _ => Err(ProtocolError::BeforeServerReady { got }),
            };
        }
        let unexpected = ProtocolError::Unexpected {
            got,
            number,
            phase: self.phase,
        };
        match frame {
            Frame::CreatePortResponse(m)
                if self.phase == Phase::CreatingPort && number == self.create_port_number =>
            {
                self.port = m.port_id;
                self.module_number = self.next_number();
                let frame =
                    envelope::encode_request_module(self.module_number, m.port_id, MODULE_NAME);
                self.transmit.push_back(frame);
                self.phase = Phase::LoadingModule;
                Ok(())
            }
            Frame::RequestModuleResponse(m)
                if self.phase == Phase::LoadingModule && number == self.module_number =>
            {
                self.open_stream(&m.procedures)
            }
            Frame::StreamMessage(m)
                if self.stream.request != 0 && number == self.stream.request =>
            {
                self.host_element(m)
            }
            Frame::StreamMessage(m) if self.stream.client != 0 && number == self.stream.client => {
                Err(if m.closed {
                    ProtocolError::StreamClosed {
                        half: StreamHalf::ToHost,
                    }
                } else {
                    unexpected
                })
            }
            Frame::StreamAck(m) if self.stream.client != 0 && number == self.stream.client => {
                self.pulled(m.sequence_id, unexpected)
            }
            Frame::Response(_) if self.saves.contains(&number) => {
                self.saves.retain(|&n| n != number);
                self.events.push_back(LiveEvent::Saved);
                Ok(())
            }
            Frame::RemoteError(m) => match self.call_of(number) {
                Some(call) => {
                    let error = RemoteError {
                        call,
                        code: m.error_code,
                        message: m.error_message,
                    };
                    if call == Call::Save {
                        self.saves.retain(|&n| n != number);
                        self.events.push_back(LiveEvent::RemoteError(error));
                        Ok(())
                    } else {
                        Err(ProtocolError::Remote(error))
                    }
                }
                None => Err(ProtocolError::UnknownMessageNumber { got, number }),
            },
            // Types only a client sends, and a second SERVER_READY.
            Frame::ServerReady
            | Frame::CreatePort(_)
            | Frame::RequestModule(_)
            | Frame::Request(_)
            | Frame::DestroyPort(_) => Err(unexpected),
            _ if self.call_of(number).is_some() => Err(unexpected),
            _ => Err(ProtocolError::UnknownMessageNumber { got, number }),
        }
    }

    /// Looks CrdtStream and Save up by name (their ids change between host versions) and
    /// opens the stream.
    fn open_stream(&mut self, procedures: &[pb::ModuleProcedure]) -> Result<(), ProtocolError> {
        let find = |name: &'static str| {
            let id = procedures
                .iter()
                .find(|p| p.procedure_name == name)
                .map(|p| p.procedure_id);
            id.ok_or_else(|| ProtocolError::MissingProcedure {
                procedure: name,
                available: procedures
                    .iter()
                    .map(|p| p.procedure_name.as_str())
                    .collect::<Vec<_>>()
                    .join(", "),
            })
        };
        let crdt_stream = find(CRDT_STREAM)?;
        self.save_procedure = find(SAVE)?;
        // @dcl/rpc numbers the client stream before the request that carries it.
        self.stream.client = self.next_number();
        self.stream.request = self.next_number();
        let s = &self.stream;
        let frame =
            envelope::encode_request(s.request, self.port, crdt_stream, s.client, Vec::new());
        self.transmit.push_back(frame);
        self.phase = Phase::OpeningStream;
        Ok(())
    }

    /// A STREAM_MESSAGE on the host → client direction: the offer, an element, or its end.
    fn host_element(&mut self, m: pb::StreamMessage) -> Result<(), ProtocolError> {
        let half = StreamHalf::FromHost;
        if m.closed {
            return Err(ProtocolError::StreamClosed { half });
        }
        let expected = if self.stream.offered {
            self.stream.received.wrapping_add(1)
        } else {
            0
        };
        if m.sequence_id != expected {
            return Err(ProtocolError::Sequence {
                half,
                expected,
                got: m.sequence_id,
            });
        }
        if !self.stream.offered {
            self.stream.offered = true;
            self.phase = Phase::AwaitingSnapshot;
        } else {
            let element =
                pb::CrdtStreamMessage::decode(m.payload.as_slice()).map_err(|source| {
                    ProtocolError::Payload {
                        sequence: m.sequence_id,
                        source,
                    }
                })?;
            match self.phase {
                Phase::AwaitingSnapshot => {
                    self.snapshot = element.data;
                    self.phase = Phase::AwaitingFirstTick;
                }
                Phase::AwaitingFirstTick => {
                    let mut snapshot = std::mem::take(&mut self.snapshot);
                    snapshot.extend_from_slice(&element.data);
                    self.phase = Phase::Open;
                    self.events.push_back(LiveEvent::Snapshot(snapshot));
                }
                _ if element.data.is_empty() => {}
                _ => self.events.push_back(LiveEvent::Incoming(element.data)),
            }
        }
        self.stream.received = m.sequence_id;
        // Acknowledging at once is the credit for the next element: the events are queued here
        // and the app's channel is unbounded, so there is nothing to wait for.
        let ack = envelope::encode_stream_ack(self.stream.request, self.port, m.sequence_id);
        self.transmit.push_back(ack);
        Ok(())
    }

    /// STREAM_ACK on our stream: the host took element `sequence` and asks for the next.
    fn pulled(&mut self, sequence: u32, unexpected: ProtocolError) -> Result<(), ProtocolError> {
        if self.stream.credit {
            // Nothing was in flight: the host acknowledged twice.
            return Err(unexpected);
        }
        if sequence != self.stream.sent {
            return Err(ProtocolError::Sequence {
                half: StreamHalf::ToHost,
                expected: self.stream.sent,
                got: sequence,
            });
        }
        self.stream.credit = true;
        let writes = std::mem::take(&mut self.in_flight);
        self.acknowledged += writes as u64;
        self.send_due_saves();
        self.flush_outbox();
        if writes > 0 {
            let pending = self.pending();
            self.events
                .push_back(LiveEvent::Acknowledged { writes, pending });
        }
        Ok(())
    }

    /// Sends the Save calls whose preceding writes are all acknowledged.
    fn send_due_saves(&mut self) {
        while self
            .deferred_saves
            .front()
            .is_some_and(|&after| after <= self.acknowledged)
        {
            self.deferred_saves.pop_front();
            let number = self.next_number();
            self.saves.push(number);
            let payload = pb::Empty {}.encode_to_vec();
            let frame =
                envelope::encode_request(number, self.port, self.save_procedure, 0, payload);
            self.transmit.push_back(frame);
        }
    }

    /// Sends everything queued as one element if the host has given credit.
    fn flush_outbox(&mut self) {
        if !self.stream.credit || matches!(self.phase, Phase::Closed | Phase::Failed) {
            return;
        }
        let Some(mut data) = self.outbox.pop_front() else {
            return;
        };
        let mut writes = 1;
        while let Some(next) = self.outbox.front() {
            if data.len() + next.len() > MAX_ITEM_BYTES {
                break;
            }
            data.extend_from_slice(next);
            self.outbox.pop_front();
            writes += 1;
        }
        self.stream.credit = false;
        self.stream.sent = self.stream.sent.wrapping_add(1);
        self.in_flight = writes;
        let payload = envelope::encode_crdt_payload(data);
        let s = &self.stream;
        let frame = envelope::encode_stream_message(s.client, self.port, s.sent, payload);
        self.transmit.push_back(frame);
    }

    /// The call a message number belongs to, if it is one of ours.
    fn call_of(&self, number: u32) -> Option<Call> {
        if number == 0 {
            None
        } else if number == self.create_port_number {
            Some(Call::CreatePort)
        } else if number == self.module_number {
            Some(Call::RequestModule)
        } else if number == self.stream.request || number == self.stream.client {
            Some(Call::CrdtStream)
        } else if self.saves.contains(&number) {
            Some(Call::Save)
        } else {
            None
        }
    }

    /// A fresh message number (1 up, 27 bits, skipping those still in use after a wrap).
    fn next_number(&mut self) -> u32 {
        loop {
            self.last_number = if self.last_number >= MAX_MESSAGE_NUMBER {
                1
            } else {
                self.last_number + 1
            };
            if self.call_of(self.last_number).is_none() {
                return self.last_number;
            }
        }
    }
}

#[cfg(test)]
mod tests;

#[cfg(test)]
mod fault_tests;
