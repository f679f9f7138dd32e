//! Overload errors as responses: the load-shedding, concurrency-limit and timeout layers
//! (tower's) fail a request with an error; this layer, just outside them, turns the error into
//! a `503` problem, so the stack's error type is `Infallible` as axum requires.
//!
//! It does what `axum::error_handling::HandleErrorLayer` does, without boxing a future per
//! request: the inner future is polled in place and only its error is mapped.

use std::convert::Infallible;
use std::future::Future;
use std::pin::Pin;
use std::task::{Context, Poll};
use std::time::Duration;

use axum::extract::Request;
use axum::response::{IntoResponse, Response};
use tower::util::Oneshot;
use tower::{BoxError, Layer, Service, ServiceExt};

use crate::api::error::ApiError;

/// See the module docs; `timeout` is the request timeout, named in its problem.
#[derive(Debug, Clone, Copy)]
pub struct OverloadResponsesLayer {
    pub timeout: Duration,
}

impl<S> Layer<S> for OverloadResponsesLayer {
    type Service = OverloadResponses<S>;
    fn layer(&self, inner: S) -> Self::Service {
        OverloadResponses {
            inner,
            timeout: self.timeout,
        }
    }
}

/// The service of [`OverloadResponsesLayer`].
#[derive(Debug, Clone)]
pub struct OverloadResponses<S> {
    inner: S,
    timeout: Duration,
}

impl<S> Service<Request> for OverloadResponses<S>
where
    S: Service<Request, Response = Response, Error = BoxError> + Clone,
{
    type Response = Response;
    type Error = Infallible;
    type Future = OverloadFuture<S>;

    /// Always ready: the inner readiness (load shedding, a concurrency permit) is asked for
    /// when the request is called, in the returned future.
    fn poll_ready(&mut self, _cx: &mut Context<'_>) -> Poll<Result<(), Infallible>> {
        Poll::Ready(Ok(()))
    }

    fn call(&mut self, req: Request) -> Self::Future {
        OverloadFuture {
            inner: self.inner.clone().oneshot(req),
            timeout: self.timeout,
        }
    }
}

pin_project_lite::pin_project! {
    /// The inner service's future, with its error turned into a response.
    pub struct OverloadFuture<S: Service<Request>> {
        #[pin]
        inner: Oneshot<S, Request>,
        timeout: Duration,
    }
}

impl<S> Future for OverloadFuture<S>
where
    S: Service<Request, Response = Response, Error = BoxError>,
{
    type Output = Result<Response, Infallible>;

    fn poll(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<Self::Output> {
        let this = self.project();
        let result = std::task::ready!(this.inner.poll(cx));
        Poll::Ready(Ok(
            result.unwrap_or_else(|err| overload_error(err, *this.timeout))
        ))
    }
}

/// The problem for an overload error.
fn overload_error(err: BoxError, timeout: Duration) -> Response {
    if err.is::<tower::timeout::error::Elapsed>() {
        ApiError::Unavailable {
            detail: format!(
                "the request took longer than {} ms (GRUNDY_REQUEST_TIMEOUT_MS)",
                timeout.as_millis()
            ),
            retry_after_secs: 1,
        }
    } else if err.is::<tower::load_shed::error::Overloaded>() {
        ApiError::Unavailable {
            detail: "the server is at capacity (GRUNDY_MAX_CONCURRENCY); retry shortly".into(),
            retry_after_secs: 1,
        }
    } else {
        ApiError::Internal(format!("middleware error: {err}"))
    }
    .into_response()
}
