//! What a finished run prints: the verdict, the statistics table and the histogram, the rare
//! heaps, the end-of-run summary — from the job and statistics documents the API serves for
//! it (`GET /v1/octal/jobs/{id}` and `…/statistics`), built from the store with the API's own
//! types, no request made.

use serde_json::Value;

use super::cli::{plural, Fail};
use super::documents::{JobResponse, JobStatistics};
use crate::core::octal::Statistics;
use crate::store::{Job, Store};

/// A run's job document and statistics document, as `GET /v1/octal/jobs/{id}` and
/// `…/statistics` answer them.
pub(super) async fn documents(store: &Store, job: Job) -> Result<(Value, Value), Fail> {
    let stats = match store.job_statistics(&job.id).await? {
        Some(bytes) => Some(
            Statistics::from_bytes(&bytes)
                .map_err(|e| Fail::Other(format!("job {}: stored statistics: {e}", job.id)))?,
        ),
        None => None,
    };
    let stall = store.stall(&job.id);
    let json = |v: Result<Value, serde_json::Error>| v.map_err(|e| Fail::Other(e.to_string()));
    let statistics = json(serde_json::to_value(JobStatistics::new(
        job.clone(),
        stats.as_ref(),
    )))?;
    let job = json(serde_json::to_value(JobResponse::with_stall(job, stall)))?;
    Ok((job, statistics))
}

/// The verdict, the statistics table and the histogram of heaps 0 … N−1, as text.
pub(super) fn report(canonical: &str, n: u64, job: &Value, statistics: &Value) -> String {
    use std::fmt::Write as _;
    let mut s = String::new();
    let p = &job["periodicity"];
    let num = |v: &Value| v.as_u64().map_or("–".to_owned(), |x| x.to_string());
    let _ = match p["status"].as_str() {
        Some(status @ ("periodic" | "arithmetic-periodic")) => writeln!(
            s,
            "{canonical}: {status}, preperiod {}, period {}, saltus {}: proved from heaps 0 … {} by {}",
            num(&p["preperiod"]),
            num(&p["period"]),
            num(&p["saltus"]),
            p["proved_at"]
                .as_u64()
                .map_or("–".to_owned(), |n| n.saturating_sub(1).to_string()),
            p["theorem"].as_str().unwrap_or("a periodicity theorem"),
        ),
        _ => writeln!(s, "{canonical}: no period up to {n}"),
    };
    let _ = writeln!(
        s,
        "\n{:>16} {:>9} {:>14} {:>9} {:>12} {:>14}",
        "n", "max value", "at heap", "rare mask", "rare values", "last rare heap"
    );
    let rows = statistics["powers_of_two"]
        .as_array()
        .cloned()
        .unwrap_or_default();
    let current = &statistics["current"];
    let last_n = rows.last().map(|r| r["n"].clone());
    for row in rows
        .iter()
        .chain((!current.is_null() && last_n.as_ref() != Some(&current["n"])).then_some(current))
    {
        let _ = writeln!(
            s,
            "{:>16} {:>9} {:>14} {:>9} {:>12} {:>14}",
            num(&row["n"]),
            num(&row["max_value"]),
            num(&row["max_value_first_heap"]),
            row["rare_mask"].as_str().unwrap_or("–"),
            num(&row["rare_count"]),
            num(&row["last_rare_heap"]),
        );
    }
    if let Some(h) = current["histogram"].as_array() {
        let _ = writeln!(
            s,
            "\nhistogram of heaps 0 … {} (value: heaps):",
            current["n"]
                .as_u64()
                .map_or("–".to_owned(), |n| n.saturating_sub(1).to_string())
        );
        let cells: Vec<String> = h
            .iter()
            .enumerate()
            .filter(|(_, c)| c.as_u64() != Some(0))
            .map(|(v, c)| format!("{v}: {}", num(c)))
            .collect();
        for line in cells.chunks(8) {
            let _ = writeln!(s, "  {}", line.join(", "));
        }
    }
    s
}

/// The run's CPU time and threads as the job document gives them, for the end-of-run line.
pub(super) fn summary(job: &Value) -> String {
    let cpu = job["cpu_seconds"]
        .as_f64()
        .map_or("–".to_owned(), |s| format!("{s:.1} s"));
    let threads = job["threads"]
        .as_u64()
        .map_or("–".to_owned(), |t| plural(t, "thread"));
    format!("CPU {cpu} (every run of the job), {threads}")
}

/// `--rare` in words: the mask, the count, then `heap value` a line.
pub(super) fn rare_table(n: u64, mask: u32, rare: &[(u64, u32)]) -> String {
    use std::fmt::Write as _;
    let mut s = format!(
        "\nrare heaps of heaps 0 … {} under mask {mask:x} ({}):\n{:>16} {:>9}\n",
        n - 1,
        plural(rare.len() as u64, "heap"),
        "heap",
        "value"
    );
    for (heap, value) in rare {
        let _ = writeln!(s, "{heap:>16} {value:>9}");
    }
    s
}
