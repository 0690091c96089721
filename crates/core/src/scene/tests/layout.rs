//! How the view lays out its rows: moved subtrees keep parents first, a view moved or grown a
//! great deal is laid out again, and a layout depends on the content alone, not on the
//! history or the number of threads.

use super::*;

#[test]
fn moved_subtrees_keep_parents_first_and_holes_get_compacted() {
    // A chain 512 > 513 > ... > 611; hang its head under the last node of a later tree so
    // that the whole chain must move behind it, repeatedly.
    let mut table = TransformTable::new();
    add_chain(&mut table, 512, 100, Vec3::ZERO);
    add_chain(&mut table, 2000, 100, Vec3::ZERO);
    let mut view = SceneView::from_source(&table);
    let slots_before = view.entity.len();
    for round in 0..40 {
        // Alternate the chain's head between the end of the other chain and the root.
        let parent = if round % 2 == 0 {
            Entity(2099)
        } else {
            Entity::ROOT
        };
        table.set(
            Entity(512),
            Transform {
                position: Vec3::X,
                ..Transform::identity_under(parent)
            },
        );
        view.update(&table);
        view.assert_consistent();
        let depth_x = view.world_affine(Entity(611)).unwrap().translation.x;
        assert_eq!(depth_x, 1.0, "round {round}: the chain follows its head");
    }
    // 40 moves of 100 nodes left holes, compacted before they outnumber the nodes much.
    assert!(
        view.entity.len() <= 2 * view.len() + 1024 + 100,
        "{}",
        view.entity.len()
    );
    assert!(view.entity.len() >= slots_before);
}

#[test]
fn a_large_share_of_the_view_moved_at_once_is_laid_out_again_instead_of_copied() {
    // A chain of 6,000 (above the size where layouts pay): moving the node at 3,600 moves
    // 2,400 nodes, over a quarter of the view (though under the half that would make the
    // copied nodes call for a layout afterwards), so the update lays every node out again
    // (no holes, nothing appended); moving a node near the end copies only its short
    // subtree to the end.
    let n = 6000u32;
    let mut table = TransformTable::new();
    add_chain(&mut table, 512, n, Vec3::X);
    let mut view = SceneView::from_source(&table);
    for round in 0..4u32 {
        // The node at 3,600 goes under the root and back; then the node 10 from the end
        // goes under the head and back.
        let (moved, parent) = match round {
            0 => (Entity(512 + 3600), Entity::ROOT),
            1 => (Entity(512 + 3600), Entity(512 + 3599)),
            2 => (Entity(512 + n - 10), Entity(512)),
            _ => (Entity(512 + n - 10), Entity(512 + n - 11)),
        };
        table.set(
            moved,
            Transform {
                position: Vec3::X,
                ..Transform::identity_under(parent)
            },
        );
        view.update(&table);
        view.assert_consistent();
        assert_same_as_fresh(&view, &table);
        let laid_out = view.appended_since_layout == 0 && view.entity.len() == view.len();
        assert_eq!(laid_out, round < 2, "round {round}");
    }
    let last = view
        .world_affine(Entity(512 + n - 1))
        .unwrap()
        .translation
        .x;
    assert_eq!(last, n as f32, "the chain is whole again");
}

#[test]
fn a_view_grown_frame_by_frame_is_laid_out_again_so_siblings_stay_together() {
    let mut rng = ChaCha8Rng::seed_from_u64(23);
    let full = random_table(&mut rng, 12_000);
    let mut table = TransformTable::new();
    let mut view = SceneView::new();
    // Entities arrive in id order, 1,000 a frame, each under a random earlier one: appended
    // at the end, apart from their siblings.
    let rows: Vec<(Entity, Transform)> = full.iter().map(|(e, t)| (e, *t)).collect();
    for (i, frame) in rows.chunks(1000).enumerate() {
        for &(e, t) in frame {
            table.set(e, t);
        }
        view.update(&table);
        view.assert_consistent();
        // The first frame finds the view empty: it reads the source whole.
        assert_eq!(view.last_update_stats().rebuilt, i == 0, "frame {i}");
        if view.len() >= 4096 {
            assert!(
                view.appended_since_layout * 2 < view.len(),
                "{} of {} nodes appended since the last layout",
                view.appended_since_layout,
                view.len()
            );
        }
    }
    assert_same_as_fresh(&view, &table);
}

#[test]
fn a_view_that_stops_growing_short_of_half_new_is_laid_out_again_once_its_moves_have_paid() {
    let mut rng = ChaCha8Rng::seed_from_u64(29);
    let full = random_table(&mut rng, 13_000);
    let rows: Vec<(Entity, Transform)> = full.iter().map(|(e, t)| (e, *t)).collect();
    let mut table = TransformTable::new();
    let mut view = SceneView::new();
    for frame in rows.chunks(1000) {
        for &(e, t) in frame {
            table.set(e, t);
        }
        view.update(&table);
    }
    // Grown in frames, the view was last laid out at 11,000 nodes: 2,000 are scattered, too
    // few for the growth rule.
    assert!(view.appended_since_layout * 8 >= view.len());
    // Then the scene only moves, as a played animation or a peer's edits do.
    for _ in 0..40 {
        for _ in 0..1000 {
            let (e, t) = rows[rng.random_range(0..rows.len())];
            table.set(
                e,
                Transform {
                    position: t.position + Vec3::X,
                    ..t
                },
            );
        }
        view.update(&table);
        view.assert_consistent();
    }
    assert!(
        view.appended_since_layout * 8 < view.len(),
        "{} of {} nodes still scattered after 40 frames of moves",
        view.appended_since_layout,
        view.len()
    );
    assert_same_as_fresh(&view, &table);
}

#[test]
fn a_layout_on_every_core_equals_the_one_thread_layout() {
    let mut rng = ChaCha8Rng::seed_from_u64(35);
    let n = 5000u32;
    let mut table = random_table(&mut rng, n);
    let pool = rayon::ThreadPoolBuilder::new()
        .num_threads(4)
        .build()
        .unwrap();
    pool.install(|| {
        let mut one_thread = SceneView::from_source(&table);
        let mut every_core = one_thread.clone();
        one_thread.set_parallel_grain(usize::MAX, 4096);
        every_core.set_parallel_grain(0, 8);
        // Re-parented subtrees move to the end: the layout has blocks and holes to undo.
        for _ in 0..300 {
            move_at_random(&mut rng, &mut table, 1..n, 0..n);
        }
        for view in [&mut one_thread, &mut every_core] {
            view.update(&table);
            view.relayout();
            view.assert_consistent();
        }
        assert_eq!(one_thread.entity, every_core.entity);
        assert_eq!(one_thread.node, every_core.node);
        assert_eq!(one_thread.local, every_core.local);
        assert_eq!(one_thread.world, every_core.world);
        assert_eq!(one_thread.cycle, every_core.cycle);
        assert_eq!(one_thread.referrers, every_core.referrers);
    });
}

#[test]
fn a_layout_depends_on_the_content_not_on_the_history() {
    let mut rng = ChaCha8Rng::seed_from_u64(36);
    let n = 3000u32;
    let mut table = random_table(&mut rng, n);
    let mut edited = SceneView::from_source(&table);
    // Re-parenting appends children to lists out of entity order; new entities come last.
    for round in 0..20 {
        for _ in 0..50 {
            move_at_random(&mut rng, &mut table, 1..n + 40 * round, 0..n);
        }
        edited.update(&table);
    }
    edited.relayout();
    edited.assert_consistent();
    let mut fresh = SceneView::from_source(&table);
    fresh.relayout();
    let first_difference = (edited.entity.iter().zip(&fresh.entity)).position(|(a, b)| a != b);
    assert_eq!(
        (edited.entity.len(), first_difference),
        (fresh.entity.len(), None),
        "slot order"
    );
    // Where the source stored each Transform is a cache of the history, not content.
    let content = |n: &Node| Node {
        source_hint: NO_HINT,
        ..*n
    };
    let differing =
        (edited.node.iter().zip(&fresh.node)).position(|(a, b)| content(a) != content(b));
    assert_eq!(
        differing,
        None,
        "{:?}",
        differing.map(|i| (edited.node[i], fresh.node[i]))
    );
    assert_eq!(edited.first_child, fresh.first_child);
    assert_eq!(edited.next_sibling, fresh.next_sibling);
    assert_eq!(edited.prev_sibling, fresh.prev_sibling);
}
