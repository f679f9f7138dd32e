//! The lingering close of an HTTP/1 connection whose request body was refused mid-upload.
//!
//! A body refused before it has all arrived (408 too slow, 413 too large) is answered at once,
//! while the client may still be writing the rest of it. Closing the socket then, with the
//! client's bytes unread, makes the kernel send a reset: the client's write fails (`EPIPE`,
//! `ECONNRESET`) and a client that writes its whole request before reading — most of them —
//! never sees the answer. So, as nginx's `lingering_close` does, such a connection is closed in
//! two steps: after the response, the write side is shut down (the client reads the answer and
//! then the end of the stream), and the server keeps reading and discarding what the client
//! still sends, and only then closes the socket:
//!
//! * when the client declared its body (`Content-Length`), until the rest of that body is in
//!   (then nothing of the client's is left unread and the close is clean), the client closes,
//!   or a bound: [`OWED_TIME`] in all (30 s, nginx's `lingering_time`), [`OWED_IDLE`] without
//!   a byte (10 s: a client on a loaded machine may not write for seconds), [`LINGER_BYTES`];
//! * otherwise (a chunked body), until the client closes, or for at most [`LINGER_TIME`]
//!   (and [`LINGER_IDLE`] without a byte), or [`LINGER_BYTES`].
//!
//! The body layer ([`crate::http::body_read`]) marks such an answer with [`UnreadBody`] (with
//! the declared body's bytes not read yet); the connection's service ([`crate::http::server`])
//! sees the mark on the response and sets its connection's [`LingerFlag`]; the connection's
//! socket, a [`Lingering`] stream, lingers when hyper shuts it down after that response. Every
//! other connection closes as before. A lingering connection still counts against the
//! connection caps, which bound what a client can hold this way.

use std::future::Future;
use std::io;
use std::pin::Pin;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::Arc;
use std::task::{Context, Poll};
use std::time::Duration;

use tokio::io::{AsyncRead, AsyncWrite, ReadBuf};

/// The longest a refused connection lingers in all when its body's length is unknown.
pub const LINGER_TIME: Duration = Duration::from_secs(5);
/// … and the longest it waits for the client's next byte then.
pub const LINGER_IDLE: Duration = Duration::from_secs(2);
/// The longest a refused connection lingers in all for the rest of a declared body.
pub const OWED_TIME: Duration = Duration::from_secs(30);
/// … and the longest it waits for the next byte of it.
pub const OWED_IDLE: Duration = Duration::from_secs(10);
/// The most it reads and discards (twice the default body limit).
pub const LINGER_BYTES: u64 = 64 * 1024 * 1024;

/// The mark of a response that refused a request body before it had all been read.
#[derive(Debug, Clone, Copy)]
pub struct UnreadBody {
    /// The bytes of the declared body (`Content-Length`) not read yet; `None`: not declared.
    pub owed: Option<u64>,
}

/// Set once a response marked [`UnreadBody`] is sent on the connection, with its `owed`.
#[derive(Debug)]
pub struct LingerFlag {
    set: AtomicBool,
    /// `u64::MAX`: not declared.
    owed: AtomicU64,
}

impl Default for LingerFlag {
    fn default() -> Self {
        LingerFlag {
            set: AtomicBool::new(false),
            owed: AtomicU64::new(u64::MAX),
        }
    }
}

impl LingerFlag {
    pub fn set(&self, unread: UnreadBody) {
        self.owed
            .store(unread.owed.unwrap_or(u64::MAX), Ordering::Relaxed);
        self.set.store(true, Ordering::Relaxed);
    }

    fn is_set(&self) -> bool {
        self.set.load(Ordering::Relaxed)
    }

    fn owed(&self) -> Option<u64> {
        Some(self.owed.load(Ordering::Relaxed)).filter(|&n| n != u64::MAX)
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
    /// Done once this much is read: the rest of the declared body, or [`LINGER_BYTES`].
    enough: u64,
    /// The longest wait for the next byte.
    idle_bound: Duration,
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
        let owed = self.flag.owed();
        let linger = self.linger.get_or_insert_with(|| {
            let now = tokio::time::Instant::now();
            let (enough, time, idle_bound) = match owed {
                Some(owed) => (owed.min(LINGER_BYTES), OWED_TIME, OWED_IDLE),
                None => (LINGER_BYTES, LINGER_TIME, LINGER_IDLE),
            };
            Linger {
                shut: false,
                read: 0,
                enough,
                idle_bound,
                until: now + time,
                idle: Box::pin(tokio::time::sleep_until((now + idle_bound).min(now + time))),
            }
        });
        if !linger.shut {
            std::task::ready!(Pin::new(&mut self.inner).poll_shutdown(cx))?;
            linger.shut = true;
            metrics::counter!("grundy_lingering_closes_total").increment(1);
        }
        let mut scratch = [0u8; 16 * 1024];
        loop {
            if linger.read >= linger.enough {
                return Poll::Ready(Ok(()));
            }
            // Never past the declared body: what follows it is not the client's upload.
            let room = (linger.enough - linger.read).min(scratch.len() as u64) as usize;
            let mut buf = ReadBuf::new(&mut scratch[..room]);
            match Pin::new(&mut self.inner).poll_read(cx, &mut buf) {
                // The client closed its side (or the connection broke): done.
                Poll::Ready(Ok(())) if buf.filled().is_empty() => return Poll::Ready(Ok(())),
                Poll::Ready(Err(_)) => return Poll::Ready(Ok(())),
                Poll::Ready(Ok(())) => {
                    linger.read += buf.filled().len() as u64;
                    let next = (tokio::time::Instant::now() + linger.idle_bound).min(linger.until);
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

    /// The next connection on `listener`, wrapped with its (not yet set) flag.
    async fn accept_lingering(
        listener: &tokio::net::TcpListener,
    ) -> (Lingering<tokio::net::TcpStream>, Arc<LingerFlag>) {
        let (s, _) = listener.accept().await.unwrap();
        let flag = Arc::new(LingerFlag::default());
        (Lingering::new(s, flag.clone()), flag)
    }

    /// A flagged connection: the peer reads the answer and the end of the stream while it is
    /// still writing, and its writes succeed; the server closes once the peer closes.
    #[tokio::test]
    async fn a_flagged_connection_reads_until_the_peer_closes() {
        let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
        let addr = listener.local_addr().unwrap();
        let server = tokio::spawn(async move {
            let (mut s, flag) = accept_lingering(&listener).await;
            let mut head = [0u8; 4];
            s.read_exact(&mut head).await.unwrap();
            s.write_all(b"answer").await.unwrap();
            flag.set(UnreadBody { owed: None });
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
        flag.set(UnreadBody { owed: None });
        let mut s = Lingering::new(s, flag);
        let started = std::time::Instant::now();
        s.shutdown().await.unwrap();
        let took = started.elapsed();
        assert!(
            took >= LINGER_IDLE - Duration::from_millis(50) && took < LINGER_TIME,
            "let go after {took:?}"
        );
    }

    /// With a declared body, the lingering waits out a pause of the client longer than
    /// [`LINGER_IDLE`] (a client thread that did not run for a while) and ends as soon as the
    /// rest of the body is in: the client's writes all succeed and it reads the answer and the
    /// end of the stream without closing first.
    #[tokio::test]
    async fn a_declared_body_is_read_to_its_end_across_a_pause() {
        const OWED: usize = 1 << 20;
        let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
        let addr = listener.local_addr().unwrap();
        let server = tokio::spawn(async move {
            let (mut s, flag) = accept_lingering(&listener).await;
            s.write_all(b"answer").await.unwrap();
            flag.set(UnreadBody {
                owed: Some(OWED as u64),
            });
            let started = std::time::Instant::now();
            s.shutdown().await.unwrap();
            let lingered = started.elapsed();
            let read = s.linger.as_ref().map(|l| l.read);
            drop(s);
            (lingered, read)
        });
        let mut c = tokio::net::TcpStream::connect(addr).await.unwrap();
        let body = vec![7u8; OWED];
        c.write_all(&body[..OWED / 4]).await.unwrap();
        let pause = LINGER_IDLE + Duration::from_secs(1);
        tokio::time::sleep(pause).await;
        c.write_all(&body[OWED / 4..]).await.unwrap();
        let mut answer = Vec::new();
        tokio::time::timeout(Duration::from_secs(5), c.read_to_end(&mut answer))
            .await
            .expect("the server closed once the body was in")
            .unwrap();
        assert_eq!(answer, b"answer");
        let (lingered, read) = server.await.unwrap();
        assert_eq!(read, Some(OWED as u64));
        assert!(
            lingered >= pause && lingered < OWED_TIME,
            "lingered {lingered:?}"
        );
    }
}
