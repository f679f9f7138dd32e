//! README's and the guide's (`docs/*.md`) examples are what the server really sends: every
//! `curl` example in a `sh` block
//! whose answer is shown in full (the `# …` lines after it parse as one JSON document) is sent
//! to the application in-process and the answer compared with the shown one, member for
//! member. Examples whose answer is elided (`…`, `...`) are not comparable and are skipped,
//! but the problem examples — the ones a client copies into its error handling — must all be
//! complete, and there must be some.
//!
//! Issue 46: what README says beside its examples is checked too — the widths it shows for
//! downloads (`# x-grundy-value-bytes: N`, and the value it gives as the reason), and the order
//! of the positions answered (sorted, whatever the request's order; request order for the
//! Welter primes).
//!
//! Issue 56: the examples live in README and in the guide's pages (`docs/*.md`); every page is
//! read, and every `curl` request of theirs that the in-process application can answer is sent,
//! shown answer or not: none may meet a route that does not exist or a 5xx.

mod common;

use axum::http::Method;
use grundy::config::Config;
use serde_json::Value;
use std::time::Duration;

/// README and every page of the guide: (path from the repository root, text).
fn documents() -> Vec<(String, String)> {
    let mut out = vec![(
        "README.md".to_owned(),
        std::fs::read_to_string("README.md").unwrap(),
    )];
    for p in common::guide_pages() {
        let text = std::fs::read_to_string(&p).unwrap();
        out.push((p.display().to_string(), text));
    }
    out
}

/// One README example: the request and the answer shown after it.
struct Example {
    method: Method,
    path: String,
    body: Option<String>,
    shown: Value,
    line: usize,
    /// The document it is in.
    doc: String,
}

/// The examples of README's `sh` blocks whose shown answer is complete JSON.
fn examples_of(readme: &str) -> (Vec<Example>, usize) {
    let mut out = Vec::new();
    let mut problems_shown = 0;
    let mut in_sh = false;
    let lines: Vec<&str> = readme.lines().collect();
    let mut i = 0;
    while i < lines.len() {
        let line = lines[i].trim_start();
        if line.starts_with("```") {
            in_sh = line == "```sh";
            i += 1;
            continue;
        }
        if !in_sh || !line.starts_with("curl ") {
            i += 1;
            continue;
        }
        let start = i;
        // The command, with its continuation lines.
        let mut command = String::new();
        while i < lines.len() {
            let l = lines[i].trim();
            i += 1;
            match l.strip_suffix('\\') {
                Some(part) => command.push_str(part),
                None => {
                    command.push_str(l.split(" #").next().unwrap_or(l));
                    break;
                }
            }
        }
        // The shown answer: the `#` lines right after it.
        let mut shown = String::new();
        while i < lines.len() && lines[i].trim_start().starts_with('#') {
            shown.push_str(lines[i].trim_start().trim_start_matches('#').trim());
            shown.push(' ');
            i += 1;
        }
        if shown.contains("/problems/") {
            problems_shown += 1;
        }
        let Ok(shown) = serde_json::from_str::<Value>(&shown) else {
            continue;
        };
        let Some(request) = parse_curl(&command) else {
            continue;
        };
        out.push(Example {
            method: request.0,
            path: request.1,
            body: request.2,
            shown,
            line: start + 1,
            doc: String::new(),
        });
    }
    (out, problems_shown)
}

/// The method, path and body of a `curl -s localhost:8080/… [-H …] [-d '…']` command; `None`
/// for what the in-process application cannot answer (other flags that change the request).
fn parse_curl(command: &str) -> Option<(Method, String, Option<String>)> {
    let url_at = command.find("localhost:8080")? + "localhost:8080".len();
    let rest = &command[url_at..];
    let path: String = rest
        .chars()
        .take_while(|c| !c.is_whitespace() && *c != '\'')
        .collect();
    if command.contains("-X ") || command.contains("accept:") || command.contains("-o ") {
        return None;
    }
    let body = command.find("-d '").map(|at| {
        let b = &command[at + 4..];
        b[..b.rfind('\'').unwrap_or(b.len())].to_owned()
    });
    let method = if body.is_some() {
        Method::POST
    } else {
        Method::GET
    };
    Some((method, path, body))
}

#[tokio::test]
async fn readme_answers_are_what_the_server_sends() {
    let mut examples = Vec::new();
    let mut problems_shown = 0;
    for (doc, text) in documents() {
        let (mut found, problems) = examples_of(text.as_str());
        for e in &mut found {
            e.doc = doc.clone();
        }
        examples.extend(found);
        problems_shown += problems;
    }
    assert!(
        examples.len() >= 8,
        "only {} comparable examples",
        examples.len()
    );
    let app = common::app().await;
    let mut problems = 0;
    for e in &examples {
        let reply = app
            .request(
                e.method.clone(),
                &e.path,
                e.body.clone().map(String::into_bytes),
            )
            .await;
        assert_eq!(
            reply.body, e.shown,
            "{} line {}: {} {} answered {}",
            e.doc, e.line, e.method, e.path, reply.text
        );
        if reply.text.contains("/problems/") {
            problems += 1;
        }
    }
    assert!(
        problems >= 2,
        "README shows only {problems} complete problem examples"
    );
    assert_eq!(
        problems, problems_shown,
        "every problem example in README must be shown in full (no …) and be compared"
    );
}

/// Every `curl` request of README's `sh` blocks that the in-process application can answer,
/// shown answer or not: (method, path, body, line).
fn requests(readme: &str) -> Vec<(Method, String, Option<String>, usize)> {
    let mut out = Vec::new();
    let mut in_sh = false;
    let lines: Vec<&str> = readme.lines().collect();
    let mut i = 0;
    while i < lines.len() {
        let line = lines[i].trim_start();
        i += 1;
        if line.starts_with("```") {
            in_sh = line == "```sh";
            continue;
        }
        if !in_sh || !line.starts_with("curl ") {
            continue;
        }
        let start = i;
        let mut command = line.to_owned();
        while command.ends_with('\\') && i < lines.len() {
            command.pop();
            command.push_str(lines[i].trim());
            i += 1;
        }
        let command = command.split(" #").next().unwrap_or(&command).to_owned();
        if let Some((method, path, body)) = parse_curl(&command) {
            out.push((method, path, body, start));
        }
    }
    out
}

/// README's `# x-grundy-value-bytes: N` lines: the request before each is sent with its
/// `accept`, and the header, the body's length and the value given as the reason
/// (`g(A) = B`) must be what the server answers.
#[tokio::test]
async fn readme_value_widths_are_what_the_server_sends() {
    // 0.6 to 10^6 is computed on demand: a debug build needs more than the default 10 s.
    let app = common::app_with(Config {
        octal_sync_time: Duration::from_secs(600),
        ..common::config()
    })
    .await;
    let mut checked = 0;
    for (doc, readme) in documents() {
        let lines: Vec<&str> = readme.lines().collect();
        for (at, line) in lines.iter().enumerate() {
            let Some(shown) = line.trim_start().strip_prefix("# x-grundy-value-bytes:") else {
                continue;
            };
            let width: u64 = shown.split_whitespace().next().unwrap().parse().unwrap();
            let command = lines[..at]
                .iter()
                .rev()
                .map(|l| l.trim())
                .find(|l| l.starts_with("curl "))
                .unwrap_or_else(|| panic!("{doc} line {}: no curl before it", at + 1));
            let accept = command
                .split("-H '")
                .skip(1)
                .filter_map(|h| h.split('\'').next())
                .find_map(|h| h.strip_prefix("accept: "))
                .unwrap_or_else(|| panic!("{doc} line {}: no accept header: {command}", at + 1));
            let url = command
                .split('\'')
                .find(|p| p.starts_with("localhost:8080/"))
                .unwrap();
            let path = &url["localhost:8080".len()..];
            let count: u64 = path
                .split(['?', '&'])
                .find_map(|kv| kv.strip_prefix("count="))
                .unwrap()
                .parse()
                .unwrap();
            let reply = app
                .request_with(Method::GET, path, &[("accept", accept)], None)
                .await;
            assert_eq!(reply.status.as_u16(), 200, "{doc} line {}: {path}", at + 1);
            let header = |name: &str| reply.headers[name].to_str().unwrap().to_owned();
            assert_eq!(
                header("x-grundy-value-bytes"),
                width.to_string(),
                "{doc} line {}: {path}",
                at + 1
            );
            assert_eq!(header("content-length"), (count * width).to_string());
            // The reason given: `g(A) = B`, A's value in the same game.
            if let Some(reason) = shown.split("g(").nth(1) {
                let (heap, rest) = reason.split_once(") = ").unwrap();
                let value: u64 = rest
                    .split(|c: char| !c.is_ascii_digit())
                    .next()
                    .unwrap()
                    .parse()
                    .unwrap();
                let code = path
                    .trim_start_matches("/v1/octal/")
                    .split('/')
                    .next()
                    .unwrap();
                let one = app
                    .get(&format!("/v1/octal/{code}/values?start={heap}&count=1"))
                    .await;
                assert_eq!(
                    one.body["values"][0],
                    value,
                    "{doc} line {}: g({heap})",
                    at + 1
                );
                assert!(
                    value >= 1 << (8 * (width - 1)) && value < 1 << (8 * width),
                    "{doc} line {}: {value} is the reason for {width} bytes",
                    at + 1
                );
            }
            checked += 1;
        }
    }
    assert!(
        checked >= 1,
        "README and the guide show no x-grundy-value-bytes"
    );
}

/// README: "The answer's `position` is the request's, normalised and sorted ascending, for Nim
/// and Welter alike (…); only `/v1/welter/primes` answers its position and primes in request
/// order". Every README request with a `position` is sent as written and reversed: the answers'
/// positions are the same (and sorted: a request out of order is not echoed), except the
/// primes', which follow the request.
#[tokio::test]
async fn readme_position_orders_are_what_the_server_sends() {
    let docs = documents();
    let all: String = docs.iter().map(|(_, t)| t.as_str()).collect();
    for said in [
        "**sorted ascending**, for Nim and Welter",
        "in request order",
    ] {
        assert!(
            all.contains(said),
            "README and the guide no longer say {said:?}: update this test"
        );
    }
    let app = common::app().await;
    let mut checked = (0, 0, 0);
    for (method, path, body, line, doc) in docs.iter().flat_map(|(doc, text)| {
        requests(text)
            .into_iter()
            .map(move |(m, p, b, l)| (m, p, b, l, doc))
    }) {
        let Some(body) = body else { continue };
        let Ok(request) = serde_json::from_str::<Value>(&body) else {
            continue;
        };
        let Some(position) = request["position"].as_array() else {
            continue;
        };
        let mut reversed = request.clone();
        reversed["position"] = Value::Array(position.iter().rev().cloned().collect());
        let send =
            |v: &Value| app.request(method.clone(), &path, Some(serde_json::to_vec(v).unwrap()));
        let (a, b) = (send(&request).await, send(&reversed).await);
        if a.status.as_u16() != 200 {
            continue; // a problem example
        }
        assert_eq!(
            b.status.as_u16(),
            200,
            "{doc} line {line}: reversed: {}",
            b.text
        );
        if path.ends_with("/primes") {
            let rev =
                |v: &Value| Value::Array(v.as_array().unwrap().iter().rev().cloned().collect());
            assert_eq!(a.body["position"], request["position"], "{doc} line {line}");
            assert_eq!(
                b.body["position"], reversed["position"],
                "{doc} line {line}"
            );
            assert_eq!(
                b.body["primes"],
                rev(&a.body["primes"]),
                "{doc} line {line}"
            );
            checked.0 += 1;
        } else {
            assert_eq!(
                a.body["position"], b.body["position"],
                "{doc} line {line}: {path} answers in request order"
            );
            if a.body["position"] != request["position"] {
                checked.2 += 1; // asked out of order, answered sorted
            }
            checked.1 += 1;
        }
    }
    let (primes, sorted, unsorted_asked) = checked;
    assert!(
        primes >= 1 && sorted >= 4 && unsorted_asked >= 1,
        "{checked:?}"
    );
}

/// Every `curl` request of README's and the guide's `sh` blocks that the in-process application
/// can answer (its answer shown or not) meets a route that exists and no 5xx: an example that
/// names an endpoint no longer served, or a body the server cannot take, fails here.
#[tokio::test]
async fn every_request_shown_is_served() {
    // Computations shown (0.6 to 10^6, …) may take long in a debug build.
    let app = common::app_with(Config {
        octal_sync_time: Duration::from_secs(600),
        ..common::config()
    })
    .await;
    let mut sent = 0;
    for (doc, text) in documents() {
        for (method, path, body, line) in requests(&text) {
            if path.contains('…') || body.as_deref().is_some_and(|b| b.contains('…')) {
                continue; // an id or a body elided
            }
            let reply = app
                .request(method.clone(), &path, body.clone().map(String::into_bytes))
                .await;
            let status = reply.status.as_u16();
            assert!(
                status < 500 && status != 405 && !reply.text.contains("no route for"),
                "{doc} line {line}: {method} {path} answered {status}: {}",
                reply.text
            );
            sent += 1;
        }
    }
    assert!(sent >= 30, "only {sent} requests sent");
}

/// How many heaps a `--to` of a shown command asks for: digits, `10^k` or `2^k`.
fn heaps(to: &str) -> Option<u64> {
    if let Some(k) = to.strip_prefix("10^") {
        return 10u64.checked_pow(k.parse().ok()?);
    }
    if let Some(k) = to.strip_prefix("2^") {
        return 2u64.checked_pow(k.parse().ok()?);
    }
    to.parse().ok()
}

/// Every `grundy …` command of README's and the guide's `sh` blocks runs and exits 0, in one
/// fresh folder in the order shown (a run, then `grundy runs` listing it): the commands a
/// researcher copies. Left out: runs beyond 2^20 heaps (minutes of a machine; `grundy octal`'s
/// own tests cover their flags), the key walkthrough (`scripts/readme-keys.sh` runs it) and the
/// server itself.
#[test]
fn every_grundy_command_shown_runs() {
    let dir = std::env::temp_dir().join(format!("grundy-doc-commands-{}", uuid::Uuid::new_v4()));
    std::fs::create_dir_all(&dir).unwrap();
    let mut ran = Vec::new();
    for (doc, text) in documents() {
        let mut in_sh = false;
        for (i, line) in text.lines().enumerate() {
            let line = line.trim();
            if line.starts_with("```") {
                in_sh = line == "```sh";
                continue;
            }
            let Some(rest) = line.strip_prefix("grundy ").filter(|_| in_sh) else {
                continue;
            };
            let command = rest.split(" #").next().unwrap().trim();
            if command.contains(['>', '&', '|', '$']) || command.starts_with("keys") {
                continue;
            }
            let args: Vec<&str> = command.split_whitespace().collect();
            if let Some(at) = args.iter().position(|a| *a == "--to") {
                if heaps(args[at + 1]).is_none_or(|n| n > 1 << 20) {
                    continue;
                }
            }
            let out = std::process::Command::new(env!("CARGO_BIN_EXE_grundy"))
                .args(&args)
                .current_dir(&dir)
                .env("RUST_LOG", "warn")
                .output()
                .unwrap();
            assert!(
                out.status.success(),
                "{doc} line {}: grundy {command} exited {}: {}",
                i + 1,
                out.status,
                String::from_utf8_lossy(&out.stderr)
            );
            ran.push(command.to_owned());
        }
    }
    let _ = std::fs::remove_dir_all(&dir);
    assert!(ran.len() >= 8, "only {ran:?}");
    assert!(ran.iter().any(|c| c.starts_with("octal")) && ran.iter().any(|c| c == "runs"));
}
