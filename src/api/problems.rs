//! `/problems/*`: one short human page per problem type (the catalogue is
//! [`crate::problem::catalogue`]), served by the service itself, so that a problem's `type`
//! (`/problems/invalid-value`, a URI reference resolved against the service's address) always
//! leads somewhere.

use axum::http::header;
use axum::response::{IntoResponse, Response};
use utoipa_axum::{router::OpenApiRouter, routes};

use crate::api::wire::error::ApiError;
use crate::api::wire::params::ApiPath;
use crate::problem::catalogue::{ProblemType, ProblemTypeName, ALL};
use crate::problem::Problem;
use crate::service::AppState;

const STYLE: &str = "body{font-family:system-ui,sans-serif;max-width:42em;margin:2em auto;padding:0 1em;line-height:1.5}code{background:#f3f3f3;padding:0 .2em}";

/// `text` with the HTML metacharacters escaped, and `backticked` spans set as code.
fn html_text(text: &str) -> String {
    let escaped = text
        .replace('&', "&amp;")
        .replace('<', "&lt;")
        .replace('>', "&gt;");
    let mut out = String::with_capacity(escaped.len() + 16);
    for (i, part) in escaped.split('`').enumerate() {
        if i % 2 == 1 {
            out.push_str("<code>");
            out.push_str(part);
            out.push_str("</code>");
        } else {
            out.push_str(part);
        }
    }
    out
}

fn html(title: &str, body: &str) -> Response {
    let page = format!(
        "<!doctype html>\n<html lang=\"en\"><head><meta charset=\"utf-8\"><title>{title} — grundy</title>\
         <style>{STYLE}</style></head><body>\n{body}\n</body></html>\n"
    );
    ([(header::CONTENT_TYPE, "text/html; charset=utf-8")], page).into_response()
}

/// The page of one problem type.
pub fn page(kind: &ProblemType) -> Response {
    let body = format!(
        "<h1>{title}</h1>\n<p>Problem type <code>{uri}</code>, HTTP status {status}.</p>\n\
         <h2>When</h2>\n<p>{when}</p>\n<h2>What to do</h2>\n<p>{fix}</p>\n\
         <p>Every error of this service is an RFC 9457 problem document \
         (<code>application/problem+json</code>) with <code>type</code>, <code>title</code>, \
         <code>status</code>, <code>detail</code> and, when one field is at fault, \
         <code>field</code>. <a href=\"/problems\">All problem types</a>.</p>",
        title = html_text(kind.title),
        uri = kind.uri(),
        status = kind.status,
        when = html_text(kind.when),
        fix = html_text(kind.fix),
    );
    html(kind.title, &body)
}

/// One human page per problem type.
#[utoipa::path(
    get, path = "/problems/{type}", operation_id = "problem_type", tag = "problems",
    params(("type" = ProblemTypeName, Path, description = "The problem type: the last segment of a problem document's `type`")),
    responses(
        (status = 200, description = "A short page explaining the problem type", body = String, content_type = "text/html"),
        (status = 404, description = "No such problem type", body = Problem, content_type = "application/problem+json"),
    )
)]
async fn problem_page(ApiPath(slug): ApiPath<String>) -> Result<Response, ApiError> {
    ALL.iter()
        .find(|k| k.slug == slug)
        .map(|k| page(k))
        .ok_or_else(|| ApiError::NotFound {
            detail: format!(
                "type: no problem type {:?}; see /problems",
                slug.chars().take(80).collect::<String>()
            ),
        })
}

/// The list of problem types.
#[utoipa::path(
    get, path = "/problems", operation_id = "problem_types", tag = "problems",
    responses(
        (status = 200, description = "Every problem type the service answers with", body = String, content_type = "text/html"),
    )
)]
async fn problem_index() -> Response {
    let mut body = String::from(
        "<h1>Problem types</h1>\n<p>Errors are RFC 9457 problem documents whose <code>type</code> is one of:</p>\n<ul>\n",
    );
    for k in ALL {
        body.push_str(&format!(
            "<li><a href=\"{uri}\"><code>{uri}</code></a> ({status}): {title}</li>\n",
            uri = k.uri(),
            status = k.status,
            title = html_text(k.title),
        ));
    }
    body.push_str("</ul>");
    html("Problem types", &body)
}

pub fn router() -> OpenApiRouter<AppState> {
    OpenApiRouter::new()
        .routes(routes!(problem_page))
        .routes(routes!(problem_index))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_name_has_a_type_and_statuses_match() {
        let names = serde_json::to_value([
            ProblemTypeName::BadRequest,
            ProblemTypeName::InvalidValue,
            ProblemTypeName::BudgetExceeded,
            ProblemTypeName::UnsupportedMediaType,
            ProblemTypeName::PayloadTooLarge,
            ProblemTypeName::NotFound,
            ProblemTypeName::MethodNotAllowed,
            ProblemTypeName::NotAcceptable,
            ProblemTypeName::NotAvailable,
            ProblemTypeName::Unavailable,
            ProblemTypeName::InsufficientStorage,
            ProblemTypeName::Internal,
            ProblemTypeName::RequestTimeout,
            ProblemTypeName::Unauthorized,
            ProblemTypeName::InsufficientScope,
            ProblemTypeName::ApiKeysRequired,
            ProblemTypeName::QuotaExceeded,
        ])
        .unwrap();
        let slugs: Vec<&str> = ALL.iter().map(|k| k.slug).collect();
        assert_eq!(names, serde_json::json!(slugs));
        let cases = [
            ApiError::BadRequest {
                field: None,
                detail: String::new(),
            },
            ApiError::invalid("f", ""),
            ApiError::BudgetExceeded {
                field: "f".into(),
                detail: String::new(),
            },
            ApiError::UnsupportedMediaType {
                detail: String::new(),
            },
            ApiError::NotFound {
                detail: String::new(),
            },
            ApiError::MethodNotAllowed,
            ApiError::NotAcceptable {
                detail: String::new(),
            },
            ApiError::Conflict {
                field: String::new(),
                detail: String::new(),
            },
            ApiError::Unavailable {
                detail: String::new(),
                retry_after_secs: 1,
            },
            ApiError::InsufficientStorage {
                detail: String::new(),
                retry_after_secs: 1,
            },
            ApiError::Internal(String::new()),
            ApiError::Unauthorized {
                detail: String::new(),
                challenge: String::new(),
            },
            ApiError::InsufficientScope {
                detail: String::new(),
                challenge: String::new(),
            },
            ApiError::ApiKeysRequired {
                detail: String::new(),
            },
            ApiError::QuotaExceeded {
                detail: String::new(),
                quota: String::new(),
                limit: 1,
                retry_after_secs: 1,
            },
        ];
        // Every type but the edge's own (413 and 408, answered by `crate::http::body_read`).
        let api_kinds = ALL
            .iter()
            .filter(|k| !["payload-too-large", "request-timeout"].contains(&k.slug));
        assert_eq!(cases.len(), api_kinds.clone().count());
        for (e, k) in cases.iter().zip(api_kinds) {
            assert_eq!(e.kind().slug, k.slug);
            assert_eq!(e.status().as_u16(), k.status, "{}", k.slug);
            assert_eq!(e.problem().r#type, format!("/problems/{}", k.slug));
        }
    }

    #[test]
    fn pages_escape_their_text() {
        assert_eq!(html_text("a < b & `c`"), "a &lt; b &amp; <code>c</code>");
    }
}
