//! Scene files: native JSON, main.crdt, main.composite, against the reference runtime.
//!
//! One test binary per area (each links the whole editor; fewer binaries, faster builds).

#[path = "../common/dcl.rs"]
mod dcl;
#[path = "../common/projects.rs"]
mod project_fixtures;

mod codec_oracle;
mod codec_properties;
mod dcl_convert;
mod dcl_files;
mod dcl_oracle;
mod dcl_robustness;
mod file_safety;
mod inspector_nodes;
mod io_files;
mod projects;
mod save_properties;
