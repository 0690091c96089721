//! Loro's `LoroTree` fed the same moves as `TreePolicy::MoveOpSkip`:
//! one `LoroDoc` per simulated peer, synced with the network's own delivery order.
//!
//! A setup document (peer 0) creates one tree node per entity the whole timeline names, all at
//! the root (an entity without a Transform is at the root), then moves the initial parents in
//! ascending entity order; every peer's document imports it. Then, event by event:
//!
//! - a Transform write a peer authors is a `mov` in that peer's document, unless its parent is
//!   already the node's parent there (not a move), and Loro refuses it when the parent is the
//!   node or below it (`CyclicMoveError`: no move). A removed Transform is a move to the root.
//! - a delivered Transform message imports, into the receiver's document, the change its
//!   origin made (a reply or duplicate carries an earlier write's change; a write merged into
//!   the same tick's earlier write, "one message per tick", carries that write's changes too);
//!   Loro keeps a change whose dependencies are missing pending until they arrive.
//!
//! What Loro's API cannot say, and is therefore not checked: Decentraland's *deleted entity*
//! (DELETE_ENTITY retires the id for good, while a Loro node that a concurrent move targets
//! comes back). The node is never deleted here; moves of it go on in both implementations, and
//! the policy board draws only the entities the replica still has. Missing parents and removed
//! Transforms are expressible: every entity has a node from the start, and a removal is a move
//! to the root.

use loro::{ExportMode, IdSpan, LoroDoc, LoroError, LoroTree, TreeID, TreeParentId};
use rustc_hash::FxHashMap;

use scenetree_core::crdt::Network;
use scenetree_core::crdt::network::{ParentWrite, ParentWriteTracker, PeerId, WriteOrigin};
use scenetree_core::model::Entity;

/// The Loro peer id of the setup document (simulated peers keep their numbers, 1 to 8).
const SETUP_PEER: u64 = 0;

/// Loro documents following a network's timeline.
pub struct LoroReference {
    docs: Vec<LoroDoc>,
    nodes: FxHashMap<Entity, TreeID>,
    entities: FxHashMap<TreeID, Entity>,
    tracker: ParentWriteTracker,
    /// The exported changes each write's messages carry: its own move, if it was one, after
    /// those of the earlier write of the same tick it replaced.
    changes: FxHashMap<WriteOrigin, Vec<Vec<u8>>>,
    processed: usize,
    writes: Vec<ParentWrite>,
}

impl LoroReference {
    /// Documents at `network`'s start, with a node for every entity its timeline names.
    pub fn new(network: &Network) -> Result<LoroReference, LoroError> {
        let initial = ParentWriteTracker::initial_writes(network.initial_replica(), PeerId(1));
        let mut named: Vec<Entity> = Vec::new();
        let mut scan = ParentWriteTracker::new(network);
        let mut writes = initial.clone();
        for event in network.events() {
            scan.track(event, &mut writes);
        }
        for w in &writes {
            named.extend([w.entity, w.parent()]);
        }
        named.retain(|e| !e.is_root());
        named.sort_unstable();
        named.dedup();

        let setup = LoroDoc::new();
        setup.set_peer_id(SETUP_PEER)?;
        let tree = setup.get_tree("scene");
        tree.disable_fractional_index();
        let mut nodes = FxHashMap::default();
        for &entity in &named {
            nodes.insert(entity, tree.create(TreeParentId::Root)?);
        }
        let entities = nodes.iter().map(|(e, id)| (*id, *e)).collect();
        let mut reference = LoroReference {
            docs: Vec::new(),
            nodes,
            entities,
            tracker: ParentWriteTracker::new(network),
            changes: FxHashMap::default(),
            processed: 0,
            writes: Vec::new(),
        };
        for write in &initial {
            reference.mov(&setup, write)?;
        }
        setup.commit();
        let start = setup.export(ExportMode::Snapshot).map_err(encode_error)?;
        for peer in network.peers() {
            let doc = LoroDoc::new();
            doc.set_peer_id(u64::from(peer.0))?;
            doc.import(&start)?;
            doc.get_tree("scene").disable_fractional_index();
            reference.docs.push(doc);
        }
        Ok(reference)
    }

    /// Reads the network's events up to its cursor. The timeline must only have grown since
    /// the last call (build a new reference after a seek backwards).
    pub fn sync(&mut self, network: &Network) -> Result<(), LoroError> {
        let cursor = network.cursor();
        for event in &network.events()[self.processed.min(cursor)..cursor] {
            self.writes.clear();
            self.tracker.track(event, &mut self.writes);
            for write in std::mem::take(&mut self.writes) {
                let doc = &self.docs[write.peer.index()];
                if write.local {
                    let mut carried = write
                        .replaces
                        .and_then(|o| self.changes.remove(&o))
                        .unwrap_or_default();
                    if let Some(span) = self.mov(doc, &write)? {
                        carried.push(
                            doc.export(ExportMode::updates_in_range(vec![span]))
                                .map_err(encode_error)?,
                        );
                    }
                    self.changes.insert(write.origin, carried);
                } else if let Some(carried) = self.changes.get(&write.origin) {
                    for change in carried {
                        doc.import(change)?;
                    }
                }
            }
        }
        self.processed = cursor;
        Ok(())
    }

    /// The parent `entity`'s node has in `peer`'s document (`None` for an entity without a
    /// node or an unknown peer).
    pub fn parent(&self, peer: PeerId, entity: Entity) -> Option<Entity> {
        let doc = self.docs.get(peer.index())?;
        let node = *self.nodes.get(&entity)?;
        match doc.get_tree("scene").parent(node)? {
            TreeParentId::Root => Some(Entity::ROOT),
            TreeParentId::Node(id) => self.entities.get(&id).copied(),
            TreeParentId::Deleted | TreeParentId::Unexist => None,
        }
    }

    /// Every entity with a node.
    pub fn entities(&self) -> impl Iterator<Item = Entity> + '_ {
        self.nodes.keys().copied()
    }

    /// Moves the write's node in `doc` and returns the change's id span, or `None` when the
    /// write is no move there (same parent, or Loro's `CyclicMoveError`).
    fn mov(&self, doc: &LoroDoc, write: &ParentWrite) -> Result<Option<IdSpan>, LoroError> {
        let tree: LoroTree = doc.get_tree("scene");
        let node = self.nodes[&write.entity];
        let parent = match write.parent() {
            p if p.is_root() => TreeParentId::Root,
            p => TreeParentId::Node(self.nodes[&p]),
        };
        if tree.parent(node) == Some(parent) {
            return Ok(None);
        }
        let peer = doc.peer_id();
        let counter = doc.oplog_vv().get(&peer).copied().unwrap_or(0);
        match tree.mov(node, parent) {
            Ok(()) => {}
            Err(LoroError::TreeError(loro::LoroTreeError::CyclicMoveError)) => return Ok(None),
            Err(e) => return Err(e),
        }
        doc.commit();
        Ok(Some(IdSpan::new(peer, counter, counter + 1)))
    }
}

fn encode_error(e: loro::LoroEncodeError) -> LoroError {
    LoroError::Unknown(e.to_string().into())
}
