//! The committed OpenAPI document must equal the one generated from the code.
//! Regenerate with: `cargo run -- openapi > openapi/openapi.json`
//! (or `UPDATE_OPENAPI=1 cargo test --test openapi`).

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
