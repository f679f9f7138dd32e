//! `grundy healthcheck`: one `GET /healthz` on the configured address, for container
//! HEALTHCHECKs (the runtime image needs no curl).

/// `grundy healthcheck`: GET /healthz on the configured address (for container HEALTHCHECKs,
/// so the runtime image needs no curl). Exit 0 when it answers 200.
pub fn healthcheck() -> std::process::ExitCode {
    use std::io::{Read, Write};
    let addr = std::env::var("GRUNDY_ADDR").unwrap_or_else(|_| "127.0.0.1:8080".into());
    // A wildcard listen address is reached through loopback.
    let addr = addr
        .replace("0.0.0.0", "127.0.0.1")
        .replace("[::]", "[::1]");
    let Ok(sock) = addr.parse::<std::net::SocketAddr>() else {
        eprintln!("healthcheck: bad GRUNDY_ADDR {addr:?}");
        return std::process::ExitCode::FAILURE;
    };
    let timeout = std::time::Duration::from_secs(3);
    let result = std::net::TcpStream::connect_timeout(&sock, timeout).and_then(|mut s| {
        s.set_read_timeout(Some(timeout))?;
        s.write_all(
            format!("GET /healthz HTTP/1.1\r\nHost: {addr}\r\nConnection: close\r\n\r\n")
                .as_bytes(),
        )?;
        let mut buf = String::new();
        s.read_to_string(&mut buf)?;
        Ok(buf)
    });
    match result {
        Ok(resp) if resp.starts_with("HTTP/1.1 200") => std::process::ExitCode::SUCCESS,
        Ok(resp) => {
            eprintln!("healthcheck: {}", resp.lines().next().unwrap_or(""));
            std::process::ExitCode::FAILURE
        }
        Err(e) => {
            eprintln!("healthcheck: {e}");
            std::process::ExitCode::FAILURE
        }
    }
}
