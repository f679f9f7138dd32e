//! The command line, as a user runs the built binary: help and version everywhere (exit 0,
//! nothing else done), and `grundy octal CODE --to N`: a run to completion checked against an
//! independent computation, a run stopped by SIGINT (and one killed with -9) resumed to the
//! same result, a finished run answered at once, and bad input refused with exit 2.

mod common;

use std::io::{BufRead, BufReader};
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Output, Stdio};
use std::time::{Duration, Instant};

use serde_json::Value;

const BIN: &str = env!("CARGO_BIN_EXE_grundy");

/// A fresh folder for one test's stores.
fn temp_dir() -> PathBuf {
    let dir = std::env::temp_dir().join(format!("grundy-cli-{}", uuid::Uuid::new_v4()));
    std::fs::create_dir_all(&dir).unwrap();
    dir
}

/// The binary with `args` in `dir`, with the server's settings pointing nowhere useful (so a
/// command that served or checked health would show).
fn grundy(dir: &Path, args: &[&str]) -> Command {
    let mut cmd = Command::new(BIN);
    cmd.args(args)
        .current_dir(dir)
        .env("GRUNDY_ADDR", "127.0.0.1:9")
        .env("GRUNDY_DATABASE_URL", "none")
        .stdin(Stdio::null());
    cmd
}

/// How long a command may run before the test calls it a hang (a help that served would run
/// forever). Generous on purpose: a debug binary on a busy one-core machine is slow, and how
/// slow is not what these tests check.
const HANG: Duration = Duration::from_secs(600);

/// Runs to the end, failing the test if it runs past [`HANG`].
fn output_within(mut cmd: Command) -> Output {
    let limit = HANG;
    let mut child = cmd
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let start = Instant::now();
    while child.try_wait().unwrap().is_none() {
        if start.elapsed() > limit {
            child.kill().unwrap();
            let out = child.wait_with_output().unwrap();
            panic!(
                "{cmd:?} still running after {limit:?}: {}",
                String::from_utf8_lossy(&out.stderr)
            );
        }
        std::thread::sleep(Duration::from_millis(20));
    }
    child.wait_with_output().unwrap()
}

fn text(b: &[u8]) -> String {
    String::from_utf8_lossy(b).into_owned()
}

#[test]
fn every_help_form_prints_usage_and_exits_0_doing_nothing_else() {
    let dir = temp_dir();
    for args in [
        &["--help"][..],
        &["-h"],
        &["help"],
        &["serve", "--help"],
        &["serve", "-h"],
        &["help", "serve"],
        &["openapi", "--help"],
        &["healthcheck", "--help"],
        &["keys", "--help"],
        &["keys", "new", "--help"],
        &["octal", "--help"],
    ] {
        let out = output_within(grundy(&dir, args));
        let (stdout, stderr) = (text(&out.stdout), text(&out.stderr));
        assert_eq!(out.status.code(), Some(0), "{args:?}: {stdout}{stderr}");
        assert!(stdout.contains("Usage: grundy"), "{args:?}: {stdout}");
        // `openapi --help` does not print the document; nothing logs a start-up.
        assert!(!stdout.contains("\"openapi\""), "{args:?}: {stdout}");
        assert!(stderr.is_empty(), "{args:?}: {stderr}");
    }
    // `octal --help` says how to write N and how to resume.
    let out = output_within(grundy(&dir, &["octal", "--help"]));
    let help = text(&out.stdout);
    for needle in [
        "--to <N>",
        "2^k",
        "--threads",
        "--window",
        "--store",
        "--values",
        "--json",
        "resumes",
    ] {
        assert!(help.contains(needle), "{needle}: {help}");
    }
    // Nothing was created by any of them (no store, no key).
    assert_eq!(std::fs::read_dir(&dir).unwrap().count(), 0);
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn version_names_the_crate_version_and_the_commit() {
    let dir = temp_dir();
    for flag in ["--version", "-V"] {
        let out = output_within(grundy(&dir, &[flag]));
        assert_eq!(out.status.code(), Some(0));
        let line = text(&out.stdout);
        assert!(
            line.starts_with(&format!("grundy {} (commit ", env!("CARGO_PKG_VERSION"))),
            "{line}"
        );
        // The commit build.rs embeds: 40 hex digits (maybe `-dirty`), or `unknown`.
        let commit = line
            .split("(commit ")
            .nth(1)
            .unwrap()
            .trim()
            .trim_end_matches(')');
        let hex = commit.trim_end_matches("-dirty");
        assert!(
            commit == "unknown" || (hex.len() == 40 && hex.bytes().all(|b| b.is_ascii_hexdigit())),
            "{line}"
        );
    }
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn an_unknown_command_or_option_exits_2() {
    let dir = temp_dir();
    for args in [
        &["bogus"][..],
        &["--bogus"],
        &["serve", "--port", "1"],
        &["octal"],
    ] {
        let out = output_within(grundy(&dir, args));
        assert_eq!(out.status.code(), Some(2), "{args:?}");
        assert!(out.stdout.is_empty(), "{args:?}");
        assert!(text(&out.stderr).contains("error:"), "{args:?}");
    }
    std::fs::remove_dir_all(&dir).unwrap();
}

/// G(0..n) of 0.167 by the definition: the mex of every move's value, nothing else.
/// 0.167: take 1 leaving nothing; take 2 leaving one heap or two; take 3 leaving none, one
/// or two.
fn naive_0167(n: usize) -> Vec<u32> {
    let mut g = vec![0u32; n];
    let mut seen = vec![0usize; 1024];
    for h in 1..n {
        let mut mark = |v: u32| seen[v as usize] = h;
        if h == 1 || h == 3 {
            mark(0);
        }
        for take in [2, 3] {
            if h > take {
                let rest = h - take;
                mark(g[rest]);
                for a in 1..=rest / 2 {
                    mark(g[a] ^ g[rest - a]);
                }
            }
        }
        g[h] = (0u32..).find(|&v| seen[v as usize] != h).unwrap();
    }
    g
}

fn histogram(values: &[u32]) -> Vec<u64> {
    let mut h = vec![0u64; *values.iter().max().unwrap() as usize + 1];
    for &v in values {
        h[v as usize] += 1;
    }
    h
}

fn json_stdout(out: &Output) -> Value {
    serde_json::from_slice(&out.stdout)
        .unwrap_or_else(|e| panic!("{e}: {}{}", text(&out.stdout), text(&out.stderr)))
}

#[test]
fn a_run_to_completion_gives_the_histograms_of_the_definition() {
    let dir = temp_dir();
    let out = output_within(grundy(
        &dir,
        &[
            "octal", "0.167", "--to", "2^16", "--json", "--values", "v.csv",
        ],
    ));
    assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));
    let said = text(&out.stderr);
    assert!(
        said.contains("values of heaps 0 … 65535 written to v.csv"),
        "{said}"
    );
    // The summary: heaps, wall and CPU time, threads, the store and its size.
    let summary = said.lines().last().unwrap();
    for needle in [
        "heaps 0 … 65535: ",
        " s wall, CPU ",
        "thread",
        "octal-0.167.db (",
    ] {
        assert!(summary.contains(needle), "{needle}: {summary}");
    }
    // The store is whole: no -wal or -shm beside it.
    assert_eq!(files_in(&dir), ["octal-0.167.db", "v.csv"]);
    let doc = json_stdout(&out);
    let (job, stats) = (&doc["job"], &doc["statistics"]);
    assert_eq!(job["status"], "done");
    assert_eq!(job["code"], "0.167");
    assert_eq!(job["progress"]["computed"], 65536);
    assert_eq!(job["periodicity"]["status"], "unknown");
    assert!(job["threads"].as_u64().unwrap() >= 1, "{job}");
    assert!(job["cpu_seconds"].as_f64().is_some(), "{job}");
    assert_eq!(stats["id"], job["id"]);
    assert_eq!(stats["computed"], 65536);

    let values = std::fs::read_to_string(dir.join("v.csv")).unwrap();
    let mut lines = values.lines();
    assert_eq!(lines.next(), Some("heap,value"));
    let from_file: Vec<u32> = lines
        .map(|l| l.split_once(',').unwrap().1.parse().unwrap())
        .collect();
    assert_eq!(from_file.len(), 65536);

    let g = naive_0167(1 << 15);
    assert_eq!(
        &from_file[..1 << 15],
        &g[..],
        "the values differ from the definition"
    );
    let rows = stats["powers_of_two"].as_array().unwrap();
    assert_eq!(rows.len(), 17, "2^0 … 2^16");
    for row in rows {
        let n = row["n"].as_u64().unwrap() as usize;
        let expect = if n <= g.len() {
            histogram(&g[..n])
        } else {
            histogram(&from_file[..n])
        };
        assert_eq!(common::u64s(&row["histogram"]), expect, "n = {n}");
    }
    assert_eq!(
        common::u64s(&stats["current"]["histogram"]),
        histogram(&from_file)
    );
    // Figures of the tables (.167 at 2^16): largest value 52, first at heap 24158.
    assert_eq!(stats["current"]["max_value"], 52);
    assert_eq!(stats["current"]["max_value_first_heap"], 24158);

    // Asked again: answered at once from the store, the same result, in words this time.
    let again = output_within(grundy(&dir, &["octal", ".167", "--to", "65536"]));
    assert_eq!(again.status.code(), Some(0), "{}", text(&again.stderr));
    assert!(
        text(&again.stderr).contains("computed earlier"),
        "{}",
        text(&again.stderr)
    );
    let words = text(&again.stdout);
    assert!(words.contains("0.167: no period up to 65536"), "{words}");
    assert!(
        words.contains("rare values") && words.contains("65536"),
        "{words}"
    );
    assert!(
        dir.join("octal-0.167.db").exists(),
        "the default store is named after the code"
    );
    // A range of values instead of the table: heaps 1000 … 1009, as CSV.
    let range = output_within(grundy(
        &dir,
        &[
            "octal", "0.167", "--to", "2^16", "--from", "1000", "--count", "10", "-q",
        ],
    ));
    let want: String = (1000..1010).map(|h| format!("{h},{}\n", g[h])).collect();
    assert_eq!(text(&range.stdout), format!("heap,value\n{want}"));
    // Beyond N: refused before any work.
    let beyond = output_within(grundy(
        &dir,
        &[
            "octal", "0.167", "--to", "2^16", "--from", "65530", "--count", "10",
        ],
    ));
    assert_eq!(beyond.status.code(), Some(2));
    assert!(text(&beyond.stderr).contains("--count: heaps 65530 … 65539 lie beyond --to 65536"));
    std::fs::remove_dir_all(&dir).unwrap();
}

/// Starts a run whose stderr is read line by line; returns once its progress lines show a
/// checkpoint of this run (a heap past the first one shown).
fn start_until_progress(dir: &Path, args: &[&str]) -> (Child, Vec<String>) {
    let mut child = grundy(dir, args)
        .env("GRUNDY_JOB_CHECKPOINT_MS", "100")
        // 8192 heaps a checkpoint at most: `.167` to 2^20 lasts 13 s at least on any machine,
        // enough for three runs each stopped after its second progress line (a line a second).
        .env("GRUNDY_JOB_PACE", "8192")
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let mut lines = Vec::new();
    let mut err = BufReader::new(child.stderr.take().unwrap());
    let mut first = None;
    loop {
        let mut line = String::new();
        assert!(
            err.read_line(&mut line).unwrap() > 0,
            "ended first: {lines:?}"
        );
        // "K of N heaps (…)": heaps 0 … K−1 computed.
        let heap: Option<u64> = line
            .split_once(" of ")
            .filter(|(_, rest)| rest.contains(" heaps ("))
            .and_then(|(k, _)| k.parse().ok());
        lines.push(line);
        match (heap, first) {
            (Some(h), None) => first = Some(h),
            (Some(h), Some(f)) if h > f => break,
            _ => {}
        }
    }
    // Keep draining stderr so the process never blocks on it.
    // (a detached thread: it ends with the process's stderr).
    std::thread::spawn(move || {
        let mut s = String::new();
        let _ = std::io::Read::read_to_string(&mut err, &mut s);
    });
    (child, lines)
}

/// The heap a run said it resumes at ("resuming at heap K of N …").
fn resumed_at(said: &str) -> u64 {
    said.split("resuming at heap ")
        .nth(1)
        .and_then(|r| r.split(' ').next())
        .and_then(|h| h.parse().ok())
        .unwrap_or_else(|| panic!("no resuming line: {said}"))
}

/// The names in `dir`, sorted.
fn files_in(dir: &Path) -> Vec<String> {
    let mut names: Vec<String> = std::fs::read_dir(dir)
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .collect();
    names.sort();
    names
}

fn signal(child: &Child, sig: &str) {
    let ok = Command::new("kill")
        .args([sig, &child.id().to_string()])
        .status()
        .unwrap();
    assert!(ok.success());
}

#[test]
fn a_stopped_run_resumes_and_ends_as_an_uninterrupted_one() {
    let dir = temp_dir();
    let args = ["octal", "0.167", "--to", "2^20", "--threads", "1", "--json"];
    // Stopped by SIGINT after its first checkpoints: it saves, says where, exits 130.
    let (child, _) = start_until_progress(&dir, &args);
    signal(&child, "-INT");
    let out = child.wait_with_output().unwrap();
    assert_eq!(out.status.code(), Some(130));
    assert!(out.stdout.is_empty());
    // The run is in its file alone: no -wal or -shm beside it, and the file copied on its own
    // to another folder resumes there.
    assert_eq!(files_in(&dir), ["octal-0.167.db"]);
    let copy = temp_dir();
    std::fs::copy(dir.join("octal-0.167.db"), copy.join("octal-0.167.db")).unwrap();
    let (child, lines) = start_until_progress(&copy, &args);
    signal(&child, "-INT");
    assert_eq!(child.wait_with_output().unwrap().status.code(), Some(130));
    assert!(resumed_at(&lines.concat()) > 0, "{lines:?}");
    std::fs::remove_dir_all(&copy).unwrap();

    // Again: it says it resumes; killed with -9 this time.
    let (child, lines) = start_until_progress(&dir, &args);
    let said = lines.concat();
    assert!(resumed_at(&said) > 0, "{said}");
    signal(&child, "-KILL");
    let _ = child.wait_with_output().unwrap();

    // And again, to the end: it takes the killed run's job back at once.
    let mut again = grundy(&dir, &args);
    again.env("GRUNDY_JOB_CHECKPOINT_MS", "100");
    let out = output_within(again);
    assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));
    assert!(
        text(&out.stderr).contains("resuming at heap "),
        "{}",
        text(&out.stderr)
    );
    let resumed = json_stdout(&out);
    assert!(
        resumed["job"]["attempts"].as_i64().unwrap() >= 3,
        "{resumed}"
    );

    // The same run uninterrupted, in another store.
    let other = temp_dir();
    let out = output_within(grundy(&other, &args));
    assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));
    let whole = json_stdout(&out);
    for key in ["computed", "current", "powers_of_two"] {
        assert_eq!(
            resumed["statistics"][key], whole["statistics"][key],
            "{key}"
        );
    }
    assert_eq!(resumed["job"]["periodicity"], whole["job"]["periodicity"]);
    std::fs::remove_dir_all(&dir).unwrap();
    std::fs::remove_dir_all(&other).unwrap();
}

#[test]
fn bad_input_is_one_line_naming_it_and_exit_2() {
    let dir = temp_dir();
    let blocked = dir.join("file");
    std::fs::write(&blocked, "not a folder").unwrap();
    let store = format!("{}/x.db", blocked.display());
    let text_db = dir.join("text.db");
    std::fs::write(&text_db, "a text file, not a store").unwrap();
    let text_db = text_db.display().to_string();
    let missing = dir.join("no/such/folder/x.db").display().to_string();
    let values = dir.join("nodir/g.csv").display().to_string();
    for (args, needle) in [
        (&["octal", "0.1x7", "--to", "10"][..], "0.1x7"),
        (&["octal", "0.167", "--to", "ten"], "--to"),
        (&["octal", "0.167", "--to", "2^99"], "--to"),
        (&["octal", "0.167", "--to", "0"], "--to"),
        (
            &["octal", "0.167", "--to", "2^60"],
            "2^60 is more than 2^48",
        ),
        (
            &["octal", "0.167", "--to", "2^64"],
            "2^64 is more than 2^48",
        ),
        (&["octal", "0.167", "--to", "-5"], "--to"),
        (
            &["octal", "0.167", "--to", "100", "--window", "2^30"],
            "more than 2^28",
        ),
        (&["octal", "0.8F", "--to", "2^31"], "--to 10^9"),
        (
            &["octal", "0.6", "--to", "10^6", "--values", &values],
            "does not exist",
        ),
        (
            &["octal", "0.6", "--to", "10^6", "--values", "g.txt"],
            "--values",
        ),
        (
            &["octal", "0.6", "--to", "100", "--store", &missing],
            "does not exist",
        ),
        (
            &["octal", "0.6", "--to", "100", "--store", &text_db],
            "not a grundy store",
        ),
        (
            &["octal", "0.167", "--to", "100", "--window", "1000"],
            "--window",
        ),
        (
            &["octal", "0.167", "--to", "100", "--threads", "0"],
            "--threads",
        ),
        (
            &["octal", "0.167", "--to", "100", "--store", &store],
            "--store",
        ),
    ] {
        let out = output_within(grundy(&dir, args));
        let err = text(&out.stderr);
        assert_eq!(out.status.code(), Some(2), "{args:?}: {err}");
        assert!(out.stdout.is_empty(), "{args:?}");
        assert_eq!(err.lines().count(), 1, "one line: {args:?}: {err}");
        assert!(err.contains(needle), "{args:?}: {err}");
    }
    // Nothing left behind by the refused runs but the files made here: no folder created.
    assert_eq!(files_in(&dir), ["file", "text.db"]);
    std::fs::remove_dir_all(&dir).unwrap();
}

/// A run that a proof ends early says so, with a full bar ("100.0 %"); `--quiet` says nothing
/// on stderr; a binary file's width is stated.
#[test]
fn a_run_ended_by_a_proof_says_so_and_quiet_is_quiet() {
    let dir = temp_dir();
    let out = output_within(grundy(
        &dir,
        &["octal", "0.07", "--to", "2^16", "--values", "g.bin"],
    ));
    assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));
    let said = text(&out.stderr);
    let last_progress = said
        .lines()
        .rfind(|l| l.contains(" heaps ("))
        .unwrap_or_else(|| panic!("no progress line: {said}"));
    assert!(
        last_progress.starts_with("65536 of 65536 heaps (100.0 %): proved periodic at heap ")
            && last_progress.ends_with(": no further values needed"),
        "{said}"
    );
    assert!(
        said.contains("written to g.bin (little-endian, 1 byte a value)"),
        "{said}"
    );
    assert_eq!(std::fs::metadata(dir.join("g.bin")).unwrap().len(), 65536);
    let words = text(&out.stdout);
    assert!(
        words.contains("0.07: periodic, preperiod 53, period 34"),
        "{words}"
    );

    let out = output_within(grundy(&dir, &["octal", "0.6", "--to", "5000", "--quiet"]));
    assert_eq!(out.status.code(), Some(0));
    assert!(out.stderr.is_empty(), "{}", text(&out.stderr));
    assert!(text(&out.stdout).contains("0.6: no period up to 5000"));
    std::fs::remove_dir_all(&dir).unwrap();
}

/// A longer `--to` continues a stored window run where it stopped (its values before the
/// window are only in its archive), and ends with the statistics of a run never stopped; a
/// run kept otherwise is said, not silently recomputed beside.
#[test]
fn a_longer_to_extends_a_stored_window_run() {
    let dir = temp_dir();
    let short = ["octal", "0.167", "--to", "2^18", "--window", "2^16", "-q"];
    assert_eq!(output_within(grundy(&dir, &short)).status.code(), Some(0));
    let long = [
        "octal", "0.167", "--to", "2^19", "--window", "2^16", "--json",
    ];
    let out = output_within(grundy(&dir, &long));
    assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));
    let said = text(&out.stderr);
    assert!(
        said.contains("extending the stored run to heap 262144")
            && said.contains("it goes on from heap 262144"),
        "{said}"
    );
    let extended = json_stdout(&out);
    assert_eq!(extended["job"]["attempts"], 2, "one job, run twice");
    // Every value kept, in another store: the same statistics.
    let other = temp_dir();
    let whole = json_stdout(&output_within(grundy(
        &other,
        &["octal", "0.167", "--to", "2^19", "--json", "-q"],
    )));
    for key in ["computed", "current", "powers_of_two"] {
        assert_eq!(
            extended["statistics"][key], whole["statistics"][key],
            "{key}"
        );
    }
    // Keeping every value in the first store: the window run is named, and not continued.
    let out = output_within(grundy(&dir, &["octal", "0.167", "--to", "2^19"]));
    let said = text(&out.stderr);
    assert!(
        said.contains("keeping a window of 2^16") && said.contains("does not continue that one"),
        "{said}"
    );
    std::fs::remove_dir_all(&dir).unwrap();
    std::fs::remove_dir_all(&other).unwrap();
}

/// Two processes on one run: the second says it follows the first and ends with it; the job
/// is computed once (one attempt).
#[test]
fn a_second_process_on_a_run_follows_it() {
    let dir = temp_dir();
    let args = ["octal", "0.167", "--to", "2^20", "--threads", "1", "--json"];
    let (first, _) = start_until_progress(&dir, &args);
    let second = output_within(grundy(&dir, &args));
    let said = text(&second.stderr);
    assert_eq!(second.status.code(), Some(0), "{said}");
    assert!(
        said.contains("another grundy octal is running on"),
        "{said}"
    );
    let followed = json_stdout(&second);
    let out = first.wait_with_output().unwrap();
    assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));
    assert_eq!(followed["job"]["status"], "done");
    assert_eq!(followed["job"]["attempts"], 1, "computed once: {followed}");
    std::fs::remove_dir_all(&dir).unwrap();
}

/// `grundy runs` lists the runs of the stores here, shows one again from its store and deletes
/// it; `grundy completions` and `grundy man` print a completion script and a manual page.
#[test]
fn runs_are_listed_shown_and_deleted_and_the_shell_helpers_print() {
    let dir = temp_dir();
    let out = output_within(grundy(&dir, &["octal", "0.07", "--to", "2^12", "-q"]));
    assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));
    let listed = text(&output_within(grundy(&dir, &["runs"])).stdout);
    assert!(listed.contains("octal-0.07.db ("), "{listed}");
    let line = listed
        .lines()
        .find(|l| l.contains(" 0.07 "))
        .unwrap_or_else(|| panic!("{listed}"));
    assert!(
        line.contains("2^12") && line.contains("periodic, preperiod 53, period 34"),
        "{line}"
    );
    let id = line.split_whitespace().next().unwrap().to_owned();
    let shown = output_within(grundy(&dir, &["runs", "show", &id]));
    assert_eq!(shown.status.code(), Some(0), "{}", text(&shown.stderr));
    assert!(text(&shown.stdout).contains("0.07: periodic, preperiod 53, period 34"));
    let deleted = output_within(grundy(&dir, &["runs", "delete", &id]));
    assert!(
        text(&deleted.stdout).starts_with("deleted run "),
        "{}",
        text(&deleted.stderr)
    );
    let listed = text(&output_within(grundy(&dir, &["runs"])).stdout);
    assert!(listed.contains("0 runs"), "{listed}");
    let missing = output_within(grundy(&dir, &["runs", "show", &id]));
    assert_eq!(missing.status.code(), Some(2));

    let bash = output_within(grundy(&dir, &["completions", "bash"]));
    assert!(text(&bash.stdout).contains("_grundy()"));
    let man = output_within(grundy(&dir, &["man"]));
    assert!(text(&man.stdout).contains(".TH grundy 1"));
    std::fs::remove_dir_all(&dir).unwrap();
}

/// `--rare` lists the rare heaps of the run and their values, as the tables give them: for
/// `.167` to 2^20, 60 heaps under mask 3d, the last 1,303 — the same heaps the definition gives
/// (every rare heap of `.167` lies below 2^12: those above are checked by the count).
#[test]
fn rare_lists_the_rare_heaps_of_the_definition() {
    let dir = temp_dir();
    let out = output_within(grundy(
        &dir,
        &["octal", "0.167", "--to", "2^20", "--rare", "--json", "-q"],
    ));
    assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));
    let doc = json_stdout(&out);
    let current = &doc["statistics"]["current"];
    assert_eq!(current["rare_mask"], "3d");
    let rare: Vec<(u64, u32)> = serde_json::from_value(doc["rare"].clone()).unwrap();
    assert_eq!(rare.len() as u64, current["rare_count"].as_u64().unwrap());
    assert_eq!(rare.last(), Some(&(1303, 22)));
    let g = naive_0167(1 << 12);
    let want: Vec<(u64, u32)> = (0..g.len())
        .filter(|&h| (g[h] & 0x3d).count_ones().is_multiple_of(2))
        .map(|h| (h as u64, g[h]))
        .collect();
    assert_eq!(rare, want);
    // In words: after the table.
    let out = output_within(grundy(&dir, &["octal", "0.167", "--to", "2^20", "--rare"]));
    let words = text(&out.stdout);
    assert!(
        words.contains("rare heaps of heaps 0 … 1048575 under mask 3d (60 heaps):"),
        "{words}"
    );
    assert!(
        words
            .lines()
            .any(|l| l.split_whitespace().eq(["1303", "22"])),
        "{words}"
    );
    std::fs::remove_dir_all(&dir).unwrap();
}

/// `grundy value` answers one value — from a proved period, computed, or from the game's
/// store — and `grundy misere` a quotient, as the API does; out of reach is exit 2 naming the
/// command that goes further.
#[test]
fn value_and_misere_answer_without_a_server() {
    let dir = temp_dir();
    let out = output_within(grundy(&dir, &["value", "0.07", "10^12"]));
    assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));
    // 0.07: preperiod 53, period 34: g(10^12) = g(53 + (10^12 − 53) mod 34).
    let base = 53 + (1_000_000_000_000u64 - 53) % 34;
    let want = grundy::core::octal::naive_values(
        &grundy::core::octal::Game::parse("0.07").unwrap(),
        base as usize + 1,
        &mut || false,
    )
    .unwrap();
    assert!(
        text(&out.stdout).starts_with(&format!(
            "0.07: g(1000000000000) = {} (from the proved period 34",
            want[base as usize]
        )),
        "{}",
        text(&out.stdout)
    );
    let out = output_within(grundy(&dir, &["value", "0.167", "1303", "--json"]));
    let doc = json_stdout(&out);
    assert_eq!(doc["value"], 22);
    let out = output_within(grundy(&dir, &["value", "0.6", "10^11"]));
    assert_eq!(out.status.code(), Some(2));
    assert!(
        text(&out.stderr).contains("grundy octal 0.6 --to N computes further"),
        "{}",
        text(&out.stderr)
    );
    assert_eq!(
        output_within(grundy(&dir, &["value", "0.6", "-1"]))
            .status
            .code(),
        Some(2)
    );

    let out = output_within(grundy(&dir, &["misere", "0.07", "--heap", "30"]));
    assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));
    // The published size: |Q_30| of 0.07 is 360 (Plambeck–Siegel).
    assert!(
        text(&out.stdout).starts_with("0.07: Q_30 has 360 elements"),
        "{}",
        text(&out.stdout)
    );
    let doc = json_stdout(&output_within(grundy(
        &dir,
        &["misere", "0.123", "--heap", "20", "--json"],
    )));
    assert_eq!(
        (doc["q_size"].as_u64(), doc["p_size"].as_u64()),
        (Some(20), Some(5))
    );
    // Nothing written: no store for a question.
    assert!(files_in(&dir).is_empty(), "{:?}", files_in(&dir));
    std::fs::remove_dir_all(&dir).unwrap();
}

/// `grundy census CODE… --to N`: the census job machinery in-process — both games computed,
/// `0.07` (Dawson's Kayles) proved periodic with the published preperiod 53 and period 34 and
/// verified by a second run from scratch, `0.6` (Officers) without a period; its table, its
/// JSON as the API gives it, and the same command again answering from the store.
#[test]
fn a_census_prints_its_table_and_is_found_again() {
    let dir = temp_dir();
    let out = output_within(grundy(&dir, &["census", "0.6", "0.07", "--to", "2^16"]));
    let said = text(&out.stderr);
    assert_eq!(out.status.code(), Some(0), "{said}");
    let table = text(&out.stdout);
    assert!(table.contains("2 games to heaps 0 … 65535"), "{table}");
    let verdict = |code: &str| {
        table
            .lines()
            .find(|l| l.starts_with(&format!("  {code}: ")))
            .unwrap_or_else(|| panic!("no verdict of {code}: {table}"))
            .to_owned()
    };
    let dawson = verdict("0.07");
    assert!(dawson.contains("periodic (verified)"), "{dawson}");
    assert!(dawson.contains("preperiod 53, period 34"), "{dawson}");
    assert!(
        verdict("0.6").contains("no periodicity proved in G(0..65536)"),
        "{table}"
    );
    assert!(said.contains("kept in census.db"), "{said}");
    assert!(files_in(&dir).contains(&"census.db".to_owned()));
    assert!(
        !files_in(&dir).iter().any(|f| f.ends_with("-wal")),
        "{:?}",
        files_in(&dir)
    );

    // Again: the same census, found in the store, nothing computed again.
    let again = output_within(grundy(
        &dir,
        &["census", "0.07", ".6", "--to", "65536", "--json"],
    ));
    let said = text(&again.stderr);
    assert_eq!(again.status.code(), Some(0), "{said}");
    assert!(said.contains("found in census.db"), "{said}");
    let doc = json_stdout(&again);
    assert_eq!(doc["status"], "done", "{doc}");
    let games = doc["games"].as_array().unwrap();
    assert_eq!(games.len(), 2);
    for g in games {
        assert_eq!(g["status"], "done", "{g}");
    }
    let officers = games.iter().find(|g| g["code"] == "0.6").unwrap();
    assert_eq!(officers["computed"], 65536);
    assert_eq!(officers["statistics"]["n"], 65536);
    let csv = output_within(grundy(
        &dir,
        &["census", "0.6", "0.07", "--to", "2^16", "--csv", "-q"],
    ));
    assert_eq!(csv.status.code(), Some(0));
    assert!(text(&csv.stderr).is_empty(), "{}", text(&csv.stderr));
    assert!(text(&csv.stdout).starts_with("code,status,n,largest_value"));
    std::fs::remove_dir_all(&dir).unwrap();
}

/// A census's bad input: one line naming it, exit 2, nothing created.
#[test]
fn census_bad_input_is_one_line_and_creates_nothing() {
    let dir = temp_dir();
    for (args, needle) in [
        (vec!["census", "0.6", "--to", "2^60"], "2^48"),
        (
            vec!["census", "0.6", "--to", "2^31", "--keep-all"],
            "at most 10^9",
        ),
        (
            vec!["census", "0.6", "0.8F", "--to", "2^20", "--window", "2^16"],
            "0.8F: ",
        ),
        (
            vec!["census", "0.6", "--to", "2^20", "--window", "1000"],
            "--window",
        ),
        (vec!["census", "0.6", "nope", "--to", "2^10"], "nope"),
        (
            vec!["census", "0.6", "--to", "2^10", "--store", "nodir/c.db"],
            "nodir",
        ),
    ] {
        let out = output_within(grundy(&dir, &args));
        let said = text(&out.stderr);
        assert_eq!(out.status.code(), Some(2), "{args:?}: {said}");
        assert_eq!(said.trim_end().lines().count(), 1, "{args:?}: {said}");
        assert!(said.contains(needle), "{args:?}: {said}");
        assert!(files_in(&dir).is_empty(), "{args:?}: {:?}", files_in(&dir));
    }
    // The window rule's advice, followed: the game keeps every value.
    let out = output_within(grundy(
        &dir,
        &[
            "census",
            "0.8F",
            "--to",
            "2^12",
            "--keep-all",
            "--json",
            "-q",
        ],
    ));
    assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));
    assert_eq!(json_stdout(&out)["keep"], "all");
    std::fs::remove_dir_all(&dir).unwrap();
}
