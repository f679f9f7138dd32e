//! A standing catalogue of hostile inputs against every endpoint, in-process (the router is
//! called directly, no socket): malformed and deeply nested JSON, numbers in every notation at
//! every boundary, duplicate keys, unicode and control characters in codes and ordinals, huge
//! and tampered cursors and ids, wrong content types, path tricks. For each input it asserts the
//! exact status, that an error is an RFC 9457 problem document whose `type` is served by the
//! service and which names the field at fault (or names none, for errors about the request as a
//! whole), that nothing is a 5xx, and that every answer comes within a bounded time.
//!
//! Every case is listed by the failure report (`cargo test --test hostile_inputs -- --nocapture`
//! prints the count per endpoint).

mod common;

use std::collections::BTreeMap;
use std::time::{Duration, Instant};

use axum::body::Body;
use axum::http::{Method, Request};
use grundy::config::Config;
use serde_json::Value;
use tower::ServiceExt;

/// What a case must answer.
#[derive(Debug, Clone, PartialEq)]
enum Expect {
    /// A 2xx status.
    Ok(u16),
    /// A problem with this status naming this field.
    Field(u16, String),
    /// A problem with this status about the request as a whole (no `field`).
    Whole(u16),
}

use Expect::{Field, Ok as Okay, Whole};

fn field(status: u16, f: impl Into<String>) -> Expect {
    Field(status, f.into())
}

#[derive(Debug, Clone)]
struct Case {
    group: &'static str,
    method: Method,
    uri: String,
    content_type: Option<String>,
    body: Vec<u8>,
    expect: Expect,
}

fn post(group: &'static str, uri: &str, body: impl Into<Vec<u8>>, expect: Expect) -> Case {
    Case {
        group,
        method: Method::POST,
        uri: uri.to_owned(),
        content_type: Some("application/json".into()),
        body: body.into(),
        expect,
    }
}

fn get(group: &'static str, uri: impl Into<String>, expect: Expect) -> Case {
    Case {
        group,
        method: Method::GET,
        uri: uri.into(),
        content_type: None,
        body: Vec::new(),
        expect,
    }
}

/// Small limits so that boundaries are cheap to reach.
const BODY_LIMIT: usize = 64 * 1024;
const OCTAL_MAX_N: u64 = 1000;
const JOB_MAX_N: u64 = 1000;
const U64_MAX: u128 = u64::MAX as u128;

/// A JSON body endpoint: its path, a valid body, the status a valid body gets, and the first
/// required field (the one a missing-field error names).
struct Endpoint {
    path: &'static str,
    valid: &'static str,
    ok: u16,
    first_required: &'static str,
}

const ENDPOINTS: &[Endpoint] = &[
    Endpoint {
        path: "/v1/welter/value",
        valid: r#"{"position": [1, 3, 7, 8, 11, 19]}"#,
        ok: 200,
        first_required: "position",
    },
    Endpoint {
        path: "/v1/welter/winning-moves",
        valid: r#"{"position": [1, 3, 7, 8, 11, 19], "play": "misere"}"#,
        ok: 200,
        first_required: "position",
    },
    Endpoint {
        path: "/v1/welter/primes",
        valid: r#"{"position": [1, 5, 7], "target": 0}"#,
        ok: 200,
        first_required: "position",
    },
    Endpoint {
        path: "/v1/welter/explain",
        valid: r#"{"position": [1, 3, 7, 8, 11, 19]}"#,
        ok: 200,
        first_required: "position",
    },
    Endpoint {
        path: "/v1/max-welter/value",
        valid: r#"{"position": [1, 3, 7]}"#,
        ok: 200,
        first_required: "position",
    },
    Endpoint {
        path: "/v1/max-welter/winning-moves",
        valid: r#"{"position": [1, 3, 7]}"#,
        ok: 200,
        first_required: "position",
    },
    Endpoint {
        path: "/v1/antonim/value",
        valid: r#"{"position": [0, 0, 3, 5]}"#,
        ok: 200,
        first_required: "position",
    },
    Endpoint {
        path: "/v1/antonim/winning-moves",
        valid: r#"{"position": [0, 0, 3, 5]}"#,
        ok: 200,
        first_required: "position",
    },
    Endpoint {
        path: "/v1/antimatter/value",
        valid: r#"{"positrons": [1, 4], "electrons": [2]}"#,
        ok: 200,
        first_required: "positrons",
    },
    Endpoint {
        path: "/v1/antimatter/winning-moves",
        valid: r#"{"positrons": [1, 4], "electrons": [2]}"#,
        ok: 200,
        first_required: "positrons",
    },
    Endpoint {
        path: "/v1/transfinite/nim/value",
        valid: r#"{"position": ["1", "w*2+4"]}"#,
        ok: 200,
        first_required: "position",
    },
    Endpoint {
        path: "/v1/transfinite/nim/winning-moves",
        valid: r#"{"position": ["1", "w*2+4"]}"#,
        ok: 200,
        first_required: "position",
    },
    Endpoint {
        path: "/v1/transfinite/welter/value",
        valid: r#"{"position": ["1", "w*2+4"]}"#,
        ok: 200,
        first_required: "position",
    },
    Endpoint {
        path: "/v1/transfinite/welter/winning-moves",
        valid: r#"{"position": ["1", "w*2+4"]}"#,
        ok: 200,
        first_required: "position",
    },
    Endpoint {
        path: "/v1/octal/sequence",
        valid: r#"{"code": "0.07", "n": 20}"#,
        ok: 200,
        first_required: "code",
    },
    Endpoint {
        path: "/v1/octal/winning-moves",
        valid: r#"{"code": "0.07", "heaps": [5, 9, 20]}"#,
        ok: 200,
        first_required: "code",
    },
    Endpoint {
        path: "/v1/octal/jobs",
        valid: r#"{"code": "0.6", "max_n": 100}"#,
        ok: 202,
        first_required: "code",
    },
];

/// Attacks on the body as a whole, the same for every JSON endpoint.
fn body_cases(cases: &mut Vec<Case>) {
    for e in ENDPOINTS {
        let p = e.path;
        let valid = e.valid;
        let inner = &valid[1..valid.len() - 1]; // the members, without braces
        let whole = |body: Vec<u8>, status| post("body", p, body, Whole(status));
        cases.push(post("body", p, valid, Okay(e.ok)));
        for b in [
            "",
            "   \n\t",
            "null",
            "true",
            "42",
            "-1e400",
            "\"{}\"",
            "[]",
            "[{}]",
            "{",
            "}",
            "{\"",
            "/* comment */ {}",
        ] {
            cases.push(whole(b.as_bytes().to_vec(), 400));
        }
        // Syntax errors inside the value of a known field (serde refuses an unknown field
        // before reading its value, so these use the first required field).
        let first = e.first_required;
        let broken_strings = [
            "\"\\ud800\"",
            "\"\\x41\"",
            "\"tab\there\"",
            "\"unterminated",
            "\"a\" \"b\"",
            "\"a\",",
            "\"\\u00\"",
        ];
        let broken_numbers = [
            "NaN",
            "Infinity",
            "-Infinity",
            "0x10",
            "01",
            "+1",
            ".5",
            "1.",
            "1e",
            "-",
            "tru",
            "nul",
            "1,",
            "1 2",
            "\"\\ud800\"",
        ];
        let (template, broken): (&str, &[&str]) = match first {
            "code" => ("#", &broken_strings),
            _ if p.contains("transfinite") => ("[#]", &broken_strings),
            _ => ("[#]", &broken_numbers),
        };
        for v in broken {
            let value = template.replace('#', v);
            cases.push(whole(format!("{{\"{first}\": {value}}}").into_bytes(), 400));
        }
        cases.push(whole(format!("{{\"{first}\" [1]}}").into_bytes(), 400));
        cases.push(whole(format!("{{'{first}': [1]}}").into_bytes(), 400));
        cases.push(whole(format!("{{{first}: [1]}}").into_bytes(), 400));
        cases.push(whole(
            [format!("{{\"{first}\": \"").as_bytes(), b"\xff\xfe\"}"].concat(),
            400,
        ));
        cases.push(whole(format!("{valid} x").into_bytes(), 400));
        cases.push(whole(format!("{valid}}}").into_bytes(), 400));
        cases.push(whole(format!("{valid}{valid}").into_bytes(), 400));
        cases.push(whole(format!("{{{inner},}}").into_bytes(), 400));
        cases.push(whole(format!("\u{feff}{valid}").into_bytes(), 400));
        cases.push(whole([valid.as_bytes(), b"\0"].concat(), 400));
        cases.push(whole(
            (0..3000u32)
                .map(|i| (i.wrapping_mul(2_654_435_761) >> 13) as u8)
                .collect(),
            400,
        ));
        // Deep nesting: serde_json's recursion limit answers, the stack never overflows.
        let deep = format!("{}1{}", "[".repeat(20_000), "]".repeat(20_000));
        cases.push(whole(deep.into_bytes(), 400));
        let deep_obj = format!("[{}1{}]", "{\"a\":[".repeat(8_000), "]}".repeat(8_000));
        cases.push(whole(deep_obj.into_bytes(), 400));
        let vec_field = first != "code";
        let typed = if vec_field {
            format!("{first}[0]")
        } else {
            first.to_owned()
        };
        let deep_field = format!(
            "{{\"{first}\": [{}1{}]}}",
            "[".repeat(20_000),
            "]".repeat(20_000)
        );
        cases.push(post("body", p, deep_field, field(400, typed)));
        // A missing required field, unknown fields and duplicate keys name the field.
        cases.push(post("body", p, "{}", field(422, e.first_required)));
        cases.push(post(
            "body",
            p,
            format!("{{{inner}, \"extra\": 1}}"),
            field(422, "extra"),
        ));
        cases.push(post(
            "body",
            p,
            format!("{{{inner}, \"pösítion\": []}}"),
            field(422, "pösítion"),
        ));
        cases.push(post(
            "body",
            p,
            format!("{{{inner}, \"\\u0000\": []}}"),
            field(422, "\u{0}"),
        ));
        cases.push(post(
            "body",
            p,
            format!("{{{inner}, \"\": null}}"),
            field(422, ""),
        ));
        cases.push(post(
            "body",
            p,
            format!("{{{inner}, \"{}\": null}}", e.first_required),
            field(422, e.first_required),
        ));
        let nested_unknown = format!(
            "{{{inner}, \"x\": {}1{}}}",
            "{\"a\":".repeat(5_000),
            "}".repeat(5_000)
        );
        cases.push(post("body", p, nested_unknown, field(422, "x")));
        // The first required field with the wrong JSON type.
        let wrongs: &[&str] = if vec_field {
            &["{}", "true", "\"\"", "1", "{\"a\": [1]}"]
        } else {
            &["{}", "true", "1", "[\"0.07\"]", "null"]
        };
        for wrong in wrongs {
            cases.push(post(
                "body",
                p,
                format!("{{\"{first}\": {wrong}}}"),
                field(400, first),
            ));
        }
        // Content types: JSON and +json are accepted, everything else is a 415.
        for (ct, expect) in [
            (Some("application/json; charset=utf-8"), Okay(e.ok)),
            (Some("APPLICATION/JSON"), Okay(e.ok)),
            (Some("application/problem+json"), Okay(e.ok)),
            (Some("application/vnd.api+json;v=2"), Okay(e.ok)),
            (None, Whole(415)),
            (Some("text/plain"), Whole(415)),
            (Some("text/json"), Whole(415)),
            (Some("application/x-www-form-urlencoded"), Whole(415)),
            (Some("multipart/form-data; boundary=x"), Whole(415)),
            (Some("application/jsonp"), Whole(415)),
            (Some("application/+json"), Whole(415)),
            (Some("application/json-patch"), Whole(415)),
            (Some(""), Whole(415)),
            (Some("*/*"), Whole(415)),
        ] {
            let mut c = post("content-type", p, valid, expect);
            c.content_type = ct.map(str::to_owned);
            cases.push(c);
        }
        // Over the body limit, even when the JSON is fine.
        let big = format!("{{{inner}{}}}", " ".repeat(BODY_LIMIT));
        cases.push(post("body", p, big, Whole(413)));
        // A wrong method on the path.
        for m in [Method::GET, Method::PUT, Method::PATCH] {
            if p == "/v1/octal/jobs" && m == Method::GET {
                continue; // the job list
            }
            let mut c = post("method", p, valid, Whole(405));
            c.method = m;
            cases.push(c);
        }
    }
}

/// How a number literal must be read: exactly, or refused for one reason.
#[derive(Clone, Copy, Debug)]
enum Lit {
    /// An exact integer value (float forms included).
    Int(i128),
    /// A value that is not an integer.
    Fraction,
    /// Not a JSON number at all (a syntax error: 400, no field).
    Syntax,
    /// Another JSON type (400 naming the field).
    WrongType,
    /// `null`.
    Null,
}

fn literals() -> Vec<(&'static str, Lit)> {
    use Lit::{Fraction, Int, Null, Syntax, WrongType};
    let p53 = 1i128 << 53;
    let max = U64_MAX as i128;
    vec![
        ("0", Int(0)),
        ("-0", Int(0)),
        ("0.0", Int(0)),
        ("-0.0", Int(0)),
        ("0e0", Int(0)),
        ("0E+5", Int(0)),
        ("1", Int(1)),
        ("1.0", Int(1)),
        ("1e0", Int(1)),
        ("10e-1", Int(1)),
        ("0.1e1", Int(1)),
        ("100E-2", Int(1)),
        ("20", Int(20)),
        ("2e1", Int(20)),
        ("1000", Int(1000)),
        ("1e3", Int(1000)),
        ("1001", Int(1001)),
        ("1.001e3", Int(1001)),
        ("10000", Int(10_000)),
        ("10001", Int(10_001)),
        ("9007199254740992", Int(p53)),
        ("9007199254740993", Int(p53 + 1)),
        ("9007199254740993e0", Int(p53 + 1)),
        ("9.007199254740993e15", Int(p53 + 1)),
        ("123456789012345678.9e1", Int(1_234_567_890_123_456_789)),
        ("1e19", Int(10_000_000_000_000_000_000)),
        ("18446744073709551615", Int(max)),
        ("18446744073709551615e0", Int(max)),
        ("1.8446744073709551615e19", Int(max)),
        ("18446744073709551615.000", Int(max)),
        ("18446744073709551616", Int(max + 1)),
        ("1.8446744073709551616e19", Int(max + 1)),
        ("1e20", Int(100_000_000_000_000_000_000)),
        (
            "99999999999999999999999999",
            Int(99_999_999_999_999_999_999_999_999),
        ),
        ("1e400", Int(i128::MAX)),
        ("1e999999999999999999999", Int(i128::MAX)),
        ("-1", Int(-1)),
        ("-1e0", Int(-1)),
        ("-1.0", Int(-1)),
        ("-9223372036854775808", Int(-(1 << 63))),
        ("-9223372036854775809", Int(-(1 << 63) - 1)),
        ("-1e400", Int(i128::MIN)),
        ("1.5", Fraction),
        ("0.5", Fraction),
        ("2.5e0", Fraction),
        ("-0.5", Fraction),
        ("4.0000000000000001", Fraction),
        ("9007199254740993.5", Fraction),
        ("18446744073709551614.5", Fraction),
        ("1e-400", Fraction),
        ("1.00000000000000000001e1", Fraction),
        ("01", Syntax),
        ("+1", Syntax),
        (".5", Syntax),
        ("1.", Syntax),
        ("1e", Syntax),
        ("0x10", Syntax),
        ("1_000", Syntax),
        ("NaN", Syntax),
        ("Infinity", Syntax),
        ("\u{0661}", Syntax),
        ("\"1\"", WrongType),
        ("true", WrongType),
        ("[1]", WrongType),
        ("{}", WrongType),
        ("null", Null),
    ]
}

/// Every integer field: a body template with `#` where the literal goes, the field's JSON path,
/// the accepted range, the success status, and whether `null` means "absent" (optional field).
struct IntField {
    path: &'static str,
    template: &'static str,
    field: &'static str,
    range: (i128, i128),
    ok: u16,
    optional: bool,
}

fn int_fields() -> Vec<IntField> {
    let all = (0, U64_MAX as i128);
    let f = |path, template, field, range, ok, optional| IntField {
        path,
        template,
        field,
        range,
        ok,
        optional,
    };
    vec![
        f(
            "/v1/welter/value",
            r#"{"position": [#]}"#,
            "position[0]",
            all,
            200,
            false,
        ),
        f(
            "/v1/welter/winning-moves",
            r#"{"position": [3, #]}"#,
            "position[1]",
            all,
            200,
            false,
        ),
        f(
            "/v1/welter/primes",
            r#"{"position": [#]}"#,
            "position[0]",
            all,
            422,
            false,
        ),
        f(
            "/v1/welter/primes",
            r#"{"position": [1, 5, 7], "target": #}"#,
            "target",
            all,
            200,
            false,
        ),
        f(
            "/v1/welter/explain",
            r#"{"position": [#]}"#,
            "position[0]",
            all,
            200,
            false,
        ),
        f(
            "/v1/max-welter/winning-moves",
            r#"{"position": [#]}"#,
            "position[0]",
            all,
            200,
            false,
        ),
        f(
            "/v1/antonim/value",
            r#"{"position": [#]}"#,
            "position[0]",
            all,
            200,
            false,
        ),
        f(
            "/v1/antimatter/value",
            r#"{"positrons": [#], "electrons": []}"#,
            "positrons[0]",
            all,
            200,
            false,
        ),
        f(
            "/v1/antimatter/winning-moves",
            r#"{"positrons": [], "electrons": [#]}"#,
            "electrons[0]",
            all,
            200,
            false,
        ),
        f(
            "/v1/octal/sequence",
            r#"{"code": "0.07", "n": #}"#,
            "n",
            (0, OCTAL_MAX_N as i128),
            200,
            false,
        ),
        f(
            "/v1/octal/winning-moves",
            r#"{"code": "0.07", "heaps": [#]}"#,
            "heaps[0]",
            all,
            200,
            false,
        ),
        f(
            "/v1/octal/winning-moves",
            r#"{"code": "0.07", "heaps": [5, 9, 20], "limit": #}"#,
            "limit",
            (1, 10_000),
            200,
            true,
        ),
        f(
            "/v1/octal/jobs",
            r#"{"code": "0.6", "max_n": #}"#,
            "max_n",
            (1, JOB_MAX_N as i128),
            202,
            false,
        ),
    ]
}

fn number_cases(cases: &mut Vec<Case>) {
    for f in int_fields() {
        for (lit, class) in literals() {
            let body = f.template.replace('#', lit);
            let expect = match class {
                Lit::Int(v) if (f.range.0..=f.range.1).contains(&v) => {
                    if f.ok < 300 {
                        Okay(f.ok)
                    } else {
                        // /v1/welter/primes needs a target: the position alone is a 422.
                        field(f.ok, "target")
                    }
                }
                Lit::Int(_) | Lit::Fraction => field(422, f.field),
                Lit::Syntax => Whole(400),
                Lit::WrongType => field(400, f.field),
                Lit::Null if f.optional => Okay(f.ok),
                Lit::Null => field(400, f.field),
            };
            cases.push(post("numbers", f.path, body, expect));
        }
    }
}

/// Game codes with unicode, control characters and near misses, in bodies and in paths.
fn code_cases(cases: &mut Vec<Case>) {
    let bad_codes = [
        "",
        " ",
        "\t",
        "..",
        "0..7",
        "0.7.",
        "0",
        "07",
        "1.07",
        "3.7",
        "0.07g",
        "0.0 7",
        "0.(",
        "0.()",
        "0.(3",
        "0.3)",
        "0.(3)(3)",
        "0.(3)3",
        "0.((3))",
        "(3).0",
        "S",
        "S(",
        "S()",
        "S(1,",
        "S(,1)",
        "S(0)",
        "S(1025)",
        "S(-1)",
        "S(1.5)",
        "S(18446744073709551616)",
        "S(1)x",
        "S 1",
        "s[1]",
        "SS(1)",
        "\u{0}",
        "0.07\u{0}",
        "\u{0}0.07",
        "0.0\u{7}7",
        "０.07",
        "0.０7",
        "0.07\u{202e}",
        "\u{202e}0.07",
        "0.\u{200b}07",
        "0·07",
        "0,07",
        "💥",
        "0.07💥",
        "w",
        "ω",
        "grundy\u{0}",
        "nim",
        "0.777777777777777777777777777777777777777777777777777777777777777777",
        "\\u0030.07",
        "%30.07",
        "0.07;DROP TABLE jobs",
        "<script>",
        "0.07\n0.07",
    ];
    for code in bad_codes {
        let body = serde_json::json!({"code": code, "n": 5}).to_string();
        cases.push(post(
            "codes",
            "/v1/octal/sequence",
            body,
            field(422, "code"),
        ));
        let body = serde_json::json!({"code": code, "heaps": [1]}).to_string();
        cases.push(post(
            "codes",
            "/v1/octal/winning-moves",
            body,
            field(422, "code"),
        ));
        let body = serde_json::json!({"code": code, "max_n": 5}).to_string();
        cases.push(post("codes", "/v1/octal/jobs", body, field(422, "code")));
        let body = serde_json::json!({"codes": ["0.6", code], "max_n": 5}).to_string();
        cases.push(post(
            "codes",
            "/v1/octal/census",
            body,
            field(422, "codes[1]"),
        ));
        if !code.is_empty() {
            let uri = format!("/v1/octal/{}/value/1", percent_encode(code));
            cases.push(get("codes", uri, field(422, "code")));
        }
    }
    let long = "7".repeat(30_000);
    let body = format!("{{\"code\": \"0.{long}\", \"n\": 5}}");
    cases.push(post(
        "codes",
        "/v1/octal/sequence",
        body,
        field(422, "code"),
    ));
    let body = format!(
        "{{\"code\": \"S({})\", \"n\": 5}}",
        "1,".repeat(20_000) + "1"
    );
    cases.push(post("codes", "/v1/octal/sequence", body, Okay(200)));
    for good in [
        "0.07",
        " 0.07 ",
        "0.7",
        ".07",
        "4.07",
        "0.(3)",
        "4.(3)",
        "0.F",
        "0.f",
        "S(1,2,5)",
        "s( 1 , 2 )",
        "S(0001)",
        "\u{3000}0.07",
    ] {
        let body = serde_json::json!({"code": good, "n": 5}).to_string();
        cases.push(post("codes", "/v1/octal/sequence", body, Okay(200)));
    }
    // Heap in the path: every notation a client might try.
    for (heap, expect) in [
        ("0", Okay(200)),
        ("18446744073709551615", Okay(200)),
        ("18446744073709551616", field(422, "heap")),
        ("99999999999999999999999999999", field(422, "heap")),
        ("-1", field(422, "heap")),
        ("1.0", field(422, "heap")),
        ("1e3", field(422, "heap")),
        ("0x10", field(422, "heap")),
        ("abc", field(422, "heap")),
        ("%00", field(422, "heap")),
        ("%FF", field(400, "heap")),
        ("1%20", Okay(200)),
        ("%E2%80%AE1", field(422, "heap")),
        ("%EF%BC%91", field(422, "heap")),
    ] {
        cases.push(get("paths", format!("/v1/octal/0.07/value/{heap}"), expect));
    }
    cases.push(get("paths", "/v1/octal/%FF/value/1", field(400, "code")));
    cases.push(get("paths", "/v1/octal/0.07/value/", Whole(404)));
    cases.push(get("paths", "/v1/octal//value/1", field(422, "code")));
    cases.push(get("paths", "/v1/octal/0.07/value/1/2", Whole(404)));
    cases.push(get(
        "paths",
        "/v1/octal/0.07%2Fvalue/value/1",
        field(422, "code"),
    ));
    cases.push(get(
        "paths",
        "/v1/octal/..%2F..%2Fetc%2Fpasswd/value/1",
        field(422, "code"),
    ));
    cases.push(get(
        "paths",
        format!("/v1/octal/{}/value/1", "7".repeat(20_000)),
        field(422, "code"),
    ));
}

/// Ordinals: unicode, control characters, nesting and size at the parser's limits.
fn ordinal_cases(cases: &mut Vec<Case>) {
    let paths = [
        "/v1/transfinite/nim/value",
        "/v1/transfinite/nim/winning-moves",
        "/v1/transfinite/welter/value",
        "/v1/transfinite/welter/winning-moves",
    ];
    let nest = |n: usize| format!("{}1{}", "(".repeat(n), ")".repeat(n));
    let tower = |n: usize| vec!["w"; n].join("^");
    let bad: Vec<String> = vec![
        "".into(),
        " ".into(),
        "w^".into(),
        "^w".into(),
        "w^^2".into(),
        "w+".into(),
        "+w".into(),
        "w*".into(),
        "w**2".into(),
        "()".into(),
        "(w".into(),
        "w)".into(),
        "-1".into(),
        "1.5".into(),
        "1e3".into(),
        "W".into(),
        "Ω".into(),
        "ω\u{0}".into(),
        "\u{0}".into(),
        "w\u{202e}".into(),
        "w\u{200b}+1".into(),
        "ｗ".into(),
        "１".into(),
        "💥".into(),
        "e0".into(),
        "18446744073709551616".into(),
        "w*18446744073709551616".into(),
        "w^18446744073709551616".into(),
        "18446744073709551615+1".into(),
        "w^(w^(w^(w^w)))x".into(),
        nest(100),
        nest(10_000),
        format!("{}w", "w^".repeat(5_000)),
        tower(200),
        "w+".repeat(6_000) + "1",
        "9".repeat(20_000),
    ];
    for p in paths {
        for o in &bad {
            let body = serde_json::json!({"position": [o]}).to_string();
            cases.push(post("ordinals", p, body, field(422, "position[0]")));
            let body = serde_json::json!({"position": ["w", o]}).to_string();
            cases.push(post("ordinals", p, body, field(422, "position[1]")));
        }
        for good in [
            "0",
            "w",
            "ω",
            "ω·2+1",
            " w ^ 2 * 3 + 1 ",
            "(w+1)*2",
            "2^w",
            "18446744073709551615",
            &nest(20),
            &tower(5),
        ] {
            let body = serde_json::json!({"position": [good]}).to_string();
            cases.push(post("ordinals", p, body, Okay(200)));
        }
    }
}

/// Cursors and ids: huge, tampered, unicode, injection-shaped.
fn cursor_and_id_cases(cases: &mut Vec<Case>) {
    let big = "A".repeat(30_000);
    for cursor in [
        "x",
        "-1",
        "0",
        "99999999999999999999",
        "\u{0}",
        "💥",
        "' OR 1=1 --",
        "eyJ9",
        big.as_str(),
    ] {
        let body =
            serde_json::json!({"code": "0.07", "heaps": [5, 9, 20], "cursor": cursor}).to_string();
        cases.push(post(
            "cursors",
            "/v1/octal/winning-moves",
            body,
            field(422, "cursor"),
        ));
        let uri = format!("/v1/octal/jobs?cursor={}", percent_encode(cursor));
        cases.push(get("cursors", uri, field(422, "cursor")));
    }
    for cursor in ["abc:x", "1.5:x", "99999999999999999999:x", "%FF:x"] {
        cases.push(get(
            "cursors",
            format!("/v1/octal/jobs?cursor={cursor}"),
            field(422, "cursor"),
        ));
    }
    for (q, expect) in [
        ("", Okay(200)),
        ("cursor=", Okay(200)),
        ("cursor=0:x", Okay(200)),
        ("cursor=1:", Okay(200)),
        ("cursor=-9223372036854775808:x", Okay(200)),
        ("limit=1", Okay(200)),
        ("limit=1000", Okay(200)),
        ("limit=%31", Okay(200)),
        ("unknown=1", Okay(200)),
        ("limit=0", field(422, "limit")),
        ("limit=1001", field(422, "limit")),
        ("limit=-1", field(422, "limit")),
        ("limit=681250655567", field(422, "limit")),
        ("limit=18446744073709551616", field(422, "limit")),
        ("limit=1e2", field(422, "limit")),
        ("limit=1.0", field(422, "limit")),
        ("limit=abc", field(422, "limit")),
        ("limit=", field(422, "limit")),
        ("limit=%00", field(422, "limit")),
        ("limit=%FF", field(422, "limit")),
        ("limit=1&limit=2", field(422, "limit")),
        ("limit[]=1", Okay(200)),
    ] {
        cases.push(get("query", format!("/v1/octal/jobs?{q}"), expect));
    }
    let long_id = "f".repeat(10_000);
    for id in [
        "nonexistent",
        "00000000-0000-0000-0000-000000000000",
        "..",
        "%2e%2e",
        "..%2F..%2Fetc%2Fpasswd",
        "%00",
        "'%20OR%201=1--",
        "%F0%9F%92%A5",
        long_id.as_str(),
    ] {
        for m in [Method::GET, Method::DELETE] {
            for kind in ["jobs", "census"] {
                let mut c = get("ids", format!("/v1/octal/{kind}/{id}"), Whole(404));
                c.method = m.clone();
                cases.push(c);
            }
        }
    }
    cases.push(get("ids", "/v1/octal/jobs/%FF", field(400, "id")));
    cases.push(get("ids", "/v1/octal/census/%FF", field(400, "id")));
}

/// Routing: unknown paths, tricks with slashes, case and encodings.
fn path_cases(cases: &mut Vec<Case>) {
    // `/` is the pages' home (tests/pages.rs); everything else here is no route.
    for p in [
        "/v1",
        "/v1/",
        "/v1/welter",
        "/v1/welter/value/",
        "//v1/welter/value",
        "/v1//welter/value",
        "/V1/welter/value",
        "/v1/WELTER/value",
        "/v1/welter/value%00",
        "/v1/welter/../welter/value",
        "/v1/welter/%2e%2e/welter/value",
        "/v1/welter/value;x",
        "/v1/octal/jobs/a/b",
        "/problems/nope",
        "/problems/INVALID-VALUE",
        "/problems/%00",
        "/problems/../healthz",
        "/%F0%9F%92%A5",
        "/.env",
        "/v1/welter/value.json",
        "/assets/0/../../healthz",
        "/index.html/x",
    ] {
        cases.push(get("paths", p, Whole(404)));
    }
    let long = format!("/v1/{}", "a".repeat(20_000));
    cases.push(get("paths", long, Whole(404)));
    for p in [
        "/",
        "/healthz",
        "/readyz",
        "/metrics",
        "/openapi.json",
        "/problems",
        "/problems/invalid-value",
        "/problems/budget-exceeded",
        "/problems/unsupported-media-type",
    ] {
        cases.push(get("paths", p, Okay(200)));
        let mut c = post("method", p, "{}", Whole(405));
        c.method = Method::DELETE;
        cases.push(c);
    }
}

fn percent_encode(s: &str) -> String {
    let mut out = String::new();
    for b in s.bytes() {
        if b.is_ascii_alphanumeric() || b"-_.~".contains(&b) {
            out.push(b as char);
        } else {
            out.push_str(&format!("%{b:02X}"));
        }
    }
    out
}

fn catalogue() -> Vec<Case> {
    let mut cases = Vec::new();
    body_cases(&mut cases);
    number_cases(&mut cases);
    code_cases(&mut cases);
    ordinal_cases(&mut cases);
    cursor_and_id_cases(&mut cases);
    path_cases(&mut cases);
    cases
}

/// The slowest answer allowed, per request: what it catches is an input that makes the server
/// hang or loop (each takes milliseconds), so it is generous on purpose — a debug build on a
/// busy one-core machine must not fail it.
const MAX_TIME: Duration = Duration::from_secs(60);

async fn app() -> axum::Router {
    let dir = std::env::temp_dir().join("grundy-tests");
    std::fs::create_dir_all(&dir).unwrap();
    let config = Config {
        max_body_bytes: BODY_LIMIT,
        octal_max_n: OCTAL_MAX_N as usize,
        job_max_n: JOB_MAX_N,
        search_max_steps: 200_000,
        search_max_entries: 100_000,
        database_url: Some(format!(
            "sqlite://{}/{}.db",
            dir.display(),
            uuid::Uuid::new_v4()
        )),
        ..common::config()
    };
    let state = grundy::service::AppState::new(config);
    state
        .connect_store()
        .await
        .expect("a temporary SQLite store");
    grundy::app::build(state)
}

fn describe(c: &Case) -> String {
    let body = String::from_utf8_lossy(&c.body);
    let shown: String = body.chars().take(120).collect();
    format!(
        "{} {} [{:?}] {:?}{}",
        c.method,
        &c.uri[..c.uri.len().min(120)],
        c.content_type,
        shown,
        if body.chars().count() > 120 {
            "…"
        } else {
            ""
        }
    )
}

/// Checks one answer; returns a failure message.
fn check(
    c: &Case,
    status: u16,
    content_type: &str,
    body: &[u8],
    took: Duration,
) -> Result<(), String> {
    let text = String::from_utf8_lossy(body);
    let text = &text[..text.len().min(400)];
    if status >= 500 {
        return Err(format!("5xx {status}: {text}"));
    }
    if took > MAX_TIME {
        return Err(format!("took {took:?}"));
    }
    let (want, want_field) = match &c.expect {
        Okay(s) => {
            return if status == *s {
                Ok(())
            } else {
                Err(format!("status {status}, expected {s}: {text}"))
            };
        }
        Field(s, f) => (*s, Some(f.as_str())),
        Whole(s) => (*s, None),
    };
    if status != want {
        return Err(format!("status {status}, expected {want}: {text}"));
    }
    if content_type != "application/problem+json" {
        return Err(format!("content type {content_type:?}: {text}"));
    }
    let p: Value = serde_json::from_slice(body).map_err(|e| format!("not JSON ({e}): {text}"))?;
    let ty = p["type"].as_str().unwrap_or_default();
    let slug = ty.strip_prefix("/problems/").unwrap_or_default();
    if ![
        "bad-request",
        "invalid-value",
        "budget-exceeded",
        "unsupported-media-type",
        "payload-too-large",
        "not-found",
        "method-not-allowed",
    ]
    .contains(&slug)
    {
        return Err(format!("problem type {ty:?}: {text}"));
    }
    if p["status"] != want
        || !p["title"].is_string()
        || p["detail"].as_str().is_none_or(str::is_empty)
    {
        return Err(format!("incomplete problem document: {text}"));
    }
    match (want_field, p.get("field")) {
        (Some(f), Some(Value::String(got))) if got == f => {}
        (Some(f), got) => return Err(format!("field {got:?}, expected {f:?}: {text}")),
        (None, None) => {}
        (None, Some(got)) => return Err(format!("field {got}, expected none: {text}")),
    }
    Ok(())
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn hostile_inputs_are_refused_precisely() {
    let app = app().await;
    let cases = catalogue();
    let mut per_group: BTreeMap<&str, usize> = BTreeMap::new();
    let mut failures = Vec::new();
    let start = Instant::now();
    for c in &cases {
        *per_group.entry(c.group).or_default() += 1;
        let mut req = Request::builder().method(c.method.clone()).uri(&c.uri);
        if let Some(ct) = &c.content_type {
            req = req.header("content-type", ct);
        }
        let req = match req.body(Body::from(c.body.clone())) {
            Ok(r) => r,
            Err(e) => {
                failures.push(format!("{}: the request cannot be built: {e}", describe(c)));
                continue;
            }
        };
        let t = Instant::now();
        let resp = app.clone().oneshot(req).await.expect("infallible");
        let status = resp.status().as_u16();
        let ct = resp
            .headers()
            .get("content-type")
            .and_then(|v| v.to_str().ok())
            .unwrap_or("")
            .to_owned();
        let body = axum::body::to_bytes(resp.into_body(), 64 << 20)
            .await
            .expect("body");
        if let Err(e) = check(c, status, &ct, &body, t.elapsed()) {
            failures.push(format!("{}: {e}", describe(c)));
        }
    }
    println!(
        "{} hostile inputs in {:?}: {per_group:?}",
        cases.len(),
        start.elapsed()
    );
    assert!(
        cases.len() >= 300,
        "the catalogue has {} cases",
        cases.len()
    );
    assert!(
        failures.is_empty(),
        "{} of {} cases failed:\n{}",
        failures.len(),
        cases.len(),
        failures.join("\n")
    );
}

/// Issue #15 item 3: a float-form number is read exactly, never rounded to a neighbour.
#[tokio::test]
async fn float_forms_are_read_exactly() {
    let app = app().await;
    for (literal, square) in [
        ("9007199254740993e0", 9_007_199_254_740_993u64),
        ("9.007199254740993e15", 9_007_199_254_740_993),
        ("18446744073709551615e0", u64::MAX),
        ("1.8446744073709551615e19", u64::MAX),
        ("123456789012345678.9e1", 1_234_567_890_123_456_789),
        ("1e17", 100_000_000_000_000_000),
    ] {
        let req = Request::post("/v1/welter/value")
            .header("content-type", "application/json")
            .body(Body::from(format!("{{\"position\": [{literal}]}}")))
            .unwrap();
        let resp = app.clone().oneshot(req).await.unwrap();
        assert_eq!(resp.status().as_u16(), 200, "{literal}");
        let body: Value = serde_json::from_slice(
            &axum::body::to_bytes(resp.into_body(), 1 << 20)
                .await
                .unwrap(),
        )
        .unwrap();
        assert_eq!(body["position"], serde_json::json!([square]), "{literal}");
        // One coin on square x has Welter value x.
        assert_eq!(body["value"], serde_json::json!(square), "{literal}");
    }
}
