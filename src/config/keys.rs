//! API keys: their scopes, the key file that holds only their hashes, a fresh key, and finding
//! the key a client sent. Pure data and hashing, no I/O beyond reading the key file; who may do
//! what with a key is `crate::service::auth`.
//!
//! A key is `grundy_` followed by 32 random bytes from the operating system's generator (256
//! bits) in unpadded base64url. The key file keeps only its SHA-256: a key has far more entropy
//! than any password, so a plain, fast hash cannot be brute-forced and needs no salt or
//! stretching (what the key file would leak is the names and scopes, not a usable key).
//!
//! # The key file (`GRUNDY_API_KEYS_FILE`)
//!
//! One key a line, fields separated by spaces; `#` starts a comment line:
//!
//! ```text
//! # name   scopes        hash                                                                    quotas (optional)
//! alice    jobs          sha256:9f86d081884c7d659a2feaa0c55ad015a3bf4f1b2b0b822cd15d6c15b0f00a08
//! ci       jobs:read     sha256:…
//! ops      jobs,admin    sha256:…  active_jobs=500 heaps_per_day=0
//! ```
//!
//! `name` (1–64 of `A-Z a-z 0-9 . _ -`, starting with a letter or digit) is what jobs record as
//! their owner and what metrics are labelled with; several lines may share a name (rotating a
//! key without losing its jobs). Scopes, comma-separated: `jobs` (submit, list, read, follow,
//! cancel and delete one's own jobs), `jobs:read` (list, read and follow them only), `admin`
//! (every job of every owner); `-` for none (a suspended key: it is recognised, and refused).
//! `active_jobs=N` and `heaps_per_day=N` override the server's quotas for that key (0: none).

use std::fmt;
use std::path::Path;

use sha2::{Digest, Sha256};
use subtle::ConstantTimeEq;

/// What every key starts with (so that a leaked key is recognisable, e.g. by secret scanners).
pub const KEY_PREFIX: &str = "grundy_";

/// Random bytes in a key: 256 bits.
const KEY_BYTES: usize = 32;

/// The longest `Authorization` token looked at (a key is 50 characters).
const MAX_TOKEN_LEN: usize = 256;

/// What a key may do.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Scope {
    /// Submit, list, read, follow, cancel and delete one's own jobs.
    Jobs,
    /// List, read and follow one's own jobs.
    JobsRead,
    /// Every job of every owner (and all that `jobs` allows).
    Admin,
}

impl Scope {
    pub const ALL: [Scope; 3] = [Scope::Jobs, Scope::JobsRead, Scope::Admin];

    pub fn as_str(self) -> &'static str {
        match self {
            Scope::Jobs => "jobs",
            Scope::JobsRead => "jobs:read",
            Scope::Admin => "admin",
        }
    }

    pub fn parse(s: &str) -> Option<Scope> {
        Scope::ALL.into_iter().find(|x| x.as_str() == s)
    }
}

impl fmt::Display for Scope {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

/// A key's own quotas, overriding the server's (`None`: the server's).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct QuotaOverrides {
    pub active_jobs: Option<u64>,
    pub heaps_per_day: Option<u64>,
}

/// One line of the key file.
#[derive(Clone)]
pub struct ApiKey {
    pub name: String,
    pub scopes: Vec<Scope>,
    pub quotas: QuotaOverrides,
    hash: [u8; 32],
}

impl ApiKey {
    pub fn has(&self, scope: Scope) -> bool {
        self.scopes.contains(&scope)
    }
}

/// Never the hash: names, scopes and quotas only.
impl fmt::Debug for ApiKey {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("ApiKey")
            .field("name", &self.name)
            .field("scopes", &self.scopes)
            .field("quotas", &self.quotas)
            .finish_non_exhaustive()
    }
}

/// The keys of a key file.
#[derive(Clone, Default)]
pub struct KeyRing {
    keys: Vec<ApiKey>,
}

/// Never the hashes (they are logged with the configuration at start-up).
impl fmt::Debug for KeyRing {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_list().entries(&self.keys).finish()
    }
}

/// A line of a key file that cannot be used.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("line {line}: {reason}")]
pub struct KeyFileError {
    pub line: usize,
    pub reason: String,
}

/// The SHA-256 of a key, as the key file holds it.
pub fn hash_key(key: &str) -> [u8; 32] {
    Sha256::digest(key.as_bytes()).into()
}

/// A fresh key: [`KEY_PREFIX`] and 256 random bits from the operating system, base64url.
pub fn new_key() -> Result<String, getrandom::Error> {
    let mut bytes = [0u8; KEY_BYTES];
    getrandom::fill(&mut bytes)?;
    use base64::Engine as _;
    Ok(format!(
        "{KEY_PREFIX}{}",
        base64::engine::general_purpose::URL_SAFE_NO_PAD.encode(bytes)
    ))
}

/// The key-file line of `key` under `name` with `scopes`.
pub fn key_file_line(name: &str, scopes: &[Scope], key: &str) -> String {
    let scopes = if scopes.is_empty() {
        "-".to_owned()
    } else {
        scopes
            .iter()
            .map(|s| s.as_str())
            .collect::<Vec<_>>()
            .join(",")
    };
    format!("{name} {scopes} sha256:{}", hex(&hash_key(key)))
}

/// Whether `name` may name a key: 1–64 of `A-Z a-z 0-9 . _ -`, starting with a letter or digit.
pub fn valid_name(name: &str) -> bool {
    (1..=64).contains(&name.len())
        && name.starts_with(|c: char| c.is_ascii_alphanumeric())
        && name
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || matches!(c, '.' | '_' | '-'))
}

/// Scopes from `jobs,admin` (or `-` for none).
pub fn parse_scopes(text: &str) -> Result<Vec<Scope>, String> {
    if text == "-" {
        return Ok(Vec::new());
    }
    let mut scopes = Vec::new();
    for s in text.split(',') {
        let scope = Scope::parse(s).ok_or_else(|| {
            format!("unknown scope {s:?} (expected jobs, jobs:read, admin, or - for none)")
        })?;
        if !scopes.contains(&scope) {
            scopes.push(scope);
        }
    }
    Ok(scopes)
}

fn hex(bytes: &[u8]) -> String {
    bytes.iter().map(|b| format!("{b:02x}")).collect()
}

fn unhex(text: &str) -> Option<[u8; 32]> {
    if text.len() != 64 || !text.is_ascii() {
        return None;
    }
    let mut out = [0u8; 32];
    for (i, o) in out.iter_mut().enumerate() {
        *o = u8::from_str_radix(&text[2 * i..2 * i + 2], 16).ok()?;
    }
    Some(out)
}

impl KeyRing {
    /// The keys of a key file's text.
    pub fn parse(text: &str) -> Result<KeyRing, KeyFileError> {
        let mut keys: Vec<ApiKey> = Vec::new();
        for (i, raw) in text.lines().enumerate() {
            let line = i + 1;
            let err = |reason: String| KeyFileError { line, reason };
            let content = raw.trim();
            if content.is_empty() || content.starts_with('#') {
                continue;
            }
            let fields: Vec<&str> = content.split_whitespace().collect();
            let [name, scopes, hash, extra @ ..] = fields.as_slice() else {
                return Err(err(
                    "expected `name scopes sha256:<64 hex digits> [active_jobs=N] [heaps_per_day=N]`"
                        .into(),
                ));
            };
            if !valid_name(name) {
                return Err(err(format!(
                    "name {name:?}: 1 to 64 of A-Z a-z 0-9 . _ -, starting with a letter or digit"
                )));
            }
            let scopes = parse_scopes(scopes).map_err(err)?;
            let hash = hash
                .strip_prefix("sha256:")
                .and_then(|h| unhex(&h.to_ascii_lowercase()))
                .ok_or_else(|| {
                    err(
                        "the third field must be sha256: and 64 hex digits (the hash of the key, \
                         never the key itself: `grundy keys new` prints the line)"
                            .into(),
                    )
                })?;
            if keys.iter().any(|k| k.hash == hash) {
                return Err(err("the same key appears twice".into()));
            }
            let mut quotas = QuotaOverrides::default();
            for setting in extra {
                let (k, v) = setting.split_once('=').unwrap_or((setting, ""));
                let n: u64 = v.parse().map_err(|_| {
                    err(format!(
                        "{setting:?}: expected active_jobs=N or heaps_per_day=N"
                    ))
                })?;
                match k {
                    "active_jobs" => quotas.active_jobs = Some(n),
                    "heaps_per_day" => quotas.heaps_per_day = Some(n),
                    _ => {
                        return Err(err(format!(
                            "{setting:?}: expected active_jobs=N or heaps_per_day=N"
                        )))
                    }
                }
            }
            keys.push(ApiKey {
                name: (*name).to_owned(),
                scopes,
                quotas,
                hash,
            });
        }
        Ok(KeyRing { keys })
    }

    /// The keys of the key file at `path`.
    pub fn load(path: &Path) -> Result<KeyRing, String> {
        let text = std::fs::read_to_string(path).map_err(|e| format!("cannot read it: {e}"))?;
        let ring = KeyRing::parse(&text).map_err(|e| e.to_string())?;
        if ring.keys.is_empty() {
            return Err("it holds no key (a line per key: `grundy keys new --name N --scope jobs` prints one)".into());
        }
        Ok(ring)
    }

    /// The key whose hash is the hash of `token`. Every key's hash is compared, each in
    /// constant time, whatever matches: the time taken says nothing about the token.
    pub fn find(&self, token: &str) -> Option<&ApiKey> {
        if token.len() > MAX_TOKEN_LEN {
            return None;
        }
        let hash = hash_key(token);
        let mut found = None;
        for key in &self.keys {
            let matched: bool = key.hash.ct_eq(&hash).into();
            if matched && found.is_none() {
                found = Some(key);
            }
        }
        found
    }

    pub fn len(&self) -> usize {
        self.keys.len()
    }

    pub fn is_empty(&self) -> bool {
        self.keys.is_empty()
    }

    /// The distinct key names, sorted (the owners that metrics are labelled with).
    pub fn names(&self) -> Vec<&str> {
        let mut names: Vec<&str> = self.keys.iter().map(|k| k.name.as_str()).collect();
        names.sort_unstable();
        names.dedup();
        names
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_new_key_is_long_random_and_found_by_its_line() {
        let a = new_key().unwrap();
        let b = new_key().unwrap();
        assert_ne!(a, b);
        assert!(a.starts_with(KEY_PREFIX));
        // 32 bytes in unpadded base64url: 43 characters, 256 bits.
        assert_eq!(a.len(), KEY_PREFIX.len() + 43);
        let line = key_file_line("alice", &[Scope::Jobs], &a);
        assert!(!line.contains(&a), "the line holds only the hash");
        assert!(line.starts_with("alice jobs sha256:"), "{line}");
        let ring = KeyRing::parse(&format!("# keys\n\n{line}\n")).unwrap();
        assert_eq!(ring.find(&a).map(|k| k.name.as_str()), Some("alice"));
        assert!(ring.find(&b).is_none());
        assert!(ring.find("").is_none());
        assert!(ring.find(&"x".repeat(10_000)).is_none());
        assert!(
            !format!("{ring:?}").contains(&line[18..]),
            "Debug shows no hash"
        );
    }

    #[test]
    fn key_file_lines() {
        let h = format!("sha256:{}", "ab".repeat(32));
        let ring = KeyRing::parse(&format!(
            "ops jobs,admin {h} active_jobs=5 heaps_per_day=0\nro jobs:read sha256:{}\nsus - sha256:{}",
            "cd".repeat(32),
            "EF".repeat(32)
        ))
        .unwrap();
        assert_eq!(ring.len(), 3);
        assert_eq!(ring.names(), ["ops", "ro", "sus"]);
        let ops = &ring.keys[0];
        assert_eq!(ops.scopes, [Scope::Jobs, Scope::Admin]);
        assert_eq!(ops.quotas.active_jobs, Some(5));
        assert_eq!(ops.quotas.heaps_per_day, Some(0));
        assert!(ring.keys[2].scopes.is_empty());
        for (bad, why) in [
            ("alice jobs", "expected"),
            ("-x jobs sha256:00", "name"),
            (&format!("a jobs,root {h}"), "unknown scope"),
            ("a jobs grundy_secret", "sha256"),
            (&format!("a jobs sha256:{}", "g".repeat(64)), "sha256"),
            (&format!("a jobs {h} active_jobs=many"), "active_jobs=N"),
            (&format!("a jobs {h} speed=1"), "active_jobs=N"),
            (&format!("a jobs {h}\nb jobs {h}"), "twice"),
        ] {
            let e = KeyRing::parse(bad).unwrap_err();
            assert!(e.reason.contains(why), "{bad}: {e}");
        }
        assert_eq!(
            KeyRing::parse(&format!("\n\na jobs {h}\nb x {h}"))
                .unwrap_err()
                .line,
            4
        );
    }

    #[test]
    fn names() {
        assert!(valid_name("alice"));
        assert!(valid_name("ci-bot.2_x"));
        assert!(!valid_name(""));
        assert!(!valid_name("-"));
        assert!(!valid_name("a b"));
        assert!(!valid_name(&"a".repeat(65)));
    }
}
