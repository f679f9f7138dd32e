//! The web pages at `/`: served from the binary with the right types, caching and security
//! headers; the API keeps working beside them (its responses get the harmless headers, /docs
//! its own policy).

mod common;

use common::{assert_problem, start};

fn header<'a>(r: &'a common::Reply, name: &str) -> &'a str {
    r.headers
        .get(name)
        .and_then(|v| v.to_str().ok())
        .unwrap_or_default()
}

fn directive<'a>(csp: &'a str, name: &str) -> Option<&'a str> {
    csp.split(';')
        .map(str::trim)
        .find(|d| d.split_whitespace().next() == Some(name))
}

#[tokio::test]
async fn index_is_html_with_strict_security_headers() {
    let s = start().await;
    for path in ["/", "/index.html"] {
        let r = s.get(path).await;
        assert_eq!(r.status, 200, "{path}");
        assert_eq!(r.content_type, "text/html; charset=utf-8");
        assert!(r.text.contains("<title>grundy"), "{}", &r.text[..200]);
        assert_eq!(header(&r, "x-content-type-options"), "nosniff");
        assert_eq!(header(&r, "x-frame-options"), "DENY");
        assert_eq!(header(&r, "referrer-policy"), "no-referrer");
        assert_eq!(header(&r, "cache-control"), "no-cache");
        assert!(!header(&r, "etag").is_empty());
        let csp = header(&r, "content-security-policy");
        assert_eq!(
            directive(csp, "script-src"),
            Some("script-src 'self'"),
            "{csp}"
        );
        assert_eq!(
            directive(csp, "style-src"),
            Some("style-src 'self'"),
            "{csp}"
        );
        assert_eq!(
            directive(csp, "default-src"),
            Some("default-src 'none'"),
            "{csp}"
        );
        assert_eq!(
            directive(csp, "frame-ancestors"),
            Some("frame-ancestors 'none'")
        );
        assert!(!csp.contains("unsafe"), "{csp}");
    }
}

#[tokio::test]
async fn every_linked_asset_is_served_with_its_type_and_long_caching() {
    let s = start().await;
    let page = s.get("/").await.text;
    let version = grundy::api::pages::version();
    let mut linked = Vec::new();
    for attr in ["src=\"", "href=\""] {
        for (i, _) in page.match_indices(attr) {
            let rest = &page[i + attr.len()..];
            let url = &rest[..rest.find('"').unwrap()];
            if url.starts_with("/assets/") {
                linked.push(url.to_owned());
            }
        }
    }
    assert!(linked.len() >= 3, "{linked:?}");
    for url in &linked {
        assert!(url.starts_with(&format!("/assets/{version}/")), "{url}");
        let r = s.get(url).await;
        assert_eq!(r.status, 200, "{url}");
        assert_eq!(
            header(&r, "cache-control"),
            "public, max-age=31536000, immutable"
        );
        assert_eq!(header(&r, "x-content-type-options"), "nosniff");
    }
    // Each type, including the modules the entry script imports (resolved beside it).
    for (name, ty) in [
        ("app.js", "text/javascript; charset=utf-8"),
        ("play.js", "text/javascript; charset=utf-8"),
        ("rules.js", "text/javascript; charset=utf-8"),
        ("explorer.js", "text/javascript; charset=utf-8"),
        ("jobs.js", "text/javascript; charset=utf-8"),
        ("style.css", "text/css; charset=utf-8"),
        ("favicon.svg", "image/svg+xml"),
    ] {
        let r = s.get(&format!("/assets/{version}/{name}")).await;
        assert_eq!(r.status, 200, "{name}");
        assert_eq!(r.content_type, ty, "{name}");
        assert!(!r.text.is_empty());
    }
    // Every relative import of every module resolves to an embedded asset.
    for a in grundy::api::pages::ASSETS {
        if !a.name.ends_with(".js") {
            continue;
        }
        let text = std::str::from_utf8(a.bytes).unwrap();
        for (i, _) in text.match_indices("from './") {
            let rest = &text[i + "from './".len()..];
            let dep = &rest[..rest.find('\'').unwrap()];
            let r = s.get(&format!("/assets/{version}/{dep}")).await;
            assert_eq!(r.status, 200, "{} imports {dep}", a.name);
        }
    }
    // An older page's version still loads the current file, but is not cached for long.
    let r = s.get("/assets/0123456789ab/app.js").await;
    assert_eq!(r.status, 200);
    assert_eq!(header(&r, "cache-control"), "no-cache");
    let r = s.get("/favicon.ico").await;
    assert_eq!(r.status, 200);
    assert_eq!(r.content_type, "image/svg+xml");
}

#[tokio::test]
async fn unknown_assets_are_404_problems() {
    let s = start().await;
    let v = grundy::api::pages::version();
    for path in [
        format!("/assets/{v}/nope.js"),
        "/assets/nope.css".to_owned(),
        format!("/assets/{v}/index.html"),
        format!("/assets/{v}/../Cargo.toml"),
        format!("/assets/{v}/x/app.js"),
        "/assets/".to_owned(),
    ] {
        let r = s.get(&path).await;
        assert_problem(&r, 404, "");
        assert_eq!(header(&r, "x-content-type-options"), "nosniff", "{path}");
        assert_eq!(
            directive(header(&r, "content-security-policy"), "default-src"),
            Some("default-src 'none'"),
            "{path}"
        );
    }
}

#[tokio::test]
async fn conditional_requests_answer_304() {
    let s = start().await;
    let v = grundy::api::pages::version();
    for path in ["/".to_owned(), format!("/assets/{v}/app.js")] {
        let first = s.get(&path).await;
        let tag = header(&first, "etag").to_owned();
        assert!(tag.starts_with('"') && tag.ends_with('"'), "{tag}");
        let again = s
            .client
            .get(format!("{}{path}", s.base))
            .header("if-none-match", &tag)
            .send()
            .await
            .unwrap();
        assert_eq!(again.status(), 304, "{path}");
        assert_eq!(again.headers()["etag"].to_str().unwrap(), tag);
        let other = s
            .client
            .get(format!("{}{path}", s.base))
            .header("if-none-match", "\"something-else\"")
            .send()
            .await
            .unwrap();
        assert_eq!(other.status(), 200, "{path}");
    }
}

#[tokio::test]
async fn api_and_docs_keep_working_with_their_own_headers() {
    let s = start().await;
    // JSON answers: harmless headers, a policy that loads nothing.
    let r = s
        .post(
            "/v1/welter/value",
            &serde_json::json!({"position": [1, 3, 7, 8, 11, 19]}),
        )
        .await;
    assert_eq!(r.status, 200);
    assert_eq!(r.body["value"], 12);
    assert_eq!(header(&r, "x-content-type-options"), "nosniff");
    assert_eq!(
        header(&r, "content-security-policy"),
        grundy::http::headers::DATA_CSP
    );
    // Swagger UI: served, with a policy that allows its inline styles but no inline script.
    let r = s.get("/docs/").await;
    assert_eq!(r.status, 200);
    assert!(
        r.content_type.starts_with("text/html"),
        "{}",
        r.content_type
    );
    let csp = header(&r, "content-security-policy");
    assert_eq!(csp, grundy::http::headers::HTML_CSP);
    assert_eq!(directive(csp, "script-src"), Some("script-src 'self'"));
    let r = s.get("/openapi.json").await;
    assert_eq!(r.status, 200);
    // The pages are not API operations.
    let paths = r.body["paths"].as_object().unwrap();
    assert!(paths.keys().all(|p| p.starts_with("/v1/")
        || p.starts_with("/problems")
        || p.ends_with('z')
        || p == "/metrics"));
    // A page-less path is still a 404 problem.
    assert_problem(&s.get("/nothing-here").await, 404, "/nothing-here");
}

/// Issue 56, what the pages' sources must keep (the browser check, `scripts/browser-check.sh`,
/// sees the pages themselves): words break only between words — `overflow-wrap: anywhere` is
/// for code (`.mono`) alone; "rare" means the tables' rare mask on every page, so the explorer's
/// frequency view is named "uncommon"; the Jobs page keeps its page number in the address.
#[test]
fn pages_sources_keep_words_whole_and_one_meaning_of_rare() {
    let css = std::fs::read_to_string("web/style.css").unwrap();
    for rule in css.split('}') {
        if rule.contains("overflow-wrap: anywhere") {
            let selector = rule.split('{').next().unwrap_or("");
            let selector = selector.rsplit("*/").next().unwrap_or(selector).trim();
            assert!(
                selector.split(',').all(|s| s.contains(".mono")),
                "overflow-wrap: anywhere outside code: {selector}"
            );
        }
    }
    let explorer = std::fs::read_to_string("web/explorer.js").unwrap();
    let index = std::fs::read_to_string("web/index.html").unwrap();
    let explore_section = index
        .split("<section id=\"explore\"")
        .nth(1)
        .and_then(|s| s.split("</section>").next())
        .expect("the explorer's section in web/index.html");
    assert!(
        !explore_section.to_lowercase().contains(">rare")
            && explore_section.contains("Uncommon values"),
        "web/index.html #explore: the explorer's frequency view is named uncommon, not rare"
    );
    // Strings the explorer shows (template literals and quoted text), not its identifiers.
    let interpolated = regex::Regex::new(r"\$\{[^}]*\}").unwrap();
    let code = explorer.lines().filter(|l| {
        let t = l.trim_start();
        !t.starts_with("//") && !t.starts_with('*') && !t.starts_with("/*")
    });
    for line in code.filter(|l| l.contains('`') || l.contains('\'')) {
        // What is interpolated (`${X.rare.size}`) is code, not text.
        let line_text = interpolated.replace_all(line, "");
        let shown: String = line_text
            .split(['`', '\''])
            .skip(1)
            .step_by(2)
            .collect::<Vec<_>>()
            .join(" ");
        assert!(
            !shown.to_lowercase().contains("rare"),
            "web/explorer.js shows \"rare\": {line}"
        );
    }
    let jobs = std::fs::read_to_string("web/jobs.js").unwrap();
    assert!(
        jobs.contains("page: page > 1 ? page : ''"),
        "the Jobs page's page number in its address"
    );
    assert!(
        jobs.contains("done — proved"),
        "a job ended by a proof says so"
    );
    assert!(
        jobs.contains("no period up to"),
        "a finished job without a proof says how far"
    );
}
