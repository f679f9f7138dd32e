//! Who may do what with jobs: the server's access mode, the caller a request's bearer token
//! names, what each scope allows, whose jobs a caller sees, and a submission within the
//! caller's quotas. Nothing here knows HTTP (the extractor and the problems are the API's).
//!
//! The modes ([`Access`]):
//!
//! * **keys** — `GRUNDY_API_KEYS_FILE` is set: every job operation needs a key. A job records
//!   the name of the key that submitted it; a key sees and acts on its own jobs only (another's
//!   answer as if they did not exist), an `admin` key on every job.
//! * **open** — no key file, and the server listens on a loopback address (the embedded
//!   default) or the operator set `GRUNDY_AUTH=off`: as before keys existed, anyone may do
//!   anything with any job.
//! * **job writes refused** — no key file on a non-loopback address without `GRUNDY_AUTH=off`:
//!   jobs can be listed and read but not submitted, cancelled or deleted; the start-up log
//!   says why and what to do.
//!
//! The compute endpoints never ask for a key.

use std::sync::Arc;

use crate::config::keys::{KeyRing, Scope};
use crate::config::Config;
use crate::store::{Job, JobQuota, Refusal, Store, DAY_MS};

/// The server's access mode (see the module's text).
#[derive(Debug, Clone)]
pub enum Access {
    Open,
    Keys(Arc<KeyRing>),
    WritesRefused,
}

/// The access mode and the default quotas of a server.
#[derive(Debug, Clone)]
pub struct Auth {
    access: Access,
    quota: JobQuota,
}

/// Who sent a request.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Caller {
    /// No key is needed (`writes`: an open server) or none can be (job writes refused).
    Anyone { writes: bool },
    /// A known key: its name, scopes and quotas.
    Key {
        name: String,
        scopes: Vec<Scope>,
        quota: JobQuota,
    },
}

/// What a job operation does.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Action {
    /// List, read, follow.
    Read,
    /// Submit, cancel, delete.
    Write,
}

/// Why a request is refused. None of them carries the key sent.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Denied {
    /// No `Authorization` header (401).
    Missing,
    /// An `Authorization` header that is not `Bearer <token>` (401).
    NotBearer,
    /// A bearer token that is no key of the key file (401).
    Unknown,
    /// The key lacks the scope the operation needs (403).
    Scope { key: String, needed: Scope },
    /// No keys on a non-loopback address: job writes are refused (403).
    WritesRefused,
}

impl Denied {
    /// The label of `grundy_auth_refusals_total{reason}`.
    pub fn reason(&self) -> &'static str {
        match self {
            Denied::Missing => "missing",
            Denied::NotBearer => "not_bearer",
            Denied::Unknown => "unknown",
            Denied::Scope { .. } => "scope",
            Denied::WritesRefused => "writes_refused",
        }
    }
}

/// Whose jobs a list shows.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Listing {
    /// Every job.
    All,
    /// The jobs of this owner.
    Owner(String),
    /// None (a key asking for another owner's jobs).
    Nothing,
}

/// A quota a submission went past.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct QuotaExceeded {
    /// `active_jobs` or `heaps_per_day`.
    pub quota: &'static str,
    pub limit: u64,
    pub retry_after_secs: u64,
    pub detail: String,
}

/// How long a client over the active-jobs quota is asked to wait: a job of its own may finish
/// any time.
const ACTIVE_RETRY_SECS: u64 = 30;

/// The owner label of metrics for jobs without an owner (no key name can be `-`).
pub const NO_OWNER: &str = "-";

impl Auth {
    pub fn from_config(config: &Config) -> Auth {
        let access = match &config.api_keys {
            Some(ring) => Access::Keys(ring.clone()),
            None if config.auth_off || config.addr.ip().is_loopback() => Access::Open,
            None => Access::WritesRefused,
        };
        let auth = Auth {
            access,
            quota: JobQuota {
                active_jobs: config.quota_active_jobs,
                heaps_per_day: config.quota_heaps_per_day,
            },
        };
        auth.register_metrics();
        auth
    }

    /// The metrics labelled by owner, at 0 for every owner known at start-up (the key file's
    /// names; `-` for jobs without a key), so that a scrape of a server just started lists
    /// them (see [`crate::process::telemetry`]).
    fn register_metrics(&self) {
        let _ = crate::process::telemetry::metrics_handle();
        let names: Vec<&str> = match &self.access {
            Access::Keys(ring) => ring.names(),
            Access::Open | Access::WritesRefused => vec![NO_OWNER],
        };
        for reason in ["missing", "not_bearer", "unknown", "writes_refused"] {
            metrics::counter!("grundy_auth_refusals_total", "reason" => reason, "owner" => NO_OWNER)
                .increment(0);
        }
        for &name in &names {
            let owner = || name.to_owned();
            metrics::counter!("grundy_jobs_submitted_total", "owner" => owner()).increment(0);
            metrics::counter!("grundy_job_heaps_requested_total", "owner" => owner()).increment(0);
            for quota in ["active_jobs", "heaps_per_day"] {
                metrics::counter!("grundy_quota_refusals_total", "owner" => owner(), "quota" => quota)
                    .increment(0);
            }
            metrics::counter!("grundy_auth_refusals_total", "reason" => "scope", "owner" => owner())
                .increment(0);
            metrics::gauge!("grundy_jobs_active", "owner" => owner()).set(0.0);
        }
    }

    pub fn access(&self) -> &Access {
        &self.access
    }

    /// Whether job operations need a key.
    pub fn requires_key(&self) -> bool {
        matches!(self.access, Access::Keys(_))
    }

    /// A sentence for the start-up log: the mode and what it means.
    pub fn describe(&self, config: &Config) -> String {
        match &self.access {
            Access::Keys(ring) => format!(
                "API keys: {} key(s) from {} (names: {}); every job operation needs one",
                ring.len(),
                config
                    .api_keys_file
                    .as_deref()
                    .map(|p| p.display().to_string())
                    .unwrap_or_else(|| "the configuration".into()),
                ring.names().join(", ")
            ),
            Access::Open if config.addr.ip().is_loopback() => format!(
                "no API keys: listening on the loopback address {}, anyone who reaches it may \
                 submit, list and cancel any job (set GRUNDY_API_KEYS_FILE for keys)",
                config.addr
            ),
            Access::Open => format!(
                "GRUNDY_AUTH=off: listening on {} without API keys, anyone who reaches it may \
                 submit, list, cancel and delete any job",
                config.addr
            ),
            Access::WritesRefused => format!(
                "job writes refused: listening on the non-loopback address {} without API keys; \
                 set GRUNDY_API_KEYS_FILE (keys from `grundy keys new --name NAME --scope jobs`), \
                 or GRUNDY_AUTH=off to let anyone submit and cancel jobs. Compute endpoints are open",
                config.addr
            ),
        }
    }

    /// The caller named by an `Authorization` header's value (`None`: no header). Only with
    /// keys is the header looked at.
    pub fn authenticate(&self, authorization: Option<&[u8]>) -> Result<Caller, Denied> {
        let ring = match &self.access {
            Access::Keys(ring) => ring,
            Access::Open => return Ok(Caller::Anyone { writes: true }),
            Access::WritesRefused => return Ok(Caller::Anyone { writes: false }),
        };
        let r = (|| {
            let value = authorization.ok_or(Denied::Missing)?;
            let value = std::str::from_utf8(value).map_err(|_| Denied::NotBearer)?;
            let (scheme, token) = value.trim().split_once(' ').ok_or(Denied::NotBearer)?;
            if !scheme.eq_ignore_ascii_case("bearer") {
                return Err(Denied::NotBearer);
            }
            let key = ring.find(token.trim()).ok_or(Denied::Unknown)?;
            Ok(Caller::Key {
                name: key.name.clone(),
                scopes: key.scopes.clone(),
                quota: JobQuota {
                    active_jobs: key.quotas.active_jobs.unwrap_or(self.quota.active_jobs),
                    heaps_per_day: key.quotas.heaps_per_day.unwrap_or(self.quota.heaps_per_day),
                },
            })
        })();
        if let Err(d) = &r {
            refused(d, NO_OWNER);
        }
        r
    }

    /// [`Auth::authenticate`], then [`Caller::allow`] of `action`.
    pub fn authorize(
        &self,
        authorization: Option<&[u8]>,
        action: Action,
    ) -> Result<Caller, Denied> {
        let caller = self.authenticate(authorization)?;
        caller.allow(action)?;
        Ok(caller)
    }

    /// Sets `grundy_jobs_active{owner}` for a scrape: the queued and running jobs of every key
    /// name of the key file (0 for a name without any); without keys, those of no key (`-`).
    pub async fn record_active_jobs(&self, store: &Store) {
        let names = match &self.access {
            Access::Keys(ring) => ring.names(),
            Access::Open | Access::WritesRefused => vec![NO_OWNER],
        };
        let counts = tokio::time::timeout(
            std::time::Duration::from_secs(1),
            store.active_jobs_by_owner(),
        )
        .await;
        let Ok(Ok(counts)) = counts else {
            return;
        };
        for name in names {
            let n = counts
                .iter()
                .find(|(o, _)| o.as_deref().unwrap_or(NO_OWNER) == name)
                .map_or(0, |(_, n)| *n);
            metrics::gauge!("grundy_jobs_active", "owner" => name.to_owned()).set(n as f64);
        }
    }
}

/// What a quota refusal of `owner`'s job of `heaps` heaps says.
pub(super) fn refusal(owner: &str, refused: Refusal, heaps: u64) -> QuotaExceeded {
    let detail = match refused {
        Refusal::HeapsPerDay { limit, used, .. } => format!(
            "key {owner:?} requested {used} heaps today (UTC); this job's max_n of {heaps} \
             would exceed its limit of {limit} heaps a day (GRUNDY_QUOTA_HEAPS_PER_DAY \
             or the key's heaps_per_day)"
        ),
        Refusal::ActiveJobs { active, .. } => format!(
            "key {owner:?} has {active} queued or running jobs, its limit \
             (GRUNDY_QUOTA_ACTIVE_JOBS or the key's active_jobs); cancel one or wait \
             until one finishes"
        ),
    };
    refused_by(owner, refused, detail)
}

/// A refusal of `owner`'s submission by a quota of its key, counted: the quota, its limit,
/// when to try again (a job of its own may finish any time; the day's heaps count again
/// when the day ends), and `detail`, the submission's words for it.
pub(super) fn refused_by(owner: &str, refused: Refusal, detail: String) -> QuotaExceeded {
    let (quota, limit, retry_after_secs) = match refused {
        Refusal::HeapsPerDay {
            limit, day_ends_ms, ..
        } => {
            let left = (day_ends_ms - crate::store::now_ms()).clamp(1000, DAY_MS);
            ("heaps_per_day", limit, (left as u64).div_ceil(1000))
        }
        Refusal::ActiveJobs { limit, .. } => ("active_jobs", limit, ACTIVE_RETRY_SECS),
    };
    over_quota(owner, quota, limit, retry_after_secs, detail)
}

/// Counts a submission admitted (`grundy_jobs_submitted_total`, heaps requested): `jobs` jobs
/// of `heaps` heaps in all.
pub(super) fn submitted(owner: &str, (jobs, heaps): (u64, u64)) {
    metrics::counter!("grundy_jobs_submitted_total", "owner" => owner.to_owned()).increment(jobs);
    metrics::counter!("grundy_job_heaps_requested_total", "owner" => owner.to_owned())
        .increment(heaps);
}

/// Counts a quota refusal and says what it is.
fn over_quota(
    owner: &str,
    quota: &'static str,
    limit: u64,
    retry_after_secs: u64,
    detail: String,
) -> QuotaExceeded {
    metrics::counter!("grundy_quota_refusals_total", "owner" => owner.to_owned(), "quota" => quota)
        .increment(1);
    QuotaExceeded {
        quota,
        limit,
        retry_after_secs,
        detail,
    }
}

/// Counts a refusal (labelled by key name, never by what was sent).
fn refused(denied: &Denied, owner: &str) {
    metrics::counter!("grundy_auth_refusals_total", "reason" => denied.reason(), "owner" => owner.to_owned())
        .increment(1);
}

impl Caller {
    fn has(&self, scope: Scope) -> bool {
        matches!(self, Caller::Key { scopes, .. } if scopes.contains(&scope))
    }

    /// Whether the caller may see every job.
    pub fn is_admin(&self) -> bool {
        matches!(self, Caller::Anyone { .. }) || self.has(Scope::Admin)
    }

    /// The key's name, if any.
    pub fn key_name(&self) -> Option<&str> {
        match self {
            Caller::Key { name, .. } => Some(name),
            Caller::Anyone { .. } => None,
        }
    }

    /// Whether the caller may do `action` at all (on its own jobs).
    pub fn allow(&self, action: Action) -> Result<(), Denied> {
        let ok = match (self, action) {
            (Caller::Anyone { .. }, Action::Read) => true,
            (Caller::Anyone { writes }, Action::Write) => {
                if *writes {
                    true
                } else {
                    refused(&Denied::WritesRefused, NO_OWNER);
                    return Err(Denied::WritesRefused);
                }
            }
            (Caller::Key { .. }, Action::Read) => {
                self.has(Scope::Jobs) || self.has(Scope::JobsRead) || self.has(Scope::Admin)
            }
            (Caller::Key { .. }, Action::Write) => self.has(Scope::Jobs) || self.has(Scope::Admin),
        };
        if ok {
            return Ok(());
        }
        let name = self.key_name().unwrap_or(NO_OWNER).to_owned();
        let denied = Denied::Scope {
            key: name.clone(),
            needed: match action {
                Action::Read => Scope::JobsRead,
                Action::Write => Scope::Jobs,
            },
        };
        refused(&denied, &name);
        Err(denied)
    }

    /// Whether the caller may see `job` (another's job is answered as if it did not exist).
    pub fn sees(&self, job: &Job) -> bool {
        self.sees_owned_by(job.owner.as_deref())
    }

    /// Whether the caller may see what `owner` owns (a job, a census).
    pub fn sees_owned_by(&self, owner: Option<&str>) -> bool {
        self.is_admin() || (self.key_name().is_some() && self.key_name() == owner)
    }

    /// The owner and quotas of what this caller submits (`None`: no key, no quotas).
    pub fn owner_quota(&self) -> Option<(&str, JobQuota)> {
        match self {
            Caller::Key { name, quota, .. } => Some((name, *quota)),
            Caller::Anyone { .. } => None,
        }
    }

    /// Whose jobs a list for `owner` (the query's filter, if any) shows.
    pub fn listing(&self, owner: Option<&str>) -> Listing {
        match (self.is_admin(), owner, self.key_name()) {
            (true, None, _) => Listing::All,
            (true, Some(o), _) => Listing::Owner(o.to_owned()),
            (false, Some(o), Some(me)) if o != me => Listing::Nothing,
            (false, _, Some(me)) => Listing::Owner(me.to_owned()),
            // Not reached: a caller without a key is `Anyone`, who sees every job.
            (false, _, None) => Listing::Nothing,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::config::keys::{key_file_line, new_key};

    fn config(addr: &str, keys: Option<&str>, off: bool) -> Config {
        Config {
            addr: addr.parse().unwrap(),
            api_keys: keys.map(|k| Arc::new(KeyRing::parse(k).unwrap())),
            auth_off: off,
            ..Config::default()
        }
    }

    fn job(owner: Option<&str>) -> Job {
        Job {
            owner: owner.map(str::to_owned),
            ..Job::queued("j", crate::store::JobKind::Sequence, "0.6", 1, 0)
        }
    }

    #[test]
    fn modes() {
        let open = Auth::from_config(&config("127.0.0.1:8080", None, false));
        assert!(matches!(open.access(), Access::Open));
        assert_eq!(
            open.authorize(None, Action::Write),
            Ok(Caller::Anyone { writes: true })
        );
        let v6 = Auth::from_config(&config("[::1]:8080", None, false));
        assert!(matches!(v6.access(), Access::Open));
        let exposed = Auth::from_config(&config("0.0.0.0:8080", None, false));
        assert!(matches!(exposed.access(), Access::WritesRefused));
        assert!(exposed.authorize(None, Action::Read).is_ok());
        assert_eq!(
            exposed.authorize(Some(b"Bearer x"), Action::Write),
            Err(Denied::WritesRefused)
        );
        assert!(exposed
            .describe(&config("0.0.0.0:8080", None, false))
            .contains("GRUNDY_AUTH=off"));
        let off = Auth::from_config(&config("0.0.0.0:8080", None, true));
        assert!(off.authorize(None, Action::Write).is_ok());
    }

    #[test]
    fn keys_scopes_and_ownership() {
        let (a, r, n, root) = (
            new_key().unwrap(),
            new_key().unwrap(),
            new_key().unwrap(),
            new_key().unwrap(),
        );
        let file = [
            key_file_line("alice", &[Scope::Jobs], &a),
            key_file_line("reader", &[Scope::JobsRead], &r),
            key_file_line("none", &[], &n),
            key_file_line("root", &[Scope::Admin], &root),
        ]
        .join("\n");
        let auth = Auth::from_config(&config("127.0.0.1:1", Some(&file), false));
        let bearer = |k: &str| format!("Bearer {k}").into_bytes();
        assert_eq!(auth.authenticate(None), Err(Denied::Missing));
        assert_eq!(
            auth.authenticate(Some(b"Basic abc")),
            Err(Denied::NotBearer)
        );
        assert_eq!(auth.authenticate(Some(b"Bearer")), Err(Denied::NotBearer));
        assert_eq!(
            auth.authenticate(Some(&bearer("grundy_nope"))),
            Err(Denied::Unknown)
        );
        assert_eq!(auth.authenticate(Some(b"\xff\xfe")), Err(Denied::NotBearer));
        let alice = auth.authorize(Some(&bearer(&a)), Action::Write).unwrap();
        assert_eq!(alice.key_name(), Some("alice"));
        assert!(auth
            .authenticate(Some(format!("bearer   {a} ").as_bytes()))
            .is_ok());
        let reader = auth.authorize(Some(&bearer(&r)), Action::Read).unwrap();
        assert!(matches!(
            reader.allow(Action::Write),
            Err(Denied::Scope {
                needed: Scope::Jobs,
                ..
            })
        ));
        assert!(matches!(
            auth.authorize(Some(&bearer(&n)), Action::Read),
            Err(Denied::Scope {
                needed: Scope::JobsRead,
                ..
            })
        ));
        let root = auth.authorize(Some(&bearer(&root)), Action::Write).unwrap();
        assert!(alice.sees(&job(Some("alice"))));
        assert!(!alice.sees(&job(Some("bob"))));
        assert!(!alice.sees(&job(None)));
        assert!(root.sees(&job(Some("bob"))) && root.sees(&job(None)));
        assert_eq!(alice.listing(None), Listing::Owner("alice".into()));
        assert_eq!(alice.listing(Some("alice")), Listing::Owner("alice".into()));
        assert_eq!(alice.listing(Some("bob")), Listing::Nothing);
        assert_eq!(root.listing(None), Listing::All);
        assert_eq!(root.listing(Some("bob")), Listing::Owner("bob".into()));
        // Nothing a refusal says carries the key.
        assert!(!format!("{:?}", auth.authenticate(Some(&bearer(&format!("{a}x"))))).contains(&a));
    }
}
