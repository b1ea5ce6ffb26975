//! Tells the extension which Cargo profile built it (`dev`, `release`, `dist`,
//! ...), as `_native.BUILD_PROFILE`: `benches/report.py` prints it over its table.
//! Cargo names no custom profile to a build script (`PROFILE` is `release` for
//! `dist` too), so the name is read from `OUT_DIR`:
//! `<target>/[<triple>/]<profile dir>/build/<package>-<hash>/out`, where the
//! profile directory of `dev` is `debug`.

fn main() {
    println!("cargo:rerun-if-changed=build.rs");
    let out = std::env::var("OUT_DIR").unwrap_or_default();
    let dir = std::path::Path::new(&out)
        .ancestors()
        .nth(3)
        .and_then(|p| p.file_name())
        .and_then(|n| n.to_str())
        .unwrap_or("unknown");
    let profile = if dir == "debug" { "dev" } else { dir };
    println!("cargo:rustc-env=MSGNORM_BUILD_PROFILE={profile}");
}
