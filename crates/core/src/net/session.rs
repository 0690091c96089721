//! Players in one scene room, stepped one tick of one player at a time, with the items they
//! send travelling as [`Frame`]s to the others.
//!
//! A step runs one player's tick: `sendBinary` returns the frames waiting for that player that
//! are due, and each item the tick sends becomes a frame to every other player (or to those it
//! names), due from the next step on. Delivery controls ([`FrameQueue`]) act on the frames in
//! between, per receiver. [`Session::step_with`] runs a tick on given inbound items instead,
//! which is how a capture is replayed with the deliveries it recorded.

use super::comms::encode_inbound;
use super::frames::{Frame, FrameQueue};
use super::ops::SceneOp;
use super::player::{Player, TickOutput};
use crate::crdt::stream::Dialect;

/// How sent items reach the other players.
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash)]
pub enum Routing {
    /// An item naming addresses reaches only those (LiveKit scene rooms).
    Targeted,
    /// Every item reaches every other player (a preview's ws-room, which has no per-address
    /// routing).
    Broadcast,
}

/// Players and the frames between them (see the module docs).
#[derive(Clone, Debug)]
pub struct Session {
    players: Vec<Player>,
    frames: FrameQueue,
    step: u64,
    routing: Routing,
}

impl Session {
    /// Players with these addresses, none ticked yet.
    pub fn new<'a>(addresses: impl IntoIterator<Item = &'a str>, dialect: Dialect) -> Session {
        let players: Vec<Player> = addresses
            .into_iter()
            .map(|a| Player::new(a, dialect))
            .collect();
        Session {
            frames: FrameQueue::new(players.len()),
            players,
            step: 0,
            routing: Routing::Targeted,
        }
    }

    /// Sets how sent items reach the other players.
    pub fn set_routing(&mut self, routing: Routing) {
        self.routing = routing;
    }

    /// The players, in the order given.
    pub fn players(&self) -> &[Player] {
        &self.players
    }

    /// The frames in flight.
    pub fn frames(&self) -> &FrameQueue {
        &self.frames
    }

    /// The frames in flight, to deliver, drop, duplicate, delay or reorder.
    pub fn frames_mut(&mut self) -> &mut FrameQueue {
        &mut self.frames
    }

    /// Steps taken so far.
    pub fn steps(&self) -> u64 {
        self.step
    }

    /// One tick of player `player` (by position), on the frames due for it; `None` for a
    /// position with no player. Ticks are numbered per player from 0, as captures number them.
    pub fn step(&mut self, player: usize, ops: &[SceneOp]) -> Option<TickOutput> {
        let due: Vec<Frame> = self.frames.take_due(player, self.step);
        let inbound: Vec<Vec<u8>> = due.into_iter().map(|f| f.bytes).collect();
        self.step_with(player, ops, &inbound)
    }

    /// One tick of player `player` on the given inbound items (frames in flight stay where
    /// they are); its sent items become frames as in [`Self::step`].
    pub fn step_with(
        &mut self,
        player: usize,
        ops: &[SceneOp],
        inbound: &[Vec<u8>],
    ) -> Option<TickOutput> {
        let this = self.players.get_mut(player)?;
        let tick = this.ticks();
        let out = this.tick(tick, ops, inbound);
        let sender = this.address().to_string();
        self.step += 1;
        for (item, sent) in out.sent.iter().enumerate() {
            let bytes = encode_inbound(&sender, &sent.data);
            for to in 0..self.players.len() {
                let addressed = sent.to.is_empty()
                    || self.routing == Routing::Broadcast
                    || sent.to.iter().any(|a| a == self.players[to].address());
                if to != player && addressed {
                    self.frames
                        .send(player, to, bytes.clone(), tick, item, self.step);
                }
            }
        }
        Some(out)
    }
}
