//! What ends serving: a [`Shutdown`] — when the drain begins, and what cuts its grace period
//! short — from the process's signals ([`Shutdown::signals`]) or from any future (tests,
//! embedding). The drain itself is the accept loop's: [`crate::http::server::serve`].

use std::future::Future;
use std::pin::Pin;

type Event = Pin<Box<dyn Future<Output = ()> + Send>>;

/// When serving ends. The drain begins when `begin` resolves (`/readyz` answers 503, the
/// grace period starts); `skip_grace`, polled only after that, ends the grace period early
/// when it resolves.
pub struct Shutdown {
    pub(crate) begin: Event,
    pub(crate) skip_grace: Event,
}

impl Shutdown {
    /// The drain begins when `begin` resolves; the grace period is cut short when
    /// `skip_grace` resolves after that.
    pub fn new(
        begin: impl Future<Output = ()> + Send + 'static,
        skip_grace: impl Future<Output = ()> + Send + 'static,
    ) -> Self {
        Shutdown {
            begin: Box::pin(begin),
            skip_grace: Box::pin(skip_grace),
        }
    }

    /// The process's signals: the first SIGTERM or SIGINT (Ctrl-C) begins the drain, a second
    /// one (either) skips the rest of the grace period. The handlers are installed now, so a
    /// signal that comes before the server polls this is not lost.
    pub fn signals() -> Self {
        let mut signals = Signals::install();
        let (tx, rx) = tokio::sync::oneshot::channel::<Signals>();
        Shutdown::new(
            async move {
                let name = signals.next().await;
                tracing::info!(signal = name, "shutdown signal received: draining");
                // The same handlers wait for the second signal.
                let _ = tx.send(signals);
            },
            async move {
                match rx.await {
                    Ok(mut signals) => {
                        let name = signals.next().await;
                        tracing::info!(
                            signal = name,
                            "second shutdown signal: the rest of the grace period is skipped"
                        );
                    }
                    Err(_) => std::future::pending::<()>().await,
                }
            },
        )
    }
}

/// Any future begins the drain; the grace period then runs in full.
impl<F: Future<Output = ()> + Send + 'static> From<F> for Shutdown {
    fn from(begin: F) -> Self {
        Shutdown::new(begin, std::future::pending())
    }
}

/// SIGTERM and SIGINT, received as often as they come.
struct Signals {
    #[cfg(unix)]
    term: Option<tokio::signal::unix::Signal>,
    #[cfg(unix)]
    int: Option<tokio::signal::unix::Signal>,
}

impl Signals {
    fn install() -> Self {
        #[cfg(unix)]
        {
            use tokio::signal::unix::{signal, SignalKind};
            let install = |kind| match signal(kind) {
                Ok(s) => Some(s),
                Err(e) => {
                    tracing::warn!(error = %e, "cannot install a signal handler");
                    None
                }
            };
            Signals {
                term: install(SignalKind::terminate()),
                int: install(SignalKind::interrupt()),
            }
        }
        #[cfg(not(unix))]
        Signals {}
    }

    /// The next signal's name.
    async fn next(&mut self) -> &'static str {
        #[cfg(unix)]
        {
            async fn recv(s: &mut Option<tokio::signal::unix::Signal>) {
                if let Some(s) = s {
                    if s.recv().await.is_some() {
                        return;
                    }
                }
                // No handler, or it is gone (never, while the runtime runs).
                std::future::pending().await
            }
            tokio::select! {
                () = recv(&mut self.term) => "SIGTERM",
                () = recv(&mut self.int) => "SIGINT",
            }
        }
        #[cfg(not(unix))]
        {
            let _ = tokio::signal::ctrl_c().await;
            "Ctrl-C"
        }
    }
}
