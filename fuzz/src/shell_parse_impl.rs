//! The shell's parser, from the regionkv-cli sources (the fuzz crate does not depend on the
//! binary crate): the modules `grammar.rs` reaches as `super::ast` and `super::parse`.

#[path = "../../crates/regionkv-cli/src/shell/ast.rs"]
pub mod ast;
#[path = "../../crates/regionkv-cli/src/shell/grammar.rs"]
pub mod grammar;
#[path = "../../crates/regionkv-cli/src/shell/parse.rs"]
pub mod parse;
