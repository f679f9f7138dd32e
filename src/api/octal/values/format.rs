//! The encoders of the three download formats (chosen by `Accept`, see `crate::api::wire::accept`),
//! which turn one block of values at a time into bytes (the body is never held whole).

pub use crate::api::wire::accept::{negotiate, Format};

/// The narrowest of 1, 2, 4 or 8 bytes holding `max` (8 only for arithmetic-periodic values
/// beyond 2^32−1).
pub fn width_for(max: u128) -> usize {
    match max {
        0..=0xFF => 1,
        0x100..=0xFFFF => 2,
        0x1_0000..=0xFFFF_FFFF => 4,
        _ => 8,
    }
}

/// Encodes one download, block by block: [`Encoder::head`], then [`Encoder::block`] for
/// consecutive blocks of values, then [`Encoder::tail`].
pub struct Encoder {
    format: Format,
    width: usize,
    /// The heap of the next value.
    heap: u64,
    first: bool,
}

impl Encoder {
    /// An encoder of values from heap `start` on; `width` matters for [`Format::Binary`] only.
    pub fn new(format: Format, width: usize, start: u64) -> Encoder {
        Encoder {
            format,
            width,
            heap: start,
            first: true,
        }
    }

    /// What comes before the values.
    pub fn head(&self, code: &str, start: u64, count: u64) -> Vec<u8> {
        match self.format {
            Format::Json => {
                let code = serde_json::to_string(code).unwrap_or_else(|_| "\"\"".into());
                format!(r#"{{"code":{code},"start":{start},"count":{count},"values":["#)
                    .into_bytes()
            }
            Format::Csv => b"heap,value\n".to_vec(),
            Format::Binary => Vec::new(),
        }
    }

    /// Appends the encoding of `values` (the values of the next heaps) to `out`.
    pub fn block(&mut self, values: &[u64], out: &mut Vec<u8>) {
        let mut buf = itoa::Buffer::new();
        match self.format {
            Format::Json => {
                out.reserve(values.len() * 4);
                for &v in values {
                    if !self.first {
                        out.push(b',');
                    }
                    self.first = false;
                    out.extend_from_slice(buf.format(v).as_bytes());
                }
            }
            Format::Csv => {
                out.reserve(values.len() * 12);
                for (i, &v) in values.iter().enumerate() {
                    out.extend_from_slice(buf.format(self.heap.wrapping_add(i as u64)).as_bytes());
                    out.push(b',');
                    out.extend_from_slice(buf.format(v).as_bytes());
                    out.push(b'\n');
                }
            }
            // Values were checked to fit the width before the first block.
            Format::Binary => {
                out.reserve(values.len() * self.width);
                match self.width {
                    1 => out.extend(values.iter().map(|&v| v as u8)),
                    2 => values
                        .iter()
                        .for_each(|&v| out.extend_from_slice(&(v as u16).to_le_bytes())),
                    4 => values
                        .iter()
                        .for_each(|&v| out.extend_from_slice(&(v as u32).to_le_bytes())),
                    _ => values
                        .iter()
                        .for_each(|&v| out.extend_from_slice(&v.to_le_bytes())),
                }
            }
        }
        self.heap = self.heap.wrapping_add(values.len() as u64);
    }

    /// What comes after the values.
    pub fn tail(&self) -> Vec<u8> {
        match self.format {
            Format::Json => b"]}".to_vec(),
            Format::Csv | Format::Binary => Vec::new(),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use axum::http::HeaderValue;

    fn pick(accept: &str) -> Result<Format, u16> {
        negotiate(Some(&HeaderValue::from_str(accept).unwrap())).map_err(|e| e.status().as_u16())
    }

    #[test]
    fn accept_negotiation() {
        assert_eq!(negotiate(None).unwrap(), Format::Json);
        assert_eq!(pick(""), Ok(Format::Json));
        assert_eq!(pick("*/*"), Ok(Format::Json));
        assert_eq!(pick("text/csv"), Ok(Format::Csv));
        assert_eq!(pick("text/*"), Ok(Format::Csv));
        assert_eq!(pick("application/octet-stream"), Ok(Format::Binary));
        assert_eq!(pick("Application/Octet-Stream; q=0.9"), Ok(Format::Binary));
        assert_eq!(pick("application/json;q=0.5, text/csv"), Ok(Format::Csv));
        assert_eq!(
            pick("application/*;q=0.2, application/json;q=0"),
            Ok(Format::Binary)
        );
        assert_eq!(pick("text/csv;q=0.5, */*;q=0.1"), Ok(Format::Csv));
        assert_eq!(pick("image/png"), Err(406));
        assert_eq!(pick("application/json;q=0"), Err(406));
        assert_eq!(pick("application/xml, text/html"), Err(406));
    }

    #[test]
    fn encodings() {
        let values = [0u64, 3, 300, 70_000];
        let run = |f: Format, w: usize| {
            let mut e = Encoder::new(f, w, 5);
            let mut out = e.head("0.07", 5, 4);
            e.block(&values[..1], &mut out);
            e.block(&values[1..], &mut out);
            out.extend(e.tail());
            out
        };
        assert_eq!(
            String::from_utf8(run(Format::Json, 0)).unwrap(),
            r#"{"code":"0.07","start":5,"count":4,"values":[0,3,300,70000]}"#
        );
        assert_eq!(
            String::from_utf8(run(Format::Csv, 0)).unwrap(),
            "heap,value\n5,0\n6,3\n7,300\n8,70000\n"
        );
        assert_eq!(
            run(Format::Binary, 4),
            [0, 0, 0, 0, 3, 0, 0, 0, 44, 1, 0, 0, 112, 17, 1, 0]
        );
        assert_eq!(width_for(0), 1);
        assert_eq!(width_for(255), 1);
        assert_eq!(width_for(256), 2);
        assert_eq!(width_for(65_536), 4);
        assert_eq!(width_for(1 << 32), 8);
    }
}
