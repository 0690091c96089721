//! The viewport widget driven like a user would, through egui_kittest, with the GPU renderer
//! stubbed out: picking clicks, gizmo drags (with the app writing the results back, as the
//! editor will), camera drags, shortcuts, and that static frames do not re-render.

use eframe::egui::{self, Event, Key, Modifiers, PointerButton, Pos2, Rect};
use egui_kittest::Harness;
use glam::{Vec2, Vec3};
use scenetree::ui::command::{self, CommandContext};
use scenetree_core::model::Entity;
use scenetree_viewport::{
    DragPhase, GizmoEvent, GizmoMode, NullRenderer, Orientation, Pick, RenderRequest, Viewport,
    ViewportRenderer, ViewportScene, demo,
};

struct App {
    viewport: Viewport,
    scene: ViewportScene,
    renderer: NullRenderer,
    rect: Rect,
    picks: Vec<Pick>,
    gizmo: Vec<GizmoEvent>,
    framed: usize,
}

impl App {
    fn frame(&mut self, ui: &mut egui::Ui) {
        // The keys go through the editor's command table, as in the app.
        let context = CommandContext {
            gizmo_dragging: self.viewport.is_dragging_gizmo(),
            has_selection: !self.scene.gizmo_targets.is_empty(),
            ..CommandContext::default()
        };
        for command in command::dispatch(ui.ctx(), &context) {
            if let Some(viewport_command) = command.viewport_command() {
                self.viewport.run(viewport_command);
            }
        }
        let r = self.viewport.ui(ui, &self.scene, &mut self.renderer);
        self.rect = r.response.rect;
        self.picks.extend(r.pick);
        self.framed += r.frame_selection as usize;
        if let Some(event) = r.gizmo {
            // What the editor does: write the new locals, which changes the scene.
            for t in &event.targets {
                if let Some(item) = self.scene.items.iter_mut().find(|i| i.entity == t.entity) {
                    item.world = t.world;
                }
                if let Some(g) = self
                    .scene
                    .gizmo_targets
                    .iter_mut()
                    .find(|g| g.entity == t.entity)
                {
                    g.local = t.local;
                }
            }
            self.scene.generation += 1;
            self.gizmo.push(event);
        }
    }

    /// Screen position (points) of a world point.
    fn screen(&self, p: Vec3) -> Pos2 {
        let s = self
            .viewport
            .camera
            .project(p, Vec2::new(self.rect.width(), self.rect.height()))
            .unwrap();
        let pos = self.rect.min + egui::vec2(s.x, s.y);
        assert!(
            self.rect.shrink(30.0).contains(pos),
            "{p} is off screen at {pos:?}"
        );
        pos
    }
}

/// The gizmo mode keys, in an order that changes the mode every time.
pub(crate) const MODE_KEYS: [(Key, GizmoMode); 3] = [
    (Key::E, GizmoMode::Rotate),
    (Key::R, GizmoMode::Scale),
    (Key::W, GizmoMode::Translate),
];

/// A bare spot on the ground, well inside the default view.
const GROUND: Vec3 = Vec3::new(-5.0, 0.0, 7.0);

fn harness() -> Harness<'static, App> {
    let app = App {
        viewport: Viewport::default(),
        scene: demo::showroom(),
        renderer: NullRenderer::default(),
        rect: Rect::NOTHING,
        picks: vec![],
        gizmo: vec![],
        framed: 0,
    };
    let mut h = Harness::builder()
        .with_size(egui::vec2(800.0, 600.0))
        .build_ui_state(|ui, app: &mut App| app.frame(ui), app);
    h.run();
    h
}

fn click(h: &mut Harness<'_, App>, pos: Pos2, modifiers: Modifiers) {
    h.event(Event::ModifiersChanged(modifiers));
    h.hover_at(pos);
    for pressed in [true, false] {
        h.event(Event::PointerButton {
            pos,
            button: PointerButton::Primary,
            pressed,
            modifiers,
        });
    }
    h.event(Event::ModifiersChanged(Modifiers::NONE));
    h.run();
}

fn drag(h: &mut Harness<'_, App>, from: Pos2, to: Pos2, modifiers: Modifiers) {
    h.event(Event::ModifiersChanged(modifiers));
    h.hover_at(from);
    h.run();
    h.drag_at(from);
    h.run();
    for i in 1..=8 {
        h.hover_at(from + (to - from) * (i as f32 / 8.0));
        h.run();
    }
    h.event(Event::PointerButton {
        pos: to,
        button: PointerButton::Primary,
        pressed: false,
        modifiers,
    });
    h.event(Event::ModifiersChanged(Modifiers::NONE));
    h.run();
}

fn item_pos(h: &Harness<'_, App>, n: u16) -> Vec3 {
    let e = Entity::from_parts(n, 0);
    h.state()
        .scene
        .items
        .iter()
        .find(|i| i.entity == e)
        .unwrap()
        .world
        .w_axis
        .truncate()
}

#[test]
fn clicking_picks_the_entity_under_the_pointer_or_the_background() {
    let mut h = harness();
    // (The sphere would be under the selected box's X arrow: gizmo handles win over picks.)
    let cylinder = h.state().screen(item_pos(&h, 514));
    click(&mut h, cylinder, Modifiers::NONE);
    let ground = h.state().screen(GROUND);
    click(&mut h, ground, Modifiers::CTRL);
    let cone = h.state().screen(item_pos(&h, 515));
    click(&mut h, cone, Modifiers::SHIFT);
    let picks = &h.state().picks;
    assert_eq!(picks.len(), 3, "{picks:?}");
    assert_eq!(
        picks[0],
        Pick {
            entity: Some(Entity::from_parts(514, 0)),
            ctrl: false,
            shift: false
        }
    );
    assert_eq!(
        picks[1],
        Pick {
            entity: None,
            ctrl: true,
            shift: false
        }
    );
    assert_eq!(
        picks[2],
        Pick {
            entity: Some(Entity::from_parts(515, 0)),
            ctrl: false,
            shift: true
        }
    );
    assert!(h.state().gizmo.is_empty());
}

#[test]
fn dragging_the_x_arrow_moves_the_selection_along_plus_x_in_one_begin_update_end() {
    let mut h = harness();
    let start = item_pos(&h, 512);
    let camera = h.state().viewport.camera.clone();
    let length = camera.meters_per_pixel(start, 600.0) * h.state().viewport.gizmo.size_points;
    let grab = h.state().screen(start + Vec3::X * length * 0.6);
    drag(&mut h, grab, grab + egui::vec2(120.0, 0.0), Modifiers::NONE);

    let phases: Vec<DragPhase> = h.state().gizmo.iter().map(|e| e.phase).collect();
    assert_eq!(phases.first(), Some(&DragPhase::Begin), "{phases:?}");
    assert_eq!(phases.last(), Some(&DragPhase::End));
    assert!(
        phases[1..phases.len() - 1]
            .iter()
            .all(|p| *p == DragPhase::Update)
    );
    assert!(phases.len() >= 4, "several updates: {phases:?}");
    let end = item_pos(&h, 512);
    assert!(
        end.x > start.x + 0.5,
        "moved right along +X: {start} → {end}"
    );
    assert_eq!((end.y, end.z), (start.y, start.z), "only X changes");
    let last = h.state().gizmo.last().unwrap();
    assert_eq!(
        last.targets[0].local.position, end,
        "root entity: local = world"
    );
    assert!(h.state().picks.is_empty(), "a gizmo drag is not a click");
    assert_eq!(h.state().viewport.camera, camera, "and does not orbit");
}

#[test]
fn ctrl_snaps_a_gizmo_drag_and_escape_cancels_one() {
    let mut h = harness();
    let start = item_pos(&h, 512);
    let length = h.state().viewport.camera.meters_per_pixel(start, 600.0) * 90.0;
    let grab = h.state().screen(start + Vec3::X * length * 0.6);
    drag(&mut h, grab, grab + egui::vec2(97.0, 0.0), Modifiers::CTRL);
    let moved = item_pos(&h, 512).x - start.x;
    let steps = moved / 0.25;
    assert!(
        moved > 0.2 && (steps - steps.round()).abs() < 1e-3,
        "snapped to 0.25 m: {moved}"
    );

    // Escape mid-drag: a Cancel event carries the start values, and nothing moves after it.
    h.state_mut().gizmo.clear();
    let before = item_pos(&h, 512);
    let grab = h.state().screen(before + Vec3::X * length * 0.6);
    h.hover_at(grab);
    h.run();
    h.drag_at(grab);
    h.run();
    for dx in [20.0, 40.0] {
        h.hover_at(grab + egui::vec2(dx, 0.0));
        h.run();
    }
    h.key_press(Key::Escape);
    h.run();
    h.hover_at(grab + egui::vec2(80.0, 0.0));
    h.run();
    h.drop_at(grab + egui::vec2(80.0, 0.0));
    h.run();
    let events = &h.state().gizmo;
    let cancel = events
        .iter()
        .find(|e| e.phase == DragPhase::Cancel)
        .expect("a Cancel");
    assert_eq!(cancel.targets[0].local.position, before);
    assert_eq!(
        events.last().unwrap().phase,
        DragPhase::Cancel,
        "no End or Update after it"
    );
    assert_eq!(item_pos(&h, 512), before);
}

#[test]
fn dragging_the_background_orbits_and_scrolling_zooms() {
    let mut h = harness();
    let before = h.state().viewport.camera.clone();
    let from = h.state().screen(GROUND);
    drag(&mut h, from, from + egui::vec2(100.0, 0.0), Modifiers::NONE);
    let after = h.state().viewport.camera.clone();
    assert!(
        after.yaw != before.yaw && after.target == before.target,
        "orbit"
    );
    assert!(h.state().gizmo.is_empty() && h.state().picks.is_empty());

    drag(&mut h, from, from + egui::vec2(50.0, 0.0), Modifiers::SHIFT);
    assert!(
        h.state().viewport.camera.target != after.target,
        "shift-drag pans"
    );

    let d = h.state().viewport.camera.distance;
    h.hover_at(h.state().rect.center());
    h.event(Event::MouseWheel {
        unit: egui::MouseWheelUnit::Point,
        delta: egui::vec2(0.0, 120.0),
        modifiers: Modifiers::NONE,
        phase: egui::TouchPhase::Move,
    });
    h.run();
    assert!(h.state().viewport.camera.distance < d, "wheel up zooms in");
}

#[test]
fn shortcuts_switch_mode_and_orientation_and_f_frames_the_selection() {
    let mut h = harness();
    h.hover_at(h.state().rect.center());
    h.run();
    for (key, mode) in MODE_KEYS {
        h.key_press(key);
        h.run();
        assert_eq!(h.state().viewport.gizmo.mode, mode);
    }
    assert_eq!(h.state().viewport.gizmo.orientation, Orientation::World);
    h.key_press(Key::X);
    h.run();
    assert_eq!(h.state().viewport.gizmo.orientation, Orientation::Local);
    h.key_press(Key::F);
    h.run();
    assert_eq!(h.state().framed, 1);
    let cam = &h.state().viewport.camera;
    assert!(
        cam.target.distance(item_pos(&h, 512)) < 1e-4,
        "framed on the selected box"
    );
    assert!(cam.distance < 5.0, "close to a 1 m box: {}", cam.distance);
}

#[test]
fn static_frames_do_not_render_again() {
    let mut h = harness();
    let first = h.state().renderer.renders;
    assert!(first >= 1);
    for _ in 0..5 {
        h.step();
    }
    assert_eq!(
        h.state().renderer.renders,
        first,
        "nothing changed, nothing rendered"
    );
    h.state_mut().scene.generation += 1;
    h.step();
    assert_eq!(
        h.state().renderer.renders,
        first + 1,
        "a new generation renders"
    );
    h.state_mut().viewport.camera.yaw += 0.1;
    h.step();
    assert_eq!(
        h.state().renderer.renders,
        first + 2,
        "a camera move renders"
    );
    let r = h.state().rect;
    assert_eq!(
        h.state().renderer.last_size_px,
        Some([r.width() as u32, r.height() as u32])
    );
}

/// A renderer whose model uploads take a few frames, counting renders and their kind.
#[derive(Default)]
struct SlowUploads {
    upload_frames_left: usize,
    renders: Vec<bool>,
}

impl ViewportRenderer for SlowUploads {
    fn render(&mut self, request: &RenderRequest<'_>) -> Option<egui::TextureId> {
        self.renders.push(request.multisample);
        None
    }
    fn prepare(&mut self, _scene: &ViewportScene) -> bool {
        self.upload_frames_left = self.upload_frames_left.saturating_sub(1);
        self.upload_frames_left > 0
    }
}

#[test]
fn while_models_upload_changes_wait_but_the_users_camera_is_drawn_at_once() {
    let mut viewport = Viewport::default();
    let mut scene = demo::showroom();
    let mut renderer = SlowUploads::default();
    let ctx = egui::Context::default();
    let frame_with = |viewport: &mut Viewport,
                      scene: &ViewportScene,
                      r: &mut SlowUploads,
                      events: Vec<Event>| {
        let input = egui::RawInput {
            events,
            ..Default::default()
        };
        let mut output = ctx.run_ui(input, |ui| {
            viewport.ui(ui, scene, r);
        });
        output.textures_delta.clear();
    };
    let frame = |viewport: &mut Viewport, scene: &ViewportScene, r: &mut SlowUploads| {
        frame_with(viewport, scene, r, Vec::new())
    };
    frame(&mut viewport, &scene, &mut renderer);
    assert_eq!(renderer.renders, [true], "the first view, multisampled");
    assert!(viewport.image_is_final());
    // Models arrive (a new generation) and take five frames to upload: nothing is drawn
    // until they are all in, then the view is drawn once.
    scene.generation += 1;
    renderer.upload_frames_left = 6;
    for _ in 0..4 {
        frame(&mut viewport, &scene, &mut renderer);
        assert_eq!(renderer.renders.len(), 1, "no render while uploading");
        assert!(!viewport.image_is_final());
    }
    frame(&mut viewport, &scene, &mut renderer);
    frame(&mut viewport, &scene, &mut renderer);
    assert_eq!(renderer.renders, [true, true], "one render once uploaded");
    assert!(viewport.image_is_final());
    // The camera moved from outside during uploads (the editor framing the scene again as
    // its models arrive) waits for them like the scene does.
    scene.generation += 1;
    renderer.upload_frames_left = 3;
    viewport.camera.yaw += 0.3;
    frame(&mut viewport, &scene, &mut renderer);
    frame(&mut viewport, &scene, &mut renderer);
    assert_eq!(renderer.renders.len(), 2, "no render while uploading");
    frame(&mut viewport, &scene, &mut renderer);
    assert_eq!(renderer.renders.len(), 3, "drawn once uploaded");
    assert!(viewport.image_is_final());
    // The user's own camera move (the wheel) during uploads is drawn at once, and again
    // when they finish.
    scene.generation += 1;
    renderer.upload_frames_left = 3;
    let over_the_view = viewport.rect().center();
    let zoom = vec![
        Event::PointerMoved(over_the_view),
        Event::MouseWheel {
            unit: egui::MouseWheelUnit::Point,
            delta: egui::vec2(0.0, 120.0),
            modifiers: Modifiers::NONE,
            phase: egui::TouchPhase::Move,
        },
    ];
    let distance = viewport.camera.distance;
    frame_with(&mut viewport, &scene, &mut renderer, zoom);
    assert!(viewport.camera.distance < distance, "the wheel zoomed");
    assert_eq!(
        renderer.renders.len(),
        4,
        "the user's zoom is drawn at once"
    );
    assert!(!viewport.image_is_final());
    // egui spreads a wheel step over a few frames: each step of the zoom is drawn.
    for _ in 0..30 {
        frame(&mut viewport, &scene, &mut renderer);
    }
    assert!(viewport.image_is_final(), "drawn again once uploaded");
    let drawn = renderer.renders.len();
    frame(&mut viewport, &scene, &mut renderer);
    assert_eq!(renderer.renders.len(), drawn, "and then left alone");
}
