//! Replays every file in `fuzz/seeds/` and `fuzz/regressions/<target>/` through
//! the fuzz checks, on a stable toolchain: `cargo test` in `fuzz/`.

use msgnorm_fuzz::TARGETS;
use std::path::Path;

fn files(dir: &Path) -> Vec<std::path::PathBuf> {
    let mut out: Vec<_> = std::fs::read_dir(dir)
        .map(|d| {
            d.flatten()
                .map(|e| e.path())
                .filter(|p| p.is_file())
                .collect()
        })
        .unwrap_or_default();
    out.sort();
    out
}

#[test]
fn seeds_pass_every_check_with_every_prefix() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let seeds = files(&root.join("seeds"));
    assert!(!seeds.is_empty(), "no seeds in fuzz/seeds");
    for path in &seeds {
        let body = std::fs::read(path).unwrap();
        for &(name, check) in TARGETS {
            for flags in [0u8, 1, 2, 4, 8, 12, 16, 0x5a, 0xff] {
                let mut data = vec![flags; if name == "budget" { 3 } else { 1 }];
                if name == "normalize_messages" {
                    data.clear();
                }
                data.extend_from_slice(&body);
                check(&data);
            }
        }
    }
}

#[test]
fn regressions_pass() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    for &(name, check) in TARGETS {
        for path in files(&root.join("regressions").join(name)) {
            check(&std::fs::read(&path).unwrap());
        }
    }
}
