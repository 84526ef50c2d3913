//! The code's shape, held in place: no module of a crate uses, through others, a module that
//! uses it (each crate's modules form layers); no `#[cube]` function takes more than 12
//! parameters (kernels take grouped buffers and one comptime config instead); no public host
//! function takes more than five parameters or a bare bool (options structs and enums
//! instead); and the crate root re-exports at most 30 names and no module of a library crate
//! (its modules are its own, of chosen names).

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};

/// Every `.rs` file under `dir`.
fn rust_files(dir: &Path) -> Vec<PathBuf> {
    let mut out = Vec::new();
    for entry in std::fs::read_dir(dir).unwrap().flatten() {
        let path = entry.path();
        if path.is_dir() {
            out.extend(rust_files(&path));
        } else if path.extension().is_some_and(|e| e == "rs") {
            out.push(path);
        }
    }
    out
}

/// The source roots of the workspace's library crates.
fn crate_roots() -> Vec<PathBuf> {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let mut roots: Vec<PathBuf> = std::fs::read_dir(root.join("crates"))
        .unwrap()
        .flatten()
        .map(|e| e.path().join("src"))
        .filter(|p| p.is_dir())
        .collect();
    roots.push(root.join("kernels-cube/src"));
    roots.push(root.join("src"));
    roots.sort();
    roots
}

/// A file's module path in its crate (`td::lanes`; `mod.rs` and `lib.rs` name their folder).
fn module_of(root: &Path, file: &Path) -> Vec<String> {
    let rel = file.strip_prefix(root).unwrap().with_extension("");
    let mut parts: Vec<String> = rel
        .components()
        .map(|c| c.as_os_str().to_string_lossy().into_owned())
        .collect();
    if matches!(
        parts.last().map(String::as_str),
        Some("mod" | "lib" | "main")
    ) {
        parts.pop();
    }
    parts
}

/// The source a module's own code uses: comments and its test module left out.
fn code_of(file: &Path) -> String {
    let text = std::fs::read_to_string(file).unwrap();
    let text = match text.find("#[cfg(test)]") {
        Some(at) => &text[..at],
        None => &text[..],
    };
    text.lines()
        .map(|l| l.split("//").next().unwrap_or(""))
        .collect::<Vec<_>>()
        .join("\n")
}

/// The paths after each `prefix::` in `code`, use-trees expanded: `crate::td::lanes::x` gives
/// `[td, lanes, x]`, and `crate::{cpu::A, td::{lanes, B}}` gives `[cpu, A]`, `[td, lanes]`,
/// `[td, B]`.
fn paths_after<'a>(code: &'a str, prefix: &str) -> Vec<Vec<&'a str>> {
    let mut out = Vec::new();
    let mut rest = code;
    while let Some(at) = rest.find(prefix) {
        let before = rest[..at].chars().last();
        rest = &rest[at + prefix.len()..];
        if before.is_some_and(|c| c.is_alphanumeric() || c == '_') {
            continue;
        }
        if let Some(tail) = rest.strip_prefix("::") {
            use_tree(tail, Vec::new(), &mut out);
        }
    }
    out
}

/// Expands the use-tree at the start of `code` (after a `::`) under `path` into `out`, and
/// returns the text after it.
fn use_tree<'a>(code: &'a str, mut path: Vec<&'a str>, out: &mut Vec<Vec<&'a str>>) -> &'a str {
    let mut tail = code.trim_start();
    loop {
        if let Some(group) = tail.strip_prefix('{') {
            tail = group;
            loop {
                tail = use_tree(tail, path.clone(), out).trim_start();
                match tail.chars().next() {
                    Some(',') => tail = tail[1..].trim_start(),
                    _ => break,
                }
                if let Some(after) = tail.strip_prefix('}') {
                    return after;
                }
            }
            return tail.strip_prefix('}').unwrap_or(tail);
        }
        let end = tail
            .find(|c: char| !(c.is_alphanumeric() || c == '_'))
            .unwrap_or(tail.len());
        if end == 0 {
            break;
        }
        path.push(&tail[..end]);
        tail = &tail[end..];
        match tail.strip_prefix("::") {
            Some(next) => tail = next.trim_start(),
            None => break,
        }
    }
    if !path.is_empty() {
        out.push(path);
    }
    tail
}

/// The crate's modules and, for each, the other modules (not its ancestors) whose items it uses.
fn module_graph(root: &Path) -> BTreeMap<Vec<String>, BTreeSet<Vec<String>>> {
    let files = rust_files(root);
    let modules: BTreeSet<Vec<String>> = files.iter().map(|f| module_of(root, f)).collect();
    // Names the crate root re-exports, by the module that defines them: `crate::CpuExecutor`
    // uses `cpu` as much as `crate::cpu::CpuExecutor` does.
    let mut reexports: BTreeMap<String, Vec<String>> = BTreeMap::new();
    let lib = ["lib.rs", "main.rs"]
        .iter()
        .map(|f| root.join(f))
        .find(|f| f.is_file())
        .map_or_else(String::new, |f| code_of(&f));
    for line in lib.lines() {
        let Some(tree) = ["pub use ", "pub(crate) use ", "use "]
            .iter()
            .find_map(|p| line.trim_start().strip_prefix(p))
        else {
            continue;
        };
        let mut paths = Vec::new();
        use_tree(tree, Vec::new(), &mut paths);
        for path in paths {
            let path: Vec<String> = path.iter().map(|s| s.to_string()).collect();
            if let Some(n) = (1..path.len())
                .rev()
                .find(|&n| modules.contains(&path[..n]))
            {
                reexports.insert(path.last().unwrap().clone(), path[..n].to_vec());
            }
        }
    }
    let mut graph = BTreeMap::new();
    for file in &files {
        let module = module_of(root, file);
        let code = code_of(file);
        let mut uses = BTreeSet::new();
        let mut add = |mut full: Vec<String>| {
            if let Some(home) = full.first().and_then(|name| reexports.get(name)) {
                if !modules.contains(&full[..1]) {
                    full = home.clone();
                }
            }
            // The longest module the path names.
            if let Some(n) = (1..=full.len())
                .rev()
                .find(|&n| modules.contains(&full[..n]))
            {
                let target = full[..n].to_vec();
                let ancestor = target.len() < module.len() && module.starts_with(&target);
                if target != module && !ancestor {
                    uses.insert(target);
                }
            }
        };
        for path in paths_after(&code, "crate") {
            add(path.iter().map(|s| s.to_string()).collect());
        }
        for path in paths_after(&code, "super") {
            let mut full: Vec<String> = module[..module.len().saturating_sub(1)].to_vec();
            full.extend(path.iter().map(|s| s.to_string()));
            add(full);
        }
        graph.insert(module, uses);
    }
    graph
}

/// A cycle through `graph`, if there is one (as the modules along it).
fn find_cycle(graph: &BTreeMap<Vec<String>, BTreeSet<Vec<String>>>) -> Option<Vec<String>> {
    fn visit(
        node: &Vec<String>,
        graph: &BTreeMap<Vec<String>, BTreeSet<Vec<String>>>,
        state: &mut BTreeMap<Vec<String>, u8>,
        stack: &mut Vec<Vec<String>>,
    ) -> Option<Vec<String>> {
        state.insert(node.clone(), 1);
        stack.push(node.clone());
        for next in graph.get(node).into_iter().flatten() {
            match state.get(next) {
                Some(1) => {
                    let from = stack.iter().position(|n| n == next).unwrap();
                    let mut cycle: Vec<String> =
                        stack[from..].iter().map(|m| m.join("::")).collect();
                    cycle.push(next.join("::"));
                    return Some(cycle);
                }
                Some(_) => {}
                None => {
                    if let Some(cycle) = visit(next, graph, state, stack) {
                        return Some(cycle);
                    }
                }
            }
        }
        stack.pop();
        state.insert(node.clone(), 2);
        None
    }
    let mut state = BTreeMap::new();
    for node in graph.keys() {
        if !state.contains_key(node) {
            if let Some(cycle) = visit(node, graph, &mut state, &mut Vec::new()) {
                return Some(cycle);
            }
        }
    }
    None
}

#[test]
fn no_module_uses_a_module_that_uses_it() {
    let mut cycles = Vec::new();
    for root in crate_roots() {
        let graph = module_graph(&root);
        assert!(
            graph.len() > 1 || root.ends_with("src"),
            "{}",
            root.display()
        );
        if let Some(cycle) = find_cycle(&graph) {
            cycles.push(format!("{}: {}", root.display(), cycle.join(" -> ")));
        }
    }
    assert!(cycles.is_empty(), "{}", cycles.join("\n"));
}

#[test]
fn the_cycle_check_finds_a_cycle() {
    let m = |s: &str| vec![s.to_string()];
    let mut graph = BTreeMap::new();
    graph.insert(m("a"), BTreeSet::from([m("b")]));
    graph.insert(m("b"), BTreeSet::from([m("c")]));
    graph.insert(m("c"), BTreeSet::from([m("a")]));
    assert_eq!(find_cycle(&graph).unwrap().len(), 4);
    graph.insert(m("c"), BTreeSet::new());
    assert_eq!(find_cycle(&graph), None);
    let code = "use crate::td::lanes::{x, y};\nlet v = super::config::LANES;\n\
                use crate::{cpu::A, td::{lanes, B},\n    gpu};";
    assert_eq!(
        paths_after(code, "crate"),
        [
            vec!["td", "lanes", "x"],
            vec!["td", "lanes", "y"],
            vec!["cpu", "A"],
            vec!["td", "lanes"],
            vec!["td", "B"],
            vec!["gpu"],
        ]
    );
    assert_eq!(paths_after(code, "super"), [vec!["config", "LANES"]]);
}

/// The parameters of each `#[cube]` function in `code`: (name, count).
fn cube_functions(code: &str) -> Vec<(String, usize)> {
    let mut out = Vec::new();
    let mut rest = code;
    while let Some(at) = rest.find("#[cube") {
        rest = &rest[at..];
        // `#[cube]` on an impl or a trait marks no function of its own here.
        let item = &rest[rest.find(']').unwrap() + 1..];
        let Some(fn_at) = item.find("fn ") else {
            break;
        };
        let header = &item[..fn_at];
        rest = &item[fn_at..];
        if header.contains("impl") || header.contains("trait") || header.contains("struct") {
            continue;
        }
        let name_end = rest[3..].find(['<', '(']).unwrap() + 3;
        let name = rest[3..name_end].trim().to_string();
        let open = rest.find('(').unwrap();
        let mut depth = 0;
        let mut commas = 0;
        let mut any = false;
        let mut close = open;
        for (i, c) in rest[open..].char_indices() {
            match c {
                '(' | '<' | '[' => depth += 1,
                ')' | '>' | ']' if depth == 1 && c == ')' => {
                    close = open + i;
                    break;
                }
                ')' | '>' | ']' => depth -= 1,
                ',' if depth == 1 => commas += 1,
                c if depth == 1 && !c.is_whitespace() => any = true,
                _ => {}
            }
        }
        let params = rest[open + 1..close].trim();
        let count = match (any, params.ends_with(',')) {
            (false, _) => 0,
            (true, true) => commas,
            (true, false) => commas + 1,
        };
        out.push((name, count));
    }
    out
}

#[test]
fn no_cube_function_takes_more_than_twelve_parameters() {
    let mut seen = 0;
    for root in crate_roots() {
        for file in rust_files(&root) {
            let code = code_of(&file);
            for (name, count) in cube_functions(&code) {
                seen += 1;
                assert!(
                    count <= 12,
                    "{}: #[cube] fn {name} takes {count} parameters",
                    file.display()
                );
            }
        }
    }
    assert!(seen > 100, "only {seen} #[cube] functions found");
    let sample = "#[cube]\nfn f<G: T>(a: u32, b: &Array<u32>,\n #[comptime] c: (u32, u32),\n) {}";
    assert_eq!(cube_functions(sample), [("f".to_string(), 3)]);
}

/// The library crates a user reaches through the facade (the binary's and the bench lab's
/// crates are no library API).
fn library_roots() -> Vec<PathBuf> {
    crate_roots()
        .into_iter()
        .filter(|r| {
            ![
                "cubesearch-cli",
                "cubesearch-bench",
                "cubesearch-checkerboard",
            ]
            .iter()
            .any(|c| r.parent().is_some_and(|p| p.ends_with(c)))
        })
        .collect()
}

/// The end (exclusive) of the `{ … }` block that opens at or after `from`.
fn block_end(code: &str, from: usize) -> usize {
    let open = from + code[from..].find('{').unwrap();
    let mut depth = 0;
    for (i, c) in code[open..].char_indices() {
        match c {
            '{' => depth += 1,
            '}' => {
                depth -= 1;
                if depth == 0 {
                    return open + i + 1;
                }
            }
            _ => {}
        }
    }
    code.len()
}

/// The parameters of the fn whose `(` is at `open`, `self` left out, each as written.
fn parameters(code: &str, open: usize) -> Vec<String> {
    let (mut depth, mut params, mut current) = (0, Vec::new(), String::new());
    let mut chars = code[open..].chars().peekable();
    while let Some(c) = chars.next() {
        match c {
            '-' if chars.peek() == Some(&'>') => {
                current.push_str("->");
                chars.next();
                continue;
            }
            '(' | '<' | '[' => depth += 1,
            ')' | '>' | ']' => depth -= 1,
            _ => {}
        }
        if depth == 0 {
            break;
        }
        if c == ',' && depth == 1 {
            params.push(std::mem::take(&mut current));
        } else if depth > 1 || !matches!(c, '(') {
            current.push(c);
        }
    }
    params.push(current);
    params
        .into_iter()
        .map(|p| p.trim().to_string())
        .filter(|p| !p.is_empty() && !p.trim_start_matches(['&', '\'']).contains("self"))
        .collect()
}

/// The host functions of `code` a user can call: every `pub fn` and every method of a
/// `pub trait`, outside `#[cube]` code: (name, parameters).
fn host_functions(code: &str) -> Vec<(String, Vec<String>)> {
    // `#[cube]` items: a function, or a whole impl or trait.
    let mut device: Vec<std::ops::Range<usize>> = Vec::new();
    for (at, _) in code.match_indices("#[cube") {
        let item = at + code[at..].find(']').unwrap() + 1;
        let header_end = item + code[item..].find(['{', ';']).unwrap();
        device.push(at..block_end(code, header_end.min(code.len() - 1)));
    }
    let traits: Vec<std::ops::Range<usize>> = code
        .match_indices("pub trait ")
        .map(|(at, _)| at..block_end(code, at))
        .collect();
    let mut out = Vec::new();
    for (at, _) in code.match_indices("fn ") {
        let before = &code[..at];
        let line_start = before.rfind('\n').map_or(0, |n| n + 1);
        let prefix = before[line_start..]
            .trim()
            .trim_end_matches(" unsafe")
            .trim_end_matches(" const");
        let in_trait = traits.iter().any(|t| t.contains(&at));
        let public = prefix == "pub" || prefix.ends_with(" pub") || (in_trait && prefix.is_empty());
        if !public || device.iter().any(|d| d.contains(&at)) {
            continue;
        }
        let rest = &code[at + 3..];
        let name_end = rest
            .find(|c: char| !(c.is_alphanumeric() || c == '_'))
            .unwrap();
        let open = at + 3 + rest.find('(').unwrap();
        out.push((rest[..name_end].to_string(), parameters(code, open)));
    }
    out
}

#[test]
fn public_host_functions_take_five_parameters_at_most_and_no_bare_bool() {
    let mut seen = 0;
    let mut wrong = Vec::new();
    for root in library_roots() {
        for file in rust_files(&root) {
            for (name, params) in host_functions(&code_of(&file)) {
                seen += 1;
                let bools = params.iter().filter(|p| p.ends_with(": bool")).count();
                if params.len() > 5 || bools > 0 {
                    wrong.push(format!(
                        "{}: fn {name}: {} parameters, {bools} bool",
                        file.display(),
                        params.len()
                    ));
                }
            }
        }
    }
    assert!(seen > 300, "only {seen} public functions found");
    assert!(
        wrong.is_empty(),
        "take an options struct:\n{}",
        wrong.join("\n")
    );
    let sample = "pub fn f<G: T>(&self, a: u32, cb: impl FnMut(u64) -> Result<()>, on: bool) {}\n\
                  #[cube]\npub fn k(a: bool) {}\n#[cube]\nimpl X for Y {\n    pub fn m(b: bool) {}\n}\n\
                  pub trait Q {\n    fn q(&mut self, a: u8, b: u8);\n}\nfn private(a: bool) {}";
    let found = host_functions(sample);
    assert_eq!(found.len(), 2, "{found:?}");
    assert_eq!(
        found[0].1,
        ["a: u32", "cb: impl FnMut(u64) -> Result<()>", "on: bool"]
    );
    assert_eq!(
        found[1],
        ("q".to_string(), vec!["a: u8".into(), "b: u8".into()])
    );
}

/// The names `lib.rs` re-exports at the crate root, modules marked: `(name, is a module)`.
fn root_names(lib: &str, is_module: impl Fn(&str) -> bool) -> Vec<(String, bool)> {
    let code: String = lib
        .lines()
        .map(|l| l.split("//").next().unwrap_or(""))
        .collect::<Vec<_>>()
        .join("\n");
    let mut out = Vec::new();
    let (mut depth, mut at) = (0, 0);
    while at < code.len() {
        let rest = &code[at..];
        if depth == 0 && rest.starts_with("pub use ") {
            let end = rest.find(';').unwrap();
            let body = rest["pub use ".len()..end].trim();
            at += end + 1;
            if let Some((_, alias)) = body.split_once(" as ") {
                out.push((alias.trim().to_string(), true));
            } else if let Some((_, list)) = body.split_once("::{") {
                for name in list.trim_end_matches('}').split(',') {
                    let name = name.trim();
                    if !name.is_empty() {
                        out.push((name.to_string(), is_module(name)));
                    }
                }
            } else {
                let name = body.rsplit("::").next().unwrap().trim();
                out.push((name.to_string(), is_module(name)));
            }
            continue;
        }
        let c = rest.chars().next().unwrap();
        match c {
            '{' => depth += 1,
            '}' => depth -= 1,
            _ => {}
        }
        at += c.len_utf8();
    }
    out
}

#[test]
fn the_crate_root_reexports_thirty_names_at_most_and_no_library_module() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let lib = std::fs::read_to_string(root.join("src/lib.rs")).unwrap();
    // A module of one of the library crates (a file or a folder of that name), or cubecl.
    let is_module = |name: &str| {
        name == "cubecl"
            || library_roots().iter().any(|r| {
                r.join(format!("{name}.rs")).is_file() || r.join(name).join("mod.rs").is_file()
            })
    };
    let names = root_names(&lib, is_module);
    let modules: Vec<&str> = names.iter().filter(|n| n.1).map(|n| n.0.as_str()).collect();
    let others: Vec<&str> = names
        .iter()
        .filter(|n| !n.1)
        .map(|n| n.0.as_str())
        .collect();
    // The facade's modules are its own (`pub mod mcts { pub use …::{A, B}; }`), of chosen
    // names: a module of a library crate re-exported whole would put its internals on the
    // surface. cubecl is the one whole crate, as `#[cube]` code needs it.
    let own: Vec<&str> = lib
        .lines()
        .filter_map(|l| l.strip_prefix("pub mod "))
        .map(|l| l.trim_end_matches('{').trim())
        .collect();
    assert!(
        own.contains(&"mcts") && own.contains(&"players") && others.contains(&"Game"),
        "{own:?} {names:?}"
    );
    assert_eq!(modules, ["cubecl"], "{names:?}");
    assert!(
        others.len() <= 30,
        "{} names at the root: {others:?}",
        others.len()
    );
    let sample = "pub use a::{self, B, c};\npub use d as e;\npub mod m {\n    pub use x::Y;\n}\npub use f::{\n    G,\n    H,\n};";
    let found = root_names(sample, |n| n == "c");
    let want = [
        ("self", false),
        ("B", false),
        ("c", true),
        ("e", true),
        ("G", false),
        ("H", false),
    ];
    assert_eq!(found, want.map(|(n, m)| (n.to_string(), m)));
}
