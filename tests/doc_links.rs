//! README and the guide (`docs/*.md`) point only at what exists (issue 56): every relative link
//! resolves to a file or folder of the repository, and every repository path they name in
//! backticks (`src/…`, `crates/…`, `scripts/…`, `tests/…`, `docs/…`, `web/…`, written from the
//! repository root) exists. A module moved or a file renamed fails here until the text follows.

mod common;

use std::path::{Path, PathBuf};

/// README and every page of the guide, with their paths from the repository root.
fn documents() -> Vec<(PathBuf, String)> {
    let mut out = vec![PathBuf::from("README.md"), PathBuf::from("BENCHMARKS.md")];
    out.extend(common::guide_pages());
    out.into_iter()
        .map(|p| {
            let text = std::fs::read_to_string(&p).unwrap();
            (p, text)
        })
        .collect()
}

/// The targets of the Markdown links `[text](target)` and images `![alt](target)` of `text`,
/// with their line numbers (outside code blocks).
fn links(text: &str) -> Vec<(usize, String)> {
    let link = regex::Regex::new(r"\]\(([^)\s]+)\)").unwrap();
    let mut out = Vec::new();
    let mut in_code = false;
    for (i, line) in text.lines().enumerate() {
        if line.trim_start().starts_with("```") {
            in_code = !in_code;
            continue;
        }
        if in_code {
            continue;
        }
        for c in link.captures_iter(line) {
            out.push((i + 1, c[1].to_owned()));
        }
    }
    out
}

/// The repository paths named in backticks: a word starting with one of the repository's
/// folders. Templates (`<module>`, `*`, `{id}`, `…`) are not paths and are left out.
fn named_paths(text: &str) -> Vec<(usize, String)> {
    let code = regex::Regex::new(r"`([^`\s]+)`").unwrap();
    let roots = ["src/", "crates/", "scripts/", "tests/", "docs/", "web/"];
    let mut out = Vec::new();
    for (i, line) in text.lines().enumerate() {
        for c in code.captures_iter(line) {
            // A Rust item after the file (`tests/x.rs::a_test`) is not part of the path.
            let word = c[1].split("::").next().unwrap_or("");
            let word = word.trim_end_matches([',', '.', ';', ':', ')']);
            if !roots.iter().any(|r| word.starts_with(r)) {
                continue;
            }
            if word.contains(['<', '*', '{', '…', '$', '?']) {
                continue;
            }
            out.push((i + 1, word.to_owned()));
        }
    }
    out
}

#[test]
fn every_link_of_readme_and_the_guide_exists() {
    let mut missing = Vec::new();
    let mut checked = 0;
    for (doc, text) in documents() {
        let folder = doc.parent().unwrap_or(Path::new(""));
        for (line, target) in links(&text) {
            if target.starts_with("http://")
                || target.starts_with("https://")
                || target.starts_with("mailto:")
                || target.starts_with('#')
            {
                continue;
            }
            let file = target.split('#').next().unwrap();
            checked += 1;
            if !folder.join(file).exists() {
                missing.push(format!("{}:{line}: {target}", doc.display()));
            }
        }
    }
    assert!(checked >= 20, "only {checked} links");
    assert!(
        missing.is_empty(),
        "links to nothing:\n{}",
        missing.join("\n")
    );
}

#[test]
fn every_path_named_in_readme_and_the_guide_exists() {
    let mut missing = Vec::new();
    let mut checked = 0;
    for (doc, text) in documents() {
        // The census tables are generated from a run (`scripts/census-md.py`); their paths are
        // the run's folders, not the repository's.
        if doc.ends_with("census.md") {
            continue;
        }
        for (line, path) in named_paths(&text) {
            checked += 1;
            if !Path::new(&path).exists() {
                missing.push(format!("{}:{line}: `{path}`", doc.display()));
            }
        }
    }
    assert!(checked >= 50, "only {checked} paths");
    assert!(
        missing.is_empty(),
        "paths that do not exist (write them from the repository root):\n{}",
        missing.join("\n")
    );
}
