//! Comms items on their way between players, one queue per receiver, with the controls of the
//! peers simulation: deliver now, drop, duplicate, delay, reorder.
//!
//! These are not `crdt::Network`'s messages: a frame is an item of bytes (a whole batch, a
//! state request or a state response) that a player's `sendBinary` returns at the receiver's
//! next tick, and what it means depends on the receiver's state then; a `crdt::Network` message
//! is one CRDT message applied to a shared-numbering replica the moment it is delivered.

use std::fmt;

/// A frame's id, unique within a session (1, 2, 3, … in send order).
#[derive(Copy, Clone, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct FrameId(pub u64);

impl fmt::Display for FrameId {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "frame {}", self.0)
    }
}

/// One item on its way to one player.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Frame {
    /// Its id.
    pub id: FrameId,
    /// The sending player's position in the session.
    pub from: usize,
    /// The receiving player's position.
    pub to: usize,
    /// The item as the receiver's `sendBinary` returns it (`[len][sender][CommsMessage]…`).
    pub bytes: Vec<u8>,
    /// The sender's tick that sent it.
    pub sender_tick: u32,
    /// Its position among the items that tick sent.
    pub item: usize,
    /// The session step from which it may be delivered.
    pub due: u64,
}

/// Why a frame operation was refused.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum FrameQueueError {
    /// No such frame in flight.
    #[error("{0} is not in flight")]
    Unknown(FrameId),
}

/// The frames in flight, per receiver in delivery order (see the module docs).
#[derive(Clone, Debug, Default)]
pub struct FrameQueue {
    queues: Vec<Vec<Frame>>,
    next_id: u64,
}

impl FrameQueue {
    /// Queues for `players` receivers.
    pub fn new(players: usize) -> FrameQueue {
        FrameQueue {
            queues: vec![Vec::new(); players],
            next_id: 1,
        }
    }

    /// The frames waiting for player `to`, in delivery order.
    pub fn waiting_for(&self, to: usize) -> &[Frame] {
        self.queues.get(to).map_or(&[], Vec::as_slice)
    }

    /// Every frame in flight.
    pub fn iter(&self) -> impl Iterator<Item = &Frame> + '_ {
        self.queues.iter().flatten()
    }

    /// Sends a frame (last in its receiver's queue); its id.
    pub fn send(
        &mut self,
        from: usize,
        to: usize,
        bytes: Vec<u8>,
        sender_tick: u32,
        item: usize,
        due: u64,
    ) -> FrameId {
        let id = FrameId(self.next_id);
        self.next_id += 1;
        if let Some(queue) = self.queues.get_mut(to) {
            queue.push(Frame {
                id,
                from,
                to,
                bytes,
                sender_tick,
                item,
                due,
            });
        }
        id
    }

    fn find(&self, id: FrameId) -> Result<(usize, usize), FrameQueueError> {
        self.queues
            .iter()
            .enumerate()
            .find_map(|(to, q)| q.iter().position(|f| f.id == id).map(|at| (to, at)))
            .ok_or(FrameQueueError::Unknown(id))
    }

    /// Takes, in queue order, the frames for `to` that are due at `step`.
    pub fn take_due(&mut self, to: usize, step: u64) -> Vec<Frame> {
        let Some(queue) = self.queues.get_mut(to) else {
            return Vec::new();
        };
        let (due, later) = std::mem::take(queue)
            .into_iter()
            .partition(|f| f.due <= step);
        *queue = later;
        due
    }

    /// Makes a frame due at once (delivered at its receiver's next tick).
    pub fn deliver_now(&mut self, id: FrameId) -> Result<(), FrameQueueError> {
        let (to, at) = self.find(id)?;
        self.queues[to][at].due = 0;
        Ok(())
    }

    /// Loses a frame; returns it.
    pub fn drop_frame(&mut self, id: FrameId) -> Result<Frame, FrameQueueError> {
        let (to, at) = self.find(id)?;
        Ok(self.queues[to].remove(at))
    }

    /// A second copy of a frame, right after it; the copy's id.
    pub fn duplicate(&mut self, id: FrameId) -> Result<FrameId, FrameQueueError> {
        let (to, at) = self.find(id)?;
        let copy_id = FrameId(self.next_id);
        self.next_id += 1;
        let copy = Frame {
            id: copy_id,
            ..self.queues[to][at].clone()
        };
        self.queues[to].insert(at + 1, copy);
        Ok(copy_id)
    }

    /// Holds a frame `steps` session steps longer.
    pub fn delay(&mut self, id: FrameId, steps: u64) -> Result<(), FrameQueueError> {
        let (to, at) = self.find(id)?;
        let frame = &mut self.queues[to][at];
        frame.due = frame.due.saturating_add(steps);
        Ok(())
    }

    /// Moves a frame to `position` in its receiver's queue (clamped to the queue).
    pub fn reorder(&mut self, id: FrameId, position: usize) -> Result<(), FrameQueueError> {
        let (to, at) = self.find(id)?;
        let frame = self.queues[to].remove(at);
        let position = position.min(self.queues[to].len());
        self.queues[to].insert(position, frame);
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn controls_act_per_receiver() {
        let mut q = FrameQueue::new(3);
        let a = q.send(0, 1, vec![1], 1, 0, 1);
        let b = q.send(0, 1, vec![2], 1, 1, 1);
        let c = q.send(0, 2, vec![3], 1, 0, 1);
        q.reorder(b, 0).unwrap();
        let copy = q.duplicate(a).unwrap();
        q.delay(c, 5).unwrap();
        let got: Vec<_> = q.take_due(1, 1).into_iter().map(|f| f.id).collect();
        assert_eq!(got, [b, a, copy]);
        assert!(q.take_due(2, 1).is_empty());
        q.deliver_now(c).unwrap();
        assert_eq!(q.take_due(2, 2).len(), 1);
        assert_eq!(q.drop_frame(a), Err(FrameQueueError::Unknown(a)));
    }
}
