//! A census: one job per game code — by default every game of the unsolved table
//! (`crate::core::octal::statistics::unsolved`, Grundy's game included) — started together, owned by the
//! caller and counted against its quotas all at once (the submission of the census-member
//! kind, [`CensusMemberJob`], declared with its rows in the store: its [`JobSubmit`] is here;
//! a member's job is a sequence job, run as one), and read back as a table: per game its job's
//! status, n reached, statistics and a verdict.
//!
//! The verdict of a game whose job proved periodicity is checked by a second run from scratch
//! before it is reported: the first read of the census after the primary job finished starts
//! a verification job (window mode, nothing stored, so it reads none of the primary's values;
//! the store makes it unique per census and code, however many readers race). The game is
//! "periodic (verified)" only once that job independently proves the same preperiod, period
//! and saltus; until then it is "unverified", and a mismatch is reported as "DISPUTED".
//!
//! The census says only what it knows. For a game of T. Czajka's list ([`UNSOLVED_GAMES`]) a
//! verified periodicity is **not** called new: that list is a work in progress (2018) of the
//! `0.xyz` and `4.xyz` games whose period his `all_games` program could not prove from their
//! first 1,000 values (`4.344`'s period, preperiod 998 and period 51, needs 2,100), his own
//! analyzer proves some of them, and A. Flammenkamp's tables — the status of every `0.???` and
//! `4.???` game and of Grundy's game — are not checked here. The verdict says so, naming how
//! many values the proof reads. Nothing here knows HTTP.

use super::kind::{JobSubmit, Submission};
use super::request::{window_rule, JobRefusal};
use crate::config::Config;
use crate::core::octal::statistics::unsolved::{unsolved_game, UnsolvedGame, UNSOLVED_GAMES};
use crate::core::octal::{Engine, Game, Snapshot, Statistics};
use crate::service::auth::{refused_by, submitted, Caller, QuotaExceeded, NO_OWNER};
use crate::service::state::AppState;
use crate::store::{
    Census, CensusMemberJob, CensusMembers, CensusRole, Job, JobRows, JobStatus, NewCensus, NewJob,
    PeriodicityRecord, Refusal, Store, StoreError,
};

/// The most codes one census may name.
pub const MAX_CODES: usize = 200;

/// Why a census is not started.
#[derive(Debug)]
pub enum CensusError {
    /// A bad request field (422), named as the API names it (`codes[3]`).
    Invalid {
        field: String,
        detail: String,
    },
    /// The job of code `codes[index]` is refused (the window rule, `request::window_rule`).
    Code {
        index: usize,
        refusal: JobRefusal,
    },
    /// The census's jobs do not fit the caller's quotas (nothing was written).
    OverQuota(QuotaExceeded),
    Store(StoreError),
}

impl From<StoreError> for CensusError {
    fn from(e: StoreError) -> Self {
        CensusError::Store(e)
    }
}

/// The canonical codes a census of `codes` runs (`None`: the unsolved table, `grundy`
/// included), in order, each once; every job is `template` with the code. A code that does
/// not parse, or that cannot run in window mode when `template` keeps a window, is refused
/// naming its place (`codes[i]`).
pub fn plan(codes: Option<&[String]>, template: &NewJob) -> Result<NewCensus, CensusError> {
    let invalid = |field: String, detail: String| CensusError::Invalid { field, detail };
    let given: Vec<String> = match codes {
        Some(codes) => codes.to_vec(),
        None => UNSOLVED_GAMES.iter().map(|u| u.code.to_owned()).collect(),
    };
    if given.is_empty() {
        return Err(invalid(
            "codes".into(),
            "codes: the list is empty (leave it out for every game of the unsolved table)".into(),
        ));
    }
    if given.len() > MAX_CODES {
        return Err(invalid(
            "codes".into(),
            format!(
                "codes: {} codes, at most {MAX_CODES} in one census",
                given.len()
            ),
        ));
    }
    let mut canonical: Vec<String> = Vec::with_capacity(given.len());
    let mut all_instead = false;
    for (i, code) in given.iter().enumerate() {
        let field = format!("codes[{i}]");
        let game = Game::parse(code)
            .map_err(|e| invalid(field.clone(), format!("{field}: {e} (in {code:?})")))?;
        let mut job = template.clone();
        window_rule(&game, &mut job).map_err(|refusal| CensusError::Code { index: i, refusal })?;
        // The window holds every value: the census's jobs keep all.
        all_instead |= template.keep_window.is_some() && job.keep_window.is_none();
        let c = game.canonical();
        if !canonical.contains(&c) {
            canonical.push(c);
        }
    }
    Ok(NewCensus {
        codes: canonical,
        max_n: template.max_n,
        keep_window: template.keep_window.filter(|_| !all_instead),
        store_values: template.store_values || all_instead,
    })
}

/// The census-member kind's submission: a census's members together, within the caller's
/// quotas for all their jobs at once (all or nothing); a refusal says so.
impl JobSubmit for CensusMemberJob {
    fn over_quota(owner: &str, refused: Refusal, new: &CensusMembers) -> QuotaExceeded {
        let (count, _) = Self::asks(new);
        let detail = match refused {
            Refusal::ActiveJobs { limit, active } => format!(
                "key {owner:?} has {active} queued or running jobs; this census's {count} \
                 jobs would take it past its limit of {limit} (GRUNDY_QUOTA_ACTIVE_JOBS or \
                 the key's active_jobs); nothing was started: name fewer codes, or cancel \
                 jobs or wait until they finish"
            ),
            Refusal::HeapsPerDay { limit, used, .. } => format!(
                "key {owner:?} requested {used} heaps today (UTC); this census's {count} jobs \
                 of max_n {} would exceed its limit of {limit} heaps a day \
                 (GRUNDY_QUOTA_HEAPS_PER_DAY or the key's heaps_per_day); nothing was started",
                new.census().max_n
            ),
        };
        refused_by(owner, refused, detail)
    }
}

/// Starts census `new` as `caller`: the census and its jobs in one transaction, within the
/// caller's quotas for all the jobs together (all or nothing). Wakes the job workers.
pub async fn create(
    app: &AppState,
    caller: &Caller,
    store: &Store,
    new: NewCensus,
) -> Result<(Census, Vec<Job>), CensusError> {
    let id = uuid::Uuid::new_v4().to_string();
    let job_ids: Vec<String> = new
        .codes
        .iter()
        .map(|_| uuid::Uuid::new_v4().to_string())
        .collect();
    let members = CensusMembers::new(new, job_ids)?;
    match CensusMemberJob::submit(caller, store, &members, &id).await? {
        // A census joins none: its members are always new.
        Submission::Created(created) | Submission::Joined(created) => {
            app.job_notify.notify_waiters();
            app.job_notify.notify_one();
            Ok(created)
        }
        Submission::OverQuota(q) => Err(CensusError::OverQuota(q)),
    }
}

/// One game of a census as read.
#[derive(Debug, Clone)]
pub struct GameRow {
    pub code: String,
    /// The primary job's id, and the job (`None`: its record was deleted).
    pub job_id: String,
    pub job: Option<Job>,
    /// The statistics of what the primary job computed, as of its last checkpoint.
    pub statistics: Option<Snapshot>,
    /// The primary job's periodicity proof, if any.
    pub periodicity: Option<PeriodicityRecord>,
    /// The row of the unsolved table, if the game is in it.
    pub unsolved: Option<&'static UnsolvedGame>,
    pub verification_job_id: Option<String>,
    pub verification: Option<Job>,
    pub verdict: Verdict,
}

/// The verdict on one game of a census.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Verdict {
    /// `pending`, `failed`, `cancelled`, `deleted`, `unknown` (no periodicity up to n),
    /// `unverified`, `verified` or `disputed`.
    pub kind: &'static str,
    /// The sentence the census reports: it names the theorem and the values of a proof.
    pub text: String,
    /// Always false: nothing is claimed as new (see the module's text); kept for the API.
    pub new_result: bool,
}

/// A census as read: its games in its order.
#[derive(Debug, Clone)]
pub struct CensusView {
    pub census: Census,
    pub games: Vec<GameRow>,
    /// `running` while any job of it is queued or running, else `done` (`cancelled` after a
    /// DELETE).
    pub status: &'static str,
}

fn proof_text(p: &PeriodicityRecord) -> String {
    let n = |x: Option<u64>| x.map_or_else(|| "?".to_owned(), |v| v.to_string());
    format!(
        "preperiod {}, period {}, saltus {}; {} on G(0..{})",
        n(p.preperiod),
        n(p.period),
        n(p.saltus),
        p.theorem.as_deref().unwrap_or("?"),
        n(p.proved_at)
    )
}

fn periodicity_of(job: &Job) -> Option<PeriodicityRecord> {
    job.periodicity
        .as_deref()
        .and_then(PeriodicityRecord::from_json)
        .filter(|p| p.period.is_some())
}

/// The verdict on a game from its primary job and its verification job (see the module's
/// text). `census_cancelled`: no verification will be started any more; `window_refused`:
/// none can run from scratch.
pub fn verdict(
    primary: Option<&Job>,
    verification_id: Option<&str>,
    verification: Option<&Job>,
    in_table: bool,
    census_cancelled: bool,
    window_refused: bool,
) -> Verdict {
    let plain = |kind: &'static str, text: String| Verdict {
        kind,
        text,
        new_result: false,
    };
    let Some(job) = primary else {
        return plain("deleted", "deleted: the job's record was deleted".into());
    };
    let n = job.computed.min(job.max_n);
    match job.status {
        JobStatus::Queued | JobStatus::Running => {
            return plain(
                "pending",
                format!("pending: {} at n = {n}", job.status.as_str()),
            )
        }
        JobStatus::Failed => {
            return plain(
                "failed",
                format!("failed: {}", job.error.as_deref().unwrap_or("(no reason)")),
            )
        }
        JobStatus::Cancelled => return plain("cancelled", format!("cancelled at n = {n}")),
        JobStatus::Done => {}
    }
    let Some(proof) = periodicity_of(job) else {
        return plain("unknown", format!("no periodicity proved in G(0..{n})"));
    };
    let status = proof.status.clone();
    let what = proof_text(&proof);
    let table = if in_table {
        " — a game of Czajka's list of unsolved games"
    } else {
        ""
    };
    let unverified = |why: String| Verdict {
        kind: "unverified",
        text: format!("{status} (unverified, {why}): {what}{table}"),
        new_result: false,
    };
    let Some(vid) = verification_id else {
        return unverified(if window_refused {
            "no run from scratch possible: the game cannot run in window mode".into()
        } else if census_cancelled {
            "the census was cancelled before its verification job started".into()
        } else {
            "verification job starting".into()
        });
    };
    let Some(v) = verification else {
        return unverified(format!("verification job {vid} deleted"));
    };
    match v.status {
        JobStatus::Queued | JobStatus::Running => {
            unverified(format!("verification job {vid} {}", v.status.as_str()))
        }
        JobStatus::Failed | JobStatus::Cancelled => {
            unverified(format!("verification job {vid} {}", v.status.as_str()))
        }
        JobStatus::Done => {
            let same = periodicity_of(v).is_some_and(|w| {
                (w.preperiod, w.period, w.saltus) == (proof.preperiod, proof.period, proof.saltus)
            });
            if same {
                let known = if in_table {
                    format!(
                        ". In T. Czajka's list of unsolved games: a work-in-progress list of the \
                         games whose period his program could not prove from their first 1,000 \
                         values (this proof reads {}); not checked against A. Flammenkamp's \
                         tables, which give the status of every 0.??? and 4.??? game — not \
                         claimed as new",
                        proof
                            .proved_at
                            .map_or_else(|| "?".to_owned(), |n| format!("G(0..{n})"))
                    )
                } else {
                    String::new()
                };
                Verdict {
                    kind: "verified",
                    text: format!(
                        "{status} (verified): {what}; verification job {vid} proved the same \
                         from scratch{known}"
                    ),
                    new_result: false,
                }
            } else {
                let found = periodicity_of(v).map_or_else(
                    || format!("no periodicity in G(0..{})", v.computed.min(v.max_n)),
                    |w| proof_text(&w),
                );
                plain(
                    "disputed",
                    format!(
                        "DISPUTED: job {} proved {status}: {what}; verification job {vid} \
                         found {found}",
                        job.id
                    ),
                )
            }
        }
    }
}

/// The job that verifies `code` for `census`: the same max_n, from scratch — window mode
/// (the census's window, else the server's default) storing nothing, so it reads no value
/// the primary job wrote.
fn verification_job(config: &Config, census: &Census, code: &str) -> NewJob {
    NewJob {
        code: code.to_owned(),
        max_n: census.max_n,
        keep_window: Some(census.keep_window.unwrap_or(config.job_window)),
        store_values: false,
    }
}

/// Reads `census`: each game's jobs, statistics and verdict, starting the verification job of
/// a game whose primary job proved periodicity and has none yet.
pub async fn view(app: &AppState, store: &Store, census: Census) -> Result<CensusView, StoreError> {
    let links = store.census_links(&census.id).await?;
    let link = |code: &str, role: CensusRole| {
        links
            .iter()
            .find(|l| l.code == code && l.role == role)
            .map(|l| l.job_id.clone())
    };
    let mut games = Vec::with_capacity(census.codes.len());
    let mut active = false;
    for code in &census.codes {
        let Some(job_id) = link(code, CensusRole::Primary) else {
            continue;
        };
        let job = store.get_job(&job_id).await?;
        let statistics = match store.job_statistics(&job_id).await? {
            Some(bytes) => Statistics::from_bytes(&bytes)
                .map_err(|e| StoreError::Corrupt(format!("job {job_id}: statistics: {e}")))?
                .current(),
            None => None,
        };
        let game = Game::parse(code).ok();
        let unsolved = game.as_ref().and_then(unsolved_game);
        let window_refused = game
            .as_ref()
            .is_none_or(|g| Engine::window_refusal(g).is_some());
        let periodicity = job.as_ref().and_then(periodicity_of);
        let mut verification_job_id = link(code, CensusRole::Verification);
        let proved_done = job
            .as_ref()
            .is_some_and(|j| j.status == JobStatus::Done && periodicity.is_some());
        if proved_done
            && verification_job_id.is_none()
            && census.cancelled_at.is_none()
            && !window_refused
        {
            let new = verification_job(&app.config, &census, code);
            let id = uuid::Uuid::new_v4().to_string();
            verification_job_id = store.start_verification(&census.id, &new, &id).await?;
            if verification_job_id.as_deref() == Some(id.as_str()) {
                submitted(census.owner.as_deref().unwrap_or(NO_OWNER), (1, new.max_n));
                tracing::info!(census = %census.id, code = %code, job = %id,
                    "primary job proved periodicity; verification job started");
                app.job_notify.notify_one();
            }
        }
        let verification = match &verification_job_id {
            Some(v) => store.get_job(v).await?,
            None => None,
        };
        for j in job.iter().chain(verification.iter()) {
            active |= !j.status.is_final();
        }
        let verdict = verdict(
            job.as_ref(),
            verification_job_id.as_deref(),
            verification.as_ref(),
            unsolved.is_some(),
            census.cancelled_at.is_some(),
            window_refused,
        );
        games.push(GameRow {
            code: code.clone(),
            job_id,
            job,
            statistics,
            periodicity,
            unsolved,
            verification_job_id,
            verification,
            verdict,
        });
    }
    let status = if active {
        "running"
    } else if census.cancelled_at.is_some() {
        "cancelled"
    } else {
        "done"
    };
    Ok(CensusView {
        census,
        games,
        status,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn template() -> NewJob {
        NewJob {
            code: String::new(),
            max_n: 4096,
            keep_window: Some(1 << 16),
            store_values: false,
        }
    }

    fn job(status: JobStatus, periodicity: Option<&str>) -> Job {
        Job {
            status,
            computed: 175,
            periodicity: periodicity.map(str::to_owned),
            attempts: 1,
            keep_window: Some(1 << 16),
            store_values: false,
            ..Job::queued("p", crate::store::JobKind::Sequence, "0.07", 1000, 0)
        }
    }

    const P: &str = r#"{"status":"periodic","preperiod":53,"period":34,"saltus":0,"proved_at":175,"theorem":"Austin Thm 4.1"}"#;
    const Q: &str = r#"{"status":"periodic","preperiod":54,"period":34,"saltus":0,"proved_at":175,"theorem":"Austin Thm 4.1"}"#;

    #[test]
    fn the_default_plan_is_the_unsolved_table_and_codes_are_checked_by_place() {
        let all = plan(None, &template()).unwrap();
        assert_eq!(all.codes.len(), 83);
        assert!(all.codes.contains(&"grundy".to_owned()));
        let codes: Vec<String> = [".6", "0.6", "0.60", "0.07"].map(String::from).to_vec();
        assert_eq!(
            plan(Some(&codes), &template()).unwrap().codes,
            vec!["0.6".to_owned(), "0.07".to_owned()]
        );
        let bad: Vec<String> = ["0.6", "0.07", "0.1", "nope"].map(String::from).to_vec();
        match plan(Some(&bad), &template()) {
            Err(CensusError::Invalid { field, .. }) => assert_eq!(field, "codes[3]"),
            other => panic!("{other:?}"),
        }
        match plan(Some(&[]), &template()) {
            Err(CensusError::Invalid { field, detail }) => {
                assert_eq!(field, "codes");
                assert!(detail.contains("empty"));
            }
            other => panic!("{other:?}"),
        }
        let many: Vec<String> = vec!["0.6".into(); MAX_CODES + 1];
        assert!(matches!(
            plan(Some(&many), &template()),
            Err(CensusError::Invalid { .. })
        ));
        let three: Vec<String> = vec!["0.6".into(), "0.8F".into()];
        let longer = NewJob {
            max_n: 1 << 20,
            ..template()
        };
        match plan(Some(&three), &longer) {
            Err(CensusError::Code {
                index,
                refusal: JobRefusal::CannotWindow { why, .. },
            }) => {
                assert_eq!(index, 1);
                assert!(why.contains("window mode"), "{why}");
                assert!(why.contains("digit d1 = 8"), "{why}");
            }
            other => panic!("{other:?}"),
        }
        // A window holding every value (2^16 ≥ 4096) computes it: the census keeps all.
        let census = plan(Some(&three), &template()).unwrap();
        assert_eq!(census.keep_window, None);
        assert!(census.store_values);
    }

    #[test]
    fn verdicts() {
        let v = |p: &Job, vid: Option<&str>, w: Option<&Job>, table: bool| {
            verdict(Some(p), vid, w, table, false, false)
        };
        let done = job(JobStatus::Done, Some(P));
        assert_eq!(
            v(&job(JobStatus::Running, None), None, None, false).kind,
            "pending"
        );
        assert_eq!(
            v(&job(JobStatus::Done, None), None, None, true).kind,
            "unknown"
        );
        let u = v(&done, None, None, true);
        assert_eq!(u.kind, "unverified");
        assert!(u.text.starts_with("periodic (unverified"), "{}", u.text);
        assert!(u.text.contains("Austin Thm 4.1") && u.text.contains("period 34"));
        let running = v(
            &done,
            Some("v1"),
            Some(&job(JobStatus::Running, None)),
            false,
        );
        assert!(running
            .text
            .starts_with("periodic (unverified, verification job v1 running)"));
        let same = v(
            &done,
            Some("v1"),
            Some(&job(JobStatus::Done, Some(P))),
            false,
        );
        assert_eq!(same.kind, "verified");
        assert!(
            same.text.starts_with("periodic (verified)"),
            "{}",
            same.text
        );
        assert!(!same.new_result);
        let new = v(
            &done,
            Some("v1"),
            Some(&job(JobStatus::Done, Some(P))),
            true,
        );
        // In Czajka's list: what is known, nothing claimed as new.
        assert!(!new.new_result);
        assert!(!new.text.contains("NEW"), "{}", new.text);
        assert!(
            new.text.starts_with("periodic (verified)")
                && new
                    .text
                    .contains("could not prove from their first 1,000 values")
                && new.text.contains("this proof reads G(0..175)")
                && new
                    .text
                    .contains("not checked against A. Flammenkamp's tables"),
            "{}",
            new.text
        );
        let other = v(
            &done,
            Some("v1"),
            Some(&job(JobStatus::Done, Some(Q))),
            false,
        );
        assert_eq!(other.kind, "disputed");
        assert!(other.text.starts_with("DISPUTED") && other.text.contains("preperiod 54"));
        let none = v(&done, Some("v1"), Some(&job(JobStatus::Done, None)), false);
        assert_eq!(none.kind, "disputed");
        assert_eq!(
            verdict(None, None, None, false, false, false).kind,
            "deleted"
        );
    }
}
