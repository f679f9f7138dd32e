//! README's examples are what the server really sends: every `curl` example in a `sh` block
//! whose answer is shown in full (the `# …` lines after it parse as one JSON document) is sent
//! to the application in-process and the answer compared with the shown one, member for
//! member. Examples whose answer is elided (`…`, `...`) are not comparable and are skipped,
//! but the problem examples — the ones a client copies into its error handling — must all be
//! complete, and there must be some.

mod common;

use axum::http::Method;
use serde_json::Value;

/// One README example: the request and the answer shown after it.
struct Example {
    method: Method,
    path: String,
    body: Option<String>,
    shown: Value,
    line: usize,
}

/// The examples of README's `sh` blocks whose shown answer is complete JSON.
fn examples(readme: &str) -> (Vec<Example>, usize) {
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
    let readme = include_str!("../README.md");
    let (examples, problems_shown) = examples(readme);
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
            "README line {}: {} {} answered {}",
            e.line, e.method, e.path, reply.text
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
