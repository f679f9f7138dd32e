//! The catalogue of problem types: one constant per `type`, with its title, status, when it
//! happens and what a client can do (the text of its page at `/problems/{slug}`).

use serde::Serialize;
use utoipa::ToSchema;

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
           Max-Welter value (the same budget), the time limit of synchronous octal requests, and \
           misère play of octal games (the misère quotient within that time limit and the \
           engine's budget, then the exact search within the search budget).",
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

pub const NOT_ACCEPTABLE: ProblemType = ProblemType {
    slug: "not-acceptable",
    title: "Not acceptable",
    status: 406,
    when: "The Accept header asks for a format this operation cannot produce (the values download \
           offers application/json, text/csv and application/octet-stream).",
    fix: "Ask for one of the formats the operation lists, or send no Accept header for JSON.",
};

pub const NOT_AVAILABLE: ProblemType = ProblemType {
    slug: "not-available",
    title: "Not available yet",
    status: 409,
    when: "The values asked for are neither computed (in memory or in the store) nor covered by \
           a proved periodicity. The detail says how far the values go.",
    fix: "Submit a job (POST /v1/octal/jobs) with max_n at least start + count, then ask again.",
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
    when: "The job store has no space left for this write (the disk or the database is full). \
           Compute endpoints keep answering; /readyz names the fault.",
    fix: "Retry after the number of seconds in the Retry-After header, once the operator has \
          freed space; nothing already accepted is lost.",
};

pub const REQUEST_TIMEOUT: ProblemType = ProblemType {
    slug: "request-timeout",
    title: "Request timeout",
    status: 408,
    when: "The request body stalled: no byte of it arrived within \
           GRUNDY_BODY_FIRST_BYTE_TIMEOUT_MS of the request head, or, from its first byte, it \
           arrived slower than GRUNDY_BODY_MIN_RATE bytes per second on average after a grace \
           period (GRUNDY_BODY_MIN_RATE_GRACE_MS), or took longer than \
           GRUNDY_BODY_READ_TIMEOUT_MS. Only the time the server waited for the client's bytes \
           counts.",
    fix: "Send the body right after the head, and all of it; the connection is closed after \
          this answer.",
};

pub const INTERNAL: ProblemType = ProblemType {
    slug: "internal",
    title: "Internal server error",
    status: 500,
    when: "A bug in the server; never caused by the request's content.",
    fix: "Report it with the response's x-request-id header.",
};

pub const UNAUTHORIZED: ProblemType = ProblemType {
    slug: "unauthorized",
    title: "API key missing or unknown",
    status: 401,
    when: "The server has API keys (GRUNDY_API_KEYS_FILE) and a job operation came without the \
           header `Authorization: Bearer <key>`, with another scheme, or with a key that is not \
           (or no longer) in the server's key file. The answer carries `WWW-Authenticate: Bearer`. \
           Compute endpoints never need a key.",
    fix: "Send `Authorization: Bearer <key>` with a key from the server's operator, who creates \
          one with `grundy keys new --name NAME --scope jobs` (it prints the key once, and the \
          line for the key file, which holds only the key's hash).",
};

pub const INSUFFICIENT_SCOPE: ProblemType = ProblemType {
    slug: "insufficient-scope",
    title: "API key lacks the scope",
    status: 403,
    when: "The key is known but its scopes do not allow the operation: submitting, cancelling or \
           deleting a job needs `jobs` (or `admin`); listing, reading and following jobs need \
           `jobs`, `jobs:read` or `admin`. A key with no scope (`-`) is suspended. The \
           `WWW-Authenticate` header names the scope (`error=\"insufficient_scope\"`).",
    fix: "Ask the operator for a key with the scope named in `detail`.",
};

pub const API_KEYS_REQUIRED: ProblemType = ProblemType {
    slug: "api-keys-required",
    title: "Job writes need API keys on this server",
    status: 403,
    when: "The server listens on a non-loopback address without API keys (no \
           GRUNDY_API_KEYS_FILE) and the operator did not set GRUNDY_AUTH=off, so nobody may \
           submit, cancel or delete jobs: anyone who can reach it could otherwise use or stop \
           everyone's work. Jobs can still be listed and read; compute endpoints are open.",
    fix: "The operator configures keys (GRUNDY_API_KEYS_FILE, lines from `grundy keys new`) and \
          hands them out, or sets GRUNDY_AUTH=off to let anyone use the jobs.",
};

pub const QUOTA_EXCEEDED: ProblemType = ProblemType {
    slug: "quota-exceeded",
    title: "Quota exceeded",
    status: 429,
    when: "A job submission would take its key past a quota: `active_jobs`, the queued and \
           running jobs of one key (GRUNDY_QUOTA_ACTIVE_JOBS, default 100), or `heaps_per_day`, \
           the heaps (`max_n`) one key may request in a UTC day (GRUNDY_QUOTA_HEAPS_PER_DAY). \
           The problem's `quota` and `limit` members name the quota and its limit; nothing was \
           submitted.",
    fix: "Retry after the number of seconds in the Retry-After header (a job of yours may finish \
          sooner; the daily count starts again at midnight UTC), or cancel a job of your own. An \
          operator can raise a key's quotas in the key file (`active_jobs=N heaps_per_day=N`).",
};

/// Every problem type, in the order the index page lists them.
pub const ALL: [&ProblemType; 17] = [
    &BAD_REQUEST,
    &INVALID_VALUE,
    &BUDGET_EXCEEDED,
    &UNSUPPORTED_MEDIA_TYPE,
    &PAYLOAD_TOO_LARGE,
    &NOT_FOUND,
    &METHOD_NOT_ALLOWED,
    &NOT_ACCEPTABLE,
    &NOT_AVAILABLE,
    &UNAVAILABLE,
    &INSUFFICIENT_STORAGE,
    &INTERNAL,
    &REQUEST_TIMEOUT,
    &UNAUTHORIZED,
    &INSUFFICIENT_SCOPE,
    &API_KEYS_REQUIRED,
    &QUOTA_EXCEEDED,
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
    NotAcceptable,
    NotAvailable,
    Unavailable,
    InsufficientStorage,
    Internal,
    RequestTimeout,
    Unauthorized,
    InsufficientScope,
    ApiKeysRequired,
    QuotaExceeded,
}
