//! The encoding of one stored chunk of a G-sequence (at most [`CHUNK`] values): one encoder,
//! one decoder.
//!
//! **Formats.** Each row of `sequence_chunks` records its format in the `format` column
//! (added by the migration `…000002_chunk_format`, default 0):
//!
//! * [`FORMAT_LEGACY`] (0) — what databases written before this module hold: the values as
//!   u32 little-endian, no header, `length(data) / 4` values.
//! * [`FORMAT_V1`] (1) — a 6-byte header, then the values compressed with zstd:
//!
//!   | bytes | content                                                                 |
//!   |-------|-------------------------------------------------------------------------|
//!   | 0     | [`MAGIC_V1`] (`0xC1`: format 1)                                           |
//!   | 1     | width: 1, 2 or 4 — the narrowest that holds *this chunk's* largest value |
//!   | 2..6  | value count, u32 little-endian (1 ..= [`CHUNK`])                          |
//!   | 6..   | one zstd frame of `count × width` bytes: the values, as byte planes      |
//!
//!   The payload is the values little-endian, transposed into byte planes: first byte 0 of
//!   every value, then byte 1 of every value, and so on (`width` planes of `count` bytes). The
//!   high bytes of G-values are nearly constant and the low bytes nearly random; apart, zstd
//!   codes the high planes in almost nothing, while interleaved they cost a byte of matches
//!   and literals every value (`.6` to 3·10^5: 0.96 against 1.01 bytes per value).
//!
//!   The `value_count` column repeats the count, so that an upsert can compare counts in SQL
//!   (compressed lengths say nothing about how many values a chunk holds).
//! * [`FORMAT_V2`] (2, what [`encode`] writes) — format 1 with a checksum: a 10-byte header,
//!   [`MAGIC_V2`] (`0xC2`), the width, the count, then the CRC-32 (IEEE, little-endian) of the
//!   uncompressed byte planes, then the zstd frame. A chunk whose planes do not hash to it is
//!   corrupt: a flipped bit in a frame can decompress to other values of the right length,
//!   which only a checksum tells. (Window jobs read their values back from these chunks,
//!   `crate::service::jobs::archive`: a value read back is one that was written.)
//!
//! **Why a column and not only a header.** Legacy data is arbitrary bytes (any u32 values), so
//! no magic number can be told apart from it with certainty by looking at the bytes alone, and
//! lengths do not help once compressed output is involved. The column says what a row is; the
//! header makes the blob self-describing and is checked against the column, so a row whose
//! column and bytes disagree is reported as corrupt rather than misread.
//!
//! Decoding never panics: truncated or inconsistent input (bad magic, bad width, a count of 0
//! or above [`CHUNK`], a frame that does not decompress to exactly `count × width` bytes, a
//! misaligned legacy chunk, a `value_count` that disagrees with the header) is
//! [`StoreError::Corrupt`].

use super::StoreError;
use crate::core::octal::values::{width_for, Values, ValuesRef};

/// Values per stored chunk (at most 256 KiB before compression).
pub const CHUNK: usize = 65_536;

/// `format` of a legacy chunk: raw u32 little-endian values, no header.
pub const FORMAT_LEGACY: i64 = 0;
/// `format` of a zstd chunk without a checksum (written before format 2).
pub const FORMAT_V1: i64 = 1;
/// The first byte of a [`FORMAT_V1`] chunk.
pub const MAGIC_V1: u8 = 0xC1;
/// Header bytes of a [`FORMAT_V1`] chunk.
pub const HEADER: usize = 6;
/// `format` of a chunk written by [`encode`]: format 1 with a CRC-32 of its planes.
pub const FORMAT_V2: i64 = 2;
/// The first byte of a [`FORMAT_V2`] chunk.
pub const MAGIC_V2: u8 = 0xC2;
/// Header bytes of a [`FORMAT_V2`] chunk.
pub const HEADER_V2: usize = 10;
/// zstd level: level 3 (zstd's default) compresses a 64 Ki-value chunk in about 0.25 ms;
/// higher levels gain a few percent at 4–200 times the time (BENCHMARKS.md, "Store size").
const LEVEL: i32 = 3;

/// A chunk ready to store: its bytes, its format and its value count (the row's columns).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Encoded {
    pub data: Vec<u8>,
    pub format: i64,
    pub count: usize,
}

/// Encodes at most [`CHUNK`] values in [`FORMAT_V2`], in the narrowest width that holds their
/// largest value (whatever the width they are held in).
pub fn encode(values: ValuesRef<'_>) -> Result<Encoded, StoreError> {
    debug_assert!(values.len() <= CHUNK);
    let count = values.len();
    let width = width_for(values.iter().max().unwrap_or(0));
    let raw = planes(values, width);
    let frame = zstd::bulk::compress(&raw, LEVEL)
        .map_err(|e| StoreError::Encode(format!("compressing a chunk of {count} values: {e}")))?;
    let mut data = Vec::with_capacity(HEADER_V2 + frame.len());
    data.push(MAGIC_V2);
    data.push(width as u8);
    data.extend_from_slice(&(count as u32).to_le_bytes());
    data.extend_from_slice(&crc32fast::hash(&raw).to_le_bytes());
    data.extend_from_slice(&frame);
    Ok(Encoded {
        data,
        format: FORMAT_V2,
        count,
    })
}

/// The payload of a [`FORMAT_V1`] chunk before compression: `values` as `width` byte planes
/// (byte 0 of every value, then byte 1 of every value, …; `width` must hold every value).
pub fn planes(values: ValuesRef<'_>, width: usize) -> Vec<u8> {
    let count = values.len();
    if width == 1 && values.width() == 1 {
        let mut raw = Vec::with_capacity(count);
        values.write_le_bytes(&mut raw);
        return raw;
    }
    let mut raw = vec![0u8; count * width];
    for (i, v) in values.iter().enumerate() {
        let b = v.to_le_bytes();
        for (k, &byte) in b[..width].iter().enumerate() {
            raw[k * count + i] = byte;
        }
    }
    raw
}

/// Decodes a stored chunk of the given `format` into its values, in the width it was stored in
/// (1, 2 or 4 bytes; legacy chunks narrowed to what their values need). `count` is the row's
/// `value_count` column where there is one (it must agree with the header). `what` names the
/// chunk in error messages.
pub fn decode(
    format: i64,
    data: &[u8],
    count: Option<i64>,
    what: &str,
) -> Result<Values, StoreError> {
    let corrupt = |why: String| StoreError::Corrupt(format!("{what}: {why}"));
    match format {
        FORMAT_LEGACY => {
            if !data.len().is_multiple_of(4) || data.len() / 4 > CHUNK {
                return Err(corrupt(format!(
                    "legacy chunk of {} bytes (not a multiple of 4 up to {})",
                    data.len(),
                    4 * CHUNK
                )));
            }
            let v: Vec<u32> = data
                .chunks_exact(4)
                .map(|b| u32::from_le_bytes([b[0], b[1], b[2], b[3]]))
                .collect();
            Ok(Values::from_u32(&v))
        }
        FORMAT_V1 | FORMAT_V2 => {
            let (header, magic) = if format == FORMAT_V1 {
                (HEADER, MAGIC_V1)
            } else {
                (HEADER_V2, MAGIC_V2)
            };
            if data.len() < header {
                return Err(corrupt(format!("truncated header ({} bytes)", data.len())));
            }
            let (head, frame) = data.split_at(header);
            if head[0] != magic {
                return Err(corrupt(format!("bad magic byte {:#04x}", head[0])));
            }
            let width = usize::from(head[1]);
            if !matches!(width, 1 | 2 | 4) {
                return Err(corrupt(format!("bad width {width}")));
            }
            let n = u32::from_le_bytes([head[2], head[3], head[4], head[5]]) as usize;
            if n == 0 || n > CHUNK {
                return Err(corrupt(format!("bad value count {n}")));
            }
            if let Some(c) = count {
                if c != n as i64 {
                    return Err(corrupt(format!("the header says {n} values, the row {c}")));
                }
            }
            let bytes = n * width;
            let raw = zstd::bulk::decompress(frame, bytes)
                .map_err(|e| corrupt(format!("does not decompress: {e}")))?;
            if raw.len() != bytes {
                return Err(corrupt(format!(
                    "{} bytes of values, {n} values of {width} bytes expected",
                    raw.len()
                )));
            }
            if format == FORMAT_V2 {
                let want = u32::from_le_bytes([head[6], head[7], head[8], head[9]]);
                let got = crc32fast::hash(&raw);
                if got != want {
                    return Err(corrupt(format!(
                        "checksum mismatch (CRC-32 {got:#010x}, stored {want:#010x})"
                    )));
                }
            }
            Ok(match width {
                1 => Values::U8(raw),
                2 => {
                    let (p0, p1) = raw.split_at(n);
                    Values::U16(
                        p0.iter()
                            .zip(p1)
                            .map(|(&a, &b)| u16::from_le_bytes([a, b]))
                            .collect(),
                    )
                }
                _ => Values::U32(
                    (0..n)
                        .map(|i| {
                            u32::from_le_bytes([raw[i], raw[n + i], raw[2 * n + i], raw[3 * n + i]])
                        })
                        .collect(),
                ),
            })
        }
        other => Err(corrupt(format!(
            "unknown chunk format {other} (written by a newer version?)"
        ))),
    }
}

/// The legacy encoding (raw u32 little-endian), for tests that build old databases.
#[doc(hidden)]
pub fn encode_legacy(values: &[u32]) -> Vec<u8> {
    values.iter().flat_map(|v| v.to_le_bytes()).collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    fn round_trip(values: &[u32]) -> Values {
        let e = encode(Values::from_u32(values).as_ref()).unwrap();
        assert_eq!(e.format, FORMAT_V2);
        assert_eq!(e.count, values.len());
        let d = decode(e.format, &e.data, Some(e.count as i64), "t").unwrap();
        assert_eq!(d.to_u32_vec(), values);
        d
    }

    #[test]
    fn round_trips_in_each_width() {
        let small: Vec<u32> = (0..CHUNK as u32).map(|i| i % 7).collect();
        assert_eq!(round_trip(&small).width(), 1);
        let mid: Vec<u32> = (0..1000).map(|i| i * 60).collect();
        assert_eq!(round_trip(&mid).width(), 2);
        let big: Vec<u32> = (0..1000).map(|i| i * 1_000_000 % (1 << 30)).collect();
        assert_eq!(round_trip(&big).width(), 4);
        assert_eq!(round_trip(&[0]).width(), 1);
        assert_eq!(round_trip(&[255, 256]).width(), 2);
        assert_eq!(round_trip(&[65_535]).width(), 2);
        assert_eq!(round_trip(&[65_536]).width(), 4);
        assert_eq!(round_trip(&[u32::MAX]).width(), 4);
    }

    #[test]
    fn each_chunk_takes_its_own_narrowest_width() {
        // Held as u32 in memory, but this chunk's values fit one byte.
        let held = Values::U32(vec![1, 2, 3, 250]);
        let e = encode(held.as_ref()).unwrap();
        assert_eq!(e.data[1], 1);
        let d = decode(e.format, &e.data, None, "t").unwrap();
        assert_eq!(d, Values::U8(vec![1, 2, 3, 250]));
    }

    #[test]
    fn small_values_compress_below_a_byte_each() {
        let periodic: Vec<u32> = (0..CHUNK as u32)
            .map(|i| [0, 1, 2, 0, 3, 1][i as usize % 6])
            .collect();
        let e = encode(Values::from_u32(&periodic).as_ref()).unwrap();
        assert!(e.data.len() < CHUNK / 10, "{} bytes", e.data.len());
    }

    #[test]
    fn a_checksum_catches_what_decompresses() {
        let values: Vec<u32> = (0..5000).map(|i| (i * 7 + i / 13) % 64).collect();
        let good = encode(Values::from_u32(&values).as_ref()).unwrap().data;
        // A stored checksum that does not match the planes.
        let mut bad = good.clone();
        bad[6] ^= 1;
        assert!(corrupt(FORMAT_V2, &bad, None).contains("checksum"));
        // Any single flipped bit in the frame: an error (a checksum or a zstd one), never
        // other values.
        for at in HEADER_V2..good.len() {
            for bit in [0, 3, 7] {
                let mut bad = good.clone();
                bad[at] ^= 1 << bit;
                if let Ok(v) = decode(FORMAT_V2, &bad, None, "t") {
                    assert_eq!(v.to_u32_vec(), values, "byte {at} bit {bit}");
                }
            }
        }
        // A format-1 chunk (no checksum), as written before format 2, still reads.
        let mut v1 = vec![MAGIC_V1];
        v1.extend_from_slice(&good[1..HEADER]);
        v1.extend_from_slice(&good[HEADER_V2..]);
        let d = decode(FORMAT_V1, &v1, Some(5000), "t").unwrap();
        assert_eq!(d.to_u32_vec(), values);
    }

    #[test]
    fn payload_is_byte_planes() {
        let v = Values::from_u32(&[0x0102, 0x0304, 0x0005]);
        assert_eq!(planes(v.as_ref(), 2), [0x02, 0x04, 0x05, 0x01, 0x03, 0x00]);
        let v = Values::U32(vec![0x0A0B_0C0D, 7]);
        assert_eq!(planes(v.as_ref(), 4), [0x0D, 7, 0x0C, 0, 0x0B, 0, 0x0A, 0]);
        assert_eq!(planes(v.as_ref().slice(1..), 1), [7]);
    }

    #[test]
    fn reads_legacy_chunks() {
        let values = [0u32, 1, 2, 300, 70_000];
        let d = decode(FORMAT_LEGACY, &encode_legacy(&values), None, "t").unwrap();
        assert_eq!(d.to_u32_vec(), values);
        assert_eq!(d.width(), 4);
        let d = decode(FORMAT_LEGACY, &encode_legacy(&[0, 1, 2]), None, "t").unwrap();
        assert_eq!(d, Values::U8(vec![0, 1, 2]));
        assert!(decode(FORMAT_LEGACY, &[], None, "t").unwrap().is_empty());
        assert!(matches!(
            decode(FORMAT_LEGACY, &[1, 2, 3], None, "t"),
            Err(StoreError::Corrupt(_))
        ));
        assert!(matches!(
            decode(FORMAT_LEGACY, &vec![0; 4 * CHUNK + 4], None, "t"),
            Err(StoreError::Corrupt(_))
        ));
    }

    fn corrupt(format: i64, data: &[u8], count: Option<i64>) -> String {
        match decode(format, data, count, "code 0.6 chunk 3") {
            Err(StoreError::Corrupt(m)) => {
                assert!(m.starts_with("code 0.6 chunk 3: "), "{m}");
                m
            }
            other => panic!("expected Corrupt, got {other:?}"),
        }
    }

    #[test]
    fn corrupt_chunks_are_errors_not_panics() {
        let values: Vec<u32> = (0..5000).map(|i| i % 300).collect();
        let good = encode(Values::from_u32(&values).as_ref()).unwrap().data;
        assert_eq!(good[1], 2);
        // Truncated anywhere: header or frame.
        for cut in [
            0,
            1,
            5,
            HEADER_V2,
            HEADER_V2 + 1,
            good.len() / 2,
            good.len() - 1,
        ] {
            corrupt(FORMAT_V2, &good[..cut], None);
        }
        // Bad magic.
        let mut bad = good.clone();
        bad[0] = 0;
        assert!(corrupt(FORMAT_V2, &bad, None).contains("magic"));
        // Bad widths.
        for w in [0u8, 3, 5, 8, 255] {
            let mut bad = good.clone();
            bad[1] = w;
            assert!(corrupt(FORMAT_V2, &bad, None).contains("width"));
        }
        // A width that decompresses to the wrong number of bytes.
        let mut bad = good.clone();
        bad[1] = 1;
        corrupt(FORMAT_V2, &bad, None);
        // Wrong counts: fewer, more, zero, above a chunk, disagreeing with the row.
        for n in [4999u32, 5001, 0, CHUNK as u32 + 1, u32::MAX] {
            let mut bad = good.clone();
            bad[2..6].copy_from_slice(&n.to_le_bytes());
            corrupt(FORMAT_V2, &bad, None);
        }
        assert!(corrupt(FORMAT_V2, &good, Some(4999)).contains("row"));
        // Garbage frames.
        let mut bad = good.clone();
        for b in &mut bad[HEADER_V2..] {
            *b ^= 0x5A;
        }
        corrupt(FORMAT_V2, &bad, None);
        // A new chunk read as legacy, a legacy one read as new, an unknown format.
        let odd = if good.len().is_multiple_of(4) {
            good.len() - 1
        } else {
            good.len()
        };
        corrupt(FORMAT_LEGACY, &good[..odd], None);
        corrupt(FORMAT_V2, &encode_legacy(&values), None);
        assert!(corrupt(3, &good, None).contains("format"));
        // The untouched chunk still decodes.
        assert_eq!(
            decode(FORMAT_V2, &good, Some(5000), "t")
                .unwrap()
                .to_u32_vec(),
            values
        );
    }

    proptest! {
        #[test]
        fn any_chunk_round_trips(
            values in (prop_oneof![Just(3u32), Just(255), Just(256), Just(65_535), Just(u32::MAX)], 1usize..3000)
                .prop_flat_map(|(max, len)| prop::collection::vec(0..=max, len))
        ) {
            let e = encode(Values::from_u32(&values).as_ref()).unwrap();
            let d = decode(e.format, &e.data, Some(e.count as i64), "t").unwrap();
            prop_assert_eq!(d.width(), width_for(values.iter().copied().max().unwrap_or(0)));
            prop_assert_eq!(d.to_u32_vec(), values);
        }

        #[test]
        fn arbitrary_bytes_never_panic(data in prop::collection::vec(any::<u8>(), 0..200), format in 0i64..3) {
            let _ = decode(format, &data, None, "t");
            let mut with_header = vec![MAGIC_V1, 1, 10, 0, 0, 0];
            with_header.extend_from_slice(&data);
            let _ = decode(FORMAT_V1, &with_header, None, "t");
            let mut with_header = vec![MAGIC_V2, 1, 10, 0, 0, 0, 1, 2, 3, 4];
            with_header.extend_from_slice(&data);
            let _ = decode(FORMAT_V2, &with_header, None, "t");
        }
    }
}
