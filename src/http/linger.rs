//! The lingering close of an HTTP/1 connection whose request body was refused mid-upload.
//!
//! A body refused before it has all arrived (408 too slow, 413 too large) is answered at once,
//! while the client may still be writing the rest of it. Closing the socket then, with the
//! client's bytes unread, makes the kernel send a reset: the client's write fails (`EPIPE`,
//! `ECONNRESET`) and a client that writes its whole request before reading — most of them —
//! never sees the answer. So, as nginx's `lingering_close` does, such a connection is closed in
//! two steps: after the response, the write side is shut down (the client reads the answer and
//! then the end of the stream), and the server keeps reading and discarding what the client
//! still sends until the client closes its side, or for at most [`LINGER_TIME`] (and
//! [`LINGER_IDLE`] without a byte), or [`LINGER_BYTES`] — whichever comes first — and only then
//! closes the socket.
//!
//! The body layer ([`crate::http::body_read`]) marks such an answer with [`UnreadBody`]; the
//! connection's service ([`crate::http::server`]) sees the mark on the response and sets its
//! connection's [`LingerFlag`]; the connection's socket, a [`Lingering`] stream, lingers when
//! hyper shuts it down after that response. Every other connection closes as before.

use std::future::Future;
use std::io;
use std::pin::Pin;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;
use std::task::{Context, Poll};
use std::time::Duration;

use tokio::io::{AsyncRead, AsyncWrite, ReadBuf};

/// The longest a refused connection lingers in all.
pub const LINGER_TIME: Duration = Duration::from_secs(5);
/// The longest it waits for the client's next byte.
pub const LINGER_IDLE: Duration = Duration::from_secs(2);
/// The most it reads and discards (twice the default body limit).
pub const LINGER_BYTES: u64 = 64 * 1024 * 1024;

/// The mark of a response that refused a request body before it had all been read.
#[derive(Debug, Clone, Copy)]
pub struct UnreadBody;

/// Set once a response marked [`UnreadBody`] is sent on the connection.
#[derive(Debug, Default)]
pub struct LingerFlag(AtomicBool);

impl LingerFlag {
    pub fn set(&self) {
        self.0.store(true, Ordering::Relaxed);
    }

    fn is_set(&self) -> bool {
        self.0.load(Ordering::Relaxed)
    }
}

/// A connection's socket that lingers at shutdown once its [`LingerFlag`] is set.
pub struct Lingering<S> {
    inner: S,
    flag: Arc<LingerFlag>,
    linger: Option<Linger>,
}

/// The state of a lingering close under way.
struct Linger {
    /// The write side has been shut down (the answer and the end of the stream sent).
    shut: bool,
    read: u64,
    /// The end of the lingering in all, and of the wait for the next byte.
    until: tokio::time::Instant,
    idle: Pin<Box<tokio::time::Sleep>>,
}

impl<S> Lingering<S> {
    pub fn new(inner: S, flag: Arc<LingerFlag>) -> Self {
        Lingering {
            inner,
            flag,
            linger: None,
        }
    }
}

impl<S: AsyncRead + AsyncWrite + Unpin> Lingering<S> {
    /// Shuts the write side down, then reads and discards until the client closes, an error,
    /// or a bound (see the module docs).
    fn poll_linger(&mut self, cx: &mut Context<'_>) -> Poll<io::Result<()>> {
        let linger = self.linger.get_or_insert_with(|| {
            let now = tokio::time::Instant::now();
            Linger {
                shut: false,
                read: 0,
                until: now + LINGER_TIME,
                idle: Box::pin(tokio::time::sleep_until(
                    (now + LINGER_IDLE).min(now + LINGER_TIME),
                )),
            }
        });
        if !linger.shut {
            std::task::ready!(Pin::new(&mut self.inner).poll_shutdown(cx))?;
            linger.shut = true;
            metrics::counter!("grundy_lingering_closes_total").increment(1);
        }
        let mut scratch = [0u8; 16 * 1024];
        loop {
            if linger.read >= LINGER_BYTES {
                return Poll::Ready(Ok(()));
            }
            let mut buf = ReadBuf::new(&mut scratch);
            match Pin::new(&mut self.inner).poll_read(cx, &mut buf) {
                // The client closed its side (or the connection broke): done.
                Poll::Ready(Ok(())) if buf.filled().is_empty() => return Poll::Ready(Ok(())),
                Poll::Ready(Err(_)) => return Poll::Ready(Ok(())),
                Poll::Ready(Ok(())) => {
                    linger.read += buf.filled().len() as u64;
                    let next = (tokio::time::Instant::now() + LINGER_IDLE).min(linger.until);
                    linger.idle.as_mut().reset(next);
                }
                Poll::Pending => {
                    return match linger.idle.as_mut().poll(cx) {
                        Poll::Ready(()) => Poll::Ready(Ok(())),
                        Poll::Pending => Poll::Pending,
                    };
                }
            }
        }
    }
}

impl<S: AsyncRead + Unpin> AsyncRead for Lingering<S> {
    #[inline]
    fn poll_read(
        mut self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        buf: &mut ReadBuf<'_>,
    ) -> Poll<io::Result<()>> {
        Pin::new(&mut self.inner).poll_read(cx, buf)
    }
}

impl<S: AsyncRead + AsyncWrite + Unpin> AsyncWrite for Lingering<S> {
    #[inline]
    fn poll_write(
        mut self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        buf: &[u8],
    ) -> Poll<io::Result<usize>> {
        Pin::new(&mut self.inner).poll_write(cx, buf)
    }

    #[inline]
    fn poll_write_vectored(
        mut self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        bufs: &[io::IoSlice<'_>],
    ) -> Poll<io::Result<usize>> {
        Pin::new(&mut self.inner).poll_write_vectored(cx, bufs)
    }

    #[inline]
    fn is_write_vectored(&self) -> bool {
        self.inner.is_write_vectored()
    }

    #[inline]
    fn poll_flush(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<io::Result<()>> {
        Pin::new(&mut self.inner).poll_flush(cx)
    }

    fn poll_shutdown(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<io::Result<()>> {
        let this = self.get_mut();
        if this.linger.is_none() && !this.flag.is_set() {
            return Pin::new(&mut this.inner).poll_shutdown(cx);
        }
        this.poll_linger(cx)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use tokio::io::{AsyncReadExt, AsyncWriteExt};

    /// A flagged connection: the peer reads the answer and the end of the stream while it is
    /// still writing, and its writes succeed; the server closes once the peer closes.
    #[tokio::test]
    async fn a_flagged_connection_reads_until_the_peer_closes() {
        let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
        let addr = listener.local_addr().unwrap();
        let server = tokio::spawn(async move {
            let (s, _) = listener.accept().await.unwrap();
            let flag = Arc::new(LingerFlag::default());
            let mut s = Lingering::new(s, flag.clone());
            let mut head = [0u8; 4];
            s.read_exact(&mut head).await.unwrap();
            s.write_all(b"answer").await.unwrap();
            flag.set();
            let started = std::time::Instant::now();
            s.shutdown().await.unwrap();
            started.elapsed()
        });
        let mut c = tokio::net::TcpStream::connect(addr).await.unwrap();
        c.write_all(b"head").await.unwrap();
        // Keep writing a megabyte after the answer: none of it is refused.
        let chunk = vec![7u8; 64 * 1024];
        for _ in 0..16 {
            c.write_all(&chunk).await.unwrap();
        }
        let mut answer = Vec::new();
        c.read_to_end(&mut answer).await.unwrap();
        assert_eq!(answer, b"answer");
        drop(c);
        let lingered = server.await.unwrap();
        assert!(lingered < LINGER_TIME, "lingered {lingered:?}");
    }

    /// A peer that neither sends nor closes is let go after the idle bound.
    #[tokio::test]
    async fn an_idle_peer_is_let_go() {
        let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
        let addr = listener.local_addr().unwrap();
        let _c = tokio::net::TcpStream::connect(addr).await.unwrap();
        let (s, _) = listener.accept().await.unwrap();
        let flag = Arc::new(LingerFlag::default());
        flag.set();
        let mut s = Lingering::new(s, flag);
        let started = std::time::Instant::now();
        s.shutdown().await.unwrap();
        let took = started.elapsed();
        assert!(
            took >= LINGER_IDLE - Duration::from_millis(50) && took < LINGER_TIME,
            "let go after {took:?}"
        );
    }
}
