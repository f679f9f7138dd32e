//! Hostile slow clients (issue 15, item 1), on loopback and bounded in time and sockets:
//!
//! * 200 connections that send the head of `POST /v1/welter/value` with
//!   `Content-Length: 100000` and then only a few body bytes must not take compute slots: with
//!   them open (and `GRUNDY_MAX_CONCURRENCY` far below 200) a normal client gets no 503 and at
//!   least half of its usual throughput;
//! * a body that trickles slower than the minimum rate gets a 408 problem, a request head that
//!   never completes is cut off;
//! * connections beyond the per-client cap are closed while other clients are still served.
//!
//! `scripts/load-test.sh` runs the same scenario with 1,000 connections against the release
//! binary.

mod common;

use std::net::SocketAddr;
use std::time::{Duration, Instant};

use grundy::config::Config;
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::{TcpSocket, TcpStream};

/// Starts the service with `config`'s connection limits; returns its address.
async fn start(mut config: Config) -> SocketAddr {
    config.database_url = None;
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let addr = listener.local_addr().unwrap();
    config.addr = addr;
    tokio::spawn(grundy::run(config, listener, std::future::pending()));
    addr
}

/// Opens a connection from `source` (a loopback address) that sends a complete request head
/// announcing a 100,000-byte body, then 10 bytes of it, and then nothing.
async fn slow_client(server: SocketAddr, source: &str) -> std::io::Result<TcpStream> {
    let socket = TcpSocket::new_v4()?;
    socket.bind(format!("{source}:0").parse().unwrap())?;
    let mut stream = socket.connect(server).await?;
    stream
        .write_all(
            format!(
                "POST /v1/welter/value HTTP/1.1\r\nHost: {server}\r\nContent-Type: application/json\r\n\
                 Content-Length: 100000\r\n\r\n{{\"position\""
            )
            .as_bytes(),
        )
        .await?;
    Ok(stream)
}

/// Requests per second of one keep-alive client for `secs`; panics on any answer but 200.
async fn throughput(client: &reqwest::Client, server: SocketAddr, secs: f64) -> f64 {
    let url = format!("http://{server}/v1/welter/value");
    let start = Instant::now();
    let mut n = 0u32;
    while start.elapsed().as_secs_f64() < secs {
        let x = u64::from(n) * 7919 % 100_000;
        let r = client
            .post(&url)
            .header("content-type", "application/json")
            .body(format!(r#"{{"position":[1,3,{},{}]}}"#, x + 8, x + 100_001))
            .send()
            .await
            .expect("request");
        assert_eq!(
            r.status(),
            200,
            "a normal request was refused: {:?}",
            r.text().await
        );
        n += 1;
    }
    f64::from(n) / start.elapsed().as_secs_f64()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn slow_bodies_do_not_take_compute_slots() {
    let server = start(Config {
        max_concurrency: 8,
        max_connections_per_client: 10_000,
        // The slow clients must stay for the whole measurement: no rate rule, long deadline.
        body_min_rate: 0,
        body_read_timeout: common::UNHURRIED,
        ..common::config()
    })
    .await;
    let client = reqwest::Client::new();
    throughput(&client, server, 0.3).await; // warm-up
                                            // What is asserted is the property: with 200 slow bodies open and 8 slots, every normal
                                            // request is answered 200 (`throughput` panics on anything else) and no slow body is. The
                                            // rates are printed, not asserted: on a busy machine two seconds' rates differ by chance
                                            // (scripts/load-test.sh measures them on the release binary).
    let mut report = Vec::new();
    for _ in 0..2 {
        let usual = throughput(&client, server, 1.0).await;
        let mut slow = Vec::new();
        for _ in 0..200 {
            slow.push(slow_client(server, "127.0.0.1").await.expect("slow client"));
        }
        // Let the accepts and the first reads of the burst settle before measuring.
        tokio::time::sleep(Duration::from_millis(500)).await;
        let with_slow = throughput(&client, server, 1.0).await;
        // Every slow connection is still open, still waiting for the server to read its body.
        for s in &mut slow {
            let mut buf = [0u8; 1];
            let read = tokio::time::timeout(Duration::from_millis(1), s.read(&mut buf)).await;
            assert!(
                read.is_err(),
                "a slow connection was answered or closed: {read:?}"
            );
        }
        drop(slow);
        let ratio = with_slow / usual;
        report.push(format!("{usual:.0} -> {with_slow:.0} req/s ({ratio:.2})"));
    }
    eprintln!(
        "normal client with 200 slow bodies open: {}",
        report.join("; ")
    );
}

#[tokio::test]
async fn a_trickling_body_gets_408_and_a_stalled_head_is_closed() {
    let server = start(Config {
        body_first_byte_timeout: Duration::from_millis(500),
        body_min_rate: 1000,
        body_min_rate_grace: Duration::from_millis(300),
        header_read_timeout: Duration::from_millis(500),
        ..common::config()
    })
    .await;
    let started = Instant::now();
    let mut s = slow_client(server, "127.0.0.1").await.unwrap();
    let mut answer = String::new();
    tokio::time::timeout(LATE, s.read_to_string(&mut answer))
        .await
        .expect("the server answered within 10 s")
        .ok();
    assert!(answer.starts_with("HTTP/1.1 408"), "{answer}");
    assert!(answer.contains("application/problem+json"), "{answer}");
    assert!(answer.contains("GRUNDY_BODY_MIN_RATE"), "{answer}");
    assert!(started.elapsed() < LATE);

    // A head announcing a body of which no byte comes: refused after the first-byte bound.
    let started = Instant::now();
    let mut s = TcpStream::connect(server).await.unwrap();
    s.write_all(
        format!(
            "POST /v1/welter/value HTTP/1.1\r\nHost: {server}\r\nContent-Type: application/json\r\n\
             Content-Length: 100\r\n\r\n"
        )
        .as_bytes(),
    )
    .await
    .unwrap();
    let mut answer = String::new();
    tokio::time::timeout(LATE, s.read_to_string(&mut answer))
        .await
        .expect("the server answered within 10 s")
        .ok();
    let took = started.elapsed();
    assert!(answer.starts_with("HTTP/1.1 408"), "{answer}");
    assert!(answer.contains("application/problem+json"), "{answer}");
    assert!(
        answer.contains("GRUNDY_BODY_FIRST_BYTE_TIMEOUT_MS"),
        "{answer}"
    );
    assert!(
        took >= Duration::from_millis(400) && took < LATE,
        "refused after {took:?}"
    );

    // A head that never completes: the connection is closed after the header deadline.
    let mut s = TcpStream::connect(server).await.unwrap();
    s.write_all(b"POST /v1/welter/value HTTP/1.1\r\nHost: x\r\n")
        .await
        .unwrap();
    let mut buf = Vec::new();
    let closed = tokio::time::timeout(LATE, s.read_to_end(&mut buf)).await;
    assert!(closed.is_ok(), "the stalled connection is still open");
}

#[tokio::test]
async fn connections_beyond_the_per_client_cap_are_closed() {
    let server = start(Config {
        max_connections_per_client: 50,
        body_min_rate: 0,
        // The 50 admitted connections stay open however long the polling below takes.
        body_first_byte_timeout: common::UNHURRIED,
        body_read_timeout: common::UNHURRIED,
        ..common::config()
    })
    .await;
    // 80 slow connections from 127.0.0.2 (another loopback address, another "client").
    let mut conns = Vec::new();
    for _ in 0..80 {
        conns.push(slow_client(server, "127.0.0.2").await.expect("connect"));
    }
    // Polled until 30 are closed (a busy server closes them late, not never), then once more
    // after a pause: exactly 30, the other 50 still open.
    let mut closed = vec![false; conns.len()];
    let deadline = Instant::now() + LATE;
    while poll_closed(&mut conns, &mut closed).await < 30 {
        assert!(
            Instant::now() < deadline,
            "fewer than 30 connections closed"
        );
    }
    tokio::time::sleep(Duration::from_millis(300)).await;
    let total = poll_closed(&mut conns, &mut closed).await;
    assert_eq!(total, 30, "connections beyond the cap of 50 are closed");
    // 127.0.0.1 is another client: still served.
    let r = reqwest::Client::new()
        .post(format!("http://{server}/v1/welter/value"))
        .header("content-type", "application/json")
        .body(r#"{"position":[1,3,7,8,11,19]}"#)
        .send()
        .await
        .unwrap();
    assert_eq!(r.status(), 200);
}

/// Reads each connection not yet seen closed for 10 ms: how many are closed now (a connection
/// that gets an answer fails the test).
async fn poll_closed(conns: &mut [TcpStream], closed: &mut [bool]) -> usize {
    for (c, done) in conns.iter_mut().zip(closed.iter_mut()) {
        if *done {
            continue;
        }
        let mut buf = [0u8; 64];
        match tokio::time::timeout(Duration::from_millis(10), c.read(&mut buf)).await {
            Ok(Ok(0) | Err(_)) => *done = true,
            Ok(Ok(_)) => panic!("a slow connection got an answer"),
            Err(_) => {} // still open
        }
    }
    closed.iter().filter(|&&c| c).count()
}

/// Reads one HTTP/1.1 response with a `Content-Length` from `s`; returns (status, body length).
async fn read_response(s: &mut TcpStream) -> (u16, usize) {
    let mut buf = Vec::new();
    let mut chunk = [0u8; 4096];
    loop {
        let n = s.read(&mut chunk).await.unwrap();
        assert!(n > 0, "connection closed before a whole response");
        buf.extend_from_slice(&chunk[..n]);
        if let Some(end) = buf.windows(4).position(|w| w == b"\r\n\r\n") {
            let head = String::from_utf8_lossy(&buf[..end]).to_ascii_lowercase();
            let status = head[9..12].parse().unwrap();
            let len: usize = head
                .lines()
                .find_map(|l| l.strip_prefix("content-length:"))
                .map(|v| v.trim().parse().unwrap())
                .unwrap_or(0);
            while buf.len() < end + 4 + len {
                let n = s.read(&mut chunk).await.unwrap();
                assert!(n > 0, "connection closed inside a body");
                buf.extend_from_slice(&chunk[..n]);
            }
            return (status, len);
        }
    }
}

/// How late a deadline may close a connection before a test calls it never closed: generous
/// on purpose, since a busy or one-core machine runs timers late, and a hang is what it catches.
const LATE: Duration = Duration::from_secs(30);

/// Waits for `s` to be closed by the server; returns how long that took since `since` (panics
/// after [`LATE`]).
async fn closed_after(s: &mut TcpStream, since: Instant) -> Duration {
    let mut buf = Vec::new();
    tokio::time::timeout(LATE, s.read_to_end(&mut buf))
        .await
        .expect("the connection is still open")
        .ok();
    since.elapsed()
}

/// The header read deadline, timed per connection (`header_deadline`): a stalled head and an
/// idle kept-alive connection are closed one deadline after they began to wait — not
/// earlier, and not much later — while a connection that keeps sending requests, each well
/// within the deadline, stays open for many deadlines, and a response that takes longer than
/// the deadline to download is not cut.
#[tokio::test]
async fn the_header_deadline_is_kept_per_request() {
    // A second: requests 100 ms apart keep well within it even on a busy machine.
    let deadline = Duration::from_secs(1);
    let server = start(Config {
        header_read_timeout: deadline,
        body_min_rate: 0,
        ..common::config()
    })
    .await;
    let request = format!(
        "POST /v1/welter/value HTTP/1.1\r\nHost: {server}\r\nContent-Type: application/json\r\n\
         Content-Length: 18\r\n\r\n{{\"position\":[1,4]}}"
    );

    // Lower bounds are timed from before the server's clock starts (the connect, the last
    // request sent), so that they hold however late this task runs; upper bounds only catch a
    // deadline that never fires (LATE).
    // A head that stops half-way.
    let since = Instant::now();
    let mut s = TcpStream::connect(server).await.unwrap();
    s.write_all(b"GET /healthz HTTP/1.1\r\nHost: x\r\n")
        .await
        .unwrap();
    let took = closed_after(&mut s, since).await;
    assert!(
        took >= deadline - Duration::from_millis(20),
        "stalled head closed after {took:?} (deadline {deadline:?})"
    );

    // Busy: 30 requests 100 ms apart (three deadlines at least) on one connection.
    let mut s = TcpStream::connect(server).await.unwrap();
    let started = Instant::now();
    let mut last_sent = started;
    for _ in 0..30 {
        tokio::time::sleep(Duration::from_millis(100)).await;
        last_sent = Instant::now();
        s.write_all(request.as_bytes()).await.unwrap();
        let (status, _) = read_response(&mut s).await;
        assert_eq!(status, 200);
    }
    assert!(started.elapsed() > deadline * 3);
    // Then idle: closed one deadline after the last request was read.
    let took = closed_after(&mut s, last_sent).await;
    assert!(
        took >= deadline - Duration::from_millis(20),
        "idle kept-alive connection closed after {took:?} (deadline {deadline:?})"
    );

    // A download read slowly, for longer than the deadline: 4 MB of values in binary.
    let mut s = TcpStream::connect(server).await.unwrap();
    s.write_all(
        format!(
            "GET /v1/octal/0.07/values?start=0&count=4000000 HTTP/1.1\r\nHost: {server}\r\n\
             Accept: application/octet-stream\r\n\r\n"
        )
        .as_bytes(),
    )
    .await
    .unwrap();
    let started = Instant::now();
    let mut got = 0usize;
    let mut chunk = vec![0u8; 64 * 1024];
    let mut head_seen = false;
    let mut body = 0usize;
    loop {
        let n = tokio::time::timeout(LATE, s.read(&mut chunk))
            .await
            .expect("the download stalled")
            .unwrap();
        if n == 0 {
            break;
        }
        got += n;
        if !head_seen {
            if let Some(end) = chunk[..n].windows(4).position(|w| w == b"\r\n\r\n") {
                head_seen = true;
                body += n - end - 4;
            }
        } else {
            body += n;
        }
        if body >= 4_000_000 {
            break;
        }
        if started.elapsed() < deadline * 3 {
            tokio::time::sleep(Duration::from_millis(100)).await;
        }
    }
    assert!(head_seen && got > 4_000_000, "read {got} bytes");
    assert_eq!(body, 4_000_000, "body bytes");
    assert!(
        started.elapsed() > deadline * 2,
        "the download was not slow"
    );
    // (hyper starts the next head's deadline when the request has been read, not when the
    // response has been written, so after a download longer than the deadline the connection
    // is closed once the body is out: the body itself is never cut.)
}

/// Posts `head` and then `body` as two writes (as Python's http.client does: the head, then
/// the body), and reads the answer until the server closes the connection. The status and the
/// whole answer; `Err` when the client got no HTTP answer (a write or read failed first).
fn post_two_writes(server: SocketAddr, head: &[u8], body: &[u8]) -> Result<(u16, String), String> {
    use std::io::{Read, Write};
    let mut s = std::net::TcpStream::connect(server).map_err(|e| format!("connect: {e}"))?;
    s.set_read_timeout(Some(Duration::from_secs(120))).unwrap();
    s.write_all(head)
        .map_err(|e| format!("writing the head: {e}"))?;
    let written = s.write_all(body);
    let mut answer = Vec::new();
    let read = s.read_to_end(&mut answer);
    let text = String::from_utf8_lossy(&answer).into_owned();
    match (written, read) {
        (Err(e), _) => Err(format!("writing the body: {e} (read: {text:?})")),
        (_, Err(e)) if answer.is_empty() => Err(format!("reading the answer: {e}")),
        _ if !text.starts_with("HTTP/1.1 ") => Err(format!("no status line: {text:?}")),
        _ => Ok((text[9..12].parse().unwrap(), text)),
    }
}

/// A body refused before it has all been sent — declared larger than the limit, so refused
/// with a 413 as soon as its head has arrived — is answered, and the client, which writes all
/// of it before reading (as most clients do), can read the answer: the server reads and
/// discards the rest before it closes (lingering close), rather than closing with the client's
/// bytes unread, which resets the connection under the client's write.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_body_refused_mid_upload_gets_a_readable_answer() {
    let server = start(Config {
        max_body_bytes: 1 << 20,
        ..common::config()
    })
    .await;
    let body = vec![b'1'; 4 << 20];
    let head = format!(
        "POST /v1/welter/value HTTP/1.1\r\nHost: {server}\r\nContent-Type: application/json\r\n\
         Content-Length: {}\r\n\r\n",
        body.len()
    );
    for _ in 0..3 {
        let head = head.clone().into_bytes();
        let body = body.clone();
        let (status, answer) =
            tokio::task::spawn_blocking(move || post_two_writes(server, &head, &body))
                .await
                .unwrap()
                .expect("the client read an answer");
        assert_eq!(status, 413, "{answer}");
        let lower = answer.to_ascii_lowercase();
        assert!(lower.contains("connection: close"), "{answer}");
        assert!(lower.contains("application/problem+json"), "{answer}");
    }
    // The server still serves.
    let r = reqwest::Client::new()
        .post(format!("http://{server}/v1/welter/value"))
        .header("content-type", "application/json")
        .body(r#"{"position":[1,3]}"#)
        .send()
        .await
        .unwrap();
    assert_eq!(r.status(), 200);
}

/// A client that really sends one byte a second is refused with a 408 under the default rules
/// (its first byte after a second, then a grace of 5 s at 240 B/s from it), and reads it within
/// grace + timeout although it looks for an answer only every third second, between its
/// writes: its writes keep succeeding meanwhile (the server lingers, reading and discarding),
/// where a server that closed at once would reset the connection under its second write after
/// the answer and fail the third (`EPIPE`), before it ever read the 408.
#[tokio::test]
async fn a_one_byte_a_second_client_reads_its_408() {
    let defaults = Config::default();
    let (grace, timeout) = (defaults.body_min_rate_grace, defaults.body_read_timeout);
    let server = start(defaults).await;
    let mut s = TcpStream::connect(server).await.unwrap();
    s.write_all(
        format!(
            "POST /v1/welter/value HTTP/1.1\r\nHost: {server}\r\nContent-Type: application/json\r\n\
             Content-Length: 1000\r\n\r\n"
        )
        .as_bytes(),
    )
    .await
    .unwrap();
    let started = Instant::now();
    let mut answer = Vec::new();
    let mut answered_at = None;
    let mut buf = [0u8; 4096];
    for second in 1..=15u32 {
        tokio::time::sleep_until((started + Duration::from_secs(u64::from(second))).into()).await;
        s.write_all(b" ").await.unwrap_or_else(|e| {
            panic!(
                "the write of second {second} failed ({e}); answer read so far: {:?}",
                String::from_utf8_lossy(&answer)
            )
        });
        if second % 3 != 0 {
            continue;
        }
        // Every third second: read what has come, up to the end of the stream.
        loop {
            match tokio::time::timeout(Duration::from_millis(300), s.read(&mut buf)).await {
                Err(_) => break,
                Ok(Ok(0)) => {
                    let text = String::from_utf8_lossy(&answer).into_owned();
                    assert!(text.starts_with("HTTP/1.1 408"), "{text}");
                    assert!(text.contains("application/problem+json"), "{text}");
                    assert!(text.contains("GRUNDY_BODY_MIN_RATE"), "{text}");
                    let at = answered_at.expect("an answer before the end of the stream");
                    assert!(
                        at >= grace && at < grace + timeout,
                        "the 408 was read after {at:?}"
                    );
                    return;
                }
                Ok(Ok(n)) => {
                    answered_at.get_or_insert(started.elapsed());
                    answer.extend_from_slice(&buf[..n]);
                }
                Ok(Err(e)) => panic!(
                    "the read of second {second} failed ({e}); answer so far {:?}",
                    String::from_utf8_lossy(&answer)
                ),
            }
        }
    }
    panic!(
        "no end of the stream after 15 s; answer {:?}",
        String::from_utf8_lossy(&answer)
    );
}

/// A slow but honest client after a stall of the server (issue 39): the client sends its head,
/// then the server's only thread is blocked for 6 s — past the first-byte bound of 3 s — and
/// the client, starved as well on a loaded machine, sends its body 300 ms after the stall. The
/// server's stall is not the client's time: the request is answered 200, not 408. (The bound
/// is 3 s, not 1 s, so that a client thread that a busy machine wakes late still has time.)
#[tokio::test(flavor = "current_thread")]
async fn an_honest_client_after_a_server_stall_is_not_refused() {
    let server = start(Config {
        body_first_byte_timeout: Duration::from_secs(3),
        body_min_rate_grace: Duration::from_secs(3),
        ..common::config()
    })
    .await;
    let (head_sent, head_was_sent) = tokio::sync::oneshot::channel::<()>();
    let (stall_over, stall_was_over) = std::sync::mpsc::channel::<()>();
    let client = std::thread::spawn(move || {
        use std::io::{Read, Write};
        let body = br#"{"position":[1,3,7,8,11,19]}"#;
        let mut s = std::net::TcpStream::connect(server).unwrap();
        s.set_read_timeout(Some(Duration::from_secs(30))).unwrap();
        write!(
            s,
            "POST /v1/welter/value HTTP/1.1\r\nHost: {server}\r\nContent-Type: application/json\r\n\
             Connection: close\r\nContent-Length: {}\r\n\r\n",
            body.len()
        )
        .unwrap();
        head_sent.send(()).unwrap();
        stall_was_over.recv().unwrap();
        std::thread::sleep(Duration::from_millis(300));
        s.write_all(body).unwrap();
        let mut answer = String::new();
        s.read_to_string(&mut answer).unwrap();
        answer
    });
    head_was_sent.await.unwrap();
    // The server reads the head and waits for the body; then its thread stalls.
    tokio::time::sleep(Duration::from_millis(200)).await;
    std::thread::sleep(Duration::from_secs(6));
    stall_over.send(()).unwrap();
    let answer = tokio::task::spawn_blocking(move || client.join().unwrap())
        .await
        .unwrap();
    assert!(answer.starts_with("HTTP/1.1 200"), "{answer}");
}

/// A body refused at once (413: declared larger than the limit) whose client, after writing a
/// quarter of it, does not run for 3 s (longer than the lingering's idle bound for a body of
/// unknown length) and then writes the rest: the server lingers until the declared body is in,
/// so every write succeeds and the client reads the 413 (no reset, no `EPIPE`).
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_refused_body_is_answered_to_a_client_that_pauses() {
    let server = start(Config {
        max_body_bytes: 1 << 20,
        ..common::config()
    })
    .await;
    let answer = tokio::task::spawn_blocking(move || {
        use std::io::{Read, Write};
        let body = vec![b'1'; 4 << 20];
        let mut s = std::net::TcpStream::connect(server).unwrap();
        s.set_read_timeout(Some(Duration::from_secs(30))).unwrap();
        write!(
            s,
            "POST /v1/welter/value HTTP/1.1\r\nHost: {server}\r\nContent-Type: application/json\r\n\
             Content-Length: {}\r\n\r\n",
            body.len()
        )
        .map_err(|e| format!("writing the head: {e}"))?;
        s.write_all(&body[..body.len() / 4])
            .map_err(|e| format!("writing the first quarter: {e}"))?;
        std::thread::sleep(Duration::from_secs(3));
        s.write_all(&body[body.len() / 4..])
            .map_err(|e| format!("writing the rest after the pause: {e}"))?;
        let mut answer = Vec::new();
        s.read_to_end(&mut answer)
            .map_err(|e| format!("reading the answer: {e}"))?;
        Ok::<_, String>(String::from_utf8_lossy(&answer).into_owned())
    })
    .await
    .unwrap()
    .expect("the client read an answer");
    assert!(answer.starts_with("HTTP/1.1 413"), "{answer}");
    assert!(
        answer
            .to_ascii_lowercase()
            .contains("application/problem+json"),
        "{answer}"
    );
}

/// Large uploads under load (issue 31): many clients each post a ~1.4 MB Welter position
/// (200,000 coins) with `Connection: close`, head and body in two writes, while the server
/// computes the ones it took. Every request gets an HTTP answer — 200, or 429/503 under load —
/// and none is reset or refused as too slow. `scripts/upload-burst.py` runs the full-size
/// burst (64 threads, 256 requests a round) against the release binary.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn large_uploads_under_load_are_all_answered() {
    let server = start(common::config()).await;
    let mut x = 12345u64;
    let mut coins = std::collections::BTreeSet::new();
    while coins.len() < 200_000 {
        x = x
            .wrapping_mul(6364136223846793005)
            .wrapping_add(1442695040888963407);
        coins.insert((x >> 33) % 1_000_000);
    }
    let list: Vec<String> = coins.iter().map(u64::to_string).collect();
    let body = format!(r#"{{"position":[{}],"target":1}}"#, list.join(",")).into_bytes();
    assert!(body.len() > 1_300_000, "{} bytes", body.len());
    let head = format!(
        "POST /v1/welter/primes HTTP/1.1\r\nHost: {server}\r\nContent-Type: application/json\r\n\
         Connection: close\r\nContent-Length: {}\r\n\r\n",
        body.len()
    )
    .into_bytes();
    let body = std::sync::Arc::new(body);
    // 16 uploads, 8 at a time: a debug build spends about a second on each (parse, checks,
    // primes), so the server is busy computing throughout while the next uploads arrive.
    let (threads, each) = (8, 2);
    let outcomes = tokio::task::spawn_blocking(move || {
        let handles: Vec<_> = (0..threads)
            .map(|_| {
                let (head, body) = (head.clone(), body.clone());
                std::thread::spawn(move || {
                    (0..each)
                        .map(|_| post_two_writes(server, &head, &body).map(|(s, _)| s))
                        .collect::<Vec<_>>()
                })
            })
            .collect();
        handles
            .into_iter()
            .flat_map(|h| h.join().unwrap())
            .collect::<Vec<_>>()
    })
    .await
    .unwrap();
    let mut counts = std::collections::BTreeMap::new();
    for o in &outcomes {
        *counts.entry(format!("{o:?}")).or_insert(0) += 1;
    }
    eprintln!("large uploads under load: {counts:?}");
    assert_eq!(outcomes.len(), threads * each);
    for o in &outcomes {
        assert!(
            matches!(o, Ok(200 | 429 | 503)),
            "a request was not answered 200/429/503: {o:?} (all: {counts:?})"
        );
    }
    assert!(
        outcomes.iter().any(|o| matches!(o, Ok(200))),
        "nothing was computed: {counts:?}"
    );
}
