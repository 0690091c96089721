//! Compiles Decentraland's protocol definitions in `proto/` (every SDK7 component) into one
//! encoded `FileDescriptorSet` in `OUT_DIR`, which `model::dcl::codec` loads with prost-reflect.
//! protox is a pure-Rust protobuf compiler, so no `protoc` is needed.

use std::path::{Path, PathBuf};

use protox::file::{ChainFileResolver, File, FileResolver, GoogleFileResolver};

const ROOT: &str = "proto";

fn main() {
    println!("cargo:rerun-if-changed={ROOT}");
    let mut files = Vec::new();
    collect_protos(Path::new("proto/decentraland/sdk/components"), &mut files);
    files.sort();
    let mut resolver = ChainFileResolver::new();
    resolver.add(ShippedFiles);
    resolver.add(GoogleFileResolver::new());
    let mut compiler = protox::Compiler::with_file_resolver(resolver);
    compiler.include_imports(true).include_source_info(false);
    for file in &files {
        if let Err(e) = compiler.open_file(file) {
            panic!("cannot compile {}: {e:?}", file.display());
        }
    }
    let out = PathBuf::from(std::env::var_os("OUT_DIR").expect("cargo sets OUT_DIR"));
    let bytes = compiler.encode_file_descriptor_set();
    if let Err(e) = std::fs::write(out.join("dcl_components.bin"), bytes) {
        panic!("cannot write the compiled descriptors: {e}");
    }
}

/// The files under `proto/`, read as they are shipped. Several of Decentraland's files start
/// with a UTF-8 byte-order mark, which protox's parser refuses (protoc skips it): skip it here
/// so the shipped files stay exactly as published.
struct ShippedFiles;

impl FileResolver for ShippedFiles {
    fn resolve_path(&self, path: &Path) -> Option<String> {
        let relative = path.strip_prefix(ROOT).ok()?;
        Some(relative.to_str()?.replace('\\', "/"))
    }

    fn open_file(&self, name: &str) -> Result<File, protox::Error> {
        let path = Path::new(ROOT).join(name);
        let Ok(text) = std::fs::read_to_string(&path) else {
            return Err(protox::Error::file_not_found(name));
        };
        File::from_source(name, text.strip_prefix('\u{feff}').unwrap_or(&text))
    }
}

/// Every `.proto` below `dir` (the components and their `common/` imports).
fn collect_protos(dir: &Path, out: &mut Vec<PathBuf>) {
    let entries = std::fs::read_dir(dir).unwrap_or_else(|e| panic!("cannot list {dir:?}: {e}"));
    for entry in entries {
        let path = entry.expect("a readable directory entry").path();
        if path.is_dir() {
            collect_protos(&path, out);
        } else if path.extension().is_some_and(|e| e == "proto") {
            out.push(path);
        }
    }
}
