//! The committed OpenAPI document must equal the one generated from the code.
//! Regenerate with: `cargo run -- openapi > openapi/openapi.json`
//! (or `UPDATE_OPENAPI=1 cargo test --test openapi`).

mod common;

#[test]
fn committed_openapi_matches_generated() {
    let generated = grundy::api::openapi_json();
    let path = concat!(env!("CARGO_MANIFEST_DIR"), "/openapi/openapi.json");
    if std::env::var_os("UPDATE_OPENAPI").is_some() {
        std::fs::write(path, &generated).unwrap();
    }
    let committed = std::fs::read_to_string(path).unwrap_or_default();
    assert!(
        committed == generated,
        "openapi/openapi.json is stale: run `cargo run -- openapi > openapi/openapi.json`"
    );
}

#[test]
fn document_describes_the_contract() {
    let doc: serde_json::Value = serde_json::from_str(&grundy::api::openapi_json()).unwrap();
    assert_eq!(doc["openapi"], "3.1.0");
    for path in [
        "/v1/welter/value",
        "/v1/welter/winning-moves",
        "/v1/welter/primes",
    ] {
        let op = &doc["paths"][path]["post"];
        assert!(op.is_object(), "{path} documented");
        for status in ["200", "400", "413", "422"] {
            assert!(
                op["responses"][status].is_object(),
                "{path} documents {status}"
            );
        }
    }
    assert!(doc["components"]["schemas"]["Problem"].is_object());
}

/// OpenAPI 3.1 §4.8.12: a parameter is identified by its `name` and `in`, and an operation's
/// list must not repeat one (generators such as openapi-python-client drop the operation).
/// Every path template's parameters are documented, exactly once.
#[test]
fn no_operation_repeats_a_parameter() {
    let doc: serde_json::Value = serde_json::from_str(&grundy::api::openapi_json()).unwrap();
    for (path, ops) in doc["paths"].as_object().unwrap() {
        for (method, op) in ops.as_object().unwrap() {
            let params = op["parameters"].as_array().cloned().unwrap_or_default();
            let keys: Vec<(String, String)> = params
                .iter()
                .map(|p| {
                    (
                        p["name"].as_str().unwrap().to_owned(),
                        p["in"].as_str().unwrap().to_owned(),
                    )
                })
                .collect();
            let unique: std::collections::HashSet<_> = keys.iter().collect();
            assert_eq!(unique.len(), keys.len(), "{method} {path}: {keys:?}");
            for segment in path.split('/') {
                if let Some(name) = segment.strip_prefix('{').and_then(|s| s.strip_suffix('}')) {
                    assert!(
                        keys.contains(&(name.to_owned(), "path".to_owned())),
                        "{method} {path} documents its path parameter {name}"
                    );
                }
            }
        }
    }
}

/// Every unsigned integer parameter states its largest value (u64: 2^64 − 1): a value above
/// it is refused with a 422 (Schemathesis' random run sent `start` = 2^64 + 1 to /values, which
/// the schema allowed and the server rightly refused). Response bodies are not bounded so: the
/// Welter primes of a position near 2^64 lie beyond it, exactly.
#[test]
fn every_unsigned_integer_parameter_has_its_maximum() {
    let doc: serde_json::Value = serde_json::from_str(&grundy::api::openapi_json()).unwrap();
    let mut found = 0;
    for (path, ops) in doc["paths"].as_object().unwrap() {
        for (method, op) in ops.as_object().unwrap() {
            for p in op["parameters"].as_array().cloned().unwrap_or_default() {
                let schema = &p["schema"];
                let top = match schema["format"].as_str() {
                    Some("uint8") => u64::from(u8::MAX),
                    Some("uint16") => u64::from(u16::MAX),
                    Some("uint32") => u64::from(u32::MAX),
                    Some("uint64") => u64::MAX,
                    _ => continue,
                };
                found += 1;
                let max = schema["maximum"].as_u64();
                assert!(
                    max.is_some_and(|m| m <= top),
                    "{method} {path} {}: maximum {max:?}",
                    p["name"]
                );
            }
        }
    }
    assert!(found >= 4, "{found} unsigned integer parameters");
}

/// Whether `value` is valid against `schema`, for the keywords the request rules use
/// (`anyOf`, `allOf`, `not`, `required`, `properties`, `const`, `type`, `minimum`); any other
/// keyword in a rule fails the test, so that this check never passes by ignoring one.
fn valid(schema: &serde_json::Value, value: &serde_json::Value) -> bool {
    use serde_json::Value;
    let Some(map) = schema.as_object() else {
        return schema.as_bool().unwrap_or(false);
    };
    map.iter().all(|(key, rule)| match key.as_str() {
        "description" => true,
        "anyOf" => rule.as_array().unwrap().iter().any(|s| valid(s, value)),
        "allOf" => rule.as_array().unwrap().iter().all(|s| valid(s, value)),
        "not" => !valid(rule, value),
        "required" => value.as_object().is_none_or(|o| {
            rule.as_array()
                .unwrap()
                .iter()
                .all(|k| o.contains_key(k.as_str().unwrap()))
        }),
        "properties" => value.as_object().is_none_or(|o| {
            rule.as_object()
                .unwrap()
                .iter()
                .all(|(k, s)| o.get(k).is_none_or(|v| valid(s, v)))
        }),
        "const" => value == rule,
        "type" => {
            let of = |t: &str| match t {
                "null" => value.is_null(),
                "boolean" => value.is_boolean(),
                "integer" => value.as_f64().is_some_and(|f| f.fract() == 0.0),
                "string" => value.is_string(),
                "object" => value.is_object(),
                other => panic!("type {other} in a request rule"),
            };
            match rule {
                Value::String(t) => of(t),
                Value::Array(ts) => ts.iter().any(|t| of(t.as_str().unwrap())),
                _ => panic!("type {rule}"),
            }
        }
        "minimum" => value.as_f64().is_none_or(|f| f >= rule.as_f64().unwrap()),
        other => panic!("keyword {other} in a request rule"),
    })
}

/// The rules between fields of a job or census request (`keep` and the window options, `max_n`
/// by `keep`) are stated in the document (issue 39: `{"code":"0.6","keep":"all",
/// "window":65536}` was schema-valid and answered 422): for every combination of `keep`,
/// `window`, `store_values` (each absent, null or given) and a `max_n` on either side of
/// `GRUNDY_JOB_MAX_N`, the server refuses (422) exactly the requests that the schema's `not`
/// refuses, and accepts (202, a census 201) the others.
#[tokio::test]
async fn the_keep_rules_of_job_and_census_requests_are_in_the_schema() {
    use serde_json::{json, Map, Value};
    let app = common::app_with(grundy::config::Config {
        quota_active_jobs: 0,
        quota_heaps_per_day: 0,
        ..common::config()
    })
    .await;
    let doc: Value = serde_json::from_str(&grundy::api::openapi_json()).unwrap();
    let max_n = grundy::config::Config::default().job_max_n;
    let (mut refused, mut accepted) = (0, 0);
    for (path, schema, base, created) in [
        ("/v1/octal/jobs", "JobRequest", json!({"code": "0.6"}), 202),
        (
            "/v1/octal/census",
            "CensusRequest",
            json!({"codes": ["0.6"]}),
            201,
        ),
    ] {
        let rule = &doc["components"]["schemas"][schema]["not"];
        assert!(rule.is_object(), "{schema} states its rules between fields");
        for keep in [
            None,
            Some(Value::Null),
            Some(json!("all")),
            Some(json!("window")),
        ] {
            for window in [None, Some(Value::Null), Some(json!(65536))] {
                for store_values in [None, Some(Value::Null), Some(json!(true))] {
                    for n in [1000, max_n, max_n + 1] {
                        let mut body: Map<String, Value> = base.as_object().unwrap().clone();
                        body.insert("max_n".into(), json!(n));
                        for (k, v) in [
                            ("keep", &keep),
                            ("window", &window),
                            ("store_values", &store_values),
                        ] {
                            if let Some(v) = v {
                                body.insert(k.into(), v.clone());
                            }
                        }
                        let body = Value::Object(body);
                        let schema_refuses = valid(rule, &body);
                        let r = app.post(path, &body).await;
                        if schema_refuses {
                            refused += 1;
                            assert_eq!(r.status.as_u16(), 422, "{path} {body}: {}", r.text);
                            assert_eq!(r.body["type"], "/problems/invalid-value", "{}", r.text);
                        } else {
                            accepted += 1;
                            assert_eq!(r.status.as_u16(), created, "{path} {body}: {}", r.text);
                        }
                    }
                }
            }
        }
    }
    assert!(
        refused > 20 && accepted > 20,
        "{refused} refused, {accepted} accepted"
    );
}
