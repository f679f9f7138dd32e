//! What this binary was built from, to cite with a computed result (job documents' `engine`):
//! the crate's version and the git commit (the package's `build.rs`; `unknown` where the build
//! had neither git nor `GRUNDY_GIT_COMMIT`). The engine (`grundy-core`) carries no commit, so
//! that a new commit never recompiles it.

/// The crate's version (`Cargo.toml`; the engine's is the same workspace version).
pub const VERSION: &str = env!("CARGO_PKG_VERSION");
/// The git commit of the build, `-dirty` when built from changed sources.
pub const COMMIT: &str = env!("GRUNDY_GIT_COMMIT");
