//! The schedule of a run: per step, the items that tick's `sendBinary` returns, and the
//! controls that change it (the Peers workspace's buttons and drags, a lesson's actions).
//! Every control re-runs the script on the changed schedule.

use rustc_hash::FxHashSet;

use super::NetRun;

/// A frame the run sent: the step that sent it, its position among that tick's items, and the
/// player it goes to.
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct FrameKey {
    /// The sending step.
    pub sender_step: usize,
    /// Its position among the items the sending tick passed to `sendBinary`.
    pub item: usize,
    /// The receiving player.
    pub to: usize,
}

/// One item a tick's `sendBinary` returns.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Delivery {
    /// A frame the run sent.
    Frame(FrameKey),
    /// An item a capture recorded that no modelled send produced, delivered as recorded
    /// (`[u8 len][sender][CommsMessage][payload]`).
    Recorded(Vec<u8>),
}

/// Where one delivery is.
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash)]
pub enum Slot {
    /// Item `index` of what step `step`'s `sendBinary` returns.
    At { step: usize, index: usize },
    /// A frame no tick receives: sent after its receiver's last tick, or delayed past it.
    Nowhere(FrameKey),
}

/// Why a control was refused.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum RunError {
    /// The slot names no delivery (the schedule changed since it was read).
    #[error("there is no such delivery (the schedule changed)")]
    NoSuchDelivery,
    /// A delivery moved onto another receiver's.
    #[error("a delivery can only move among its own receiver's deliveries")]
    OtherReceiver,
    /// A frame moved to a tick before the one that sent it.
    #[error("{frame} cannot arrive at {at}: it is sent later")]
    BeforeSent {
        /// The frame, as people read it.
        frame: String,
        /// The tick it was moved to.
        at: String,
    },
    /// Deliver now on a delivery already due at its receiver's next tick.
    #[error("it already arrives at {0}'s next tick")]
    AlreadyNext(String),
    /// Deliver now when the receiver has no tick left.
    #[error("{0} has no tick left to receive it")]
    NoTickLeft(String),
}

/// The deliveries per step, and which frames the schedule has placed.
#[derive(Clone, Debug, Default)]
pub(super) struct Schedule {
    inboxes: Vec<Vec<Delivery>>,
    /// Frames the schedule has placed once (an unplaced frame arrives at its receiver's next
    /// tick; a placed one only where the schedule says).
    placed: FxHashSet<FrameKey>,
    /// Frames some control dropped (not offered again as arriving nowhere).
    dropped: FxHashSet<FrameKey>,
}

impl Schedule {
    pub(super) fn new(steps: usize) -> Schedule {
        Schedule {
            inboxes: vec![Vec::new(); steps],
            ..Schedule::default()
        }
    }

    pub(super) fn inbox(&self, step: usize) -> &[Delivery] {
        self.inboxes.get(step).map_or(&[], Vec::as_slice)
    }

    pub(super) fn inbox_mut(&mut self, step: usize) -> Option<&mut Vec<Delivery>> {
        self.inboxes.get_mut(step)
    }

    /// Places a frame the first time it is seen; false when it was placed before.
    pub(super) fn place_once(&mut self, key: FrameKey) -> bool {
        self.placed.insert(key)
    }

    pub(super) fn is_dropped(&self, key: FrameKey) -> bool {
        self.dropped.contains(&key)
    }

    /// Keeps only the deliveries `keep` accepts (frames a run no longer sends go).
    pub(super) fn retain(&mut self, mut keep: impl FnMut(&Delivery) -> bool) {
        for inbox in &mut self.inboxes {
            inbox.retain(&mut keep);
        }
    }

    /// Takes the delivery out of its slot.
    fn take(&mut self, slot: Slot) -> Result<Delivery, RunError> {
        match slot {
            Slot::At { step, index } => {
                let inbox = (self.inboxes.get_mut(step)).ok_or(RunError::NoSuchDelivery)?;
                if index >= inbox.len() {
                    return Err(RunError::NoSuchDelivery);
                }
                Ok(inbox.remove(index))
            }
            Slot::Nowhere(key) if self.placed.contains(&key) => Ok(Delivery::Frame(key)),
            Slot::Nowhere(_) => Err(RunError::NoSuchDelivery),
        }
    }

    fn get(&self, slot: Slot) -> Option<Delivery> {
        match slot {
            Slot::At { step, index } => self.inboxes.get(step)?.get(index).cloned(),
            Slot::Nowhere(key) => self.placed.contains(&key).then_some(Delivery::Frame(key)),
        }
    }
}

/// The step a slot's delivery arrives at, if any.
fn first_step(slot: Slot) -> Option<usize> {
    match slot {
        Slot::At { step, .. } => Some(step),
        Slot::Nowhere(_) => None,
    }
}

impl NetRun {
    /// The delivery in a slot.
    pub fn delivery(&self, slot: Slot) -> Option<Delivery> {
        self.schedule.get(slot)
    }

    /// The player a delivery in `slot` goes to.
    pub fn receiver(&self, slot: Slot) -> Option<usize> {
        match slot {
            Slot::At { step, .. } => self.script.get(step).map(|t| t.player),
            Slot::Nowhere(key) => Some(key.to),
        }
    }

    /// The step that sent the delivery in `slot` (`None` for a recorded item).
    pub fn sent_step(&self, slot: Slot) -> Option<usize> {
        match self.schedule.get(slot)? {
            Delivery::Frame(key) => Some(key.sender_step),
            Delivery::Recorded(_) => None,
        }
    }

    /// "A tick 3" for step `step`.
    pub fn tick_label(&self, step: usize) -> String {
        self.script.get(step).map_or_else(
            || "the end".to_string(),
            |t| format!("{} tick {}", self.player_name(t.player), t.tick),
        )
    }

    /// "the frame A tick 3 sent to B" for a frame.
    pub fn frame_label(&self, key: FrameKey) -> String {
        format!(
            "the frame {} sent to {}",
            self.tick_label(key.sender_step),
            self.player_name(key.to)
        )
    }

    /// Makes the delivery arrive at its receiver's first tick from the cursor on (first among
    /// that tick's items).
    pub fn deliver_now(&mut self, slot: Slot) -> Result<(), RunError> {
        let to = self.receiver(slot).ok_or(RunError::NoSuchDelivery)?;
        let earliest = self.cursor.max(self.sent_step(slot).map_or(0, |s| s + 1));
        let target = (self.steps_of(to, earliest).next())
            .ok_or_else(|| RunError::NoTickLeft(self.player_name(to)))?;
        if matches!(slot, Slot::At { step, .. } if step == target) {
            return Err(RunError::AlreadyNext(self.player_name(to)));
        }
        self.move_to(slot, target, 0)
    }

    /// Holds the delivery `ticks` more of its receiver's ticks (first among that tick's items);
    /// past the receiver's last tick it arrives nowhere.
    pub fn delay(&mut self, slot: Slot, ticks: usize) -> Result<(), RunError> {
        let Slot::At { step, .. } = slot else {
            return Err(RunError::NoSuchDelivery);
        };
        let to = self.receiver(slot).ok_or(RunError::NoSuchDelivery)?;
        let target = self.steps_of(to, step + 1).nth(ticks.saturating_sub(1));
        match target {
            Some(target) => self.move_to(slot, target, 0),
            None => {
                self.schedule.take(slot)?;
                self.resimulate(step);
                Ok(())
            }
        }
    }

    /// Loses the delivery.
    pub fn drop_delivery(&mut self, slot: Slot) -> Result<(), RunError> {
        if let Delivery::Frame(key) = self.schedule.take(slot)? {
            self.schedule.dropped.insert(key);
        }
        // A frame arriving nowhere changes no tick; the outcome is renewed all the same, for
        // whoever lists what is in flight.
        self.resimulate(first_step(slot).unwrap_or(self.script.len()));
        Ok(())
    }

    /// A second copy of the delivery, right after it.
    pub fn duplicate(&mut self, slot: Slot) -> Result<(), RunError> {
        let Slot::At { step, index } = slot else {
            return Err(RunError::NoSuchDelivery);
        };
        let copy = self.schedule.get(slot).ok_or(RunError::NoSuchDelivery)?;
        if let Some(inbox) = self.schedule.inbox_mut(step) {
            inbox.insert(index + 1, copy);
        }
        self.resimulate(step);
        Ok(())
    }

    /// Moves the delivery in `slot` just before the one in `before`, which must go to the same
    /// player: it arrives at that tick, in that place.
    pub fn reorder(&mut self, slot: Slot, before: Slot) -> Result<(), RunError> {
        if self.receiver(slot) != self.receiver(before) || self.receiver(slot).is_none() {
            return Err(RunError::OtherReceiver);
        }
        let Slot::At { step, index } = before else {
            return Err(RunError::NoSuchDelivery);
        };
        self.schedule.get(before).ok_or(RunError::NoSuchDelivery)?;
        // Taking the moved one out first shifts the target when both are in one inbox.
        let index = match slot {
            Slot::At { step: s, index: i } if s == step && i < index => index - 1,
            _ => index,
        };
        self.move_to(slot, step, index)
    }

    /// Moves a delivery to position `index` of step `target`'s items.
    fn move_to(&mut self, slot: Slot, target: usize, index: usize) -> Result<(), RunError> {
        if let Some(sent) = self.sent_step(slot)
            && target <= sent
        {
            let frame = match self.schedule.get(slot) {
                Some(Delivery::Frame(key)) => self.frame_label(key),
                _ => "the item".to_string(),
            };
            return Err(RunError::BeforeSent {
                frame,
                at: self.tick_label(target),
            });
        }
        let delivery = self.schedule.take(slot)?;
        if let Delivery::Frame(key) = &delivery {
            self.schedule.dropped.remove(key);
        }
        let inbox = (self.schedule.inbox_mut(target)).ok_or(RunError::NoSuchDelivery)?;
        inbox.insert(index.min(inbox.len()), delivery);
        self.resimulate(first_step(slot).map_or(target, |from| from.min(target)));
        Ok(())
    }

    /// Runs the script again on the schedule changed at step `dirty` or later.
    fn resimulate(&mut self, dirty: usize) {
        self.simulate_from(dirty);
    }
}
