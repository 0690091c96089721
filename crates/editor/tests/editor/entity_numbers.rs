//! Edits that need more entity numbers than the scene has free.

use scenetree_core::crdt::Replica;
use scenetree_core::model::{Entity, Transform};
use scenetree_editor::{Command, Document, EditError};

#[test]
fn an_edit_that_needs_more_entity_numbers_than_are_free_says_how_many() {
    // 65,000 of the 65,024 numbers in use: 24 free.
    let mut replica = Replica::new();
    for number in 512..65_512 {
        replica
            .put_transform(Entity(number), &Transform::IDENTITY)
            .unwrap();
    }
    let mut doc = Document::new(replica, None);
    let before = doc.replica().digest();
    let thirty: Vec<Entity> = (512..542).map(Entity).collect();
    let err = doc
        .apply(Command::Duplicate { entities: thirty })
        .unwrap_err();
    assert_eq!(
        err,
        EditError::Full {
            needed: 30,
            free: 24
        }
    );
    assert!(
        err.to_string()
            .contains("needs 30 new entit(ies) but only 24"),
        "{err}"
    );
    assert_eq!(doc.replica().digest(), before, "nothing created");
    let twenty: Vec<Entity> = (512..532).map(Entity).collect();
    assert_eq!(
        doc.apply(Command::Duplicate { entities: twenty })
            .unwrap()
            .created
            .len(),
        20
    );
}
