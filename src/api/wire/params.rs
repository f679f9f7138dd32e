//! Query and path parameter extractors that fail like bodies: a value that is out of range or
//! does not parse is a 422 `invalid-value` problem naming the parameter (axum's own extractors
//! answer a plain-text 400), and 400 stays for what is malformed at the syntax level (a path
//! segment that is not UTF-8 after percent-decoding).

use axum::extract::rejection::PathRejection;
use axum::extract::{FromRequestParts, Path};
use axum::http::request::Parts;
use serde::de::DeserializeOwned;

use crate::api::wire::error::ApiError;
use crate::api::wire::serde_error::field_name;

/// Like `axum::extract::Query`, with problem documents that name the parameter.
pub struct ApiQuery<T>(pub T);

impl<S, T> FromRequestParts<S> for ApiQuery<T>
where
    S: Send + Sync,
    T: DeserializeOwned,
{
    type Rejection = ApiError;

    async fn from_request_parts(parts: &mut Parts, _state: &S) -> Result<Self, Self::Rejection> {
        parse_query(parts.uri.query().unwrap_or("")).map(ApiQuery)
    }
}

/// Deserialises a query string (`a=1&b=x`), naming the parameter on failure.
pub fn parse_query<T: DeserializeOwned>(query: &str) -> Result<T, ApiError> {
    let de = serde_urlencoded::Deserializer::new(form_urlencoded::parse(query.as_bytes()));
    serde_path_to_error::deserialize(de).map_err(|err| {
        let message = err.inner().to_string();
        let field = field_name(err.path(), &message, "query string");
        let message = match message.as_str() {
            // serde's words for u64's FromStr errors, made to say what is expected.
            "number too large to fit in target type" => {
                "the number is too large for this parameter".to_owned()
            }
            "invalid digit found in string" | "cannot parse integer from empty string" => {
                "not a non-negative integer".to_owned()
            }
            _ => message,
        };
        ApiError::invalid(field.clone(), format!("{field}: {message}"))
    })
}

/// Like `axum::extract::Path`, with problem documents that name the parameter.
pub struct ApiPath<T>(pub T);

impl<S, T> FromRequestParts<S> for ApiPath<T>
where
    S: Send + Sync,
    T: DeserializeOwned + Send,
{
    type Rejection = ApiError;

    async fn from_request_parts(parts: &mut Parts, state: &S) -> Result<Self, Self::Rejection> {
        use axum::extract::path::ErrorKind;
        match Path::<T>::from_request_parts(parts, state).await {
            Ok(Path(v)) => Ok(ApiPath(v)),
            Err(PathRejection::FailedToDeserializePathParams(e)) => Err(match e.into_kind() {
                ErrorKind::InvalidUtf8InPathParam { key } => ApiError::BadRequest {
                    detail: format!("{key}: the path segment is not valid UTF-8"),
                    field: Some(key),
                },
                ErrorKind::ParseErrorAtKey {
                    key,
                    value,
                    expected_type,
                } => ApiError::invalid(
                    key.clone(),
                    format!("{key}: {value:?} is not a valid {expected_type}"),
                ),
                ErrorKind::DeserializeError {
                    key,
                    value,
                    message,
                } => ApiError::invalid(key.clone(), format!("{key}: {value:?}: {message}")),
                other => ApiError::invalid("path", format!("path: {other}")),
            }),
            Err(other) => Err(ApiError::Internal(format!("path extraction: {other}"))),
        }
    }
}
