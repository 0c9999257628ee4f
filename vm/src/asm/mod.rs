//! The assembler's front half: text to tokens ([`lexer`]) to a syntax tree
//! ([`parser`], [`ast`]). Name resolution and checks live in
//! [`crate::verify`].

pub mod ast;
pub mod lexer;
pub mod parser;
