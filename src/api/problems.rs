//! The problem types of RFC 9457 error documents, and `/problems/*`: one short human page per
//! type, served by the service itself, so that a problem's `type` (`/problems/invalid-value`,
//! a URI reference resolved against the service's address) always leads somewhere.

use axum::http::header;
use axum::response::{IntoResponse, Response};
use serde::Serialize;
use utoipa::ToSchema;
use utoipa_axum::{router::OpenApiRouter, routes};

use super::error::{ApiError, Problem};
use super::params::ApiPath;
use crate::state::AppState;

/// One problem type: its slug (the last segment of its URI), title, status and explanation.
#[derive(Debug)]
pub struct ProblemType {
    pub slug: &'static str,
    pub title: &'static str,
    pub status: u16,
    /// When it happens.
    pub when: &'static str,
    /// What a client can do about it.
    pub fix: &'static str,
}

impl ProblemType {
    /// The `type` member of a problem document of this type.
    pub fn uri(&self) -> String {
        format!("/problems/{}", self.slug)
    }
}

pub const BAD_REQUEST: ProblemType = ProblemType {
    slug: "bad-request",
    title: "Malformed request",
    status: 400,
    when:
        "The body is not JSON, is empty, is not a JSON object, or a field has the wrong JSON type \
           (a string where a number belongs); or a path or query parameter is not valid UTF-8.",
    fix: "Send a JSON object as the request body with the types the OpenAPI document gives. \
          `field` names the offending member when there is one.",
};

pub const INVALID_VALUE: ProblemType = ProblemType {
    slug: "invalid-value",
    title: "Invalid value",
    status: 422,
    when: "The request is well-formed but a value is not acceptable: out of range, a duplicate \
           square, an unknown or unparsable game code or ordinal, too many entries, a number that \
           is not exactly an integer, an unknown field, a bad cursor. Query and path parameters \
           fail the same way.",
    fix: "`field` names the member at fault as a JSON path (`position[3]`) or the parameter name, \
          and `detail` says what is wrong with its value. Most of these rules are stated in the \
          OpenAPI schema (minimum, maximum, pattern, uniqueItems, maxItems).",
};

pub const BUDGET_EXCEEDED: ProblemType = ProblemType {
    slug: "budget-exceeded",
    title: "Compute budget exceeded",
    status: 422,
    when: "The request is valid, but answering it needs more work than the server's configured \
           budget allows, something no schema can state in advance: the memoised searches of \
           Antonim and Antimatter (GRUNDY_SEARCH_MAX_STEPS, GRUNDY_SEARCH_MAX_ENTRIES), the \
           Max-Welter value (the same budget), and the time limit of synchronous octal requests.",
    fix: "Ask for a smaller position; for octal games submit a durable job (POST /v1/octal/jobs), \
          which has no such limit. An operator can raise the budget with the variables named \
          in `detail`.",
};

pub const UNSUPPORTED_MEDIA_TYPE: ProblemType = ProblemType {
    slug: "unsupported-media-type",
    title: "Unsupported media type",
    status: 415,
    when: "A request body was sent without a Content-Type of `application/json` (or \
           `application/*+json`), for example as `text/plain` or form data.",
    fix: "Send the header `Content-Type: application/json`.",
};

pub const PAYLOAD_TOO_LARGE: ProblemType = ProblemType {
    slug: "payload-too-large",
    title: "Request body too large",
    status: 413,
    when: "The body is larger than the configured limit (GRUNDY_MAX_BODY_BYTES, default 1 MiB).",
    fix: "Send a smaller request; split large batches.",
};

pub const NOT_FOUND: ProblemType = ProblemType {
    slug: "not-found",
    title: "Not found",
    status: 404,
    when: "No route matches the path, or the resource (a job, a problem type) does not exist.",
    fix: "Check the path against the OpenAPI document at /openapi.json.",
};

pub const METHOD_NOT_ALLOWED: ProblemType = ProblemType {
    slug: "method-not-allowed",
    title: "Method not allowed",
    status: 405,
    when: "The path exists but not with this HTTP method.",
    fix: "Use the method the OpenAPI document gives for the path.",
};

pub const UNAVAILABLE: ProblemType = ProblemType {
    slug: "unavailable",
    title: "Service unavailable",
    status: 503,
    when: "The server is at capacity (GRUNDY_MAX_CONCURRENCY), the request ran past the request \
           timeout (GRUNDY_REQUEST_TIMEOUT_MS), or the job store is unavailable.",
    fix: "Retry after the number of seconds in the Retry-After header.",
};

pub const INSUFFICIENT_STORAGE: ProblemType = ProblemType {
    slug: "insufficient-storage",
    title: "Insufficient storage",
    status: 507,
    when: "The job store has no space left for this write (a full disk or database quota).",
    fix:
        "Retry after the number of seconds in the Retry-After header; an operator must free space.",
};

pub const INTERNAL: ProblemType = ProblemType {
    slug: "internal",
    title: "Internal server error",
    status: 500,
    when: "A bug in the server; never caused by the request's content.",
    fix: "Report it with the response's x-request-id header.",
};

/// Every problem type, in the order the index page lists them.
pub const ALL: [&ProblemType; 10] = [
    &BAD_REQUEST,
    &INVALID_VALUE,
    &BUDGET_EXCEEDED,
    &UNSUPPORTED_MEDIA_TYPE,
    &PAYLOAD_TOO_LARGE,
    &NOT_FOUND,
    &METHOD_NOT_ALLOWED,
    &UNAVAILABLE,
    &INSUFFICIENT_STORAGE,
    &INTERNAL,
];

/// The name of a problem type (the last segment of its URI).
#[derive(Debug, Serialize, ToSchema)]
#[serde(rename_all = "kebab-case")]
pub enum ProblemTypeName {
    BadRequest,
    InvalidValue,
    BudgetExceeded,
    UnsupportedMediaType,
    PayloadTooLarge,
    NotFound,
    MethodNotAllowed,
    Unavailable,
    InsufficientStorage,
    Internal,
}

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
async fn problem_type(ApiPath(slug): ApiPath<String>) -> Result<Response, ApiError> {
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
async fn problem_types() -> Response {
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
        .routes(routes!(problem_type))
        .routes(routes!(problem_types))
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
            ProblemTypeName::Unavailable,
            ProblemTypeName::InsufficientStorage,
            ProblemTypeName::Internal,
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
            ApiError::PayloadTooLarge { limit: 1 },
            ApiError::NotFound {
                detail: String::new(),
            },
            ApiError::MethodNotAllowed,
            ApiError::Unavailable {
                detail: String::new(),
                retry_after_secs: 1,
            },
            ApiError::InsufficientStorage {
                detail: String::new(),
                retry_after_secs: 1,
            },
            ApiError::Internal(String::new()),
        ];
        for (e, k) in cases.iter().zip(ALL) {
            assert_eq!(e.problem_type().slug, k.slug);
            assert_eq!(e.status().as_u16(), k.status, "{}", k.slug);
            assert_eq!(e.problem().r#type, format!("/problems/{}", k.slug));
        }
    }

    #[test]
    fn pages_escape_their_text() {
        assert_eq!(html_text("a < b & `c`"), "a &lt; b &amp; <code>c</code>");
    }
}
