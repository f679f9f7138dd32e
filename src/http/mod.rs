//! The HTTP edge: everything between a TCP connection and the router — the accept loop and its
//! limits, deadlines, body reading, overload protection, request ids and metrics, the headers
//! every response carries — and the end of serving (signals). It answers its own refusals as
//! problem documents through [`crate::problem`]; it knows no handler.

pub mod body_read; // bodies read into memory before a compute slot is taken (size, deadline, rate)
pub mod header_deadline; // the header read deadline on a per-connection timer
pub mod headers; // security headers on every response; the prepared headers of a JSON answer
pub mod healthcheck; // `grundy healthcheck`: a one-request client for container HEALTHCHECKs
pub mod linger; // the lingering close of a connection whose request body was refused mid-upload
pub mod metrics; // request ids, per-route request metrics, the log line of a failed request
pub mod overload; // the concurrency limit with load shedding; the request timeout as a 503
pub mod server; // the accept loop: connection caps, HTTP/1.1 and HTTP/2 with hyper, the drain at shutdown
pub mod shutdown; // what ends serving: the signals (a second one skips the grace period)
