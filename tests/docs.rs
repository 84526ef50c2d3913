//! The docs hold to the code: every Rust block in docs/GUIDE.md is an excerpt, word for word, of
//! the example games or of their tests (so it compiles and runs in CI through them), and the
//! dependency line that README and GUIDE give is the one `tests/outside-crate` builds from.
//! README's own Rust blocks are compiled as doctests of the facade (`src/lib.rs`).

use std::path::Path;

fn read(path: &str) -> String {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    std::fs::read_to_string(root.join(path)).unwrap_or_else(|e| panic!("{path}: {e}"))
}

/// The fenced blocks of a Markdown text whose info string starts with `lang`: (line of the
/// fence, body).
fn blocks(markdown: &str, lang: &str) -> Vec<(usize, String)> {
    let mut out = Vec::new();
    let mut open: Option<(usize, String)> = None;
    for (n, line) in markdown.lines().enumerate() {
        let fence = line.trim_start().strip_prefix("```");
        match (&mut open, fence) {
            (None, Some(info)) if info.split(',').next() == Some(lang) => {
                open = Some((n + 1, String::new()))
            }
            (None, Some(_)) => open = Some((0, String::new())), // another language: skipped
            (Some(_), Some(_)) => {
                let (at, body) = open.take().unwrap();
                if at > 0 {
                    out.push((at, body));
                }
            }
            (Some((_, body)), None) => {
                body.push_str(line);
                body.push('\n');
            }
            (None, None) => {}
        }
    }
    assert!(open.is_none(), "an unclosed code fence");
    out
}

/// A block's excerpts: the runs of lines between the `// …` lines that mark elisions.
fn excerpts(block: &str) -> Vec<String> {
    let mut out = vec![String::new()];
    for line in block.lines() {
        if line.trim_start().starts_with("// …") {
            out.push(String::new());
        } else {
            let last = out.last_mut().unwrap();
            last.push_str(line);
            last.push('\n');
        }
    }
    out.retain(|e| !e.trim().is_empty());
    out
}

#[test]
fn every_rust_block_of_the_guide_is_an_excerpt_of_the_examples_or_their_tests() {
    let guide = read("docs/GUIDE.md");
    let sources = [
        read("examples/connect4.rs"),
        read("examples/mini2048.rs"),
        read("tests/examples.rs"),
    ];
    let rust = blocks(&guide, "rust");
    assert!(rust.len() >= 10, "only {} Rust blocks in GUIDE", rust.len());
    let mut missing = Vec::new();
    for (line, block) in &rust {
        for excerpt in excerpts(block) {
            if !sources.iter().any(|s| s.contains(&excerpt)) {
                missing.push(format!("docs/GUIDE.md:{line}:\n{excerpt}"));
            }
        }
    }
    assert!(
        missing.is_empty(),
        "not found word for word in examples/connect4.rs, examples/mini2048.rs or \
         tests/examples.rs:\n{}",
        missing.join("\n")
    );
}

#[test]
fn excerpts_split_at_elisions_and_blocks_keep_their_language() {
    let md = "text\n```rust\na\n    // … the rest\nb\n```\n```toml\nx = 1\n```\n```rust,no_run\nc\n```\n";
    let rust = blocks(md, "rust");
    assert_eq!(rust.len(), 2);
    assert_eq!(excerpts(&rust[0].1), ["a\n", "b\n"]);
    assert_eq!(rust[1], (10, "c\n".to_string()));
    assert_eq!(blocks(md, "toml"), [(7, "x = 1\n".to_string())]);
}

/// The `cubesearch = …` line of a text's TOML blocks in the table `table` (`[dependencies]`).
fn dependency_line_in(markdown: &str, table: &str) -> String {
    let mut lines = Vec::new();
    for (_, block) in blocks(markdown, "toml") {
        let mut current = "[dependencies]".to_string();
        for line in block.lines() {
            if line.starts_with('[') {
                current = line.trim().to_string();
            } else if current == table && line.starts_with("cubesearch =") {
                lines.push(line.to_string());
            }
        }
    }
    assert_eq!(lines.len(), 1, "{table}: {lines:?}");
    lines.remove(0)
}

/// The `cubesearch = …` line of a text's `[dependencies]`.
fn dependency_line(markdown: &str) -> String {
    dependency_line_in(markdown, "[dependencies]")
}

#[test]
fn readme_and_guide_give_the_one_dependency_line_the_outside_crate_builds_from() {
    let readme = dependency_line(&read("README.md"));
    assert_eq!(readme, dependency_line(&read("docs/GUIDE.md")));
    assert!(readme.starts_with("cubesearch = { git = "), "{readme}");
    // A game author's tests take the test helpers from the same source.
    let dev = dependency_line_in(&read("docs/GUIDE.md"), "[dev-dependencies]");
    let source = readme.split_once('}').unwrap().0.trim_end();
    assert!(
        dev.starts_with(&format!("{source}, features = [\"testing\"] }}")),
        "{dev}"
    );
    let manifest = read("tests/outside-crate/Cargo.toml");
    let deps: Vec<&str> = manifest
        .split("[dependencies]")
        .nth(1)
        .expect("outside-crate has a [dependencies] table")
        .lines()
        .map(str::trim)
        .take_while(|l| !l.starts_with('['))
        .filter(|l| !l.is_empty() && !l.starts_with('#'))
        .collect();
    assert_eq!(deps, [r#"cubesearch = { path = "../.." }"#], "{manifest}");
    let sources = read("tests/outside-crate/src/lib.rs");
    for example in ["examples/connect4.rs", "examples/mini2048.rs"] {
        let file = Path::new(example).file_name().unwrap().to_str().unwrap();
        assert!(
            sources.contains(file),
            "outside-crate does not build {example}"
        );
    }
}

/// The files ARCHITECTURE.md's "Files" section names, as paths from the repository root: each
/// `### … (`BASE`)` heading sets the folder its bullets' names are in (`### Scripts`: the
/// root), and a bullet names its files in backticks before its first `: `.
fn architecture_files(doc: &str) -> std::collections::BTreeSet<String> {
    let section = &doc[doc.find("\n## Files").expect("a Files section")..];
    let mut base: Option<String> = None;
    let mut listed = std::collections::BTreeSet::new();
    for line in section.lines() {
        if let Some(heading) = line.strip_prefix("### ") {
            base = match heading.rsplit_once("(`") {
                Some((_, folder)) => Some(folder.trim_end_matches("`)").to_string()),
                None => Some(".".into()),
            };
            continue;
        }
        let (Some(base), Some(bullet)) = (&base, line.strip_prefix("- ")) else {
            continue;
        };
        let names = bullet.split("`: ").next().unwrap_or("");
        for name in names.split('`').skip(1).step_by(2) {
            let path = Path::new(base).join(name);
            let path: std::path::PathBuf = path
                .components()
                .filter(|c| *c != std::path::Component::CurDir)
                .collect();
            listed.insert(path.to_string_lossy().into_owned());
        }
    }
    listed
}

/// Every file under `dir` (relative to the repository root), recursively.
fn files_under(dir: &str, out: &mut std::collections::BTreeSet<String>) {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let Ok(entries) = std::fs::read_dir(root.join(dir)) else {
        return;
    };
    for entry in entries.flatten() {
        let path = format!("{dir}/{}", entry.file_name().to_string_lossy());
        if entry.file_type().is_ok_and(|t| t.is_dir()) {
            files_under(&path, out);
        } else {
            out.insert(path);
        }
    }
}

/// ARCHITECTURE.md names every source, test, example and script file, each where it is, and no
/// file that is not there.
#[test]
fn architecture_lists_every_file_where_it_is() {
    let listed = architecture_files(&read("docs/ARCHITECTURE.md"));
    let mut real = std::collections::BTreeSet::new();
    for dir in [
        "src",
        "benches",
        "examples",
        "scripts",
        ".ci",
        "kernels-cube/src",
    ] {
        files_under(dir, &mut real);
    }
    files_under("tests", &mut real);
    let crates = Path::new(env!("CARGO_MANIFEST_DIR")).join("crates");
    for entry in std::fs::read_dir(crates).unwrap().flatten() {
        let name = entry.file_name().to_string_lossy().into_owned();
        files_under(&format!("crates/{name}/src"), &mut real);
        files_under(&format!("crates/{name}/tests"), &mut real);
    }
    // Build outputs of the outside crate, when a test has built it in place.
    real.retain(|f| !f.starts_with("tests/outside-crate/target/") && !f.ends_with("Cargo.lock"));
    let missing: Vec<_> = real.difference(&listed).collect();
    let absent: Vec<_> = listed.difference(&real).collect();
    assert!(
        missing.is_empty(),
        "ARCHITECTURE.md does not list {missing:?}"
    );
    assert!(
        absent.is_empty(),
        "ARCHITECTURE.md lists files that are not there: {absent:?}"
    );
}
