//! Naming the field of a serde error: the one rule the body and the query extractors share.

/// The field a deserialisation error is about: the path serde tracked (`position[3]`), else
/// the field that a "missing field `x`" or "duplicate field `x`" message names (serde reports
/// those at the parent's path), else `whole` (the request body, the query string).
pub fn field_name(path: &serde_path_to_error::Path, message: &str, whole: &str) -> String {
    let path = path.to_string();
    if path != "." {
        return path;
    }
    message
        .strip_prefix("missing field `")
        .or_else(|| message.strip_prefix("duplicate field `"))
        .and_then(|m| m.split('`').next())
        .unwrap_or(whole)
        .to_owned()
}
