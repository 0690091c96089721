//! Generates Rust types for the Decentraland protocol excerpts in `proto/` (prost), compiling
//! the `.proto` files with protox, a pure-Rust protobuf compiler, so no `protoc` is needed.

const PROTOS: &[&str] = &[
    "proto/decentraland/sdk/components/mesh_renderer.proto",
    "proto/decentraland/sdk/components/gltf_container.proto",
];

fn main() {
    println!("cargo:rerun-if-changed=proto");
    let descriptors = match protox::compile(PROTOS, ["proto"]) {
        Ok(set) => set,
        Err(e) => panic!("cannot compile the .proto excerpts in proto/: {e}"),
    };
    if let Err(e) = prost_build::Config::new().compile_fds(descriptors) {
        panic!("cannot generate Rust from the .proto excerpts: {e}");
    }
}
