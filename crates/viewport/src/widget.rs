//! The viewport widget: input (camera, picking, gizmo, shortcuts), the cached 3D image, and
//! the overlays (gizmo, axis indicator, toolbar).

use eframe::egui::{
    self, Align, Color32, Layout, PointerButton, Pos2, Rect, Sense, Shape as EguiShape, Stroke,
    TextureId, UiBuilder,
};
use glam::{Vec2, Vec3};

use super::{
    DrawItem, GizmoEvent, OrbitCamera, ViewportScene,
    bounds::Aabb,
    camera::ViewDirection,
    gizmo::{self, GizmoFrame, GizmoMode, GizmoSettings, Orientation, PivotMode},
    gizmo_drag::{ActiveGizmoDrag, DragPhase, DragTarget},
    picking,
    renderer::{RenderRequest, ViewportRenderer},
};
use crate::style;
use scenetree_core::model::Entity;

/// A click in the viewport: the entity under the pointer, or `None` for the background.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub struct Pick {
    /// The nearest entity hit, `None` when the click hit nothing.
    pub entity: Option<Entity>,
    /// Ctrl (Cmd on macOS) was held: usually "toggle in selection".
    pub ctrl: bool,
    /// Shift was held: usually "add to selection".
    pub shift: bool,
}

/// What happened in the viewport this frame.
#[derive(Debug)]
pub struct ViewportResponse {
    /// The egui response of the whole viewport area.
    pub response: egui::Response,
    /// A click picked an entity or the background.
    pub pick: Option<Pick>,
    /// A gizmo drag began, moved, ended or was cancelled.
    pub gizmo: Option<GizmoEvent>,
    /// A [`ViewportCommand::Frame`] ran: the camera was moved to frame the selection (or
    /// everything).
    pub frame_selection: bool,
    /// The renderer was asked for a new image this frame (false on static frames).
    pub rendered: bool,
}

#[derive(Clone, Debug)]
enum Drag {
    Orbit,
    Pan,
    Gizmo {
        drag: ActiveGizmoDrag,
        last: Vec<DragTarget>,
    },
    /// Escape ended a gizmo drag; the pointer is still down and moves nothing.
    Cancelled,
}

/// Everything that decides the image; when it is unchanged the last image is reused.
#[derive(Clone, Debug, PartialEq)]
struct RenderKey {
    generation: u64,
    camera: OrbitCamera,
    size_px: [u32; 2],
    background: Color32,
    multisample: bool,
}

/// The viewport widget's state: camera, gizmo settings, the drag in progress and the cached
/// image. Keep one per viewport panel.
#[derive(Debug)]
pub struct Viewport {
    /// The orbit camera (free to change from outside, e.g. to frame a loaded scene).
    pub camera: OrbitCamera,
    /// Gizmo mode, orientation and snapping.
    pub gizmo: GizmoSettings,
    /// Clear colour of the 3D image.
    pub background: Color32,
    /// Show the mode / orientation toolbar in the top-left corner.
    pub show_toolbar: bool,
    /// Show the world axes in the bottom-left corner (small views leave them out).
    pub show_axes: bool,
    /// The toolbar's tooltips, which name the app's shortcuts for its buttons.
    pub toolbar_hints: ToolbarHints,
    drag: Option<Drag>,
    rendered: Option<RenderKey>,
    texture: Option<TextureId>,
    /// Escape arrived during a gizmo drag; the next frame cancels it.
    cancel_requested: bool,
    /// What to frame on the next frame (the aspect ratio is known there).
    frame_requested: Option<FrameTarget>,
    /// Where the widget was last drawn (screen points).
    rect: Rect,
    /// The shown image lacks models still uploading: draw again once they are in.
    redraw_after_uploads: bool,
}

/// The tooltips of the toolbar's buttons: the app fills them from its command table, so they
/// name the shortcuts it binds.
#[derive(Clone, Debug, PartialEq)]
pub struct ToolbarHints {
    /// The Move button.
    pub translate: String,
    /// The Rotate button.
    pub rotate: String,
    /// The Scale button.
    pub scale: String,
    /// The Local/World axes button.
    pub axes: String,
    /// The Pivot/Center button.
    pub pivot: String,
}

impl Default for ToolbarHints {
    fn default() -> Self {
        ToolbarHints {
            translate: "Move".into(),
            rotate: "Rotate".into(),
            scale: "Scale".into(),
            axes: "Gizmo axes: local or world".into(),
            pivot: "Rotate and scale about the active entity's origin or the selection's centre"
                .into(),
        }
    }
}

/// What a frame request points the camera at.
#[derive(Clone, Copy, Debug, PartialEq)]
enum FrameTarget {
    /// The selection (the gizmo targets' items), or everything.
    Focus,
    /// These world-space bounds.
    Bounds(Aabb),
}

/// What the viewport does for the editor's commands (the app's command table): the keys are
/// read once for the whole window by its dispatcher, not by the widget.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum ViewportCommand {
    /// Switch the gizmo to translate, rotate or scale (ignored during a drag).
    Mode(GizmoMode),
    /// Switch the gizmo between local and world axes (ignored during a drag).
    ToggleOrientation,
    /// Switch what rotate and scale work about: the active entity's origin or the selection's
    /// centre (ignored during a drag).
    TogglePivot,
    /// Cancel the gizmo drag in progress: its targets go back to their values before it.
    CancelDrag,
    /// Point the camera at the selection (the gizmo targets' items), or at everything.
    Frame,
    /// Point the camera at these world-space bounds (what several views draw together).
    FrameBounds(Aabb),
    /// Turn the camera to look along a world axis (ignored during a drag).
    LookAlong(ViewDirection),
}

impl Default for Viewport {
    fn default() -> Self {
        Viewport {
            camera: OrbitCamera::default(),
            gizmo: GizmoSettings::default(),
            background: style::VIEWPORT_BACKGROUND,
            show_toolbar: true,
            show_axes: true,
            toolbar_hints: ToolbarHints::default(),
            drag: None,
            rendered: None,
            texture: None,
            cancel_requested: false,
            frame_requested: None,
            rect: Rect::NOTHING,
            redraw_after_uploads: false,
        }
    }
}

impl Viewport {
    /// Forgets the cached image so the next frame renders again (e.g. after replacing the
    /// renderer; changes to the scene generation, camera or size are noticed by themselves).
    pub fn request_render(&mut self) {
        self.rendered = None;
    }

    /// Runs a command; a cancel or a frame takes effect in the next [`Self::ui`] call.
    pub fn run(&mut self, command: ViewportCommand) {
        let idle = self.drag.is_none();
        match command {
            ViewportCommand::Mode(mode) if idle => self.gizmo.mode = mode,
            ViewportCommand::ToggleOrientation if idle => self.toggle_orientation(),
            ViewportCommand::TogglePivot if idle => self.toggle_pivot(),
            ViewportCommand::CancelDrag => self.cancel_requested = self.is_dragging_gizmo(),
            ViewportCommand::Frame => self.frame_requested = Some(FrameTarget::Focus),
            ViewportCommand::FrameBounds(bounds) => {
                self.frame_requested = Some(FrameTarget::Bounds(bounds));
            }
            ViewportCommand::LookAlong(view) if idle => self.camera.look_along(view),
            ViewportCommand::Mode(_)
            | ViewportCommand::ToggleOrientation
            | ViewportCommand::TogglePivot
            | ViewportCommand::LookAlong(_) => {}
        }
    }

    fn toggle_pivot(&mut self) {
        self.gizmo.pivot = match self.gizmo.pivot {
            PivotMode::Pivot => PivotMode::Center,
            PivotMode::Center => PivotMode::Pivot,
        };
    }

    fn toggle_orientation(&mut self) {
        self.gizmo.orientation = match self.gizmo.orientation {
            Orientation::Local => Orientation::World,
            Orientation::World => Orientation::Local,
        };
    }

    /// The gizmo for `scene` in a view of `size` points: at the active entity's origin, or
    /// at the centre of the selection's bounds ([`PivotMode::Center`]).
    fn gizmo_frame(&self, scene: &ViewportScene, size: Vec2) -> Option<GizmoFrame> {
        let center = match self.gizmo.pivot {
            PivotMode::Pivot => None,
            PivotMode::Center => scene.selection_bounds().map(|b| (b.min + b.max) * 0.5),
        };
        GizmoFrame::new_at(
            &scene.gizmo_targets,
            &self.gizmo,
            &self.camera,
            size,
            center,
        )
    }

    /// Where the widget was last drawn (screen points).
    pub fn rect(&self) -> Rect {
        self.rect
    }

    /// Where a world point (Decentraland world space, meters) appears on screen, in points;
    /// `None` behind the camera.
    pub fn screen_position(&self, world: Vec3) -> Option<Pos2> {
        let size = Vec2::new(self.rect.width(), self.rect.height());
        let p = self.camera.project(world, size)?;
        Some(self.rect.min + egui::vec2(p.x, p.y))
    }

    /// True when every corner of every item of `scene` (models by their real bounds) lands
    /// inside the widget's last rect, seen through its camera. Items with a matrix that is not
    /// finite are not drawn and do not count.
    pub fn shows_all_of(&self, scene: &ViewportScene) -> bool {
        let inside = self.rect.expand(0.5);
        (scene.items.iter().filter_map(DrawItem::world_bounds)).all(|bounds| {
            bounds.corners().into_iter().all(|corner| {
                self.screen_position(corner)
                    .is_some_and(|p| inside.contains(p))
            })
        })
    }

    /// True when the shown image is final: rendered, with every model of the scene uploaded
    /// and multisampled (not a partial image drawn while uploads go on, nor one from a drag).
    pub fn image_is_final(&self) -> bool {
        !self.redraw_after_uploads && self.rendered.as_ref().is_some_and(|k| k.multisample)
    }

    /// True while a gizmo handle is being dragged.
    pub fn is_dragging_gizmo(&self) -> bool {
        matches!(self.drag, Some(Drag::Gizmo { .. }))
    }

    /// Shows the viewport in all of `ui`'s available space and handles its input.
    pub fn ui(
        &mut self,
        ui: &mut egui::Ui,
        scene: &ViewportScene,
        renderer: &mut dyn ViewportRenderer,
    ) -> ViewportResponse {
        let (rect, response) = ui.allocate_exact_size(ui.available_size(), Sense::click_and_drag());
        self.rect = rect;
        if response.drag_started() || response.clicked() {
            // Working in the view takes the keyboard, as in Unity and Godot: a text field
            // clicked before (a search box) must not get the W/E/R meant for the gizmo.
            ui.memory_mut(|m| m.stop_text_input());
        }
        let painter = ui.painter_at(rect);
        // Reserve the image's place first so everything painted later lies on top of it.
        let image_slot = painter.add(EguiShape::Noop);
        let mut out = ViewportResponse {
            response: response.clone(),
            pick: None,
            gizmo: None,
            frame_selection: false,
            rendered: false,
        };
        let size = Vec2::new(rect.width(), rect.height());
        if size.x < 1.0 || size.y < 1.0 {
            return out;
        }
        let rel = |p: Pos2| Vec2::new(p.x - rect.min.x, p.y - rect.min.y);

        // Set from outside before this call (framing a loaded scene) or by the user below.
        let camera_before = self.camera.clone();
        self.handle_commands(scene, size, &mut out);
        self.handle_pointer(ui, &response, scene, size, rel, &mut out);

        let ppp = ui.ctx().pixels_per_point();
        let size_px = [
            (size.x * ppp).round().max(1.0) as u32,
            (size.y * ppp).round().max(1.0) as u32,
        ];
        // A drag ends with a frame of its own (the release), which draws the view at rest.
        let at_rest = self.drag.is_none();
        let uploading = renderer.prepare(scene);
        let key = RenderKey {
            generation: scene.generation,
            camera: self.camera.clone(),
            size_px,
            background: self.background,
            multisample: at_rest,
        };
        // While models upload, changes wait for the uploads: a render costs far more than a
        // frame on software GL, and the image would lack models anyway. Only what the user
        // does to the camera (orbit, pan, zoom, F) is drawn at once; a camera moved from
        // outside (the scene framed again as its models arrive) waits like the scene.
        let user_moved_camera = self.camera != camera_before;
        let changed = self.rendered.as_ref() != Some(&key);
        if changed && uploading && !user_moved_camera && self.rendered.is_some() {
            self.redraw_after_uploads = true;
        } else if changed || (self.redraw_after_uploads && !uploading) {
            self.texture = renderer.render(&RenderRequest {
                scene,
                camera: &self.camera,
                size_px,
                background: self.background,
                multisample: at_rest,
            });
            self.rendered = Some(key);
            out.rendered = true;
            self.redraw_after_uploads = uploading;
        }
        if uploading {
            ui.ctx().request_repaint(); // keep uploading
        }
        painter.set(
            image_slot,
            match self.texture {
                // GL rows run bottom-up: flip V.
                Some(tex) => EguiShape::image(
                    tex,
                    rect,
                    Rect::from_min_max(egui::pos2(0.0, 1.0), egui::pos2(1.0, 0.0)),
                    Color32::WHITE,
                ),
                None => EguiShape::rect_filled(rect, 0.0, self.background),
            },
        );

        if let Some(frame) = self.gizmo_frame(scene, size) {
            let hot = match &self.drag {
                Some(Drag::Gizmo { drag, .. }) => Some(drag.handle),
                Some(_) => None,
                None => response.hover_pos().and_then(|p| {
                    gizmo::hit_test(&frame, self.gizmo.mode, &self.camera, size, rel(p))
                }),
            };
            gizmo::paint(
                &painter,
                rect.min,
                &frame,
                self.gizmo.mode,
                &self.camera,
                size,
                hot,
            );
        }
        if self.show_axes {
            paint_axis_indicator(&painter, rect, &self.camera);
        }
        if self.show_toolbar {
            self.toolbar(ui, rect);
        }
        out
    }

    /// Runs what [`Viewport::run`] queued: a cancelled drag reports its Cancel event (with the
    /// values from before the drag), a frame request moves the camera.
    fn handle_commands(&mut self, scene: &ViewportScene, size: Vec2, out: &mut ViewportResponse) {
        if std::mem::take(&mut self.cancel_requested)
            && let Some(Drag::Gizmo { drag, .. }) = &self.drag
        {
            out.gizmo = Some(GizmoEvent {
                phase: DragPhase::Cancel,
                mode: drag.mode,
                targets: drag.apply(&super::GizmoDelta::Translate(Vec3::ZERO)),
            });
            self.drag = Some(Drag::Cancelled);
        }
        if let Some(target) = self.frame_requested.take() {
            let bounds = match target {
                FrameTarget::Focus => {
                    out.frame_selection = true;
                    scene.focus_bounds()
                }
                FrameTarget::Bounds(bounds) => Some(bounds),
            };
            if let Some(b) = bounds {
                self.camera.frame_bounds(b.min, b.max, size.x / size.y);
            }
        }
    }

    fn handle_pointer(
        &mut self,
        ui: &egui::Ui,
        response: &egui::Response,
        scene: &ViewportScene,
        size: Vec2,
        rel: impl Fn(Pos2) -> Vec2,
        out: &mut ViewportResponse,
    ) {
        let modifiers = ui.input(|i| i.modifiers);
        let frame = self.gizmo_frame(scene, size);
        let mode = self.gizmo.mode;
        let handle_at = |camera: &OrbitCamera, p: Vec2| {
            frame.and_then(|f| gizmo::hit_test(&f, mode, camera, size, p))
        };

        if response.drag_started() {
            let press = ui
                .input(|i| i.pointer.press_origin())
                .or(response.interact_pointer_pos())
                .map(&rel);
            let primary = response.drag_started_by(PointerButton::Primary);
            let grabbed = press
                .filter(|_| primary && !modifiers.shift)
                .and_then(|p| handle_at(&self.camera, p).zip(Some(p)))
                .and_then(|(handle, p)| {
                    ActiveGizmoDrag::begin(
                        handle,
                        frame?,
                        &self.gizmo,
                        &scene.gizmo_targets,
                        &self.camera,
                        size,
                        p,
                    )
                });
            self.drag = Some(match grabbed {
                Some(drag) => {
                    let start = drag.apply(&super::GizmoDelta::Translate(Vec3::ZERO));
                    out.gizmo = Some(GizmoEvent {
                        phase: DragPhase::Begin,
                        mode: drag.mode,
                        targets: start.clone(),
                    });
                    Drag::Gizmo { drag, last: start }
                }
                None if primary && !modifiers.shift => Drag::Orbit,
                None => Drag::Pan,
            });
        }

        // One event per frame: the frame that begins a gizmo drag reports only Begin.
        if response.dragged() && !response.drag_started() {
            let delta = response.drag_delta();
            match &mut self.drag {
                Some(Drag::Orbit) => self.camera.orbit(Vec2::new(delta.x, delta.y)),
                Some(Drag::Pan) => self.camera.pan(Vec2::new(delta.x, delta.y), size.y),
                Some(Drag::Gizmo { drag, last }) => {
                    if let Some(p) = response.interact_pointer_pos() {
                        let snapping = modifiers.command || modifiers.ctrl;
                        let d = drag.delta(&self.camera, size, rel(p), snapping, &self.gizmo.snap);
                        let now = drag.apply(&d);
                        if now != *last {
                            out.gizmo = Some(GizmoEvent {
                                phase: DragPhase::Update,
                                mode: drag.mode,
                                targets: now.clone(),
                            });
                            *last = now;
                        }
                    }
                }
                Some(Drag::Cancelled) | None => {}
            }
        }

        if response.drag_stopped() {
            if let Some(Drag::Gizmo { drag, last }) = self.drag.take() {
                out.gizmo = Some(GizmoEvent {
                    phase: DragPhase::End,
                    mode: drag.mode,
                    targets: last,
                });
            }
            self.drag = None;
        }

        if response.clicked()
            && let Some(p) = response.interact_pointer_pos().map(&rel)
            && handle_at(&self.camera, p).is_none()
        {
            let ray = self.camera.ray(p, size);
            out.pick = Some(Pick {
                entity: picking::pick(
                    &ray,
                    &scene.items,
                    &scene.assets,
                    self.camera.marker_scale(),
                )
                .map(|h| h.entity),
                ctrl: modifiers.command || modifiers.ctrl,
                shift: modifiers.shift,
            });
        }

        if response.hovered() {
            let scroll = ui.input(|i| i.smooth_scroll_delta.y);
            if scroll != 0.0 {
                self.camera.zoom(scroll / 40.0);
            }
        }
    }

    fn toolbar(&mut self, ui: &mut egui::Ui, rect: Rect) {
        let area = Rect::from_min_size(
            rect.min + egui::vec2(6.0, 6.0),
            egui::vec2(rect.width() - 12.0, 24.0),
        );
        let mut bar = ui.new_child(
            UiBuilder::new()
                .max_rect(area)
                .layout(Layout::left_to_right(Align::Center)),
        );
        egui::Frame::popup(bar.style())
            .inner_margin(egui::Margin::symmetric(4, 2))
            .show(&mut bar, |ui| {
                ui.horizontal(|ui| {
                    let g = &mut self.gizmo;
                    let hints = &self.toolbar_hints;
                    ui.selectable_value(&mut g.mode, GizmoMode::Translate, "Move")
                        .on_hover_text(&hints.translate);
                    ui.selectable_value(&mut g.mode, GizmoMode::Rotate, "Rotate")
                        .on_hover_text(&hints.rotate);
                    ui.selectable_value(&mut g.mode, GizmoMode::Scale, "Scale")
                        .on_hover_text(&hints.scale);
                    ui.separator();
                    let label = match g.orientation {
                        Orientation::Local => "Local",
                        Orientation::World => "World",
                    };
                    let pivot = match g.pivot {
                        PivotMode::Pivot => "Pivot",
                        PivotMode::Center => "Center",
                    };
                    if ui
                        .button(label)
                        .on_hover_text(format!(
                            "{}. Hold Ctrl while dragging to snap.",
                            self.toolbar_hints.axes
                        ))
                        .clicked()
                    {
                        self.toggle_orientation();
                    }
                    if ui
                        .button(pivot)
                        .on_hover_text(&self.toolbar_hints.pivot)
                        .clicked()
                    {
                        self.toggle_pivot();
                    }
                });
            });
    }
}

/// Draws the world axes as the camera sees them in the bottom-left corner: +X red, +Y green,
/// +Z blue. From the default camera +X points right and +Z into the screen (drawn short and
/// behind), which is Decentraland's left-handed frame.
fn paint_axis_indicator(painter: &egui::Painter, rect: Rect, camera: &OrbitCamera) {
    let center = rect.left_bottom() + egui::vec2(42.0, -42.0);
    let length = 28.0;
    let (right, up, forward) = (camera.right(), camera.up(), camera.forward());
    let mut axes: Vec<(f32, egui::Vec2, Color32, &str)> = [Vec3::X, Vec3::Y, Vec3::Z]
        .into_iter()
        .zip(style::AXIS_COLORS)
        .zip(["X", "Y", "Z"])
        .map(|((axis, color), name)| {
            let screen = egui::vec2(axis.dot(right), -axis.dot(up)) * length;
            (axis.dot(forward), screen, color, name)
        })
        .collect();
    // Far axes first, so the ones pointing at the viewer are drawn over them.
    axes.sort_by(|a, b| b.0.total_cmp(&a.0));
    painter.circle_filled(center, length + 10.0, style::AXES_BACKDROP);
    for (_, screen, color, name) in axes {
        let tip = center + screen;
        painter.line_segment([center, tip], Stroke::new(2.5, color));
        painter.text(
            tip + screen.normalized() * 8.0,
            egui::Align2::CENTER_CENTER,
            name,
            egui::FontId::proportional(12.0),
            color,
        );
    }
}
