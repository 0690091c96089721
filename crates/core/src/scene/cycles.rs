//! Parenting cycles of a [`SceneView`]: finding them along changed edges, recording them in
//! canonical order, and dissolving them when an edge on them changes.

use super::hierarchy::SceneView;
use super::records::{NONE, ROOT_SLOT, flag};
use crate::model::Entity;

impl SceneView {
    /// Follows declared parents from each start and records every cycle met that is not known
    /// yet. Each node is visited at most once per call. Returns the new members' slots.
    ///
    /// A new cycle runs through a changed edge, so the walk from that edge's child finds it;
    /// a start that no node declares as its parent cannot be on a cycle and is skipped. That
    /// is most of them when entities are created (a new entity has no children yet) and every
    /// leaf on a rebuild.
    pub(super) fn find_cycles_from(&mut self, starts: &[u32]) -> Vec<u32> {
        let pass = self.next_pass();
        let mut new_members = Vec::new();
        for (walk_id, &start) in starts.iter().enumerate() {
            if self.referrers[start as usize] == 0 {
                continue;
            }
            let walk_id = walk_id as u32;
            let mut s = start as usize;
            loop {
                if s == ROOT_SLOT as usize
                    || self.node[s].flags & flag::HAS_TRANSFORM == 0
                    || self.cycle[s] != NONE
                {
                    break; // reached the root, an implicit or Transform-less node, or a known cycle
                }
                if self.node[s].mark == pass {
                    if self.walk[s] == walk_id {
                        let members = self.record_cycle(s);
                        new_members.extend(members);
                    }
                    break;
                }
                self.node[s].mark = pass;
                self.walk[s] = walk_id;
                self.stats.cycle_walk_steps += 1;
                match self.index.get(self.node[s].declared) {
                    Some(p) => s = p as usize,
                    None => break,
                }
            }
        }
        new_members
    }

    /// Records the cycle through `on_cycle` and returns its member slots.
    fn record_cycle(&mut self, on_cycle: usize) -> Vec<u32> {
        let mut slots = vec![on_cycle as u32];
        let mut s = self.node_slot(self.node[on_cycle].declared) as usize;
        while s != on_cycle {
            slots.push(s as u32);
            s = self.node_slot(self.node[s].declared) as usize;
        }
        // Canonical order: parent order, starting from the smallest entity.
        let start = (0..slots.len())
            .min_by_key(|&i| self.entity[slots[i] as usize])
            .unwrap_or(0);
        slots.rotate_left(start);
        let members: Vec<Entity> = slots.iter().map(|&s| self.entity[s as usize]).collect();
        let id = match self.free_cycles.pop() {
            Some(id) => {
                self.cycles[id as usize] = Some(members);
                id
            }
            None => {
                self.cycles.push(Some(members));
                (self.cycles.len() - 1) as u32
            }
        };
        for &s in &slots {
            self.cycle[s as usize] = id;
        }
        slots
    }

    /// Forgets a cycle; returns its former members' slots.
    pub(super) fn dissolve_cycle(&mut self, id: u32) -> Vec<u32> {
        let Some(members) = self.cycles[id as usize].take() else {
            return Vec::new();
        };
        self.free_cycles.push(id);
        let slots: Vec<u32> = members.iter().filter_map(|&e| self.index.get(e)).collect();
        for &s in &slots {
            self.cycle[s as usize] = NONE;
        }
        slots
    }
}
