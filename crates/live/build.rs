//! Compiles the vendored protocol definitions in `proto/` (see `proto/SOURCE.txt`) into Rust
//! types in `OUT_DIR/_.rs`: protox parses them into descriptors (no `protoc` needed) and
//! prost-build generates the messages from those descriptors. Neither file declares a
//! protobuf package, so both land in the one `_` module that `src/envelope.rs` includes.

const FILES: [&str; 2] = ["rpc/index.proto", "data-layer/data-layer.proto"];

fn main() {
    println!("cargo:rerun-if-changed=proto");
    let descriptors = match protox::compile(FILES, ["proto"]) {
        Ok(set) => set,
        Err(e) => panic!("cannot compile the vendored .proto files: {e:?}"),
    };
    if let Err(e) = prost_build::Config::new().compile_fds(descriptors) {
        panic!("cannot generate Rust code from the .proto descriptors: {e}");
    }
}
