//! Censuses in the store on both backends: a census and its jobs are created in one
//! transaction (a fault mid-way leaves nothing of it), the quotas count all its jobs at once
//! (all or nothing), a verification job is started once however many start it, and cancelling
//! a census cancels its jobs.
//!
//! SQLite runs in plain `cargo test`; the PostgreSQL variants are `#[ignore]`d (see
//! tests/store.rs) and run with `--ignored` against `GRUNDY_TEST_POSTGRES_URL`.

mod common;

use grundy::store::{
    Admission, Census, CensusMemberJob, CensusMembers, CensusRole, Job, JobQuota, JobStatus,
    NewCensus, NewJob, Refusal, Store, StoreError,
};
use sqlx::Row;

fn census(codes: &[&str], max_n: u64) -> NewCensus {
    NewCensus {
        codes: codes.iter().map(|c| (*c).to_owned()).collect(),
        max_n,
        keep_window: Some(65_536),
        store_values: false,
    }
}

fn ids(prefix: &str, n: usize) -> Vec<String> {
    (0..n).map(|i| format!("{prefix}-{i}")).collect()
}

/// Submits census `new` under `id` with the jobs `job_ids` (for `owner` within `quota`).
async fn create(
    store: &Store,
    new: &NewCensus,
    id: &str,
    job_ids: &[String],
    owner: Option<(&str, JobQuota)>,
) -> Result<Admission<(Census, Vec<Job>)>, StoreError> {
    let members = CensusMembers::new(new.clone(), job_ids.to_vec())?;
    store
        .create_rows::<CensusMemberJob>(&members, id, owner)
        .await
}

async fn count(store: &Store, sql: &str) -> i64 {
    sqlx::query(sql)
        .fetch_one(&store.raw_pool_for_tests())
        .await
        .unwrap()
        .get::<i64, _>(0)
}

async fn exercise_census(store: &Store) {
    // Created with its jobs, owned, in the order of its codes.
    let new = census(&["0.6", "0.07", "grundy"], 4096);
    let quota = JobQuota {
        active_jobs: 5,
        heaps_per_day: 20_000,
    };
    let created = create(store, &new, "c1", &ids("c1", 3), Some(("alice", quota)))
        .await
        .unwrap();
    let Admission::Created((c, jobs)) = created else {
        panic!("{created:?}")
    };
    assert_eq!(c.codes, new.codes);
    assert_eq!(c.owner.as_deref(), Some("alice"));
    assert_eq!(
        (c.max_n, c.keep_window, c.store_values),
        (4096, Some(65_536), false)
    );
    assert_eq!(jobs.len(), 3);
    for (j, code) in jobs.iter().zip(&new.codes) {
        assert_eq!(&j.code, code);
        assert_eq!(j.status, JobStatus::Queued);
        assert_eq!(j.owner.as_deref(), Some("alice"));
        assert_eq!(j.keep_window, Some(65_536));
        assert!(!j.store_values);
    }
    assert_eq!(store.get_census("c1").await.unwrap(), Some(c.clone()));
    let links = store.census_links("c1").await.unwrap();
    assert_eq!(links.len(), 3);
    assert!(links.iter().all(|l| l.role == CensusRole::Primary));
    // Active jobs: 3 of 5 used; a census of 3 more does not fit, and writes nothing at all
    // (not even the heaps of the day).
    let usage = "SELECT CAST(COALESCE(SUM(heaps), 0) AS BIGINT) FROM job_usage";
    let before = (
        count(store, "SELECT COUNT(*) FROM jobs").await,
        count(store, "SELECT COUNT(*) FROM census").await,
        count(store, usage).await,
    );
    assert_eq!(before, (3, 1, 3 * 4096));
    let r = create(
        store,
        &census(&["0.6", "0.07", "0.16"], 10),
        "c2",
        &ids("c2", 3),
        Some(("alice", quota)),
    )
    .await
    .unwrap();
    assert_eq!(
        r,
        Admission::Refused(Refusal::ActiveJobs {
            limit: 5,
            active: 3
        })
    );
    // Two more fit exactly.
    let r = create(
        store,
        &census(&["0.6", "0.16"], 10),
        "c3",
        &ids("c3", 2),
        Some(("alice", quota)),
    )
    .await
    .unwrap();
    assert!(matches!(r, Admission::Created(..)), "{r:?}");
    // Heaps of the day: 3 × 4096 + 2 × 10 used; 2 × 4000 more would pass 20,000.
    let roomy = JobQuota {
        active_jobs: 0,
        heaps_per_day: 20_000,
    };
    let r = create(
        store,
        &census(&["0.6", "0.16"], 4000),
        "c4",
        &ids("c4", 2),
        Some(("alice", roomy)),
    )
    .await
    .unwrap();
    assert!(
        matches!(r, Admission::Refused(Refusal::HeapsPerDay { limit: 20_000, used, .. }) if used == 3 * 4096 + 20),
        "{r:?}"
    );
    assert_eq!(count(store, usage).await, 3 * 4096 + 20);
    assert_eq!(count(store, "SELECT COUNT(*) FROM jobs").await, 5);
    // A fault mid-way (the third job's id is taken) leaves no half census behind.
    let mut clash = ids("c5", 3);
    clash[2] = "c1-0".into();
    assert!(create(
        store,
        &census(&["0.6", "0.16", "0.07"], 10),
        "c5",
        &clash,
        None
    )
    .await
    .is_err());
    assert_eq!(store.get_census("c5").await.unwrap(), None);
    assert!(store.census_links("c5").await.unwrap().is_empty());
    assert_eq!(store.get_job("c5-0").await.unwrap(), None);
    assert_eq!(count(store, "SELECT COUNT(*) FROM jobs").await, 5);
    // Listing: newest first, by owner.
    let listed = store.list_censuses(Some("alice"), 10).await.unwrap();
    assert_eq!(
        listed.iter().map(|c| c.id.as_str()).collect::<Vec<_>>(),
        ["c3", "c1"]
    );
    assert!(store
        .list_censuses(Some("bob"), 10)
        .await
        .unwrap()
        .is_empty());
    // One verification job per census and code, whoever starts it.
    let v = NewJob {
        code: "0.07".into(),
        max_n: 4096,
        keep_window: Some(65_536),
        store_values: false,
    };
    let starts = futures_util::future::join_all((0..6).map(|i| {
        let (store, v) = (store.clone(), v.clone());
        async move {
            store
                .start_verification("c1", &v, &format!("v-{i}"))
                .await
                .unwrap()
        }
    }))
    .await;
    let first = starts[0].clone().unwrap();
    assert!(
        starts.iter().all(|s| s.as_deref() == Some(first.as_str())),
        "{starts:?}"
    );
    let vjob = store.get_job(&first).await.unwrap().unwrap();
    assert_eq!(vjob.owner.as_deref(), Some("alice"));
    assert_eq!(
        count(store, "SELECT COUNT(*) FROM jobs WHERE id LIKE 'v-%'").await,
        1
    );
    let links = store.census_links("c1").await.unwrap();
    assert_eq!(links.len(), 4);
    // The list's counts (issue 46): games done (primary jobs only) and jobs still active
    // (verification ones too); a deleted job counts as neither; an unknown id is left out.
    sqlx::query("UPDATE jobs SET status = 'done' WHERE id = 'c1-1'")
        .execute(&store.raw_pool_for_tests())
        .await
        .unwrap();
    let counts = store
        .census_counts(&["c1".to_owned(), "c3".to_owned(), "nope".to_owned()])
        .await
        .unwrap();
    let of = |id: &str| counts.get(id).map(|c| (c.done, c.active));
    assert_eq!(of("c1"), Some((1, 3)), "{counts:?}");
    assert_eq!(of("c3"), Some((0, 2)), "{counts:?}");
    assert_eq!(of("nope"), None);
    assert!(store.census_counts(&[]).await.unwrap().is_empty());
    // Cancelling: queued jobs at once, no verification afterwards.
    let cancelled = store.cancel_census("c1").await.unwrap().unwrap();
    assert!(cancelled.cancelled_at.is_some());
    for l in &links {
        let j = store.get_job(&l.job_id).await.unwrap().unwrap();
        let want = if l.job_id == "c1-1" {
            JobStatus::Done
        } else {
            JobStatus::Cancelled
        };
        assert_eq!(j.status, want, "{l:?}");
    }
    let counts = store.census_counts(&["c1".to_owned()]).await.unwrap();
    assert_eq!((counts["c1"].done, counts["c1"].active), (1, 0));
    assert_eq!(
        store
            .start_verification(
                "c1",
                &NewJob {
                    code: "0.6".into(),
                    ..v.clone()
                },
                "v-late"
            )
            .await
            .unwrap(),
        None
    );
    assert_eq!(store.get_job("v-late").await.unwrap(), None);
    // The jobs of another census are untouched.
    let other = store.census_links("c3").await.unwrap();
    for l in &other {
        let j = store.get_job(&l.job_id).await.unwrap().unwrap();
        assert_eq!(j.status, JobStatus::Queued);
    }
    // A census job whose record is gone counts as neither done nor active.
    sqlx::query("DELETE FROM jobs WHERE id = 'c3-0'")
        .execute(&store.raw_pool_for_tests())
        .await
        .unwrap();
    let counts = store.census_counts(&["c3".to_owned()]).await.unwrap();
    assert_eq!((counts["c3"].done, counts["c3"].active), (0, 1));
    // Deleting a census removes it and its links, not its jobs.
    assert!(store.delete_census("c1").await.unwrap());
    assert!(!store.delete_census("c1").await.unwrap());
    assert_eq!(store.get_census("c1").await.unwrap(), None);
    assert!(store.census_links("c1").await.unwrap().is_empty());
    assert!(store.get_job("c1-0").await.unwrap().is_some());
}

#[tokio::test]
async fn sqlite_census() {
    let store = Store::connect(&common::temp_sqlite_url()).await.unwrap();
    exercise_census(&store).await;
}

#[tokio::test]
#[ignore = "needs PostgreSQL; run by .ci/run with --ignored"]
async fn postgres_census() {
    let store = Store::connect(&common::fresh_postgres_url().await)
        .await
        .unwrap();
    exercise_census(&store).await;
}
