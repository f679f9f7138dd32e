//! The JSON Schema rules of request fields, stated once and used by the request types
//! (`#[schema(schema_with = …)]`) and the path parameters, so that the OpenAPI document carries
//! every rule the server enforces that JSON Schema can state: integer ranges up to 2^64−1,
//! `uniqueItems` for sets of squares, `maxItems` with the configurable defaults (the description
//! names the variable), and `pattern`/`minLength` for game codes and ordinals.
//!
//! What no schema can state (compute budgets, time limits) is answered with the
//! `/problems/budget-exceeded` problem type instead (see [`super::problems`]).

use utoipa::openapi::path::{Parameter, ParameterBuilder, ParameterIn};
use utoipa::openapi::schema::{
    ArrayBuilder, KnownFormat, Object, ObjectBuilder, SchemaFormat, SchemaType, Type,
};
use utoipa::openapi::{Array, Required};

/// Default of `GRUNDY_MAX_COINS` (see `crate::config`): coins or heaps per position.
pub const DEFAULT_MAX_COINS: usize = 1_000_000;
/// Default of `GRUNDY_EXPLAIN_MAX_COINS`.
pub const DEFAULT_EXPLAIN_MAX_COINS: usize = 256;
/// Default of `GRUNDY_MAX_ORDINALS`.
pub const DEFAULT_MAX_ORDINALS: usize = 10_000;

/// Whitespace as Rust's `char::is_whitespace` (Unicode White_Space), which the code parser
/// trims and allows inside `S( … )`.
const WS: &str = r"[\t-\r \u0085\u00A0\u1680\u2000-\u200A\u2028\u2029\u202F\u205F\u3000]";

/// A game code (see `crate::core::octal::code`):
///
/// * digit codes `[before].[after][(block)]`: digits before the point may only be 0, 4, 8 or C
///   (they take no tokens), hexadecimal digits after it, at most one repeating block; the
///   pattern bounds the three parts at 16 + 32 + 16 digits so that it never admits more than
///   the 64 digits the parser accepts;
/// * subtraction games `S(a,b,…)` with members 1..=1024 (leading zeros allowed), whitespace
///   allowed around members;
/// * `grundy` (any case): Grundy's game;
/// * surrounding whitespace is ignored.
pub fn game_code_pattern() -> String {
    let member = r"0*(102[0-4]|10[01][0-9]|[1-9][0-9]{0,2})";
    format!(
        r"^{WS}*([048Cc]{{0,16}}\.[0-9A-Fa-f]{{0,32}}(\([0-9A-Fa-f]{{1,16}}\))?|[Ss]{WS}*\({WS}*{member}({WS}*,{WS}*{member})*{WS}*\)|[Gg][Rr][Uu][Nn][Dd][Yy]){WS}*$"
    )
}

/// Ordinals below ε0 as sums of terms in ASCII Cantor normal form: `0`, or terms `w^E*c`,
/// `w^E`, `w*c`, `w` or a natural number joined by `+`, where an exponent `E` is a number ≥ 2,
/// `w`, or a parenthesised sum of such terms with numeric exponents. Coefficients and numbers
/// have at most 9 digits and a sum at most 16 terms, so no sum overflows 64 bits and nothing
/// reaches the parser's size limits. The server also reads other notations (`ω`, `·`, `^`
/// towers, products, parentheses anywhere, whitespace); the pattern states the canonical form
/// every answer is written in.
pub fn ordinal_pattern() -> String {
    let c = "([2-9]|[1-9][0-9]{1,8})"; // coefficient or exponent ≥ 2
    let n = "[1-9][0-9]{0,8}";
    let simple = format!(r"(w\^{c}(\*{c})?|w(\*{c})?|{n})");
    let exponent = format!(r"({c}|w|\({simple}(\+{simple}){{0,7}}\))");
    let term = format!(r"(w\^{exponent}(\*{c})?|w(\*{c})?|{n})");
    format!(r"^(0|{term}(\+{term}){{0,15}})$")
}

/// A non-negative integer in 0..=2^64−1.
pub fn nat() -> Object {
    nat_range(0, u64::MAX)
}

/// A non-negative integer in `min..=max`.
pub fn nat_range(min: u64, max: u64) -> Object {
    ObjectBuilder::new()
        .schema_type(Type::Integer)
        .format(Some(SchemaFormat::KnownFormat(KnownFormat::UInt64)))
        .minimum(Some(min))
        .maximum(Some(max))
        .build()
}

fn squares(description: &str, unique: bool, max_items: usize) -> Array {
    ArrayBuilder::new()
        .items(nat())
        .unique_items(unique)
        .max_items(Some(max_items))
        .description(Some(description))
        .build()
}

/// Occupied squares of Welter's game and its relatives: distinct, at most `GRUNDY_MAX_COINS`.
pub fn distinct_squares() -> Array {
    squares(
        "The occupied squares: distinct non-negative integers in any order, at most `GRUNDY_MAX_COINS` \
         (default 1,000,000).",
        true,
        DEFAULT_MAX_COINS,
    )
}

/// Occupied squares of an explanation: distinct, at most `GRUNDY_EXPLAIN_MAX_COINS`.
pub fn explain_squares() -> Array {
    squares(
        "The occupied squares: distinct, at most `GRUNDY_EXPLAIN_MAX_COINS` (default 256).",
        true,
        DEFAULT_EXPLAIN_MAX_COINS,
    )
}

/// Antonim squares: only 0 may repeat (so no `uniqueItems`), at most `GRUNDY_MAX_COINS`.
pub fn antonim_squares() -> Array {
    squares(
        "Squares; only 0 may repeat. At most `GRUNDY_MAX_COINS` (default 1,000,000) entries.",
        false,
        DEFAULT_MAX_COINS,
    )
}

/// Heap sizes of a sum of octal-game heaps.
pub fn octal_heaps() -> Array {
    squares(
        "Heap sizes (any, up to 2^64−1, when periodicity is proved); at most 64 heaps.",
        false,
        crate::core::octal::MAX_HEAPS,
    )
}

/// The schema of one game code.
pub fn game_code() -> Object {
    ObjectBuilder::new()
        .schema_type(SchemaType::from(Type::String))
        .min_length(Some(1))
        .pattern(Some(game_code_pattern()))
        .description(Some(
            "A game code: octal `0.07` / `.137` / `4.07`, hexadecimal digits 8–F after the point, \
             digits 0, 4, 8, C before it (`44.3`), one repeating block in parentheses (`0.(3)` = Nim, \
             `4.(3)` = Lasker's Nim), at most 64 digits; or a subtraction game `S(1,2,5)` with \
             members 1..=1024; or `grundy` (Grundy's game, any case).",
        ))
        .build()
}

fn ordinal() -> Object {
    ObjectBuilder::new()
        .schema_type(SchemaType::from(Type::String))
        .min_length(Some(1))
        .pattern(Some(ordinal_pattern()))
        .build()
}

fn ordinals(description: &str, unique: bool) -> Array {
    ArrayBuilder::new()
        .items(ordinal())
        .unique_items(unique)
        .max_items(Some(DEFAULT_MAX_ORDINALS))
        .description(Some(description))
        .build()
}

/// Transfinite Nim heaps (may repeat).
pub fn nim_ordinals() -> Array {
    ordinals(
        "Heap sizes: ordinals below ε0 in Cantor normal form (`w^2*3+w+9`; the server also reads `ω`, \
         `·`, products, powers and parentheses), at most `GRUNDY_MAX_ORDINALS` (default 10,000) and \
         `GRUNDY_MAX_ORDINAL_TERMS` terms in all.",
        false,
    )
}

/// Transfinite Welter squares (distinct).
pub fn welter_ordinals() -> Array {
    ordinals(
        "Occupied squares: distinct ordinals below ε0 in Cantor normal form (`w^2*3+w+9`; the server \
         also reads `ω`, `·`, products, powers and parentheses — two notations of one ordinal are the \
         same square), at most `GRUNDY_MAX_ORDINALS` (default 10,000) and `GRUNDY_MAX_ORDINAL_TERMS` \
         terms in all.",
        true,
    )
}

fn path_param(name: &str, description: &str, schema: Object) -> Parameter {
    ParameterBuilder::new()
        .name(name)
        .parameter_in(ParameterIn::Path)
        .required(Required::True)
        .description(Some(description))
        .schema(Some(schema))
        .build()
}

/// The path parameters of `GET /v1/octal/{code}/value/{heap}`.
pub struct HeapValuePath;

impl utoipa::IntoParams for HeapValuePath {
    fn into_params(_: impl Fn() -> Option<ParameterIn>) -> Vec<Parameter> {
        vec![
            path_param(
                "code",
                "Game code, URL-encoded (e.g. 0.07, 4.(3), S(1,2,5))",
                game_code(),
            ),
            path_param("heap", "Heap size", nat()),
        ]
    }
}

/// The path parameter of `GET /v1/octal/{code}/values`.
pub struct CodePath;

impl utoipa::IntoParams for CodePath {
    fn into_params(_: impl Fn() -> Option<ParameterIn>) -> Vec<Parameter> {
        vec![path_param(
            "code",
            "Game code, URL-encoded (e.g. 0.07, 4.(3), S(1,2,5))",
            game_code(),
        )]
    }
}

/// `n` of `POST /v1/octal/sequence`: at most `GRUNDY_OCTAL_MAX_N`.
pub fn sequence_n() -> Object {
    let mut o = nat_range(0, crate::config::Config::default().octal_max_n as u64);
    o.description = Some(
        "How many values: g(0..n−1). At most `GRUNDY_OCTAL_MAX_N` (default 1,000,000, the maximum \
         stated here); computing them must fit the synchronous time limit (`GRUNDY_OCTAL_SYNC_MS`), \
         else a `/problems/budget-exceeded` problem says to submit a job."
            .into(),
    );
    o
}

/// `max_n` of `POST /v1/octal/jobs`: 1..=`GRUNDY_JOB_MAX_N`.
pub fn job_max_n() -> Object {
    let d = crate::config::Config::default();
    let mut o = nat_range(1, d.job_max_n.max(d.job_window_max_n));
    o.description = Some(
        "How many values to compute at most: 1..=`GRUNDY_JOB_MAX_N` (default 1,000,000,000) for a \
         job that keeps every value, 1..=`GRUNDY_JOB_WINDOW_MAX_N` (default 2^48, the maximum \
         stated here) with `\"keep\": \"window\"`."
            .into(),
    );
    o
}

/// `codes` of `POST /v1/octal/census`: 1 to 200 game codes, or null/absent for the unsolved
/// table.
pub fn census_codes() -> Array {
    let mut a = ArrayBuilder::new()
        .items(game_code())
        .min_items(Some(1))
        .max_items(Some(crate::service::jobs::census::MAX_CODES))
        .build();
    a.schema_type = SchemaType::from_iter([Type::Array, Type::Null]);
    a.description = Some(
        "Game codes, 1 to 200 (duplicates count once); absent or null: every game of the unsolved \
         table (83, `grundy` included)."
            .into(),
    );
    a
}

/// `window` of `POST /v1/octal/jobs`: a positive multiple of 65,536 up to
/// `GRUNDY_JOB_MAX_WINDOW` (default 2^28); null or absent for `GRUNDY_JOB_WINDOW`.
pub fn job_window() -> Object {
    let d = crate::config::Config::default();
    let slide = crate::core::octal::SLIDE as u64;
    let mut o = nat_range(slide, d.job_max_window);
    o.multiple_of = Some((slide as f64).into());
    o.schema_type = SchemaType::from_iter([Type::Integer, Type::Null]);
    o.description = Some(format!(
        "Window mode: the values kept in the front (G(0..window)) and behind the last one \
         computed, a multiple of {slide} up to `GRUNDY_JOB_MAX_WINDOW` (default 2^28); null or \
         absent: `GRUNDY_JOB_WINDOW` (2^24). Memory: about 2 × window values of 1 or 2 bytes. A \
         window implies `\"keep\": \"window\"` when `keep` is absent; with `\"keep\": \"all\"` \
         it is refused (422 naming `window`)."
    ));
    o
}

/// The rules between the fields of a job or census request that the server enforces and JSON
/// Schema 2020-12 can state, as the `not` keyword beside the request's properties (see
/// [`super::fix_formats`], which adds it to the request schemas): the request must not be
///
/// * an explicit `"keep": "all"` together with a window option (`window` or `store_values`
///   other than null), which is refused (422 naming the option) — without `keep` a window
///   option implies `"keep": "window"`;
/// * a request that keeps every value with `max_n` above `GRUNDY_JOB_MAX_N` (its default,
///   10^9, is stated; window mode goes to `GRUNDY_JOB_WINDOW_MAX_N`, the `maximum` of
///   `max_n`). A job keeps every value with `"keep": "all"`, and — `all_by_default` — also
///   when `keep` and both window options are absent or null; a census only with
///   `"keep": "all"` (its default is window mode).
pub fn keep_rules(all_by_default: bool) -> serde_json::Value {
    use serde_json::json;
    let max_n = crate::config::Config::default().job_max_n;
    let too_many = json!({"type": "integer", "minimum": max_n + 1});
    let mut refused = vec![
        // An explicit "all" with a window option.
        json!({
            "required": ["keep"],
            "properties": {"keep": {"const": "all"}},
            "anyOf": [
                {"required": ["window"], "properties": {"window": {"type": "integer"}}},
                {"required": ["store_values"], "properties": {"store_values": {"type": "boolean"}}}
            ]
        }),
        // An explicit "all" beyond GRUNDY_JOB_MAX_N.
        json!({
            "required": ["keep", "max_n"],
            "properties": {"keep": {"const": "all"}, "max_n": too_many}
        }),
    ];
    if all_by_default {
        // A job without keep or window options keeps every value.
        refused.push(json!({
            "required": ["max_n"],
            "properties": {
                "keep": {"type": "null"},
                "window": {"type": "null"},
                "store_values": {"type": "null"},
                "max_n": too_many
            }
        }));
    }
    json!({
        "description": format!(
            "Refused (422): an explicit \"keep\": \"all\" with a window option (`window` or \
             `store_values` not null), and a request that keeps every value with max_n above \
             `GRUNDY_JOB_MAX_N` (default {max_n})."
        ),
        "anyOf": refused
    })
}

/// `limit` of `POST /v1/octal/winning-moves`: 1..=10000, null or absent for 1000.
pub fn moves_limit() -> Object {
    let mut o = nat_range(1, 10_000);
    o.schema_type = SchemaType::from_iter([Type::Integer, Type::Null]);
    o.description = Some("Moves per page: 1..=10000 (default 1000).".into());
    o.default = Some(serde_json::json!(1000));
    o
}

/// `cursor` of `POST /v1/octal/winning-moves`: null, or a `next_cursor` as the server writes
/// it. Only the cursor of the previous page of the same query is accepted (it carries a
/// fingerprint of the game and heaps), which no schema can state.
pub fn moves_cursor() -> Object {
    ObjectBuilder::new()
        .schema_type(SchemaType::from_iter([Type::String, Type::Null]))
        .pattern(Some(
            r"^[0-9]{1,19}\.[0-3]\.-?[0-9]{1,38}\.[0-9]{1,19}\.[0-9]{1,19}\.[0-9a-f]{16}$",
        ))
        .description(Some(
            "`next_cursor` of the previous page of the same query (it carries a fingerprint of the \
             game and heaps; another query's cursor is refused).",
        ))
        .build()
}

/// `max_heap` of `POST /v1/octal/misere/quotient`.
pub fn misere_max_heap() -> Object {
    let mut o = nat_range(0, crate::service::misere::MAX_BOUND);
    o.description = Some(
        "The quotient Q_max_heap of the heaps 0..=max_heap. Computing it must fit the synchronous \
         time limit (`GRUNDY_OCTAL_SYNC_MS`) and the engine's budget, else a \
         `/problems/budget-exceeded` problem says how far it got."
            .into(),
    );
    o
}

/// `table_rows` of `POST /v1/octal/misere/quotient`: rows of the multiplication table per page.
pub fn misere_table_rows() -> Object {
    let mut o = nat_range(0, 256);
    o.schema_type = SchemaType::from_iter([Type::Integer, Type::Null]);
    o.description = Some(
        "Rows of the multiplication table to include, from `table_offset` (default 0: no table; \
         at most 256 a page)."
            .into(),
    );
    o.default = Some(serde_json::json!(0));
    o
}

/// `table_offset` of `POST /v1/octal/misere/quotient`.
pub fn misere_table_offset() -> Object {
    let mut o = nat();
    o.schema_type = SchemaType::from_iter([Type::Integer, Type::Null]);
    o.description = Some(
        "The first row of the multiplication table to include (`table.next_offset` of the \
         previous page; default 0). Past the last row the page is empty."
            .into(),
    );
    o.default = Some(serde_json::json!(0));
    o
}

fn query_param(name: &str, description: &str, required: bool, schema: Object) -> Parameter {
    ParameterBuilder::new()
        .name(name)
        .parameter_in(ParameterIn::Query)
        .required(if required {
            Required::True
        } else {
            Required::False
        })
        .description(Some(description))
        .schema(Some(schema))
        .build()
}

/// The query parameters of `GET /v1/octal/misere/quotient`.
pub struct QuotientQueryParams;

impl utoipa::IntoParams for QuotientQueryParams {
    fn into_params(_: impl Fn() -> Option<ParameterIn>) -> Vec<Parameter> {
        vec![
            query_param(
                "code",
                "Game code, URL-encoded (e.g. 0.07, 0.(3), S(1,2,5))",
                true,
                game_code(),
            ),
            query_param(
                "max_heap",
                "The quotient of the heaps 0..=max_heap",
                true,
                nat_range(0, crate::service::misere::MAX_BOUND),
            ),
            query_param(
                "table_offset",
                "The first row of the multiplication table in `table` (default 0)",
                false,
                nat(),
            ),
            query_param(
                "table_rows",
                "Rows of the multiplication table to include (default 0: none)",
                false,
                nat_range(0, 256),
            ),
        ]
    }
}
