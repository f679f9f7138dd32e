//! The octal room's tests across modules: the published values and periods (`acceptance`),
//! the engine against the definition (`grundy`), the parallel pipeline (`pipeline`) and the
//! bounded windows (`window`). A module's own tests are in `<module>/tests.rs`.
mod acceptance;
mod grundy;
mod pipeline;
mod window;
