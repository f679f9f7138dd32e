//! The git commit this build was made from (`grundy::process::build::COMMIT`), so that a computed
//! result can be cited with what computed it: `GRUNDY_GIT_COMMIT` wins (a container build
//! without `.git`); else `git rev-parse HEAD`, with `-dirty` when the sources compiled differ
//! from that commit; else `unknown`.
//!
//! This script belongs to the service package, not to `grundy-core`: a new commit recompiles
//! only this package, never the engine (issue 54). It reruns only when the commit moves (HEAD,
//! the branch refs, packed refs) or a compiled source changes — never because git touched its
//! index: `GIT_OPTIONAL_LOCKS=0` keeps `git status` from rewriting `.git/index`, and the index
//! is not watched. A source change recompiles this package anyway, so the `-dirty` check costs
//! no extra build.

use std::process::Command;

/// What goes into the binary: the `-dirty` check looks at these only, and a change to any of
/// them reruns this script.
const SOURCES: &[&str] = &[
    "Cargo.toml",
    "Cargo.lock",
    "build.rs",
    "src",
    "web",
    "migrations",
    "crates/grundy-core/Cargo.toml",
    "crates/grundy-core/src",
];

fn git(args: &[&str]) -> Option<String> {
    let out = Command::new("git")
        .args(args)
        .env("GIT_OPTIONAL_LOCKS", "0")
        .output()
        .ok()?;
    out.status
        .success()
        .then(|| String::from_utf8_lossy(&out.stdout).trim().to_owned())
}

fn main() {
    println!("cargo:rerun-if-env-changed=GRUNDY_GIT_COMMIT");
    for source in SOURCES {
        println!("cargo:rerun-if-changed={source}");
    }
    // Where git keeps them (a linked worktree's `.git` is a file, not the folder). A commit on
    // a branch moves its ref; a checkout moves HEAD; `git gc` moves refs into packed-refs.
    if let Some(git_dir) = git(&["rev-parse", "--git-dir"]) {
        for name in ["HEAD", "refs/heads", "packed-refs"] {
            let path = git(&["rev-parse", "--git-path", name])
                .unwrap_or_else(|| format!("{git_dir}/{name}"));
            if std::path::Path::new(&path).exists() {
                println!("cargo:rerun-if-changed={path}");
            }
        }
    }
    let commit = std::env::var("GRUNDY_GIT_COMMIT")
        .ok()
        .filter(|c| !c.trim().is_empty())
        .or_else(|| {
            let head = git(&["rev-parse", "HEAD"])?;
            let mut status = vec!["status", "--porcelain", "--untracked-files=no", "--"];
            status.extend(SOURCES);
            let dirty = git(&status).is_some_and(|s| !s.is_empty());
            Some(if dirty { format!("{head}-dirty") } else { head })
        })
        .unwrap_or_else(|| "unknown".to_owned());
    println!("cargo:rustc-env=GRUNDY_GIT_COMMIT={commit}");
}
