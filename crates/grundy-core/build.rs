//! Build information for the engine's version (`grundy_core::octal::ENGINE_COMMIT`): the git
//! commit the binary was built from, so that a computed result can be cited with what computed
//! it. `GRUNDY_GIT_COMMIT` (e.g. a container build without `.git`) wins; else `git rev-parse`,
//! with `-dirty` when the work tree has changes; else `unknown`.

use std::process::Command;

fn git(args: &[&str]) -> Option<String> {
    let out = Command::new("git").args(args).output().ok()?;
    out.status
        .success()
        .then(|| String::from_utf8_lossy(&out.stdout).trim().to_owned())
}

fn main() {
    println!("cargo:rerun-if-env-changed=GRUNDY_GIT_COMMIT");
    // A new commit, a checkout or a staged change moves HEAD or the index.
    // Where git keeps them (a linked worktree's `.git` is a file, not the folder).
    for name in ["HEAD", "index", "refs/heads"] {
        let path = git(&["rev-parse", "--git-path", name]).unwrap_or(format!(".git/{name}"));
        println!("cargo:rerun-if-changed={path}");
    }
    let commit = std::env::var("GRUNDY_GIT_COMMIT")
        .ok()
        .filter(|c| !c.trim().is_empty())
        .or_else(|| {
            let head = git(&["rev-parse", "HEAD"])?;
            let dirty = git(&["status", "--porcelain", "--untracked-files=no"])
                .is_some_and(|s| !s.is_empty());
            Some(if dirty { format!("{head}-dirty") } else { head })
        })
        .unwrap_or_else(|| "unknown".to_owned());
    println!("cargo:rustc-env=GRUNDY_GIT_COMMIT={commit}");
}
